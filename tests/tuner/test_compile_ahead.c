// SPDX-License-Identifier: Apache-2.0
/* The compile-ahead path without a GPU (tests/support/compile_eval.h): a
 * declared operator whose compile-time parameters cut two thirds of the
 * space (tests/declared/t1/scale.ini, 6,280 of 19,800 points), a real
 * compile pool whose compile sleeps, and the tuner's strategies hinting
 * it. Strategies that know their order keep the pool ahead for the whole
 * run, not only for their first window (random stopped hinting after its
 * first 64 draws: the hub convolution then compiled one kernel at a time
 * on the H200), and the tuner counts each point's compile wait once. */
#include "tuner/tune.h" /* before tuner_test.h: tt_config_defaults */

#include "tests/tuner/tuner_test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/loader.h"
#include "records/journal.h"
#include "records/space.h"
#include "tests/support/compile_eval.h"
#include "tests/support/fake_device.h"
#include "tuner/strategies/tpe.h"

/* A compile: 30 ms asleep, so 8 threads overlap on any machine. */
#define COMPILE_S 0.03

static kt_registry reg;
static const kt_loaded_plugin *lp;
static const kt_operator *op;
static kt_space space;
static int64_t sizes[KT_MAX_SIZES] = {65536};

static int load(void **state)
{
    kt_device dev = kt_test_h200();
    kt_err err;
    (void)state;
    setenv("KTUNE_CACHE_DIR", "/tmp/ktune-test-compile-ahead-cache", 1);
    setenv("KT_T1_TEST_DIR", KT_SOURCE_DIR "/tests/core/t1", 1);
    kt_registry_init(&reg);
    if (kt_registry_load_file(
            &reg, KT_SOURCE_DIR "/tests/declared/t1/scale.ini", &err) ||
        kt_registry_resolve(&reg, "t1scale", &lp, &op, &err) ||
        kt_space_init(&space, lp, op, &err))
        fail_msg("%s", err.msg);
    kt_space_bind(&space, sizes, 1, &dev);
    return 0;
}

static int unload(void **state)
{
    (void)state;
    kt_space_free(&space);
    kt_registry_free(&reg);
    return 0;
}

static kt_status sleep_compile(void *ctx, const kt_nvrtc_request *req,
                               kt_nvrtc_output *out, kt_err *err)
{
    (void)ctx;
    (void)req;
    (void)err;
    memset(out, 0, sizeof *out);
    kt_clock_sleep(COMPILE_S);
    out->compiled = 1;
    out->seconds = COMPILE_S;
    return KT_S_OK;
}

/* A hash of a request's compile options and the #define lines its source
 * starts with (a declaration's parameters: declared/declared.c writes them
 * there): which kernels a test's compile treats apart. */
static unsigned options_hash(const kt_nvrtc_request *req)
{
    unsigned h = 5381;
    for (size_t i = 0; i < req->num_options; ++i)
        for (const char *c = req->options[i]; *c; ++c)
            h = h * 33u + (unsigned char)*c;
    for (const char *c = req->source; c && strncmp(c, "#define ", 8) == 0;) {
        for (; *c && *c != '\n'; ++c)
            h = h * 33u + (unsigned char)*c;
        c += *c == '\n';
    }
    return h;
}

/* sleep_compile, but a kernel whose options hash to 0 mod 4 does not
 * compile: a quarter of the points fail verification. */
static kt_status sleep_or_fail_compile(void *ctx, const kt_nvrtc_request *req,
                                       kt_nvrtc_output *out, kt_err *err)
{
    unsigned h = options_hash(req);
    kt_status rc = sleep_compile(ctx, req, out, err);
    out->compiled = h % 4 != 0;
    return rc;
}

/* sleep_compile, but a kernel whose options hash to 0 mod 8 compiles
 * ten times as long: the slow tail of the hub convolution's kernels. */
static kt_status sleep_with_a_slow_tail(void *ctx, const kt_nvrtc_request *req,
                                        kt_nvrtc_output *out, kt_err *err)
{
    unsigned h = options_hash(req);
    kt_status rc = sleep_compile(ctx, req, out, err);
    if (h % 8 == 0)
        kt_clock_sleep(9 * COMPILE_S);
    return rc;
}

