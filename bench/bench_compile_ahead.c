// SPDX-License-Identifier: Apache-2.0
/*
 * bench_compile_ahead: the tuner's compile-ahead path without a GPU. A
 * declared job's strategy runs against a made-up GPU (tests/support/
 * compile_eval.h: points hinted to a real compile pool as the local
 * evaluator hints them, each first evaluation taking its kernel from the
 * pool as a verification would, then "measuring" for --measure-ms), so
 * what it prints is how far the search's hints keep the compile threads
 * ahead of the GPU:
 *
 *   strategy evals wall_s evals_per_s takes ahead joined took_queued
 *   unhinted hinted dropped compiled parallel peak_running gpu_wait_s
 *   gpu_idle compile_cpu_s
 *
 * one row per strategy of --strategy S1,S2,... (each with a pool of its
 * own). ahead: takes whose kernel was compiled before they asked; joined:
 * takes that found it compiling; took_queued: hinted but not started, so
 * compiled on the measuring thread; unhinted: never hinted; parallel:
 * compiles running at once while any ran (the tuner's
 * kt_tune_compile_parallel); gpu_idle: the time the takes waited over
 * the wall time.
 *
 *   bench_compile_ahead DECLARATION [--strategy S[,S...]] [--evals N]
 *       [--seconds S] [--threads T] [--compile-ms MS] [--measure-ms MS]
 *
 * --compile-ms 0 (the default) compiles with NVRTC (run it with
 * KTUNE_NVRTC_CACHE=off); MS > 0 sleeps that long instead, so a 2-core
 * machine can stand in for 16 cores; with --slow-every N --slow-factor F
 * one kernel in N (the same ones each run) sleeps F times as long, the
 * long tail of the hub convolution's compile times.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/loader.h"
#include "core/parse.h"
#include "tests/support/compile_eval.h"
#include "tests/support/fake_device.h"
#include "tuner/job.h"
#include "tuner/tune.h"

typedef struct args {
    const char *decl, *strategy;
    int64_t evals, threads, slow_every;
    double seconds, compile_ms, measure_ms, slow_factor;
} args;

/* The sleeping compiler's times: every kernel base_s, except one in
 * slow_every (by its options' hash: the same kernels every run) that
 * takes slow_factor times as long, as a few hub convolution kernels
 * compile for 10-16 s where most take about 1.3 s. */
typedef struct sleep_times {
    double base_s, slow_factor;
    int64_t slow_every;
} sleep_times;

static kt_status sleep_compile(void *ctx, const kt_nvrtc_request *req,
                               kt_nvrtc_output *out, kt_err *err)
{
    const sleep_times *st = ctx;
    uint64_t h = 1469598103934665603ull;
    double s = st->base_s;

    (void)err;
    for (size_t i = 0; i < req->num_options; ++i)
        for (const char *c = req->options[i]; *c; ++c)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
    if (st->slow_every > 0 && h % (uint64_t)st->slow_every == 0)
        s *= st->slow_factor;
    memset(out, 0, sizeof *out);
    kt_clock_sleep(s);
    out->compiled = 1;
    out->seconds = s;
    return KT_S_OK;
}

