// SPDX-License-Identifier: Apache-2.0
/*
 * bench_compile_pool: NVRTC throughput of the compile pool (no GPU). Takes
 * the first K distinct kernels of a declared operator's space from index I
 * (--from; points that differ only in run-time values share a kernel;
 * --sample: K drawn uniformly from the runnable points, --seed S), then
 * for each thread
 * count hints them all to a fresh pool and takes them in order, as a
 * verification would. One line per thread count on stdout:
 *
 *   threads kernels wall_s compiles_per_s cpu_s failed speedup compiled
 *   shared cpu_per_kernel_s
 *
 * (compiled: NVRTC compiles run; shared: kernels answered by another's
 * compile of the same code, engine/nvrtc_code.c; KTUNE_NVRTC_SHARE=off
 * compiles each.) --procs 1,2,...: the same kernels in that many child
 * processes, one compile at a time each (no pool), to compare threads in
 * one process with processes; CPU from the children's rusage. --helpers
 * 1,2,...: the pool with its NVRTC in that many helper processes
 * (engine/nvrtc_procs.h; ktune-nvrtc beside the build's ktune). --option
 * OPT (repeated): an NVRTC option added to every kernel. --dump DIR:
 * compiles each kernel alone (run it with KTUNE_NVRTC_CACHE=off),
 * writes DIR/N.cubin (PTX for compute_) and DIR/index.txt:
 * "N ir=HASH cpu_s=S bytes=B options...", the front end's IR hash
 * (kernels of one hash must be identical: bench/nvrtc_identical.sh
 * checks), then exits.
 *
 *   bench_compile_pool DECLARATION [--kernels K] [--from I] [--sample]
 *       [--seed S] [--threads 1,2,4,...] [--procs 1,2,...]
 *       [--helpers 1,2,...] [--arch sm_90]
 *       [--option OPT]... [--dump DIR]
 *
 * Run it with KTUNE_NVRTC_CACHE=off (bench/compile_pool.sh does), or every
 * count after the first reads the cache.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/fileio.h"
#include "core/loader.h"
#include "core/parse.h"
#include "core/proc.h"
#include "core/rng.h"
#include "engine/compile_pool.h"
#include "engine/declared_run.h"
#include "engine/nvrtc_code.h"
#include "tests/support/fake_device.h"
#include "tuner/job.h"

#define MAX_EXTRA 16
/* Options one kernel's request can have: as many as kt_decl_request
 * holds, so a request's options always fit. */
#define MAX_OPTS (sizeof(((kt_decl_request *)0)->opts) / sizeof(const char *))

typedef struct kernels {
    kt_decl_request *b;
    kt_nvrtc_request *req;
    const char **opts; /* per kernel: its options then the extra ones */
    char (*key)[33];
    size_t n;
} kernels;

typedef struct bench_args {
    const char *arch, *dump;
    char *threads, *procs, *helpers;
    int64_t want, seed, from;
    int sample;
    const char *extra[MAX_EXTRA];
    size_t num_extra;
} bench_args;

static int known(const kernels *k, const char *key)
{
    for (size_t i = 0; i < k->n; ++i)
        if (strcmp(k->key[i], key) == 0)
            return 1;
    return 0;
}

/* Point i's kernel as k's next, its options followed by the extra ones;
 * 0 when it has none or it is known already. */
static int add_kernel(const kt_job *job, const bench_args *a, uint64_t i,
                      kernels *k)
{
    size_t n = k->n, m;
    kt_nvrtc_request *r = &k->req[n];
    const char **o = &k->opts[n * (MAX_OPTS + MAX_EXTRA)];
    kt_point pt;
    kt_err why;

    kt_space_point(&job->space, i, &pt);
    if (kt_space_feasible(&job->space, &pt, &why) != KT_S_OK ||
        !kt_declared_compile_request(job->plugin, pt.variant, job->sizes,
                                     pt.values, a->arch, 0, &k->b[n], r))
        return 0;
    m = r->num_options;
    memcpy(o, r->options, m * sizeof *o);
    memcpy(o + m, a->extra, a->num_extra * sizeof *o);
    r->options = o;
    r->num_options = m + a->num_extra;
    if (kt_nvrtc_key(r, k->key[n], NULL) || known(k, k->key[n])) {
        free(k->b[n].src);
        return 0;
    }
    ++k->n;
    return 1;
}