static kt_compile_eval *open_eval_with(kt_cpool_compile_fn compile)
{
    kt_cpool_options opt = {8, "", compile, NULL};
    kt_device dev = kt_test_h200();
    kt_compile_eval *c =
        kt_compile_eval_open(lp, op, sizes, &dev, &opt, 0.0005);
    assert_non_null(c);
    return c;
}

static kt_compile_eval *open_eval(void)
{
    return open_eval_with(sleep_compile);
}

/* A session of strategy (its default options) on o's space sp, measured
 * by c, evals points, one finalist. */
static void config_for(kt_tune_config *cfg, kt_compile_eval *c,
                       const kt_operator *o, const kt_space *sp,
                       const char *strategy, size_t evals)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->op = o;
    cfg->space = sp;
    cfg->ev = &c->base;
    tt_config_defaults(cfg, kt_strategy_find(strategy));
    cfg->finalists = 1;
    cfg->max_evals = evals;
}

static void tune_on(kt_compile_eval *c, const kt_operator *o,
                    const kt_space *sp, const char *strategy, size_t evals,
                    kt_tune_result *r)
{
    kt_tune_config cfg;
    kt_err err;
    config_for(&cfg, c, o, sp, strategy, evals);
    if (kt_tune_run(&cfg, r, &err))
        fail_msg("%s: %s", strategy, err.msg);
}

static void tune(kt_compile_eval *c, const char *strategy, size_t evals,
                 kt_tune_result *r)
{
    tune_on(c, op, &space, strategy, evals, r);
}

/* tune_on for tpe with its `ahead` option set (-1: its default, from the
 * evaluator's compile pool). */
static void tune_tpe(kt_compile_eval *c, const kt_operator *o,
                     const kt_space *sp, double ahead, size_t evals,
                     kt_tune_result *r)
{
    const kt_strategy *s = kt_strategy_find("tpe");
    kt_tune_config cfg;
    kt_err err;
    config_for(&cfg, c, o, sp, "tpe", evals);
    for (size_t i = 0; i < s->num_options; ++i)
        if (strcmp(s->options[i].name, "ahead") == 0)
            cfg.options[i] = ahead;
    if (kt_tune_run(&cfg, r, &err))
        fail_msg("tpe: %s", err.msg);
}

/* 200 evaluations, three windows of hints and more: all but the first
 * few takes find their kernel compiled or compiling, several compile at
 * once, and the "GPU" waits far less than one compile per point. */
static void random_and_exhaustive_keep_the_pool_ahead_all_run(void **state)
{
    const char *names[] = {"random", "exhaustive"};
    (void)state;
    for (size_t k = 0; k < 2; ++k) {
        kt_compile_eval *c = open_eval();
        kt_tune_result r;
        kt_cpool_stats st;
        tune(c, names[k], 200, &r);
        kt_cpool_stats_get(c->pool, &st);
        assert_int_equal(r.evaluations, 200);
        assert_true(c->takes >= 200);
        assert_int_equal(st.taken, c->takes);
        if (st.unhinted > 2) /* the first point's, at most */
            fail_msg("%s: %zu of %zu takes found their kernel unhinted",
                     names[k], st.unhinted, c->takes);
        assert_true(st.peak_running >= 4);
        /* One at a time: 200 * 30 ms = 6 s of waits; ahead on 8 threads,
         * about an eighth of it. */
        if (c->gpu_wait_s > 0.5 * COMPILE_S * (double)c->takes)
            fail_msg("%s: the GPU waited %.2f s for %zu compiles", names[k],
                     c->gpu_wait_s, c->takes);
        kt_tune_result_free(&r);
        c->base.ops->close(&c->base);
    }
}

/* A journaled random run of n points with c: a new journal at path (its
 * header as the CLI's), or the one resume was read from, continued. */
