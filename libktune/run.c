/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running a session's command in this process: the CLI's own command code
 * (app/embed.h, the ktune_cmd library the ktune program is made of) with
 * its stdout in memory and its messages through a stream of the session
 * (passed on to stderr when verbose, to the session's log line by line;
 * its last "ktune ...: " line is the session's message on failure). The
 * ktune program is still found: worker processes (isolation) run it, and
 * its folder holds the plugins and the NVRTC helper.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "app/embed.h"
#include "libktune/session.h"

/* A regular file this user may run (lib/ktune is the plugins' folder). */
static int is_program(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* "ktune" in a folder of path ($PATH) into out: 1, or 0. */
static int on_path(const char *path, char *out, size_t size)
{
    char *copy = path ? strdup(path) : NULL, *save = NULL;
    int found = 0;

    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save))
        found = *d && snprintf(out, size, "%s/ktune", d) < (int)size &&
                is_program(out);
    free(copy);
    return found;
}

/* The ktune executable (worker processes run it; its folder holds the
 * plugins): the session's, $KTUNE_EXE, next to this library (the build
 * tree), the install's bindir relative to the library's folder, else ktune
 * on PATH; "" when none. No path of the build machine is compiled in, and
 * never /proc/self/exe (the program that loaded the library). */
static void find_exe(const ktune_session *s, char *out, size_t size)
{
    kt_embed_env env;
    Dl_info info;
    char dir[PATH_MAX], *slash;

    kt_embed_env_read(&env);

    if (s->exe || env.ktune_exe) {
        snprintf(out, size, "%s", s->exe ? s->exe : env.ktune_exe);
        return;
    }
    if (dladdr((void *)ktune_version, &info) && info.dli_fname &&
        realpath(info.dli_fname, dir) && (slash = strrchr(dir, '/'))) {
        *slash = '\0';
        snprintf(out, size, "%s/ktune", dir);
        if (is_program(out))
            return;
        snprintf(out, size, "%s/%s/ktune", dir, KTUNE_LIB_BINDIR_FROM_LIBDIR);
        if (is_program(out))
            return;
    }
    if (!on_path(env.path, out, size))
        out[0] = '\0';
}

/* Appends n bytes to the growing text *t of length *len. */
static int append(char **t, size_t *len, size_t *cap, const char *p, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t want = (*len + n + 1) * 2;
        char *grown = realloc(*t, want);
        if (!grown)
            return -1;
        *t = grown;
        *cap = want;
    }
    memcpy(*t + *len, p, n);
    *len += n;
    (*t)[*len] = '\0';
    return 0;
}

/* Hands the complete lines of text[*done, len) to the session's log
 * (each without its newline; at the end, the rest as a line). */
static void log_lines(const ktune_session *s, char *text, size_t len,
                      size_t *done, int end)
{
    for (;;) {
        char *nl = memchr(text + *done, '\n', len - *done);
        if (!nl && !(end && *done < len))
            return;
        if (nl)
            *nl = '\0';
        s->log(s->log_user, text + *done);
        if (!nl) {
            *done = len;
            return;
        }
        *nl = '\n';
        *done = (size_t)(nl - text) + 1;
    }
}

/* The message of a failed run: its last line that starts "ktune " (the
 * CLI's one prefix, core/msg.h), else its last line. */
static void last_message(ktune_session *s, const char *err, int code)
{
    const char *best = NULL, *last = NULL;

    for (const char *p = err; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && strncmp(p, "ktune ", 6) == 0)
            best = p;
        if (n)
            last = p;
        p = e ? e + 1 : p + n;
    }
    if (!best)
        best = last;
    if (!best) {
        ktl_fail(s, code, "ktune ended with status %d and no message", code);
        return;
    }
    ktl_fail(s, code, "%.*s", (int)strcspn(best, "\n"), best);
    /* Declarations share one namespace with the built-in plugins. */
    if (strstr(s->errmsg, "duplicate plugin name") && s->name)
        snprintf(s->errmsg + strlen(s->errmsg),
                 s->errmsg_size - strlen(s->errmsg),
                 " (a built-in plugin has this name: give the kernel "
                 "another with ktune_declare; docs/library.md)");
}

