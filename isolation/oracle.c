// SPDX-License-Identifier: Apache-2.0
#include "isolation/oracle.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/loader.h"
#include "core/proc.h"
#include "isolation/oracle_memo.h"

/* Fixed-size messages: the child is the plugin's, the parent trusts only
 * sizes it chose. */
typedef struct request {
    uint32_t call, op, variant, num_sizes, count, reserved;
    int64_t sizes[KT_MAX_SIZES];
    int64_t values[KT_MAX_PARAMS];
    uint64_t seed;
    int has_device;
    kt_device device;
    char device_name[256];
} request;

/* A question as the memo knows it (request_key). */
typedef struct memo_key {
    size_t size, hashed;
    unsigned char bytes[sizeof(request)];
} memo_key;

/* Questions kt_oracle_prefetch writes before it reads the answers, at
 * most: about 19 KiB each way. Fewer where the sockets' buffers could not
 * hold them (pipeline_depth): a full buffer would block the parent's write
 * while the child blocks writing answers nobody reads yet. */
#define PIPELINE 32
#define SOCKET_BUFFER (256 << 10)

struct kt_oracle {
    char *path;
    int timeout_ms;
    pid_t pid;
    int fd;
    int crashes;
    size_t depth;         /* questions in flight at once, <= PIPELINE */
    char last[512];       /* how the last child ended */
    kt_oracle_memo *memo; /* owned */
    size_t memo_max;      /* its cap */
    uint64_t asked, from_memory, sent;
    /* A question kt_oracle_prefetch saw fail (counted in crashes then):
     * kt_oracle_ask answers it with this error instead of failing twice. */
    memo_key pending; /* size 0: none */
    kt_err pending_err;
    kt_oracle_answer answers[PIPELINE]; /* an exchange's, as they come */
};

static int io_all(int fd, void *buf, size_t len, int writing)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = writing ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ------------------------------------------------------------- child */

static void answer(const kt_operator *op, const request *q, kt_oracle_answer *a)
{
    const kt_variant *v = &op->variants[q->variant];
    const char *names[KT_MAX_PARAMS];
    kt_config cfg = {sizeof cfg, v->num_params, q->values, names, v->data};
    kt_problem prob = {sizeof prob,
                       op->num_sizes,
                       q->sizes,
                       q->seed,
                       q->has_device ? &q->device : NULL,
                       op->data};

    for (uint32_t i = 0; i < v->num_params; ++i)
        names[i] = v->params[i].name;
    memset(a, 0, sizeof *a);
    if (q->call == KT_ORACLE_WORK) {
        a->work.struct_size = sizeof a->work;
        a->rc = op->work(&prob, &a->work);
        return;
    }
    if (v->check) {
        a->check_rc = v->check(&prob, &cfg, a->why, sizeof a->why);
        a->why[sizeof a->why - 1] = '\0';
        if (a->check_rc != KT_OK)
            return;
    }
    a->shape.struct_size = sizeof a->shape;
    a->rc = v->shape(&prob, &cfg, &a->shape);
    a->shape.kernel = NULL;
}

/* Answers q, or ends the child on a question it cannot answer. */
static int serve_one(const kt_plugin *d, int fd, request *q)
{
    kt_oracle_answer a;

    if (q->op >= d->num_operators ||
        q->variant >= d->operators[q->op].num_variants ||
        q->num_sizes != d->operators[q->op].num_sizes ||
        (q->call == KT_ORACLE_SHAPE &&
         q->count != d->operators[q->op].variants[q->variant].num_params))
        _exit(4);
    q->device.name = q->device_name;
    q->device_name[sizeof q->device_name - 1] = '\0';
    answer(&d->operators[q->op], q, &a);
    /* At once: the parent reads answers in order and blames a crash or a
     * hang on the first question it has no answer to. */
    return io_all(fd, &a, sizeof a, 1);
}

/* Reads whatever questions have arrived (several when the parent
 * prefetches) in one call, and answers them one at a time. */
