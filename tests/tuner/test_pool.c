// SPDX-License-Identifier: Apache-2.0
/* Several workers (tuner/pool.h) behind one tuning session, without a GPU:
 * simulated workers answering from a recording give the single worker's
 * answers; a worker that dies or hangs loses its call, which runs once
 * more on another worker and then counts; a run with every worker dead
 * fails; a journal written by several workers resumes. */
#include <unistd.h>

#include "records/journal.h"
#include "records/replay.h"
#include "tuner/pool.h"
#include "tuner/tune.h"

#include "tests/tuner/tuner_test.h"

#define RECORDING TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl"

static kt_registry reg;
static const kt_loaded_plugin *plugin;
static const kt_operator *op;
static kt_space space;
static kt_evaluator *replay;

/* A worker that misbehaves on cue: `die_at`: from its die_at-th call on,
 * evaluate() fails as a worker whose process cannot be restarted;
 * `hang_block`: points of that block come back timed out (the worker
 * evaluator's verdict on a point that hangs). */
typedef struct flaky {
    kt_evaluator base;
    kt_evaluator *inner;
    size_t calls, die_at;
    int64_t hang_block;
} flaky;

static kt_status flaky_evaluate(kt_evaluator *ev, const kt_point *pts, size_t n,
                                const kt_protocol *p, kt_eval_result *out,
                                kt_err *err)
{
    flaky *f = (flaky *)ev;
    kt_status rc;

    memset(out, 0, n * sizeof *out);
    if (++f->calls >= f->die_at && f->die_at)
        return kt_err_set(err, KT_S_CRASHED,
                          "the worker exited with status 1 (simulated)");
    if ((rc = f->inner->ops->evaluate(f->inner, pts, n, p, out, err)))
        return rc;
    for (size_t i = 0; i < n; ++i)
        if (f->hang_block && pts[i].values[0] == f->hang_block) {
            kt_eval_result_free(&out[i]);
            memset(&out[i], 0, sizeof out[i]);
            out[i].status = KT_EVAL_TIMEOUT;
            snprintf(out[i].reason, sizeof out[i].reason,
                     "no result within 60 s: the worker was killed");
        }
    return KT_S_OK;
}

static const kt_device *flaky_device(kt_evaluator *ev)
{
    kt_evaluator *in = ((flaky *)ev)->inner;
    return in->ops->device(in);
}

static const kt_work *flaky_work(kt_evaluator *ev)
{
    kt_evaluator *in = ((flaky *)ev)->inner;
    return in->ops->work(in);
}

static json_t *flaky_environment(kt_evaluator *ev)
{
    kt_evaluator *in = ((flaky *)ev)->inner;
    return in->ops->environment(in);
}

static void flaky_close(kt_evaluator *ev)
{
    (void)ev;
}

static const kt_evaluator_ops flaky_ops = {
    .kind = "flaky",
    .evaluate = flaky_evaluate,
    .device = flaky_device,
    .environment = flaky_environment,
    .work = flaky_work,
    .close = flaky_close,
};

static void flaky_init(flaky *f)
{
    memset(f, 0, sizeof *f);
    f->base.ops = &flaky_ops;
    f->inner = replay;
}

