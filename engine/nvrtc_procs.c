// SPDX-License-Identifier: Apache-2.0
#include "engine/nvrtc_procs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/fileio.h"
#include "core/proc.h"
#include "core/settings.h"
#include "engine/nvrtc_code.h"

#define WIRE_MAGIC 0x4b544e31u /* "KTN1" */
#define OP_COMPILE 1u
#define OP_FRONT_END 2u
#define NO_BYTES UINT64_MAX           /* a NULL string or image */
#define MAX_FIELD ((uint64_t)1 << 31) /* no field of a frame is larger */

/* ------------------------------------------------------------- the wire */

/* Binary frames, not the workers' kt_wire (core/wire.h): that carries
 * JSON, whose strings must be UTF-8, and a request's source, NVRTC's log
 * (which quotes source lines) and the cubin are arbitrary bytes. */

/* A frame being written: grown as fields are put. */
typedef struct frame {
    char *data;
    size_t len, cap;
    int failed; /* out of memory */
} frame;

static void put(frame *f, const void *p, size_t n)
{
    if (f->failed)
        return;
    if (f->len + n > f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 4096;
        char *grown;
        while (cap < f->len + n)
            cap *= 2;
        if (!(grown = realloc(f->data, cap))) {
            f->failed = 1;
            return;
        }
        f->data = grown;
        f->cap = cap;
    }
    memcpy(f->data + f->len, p, n);
    f->len += n;
}

static void put_u32(frame *f, uint32_t v)
{
    put(f, &v, sizeof v);
}
static void put_f64(frame *f, double v)
{
    put(f, &v, sizeof v);
}

static void put_bytes(frame *f, const void *p, uint64_t n)
{
    uint64_t len = p ? n : NO_BYTES;
    put(f, &len, sizeof len);
    if (p)
        put(f, p, (size_t)n);
}

static void put_str(frame *f, const char *s)
{
    put_bytes(f, s, s ? strlen(s) : 0);
}

/* The whole of [p, p+n) sent on fd (sending) or received into it, or -1:
 * the other end is gone. Never SIGPIPE: the peer may have died. */