static void serve(const char *path, int fd)
{
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    static request qs[PIPELINE];
    size_t have = 0;
    kt_registry reg;
    kt_err err;

    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i)
        signal(fatal[i], SIG_DFL);
    memset(&reg, 0, sizeof reg);
    if (kt_registry_load_file(&reg, path, &err))
        _exit(3);
    for (;;) {
        ssize_t n = read(fd, (char *)qs + have, sizeof qs - have);
        size_t whole;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        whole = have / sizeof qs[0];
        for (size_t k = 0; k < whole; ++k)
            if (serve_one(&reg.plugins[0]->desc, fd, &qs[k]) != 0)
                _exit(0);
        have -= whole * sizeof qs[0];
        memmove(qs, &qs[whole], have);
    }
    _exit(0);
}

/* ------------------------------------------------------------ parent */

kt_oracle *kt_oracle_new(const char *path, int timeout_ms)
{
    kt_oracle *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        return NULL;
    }
    o->timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
    o->fd = -1;
    o->memo_max = KT_ORACLE_MEMO_BYTES;
    if (!(o->memo = kt_oracle_memo_new(o->memo_max))) {
        free(o->path);
        free(o);
        return NULL;
    }
    return o;
}

static void stop(kt_oracle *o, int kill_it)
{
    int status = 0;
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->pid > 0) {
        if (kill_it)
            kill(o->pid, SIGKILL);
        kt_proc_reap(o->pid, &status, 0);
        kt_describe_exit(status, o->last, sizeof o->last);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
            snprintf(o->last, sizeof o->last,
                     "could not run: the plugin did not load again");
        if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
            snprintf(o->last, sizeof o->last,
                     "could not run: a question it cannot answer");
    }
    o->pid = 0;
}

void kt_oracle_free(kt_oracle *o)
{
    if (!o)
        return;
    stop(o, 1);
    kt_oracle_memo_free(o->memo);
    free(o->path);
    free(o);
}

void kt_oracle_stats_get(const kt_oracle *o, kt_oracle_stats *out)
{
    memset(out, 0, sizeof *out);
    out->asked = o->asked;
    out->from_memory = o->from_memory;
    out->sent = o->sent;
    out->emptied = kt_oracle_memo_emptied(o->memo);
    out->memo_bytes = kt_oracle_memo_bytes(o->memo);
}

int kt_oracle_set_memo_bytes(kt_oracle *o, size_t max_bytes)
{
    kt_oracle_memo *m = kt_oracle_memo_new(max_bytes);
    if (!m)
        return -1;
    kt_oracle_memo_free(o->memo);
    o->memo = m;
    o->memo_max = max_bytes;
    return 0;
}

/* How many questions and answers both buffers hold at once: a stream
 * socket charges what is queued to its sender's SO_SNDBUF, counting each
 * message's kernel overhead too (a generous 1 KiB here). Asked for more
 * first; the system may give less. */
static size_t pipeline_depth(const int sv[2])
{
    size_t least = SIZE_MAX, per = sizeof(kt_oracle_answer) + 1024;

    for (int i = 0; i < 2; ++i) {
        int size = SOCKET_BUFFER;
        socklen_t len = sizeof size;
        setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        if (getsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &size, &len) != 0 ||
            size <= 0)
            return 1;
        least = (size_t)size < least ? (size_t)size : least;
    }
    /* The parent's questions go in one message; count them as answers. */
    least /= 2 * per;
    return least < 1 ? 1 : least > PIPELINE ? PIPELINE : least;
}

static int spawn(kt_oracle *o)
{
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    o->depth = pipeline_depth(sv);
    if (kt_proc_fork("an oracle", &o->pid, NULL)) {
        close(sv[0]);
        close(sv[1]);
        o->pid = 0;
        return -1;
    }
    if (o->pid == 0) {
        close(sv[0]);
        serve(o->path, sv[1]);
    }
    close(sv[1]);
    o->fd = sv[0];
    return 0;
}

/* Waits for m answers, each within the time limit; *done: how many came
 * whole. 0, 1 when one timed out, -1 when the child ended. */
