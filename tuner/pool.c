// SPDX-License-Identifier: Apache-2.0
#include "tuner/pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { CALL_PENDING, CALL_RUNNING, CALL_DONE };

/* One worker: its evaluator, its thread, and the call it was handed. The
 * dispatcher (kt_pool_run's thread) hands out calls and reads the answers;
 * the worker thread only runs evaluate(). Everything is guarded by the
 * pool's lock. */
typedef struct worker {
    kt_pool *pool;
    size_t index;
    kt_evaluator *ev;
    pthread_t thread;
    int started;
    kt_pool_call *task; /* handed out, not yet answered */
    int finished;       /* the task's answer is in */
    kt_status rc;       /* of its evaluate() */
    kt_err err;
    kt_pool_stats stats;
} worker;

struct kt_pool {
    worker *workers;
    size_t num;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* workers wait for a task or quit */
    pthread_cond_t done; /* the dispatcher waits for answers */
    int quit;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *serve(void *arg)
{
    worker *w = arg;
    kt_pool *p = w->pool;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        kt_pool_call *c;
        double t0;
        while (!p->quit && (!w->task || w->finished))
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit)
            break;
        c = w->task;
        pthread_mutex_unlock(&p->lock);
        kt_err_clear(&w->err);
        t0 = now_s();
        w->rc = w->ev->ops->evaluate(w->ev, c->pts, c->n, c->protocol, c->out,
                                     &w->err);
        c->busy_s = now_s() - t0;
        pthread_mutex_lock(&p->lock);
        w->stats.busy_s += c->busy_s;
        w->finished = 1;
        pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

kt_status kt_pool_open(kt_evaluator *const *evs, size_t n, kt_pool **out,
                       kt_err *err)
{
    kt_pool *p = calloc(1, sizeof *p);

    *out = NULL;
    if (!p || !n || !(p->workers = calloc(n, sizeof *p->workers))) {
        free(p);
        return n ? kt_err_set(err, KT_S_NOMEM, "out of memory")
                 : kt_err_set(err, KT_S_INPUT, "a pool needs a worker");
    }
    p->num = n;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    for (size_t i = 0; i < n; ++i) {
        worker *w = &p->workers[i];
        w->pool = p;
        w->index = i;
        w->ev = evs[i];
        if (pthread_create(&w->thread, NULL, serve, w) != 0) {
            kt_pool_close(p);
            return kt_err_set(err, KT_S_IO,
                              "cannot start the thread of worker %zu", i);
        }
        w->started = 1;
    }
    *out = p;
    return KT_S_OK;
}

/* 1 when some point of the answer was lost with its worker's process. */
static int lost_points(const kt_pool_call *c, char *why, size_t size)
{
    for (size_t i = 0; i < c->n; ++i)
        if (c->out[i].status == KT_EVAL_CRASH ||
            c->out[i].status == KT_EVAL_TIMEOUT) {
            snprintf(why, size, "%s: %s", kt_eval_status_name(c->out[i].status),
                     c->out[i].reason);
            return 1;
        }
    return 0;
}

/* Another live worker than `than` exists. */
static int other_alive(const kt_pool *p, size_t than)
{
    for (size_t i = 0; i < p->num; ++i)
        if (i != than && !p->workers[i].stats.retired)
            return 1;
    return 0;
}

static void clear_out(kt_pool_call *c)
{
    for (size_t i = 0; i < c->n; ++i)
        kt_eval_result_free(&c->out[i]);
    memset(c->out, 0, c->n * sizeof *c->out);
}

/* Marks every point of c lost: the second loss, or no other worker. */
static void mark_lost(kt_pool_call *c, const char *why)
{
    clear_out(c);
    for (size_t i = 0; i < c->n; ++i) {
        c->out[i].status = KT_EVAL_CRASH;
        snprintf(c->out[i].reason, sizeof c->out[i].reason, "%s", why);
    }
    c->state = CALL_DONE;
}

/* The answer of worker w to its task: kept, re-queued once, or marked. */
static void settle(kt_pool *p, worker *w)
{
    kt_pool_call *c = w->task;
    char why[sizeof c->lost];
    int lost;

    w->task = NULL;
    w->finished = 0;
    if (w->rc) {
        w->stats.retired = 1;
        snprintf(w->stats.why, sizeof w->stats.why, "%s", w->err.msg);
        snprintf(why, sizeof why, "worker %zu stopped: %s", w->index,
                 w->err.msg);
        lost = 1;
    } else {
        lost = lost_points(c, why, sizeof why);
    }
    c->worker = w->index;
    if (!lost) {
        ++w->stats.calls;
        c->state = CALL_DONE;
        return;
    }
    ++w->stats.lost;
    if (c->attempts < 2 && other_alive(p, w->index)) {
        snprintf(c->lost, sizeof c->lost, "%s", why);
        c->avoid = (int)w->index;
        clear_out(c);
        c->state = CALL_PENDING;
        return;
    }
    if (w->rc) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s%s", why,
                 c->lost[0] ? "; before: " : "", c->lost);
        mark_lost(c, text);
        return;
    }
    /* The points' own verdict (crashed, timed out) stands: it was seen
     * twice, or there is no other worker to ask. */
    for (size_t i = 0; i < c->n && c->lost[0]; ++i) {
        size_t len = strlen(c->out[i].reason);
        snprintf(c->out[i].reason + len, sizeof c->out[i].reason - len,
                 " (and on worker %d before)", c->avoid);
    }
    ++w->stats.calls;
    c->state = CALL_DONE;
}