static void journaled_random(kt_compile_eval *c, const char *path, size_t n,
                             const kt_journal_log *resume, kt_tune_result *r)
{
    kt_tune_config cfg;
    kt_journal j;
    kt_err err;
    kt_status rc;

    config_for(&cfg, c, op, &space, "random", n);
    if (resume) {
        rc = kt_journal_continue(&j, path, resume, json_object(), &err);
    } else {
        json_t *h = kt_journal_header(lp, "t1scale", op, sizes, 0, &space,
                                      &cfg.protocol, json_object(),
                                      c->base.ops->environment(&c->base));
        rc = kt_journal_create(&j, path, h, &err);
        json_decref(h);
    }
    if (rc)
        fail_msg("%s: %s", path, err.msg);
    cfg.journal = &j;
    cfg.resume = resume;
    if (kt_tune_run(&cfg, r, &err))
        fail_msg("random: %s", err.msg);
    kt_journal_close(&j);
}

/* Cuts the journal at path after its last record of a failed point (the
 * header and every line before it kept); returns the records kept. */
static size_t cut_after_last_failure(const char *path)
{
    FILE *f = fopen(path, "r+");
    char *line = NULL;
    size_t cap = 0, n = 0, kept = 0;
    long end = -1;

    assert_non_null(f);
    while (getline(&line, &cap, f) > 0) {
        json_t *rec = json_loads(line, 0, NULL);
        const char *kind = json_string_value(json_object_get(rec, "kind"));
        const char *st = json_string_value(json_object_get(rec, "status"));
        if (kind && strcmp(kind, "eval") == 0) {
            ++n;
            if (st && strcmp(st, "ok") != 0) {
                end = ftell(f);
                kept = n;
            }
        }
        json_decref(rec);
    }
    free(line);
    assert_true(end > 0);
    assert_int_equal(ftruncate(fileno(f), end), 0);
    fclose(f);
    return kept;
}

/* A sweep resumed from its journal keeps the pool ahead from its first new
 * point, also when the journal ends on a point that failed (answered from
 * its failure record, not as a recorded call). Hints were refused until
 * every recorded call had been asked for again, which such a last call
 * never is: the resumed part of the H200's convolution recording compiled
 * one kernel at a time, 494 points in 402 s against 3,134 in 547 s
 * before it. Hints now pass over the points the journal holds. */
static void a_resumed_random_run_keeps_the_pool_ahead(void **state)
{
    const char *path = "compile-ahead-resume.jsonl";
    kt_compile_eval *first = open_eval_with(sleep_or_fail_compile), *rest;
    kt_tune_result r1, r2;
    kt_journal_log log;
    kt_cpool_stats st;
    size_t kept;
    kt_err err;
    (void)state;

    unlink(path);
    journaled_random(first, path, 60, NULL, &r1);
    first->base.ops->close(&first->base);
    kept = cut_after_last_failure(path);
    if (kt_journal_read(path, op, &log, &err))
        fail_msg("%s", err.msg);
    rest = open_eval_with(sleep_or_fail_compile);
    journaled_random(rest, path, 200, &log, &r2);
    kt_cpool_stats_get(rest->pool, &st);
    assert_true(kept > 20);
    assert_int_equal(r2.from_journal, kept);
    assert_int_equal(r2.evaluations, 200);
    assert_true(rest->takes >= 200 - kept);
    if (st.unhinted > 2)
        fail_msg("%zu of %zu new points' kernels were not hinted", st.unhinted,
                 rest->takes);
    assert_true(st.peak_running >= 4);
    kt_journal_log_free(&log);
    kt_tune_result_free(&r1);
    kt_tune_result_free(&r2);
    rest->base.ops->close(&rest->base);
}

/* The default search on several variants or a reference, one_at_a_time,
 * measures one candidate at a time; hinting every single change it may
 * try from the incumbent (and the pair scan's, the survey's) lets the
 * pool compile them at once: several compiles run together (6.5 here),
 * and the "GPU" waits under a third of what the same walk waits when
 * nothing is hinted (one compile per point: 3.7 s; hinting only the next
 * `patience` values of each line, as before, 1.85 s; now 0.7 s). The
 * tuner's pool counts are the pool's own. */