static int setup(void **state)
{
    kt_err err;
    (void)state;
    if (tt_load_plugins(&reg))
        return -1;
    if (kt_registry_resolve(&reg, "vector_add:add", &plugin, &op, &err) ||
        kt_space_init(&space, NULL, op, &err) ||
        kt_replay_open(RECORDING, plugin, op, NULL, &replay, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    kt_space_bind(&space, kt_replay_sizes(replay), kt_replay_seed(replay),
                  replay->ops->device(replay));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (replay)
        replay->ops->close(replay);
    kt_space_free(&space);
    kt_registry_free(&reg);
    return 0;
}

static void config(const char *strategy, kt_evaluator *const *workers, size_t n,
                   kt_tune_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->op = op;
    cfg->space = &space;
    cfg->ev = workers[0];
    cfg->workers = workers;
    cfg->num_workers = n;
    tt_config_defaults(cfg, kt_strategy_find(strategy));
}

static void run(const kt_tune_config *cfg, kt_tune_result *out)
{
    kt_err err;
    if (kt_tune_run(cfg, out, &err) != KT_S_OK)
        fail_msg("%s: %s", cfg->strategy->name, err.msg);
}

/* The same points evaluated, in the same order, with the same verdicts,
 * and the same answer (refusals on the host are recorded as the batches
 * are filled, so their place among the entries may differ). */
static void assert_same_run(const kt_tune_result *a, const kt_tune_result *b)
{
    size_t i = 0, k = 0;
    kt_point pa, pb;
    assert_int_equal(a->evaluations, b->evaluations);
    assert_int_equal(a->host_invalid, b->host_invalid);
    for (;; ++i, ++k) {
        while (i < a->num_entries && a->entries[i].host_checked)
            ++i;
        while (k < b->num_entries && b->entries[k].host_checked)
            ++k;
        if (i == a->num_entries || k == b->num_entries)
            break;
        pa = kt_tune_entry_point(a, &a->entries[i]);
        pb = kt_tune_entry_point(b, &b->entries[k]);
        assert_true(kt_point_equal(&pa, &pb));
        assert_int_equal(a->entries[i].status, b->entries[k].status);
    }
    assert_true(a->has_best && b->has_best);
    assert_true(kt_point_equal(&a->finals[0].point, &b->finals[0].point));
}

static void simulated_workers_give_the_single_workers_answer(void **state)
{
    static const char *const same[] = {"exhaustive", "random"};
    kt_evaluator *one[1] = {replay};
    kt_evaluator *four[4] = {replay, replay, replay, replay};
    (void)state;
    for (size_t s = 0; s < 2; ++s) {
        kt_tune_config cfg;
        kt_tune_result a, b;
        config(same[s], one, 1, &cfg);
        run(&cfg, &a);
        config(same[s], four, 4, &cfg);
        run(&cfg, &b);
        assert_same_run(&a, &b);
        assert_int_equal(b.num_workers, 4);
        for (size_t w = 0; w < 4; ++w)
            assert_true(b.worker_stats[w].calls > 0);
        kt_tune_result_free(&a);
        kt_tune_result_free(&b);
    }
}

static void batching_strategies_find_the_same_optimum(void **state)
{
    static const char *const all[] = {"annealing", "genetic", "one_at_a_time"};
    kt_evaluator *one[1] = {replay};
    kt_evaluator *three[3] = {replay, replay, replay};
    (void)state;
    for (size_t s = 0; s < 3; ++s) {
        kt_tune_config cfg;
        kt_tune_result a, b;
        config(all[s], one, 1, &cfg);
        run(&cfg, &a);
        config(all[s], three, 3, &cfg);
        run(&cfg, &b);
        /* A small space with a clear optimum: both find it. */
        assert_true(a.has_best && b.has_best);
        if (!kt_point_equal(&a.finals[0].point, &b.finals[0].point))
            fail_msg("%s: 3 workers answered differently", all[s]);
        kt_tune_result_free(&a);
        kt_tune_result_free(&b);
    }
}

static void a_dying_worker_loses_its_call_not_the_run(void **state)
{
    kt_evaluator *one[1] = {replay};
    flaky f;
    kt_evaluator *two[3];
    kt_tune_config cfg;
    kt_tune_result a, b;
    (void)state;
    flaky_init(&f);
    f.die_at = 3;
    two[0] = replay;
    two[1] = &f.base;
    two[2] = replay;
    config("exhaustive", one, 1, &cfg);
    run(&cfg, &a);
    config("exhaustive", two, 3, &cfg);
    run(&cfg, &b);
    assert_same_run(&a, &b);
    assert_true(b.worker_stats[1].retired);
    assert_int_equal(b.worker_stats[1].lost, 1);
    assert_non_null(strstr(b.worker_stats[1].why, "simulated"));
    for (size_t i = 0; i < b.num_entries; ++i)
        assert_int_not_equal(b.entries[i].status, KT_EVAL_CRASH);
    kt_tune_result_free(&a);
    kt_tune_result_free(&b);
}

static void a_hanging_point_is_retried_once_elsewhere_then_marked(void **state)
{
    flaky slow, also;
    kt_evaluator *workers[2];
    kt_tune_config cfg;
    kt_tune_result r;
    size_t ok = 0, timed_out = 0;
    (void)state;
    /* Block 64 hangs on worker 1 only: the retry on worker 0 measures
     * it. */
    flaky_init(&slow);
    slow.hang_block = 64;
    workers[0] = replay;
    workers[1] = &slow.base;
    config("exhaustive", workers, 2, &cfg);
    run(&cfg, &r);
    for (size_t i = 0; i < r.num_entries; ++i) {
        const kt_tune_entry *e = &r.entries[i];
        const kt_point pt = kt_tune_entry_point(&r, e);
        if (pt.values[0] != 64 || e->host_checked)
            continue;
        assert_int_equal(e->status, kt_replay_lookup(replay, &pt)->status);
        ok += e->status == KT_EVAL_OK;
    }
    assert_true(ok > 0);
    assert_true(r.worker_stats[1].lost > 0);
    assert_false(r.worker_stats[1].retired);
    kt_tune_result_free(&r);
    /* Hangs everywhere: tried twice, then marked, and the run goes on. */
    flaky_init(&also);
    also.hang_block = 64;
    workers[0] = &also.base;
    config("exhaustive", workers, 2, &cfg);
    run(&cfg, &r);
    for (size_t i = 0; i < r.num_entries; ++i)
        if (kt_tune_entry_point(&r, &r.entries[i]).values[0] == 64) {
            ++timed_out;
            assert_int_equal(r.entries[i].status, KT_EVAL_TIMEOUT);
            assert_non_null(strstr(r.entries[i].reason, "before"));
        }
    assert_true(timed_out > 0);
    assert_true(r.has_best);
    kt_tune_result_free(&r);
}

static void a_run_without_any_worker_left_fails(void **state)
{
    flaky a, b;
    kt_evaluator *workers[2];
    kt_tune_config cfg;
    kt_tune_result r;
    kt_err err;
    (void)state;
    flaky_init(&a);
    flaky_init(&b);
    a.die_at = 2;
    b.die_at = 2;
    workers[0] = &a.base;
    workers[1] = &b.base;
    config("exhaustive", workers, 2, &cfg);
    assert_int_equal(kt_tune_run(&cfg, &r, &err), KT_S_CRASHED);
    assert_non_null(strstr(err.msg, "every worker stopped"));
    kt_tune_result_free(&r);
}

static json_t *header(void)
{
    json_t *env = replay->ops->environment(replay);
    kt_protocol p;
    kt_protocol_defaults(&p);
    return kt_journal_header(plugin, "vector_add:add", op,
                             kt_replay_sizes(replay), kt_replay_seed(replay),
                             &space, &p, json_object(), env);
}

static void
a_journal_of_several_workers_resumes_without_remeasuring(void **state)
{
    const char *path = "pool_resume.jsonl";
    kt_evaluator *three[3] = {replay, replay, replay};
    flaky counting;
    kt_evaluator *one[1];
    kt_journal j;
    kt_journal_log log;
    json_t *h = header();
    kt_tune_config cfg;
    kt_tune_result a, b;
    kt_err err;
    int env1, env2;
    (void)state;
    unlink(path);
    assert_int_equal(kt_journal_create(&j, path, h, &err), KT_S_OK);
    json_decref(h);
    assert_int_equal(kt_journal_environment(&j, json_object(), &env1, &err),
                     KT_S_OK);
    assert_int_equal(kt_journal_environment(&j, json_object(), &env2, &err),
                     KT_S_OK);
    {
        int envs[3] = {j.env, env1, env2};
        config("random", three, 3, &cfg);
        cfg.max_evals = 12;
        cfg.journal = &j;
        cfg.worker_envs = envs;
        run(&cfg, &a);
    }
    kt_journal_close(&j);
    assert_int_equal(kt_journal_read(path, op, &log, &err), KT_S_OK);
    assert_int_equal(log.num_envs, 3);
    /* Resumed on one worker: every call answered from the journal. */
    flaky_init(&counting);
    one[0] = &counting.base;
    config("random", one, 1, &cfg);
    cfg.max_evals = 12;
    cfg.resume = &log;
    run(&cfg, &b);
    assert_int_equal(counting.calls, 0);
    assert_int_equal(b.from_journal, b.evaluations);
    assert_same_run(&a, &b);
    kt_journal_log_free(&log);
    kt_tune_result_free(&a);
    kt_tune_result_free(&b);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(simulated_workers_give_the_single_workers_answer),
        cmocka_unit_test(batching_strategies_find_the_same_optimum),
        cmocka_unit_test(a_dying_worker_loses_its_call_not_the_run),
        cmocka_unit_test(a_hanging_point_is_retried_once_elsewhere_then_marked),
        cmocka_unit_test(a_run_without_any_worker_left_fails),
        cmocka_unit_test(
            a_journal_of_several_workers_resumes_without_remeasuring),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