/* Hands pending calls to idle live workers: a call's preferred worker
 * first, never the worker that lost it. */
static void hand_out(kt_pool *p, kt_pool_call *calls, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        kt_pool_call *c = &calls[i];
        worker *pick = NULL;
        if (c->state != CALL_PENDING)
            continue;
        size_t start = c->prefer >= 0 ? (size_t)c->prefer % p->num : 0;
        for (size_t k = 0; k < p->num; ++k) {
            worker *w = &p->workers[(start + k) % p->num];
            if (w->stats.retired || w->task || (int)w->index == c->avoid)
                continue;
            pick = w;
            break;
        }
        if (!pick)
            continue;
        ++c->attempts;
        c->state = CALL_RUNNING;
        pick->task = c;
        pick->finished = 0;
    }
    pthread_cond_broadcast(&p->wake);
}

static size_t count_state(const kt_pool_call *calls, size_t n, int state)
{
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        m += calls[i].state == state;
    return m;
}

kt_status kt_pool_run(kt_pool *p, kt_pool_call *calls, size_t n, kt_err *err)
{
    kt_status rc = KT_S_OK, last = KT_S_CRASHED;

    for (size_t i = 0; i < n; ++i) {
        calls[i].state = CALL_PENDING;
        calls[i].attempts = 0;
        calls[i].avoid = -1;
        calls[i].lost[0] = '\0';
        calls[i].worker = 0;
        memset(calls[i].out, 0, calls[i].n * sizeof *calls[i].out);
    }
    pthread_mutex_lock(&p->lock);
    for (;;) {
        hand_out(p, calls, n);
        if (count_state(calls, n, CALL_DONE) == n)
            break;
        if (!count_state(calls, n, CALL_RUNNING)) {
            /* Nothing runs and nothing could be handed out: no worker is
             * left (or none but the one that lost a call). */
            if (!kt_pool_alive(p)) {
                rc = last;
                break;
            }
            for (size_t i = 0; i < n; ++i)
                if (calls[i].state == CALL_PENDING)
                    mark_lost(&calls[i], calls[i].lost);
            continue;
        }
        pthread_cond_wait(&p->done, &p->lock);
        for (size_t k = 0; k < p->num; ++k)
            if (p->workers[k].task && p->workers[k].finished) {
                if (p->workers[k].rc)
                    last = p->workers[k].rc;
                settle(p, &p->workers[k]);
            }
        if (!kt_pool_alive(p)) {
            /* The last worker is gone: the run cannot go on. */
            rc = last;
            break;
        }
    }
    pthread_mutex_unlock(&p->lock);
    if (rc) {
        const char *why = "no worker was left";
        for (size_t k = 0; k < p->num; ++k)
            if (p->workers[k].stats.why[0])
                why = p->workers[k].stats.why;
        for (size_t i = 0; i < n; ++i)
            clear_out(&calls[i]);
        return kt_err_set(err, rc, "every worker stopped; the last: %s", why);
    }
    return KT_S_OK;
}

size_t kt_pool_size(const kt_pool *p)
{
    return p->num;
}

size_t kt_pool_alive(const kt_pool *p)
{
    size_t m = 0;
    for (size_t i = 0; i < p->num; ++i)
        m += !p->workers[i].stats.retired;
    return m;
}

const kt_pool_stats *kt_pool_worker_stats(const kt_pool *p, size_t index)
{
    return index < p->num ? &p->workers[index].stats : NULL;
}

void kt_pool_close(kt_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (size_t i = 0; i < p->num; ++i)
        if (p->workers[i].started)
            pthread_join(p->workers[i].thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p->workers);
    free(p);
}