static void one_at_a_time_compiles_its_next_batch_at_once(void **state)
{
    kt_evaluator_ops quiet;
    kt_compile_eval *c = open_eval(), *alone = open_eval();
    kt_tune_result r, base;
    kt_cpool_stats st;
    (void)state;

    quiet = *alone->base.ops;
    quiet.prefetch = NULL; /* no hints from the tuner: one at a time */
    alone->base.ops = &quiet;
    tune(alone, "one_at_a_time", 120, &base);
    tune(c, "one_at_a_time", 120, &r);
    kt_cpool_stats_get(c->pool, &st);
    assert_int_equal(r.evaluations, base.evaluations);
    for (size_t e = 0; e < r.num_entries; ++e) /* the same walk */
        assert_int_equal(r.entries[e].index, base.entries[e].index);
    assert_int_equal(r.compile_taken, c->takes);
    assert_int_equal(r.compile_took_queued, st.took_queued);
    assert_int_equal(r.compile_unhinted, st.unhinted);
    assert_int_equal(r.compile_peak, st.peak_running);
    if (kt_tune_compile_parallel(&base) > 1.2)
        fail_msg("unhinted: %.2f compiles at once",
                 kt_tune_compile_parallel(&base));
    if (kt_tune_compile_parallel(&r) < 3)
        fail_msg("hinted: %.2f compiles at once (peak %zu)",
                 kt_tune_compile_parallel(&r), r.compile_peak);
    if (c->gpu_wait_s > 0.35 * alone->gpu_wait_s ||
        kt_tune_compile_idle(&r) >= kt_tune_compile_idle(&base))
        fail_msg("the GPU waited %.2f s hinted (idle %.2f), %.2f s not "
                 "(idle %.2f)",
                 c->gpu_wait_s, kt_tune_compile_idle(&r), alone->gpu_wait_s,
                 kt_tune_compile_idle(&base));
    kt_tune_result_free(&r);
    kt_tune_result_free(&base);
    c->base.ops->close(&c->base);
    alone->base.ops->close(&alone->base);
}

/* The size the declared operators of tests/tuner/ run at. */
static const int64_t declared_n[KT_MAX_SIZES] = {1048576};

/* A declared operator of tests/tuner/ (at declared_n) and its bound space
 * into the caller's registry and space. */
static void open_declared(const char *file, const char *name,
                          const kt_device *dev, kt_registry *into,
                          const kt_loaded_plugin **p, const kt_operator **o,
                          kt_space *sp)
{
    char path[512];
    kt_err err;

    snprintf(path, sizeof path, "%s/tests/tuner/%s", KT_SOURCE_DIR, file);
    kt_registry_init(into);
    if (kt_registry_load_file(into, path, &err) ||
        kt_registry_resolve(into, name, p, o, &err) ||
        kt_space_init(sp, *p, *o, &err))
        fail_msg("%s", err.msg);
    kt_space_bind(sp, declared_n, 1, dev);
}

/* tpe on a space too large to enumerate (tests/tuner/wide.ini, 327,680
 * points) draws its candidates, and used to hint only the point it was
 * about to measure: one compile at a time (the hub gemm on the H200,
 * 1.0 at once). It now looks its next proposals ahead on the draws they
 * will be made from, with nothing recorded and the generator rewound:
 * the same walk as with no hints at all, several compiles at once, and
 * the "GPU" waits less than the walk waits alone (0.73 of it here: the
 * fit moves after each result, so a look-ahead past the next proposal
 * misses more often than not; the bench on the hub gemm, with 300 ms
 * compiles and 150 ms measurements, went from 2.2 to 4.3 evaluations
 * per second). */