/* want distinct kernels of the job's space: the first in index order, or
 * (sample) drawn uniformly from its points with seed; runnable points
 * only (require, and an H200's limits: kt_test_h200). */
static void collect(const kt_job *job, const bench_args *a, kernels *k)
{
    size_t want = (size_t)a->want;
    uint64_t size = job->space.size, tries = 0;
    kt_rng rng;

    kt_rng_seed(&rng, (uint64_t)a->seed);
    k->b = calloc(want, sizeof *k->b);
    k->req = calloc(want, sizeof *k->req);
    k->key = calloc(want, sizeof *k->key);
    k->opts = calloc(want * (MAX_OPTS + MAX_EXTRA), sizeof *k->opts);
    if (!k->b || !k->req || !k->key || !k->opts)
        return;
    for (uint64_t i = (uint64_t)a->from;
         i < size && k->n < want && tries < 64 * size; ++tries) {
        add_kernel(job, a, a->sample ? kt_rng_below(&rng, size) : i, k);
        i += !a->sample;
    }
}

/* The helper for --helpers rows: where the pool looks, else in the build's
 * root above the bench's folder. */
static int helper_path(char *out, size_t size)
{
    char self[4096];
    if (kt_nvrtc_procs_helper(out, size))
        return 0;
    return kt_exe_dir(self, sizeof self) &&
                   snprintf(out, size, "%s/../ktune-nvrtc", self) < (int)size &&
                   access(out, X_OK) == 0
               ? 0
               : -1;
}

/* One thread count: wall seconds, CPU seconds, failures, compiles run,
 * kernels shared; helpers: the pool's NVRTC in that many helper
 * processes. */
