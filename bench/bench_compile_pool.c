// SPDX-License-Identifier: Apache-2.0
/*
 * bench_compile_pool: NVRTC throughput of the compile pool (no GPU). Takes
 * the first K distinct kernels of a declared operator's space (points that
 * differ only in run-time values share a kernel), then for each thread
 * count hints them all to a fresh pool and takes them in order, as a
 * verification would. One line per thread count on stdout:
 *
 *   threads kernels wall_s compiles_per_s cpu_s failed speedup
 *
 *   bench_compile_pool DECLARATION [--kernels K] [--threads 1,2,4,...]
 *                      [--arch sm_90]
 *
 * Run it with KTUNE_NVRTC_CACHE=off (bench/compile_pool.sh does), or every
 * count after the first reads the cache.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/loader.h"
#include "core/parse.h"
#include "engine/compile_pool.h"
#include "engine/declared.h"
#include "tuner/job.h"

typedef struct kernels {
    kt_decl_request *b;
    kt_nvrtc_request *req;
    char (*key)[33];
    size_t n;
} kernels;

static int known(const kernels *k, const char *key)
{
    for (size_t i = 0; i < k->n; ++i)
        if (strcmp(k->key[i], key) == 0)
            return 1;
    return 0;
}

/* The first `want` distinct kernels of the job's space, in index order. */
static void collect(const kt_job *job, const char *arch, size_t want,
                    kernels *k)
{
    k->b = calloc(want, sizeof *k->b);
    k->req = calloc(want, sizeof *k->req);
    k->key = calloc(want, sizeof *k->key);
    for (uint64_t i = 0;
         k->b && k->req && k->key && i < job->space.size && k->n < want; ++i) {
        kt_point pt;
        kt_space_point(&job->space, i, &pt);
        if (!kt_declared_compile_request(job->plugin, pt.variant, job->sizes,
                                         pt.values, arch, &k->b[k->n],
                                         &k->req[k->n]))
            continue;
        if (kt_nvrtc_key(&k->req[k->n], k->key[k->n], NULL) ||
            known(k, k->key[k->n])) {
            free(k->b[k->n].src);
            continue;
        }
        ++k->n;
    }
}

/* One thread count: wall seconds, CPU seconds, failures. */
static int run(const kernels *k, int threads, double *wall, double *cpu,
               size_t *failed)
{
    kt_cpool_options opt = {threads, "", NULL, NULL};
    kt_cpool_stats st;
    kt_cpool *pool;
    kt_err err;
    double t0;

    *failed = 0;
    if (kt_cpool_open(&opt, &pool, &err)) {
        fprintf(stderr, "bench_compile_pool: %s\n", err.msg);
        return -1;
    }
    t0 = kt_clock_seconds();
    kt_cpool_hint(pool, k->req, k->n);
    for (size_t i = 0; i < k->n; ++i) {
        kt_nvrtc_output out;
        if (kt_cpool_compile(pool, &k->req[i], &out, NULL, &err)) {
            fprintf(stderr, "bench_compile_pool: %s\n", err.msg);
            kt_cpool_close(pool);
            return -1;
        }
        *failed += !out.compiled;
        kt_nvrtc_output_free(&out);
    }
    *wall = kt_clock_seconds() - t0;
    kt_cpool_stats_get(pool, &st);
    *cpu = st.cpu_s;
    kt_cpool_close(pool);
    return 0;
}

static int run_all(const kernels *k, char *list)
{
    double base = 0;
    printf("threads kernels wall_s compiles_per_s cpu_s failed speedup\n");
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int64_t t;
        double wall, cpu;
        size_t failed;
        kt_err err;
        if (kt_parse_i64(tok, "--threads", &t, &err) || t < 1 || t > 4096) {
            fprintf(stderr, "bench_compile_pool: --threads: '%s'\n", tok);
            return 2;
        }
        if (run(k, (int)t, &wall, &cpu, &failed))
            return 1;
        base = base > 0 ? base : wall;
        printf("%lld %zu %.3f %.2f %.3f %zu %.2f\n", (long long)t, k->n, wall,
               (double)k->n / wall, cpu, failed, base / wall);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        {"kernels", required_argument, NULL, 'k'},
        {"threads", required_argument, NULL, 't'},
        {"arch", required_argument, NULL, 'a'},
        {NULL, 0, NULL, 0}};
    char default_threads[] = "1", *threads = default_threads;
    const char *arch = "sm_90";
    int64_t want = 32;
    kt_registry reg;
    kt_job job;
    kernels k = {0};
    kt_err err;
    int c, rc = 1;

    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        if (c == 'k' && !kt_parse_i64(optarg, "--kernels", &want, &err) &&
            want > 0)
            continue;
        if (c == 't')
            threads = optarg;
        else if (c == 'a')
            arch = optarg;
        else {
            fprintf(stderr, "usage: bench_compile_pool DECLARATION "
                            "[--kernels K] [--threads 1,2,...] [--arch A]\n");
            return 2;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "bench_compile_pool: one declaration expected\n");
        return 2;
    }
    kt_registry_init(&reg);
    memset(&job, 0, sizeof job);
    if (kt_registry_load_file(&reg, argv[optind], &err) ||
        kt_job_load(argv[optind], NULL, 0, &reg, &job, &err)) {
        fprintf(stderr, "bench_compile_pool: %s\n", err.msg);
        kt_registry_free(&reg);
        return err.status == KT_S_INPUT ? 2 : 1;
    }
    collect(&job, arch, (size_t)want, &k);
    if (k.n == 0)
        fprintf(stderr, "bench_compile_pool: %s: no run-time kernels\n",
                argv[optind]);
    else
        rc = run_all(&k, threads);
    for (size_t i = 0; i < k.n; ++i)
        free(k.b[i].src);
    free(k.b);
    free(k.req);
    free(k.key);
    kt_job_free(&job);
    kt_registry_free(&reg);
    return rc;
}