static void tpe_on_a_drawn_space_hints_its_next_proposals(void **state)
{
    kt_device dev = kt_test_h200();
    kt_cpool_options opt = {8, "", sleep_compile, NULL};
    const kt_loaded_plugin *wp;
    const kt_operator *wop;
    kt_evaluator_ops quiet;
    kt_compile_eval *c, *alone;
    kt_tune_result r, base;
    kt_registry wreg;
    kt_space wspace;
    (void)state;

    open_declared("wide.ini", "wide", &dev, &wreg, &wp, &wop, &wspace);
    /* Measuring takes 20 ms here, so a kernel hinted one proposal ahead
     * has that long to compile. */
    c = kt_compile_eval_open(wp, wop, declared_n, &dev, &opt, 0.02);
    alone = kt_compile_eval_open(wp, wop, declared_n, &dev, &opt, 0.02);
    assert_non_null(c);
    assert_non_null(alone);
    quiet = *alone->base.ops;
    quiet.prefetch = NULL;
    alone->base.ops = &quiet;
    /* Without its pipeline (ahead 0): each proposal waits for every
     * result before it, and only hints say what comes. */
    tune_tpe(alone, wop, &wspace, 0, 60, &base);
    tune_tpe(c, wop, &wspace, 0, 60, &r);
    assert_int_equal(r.evaluations, base.evaluations);
    for (size_t e = 0; e < r.num_entries; ++e) /* the same walk */
        assert_int_equal(r.entries[e].index, base.entries[e].index);
    if (kt_tune_compile_parallel(&r) < 1.5)
        fail_msg("hinted: %.2f compiles at once (peak %zu)",
                 kt_tune_compile_parallel(&r), r.compile_peak);
    if (c->gpu_wait_s > 0.85 * alone->gpu_wait_s)
        fail_msg("the GPU waited %.2f s hinted, %.2f s not", c->gpu_wait_s,
                 alone->gpu_wait_s);
    kt_tune_result_free(&r);
    kt_tune_result_free(&base);
    c->base.ops->close(&c->base);
    alone->base.ops->close(&alone->base);
    kt_space_free(&wspace);
    kt_registry_free(&wreg);
}

/* The points of r's entries measured more than once as a proposal, and
 * the entries that are not in the space: 0 for a search that proposes
 * each point once. */
static size_t proposed_twice(const kt_tune_result *r)
{
    size_t twice = 0;
    for (size_t e = 0; e < r->num_entries; ++e)
        for (size_t f = 0; f < e; ++f)
            twice += r->entries[f].index == r->entries[e].index;
    return twice;
}

/* tpe with its pipeline and without on space sp of o (plugin p) at sizes
 * sz, compiles sleeping on 8 threads; name says which space failed. */
static void check_pipeline(const char *name, const kt_loaded_plugin *p,
                           const kt_operator *o, const kt_space *sp,
                           const int64_t *sz)
{
    int drawn = sp->size > KT_TPE_ENUMERATE;
    kt_device dev = kt_test_h200();
    kt_cpool_options opt = {8, "", sleep_compile, NULL};
    kt_compile_eval *c = kt_compile_eval_open(p, o, sz, &dev, &opt, 0.002);
    kt_compile_eval *seq = kt_compile_eval_open(p, o, sz, &dev, &opt, 0.002);
    kt_tune_result r, base;
    kt_cpool_stats st;

    assert_non_null(c);
    assert_non_null(seq);
    tune_tpe(seq, o, sp, 0, 80, &base);
    tune_tpe(c, o, sp, -1, 80, &r);
    kt_cpool_stats_get(c->pool, &st);
    assert_int_equal(r.evaluations, 80);
    assert_int_equal(proposed_twice(&r), 0);
    if (st.unhinted > 0 || st.took_queued > 1)
        fail_msg("%s: %zu takes unhinted, %zu hinted but not started", name,
                 st.unhinted, st.took_queued);
    /* On a drawn space the proposals themselves cost (4,096 draws each),
     * so how many compile at once depends on the host's load; what the
     * pipeline must give there is the shorter wait. */
    if (!drawn && kt_tune_compile_parallel(&r) < 2.5)
        fail_msg("%s: %.2f compiles at once (peak %zu)", name,
                 kt_tune_compile_parallel(&r), r.compile_peak);
    if (c->gpu_wait_s > 0.35 * seq->gpu_wait_s)
        fail_msg("%s: the GPU waited %.2f s ahead, %.2f s sequential", name,
                 c->gpu_wait_s, seq->gpu_wait_s);
    kt_tune_result_free(&r);
    kt_tune_result_free(&base);
    c->base.ops->close(&c->base);
    seq->base.ops->close(&seq->base);
}

