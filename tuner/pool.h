// SPDX-License-Identifier: Apache-2.0
/*
 * kt_pool: several evaluators that serve independent evaluate() calls at
 * the same time — one worker per GPU, one per MPI rank, or simulated
 * workers answering from one recording.
 *
 * A call is never split: all its points are measured by one evaluator, so
 * an incumbent and its candidate are always compared on one GPU, in
 * interleaved rounds there. Each evaluator serves one call at a time, in a
 * thread of its own that lives as long as the pool (a worker process dies
 * with the thread that started it: PR_SET_PDEATHSIG).
 *
 * Faults cost a call, never the run: a worker whose evaluate() fails (its
 * process cannot be restarted, an MPI rank stopped answering) is retired,
 * and a call that it lost, or whose points crashed or timed out there, is
 * run once more on another worker; what the second attempt says stands,
 * and its reason names the first loss. Only when every worker is retired
 * does kt_pool_run fail.
 */
#ifndef KT_POOL_H
#define KT_POOL_H

#include <stddef.h>

#include "core/error.h"
#include "core/evaluator.h"

/* One evaluate() call for the pool. pts, protocol and out must outlive
 * kt_pool_run; out receives n results (owned by the caller afterwards:
 * kt_eval_result_free). */
typedef struct kt_pool_call {
    const kt_point *pts;
    size_t n;
    const kt_protocol *protocol;
    kt_eval_result *out;
    int prefer; /* the worker tried first (modulo the pool size) */
    /* Filled by kt_pool_run. */
    size_t worker;  /* the worker whose answer is in out */
    int attempts;   /* 1, or 2 when the first was lost */
    char lost[512]; /* why the first attempt was lost, or "" */
    double busy_s;  /* wall time of the answering attempt */
    int avoid;      /* internal: the worker that lost it, or -1 */
    int state;      /* internal */
} kt_pool_call;

/* Per-worker counts, for the summary and the benchmark. */
typedef struct kt_pool_stats {
    size_t calls;  /* calls answered */
    size_t lost;   /* calls lost (re-queued or marked) */
    double busy_s; /* seconds inside evaluate() */
    int retired;   /* 1: stopped after a failure */
    char why[512]; /* the failure that retired it */
} kt_pool_stats;

typedef struct kt_pool kt_pool;

/* A pool over evs[0..n) (n >= 1; not owned: they must outlive the pool,
 * and the caller closes them after kt_pool_close). The same evaluator may
 * not appear twice unless its evaluate() is safe to call concurrently
 * (a replay: records/replay.h). */
kt_status kt_pool_open(kt_evaluator *const *evs, size_t n, kt_pool **out,
                       kt_err *err);

/* Runs calls[0..n) concurrently, each on one worker, and returns when all
 * are answered. Non-OK only when no worker is left (err says why the last
 * one was retired) or memory ran out; calls then hold nothing to free. */
kt_status kt_pool_run(kt_pool *p, kt_pool_call *calls, size_t n, kt_err *err);

size_t kt_pool_size(const kt_pool *p);
size_t kt_pool_alive(const kt_pool *p);
const kt_pool_stats *kt_pool_worker_stats(const kt_pool *p, size_t worker);

/* Stops the threads (the evaluators stay open). NULL is fine. */
void kt_pool_close(kt_pool *p);

#endif
