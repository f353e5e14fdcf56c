// SPDX-License-Identifier: Apache-2.0
/* The replay evaluator finds each point it is asked about as a scan of the
 * recording would: for every point of the space and every recorded one,
 * the answer is the point's first single-point measurement (else its first
 * record), and a point the recording lacks is "not recorded". Built twice:
 * once as shipped, once with four hash buckets for all points, so that
 * every lookup walks a chain of colliding points. */
#include "records/journal.h"
#include "records/replay.h"
#include "records/space.h"

#include "tests/tuner/tuner_test.h"

/* The tuner tests' plugins, and gemv and reduce for their recordings. */
static int setup(void **state)
{
    kt_err err;
    if (tt_setup(state))
        return -1;
    if (kt_registry_load_file(&tt_reg, KT_BUILTIN_PLUGIN_DIR "/gemv.so",
                              &err) ||
        kt_registry_load_file(&tt_reg, KT_BUILTIN_PLUGIN_DIR "/reduce.so",
                              &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

/* What a scan of the recording answers for pt. */
static const kt_eval_result *scanned(const kt_journal_log *log,
                                     const kt_point *pt)
{
    const kt_eval_result *any = NULL;
    for (size_t i = 0; i < log->count; ++i) {
        const kt_journal_entry *e = &log->entries[i];
        if (!kt_point_equal(&e->point, pt))
            continue;
        if (strcmp(e->purpose, "measure") == 0)
            return &e->result;
        if (!any)
            any = &e->result;
    }
    return any;
}

static void same_result(const kt_eval_result *want, const kt_eval_result *got)
{
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_int_equal(got->status, want->status);
    assert_string_equal(got->reason, want->reason);
    assert_int_equal(got->timing.kernel.n, want->timing.kernel.n);
    assert_true(got->timing.kernel.median == want->timing.kernel.median);
}

static size_t distinct_points(const kt_journal_log *log)
{
    size_t n = 0;
    for (size_t i = 0; i < log->count; ++i) {
        size_t j = 0;
        while (j < i &&
               !kt_point_equal(&log->entries[j].point, &log->entries[i].point))
            ++j;
        n += j == i;
    }
    return n;
}

/* The recording name of tests/data, its operator's space (unbound) and
 * its replay evaluator (close with ev->ops->close). */
static void open_recording(const char *name, char *path, size_t size,
                           const kt_operator **op, kt_space *space,
                           kt_evaluator **ev)
{
    const kt_loaded_plugin *plugin;
    json_t *head = NULL;
    char spec[256];
    kt_err err;

    snprintf(path, size, "%s/%s", TT_DATA_DIR, name);
    assert_int_equal(kt_journal_read_header(path, &head, &err), KT_S_OK);
    snprintf(spec, sizeof spec, "%s:%s",
             json_string_value(
                 json_object_get(json_object_get(head, "plugin"), "name")),
             json_string_value(json_object_get(head, "operator")));
    json_decref(head);
    assert_int_equal(kt_registry_resolve(&tt_reg, spec, &plugin, op, &err),
                     KT_S_OK);
    assert_int_equal(kt_space_init(space, NULL, *op, &err), KT_S_OK);
    assert_int_equal(kt_replay_open(path, plugin, *op, NULL, ev, &err),
                     KT_S_OK);
}

static void check_recording(const char *name)
{
    char path[4096];
    const kt_operator *op;
    kt_evaluator *ev = NULL;
    kt_journal_log log;
    kt_space space;
    kt_err err;

    open_recording(name, path, sizeof path, &op, &space, &ev);
    assert_int_equal(kt_journal_read(path, op, &log, &err), KT_S_OK);
#ifdef KT_REPLAY_HASH_MASK
    /* More points than buckets: some of them must share one. */
    assert_true(distinct_points(&log) > KT_REPLAY_HASH_MASK + 1);
#else
    assert_true(distinct_points(&log) > 4);
#endif
    for (size_t i = 0; i < log.count; ++i)
        same_result(scanned(&log, &log.entries[i].point),
                    kt_replay_lookup(ev, &log.entries[i].point));
    for (uint64_t i = 0; i < space.size; ++i) {
        kt_point pt;
        kt_space_point(&space, i, &pt);
        same_result(scanned(&log, &pt), kt_replay_lookup(ev, &pt));
    }
    kt_journal_log_free(&log);
    ev->ops->close(ev);
    kt_space_free(&space);
}

/* The fastest recorded valid point of space, by a walk of every point of
 * the space (lowest index first among equal times): what the replay's
 * optimum was before it walked the recorded points alone. */
static int walked_optimum(const kt_evaluator *ev, const kt_space *space,
                          kt_point *best)
{
    double best_us = 0;
    int found = 0;
    for (uint64_t i = 0; i < space->size; ++i) {
        kt_point pt;
        const kt_eval_result *r;
        kt_space_point(space, i, &pt);
        r = kt_replay_lookup(ev, &pt);
        if (!r || r->status != KT_EVAL_OK ||
            kt_space_feasible(space, &pt, NULL) != KT_S_OK)
            continue;
        if (!found || r->timing.kernel.median < best_us) {
            *best = pt;
            best_us = r->timing.kernel.median;
            found = 1;
        }
    }
    return found;
}

/* The recorded optimum walks the recorded points only, so a sample of a
 * space of millions has one (the hub hotspot's 5,000-point sample had
 * none: its space was too large to walk); it is the point a walk of the
 * whole space finds, ties included. */
static void the_optimum_is_the_one_a_walk_of_the_space_finds(void **state)
{
    const char *names[] = {"reduce-h200-n268435456.jsonl.gz",
                           "gemv_ax-synthetic-m1024-n1024.jsonl.gz",
                           "good-synthetic.jsonl",
                           "vector_add-h200-n16777216.jsonl"};
    (void)state;
    for (size_t k = 0; k < sizeof names / sizeof *names; ++k) {
        char path[4096];
        const kt_operator *op;
        kt_evaluator *ev = NULL;
        kt_point want, got;
        kt_stats stats;
        kt_space space;
        kt_err err;
        open_recording(names[k], path, sizeof path, &op, &space, &ev);
        kt_space_bind(&space, kt_replay_sizes(ev), kt_replay_seed(ev),
                      ev->ops->device(ev));
        assert_true(walked_optimum(ev, &space, &want));
        assert_int_equal(kt_replay_optimum(ev, &space, &got, &stats, &err),
                         KT_S_OK);
        if (!kt_point_equal(&want, &got))
            fail_msg("%s: the recorded points' optimum is not the walk's",
                     names[k]);
        ev->ops->close(ev);
        kt_space_free(&space);
    }
}

static void every_point_is_found_as_a_scan_finds_it(void **state)
{
    (void)state;
    check_recording("reduce-h200-n268435456.jsonl.gz");
    check_recording("gemv_ax-synthetic-m1024-n1024.jsonl.gz");
    check_recording("good-synthetic.jsonl");
    check_recording("vector_add-h200-n16777216.jsonl");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_point_is_found_as_a_scan_finds_it),
        cmocka_unit_test(the_optimum_is_the_one_a_walk_of_the_space_finds),
    };
    return cmocka_run_group_tests(tests, setup, tt_teardown);
}