/* tpe's pipeline (its default with a compile pool: one proposal ahead per
 * compile thread). Without it the model's next choice is known only once
 * the last result is in, so its kernel starts compiling then: on the
 * H200 the hub convolution's default run compiled 6.5 kernels at once,
 * the GPU waited on compiles 84% of its 60 s and 59 points were
 * evaluated, where a sweep of the same space evaluates 5.8 a second.
 * Committed ahead, every measured point's kernel was hinted before the
 * one before it was measured, several compile at once (7.5 here on the
 * enumerated t1scale; 1.4-4.3 on the drawn wide, whose proposals cost
 * 4,096 draws each, by the host's load) and the "GPU" waits a tenth to a
 * sixth of what the sequential search waits; no point is proposed
 * twice. */
static void tpe_commits_one_proposal_ahead_per_compile_thread(void **state)
{
    kt_device dev = kt_test_h200();
    const kt_loaded_plugin *wp;
    const kt_operator *wop;
    kt_registry wreg;
    kt_space wspace;
    (void)state;

    check_pipeline("t1scale", lp, op, &space, sizes);
    open_declared("wide.ini", "wide", &dev, &wreg, &wp, &wop, &wspace);
    check_pipeline("wide", wp, wop, &wspace, declared_n);
    kt_space_free(&wspace);
    kt_registry_free(&wreg);
}

/* Pending proposals are measured oldest first, so a kernel that compiles
 * for long (the hub convolution's largest tiles: 10-16 s on the H200,
 * against a median of 1.6 s) holds the pipeline while the kernels behind
 * it are done, and the pool went idle: 6.6 compiles at once on 16
 * threads there, the GPU waiting 81% of the run. Behind the pending
 * proposals tpe now hints the ones the current fit would make next, so
 * the pool goes on with them: here (one kernel in 8 compiling ten times
 * as long, 150 evaluations) the pool compiled 290-300 kernels where it
 * compiled 155 (the pending ones and no more), and the "GPU" waited 2.1 s
 * instead of 2.75 s. */
static void tpe_keeps_the_pool_busy_behind_a_slow_compile(void **state)
{
    kt_compile_eval *c = open_eval_with(sleep_with_a_slow_tail);
    kt_compile_eval *even = open_eval();
    kt_tune_result r, same;
    kt_cpool_stats st;
    (void)state;
    tune_tpe(c, op, &space, -1, 150, &r);
    kt_cpool_stats_get(c->pool, &st);
    assert_int_equal(r.evaluations, 150);
    if (st.compiled < r.evaluations + 48)
        fail_msg("%zu kernels compiled for %zu evaluations: nothing beyond "
                 "the pending proposals",
                 (size_t)st.compiled, r.evaluations);
    /* The walk does not depend on when kernels are ready: the same with
     * every compile as long. */
    tune_tpe(even, op, &space, -1, 150, &same);
    assert_int_equal(same.num_entries, r.num_entries);
    for (size_t e = 0; e < r.num_entries; ++e)
        assert_int_equal(same.entries[e].index, r.entries[e].index);
    kt_tune_result_free(&r);
    kt_tune_result_free(&same);
    c->base.ops->close(&c->base);
    even->base.ops->close(&even->base);
}

/* A run of strategy for evals points on tests/tuner/sparse.ini (7 points
 * in 8 refused by its constraint), compiles sleeping on 2 threads: the
 * result into r, the space kept for the checks. Close with
 * sparse_close. */
typedef struct sparse_run {
    kt_registry reg;
    kt_space space;
    kt_compile_eval *c;
} sparse_run;

static void sparse_open(sparse_run *s, const char *strategy, size_t evals,
                        kt_tune_result *r)
{
    kt_device dev = kt_test_h200();
    kt_cpool_options opt = {2, "", sleep_compile, NULL};
    const kt_loaded_plugin *sp_plugin;
    const kt_operator *sp_op;

    open_declared("sparse.ini", "sparse", &dev, &s->reg, &sp_plugin, &sp_op,
                  &s->space);
    s->c = kt_compile_eval_open(sp_plugin, sp_op, declared_n, &dev, &opt, 0.0);
    assert_non_null(s->c);
    tune_on(s->c, sp_op, &s->space, strategy, evals, r);
}

