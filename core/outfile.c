// SPDX-License-Identifier: Apache-2.0
#include "core/outfile.h"

#include "core/runctx.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KT_OUT_PENDING 16

/* An output being written through its temporary file. */
typedef struct pending {
    FILE *f;
    char *final;                /* the path asked for, malloc'ed */
    char tmp[PATH_MAX + 16];    /* final.tmp.XXXXXX */
    volatile sig_atomic_t used; /* tmp may exist: the handler removes it */
} pending;

/* The process's outputs: what its signal handler must clean up, and the
 * handlers it displaced (mutable: a signal handler can be given nothing
 * else), and the document's stream once stdout is reserved (a copy of the
 * original stdout), else NULL: stdout itself. */
static struct {
    pending outputs[KT_OUT_PENDING];
    struct sigaction before_int, before_term;
    FILE *doc_stream;
} g_out;

int kt_out_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int kt_out_reserve_stdout(void)
{
    int fd;
    FILE *f;
    kt_run_ctx *ctx = kt_run_ctx_get();

    /* A library run's stdout is its caller's stream: the document goes
     * there and the rest to its messages, no descriptor of the process
     * touched. */
    if (ctx) {
        ctx->reserved = 1;
        return 0;
    }
    if (g_out.doc_stream)
        return 0;
    /* Close-on-exec: a worker process must not hold the reader's pipe
     * open after ktune is done. */
    if (fflush(stdout) != 0 ||
        (fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)) < 0)
        return -1;
    if (!(f = fdopen(fd, "w"))) {
        close(fd);
        return -1;
    }
    /* Everything else written to stdout from now on (tables, notes, a
     * plugin's own prints, child processes) lands on stderr. */
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        fclose(f);
        return -1;
    }
    g_out.doc_stream = f;
    return 0;
}

int kt_out_reserve_if_stdout(const char *path)
{
    return kt_out_is_stdout(path) ? kt_out_reserve_stdout() : 0;
}

FILE *kt_out_stdout(void)
{
    const kt_run_ctx *ctx = kt_run_ctx_get();

    if (ctx)
        return ctx->out ? ctx->out : stdout;
    return g_out.doc_stream ? g_out.doc_stream : stdout;
}

/* Outputs open at once: a run writes a handful (--json, --csv, --t4,
 * --markdown); one more is refused with EMFILE, never written in place. */

/* Removes every temporary file (unlink is async-signal-safe), puts back the
 * handler that was there before and lets the signal take its course. */
static void on_stop(int sig)
{
    for (size_t i = 0; i < KT_OUT_PENDING; ++i)
        if (g_out.outputs[i].used)
            unlink(g_out.outputs[i].tmp);
    sigaction(sig, sig == SIGINT ? &g_out.before_int : &g_out.before_term,
              NULL);
    raise(sig);
}

/* Puts on_stop in front of sig's handler unless it is there already (a
 * command may have set its own since the last output was opened). */
static void set_handler(int sig, struct sigaction *before)
{
    struct sigaction now, sa;

    if (sigaction(sig, NULL, &now) != 0 || now.sa_handler == on_stop)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, before);
}

/* Not in a library run: the signals are its caller's to handle (a
 * temporary file left by a stopped caller is named *.tmp.XXXXXX). */
static void set_handlers(void)
{
    if (kt_run_ctx_get())
        return;
    set_handler(SIGINT, &g_out.before_int);
    set_handler(SIGTERM, &g_out.before_term);
}

/* The mode a new file would get from fopen, or the existing file's. */
static mode_t output_mode(const struct stat *st, int exists)
{
    mode_t mask;

    if (exists)
        return st->st_mode & 07777;
    mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* Opens path's temporary file in slot o; NULL with errno set. */
static FILE *open_temporary(pending *o, const char *path, const struct stat *st,
                            int exists)
{
    FILE *f;
    int fd;

    if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", path) >=
        (int)sizeof o->tmp) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (!(o->final = strdup(path)))
        return NULL;
    set_handlers();
    o->used = 1;
    if ((fd = mkstemp(o->tmp)) < 0)
        goto fail;
    if (fchmod(fd, output_mode(st, exists)) != 0 || !(f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        errno = e;
        goto fail;
    }
    o->f = f;
    return f;
fail:
    o->used = 0;
    free(o->final);
    o->final = NULL;
    return NULL;
}

FILE *kt_out_open(const char *path)
{
    struct stat st;
    int exists;

    if (kt_out_is_stdout(path))
        return kt_out_stdout();
    exists = lstat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        return fopen(path, "w");
    for (size_t i = 0; i < KT_OUT_PENDING; ++i)
        if (!g_out.outputs[i].used)
            return open_temporary(&g_out.outputs[i], path, &st, exists);
    errno = EMFILE;
    return NULL;
}

static pending *pending_of(const FILE *f)
{
    for (size_t i = 0; i < KT_OUT_PENDING; ++i)
        if (g_out.outputs[i].used && g_out.outputs[i].f == f)
            return &g_out.outputs[i];
    return NULL;
}

/* Closes o's stream; renames its file over the path asked for when keep
 * and every write reached it, else removes it. 0 or EOF (errno set). */
static int finish(pending *o, int keep)
{
    int bad = !keep, e = 0;

    if (keep && (fflush(o->f) != 0 || ferror(o->f))) {
        bad = 1;
        e = errno ? errno : EIO;
    }
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(o->tmp, o->final) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad)
        unlink(o->tmp);
    o->used = 0;
    o->f = NULL;
    free(o->final);
    o->final = NULL;
    errno = e;
    return bad && keep ? EOF : 0;
}

int kt_out_close(FILE *f)
{
    pending *o;

    if (f == stdout || (f && (f == g_out.doc_stream || f == kt_out_stdout())))
        return fflush(f) != 0 || ferror(f) ? EOF : 0;
    if ((o = pending_of(f)))
        return finish(o, 1);
    return fclose(f);
}

void kt_out_discard(FILE *f)
{
    pending *o;

    if (!f)
        return;
    if (f == stdout || f == g_out.doc_stream || f == kt_out_stdout())
        fflush(f);
    else if ((o = pending_of(f)))
        finish(o, 0);
    else
        fclose(f);
}

int kt_out_json(const json_t *j, const char *path)
{
    FILE *f = kt_out_open(path);
    int rc;

    if (!f)
        return -1;
    rc =
        json_dumpf(j, f, JSON_INDENT(2)) == 0 && fputc('\n', f) != EOF ? 0 : -1;
    if (rc != 0) {
        int e = errno ? errno : EIO;
        kt_out_discard(f);
        errno = e;
        return -1;
    }
    return kt_out_close(f) != 0 ? -1 : 0;
}