/* The messages of a run, as the stream ktune_cmd writes them to. */
typedef struct msg_sink {
    ktune_session *s;
    char *text;
    size_t len, cap, logged;
    int echo; /* to stderr as they come */
} msg_sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    msg_sink *k = cookie;

    if (append(&k->text, &k->len, &k->cap, buf, n))
        return 0; /* the stream's error: out of memory */
    if (k->echo)
        fwrite(buf, 1, n, stderr);
    if (k->s->log)
        log_lines(k->s, k->text, k->len, &k->logged, 0);
    return (ssize_t)n;
}

/* The engine's outputs (core/runctx.h) as the API's, to the session's
 * callback (ktune_verify_callback). */
static int verify_outputs(void *user, const kt_run_output *outputs, size_t n,
                          char *msg, size_t msg_size)
{
    const ktune_session *s = user;
    ktune_output *o = calloc(n + 1, sizeof *o);
    int ok;

    if (!o) {
        snprintf(msg, msg_size, "out of memory");
        return 0;
    }
    for (size_t i = 0; i < n; ++i) {
        o[i] = (ktune_output){outputs[i].name, -1, outputs[i].count,
                              outputs[i].data, outputs[i].expected};
        for (int t = 0; ktl_type_name(t); ++t)
            if (strcmp(ktl_type_name(t), outputs[i].type) == 0)
                o[i].type = t;
    }
    ok = s->verify(s->verify_user, o, n, msg, msg_size) != 0;
    free(o);
    return ok;
}

/* Runs argv's command in this process to its end: its stdout into
 * *out_text (may be NULL), its messages through a msg_sink. */
int ktl_run(ktune_session *s, const char *const *argv_in, char **out_text)
{
    char exe[PATH_MAX], *out = NULL, **argv;
    size_t n = 0, out_len = 0;
    msg_sink k = {s, NULL, 0, 0, 0, s->verbose && !s->log};
    cookie_io_functions_t io = {NULL, sink_write, NULL, NULL};
    FILE *of = NULL, *ef = NULL;
    int code, rc = KTUNE_OK;

    while (argv_in[n])
        ++n;
    find_exe(s, exe, sizeof exe);
    if (!exe[0])
        return ktl_fail(s, KTUNE_E_IO,
                        "cannot find the ktune program (worker processes "
                        "run it, its folder holds the plugins): set "
                        "KTUNE_EXE or call ktune_session_set_exe");
    if (!(argv = calloc(n + 1, sizeof *argv)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    memcpy(argv, argv_in, n * sizeof *argv);
    if (append(&k.text, &k.len, &k.cap, "", 0) ||
        !(of = open_memstream(&out, &out_len)) ||
        !(ef = fopencookie(&k, "w", io))) {
        rc = ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
        goto done;
    }
    /* Line by line, so the log sees each as it is written. */
    setvbuf(ef, NULL, _IOLBF, 0);
    code = kt_embed_run(
        (int)n, argv,
        &(kt_embed){of, ef, exe, s->verify ? verify_outputs : NULL, s});
    fclose(ef);
    ef = NULL;
    if (fclose(of) != 0 && !code)
        rc = ktl_fail(s, KTUNE_E_NOMEM, "out of memory for ktune's output");
    of = NULL;
    if (s->log)
        log_lines(s, k.text, k.len, &k.logged, 1);
    if (!rc && code != 0) {
        rc = code == 2 ? KTUNE_E_INPUT : KTUNE_E_FAILURE;
        last_message(s, k.text, rc);
    }
done:
    if (ef)
        fclose(ef);
    if (of)
        fclose(of);
    if (!rc && out_text) {
        *out_text = out;
        out = NULL;
    }
    free(out);
    free(k.text);
    free(argv);
    return rc ? rc : ktl_ok(s);
}
