// SPDX-License-Identifier: Apache-2.0
/* Run-time compilation for libktune-select (ktune/select_jit.h): NVRTC
 * through dlopen, the wisdom entry's parameters as defines, a disk cache. */
#define _GNU_SOURCE
#include "ktune/select_jit.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* NVRTC's C API as far as it is used here (nvrtc.h is not included: this
 * library builds and runs without the CUDA toolkit). */
typedef struct nvrtc_prog *nvrtc_program;
typedef struct nvrtc_api {
    int (*version)(int *major, int *minor);
    int (*create)(nvrtc_program *p, const char *src, const char *name,
                  int num_headers, const char *const *headers,
                  const char *const *include_names);
    int (*destroy)(nvrtc_program *p);
    int (*add_name)(nvrtc_program p, const char *name_expr);
    int (*compile)(nvrtc_program p, int num_options,
                   const char *const *options);
    int (*lowered)(nvrtc_program p, const char *name_expr, const char **out);
    int (*log_size)(nvrtc_program p, size_t *size);
    int (*log)(nvrtc_program p, char *log);
    int (*cubin_size)(nvrtc_program p, size_t *size);
    int (*cubin)(nvrtc_program p, char *cubin);
    const char *(*error_string)(int result);
} nvrtc_api;

struct kt_select_jit {
    void *lib;
    nvrtc_api api;
    int major, minor;
    char cache[4096]; /* "" : no cache */
    char **options;
    size_t num_options;
};

#define JIT_MAGIC "ktune-jit 1\n"
#define JIT_MAX_OPTS 96