static int run(const kernels *k, int threads, int helpers, double *wall,
               double *cpu, size_t *failed, size_t *compiled, size_t *shared)
{
    kt_cpool_options opt = {threads, "", NULL, NULL, NULL, NULL};
    kt_cpool_stats st;
    kt_cpool *pool;
    kt_err err;
    char path[4096];
    double t0;

    *failed = 0;
    if (helpers && (helper_path(path, sizeof path) ||
                    kt_nvrtc_procs_open(threads, path, &opt.procs, &err))) {
        fprintf(stderr, "bench_compile_pool: no NVRTC helper (ktune-nvrtc)\n");
        return -1;
    }
    if (kt_cpool_open(&opt, &pool, &err)) {
        kt_nvrtc_procs_close(opt.procs);
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
    *compiled = st.compiled;
    *shared = st.shared;
    kt_cpool_close(pool);
    return 0;
}

/* Child c of procs: every procs-th kernel from c, one at a time; exits
 * with the number that did not compile (at most 100). */
static void child(const kernels *k, size_t c, size_t procs)
{
    int failed = 0;
    for (size_t i = c; i < k->n; i += procs) {
        kt_nvrtc_output out;
        kt_err err;
        if (kt_nvrtc_build(&k->req[i], &out, &err))
            _exit(101);
        failed += !out.compiled;
        kt_nvrtc_output_free(&out);
    }
    _exit(failed < 100 ? failed : 100);
}

/* One process count: wall and the children's CPU (user + system). */
static int run_procs(const kernels *k, int procs, double *wall, double *cpu,
                     size_t *failed)
{
    struct rusage r0, r1;
    double t0 = kt_clock_seconds();
    int bad = 0;

    *failed = 0;
    getrusage(RUSAGE_CHILDREN, &r0);
    for (int c = 0; c < procs; ++c) {
        pid_t pid = -1;
        bad |= kt_proc_fork("a compiling process", &pid, NULL) != KT_S_OK;
        if (pid == 0)
            child(k, (size_t)c, (size_t)procs);
    }
    for (int st; kt_proc_reap(-1, &st, 0) > 0;) {
        bad |= !WIFEXITED(st) || WEXITSTATUS(st) > 100;
        *failed += WIFEXITED(st) ? (size_t)WEXITSTATUS(st) : 0;
    }
    *wall = kt_clock_seconds() - t0;
    getrusage(RUSAGE_CHILDREN, &r1);
#define KT_TV(tv) ((double)(tv).tv_sec + 1e-6 * (double)(tv).tv_usec)
    *cpu = KT_TV(r1.ru_utime) - KT_TV(r0.ru_utime) + KT_TV(r1.ru_stime) -
           KT_TV(r0.ru_stime);
#undef KT_TV
    if (bad)
        fprintf(stderr, "bench_compile_pool: a child process failed\n");
    return bad ? -1 : 0;
}

static int count_of(const char *tok, const char *what, int *out)
{
    int64_t t;
    kt_err err;
    if (kt_parse_i64(tok, what, &t, &err) || t < 1 || t > 4096) {
        fprintf(stderr, "bench_compile_pool: %s: '%s'\n", what, tok);
        return -1;
    }
    *out = (int)t;
    return 0;
}

/* One line per count of list: threads of a pool, or (procs) processes. */
/* procs: 0 threads, 1 child processes, 2 threads on helper processes. */
static int run_all(const kernels *k, char *list, int procs)
{
    static const char *const label[] = {"", "procs=", "helpers="};
    static const char *const option[] = {"--threads", "--procs", "--helpers"};
    double base = 0;
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        double wall, cpu;
        size_t failed, compiled = k->n, shared = 0;
        int t;
        if (count_of(tok, option[procs], &t))
            return 2;
        if (procs == 1 ? run_procs(k, t, &wall, &cpu, &failed)
                       : run(k, t, procs == 2, &wall, &cpu, &failed, &compiled,
                             &shared))
            return 1;
        base = base > 0 ? base : wall;
        printf("%s%d %zu %.3f %.2f %.3f %zu %.2f %zu %zu %.3f\n", label[procs],
               t, k->n, wall, (double)k->n / wall, cpu, failed, base / wall,
               compiled, shared, compiled ? cpu / (double)compiled : 0.0);
        fflush(stdout);
    }
    return 0;
}

/* Each kernel compiled alone into dir (see the top). */
static int dump(const kernels *k, const char *dir)
{
    char path[4200];
    FILE *index;

    /* Without the cache no compile is shared (the code key's entry lives
     * there): each kernel compiles alone. */
    kt_nvrtc_cache_dir(path, sizeof path);
    if (path[0]) {
        fprintf(stderr, "bench_compile_pool: --dump needs "
                        "KTUNE_NVRTC_CACHE=off\n");
        return 2;
    }
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/index.txt", dir);
    if (!(index = fopen(path, "w")))
        return 1;
    for (size_t i = 0; i < k->n; ++i) {
        kt_nvrtc_output out;
        char ir[33];
        kt_err err;
        FILE *f;
        if (kt_nvrtc_front_end(&k->req[i], ir, &err) ||
            kt_nvrtc_build(&k->req[i], &out, &err)) {
            fprintf(stderr, "bench_compile_pool: %s\n", err.msg);
            fclose(index);
            return 1;
        }
        snprintf(path, sizeof path, "%s/%zu.cubin", dir, i);
        if (out.image && (f = fopen(path, "wb"))) {
            fwrite(out.image, 1, out.image_size, f);
            fclose(f);
        }
        fprintf(index, "%zu ir=%s cpu_s=%.3f bytes=%zu", i, ir[0] ? ir : "-",
                out.cpu_seconds, out.image_size);
        for (size_t o = 0; o < k->req[i].num_options; ++o)
            fprintf(index, " %s", k->req[i].options[o]);
        fprintf(index, "\n");
        kt_nvrtc_output_free(&out);
    }
    fclose(index);
    return 0;
}

