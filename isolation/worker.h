// SPDX-License-Identifier: Apache-2.0
/*
 * Worker processes: evaluation in a child process, so that a kernel that
 * faults (a sticky CUDA error poisons the whole context), hangs, or a plugin
 * that crashes costs one point and not the run.
 *
 * The parent never initialises CUDA. It starts `ktune worker --fd 3` (or
 * another executable speaking the same protocol), sends it the evaluator
 * spec, and forwards kt_evaluator calls as messages (core/wire.h). A worker
 * that dies or exceeds its time limit is killed and replaced; the point in
 * flight is recorded as crashed or timed out with the reason. A healthy
 * worker serves every evaluation of a session.
 *
 * Messages (each {"v": 1, "type": ...}):
 *   worker -> parent  hello {pid, ktune}
 *   parent -> worker  open {plugin, operator, sizes, seed, device,
 *                     check_boundaries, log_level, counters?, verify?,
 *                     compile_threads?}
 *   worker -> parent  opened {device, environment, work} | error {status,
 *                     message}
 *   parent -> worker  evaluate {points, protocol}
 *   worker -> parent  results {results, lost} | lost {index, message}
 *   parent -> worker  prefetch {points}: no reply; their kernels start
 *                     compiling on the worker's compile pool
 *   parent -> worker  calibration {refresh}
 *   worker -> parent  calibration {calibration} | error {...}
 *   parent -> worker  profile {point, metrics, check_only, launches?}
 *   worker -> parent  profiled {result} | lost {message} | error {...}
 *   parent -> worker  close
 * The protocol is a byte stream, so one search can later be served by
 * several workers — one per GPU, or on other hosts.
 */
#ifndef KT_WORKER_H
#define KT_WORKER_H

#include "core/evaluator.h"

typedef struct kt_worker_options {
    /* The executable to start as `exe worker --fd 3`; NULL: this process's
     * own executable (/proc/self/exe), which must be ktune. */
    const char *exe;
    /* Limit for starting a worker and setting the problem up; 0: 300 s. */
    double open_timeout_s;
    /* Limit per point evaluated (verification and measurement), on top of
     * the protocol's own wall-clock cap; 0: 60 s. */
    double eval_timeout_s;
} kt_worker_options;

/* Starts a worker and opens spec in it. spec->plugin must have been loaded
 * from a file the worker can load by the same path. The evaluator restarts
 * its worker as often as needed; points that crashed or timed out are
 * remembered and not sent again. */
kt_status kt_worker_open(const kt_eval_spec *spec, const kt_worker_options *opt,
                         kt_evaluator **out, kt_err *err);

/* The worker side: serves requests on fd until "close" or end of stream;
 * returns the process's exit code. counters (may be NULL) serves "profile"
 * requests when the parent asked for counters at "open". Used by
 * `ktune worker`. */
int kt_worker_serve(int fd, const kt_counter_source *counters);

/* Hardware work queues of a worker's CUDA context (its parent puts
 * CUDA_DEVICE_MAX_CONNECTIONS in its environment unless the user set
 * one): the worker enqueues every timed launch in one stream, so two are
 * enough, and a context with two is made in about half the time of one
 * with the default eight (0.06 s against 0.125 s on the H200,
 * docs/isolation.md). A plugin that runs work on more than two streams at
 * once should set it. */
#define KT_WORKER_CONNECTIONS "2"

#endif