static int parse(int argc, char **argv, args *a)
{
    static const struct option longs[] = {
        {"strategy", required_argument, NULL, 's'},
        {"evals", required_argument, NULL, 'n'},
        {"seconds", required_argument, NULL, 'S'},
        {"threads", required_argument, NULL, 't'},
        {"compile-ms", required_argument, NULL, 'c'},
        {"measure-ms", required_argument, NULL, 'm'},
        {"slow-every", required_argument, NULL, 'e'},
        {"slow-factor", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0}};
    kt_err err;
    int c, bad = 0;

    *a = (args){NULL, "random", 64, 16, 0, 0, 0, 5, 1};
    while (!bad && (c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        if (c == 's')
            a->strategy = optarg;
        else if (c == 'n')
            bad = kt_parse_i64(optarg, "--evals", &a->evals, &err) != 0;
        else if (c == 't')
            bad = kt_parse_i64(optarg, "--threads", &a->threads, &err) ||
                  a->threads < 1;
        else if (c == 'S')
            bad = kt_parse_double(optarg, "--seconds", &a->seconds, &err) != 0;
        else if (c == 'c')
            bad = kt_parse_double(optarg, "--compile-ms", &a->compile_ms, &err);
        else if (c == 'm')
            bad = kt_parse_double(optarg, "--measure-ms", &a->measure_ms, &err);
        else if (c == 'e')
            bad = kt_parse_i64(optarg, "--slow-every", &a->slow_every, &err);
        else if (c == 'f')
            bad =
                kt_parse_double(optarg, "--slow-factor", &a->slow_factor, &err);
        else
            bad = 1;
    }
    if (bad || optind + 1 != argc) {
        fprintf(stderr,
                "usage: bench_compile_ahead DECLARATION [--strategy S[,S...]] "
                "[--evals N] [--seconds S] [--threads T] [--compile-ms MS] "
                "[--measure-ms MS] [--slow-every N --slow-factor F]\n");
        return 2;
    }
    a->decl = argv[optind];
    return 0;
}

static void header(void)
{
    printf("strategy evals wall_s evals_per_s takes ahead joined took_queued "
           "unhinted hinted dropped compiled parallel peak_running "
           "gpu_wait_s gpu_idle compile_cpu_s\n");
}

/* One row: the pool's own counts, then the tuner's view of them. */
static void print(const char *strategy, const kt_tune_result *r,
                  const kt_compile_eval *c)
{
    kt_cpool_stats st;
    kt_cpool_stats_get(c->pool, &st);
    printf("%s %zu %.2f %.2f %zu %zu %zu %zu %zu %zu %zu %zu %.2f %zu %.2f "
           "%.3f %.2f\n",
           strategy, r->evaluations, r->wall_s,
           r->wall_s > 0 ? (double)r->evaluations / r->wall_s : 0, c->takes,
           st.ahead, st.joined, st.took_queued, st.unhinted, st.hinted,
           st.dropped, st.compiled, kt_tune_compile_parallel(r),
           st.peak_running, c->gpu_wait_s,
           r->wall_s > 0 ? c->gpu_wait_s / r->wall_s : 0, st.cpu_s);
}

static int run(const args *a, const char *strategy, kt_job *job)
{
    sleep_times times = {a->compile_ms * 1e-3, a->slow_factor, a->slow_every};
    kt_cpool_options opt = {(int)a->threads, "",
                            a->compile_ms > 0 ? sleep_compile : NULL, &times};
    kt_device dev = kt_test_h200();
    kt_compile_eval *c = kt_compile_eval_open(job->plugin, job->op, job->sizes,
                                              &dev, &opt, a->measure_ms * 1e-3);
    kt_tune_config cfg;
    kt_tune_result r;
    kt_err err;

    if (!c || !kt_strategy_find(strategy)) {
        fprintf(stderr, "bench_compile_ahead: %s%s\n",
                c ? "unknown strategy " : "cannot open the pool",
                c ? strategy : "");
        kt_ce_close(c ? &c->base : NULL);
        return 2;
    }
    memset(&cfg, 0, sizeof cfg);
    kt_space_bind(&job->space, job->sizes, 1, &dev);
    cfg.op = job->op;
    cfg.space = &job->space;
    cfg.ev = &c->base;
    cfg.strategy = kt_strategy_find(strategy);
    for (size_t i = 0; i < cfg.strategy->num_options; ++i)
        cfg.options[i] = cfg.strategy->options[i].default_value;
    cfg.seed = 1;
    cfg.finalists = 1;
    cfg.min_gain = 0.005;
    cfg.max_evals = (size_t)a->evals;
    cfg.max_seconds = a->seconds;
    kt_protocol_defaults(&cfg.protocol);
    if (kt_tune_run(&cfg, &r, &err)) {
        fprintf(stderr, "bench_compile_ahead: %s\n", err.msg);
        c->base.ops->close(&c->base);
        return 1;
    }
    print(strategy, &r, c);
    fflush(stdout);
    kt_tune_result_free(&r);
    c->base.ops->close(&c->base);
    return 0;
}

/* Each strategy of the comma-separated list in turn, one row each. */
static int run_all(const args *a, kt_job *job)
{
    char *list = strdup(a->strategy), *save = NULL;
    int rc = list ? 0 : 1;

    header();
    for (char *s = list ? strtok_r(list, ",", &save) : NULL; s && !rc;
         s = strtok_r(NULL, ",", &save))
        rc = run(a, s, job);
    free(list);
    return rc;
}

int main(int argc, char **argv)
{
    kt_registry reg;
    kt_job job;
    kt_err err;
    args a;
    int rc;

    if ((rc = parse(argc, argv, &a)))
        return rc;
    kt_registry_init(&reg);
    memset(&job, 0, sizeof job);
    if (kt_registry_load_file(&reg, a.decl, &err) ||
        kt_job_load(a.decl, NULL, 0, &reg, &job, &err)) {
        fprintf(stderr, "bench_compile_ahead: %s\n", err.msg);
        kt_registry_free(&reg);
        return err.status == KT_S_INPUT ? 2 : 1;
    }
    rc = run_all(&a, &job);
    kt_job_free(&job);
    kt_registry_free(&reg);
    return rc;
}
