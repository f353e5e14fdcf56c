// SPDX-License-Identifier: Apache-2.0
/*
 * kt_cpool: run-time compilation (engine/nvrtc.h) on every host core, ahead
 * of the measurement that needs it.
 *
 * The search proposes, the pool works ahead: the evaluator hands it the
 * compile requests of points the strategy will evaluate next (hint), and
 * its threads compile them while the GPU measures others; the verification
 * that needs a kernel then takes it (compile), waiting only when it is not
 * done yet. One compilation per distinct kernel (the NVRTC cache key:
 * source, options, name expression, architecture, NVRTC version), whether
 * it is queued, running or done: a second hint or a take of the same key
 * joins the first; so does a kernel whose front end gives the code of one
 * being compiled (kt_nvrtc_prepare: -D values the source never reads).
 * Newer hints go first (the points the strategy needs
 * soonest); a hint repeated moves its kernel forward. Kernels nobody took
 * are dropped at close: queued ones never compile, running ones are not
 * waited for.
 *
 * Processes: with kt_cpool_options.procs the threads only schedule and
 * wait; NVRTC runs in helper processes (engine/nvrtc_procs.h), since its
 * compiles in threads of one process do not scale, and a compiler that
 * crashes there costs its kernel alone (KT_S_CRASHED naming the signal).
 *
 * Isolation: the pool lives in the process that owns the GPU (a worker
 * process under `ktune tune`, isolation/worker.h), next to NVRTC's status quo.
 * A compiler that crashes or hangs takes that process down (the worker is
 * replaced, the point in flight is recorded as crashed or timed out); so
 * that the kernel does not take every later worker down too, each compile
 * leaves a marker file `<key>.compiling.<pid>` in the cache folder while
 * it runs. A marker whose process is gone names a kernel that killed its
 * compiler: the next pool answers it as not compiling (KT_COMPILE_FAILED,
 * "the compiler died on it") instead of compiling it again, and removes
 * the marker, so a later run tries once more.
 *
 * Threads: hint and compile read the table of loaded kernels
 * (kt_nvrtc_find_loaded), so call them from the thread that loads kernels
 * (the evaluator's); stats_get from any. One kt_cpool per evaluator (it is
 * no global: the local evaluator owns it).
 */
#ifndef KT_COMPILE_POOL_H
#define KT_COMPILE_POOL_H

#include <stddef.h>

#include "core/error.h"
#include "engine/nvrtc.h"
#include "engine/nvrtc_procs.h"

typedef struct kt_cpool kt_cpool;

/* How one request is compiled: kt_nvrtc_build() unless a test says
 * otherwise. Called on pool threads and on the taker's; must be
 * thread-safe. */
typedef kt_status (*kt_cpool_compile_fn)(void *ctx, const kt_nvrtc_request *req,
                                         kt_nvrtc_output *out, kt_err *err);

typedef struct kt_cpool_options {
    /* Compile threads; 0: one per online CPU (sysconf). The taker's own
     * thread compiles too when what it needs is not started yet. */
    int threads;
    /* Folder of the crash markers; NULL: the NVRTC cache folder
     * (kt_nvrtc_cache_dir); "": no markers. */
    const char *marker_dir;
    /* NULL: kt_nvrtc_finish after prepare's kt_nvrtc_prepare. */
    kt_cpool_compile_fn compile;
    void *ctx;
    /* Run before compile, NULL: none (with compile NULL too:
     * kt_nvrtc_prepare). When it answers (out->cached) compile does not
     * run; when it gives a code key (out->code) that a job compiling now
     * has, the job follows it: its thread moves on, and the job gets a
     * copy of that compile's answer. */
    kt_cpool_compile_fn prepare;
    /* With compile NULL: NVRTC runs in these helper processes
     * (engine/nvrtc_procs.h), the pool's threads only waiting on them;
     * NULL: in the threads. The pool owns it from a successful open (with
     * a compile of its own too, which then leaves it unused). */
    kt_nvrtc_procs *procs;
} kt_cpool_options;

/* What the pool did since it opened. */
typedef struct kt_cpool_stats {
    int threads;         /* compile threads it runs */
    size_t hinted;       /* distinct kernels hinted */
    size_t compiled;     /* compilations run (on threads or takers) */
    size_t ahead;        /* of which finished before anyone took them */
    size_t joined;       /* takes that found their kernel compiling (and
                            waited for the thread on it) */
    size_t taken;        /* takes of a kernel not loaded yet */
    size_t took_queued;  /* of which found it hinted, not started: compiled
                            on the taker's thread */
    size_t unhinted;     /* of which nobody had hinted: the hints missed */
    size_t dropped;      /* hinted kernels nobody took, never compiled */
    size_t died;         /* kernels a marker says killed a compiler */
    size_t shared;       /* jobs that followed another's compile of the
                            same code key (no compile of their own) */
    size_t peak_running; /* most compilations at once */
    double busy_s;       /* wall time with at least one compile running */
    double cpu_s;        /* CPU time of the compiles, summed */
    double compile_s;    /* wall time of the compiles, summed */
    double wait_s;       /* time takers waited for a compile */
} kt_cpool_stats;

/* Opens a pool with opt (NULL: defaults); threads start on the first hint.
 * Free with kt_cpool_close(). */
kt_status kt_cpool_open(const kt_cpool_options *opt, kt_cpool **out,
                        kt_err *err);

/* Queues reqs[0..n) in order, ahead of what earlier hints queued (copies
 * them), and starts the threads on the first. Kernels already known to
 * the pool (or loaded) are moved forward if queued, else left alone.
 * Returns how many new kernels were queued. Cheap enough to call before
 * every evaluation. */
size_t kt_cpool_hint(kt_cpool *pool, const kt_nvrtc_request *reqs, size_t n);

/* kt_cpool_hint with keys known: keys[i] is reqs[i]'s key when keys[i][0]
 * is set, else the pool computes it there (keys NULL: computes every one,
 * keeps none). A request whose source is NULL names its kernel by key
 * alone: when the pool does not know that key (never queued here, or left
 * out while the queue was full), unknown[i] (may be NULL) is set to 1 and
 * nothing is queued for it. Keys are computed before the pool's lock is
 * taken. */
size_t kt_cpool_hint_keyed(kt_cpool *pool, const kt_nvrtc_request *reqs,
                           char (*keys)[33], unsigned char *unknown, size_t n);

/* The kernel of req: taken from the pool when a thread compiled it (or
 * waiting for the thread compiling it), else compiled here. KT_S_OK with
 * out->compiled saying whether it compiled (out as kt_nvrtc_compile's,
 * counted in kt_nvrtc_stats_get); *wait_s (may be NULL) gets the seconds
 * this call waited for a compile, its own included. */
kt_status kt_cpool_compile(kt_cpool *pool, const kt_nvrtc_request *req,
                           kt_nvrtc_output *out, double *wait_s, kt_err *err);

void kt_cpool_stats_get(kt_cpool *pool, kt_cpool_stats *out);

/* How many compile markers process pid left in dir (NULL: the NVRTC cache
 * folder): non-zero when it died compiling. */
size_t kt_cpool_markers_of(const char *dir, long pid);

/* The thread count a kt_cpool_options.threads value gives here. */
int kt_cpool_threads_for(int threads);

/* Drops what is queued and frees the pool. Compiles still running on its
 * threads (nobody will take them) are not waited for: so that a hung
 * compiler cannot keep a worker from exiting, those threads are detached
 * and the last of them frees what is left. Safe on NULL. */
void kt_cpool_close(kt_cpool *pool);

#endif