static int move_all(int fd, void *p, size_t n, int sending)
{
    char *c = p;
    while (n) {
        ssize_t k = sending ? send(fd, c, n, MSG_NOSIGNAL) : recv(fd, c, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static int send_all(int fd, const void *p, size_t n)
{
    return move_all(fd, (void *)p, n, 1);
}

static int recv_all(int fd, void *p, size_t n)
{
    return move_all(fd, p, n, 0);
}

static int get_u32(int fd, uint32_t *v)
{
    return recv_all(fd, v, sizeof *v);
}
static int get_f64(int fd, double *v)
{
    return recv_all(fd, v, sizeof *v);
}

/* A field into *out (malloc'ed, NUL-terminated; NULL when sent as none),
 * its length into *n (may be NULL). -1: cut short or too large. */
static int get_bytes(int fd, char **out, size_t *n)
{
    uint64_t len;
    *out = NULL;
    if (recv_all(fd, &len, sizeof len))
        return -1;
    if (len == NO_BYTES)
        return 0;
    if (len > MAX_FIELD || !(*out = malloc((size_t)len + 1)))
        return -1;
    if (recv_all(fd, *out, (size_t)len)) {
        free(*out);
        *out = NULL;
        return -1;
    }
    (*out)[len] = '\0';
    if (n)
        *n = (size_t)len;
    return 0;
}

static int send_frame(int fd, frame *f)
{
    int rc = f->failed ? -1 : send_all(fd, f->data, f->len);
    free(f->data);
    memset(f, 0, sizeof *f);
    return rc;
}

static int send_request(int fd, uint32_t op, const kt_nvrtc_request *req)
{
    frame f = {0};
    put_u32(&f, WIRE_MAGIC);
    put_u32(&f, op);
    put_str(&f, req->source);
    put_str(&f, req->source_name);
    put_str(&f, req->name_expr);
    put_str(&f, req->arch);
    put_u32(&f, (uint32_t)req->num_options);
    for (size_t i = 0; i < req->num_options; ++i)
        put_str(&f, req->options[i]);
    return send_frame(fd, &f);
}

/* ------------------------------------------------------------ the set */

typedef struct helper {
    pid_t pid; /* 0: no process in this slot */
    int fd;
    int busy;
    int starting; /* pid 0: a caller is starting its process (unlocked) */
} helper;

struct kt_nvrtc_procs {
    pthread_mutex_t lock;
    pthread_cond_t idle;
    helper *slots;
    int n;
    int cancelled;
    size_t started;
    char path[PATH_MAX];
};

int kt_nvrtc_procs_helper(char *out, size_t size)
{
    kt_settings set;
    const char *env = (kt_settings_read(&set), set.ktune_nvrtc_helper);
    /* Beside the binary (the build folder), else as installed. */
    const char *tails[] = {"ktune-nvrtc", KT_HELPER_FROM_BINDIR};
    char self[PATH_MAX];

    if (env && env[0])
        return strcmp(env, "off") != 0 &&
               snprintf(out, size, "%s", env) < (int)size;
    if (!kt_exe_dir(self, sizeof self))
        return 0;
    for (size_t i = 0; i < sizeof tails / sizeof *tails; ++i)
        if (snprintf(out, size, "%s/%s", self, tails[i]) < (int)size &&
            access(out, X_OK) == 0)
            return 1;
    return 0;
}

kt_status kt_nvrtc_procs_open(int n, const char *helper_path,
                              kt_nvrtc_procs **out, kt_err *err)
{
    kt_nvrtc_procs *p = calloc(1, sizeof *p);

    *out = NULL;
    if (!p || n < 1 || !(p->slots = calloc((size_t)n, sizeof *p->slots))) {
        free(p);
        return n < 1 ? kt_err_set(err, KT_S_INPUT,
                                  "a helper set needs at least one helper")
                     : kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    if (snprintf(p->path, sizeof p->path, "%s", helper_path) >=
        (int)sizeof p->path) {
        free(p->slots);
        free(p);
        return kt_err_set(err, KT_S_INPUT, "the helper's path is too long");
    }
    p->n = n;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->idle, NULL);
    *out = p;
    return KT_S_OK;
}

/* A new helper process of p's path, its end of a socket pair on fd 3:
 * *pid and *fd. Called without the lock (it reads only p->path, which
 * never changes): a spawn is an exec and the helper's start, and under
 * the lock it held every other caller that wanted an idle helper (issue
 * 54: 16 compiles started at once). -1 with errno when it cannot start. */
static int spawn(const kt_nvrtc_procs *p, pid_t *pid, int *fd)
{
    char path[PATH_MAX];
    char *argv[] = {path, "--serve", NULL};
    int sv[2], child = -1;
    kt_status rc;
    kt_err err;

    memcpy(path, p->path, sizeof path);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return -1;
    /* Not fd 3 itself: dup2 onto itself would keep close-on-exec. */
    if (sv[1] <= 3) {
        child = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
        close(sv[1]);
        if (child < 0) {
            close(sv[0]);
            return -1;
        }
        sv[1] = child;
    }
    rc = kt_proc_spawn("the NVRTC helper", path, argv, NULL, sv[1], 3, pid,
                       &err);
    close(sv[1]);
    if (rc) {
        int e = errno;
        close(sv[0]);
        errno = e;
        return -1;
    }
    *fd = sv[0];
    return 0;
}

/* Under the lock, h reserved (starting): its process started without the
 * lock, then h busy with it. -1 with errno (h free again) when it could
 * not start. A set cancelled meanwhile kills it: the request fails. */
static int start_in(kt_nvrtc_procs *p, helper *h)
{
    pid_t pid = 0;
    int fd = -1, rc, e;

    h->starting = 1;
    pthread_mutex_unlock(&p->lock);
    rc = spawn(p, &pid, &fd);
    e = errno;
    pthread_mutex_lock(&p->lock);
    h->starting = 0;
    if (rc) {
        pthread_cond_signal(&p->idle); /* its slot is free again */
        errno = e;
        return -1;
    }
    h->pid = pid;
    h->fd = fd;
    ++p->started;
    if (p->cancelled)
        kill(pid, SIGKILL); /* reaped by its caller's give */
    return 0;
}

/* An idle helper, marked busy; NULL with err set when none can start or
 * the set is cancelled. */
static helper *take(kt_nvrtc_procs *p, kt_status *st, kt_err *err)
{
    helper *got = NULL;

    *st = KT_S_OK;
    pthread_mutex_lock(&p->lock);
    while (!got && !p->cancelled) {
        helper *empty = NULL;
        for (int i = 0; i < p->n && !got; ++i) {
            if (p->slots[i].pid && !p->slots[i].busy)
                got = &p->slots[i];
            else if (!p->slots[i].pid && !p->slots[i].starting && !empty)
                empty = &p->slots[i];
        }
        if (!got && empty) {
            if (start_in(p, empty)) {
                *st = kt_err_set(err, KT_S_UNSUPPORTED,
                                 "the NVRTC helper %s did not start: %s",
                                 p->path, strerror(errno));
                break;
            }
            got = empty;
        }
        if (!got)
            pthread_cond_wait(&p->idle, &p->lock);
    }
    if (got)
        got->busy = 1;
    else if (p->cancelled && !*st)
        *st = kt_err_set(err, KT_S_CRASHED, "the NVRTC helpers were stopped");
    pthread_mutex_unlock(&p->lock);
    return got;
}

/* Reaps a helper that stopped answering: what ended it into why. */
static void bury(helper *h, char *why, size_t size)
{
    int status = 0;
    close(h->fd);
    kill(h->pid, SIGKILL); /* a helper that broke the protocol alive */
    if (kt_proc_reap(h->pid, &status, 0) != h->pid)
        snprintf(why, size, "it could not be waited for");
    else
        kt_describe_exit(status, why, size);
    h->pid = 0;
}

/* Back to the set; dead: its process stopped answering mid-request. */
static void give(kt_nvrtc_procs *p, helper *h, int dead, kt_err *err)
{
    char why[96] = "";
    pid_t pid = h->pid;

    pthread_mutex_lock(&p->lock);
    if (dead && h->pid)
        bury(h, why, sizeof why);
    h->busy = 0;
    pthread_cond_signal(&p->idle);
    pthread_mutex_unlock(&p->lock);
    if (dead)
        kt_err_set(err, KT_S_CRASHED,
                   "the NVRTC helper (pid %ld) died on this kernel: %s",
                   (long)pid, why[0] ? why : "stopped");
}

/* The reply's head: the helper's status and message. -1: cut short. */
static int get_status(int fd, kt_status *st, kt_err *err)
{
    uint32_t magic = 0, status = 0;
    char *msg = NULL;

    if (get_u32(fd, &magic) || magic != WIRE_MAGIC || get_u32(fd, &status) ||
        get_bytes(fd, &msg, NULL))
        return -1;
    *st = (kt_status)status;
    if (*st)
        kt_err_set(err, *st, "%s", msg ? msg : "the NVRTC helper failed");
    free(msg);
    return 0;
}

static kt_status remote_compile(void *ctx, const kt_nvrtc_request *req,
                                kt_nvrtc_output *out, kt_err *err)
{
    kt_nvrtc_procs *p = ctx;
    kt_status st;
    helper *h = take(p, &st, err);
    uint32_t compiled = 0;
    int broken;

    if (!h)
        return st;
    broken =
        send_request(h->fd, OP_COMPILE, req) || get_status(h->fd, &st, err);
    if (!broken && !st)
        broken = get_u32(h->fd, &compiled) ||
                 get_bytes(h->fd, &out->image, &out->image_size) ||
                 get_bytes(h->fd, &out->lowered, NULL) ||
                 get_bytes(h->fd, &out->log, NULL) ||
                 get_f64(h->fd, &out->seconds) ||
                 get_f64(h->fd, &out->cpu_seconds);
    out->compiled = (int)compiled;
    if (!out->log && !broken && !st && !(out->log = strdup("")))
        st = kt_err_set(err, KT_S_NOMEM, "out of memory");
    give(p, h, broken, err);
    return broken ? KT_S_CRASHED : st;
}

static kt_status remote_front_end(void *ctx, const kt_nvrtc_request *req,
                                  char fp[33], double *cpu_s, kt_err *err)
{
    kt_nvrtc_procs *p = ctx;
    kt_status st;
    helper *h = take(p, &st, err);
    char *got = NULL;
    int broken;

    fp[0] = '\0';
    *cpu_s = 0;
    if (!h)
        return st;
    broken =
        send_request(h->fd, OP_FRONT_END, req) || get_status(h->fd, &st, err);
    if (!broken && !st)
        broken = get_bytes(h->fd, &got, NULL) || get_f64(h->fd, cpu_s);
    if (got && strlen(got) == 32)
        memcpy(fp, got, 33);
    free(got);
    give(p, h, broken, err);
    return broken ? KT_S_CRASHED : st;
}

kt_nvrtc_runner kt_nvrtc_procs_runner(kt_nvrtc_procs *p)
{
    kt_nvrtc_runner r = {remote_compile, remote_front_end, p};
    return r;
}

void kt_nvrtc_procs_cancel(kt_nvrtc_procs *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->cancelled = 1;
    for (int i = 0; i < p->n; ++i)
        if (p->slots[i].pid)
            kill(p->slots[i].pid, SIGKILL); /* its caller reaps it */
    pthread_cond_broadcast(&p->idle);
    pthread_mutex_unlock(&p->lock);
}

void kt_nvrtc_procs_close(kt_nvrtc_procs *p)
{
    char why[96];
    if (!p)
        return;
    for (int i = 0; i < p->n; ++i)
        if (p->slots[i].pid)
            bury(&p->slots[i], why, sizeof why);
    pthread_cond_destroy(&p->idle);
    pthread_mutex_destroy(&p->lock);
    free(p->slots);
    free(p);
}

size_t kt_nvrtc_procs_started(kt_nvrtc_procs *p)
{
    size_t n;
    pthread_mutex_lock(&p->lock);
    n = p->started;
    pthread_mutex_unlock(&p->lock);
    return n;
}

/* ---------------------------------------------------- the helper's side */

/* A request's strings as the helper read them (owned). */
typedef struct request_text {
    char *source, *source_name, *name_expr, *arch;
    char **options;
    uint32_t num_options;
} request_text;

static void request_text_free(request_text *t)
{
    free(t->source);
    free(t->source_name);
    free(t->name_expr);
    free(t->arch);
    for (uint32_t i = 0; t->options && i < t->num_options; ++i)
        free(t->options[i]);
    free(t->options);
    memset(t, 0, sizeof *t);
}

/* One request read from fd into t. -1: the caller closed or sent
 * something else. */
static int read_request(int fd, uint32_t *op, request_text *t)
{
    uint32_t magic = 0;
    memset(t, 0, sizeof *t);
    if (get_u32(fd, &magic) || magic != WIRE_MAGIC || get_u32(fd, op) ||
        get_bytes(fd, &t->source, NULL) ||
        get_bytes(fd, &t->source_name, NULL) ||
        get_bytes(fd, &t->name_expr, NULL) || get_bytes(fd, &t->arch, NULL) ||
        get_u32(fd, &t->num_options) || t->num_options > 65536 ||
        !(t->options = calloc(t->num_options + 1, sizeof *t->options)))
        return -1;
    for (uint32_t i = 0; i < t->num_options; ++i)
        if (get_bytes(fd, &t->options[i], NULL) || !t->options[i])
            return -1;
    return t->source && t->name_expr && t->arch ? 0 : -1;
}

static void put_status(frame *f, kt_status st, const kt_err *err)
{
    put_u32(f, WIRE_MAGIC);
    put_u32(f, (uint32_t)st);
    put_str(f, st ? err->msg : "");
}

static int answer(int fd, uint32_t op, const kt_nvrtc_request *req)
{
    frame f = {0};
    kt_nvrtc_output out;
    kt_err err;
    kt_status st;

    memset(&out, 0, sizeof out);
    kt_err_clear(&err);
    if (op == OP_FRONT_END) {
        char fp[33];
        double cpu0 = kt_clock_thread_cpu_seconds();
        st = kt_nvrtc_front_end(req, fp, &err);
        put_status(&f, st, &err);
        if (!st) {
            put_str(&f, fp);
            put_f64(&f, kt_clock_thread_cpu_seconds() - cpu0);
        }
        return send_frame(fd, &f);
    }
    st = kt_nvrtc_run_here(req, &out, &err);
    put_status(&f, st, &err);
    if (!st) {
        put_u32(&f, (uint32_t)out.compiled);
        put_bytes(&f, out.image, out.image_size);
        put_str(&f, out.lowered);
        put_str(&f, out.log);
        put_f64(&f, out.seconds);
        put_f64(&f, out.cpu_seconds);
    }
    kt_nvrtc_output_free(&out);
    return send_frame(fd, &f);
}

int kt_nvrtc_procs_serve(int fd)
{
    for (;;) {
        request_text t;
        uint32_t op = 0;
        kt_nvrtc_request req;
        int rc;

        if (read_request(fd, &op, &t)) {
            request_text_free(&t);
            return 0; /* the caller closed: the normal end */
        }
        req.source = t.source;
        req.source_name = t.source_name ? t.source_name : "kernel.cu";
        req.name_expr = t.name_expr;
        req.arch = t.arch;
        req.options = (const char *const *)t.options;
        req.num_options = t.num_options;
        rc = (op == OP_COMPILE || op == OP_FRONT_END) ? answer(fd, op, &req)
                                                      : -1;
        request_text_free(&t);
        if (rc)
            return 1;
    }
}