static void sparse_close(sparse_run *s, kt_tune_result *r)
{
    kt_tune_result_free(r);
    s->c->base.ops->close(&s->c->base);
    kt_space_free(&s->space);
    kt_registry_free(&s->reg);
}

/* tpe scores KT_TPE_DRAWS drawn candidates a proposal. On a space mostly
 * infeasible (sparse.ini; the hub gemm's T1 conditions refuse 82%) it
 * recorded every refused candidate as a point refused on the host:
 * 220,058 of them in the journal and the summary of a 60 s run on the hub
 * gemm, 338 evaluated (148 MB of journal). A candidate is only scored:
 * nothing of it is recorded, and the walk proposes feasible points only. */
static void tpe_records_nothing_of_the_candidates_it_only_scores(void **state)
{
    sparse_run s;
    kt_tune_result r;
    (void)state;

    sparse_open(&s, "tpe", 40, &r);
    assert_int_equal(r.evaluations, 40);
    /* The run's first point (every parameter's first value) is proposed
     * and refused; every other entry is a measured point. */
    assert_int_equal(r.host_invalid, 1);
    assert_int_equal(r.num_entries, 41);
    assert_true(r.entries[0].host_checked);
    for (size_t e = 1; e < r.num_entries; ++e)
        assert_int_equal(r.entries[e].status, KT_EVAL_OK);
    sparse_close(&s, &r);
}

/* random draws a permutation of the Cartesian space; on one the
 * constraints mostly refuse (the hub hotspot's: 1.9% feasible) it recorded
 * every refused draw as a point refused on the host, 56 MB of journal and
 * summary beside a 701-point recording. A refused draw is passed over:
 * every entry is a measured, feasible point. */
static void
random_records_nothing_of_the_draws_the_constraints_refuse(void **state)
{
    sparse_run s;
    kt_tune_result r;
    (void)state;

    sparse_open(&s, "random", 40, &r);
    assert_int_equal(r.evaluations, 40);
    assert_int_equal(r.host_invalid, 0);
    assert_int_equal(r.num_entries, 40);
    for (size_t e = 0; e < r.num_entries; ++e) {
        const kt_point pt = kt_tune_entry_point(&r, &r.entries[e]);
        assert_int_equal(r.entries[e].status, KT_EVAL_OK);
        assert_int_equal(kt_space_feasible(&s.space, &pt, NULL), KT_S_OK);
    }
    sparse_close(&s, &r);
}

/* An evaluator that repeats a point's compile wait whenever the point is
 * measured again (the local evaluator did, before it reported costs once)
 * does not inflate the run's waits: the tuner counts each point once, so
 * the idle fraction stays the true one, at most 1. */
static void compile_waits_are_counted_once_per_point(void **state)
{
    kt_compile_eval *c = open_eval();
    kt_tune_result r;
    (void)state;
    c->repeat_costs = 1;
    tune(c, "one_at_a_time", 60, &r);
    assert_true(r.calls > r.evaluations); /* points measured again */
    assert_true(c->gpu_wait_s > 0);
    assert_true(fabs(r.compile_wait_s - c->gpu_wait_s) < 1e-9);
    assert_true(kt_tune_compile_idle(&r) <= 1.0);
    kt_tune_result_free(&r);
    c->base.ops->close(&c->base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_and_exhaustive_keep_the_pool_ahead_all_run),
        cmocka_unit_test(a_resumed_random_run_keeps_the_pool_ahead),
        cmocka_unit_test(one_at_a_time_compiles_its_next_batch_at_once),
        cmocka_unit_test(compile_waits_are_counted_once_per_point),
        cmocka_unit_test(tpe_on_a_drawn_space_hints_its_next_proposals),
        cmocka_unit_test(tpe_commits_one_proposal_ahead_per_compile_thread),
        cmocka_unit_test(tpe_keeps_the_pool_busy_behind_a_slow_compile),
        cmocka_unit_test(tpe_records_nothing_of_the_candidates_it_only_scores),
        cmocka_unit_test(
            random_records_nothing_of_the_draws_the_constraints_refuse),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