static int fail(kt_select_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(kt_select_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    if (err) {
        err->code = code;
        err->line = 0;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

static void default_cache(char *out, size_t size)
{
    const char *env = getenv("KTUNE_SELECT_CACHE");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (env)
        snprintf(out, size, "%s", env);
    else if (xdg && *xdg)
        snprintf(out, size, "%s/ktune/jit", xdg);
    else if (home && *home)
        snprintf(out, size, "%s/.cache/ktune/jit", home);
    else
        out[0] = '\0';
}

static int bind_api(kt_select_jit *j, kt_select_error *err)
{
    static const char *const names[] = {
        "nvrtcVersion",           "nvrtcCreateProgram",  "nvrtcDestroyProgram",
        "nvrtcAddNameExpression", "nvrtcCompileProgram", "nvrtcGetLoweredName",
        "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",  "nvrtcGetCUBINSize",
        "nvrtcGetCUBIN",          "nvrtcGetErrorString"};
    void **slots[] = {(void **)&j->api.version,     (void **)&j->api.create,
                      (void **)&j->api.destroy,     (void **)&j->api.add_name,
                      (void **)&j->api.compile,     (void **)&j->api.lowered,
                      (void **)&j->api.log_size,    (void **)&j->api.log,
                      (void **)&j->api.cubin_size,  (void **)&j->api.cubin,
                      (void **)&j->api.error_string};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (!(*slots[i] = dlsym(j->lib, names[i])))
            return fail(err, KT_SELECT_ENOJIT,
                        "the NVRTC library has no %s: not NVRTC, or too old",
                        names[i]);
    if (j->api.version(&j->major, &j->minor) != 0)
        return fail(err, KT_SELECT_ENOJIT, "nvrtcVersion failed");
    return KT_SELECT_OK;
}

static int load_nvrtc(kt_select_jit *j, const char *path, kt_select_error *err)
{
    static const char *const tries[] = {"libnvrtc.so", "libnvrtc.so.13",
                                        "libnvrtc.so.12"};
    const char *env = getenv("KTUNE_SELECT_NVRTC");
    const char *why = NULL;
    if (!path && env && *env)
        path = env;
    dlerror();
    if (path) {
        j->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; !j->lib && i < sizeof tries / sizeof tries[0]; ++i)
            j->lib = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (!j->lib) {
        why = dlerror();
        return fail(err, KT_SELECT_ENOJIT,
                    "NVRTC cannot be loaded (%s): run-time compilation is off; "
                    "use precompiled variants or install the CUDA runtime's "
                    "libnvrtc",
                    why    ? why
                    : path ? path
                           : "libnvrtc.so");
    }
    return bind_api(j, err);
}

int kt_select_jit_open(const kt_select_jit_options *o, kt_select_jit **out,
                       kt_select_error *err)
{
    kt_select_jit *j;
    int rc;
    if (!out)
        return fail(err, KT_SELECT_EARG, "out is NULL");
    *out = NULL;
    if (!(j = calloc(1, sizeof *j)))
        return fail(err, KT_SELECT_ENOMEM, "out of memory");
    if (o && o->cache_dir)
        snprintf(j->cache, sizeof j->cache, "%s", o->cache_dir);
    else
        default_cache(j->cache, sizeof j->cache);
    if (o && o->num_options) {
        if (o->num_options > 32 ||
            !(j->options = calloc(o->num_options, sizeof *j->options))) {
            kt_select_jit_close(j);
            return fail(err,
                        o->num_options > 32 ? KT_SELECT_EARG : KT_SELECT_ENOMEM,
                        "options: at most 32");
        }
        for (size_t i = 0; i < o->num_options; ++i)
            if (!(j->options[j->num_options++] = strdup(o->options[i]))) {
                kt_select_jit_close(j);
                return fail(err, KT_SELECT_ENOMEM, "out of memory");
            }
    }
    if ((rc = load_nvrtc(j, o ? o->nvrtc : NULL, err)) != KT_SELECT_OK) {
        kt_select_jit_close(j);
        return rc;
    }
    *out = j;
    return KT_SELECT_OK;
}

void kt_select_jit_close(kt_select_jit *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->num_options; ++i)
        free(j->options[i]);
    free(j->options);
    if (j->lib)
        dlclose(j->lib);
    free(j);
}

void kt_select_image_free(kt_select_image *img)
{
    if (!img)
        return;
    free(img->data);
    free(img->lowered_name);
    memset(img, 0, sizeof *img);
}

/* ---- what one compile is ---------------------------------------------- */

typedef struct request {
    char *name;               /* the name expression, {NAME}s replaced */
    char *opts[JIT_MAX_OPTS]; /* owned */
    size_t num_opts;
    uint64_t key;
} request;

static void request_free(request *r)
{
    free(r->name);
    for (size_t i = 0; i < r->num_opts; ++i)
        free(r->opts[i]);
}

static int add_opt(request *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int add_opt(request *r, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (r->num_opts == JIT_MAX_OPTS)
        return -1;
    va_start(ap, fmt);
    n = vasprintf(&r->opts[r->num_opts], fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    r->num_opts++;
    return 0;
}

static const kt_select_param *find_param(const kt_select_config *c,
                                         const char *name, size_t len)
{
    for (size_t i = 0; c && i < c->num_params; ++i)
        if (strlen(c->params[i].name) == len &&
            strncmp(c->params[i].name, name, len) == 0)
            return &c->params[i];
    return NULL;
}

/* kernel with each {NAME} replaced by the parameter's value. */
static int expand_name(const char *kernel, const kt_select_config *c,
                       request *r, kt_select_error *err)
{
    size_t cap = strlen(kernel) * 2 + 64, n = 0;
    char *out = malloc(cap);
    if (!out)
        return fail(err, KT_SELECT_ENOMEM, "out of memory");
    for (const char *p = kernel; *p;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        const kt_select_param *prm =
            close ? find_param(c, p + 1, (size_t)(close - p - 1)) : NULL;
        if (close && !prm) {
            free(out);
            return fail(err, KT_SELECT_EARG,
                        "kernel '%s': {%.*s} is not a parameter of the "
                        "configuration",
                        kernel, (int)(close - p - 1), p + 1);
        }
        if (n + 32 >= cap) {
            char *grown = realloc(out, cap *= 2);
            if (!grown) {
                free(out);
                return fail(err, KT_SELECT_ENOMEM, "out of memory");
            }
            out = grown;
        }
        if (prm) {
            n += (size_t)snprintf(out + n, cap - n, "%" PRId64, prm->value);
            p = close + 1;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    r->name = out;
    return KT_SELECT_OK;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Everything that changes the image is in the key, each part with its
 * terminating NUL so that no two lists of parts collide by joining. */
static uint64_t key_of(const kt_select_jit *j, const request *r,
                       const char *source)
{
    uint64_t h = 14695981039346656037ull;
    int v[2] = {j->major, j->minor};
    h = fnv(h, JIT_MAGIC, sizeof JIT_MAGIC);
    h = fnv(h, v, sizeof v);
    h = fnv(h, r->name, strlen(r->name) + 1);
    for (size_t i = 0; i < r->num_opts; ++i)
        h = fnv(h, r->opts[i], strlen(r->opts[i]) + 1);
    return fnv(h, source, strlen(source) + 1);
}

static int build_request(const kt_select_jit *j, const char *source,
                         const char *kernel, const kt_select_config *c,
                         int major, int minor, request *r, kt_select_error *err)
{
    int rc = expand_name(kernel, c, r, err);
    int bad = 0;
    if (rc != KT_SELECT_OK)
        return rc;
    bad |= add_opt(r, "-arch=sm_%d%d", major, minor);
    for (size_t i = 0; i < j->num_options; ++i)
        bad |= add_opt(r, "%s", j->options[i]);
    for (size_t i = 0; c && i < c->num_params; ++i)
        bad |=
            add_opt(r, "-D%s=%" PRId64, c->params[i].name, c->params[i].value);
    if (c && c->variant && *c->variant)
        bad |= add_opt(r, "-DKTUNE_VARIANT_%s=1", c->variant);
    if (bad)
        return fail(err, KT_SELECT_ELIMIT, "more than %d compiler options",
                    JIT_MAX_OPTS);
    r->key = key_of(j, r, source);
    return KT_SELECT_OK;
}

/* ---- the disk cache ----------------------------------------------------- */

static void cache_path(const kt_select_jit *j, const request *r, char *out,
                       size_t size)
{
    snprintf(out, size, "%s/%016" PRIx64 ".cubin", j->cache, r->key);
}

/* The cached image: "ktune-jit 1\n", the lowered name and the size on a
 * line each, then the bytes; anything else is a miss. */
/* path opened for reading only while it is a regular file of this user
 * that nobody else may write, reached through no link: an image planted by
 * someone else is never loaded (issue 53, N18). */
static FILE *open_own(const char *path)
{
    struct stat st;
    FILE *f = NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        !(st.st_mode & 022))
        f = fdopen(fd, "rb");
    if (!f)
        close(fd);
    return f;
}

static int cache_read(const char *path, kt_select_image *img)
{
    FILE *f = open_own(path);
    char magic[sizeof JIT_MAGIC], name[4096];
    unsigned long long size = 0;
    int ok = 0;
    if (!f)
        return 0;
    if (fread(magic, 1, sizeof JIT_MAGIC - 1, f) == sizeof JIT_MAGIC - 1 &&
        memcmp(magic, JIT_MAGIC, sizeof JIT_MAGIC - 1) == 0 &&
        fgets(name, sizeof name, f) && fscanf(f, "%llu\n", &size) == 1 &&
        size > 0 && size < (1ull << 32)) {
        name[strcspn(name, "\n")] = '\0';
        img->data = malloc((size_t)size);
        img->lowered_name = strdup(name);
        ok = img->data && img->lowered_name &&
             fread(img->data, 1, (size_t)size, f) == size && fgetc(f) == EOF;
        img->size = (size_t)size;
    }
    fclose(f);
    if (!ok)
        kt_select_image_free(img);
    return ok;
}

static void make_dirs(const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; ++p)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0700); /* the cache itself: this user's alone */
}

/* Written whole under a temporary name, then renamed: a reader never sees
 * half a file. A cache that cannot be written costs a compile next time,
 * nothing else. */
static void cache_write(const char *path, const kt_select_jit *j,
                        const kt_select_image *img)
{
    char tmp[4200];
    FILE *f;
    int ok, fd;
    make_dirs(j->cache);
    /* mkstemp: an exclusive new file of a random name (mode 0600), never
     * a link planted at a name guessed ahead (issue 53, N17) */
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp ||
        (fd = mkstemp(tmp)) < 0)
        return;
    if (!(f = fdopen(fd, "wb"))) {
        close(fd);
        unlink(tmp);
        return;
    }
    ok = fprintf(f, "%s%s\n%zu\n", JIT_MAGIC, img->lowered_name, img->size) >
             0 &&
         fwrite(img->data, 1, img->size, f) == img->size;
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0)
        unlink(tmp);
}

/* ---- the compile -------------------------------------------------------- */

static int compile_log(const kt_select_jit *j, nvrtc_program p,
                       const char *source_name, kt_select_error *err)
{
    size_t n = 0;
    char *log = NULL;
    if (j->api.log_size(p, &n) == 0 && n > 0 && (log = malloc(n + 1)) &&
        j->api.log(p, log) == 0)
        log[n] = '\0';
    fail(err, KT_SELECT_ECOMPILE, "%s does not compile: %s", source_name,
         log ? log : "(NVRTC gave no log)");
    free(log);
    return KT_SELECT_ECOMPILE;
}

static int take_image(const kt_select_jit *j, nvrtc_program p, const request *r,
                      kt_select_image *img, kt_select_error *err)
{
    const char *lowered = NULL;
    int rc;
    if ((rc = j->api.lowered(p, r->name, &lowered)) != 0 || !lowered)
        return fail(err, KT_SELECT_ECOMPILE,
                    "nvrtcGetLoweredName(%s): %s: the source has no such "
                    "kernel",
                    r->name, j->api.error_string(rc));
    if ((rc = j->api.cubin_size(p, &img->size)) != 0 || img->size == 0)
        return fail(err, KT_SELECT_ECOMPILE, "nvrtcGetCUBINSize: %s",
                    j->api.error_string(rc));
    if (!(img->data = malloc(img->size)) ||
        !(img->lowered_name = strdup(lowered)))
        return fail(err, KT_SELECT_ENOMEM, "out of memory");
    if ((rc = j->api.cubin(p, img->data)) != 0)
        return fail(err, KT_SELECT_ECOMPILE, "nvrtcGetCUBIN: %s",
                    j->api.error_string(rc));
    return KT_SELECT_OK;
}

static int run_nvrtc(const kt_select_jit *j, const char *source,
                     const char *source_name, const request *r,
                     kt_select_image *img, kt_select_error *err)
{
    nvrtc_program p = NULL;
    int rc = j->api.create(&p, source, source_name, 0, NULL, NULL);
    if (rc != 0)
        return fail(err, KT_SELECT_ENOMEM, "nvrtcCreateProgram: %s",
                    j->api.error_string(rc));
    if ((rc = j->api.add_name(p, r->name)) != 0)
        rc = fail(err, KT_SELECT_ECOMPILE, "nvrtcAddNameExpression(%s): %s",
                  r->name, j->api.error_string(rc));
    else if (j->api.compile(p, (int)r->num_opts,
                            (const char *const *)r->opts) != 0)
        rc = compile_log(j, p, source_name, err);
    else
        rc = take_image(j, p, r, img, err);
    j->api.destroy(&p);
    return rc;
}

int kt_select_jit_compile(kt_select_jit *j, const char *source,
                          const char *source_name, const char *kernel,
                          const kt_select_config *c, int cc_major, int cc_minor,
                          kt_select_image *out, kt_select_error *err)
{
    request r;
    int rc;
    if (!out)
        return fail(err, KT_SELECT_EARG, "out is NULL");
    memset(out, 0, sizeof *out);
    if (!j || !source || !kernel || !*kernel || cc_major < 1 || cc_minor < 0)
        return fail(err, KT_SELECT_EARG,
                    "kt_select_jit_compile: a NULL or empty argument");
    memset(&r, 0, sizeof r);
    rc = build_request(j, source, kernel, c, cc_major, cc_minor, &r, err);
    if (rc == KT_SELECT_OK && j->cache[0]) {
        cache_path(j, &r, out->cache_file, sizeof out->cache_file);
        out->from_cache = cache_read(out->cache_file, out);
    }
    if (rc == KT_SELECT_OK && !out->from_cache) {
        rc = run_nvrtc(j, source, source_name ? source_name : "source", &r, out,
                       err);
        if (rc == KT_SELECT_OK && j->cache[0])
            cache_write(out->cache_file, j, out);
    }
    if (rc != KT_SELECT_OK)
        kt_select_image_free(out);
    request_free(&r);
    return rc;
}