static int receive(kt_oracle *o, kt_oracle_answer *as, size_t m, size_t *done)
{
    double deadline = 1e3 * kt_clock_seconds() + o->timeout_ms;
    char *p = (char *)as;
    size_t got = 0;

    *done = 0;
    while (got < m * sizeof *as) {
        struct pollfd pfd = {o->fd, POLLIN, 0};
        double left = deadline - 1e3 * kt_clock_seconds();
        ssize_t n;
        int ready;
        if (left <= 0)
            return 1; /* timed out */
        ready = poll(&pfd, 1, (int)left + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        n = read(o->fd, p + got, m * sizeof *as - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1; /* the child ended */
        got += (size_t)n;
        if (got / sizeof *as > *done) {
            /* Each callback has the whole time limit. */
            *done = got / sizeof *as;
            deadline = 1e3 * kt_clock_seconds() + o->timeout_ms;
        }
    }
    return 0;
}

static const char *call_name(kt_oracle_call call)
{
    return call == KT_ORACLE_WORK ? "work()" : "check()/shape()";
}

/* The question as the child reads it. */
static void make_request(request *q, kt_oracle_call call, uint32_t op,
                         uint32_t variant, const kt_problem *problem,
                         const kt_config *config)
{
    memset(q, 0, sizeof *q);
    q->call = (uint32_t)call;
    q->op = op;
    q->variant = variant;
    q->num_sizes = problem->num_sizes;
    for (uint32_t i = 0; i < problem->num_sizes && i < KT_MAX_SIZES; ++i)
        q->sizes[i] = problem->sizes[i];
    q->count = config ? config->count : 0;
    for (uint32_t i = 0; config && i < config->count && i < KT_MAX_PARAMS; ++i)
        q->values[i] = config->values[i];
    q->seed = problem->seed;
    if (problem->device) {
        const char *name = problem->device->name ? problem->device->name : "";
        q->has_device = 1;
        q->device = *problem->device;
        /* snprintf's truncation, without its cost on every question. */
        memcpy(q->device_name, name, strnlen(name, sizeof q->device_name - 1));
        q->device.name = NULL;
    }
}

/* The memo's key: every field of q the child can read, without the
 * unused tails of its arrays (zero in every request), so two keys are
 * equal exactly when the child would be sent the same question. Never
 * longer than q itself. The device comes last, outside the hashed part:
 * it is the same in all of an oracle's questions. */
static void request_key(const request *q, memo_key *k)
{
    unsigned char *key = k->bytes;
    uint32_t head[6] = {q->call,      q->op,    q->variant,
                        q->num_sizes, q->count, (uint32_t)q->has_device};
    uint32_t sizes = q->num_sizes < KT_MAX_SIZES ? q->num_sizes : KT_MAX_SIZES;
    uint32_t values = q->count < KT_MAX_PARAMS ? q->count : KT_MAX_PARAMS;
    size_t n = 0;

    memcpy(key + n, head, sizeof head);
    n += sizeof head;
    memcpy(key + n, &q->seed, sizeof q->seed);
    n += sizeof q->seed;
    memcpy(key + n, q->sizes, sizes * sizeof q->sizes[0]);
    n += sizes * sizeof q->sizes[0];
    memcpy(key + n, q->values, values * sizeof q->values[0]);
    n += values * sizeof q->values[0];
    k->hashed = n;
    if (q->has_device) {
        size_t name = strnlen(q->device_name, sizeof q->device_name - 1) + 1;
        memcpy(key + n, &q->device, sizeof q->device);
        n += sizeof q->device;
        memcpy(key + n, q->device_name, name);
        n += name;
    }
    k->size = n;
}

/* The child is stopped and counted; err says how the question on it
 * ended. */
static kt_status failed(kt_oracle *o, kt_oracle_call call, int timed_out,
                        kt_err *err)
{
    stop(o, 1);
    ++o->crashes;
    if (timed_out)
        return kt_err_set(err, KT_S_PLUGIN,
                          "%s: %s did not return within %.0f s; stopped",
                          o->path, call_name(call), o->timeout_ms / 1e3);
    return kt_err_set(err, KT_S_PLUGIN, "%s: %s %s", o->path, call_name(call),
                      o->last);
}

/* A child to send to: KT_S_OK, or why there is none. */
static kt_status ready(kt_oracle *o, kt_err *err)
{
    if (o->crashes >= KT_ORACLE_MAX_CRASHES)
        return kt_err_set(err, KT_S_PLUGIN,
                          "%s: not called again: its callbacks ended the "
                          "process answering them %d times (last: %s)",
                          o->path, o->crashes, o->last);
    if (o->pid == 0 && spawn(o) != 0)
        return kt_err_set(err, KT_S_PLUGIN, "%s: cannot start a process: %s",
                          o->path, strerror(errno));
    return KT_S_OK;
}

static int remembered(const kt_oracle *o, const memo_key *k,
                      kt_oracle_answer *a)
{
    return kt_oracle_memo_get(o->memo, k->bytes, k->size, k->hashed, a);
}

static void remember(kt_oracle *o, const memo_key *k, kt_oracle_answer *a)
{
    a->why[sizeof a->why - 1] = '\0';
    a->shape.kernel = NULL;
    kt_oracle_memo_put(o->memo, k->bytes, k->size, k->hashed, a);
}

kt_status kt_oracle_ask(kt_oracle *o, kt_oracle_call call, uint32_t op,
                        uint32_t variant, const kt_problem *problem,
                        const kt_config *config, kt_oracle_answer *a,
                        kt_err *err)
{
    request q;
    memo_key key;
    kt_status rc;
    size_t done;
    int got;

    make_request(&q, call, op, variant, problem, config);
    request_key(&q, &key);
    ++o->asked;
    if (remembered(o, &key, a)) {
        ++o->from_memory;
        return KT_S_OK;
    }
    if (o->pending.size == key.size &&
        memcmp(o->pending.bytes, key.bytes, key.size) == 0) {
        o->pending.size = 0;
        if (err)
            *err = o->pending_err;
        return o->pending_err.status;
    }
    if ((rc = ready(o, err)))
        return rc;
    ++o->sent;
    if (io_all(o->fd, &q, sizeof q, 1) != 0)
        return failed(o, call, 0, err);
    if ((got = receive(o, a, 1, &done)) != 0)
        return failed(o, call, got > 0, err);
    remember(o, &key, a);
    return KT_S_OK;
}

/* m questions (m <= o->depth) written at once, then their answers read
 * in order (the child answers one at a time): -1 when one failed, which
 * is kept for kt_oracle_ask to report. */
static int exchange(kt_oracle *o, kt_oracle_call call, const request *qs,
                    const memo_key *keys, size_t m)
{
    size_t k = 0;
    int got = -1;

    o->sent += m;
    if (io_all(o->fd, (void *)qs, m * sizeof *qs, 1) == 0)
        got = receive(o, o->answers, m, &k);
    for (size_t i = 0; i < k; ++i)
        remember(o, &keys[i], &o->answers[i]);
    if (got == 0)
        return 0;
    /* The child answers in order: question k is the one it ended on. */
    failed(o, call, got > 0, &o->pending_err);
    o->pending = keys[k];
    return -1;
}

/* m questions in as few exchanges as the child's sockets allow. */
static int pipeline(kt_oracle *o, kt_oracle_call call, const request *qs,
                    const memo_key *keys, size_t m)
{
    if (ready(o, NULL))
        return -1;
    for (size_t k = 0; k < m; k += o->depth)
        if (exchange(o, call, qs + k, keys + k,
                     m - k < o->depth ? m - k : o->depth))
            return -1;
    return 0;
}

void kt_oracle_prefetch(kt_oracle *o, kt_oracle_call call, uint32_t op,
                        const kt_problem *problem, const kt_point *pts,
                        size_t n)
{
    request *qs = malloc(PIPELINE * sizeof *qs);
    memo_key *keys = malloc(PIPELINE * sizeof *keys);

    /* Answers the memo cannot keep would be asked again anyway. */
    for (size_t i = 0;
         i < n && qs && keys && o->memo_max && !o->pending.size;) {
        size_t m = 0;
        for (; i < n && m < PIPELINE; ++i) {
            kt_config cfg = {sizeof cfg, pts[i].count, pts[i].values, NULL};
            make_request(&qs[m], call, op, pts[i].variant, problem, &cfg);
            request_key(&qs[m], &keys[m]);
            if (!remembered(o, &keys[m], NULL))
                ++m;
        }
        if (m && pipeline(o, call, qs, keys, m))
            break;
    }
    free(qs);
    free(keys);
}
