// SPDX-License-Identifier: Apache-2.0
/* A fake NVRTC for the run-time compile path's CPU test: the same C entry
 * points, and an "image" that is the text "FAKE" followed by every option
 * and the name expression, so the test sees what reached the compiler.
 * A source holding "#error" fails with a log; compiles are counted in
 * fake_nvrtc_compiles (the test reads it with dlsym) so a cache hit is
 * seen as no compile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct prog {
    char *src, *name, *image, *log;
    size_t image_size;
} prog;

__attribute__((visibility("default"))) int fake_nvrtc_compiles;

int nvrtcVersion(int *major, int *minor)
{
    *major = 13;
    *minor = 0;
    return 0;
}

int nvrtcCreateProgram(prog **p, const char *src, const char *name, int nh,
                       const char *const *h, const char *const *hn)
{
    (void)name, (void)nh, (void)h, (void)hn;
    *p = calloc(1, sizeof **p);
    if (!*p || !((*p)->src = strdup(src)))
        return 1;
    return 0;
}

int nvrtcDestroyProgram(prog **p)
{
    free((*p)->src), free((*p)->name), free((*p)->image), free((*p)->log);
    free(*p);
    *p = NULL;
    return 0;
}

int nvrtcAddNameExpression(prog *p, const char *name)
{
    return (p->name = strdup(name)) ? 0 : 1;
}

int nvrtcCompileProgram(prog *p, int n, const char *const *opts)
{
    size_t len = 5 + strlen(p->name) + 1;
    ++fake_nvrtc_compiles;
    if (strstr(p->src, "#error")) {
        p->log = strdup("source.cu(1): error: the source said #error");
        return 6; /* NVRTC_ERROR_COMPILATION */
    }
    for (int i = 0; i < n; ++i)
        len += strlen(opts[i]) + 1;
    if (!(p->image = malloc(len)))
        return 1;
    strcpy(p->image, "FAKE");
    for (int i = 0; i < n; ++i)
        strcat(strcat(p->image, " "), opts[i]);
    strcat(strcat(p->image, " "), p->name);
    p->image_size = strlen(p->image);
    return 0;
}

int nvrtcGetLoweredName(prog *p, const char *name, const char **out)
{
    (void)name;
    *out = strstr(p->src, "missing_kernel") ? NULL : "_Z6loweredv";
    return *out ? 0 : 7;
}

int nvrtcGetProgramLogSize(prog *p, size_t *n)
{
    *n = p->log ? strlen(p->log) + 1 : 1;
    return 0;
}

int nvrtcGetProgramLog(prog *p, char *log)
{
    strcpy(log, p->log ? p->log : "");
    return 0;
}

int nvrtcGetCUBINSize(prog *p, size_t *n)
{
    *n = p->image_size;
    return 0;
}

int nvrtcGetCUBIN(prog *p, char *out)
{
    memcpy(out, p->image, p->image_size);
    return 0;
}

const char *nvrtcGetErrorString(int r)
{
    return r ? "NVRTC_ERROR_FAKE" : "NVRTC_SUCCESS";
}
