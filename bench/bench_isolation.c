// SPDX-License-Identifier: Apache-2.0
/* Benchmark (not a test): what evaluating in a worker process costs beyond
 * evaluating in-process. The same point is evaluated N times through the
 * local evaluator and N times through a worker, alternating, with a fixed
 * small protocol; the difference of the median wall times per evaluate()
 * call is the isolation's overhead (messages, JSON, process hop).
 *
 *   bench_isolation KTUNE_EXE PLUGIN_DIR [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/evaluator.h"
#include "core/stats.h"
#include "engine/gpu.h"
#include "isolation/worker.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int timed_evaluate(kt_evaluator *ev, const kt_point *pt,
                          const kt_protocol *p, double *seconds)
{
    kt_eval_result r;
    kt_err err;
    double t0 = now();
    if (ev->ops->evaluate(ev, pt, 1, p, &r, &err) || r.status != KT_EVAL_OK) {
        fprintf(stderr, "evaluate: %s %s\n", err.msg, r.reason);
        return 1;
    }
    *seconds = now() - t0;
    kt_eval_result_free(&r);
    return 0;
}

int main(int argc, char **argv)
{
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_registry reg;
    kt_eval_spec spec = {0};
    kt_worker_options opt = {0};
    kt_evaluator *local = NULL, *worker = NULL;
    kt_protocol p;
    kt_point pt;
    kt_stats sl, sw;
    double *tl, *tw;
    int n = argc > 3 ? atoi(argv[3]) : 200;
    kt_err err;

    if (argc < 3) {
        fprintf(stderr, "usage: %s KTUNE_EXE PLUGIN_DIR [N]\n", argv[0]);
        return 2;
    }
    kt_registry_init(&reg);
    kt_registry_load_dir(&reg, argv[2], 1);
    if (kt_registry_resolve(&reg, "vector_add:add", &lp, &op, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    spec.plugin = lp;
    spec.op = op;
    spec.sizes[0] = 1 << 20;
    spec.seed = 1;
    spec.check_boundaries = 1;
    spec.log_level = KT_LOG_WARN;
    opt.exe = argv[1];
    /* The worker first: the parent must not have initialised CUDA when it
     * forks. */
    if (kt_worker_open(&spec, &opt, &worker, &err) ||
        kt_local_open(&spec, &local, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    kt_protocol_defaults(&p);
    p.warmups = 1;
    p.min_samples = p.max_samples = 10;
    p.min_time_s = 0;
    kt_point_default(op, 0, &pt);
    tl = calloc((size_t)n, sizeof *tl);
    tw = calloc((size_t)n, sizeof *tw);
    /* Verification happens once per point and evaluator: do it first. */
    if (!tl || !tw || timed_evaluate(local, &pt, &p, &tl[0]) ||
        timed_evaluate(worker, &pt, &p, &tw[0]))
        return 1;
    for (int i = 0; i < n; ++i)
        if (timed_evaluate(local, &pt, &p, &tl[i]) ||
            timed_evaluate(worker, &pt, &p, &tw[i]))
            return 1;
    kt_stats_compute(tl, (size_t)n, &sl);
    kt_stats_compute(tw, (size_t)n, &sw);
    printf("evaluate() of vector_add:add coalesced n=2^20, 10 samples + 1 "
           "warm-up, %d calls each, alternating\n",
           n);
    printf("%-10s %12s %12s %12s\n", "evaluator", "median ms", "q1 ms",
           "q3 ms");
    printf("%-10s %12.3f %12.3f %12.3f\n", "local", 1e3 * sl.median,
           1e3 * sl.q1, 1e3 * sl.q3);
    printf("%-10s %12.3f %12.3f %12.3f\n", "worker", 1e3 * sw.median,
           1e3 * sw.q1, 1e3 * sw.q3);
    printf("isolation overhead per evaluation: %.3f ms (median difference)\n",
           1e3 * (sw.median - sl.median));
    local->ops->close(local);
    worker->ops->close(worker);
    kt_registry_free(&reg);
    free(tl);
    free(tw);
    return 0;
}