static int measure(const kernels *k, const bench_args *a)
{
    int rc = 0;
    if (a->dump)
        return dump(k, a->dump);
    printf("threads kernels wall_s compiles_per_s cpu_s failed speedup "
           "compiled shared cpu_per_kernel_s\n");
    if (a->threads)
        rc = run_all(k, a->threads, 0);
    if (!rc && a->procs)
        rc = run_all(k, a->procs, 1);
    if (!rc && a->helpers)
        rc = run_all(k, a->helpers, 2);
    return rc;
}

static int parse_args(int argc, char **argv, bench_args *a)
{
    static const struct option longs[] = {
        {"kernels", required_argument, NULL, 'k'},
        {"threads", required_argument, NULL, 't'},
        {"procs", required_argument, NULL, 'p'},
        {"helpers", required_argument, NULL, 'H'},
        {"arch", required_argument, NULL, 'a'},
        {"sample", no_argument, NULL, 's'},
        {"seed", required_argument, NULL, 'S'},
        {"option", required_argument, NULL, 'o'},
        {"dump", required_argument, NULL, 'd'},
        {"from", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0}};
    kt_err err;
    int c;

    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (c) {
        case 'k':
            if (kt_parse_i64(optarg, "--kernels", &a->want, &err) ||
                a->want < 1)
                return -1;
            break;
        case 'S':
            if (kt_parse_i64(optarg, "--seed", &a->seed, &err))
                return -1;
            break;
        case 'f':
            if (kt_parse_i64(optarg, "--from", &a->from, &err) || a->from < 0)
                return -1;
            break;
        case 't': a->threads = optarg; break;
        case 'p': a->procs = optarg; break;
        case 'H': a->helpers = optarg; break;
        case 'a': a->arch = optarg; break;
        case 'd': a->dump = optarg; break;
        case 's': a->sample = 1; break;
        case 'o':
            if (a->num_extra == MAX_EXTRA)
                return -1;
            a->extra[a->num_extra++] = optarg;
            break;
        default: return -1;
        }
    }
    return optind + 1 == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
    char default_threads[] = "1";
    bench_args a = {.arch = "sm_90", .want = 32, .seed = 1};
    kt_registry reg;
    kt_job job;
    kt_device dev;
    kernels k = {0};
    kt_err err;
    int rc = 1;

    if (parse_args(argc, argv, &a)) {
        fprintf(stderr, "usage: bench_compile_pool DECLARATION [--kernels K] "
                        "[--from I] [--sample] [--seed S] [--threads 1,2,...] "
                        "[--procs 1,2,...] [--helpers 1,2,...] [--arch A] "
                        "[--option OPT]... [--dump DIR]\n");
        return 2;
    }
    if (!a.threads && !a.procs && !a.helpers)
        a.threads = default_threads;
    kt_registry_init(&reg);
    memset(&job, 0, sizeof job);
    if (kt_registry_load_file(&reg, argv[optind], &err) ||
        kt_job_load(argv[optind], NULL, 0, &reg, &job, &err)) {
        fprintf(stderr, "bench_compile_pool: %s\n", err.msg);
        kt_registry_free(&reg);
        return err.status == KT_S_INPUT ? 2 : 1;
    }
    dev = kt_test_h200();
    kt_space_bind(&job.space, job.sizes, 1, &dev);
    collect(&job, &a, &k);
    if (k.n == 0)
        fprintf(stderr, "bench_compile_pool: %s: no run-time kernels\n",
                argv[optind]);
    else
        rc = measure(&k, &a);
    for (size_t i = 0; i < k.n; ++i)
        free(k.b[i].src);
    free(k.b);
    free(k.req);
    free(k.key);
    free(k.opts);
    kt_job_free(&job);
    kt_registry_free(&reg);
    return rc;
}
