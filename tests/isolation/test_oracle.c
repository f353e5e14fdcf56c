// SPDX-License-Identifier: Apache-2.0
/* The oracle remembers what its child answered: the same question reaches
 * the child once and is answered again from memory, identically (check()'s
 * reason included); a different size, value, seed, variant, call or device
 * reaches it again; a crash is never remembered; and the memory stays
 * within its cap. Built twice: once as shipped, once with a memo whose
 * every key shares one hash, so that only the full comparison of keys
 * tells questions apart. Questions asked many at once (kt_oracle_prefetch)
 * are answered as one at a time would be, and one that crashes or hangs
 * there is reported once, by its ask; a registry's isolated plugin asks
 * them so through the prefetch its kind handed with it
 * (kt_call_shape_prefetch), each later kt_call_shape from memory. */
#include "tests/kt_test.h"

#include <stdio.h>

#include "core/feasible.h"
#include "core/loader.h"
#include "isolation/oracle.h"
#include "isolation/oracle_memo.h"

static char path_buf[4096];

static const char *fixture(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s", KT_TEST_PLUGIN_DIR, name);
    return path_buf;
}

/* good_plugin.so's operator "scale": variant 0 "tiled" (block, unroll,
 * pad, layout; check() refuses block x unroll > 2048), variant 1 "plain"
 * (block). */
typedef struct question {
    kt_oracle_call call;
    uint32_t variant;
    int64_t n;
    uint64_t seed;
    int64_t values[4];
    uint32_t count;
    int sm_count;
    const char *device_name;
} question;

static question tiled(int64_t n, int64_t block, int64_t unroll)
{
    question q = {KT_ORACLE_SHAPE,       0, n,   1,
                  {block, unroll, 4, 1}, 4, 132, "NVIDIA H200"};
    return q;
}

static kt_problem problem_of(const question *q, kt_device *dev)
{
    kt_problem prob = {sizeof prob, 1, &q->n, q->seed, dev};
    memset(dev, 0, sizeof *dev);
    dev->struct_size = sizeof *dev;
    dev->sm_count = q->sm_count;
    dev->max_threads_per_block = 1024;
    dev->name = q->device_name;
    return prob;
}

static kt_status ask(kt_oracle *o, const question *q, kt_oracle_answer *a)
{
    kt_device dev;
    kt_problem prob = problem_of(q, &dev);
    kt_config cfg = {sizeof cfg, q->count, q->values, NULL};
    kt_err err;
    return kt_oracle_ask(o, q->call, 0, q->variant, &prob,
                         q->call == KT_ORACLE_SHAPE ? &cfg : NULL, a, &err);
}

static kt_oracle_stats stats(const kt_oracle *o)
{
    kt_oracle_stats s;
    kt_oracle_stats_get(o, &s);
    return s;
}

static void same_answer(const kt_oracle_answer *x, const kt_oracle_answer *y)
{
    assert_int_equal(x->check_rc, y->check_rc);
    assert_int_equal(x->rc, y->rc);
    assert_string_equal(x->why, y->why);
    assert_memory_equal(x->shape.grid, y->shape.grid, sizeof x->shape.grid);
    assert_memory_equal(x->shape.block, y->shape.block, sizeof x->shape.block);
    assert_int_equal(x->shape.dynamic_smem_bytes, y->shape.dynamic_smem_bytes);
    assert_true(x->work.bytes_read == y->work.bytes_read);
    assert_true(x->work.bytes_written == y->work.bytes_written);
    assert_true(x->work.flops == y->work.flops);
}

static void the_same_question_reaches_the_child_once(void **state)
{
    kt_oracle *o = kt_oracle_new(fixture("good_plugin.so"), 10000);
    question refused = tiled(1000, 1024, 4), shaped = tiled(1000, 128, 2);
    question work = {KT_ORACLE_WORK, 0, 1000, 1, {0}, 0, 132, "NVIDIA H200"};
    kt_oracle_answer a, b;
    (void)state;

    assert_non_null(o);
    assert_int_equal(ask(o, &refused, &a), KT_S_OK);
    assert_int_equal(a.check_rc, KT_INVALID);
    assert_string_equal(a.why, "block x unroll > 2048");
    assert_int_equal(ask(o, &refused, &b), KT_S_OK);
    same_answer(&a, &b);
    assert_int_equal(stats(o).asked, 2);
    assert_int_equal(stats(o).from_memory, 1);

    assert_int_equal(ask(o, &shaped, &a), KT_S_OK);
    assert_int_equal(a.check_rc, KT_OK);
    assert_int_equal(a.shape.grid[0], 8); /* 1000 elements, 128 a block */
    assert_int_equal(a.shape.block[0], 128);
    assert_int_equal(ask(o, &shaped, &b), KT_S_OK);
    same_answer(&a, &b);
    assert_int_equal(ask(o, &work, &a), KT_S_OK);
    assert_true(a.work.bytes_read == 4000.0);
    assert_int_equal(ask(o, &work, &b), KT_S_OK);
    same_answer(&a, &b);
    assert_int_equal(stats(o).asked, 6);
    assert_int_equal(stats(o).from_memory, 3);
    assert_true(stats(o).memo_bytes > 0);
    assert_true(stats(o).memo_bytes <= KT_ORACLE_MEMO_BYTES);
    kt_oracle_free(o);
}

/* Each question differs from base in one thing the child reads. */
static void a_different_question_reaches_the_child_again(void **state)
{
    kt_oracle *o = kt_oracle_new(fixture("good_plugin.so"), 10000);
    question base = tiled(1000, 128, 2), q[8];
    kt_oracle_answer a;
    (void)state;

    for (size_t i = 0; i < 8; ++i)
        q[i] = base;
    q[0].n = 2000;
    q[1].values[0] = 256;
    q[2].values[3] = 0;
    q[3].seed = 2;
    q[4].sm_count = 78;
    q[5].device_name = "NVIDIA H100";
    q[6].variant = 1;
    q[6].count = 1;
    q[7].call = KT_ORACLE_WORK;
    q[7].count = 0;
    assert_int_equal(ask(o, &base, &a), KT_S_OK);
    for (size_t i = 0; i < 8; ++i) {
        assert_int_equal(ask(o, &q[i], &a), KT_S_OK);
        assert_int_equal(stats(o).from_memory, 0);
    }
    /* And each answer is its own question's, not base's. */
    assert_int_equal(ask(o, &q[0], &a), KT_S_OK);
    assert_int_equal(a.shape.grid[0], 16);
    assert_int_equal(ask(o, &q[1], &a), KT_S_OK);
    assert_int_equal(a.shape.grid[0], 4);
    assert_int_equal(ask(o, &q[6], &a), KT_S_OK);
    assert_int_equal(a.shape.block[0], 128);
    assert_int_equal(ask(o, &q[7], &a), KT_S_OK);
    assert_true(a.work.bytes_read == 4000.0);
    assert_int_equal(stats(o).from_memory, 4);
    kt_oracle_free(o);
}

static void a_crash_is_never_remembered(void **state)
{
    kt_oracle *o = kt_oracle_new(fixture("hostile_shape_fault.so"), 10000);
    question q = tiled(1000, 128, 2);
    kt_oracle_answer a;
    (void)state;

    assert_int_equal(ask(o, &q, &a), KT_S_PLUGIN);
    assert_int_equal(ask(o, &q, &a), KT_S_PLUGIN);
    assert_int_equal(stats(o).asked, 2);
    assert_int_equal(stats(o).from_memory, 0);
    assert_int_equal(stats(o).memo_bytes, 0);
    kt_oracle_free(o);
}

/* A space of many points: the memo empties itself rather than grow past
 * its cap, and answers stay right. */
static void the_memo_stays_within_its_cap(void **state)
{
    kt_oracle *o = kt_oracle_new(fixture("good_plugin.so"), 10000);
    kt_oracle_answer a;
    (void)state;

    assert_int_equal(kt_oracle_set_memo_bytes(o, 16 << 10), 0);
    for (int64_t n = 1; n <= 600; ++n) {
        question q = tiled(n, 64, 1);
        assert_int_equal(ask(o, &q, &a), KT_S_OK);
        assert_int_equal(a.shape.grid[0], (n + 63) / 64);
        assert_true(stats(o).memo_bytes <= 16 << 10);
    }
    assert_true(stats(o).emptied > 0);
    assert_int_equal(stats(o).from_memory, 0);
    {
        question last = tiled(600, 64, 1), first = tiled(1, 64, 1);
        assert_int_equal(ask(o, &last, &a), KT_S_OK);
        assert_int_equal(stats(o).from_memory, 1);
        assert_int_equal(ask(o, &first, &a), KT_S_OK); /* forgotten */
        assert_int_equal(stats(o).from_memory, 1);
        assert_int_equal(a.shape.grid[0], 1);
    }
    /* 0: nothing is remembered. */
    assert_int_equal(kt_oracle_set_memo_bytes(o, 0), 0);
    for (int i = 0; i < 3; ++i) {
        question q = tiled(1000, 128, 2);
        assert_int_equal(ask(o, &q, &a), KT_S_OK);
    }
    assert_int_equal(stats(o).from_memory, 1);
    assert_int_equal(stats(o).memo_bytes, 0);
    kt_oracle_free(o);
}

/* 6 x 3 tiled points (block x unroll), some of them refused by check(). */
static size_t tiled_points(kt_point *pts)
{
    static const int64_t unrolls[] = {1, 2, 4};
    size_t n = 0;
    for (int64_t block = 32; block <= 1024; block *= 2)
        for (size_t u = 0; u < 3; ++u) {
            kt_point p = {0, 4, {block, unrolls[u], 4, 1}};
            pts[n++] = p;
        }
    return n;
}

/* Many questions in one exchange: each answered later from memory, as the
 * child answers it one at a time. */
static void prefetched_points_are_answered_from_memory(void **state)
{
    kt_oracle *o = kt_oracle_new(fixture("good_plugin.so"), 10000);
    kt_oracle *plain = kt_oracle_new(fixture("good_plugin.so"), 10000);
    question base = tiled(1000, 0, 0);
    kt_point pts[18];
    size_t n = tiled_points(pts);
    kt_device dev;
    kt_problem prob = problem_of(&base, &dev);
    (void)state;

    kt_oracle_prefetch(o, KT_ORACLE_SHAPE, 0, &prob, pts, n);
    assert_int_equal(stats(o).sent, n);
    kt_oracle_prefetch(o, KT_ORACLE_SHAPE, 0, &prob, pts, n); /* known */
    assert_int_equal(stats(o).sent, n);
    for (size_t i = 0; i < n; ++i) {
        question q = tiled(1000, pts[i].values[0], pts[i].values[1]);
        kt_oracle_answer a, b;
        assert_int_equal(ask(o, &q, &a), KT_S_OK);
        assert_int_equal(ask(plain, &q, &b), KT_S_OK);
        same_answer(&a, &b);
    }
    assert_int_equal(stats(o).from_memory, n);
    assert_int_equal(stats(o).sent, n);
    assert_int_equal(stats(plain).sent, n);
    kt_oracle_free(o);
    kt_oracle_free(plain);
}

/* Through the loader: an isolated plugin's points prefetched at once
 * (kt_call_shape_prefetch, as a space's count does) reach its child in
 * that exchange, and the kt_call_shape of each that follows (here by
 * kt_point_feasible) is answered from memory, the same verdict as a
 * plugin asked one point at a time. */
static void
an_isolated_plugins_points_are_prefetched_through_the_loader(void **state)
{
    kt_registry reg, plain;
    const kt_loaded_plugin *lp, *lq;
    const kt_operator *op, *oq;
    question base = tiled(1000, 0, 0);
    kt_point pts[18];
    size_t n = tiled_points(pts);
    kt_device dev;
    kt_problem prob = problem_of(&base, &dev);
    kt_oracle_stats st;
    kt_err err;
    (void)state;

    kt_registry_init(&reg);
    kt_registry_init(&plain);
    reg.isolated = plain.isolated = 1;
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("good_plugin.so"), &err), KT_S_OK);
    assert_int_equal(
        kt_registry_load_file(&plain, fixture("good_plugin.so"), &err),
        KT_S_OK);
    assert_int_equal(kt_registry_resolve(&reg, "good:scale", &lp, &op, &err),
                     KT_S_OK);
    assert_int_equal(kt_registry_resolve(&plain, "good:scale", &lq, &oq, &err),
                     KT_S_OK);
    assert_non_null(lp->prefetch);
    kt_call_shape_prefetch(lp, op, &prob, pts, n);
    kt_oracle_stats_get(kt_oracle_of(lp), &st);
    assert_int_equal(st.sent, n);
    assert_int_equal(st.asked, 0);
    for (size_t i = 0; i < n; ++i) {
        kt_status a = kt_point_feasible(lp, op, &prob, &pts[i], NULL, &err);
        kt_status b = kt_point_feasible(lq, oq, &prob, &pts[i], NULL, &err);
        assert_int_equal(a, b);
    }
    /* Check and shape are two asks of one question: every ask from
     * memory here, the first of each point's there. */
    kt_oracle_stats_get(kt_oracle_of(lp), &st);
    assert_int_equal(st.sent, n);
    assert_true(st.asked >= n);
    assert_int_equal(st.from_memory, st.asked);
    kt_oracle_stats_get(kt_oracle_of(lq), &st);
    assert_int_equal(st.sent, n);
    assert_int_equal(st.from_memory, st.asked - n);
    kt_registry_free(&reg);
    kt_registry_free(&plain);
}

/* Prefetches the tiled points, then asks the first of them (the one the
 * prefetch ended on): its failure is reported, naming want, without asking
 * the child again. The questions sent so far. */
static uint64_t prefetch_then_ask_the_first(kt_oracle *o, const char *want)
{
    question first = tiled(1000, 32, 1);
    kt_point pts[18];
    size_t n = tiled_points(pts);
    kt_device dev;
    kt_problem prob = problem_of(&first, &dev);
    kt_config cfg = {sizeof cfg, 4, first.values, NULL};
    kt_oracle_answer a;
    uint64_t sent;
    kt_err err;

    kt_oracle_prefetch(o, KT_ORACLE_SHAPE, 0, &prob, pts, n);
    sent = stats(o).sent;
    assert_true(sent > 0);
    assert_int_equal(
        kt_oracle_ask(o, KT_ORACLE_SHAPE, 0, 0, &prob, &cfg, &a, &err),
        KT_S_PLUGIN);
    assert_contains(err.msg, "check()/shape()");
    assert_contains(err.msg, want);
    assert_int_equal(stats(o).sent, sent); /* told, not asked again */
    return sent;
}

/* The question a prefetch ended on is reported by its ask, without a
 * second crash; the prefetch stopped there. */
static void a_prefetch_that_crashes_is_reported_by_the_ask(void **state)
{
    kt_oracle *o = kt_oracle_new(fixture("hostile_shape_fault.so"), 10000);
    question first = tiled(1000, 32, 1), second = tiled(1000, 32, 2);
    kt_oracle_answer a;
    uint64_t sent;
    (void)state;

    sent = prefetch_then_ask_the_first(o, "killed by signal 11");
    assert_int_equal(ask(o, &second, &a), KT_S_PLUGIN);
    assert_int_equal(stats(o).sent, sent + 1);
    /* Three crashes in all: no more questions. */
    assert_int_equal(ask(o, &first, &a), KT_S_PLUGIN);
    assert_int_equal(stats(o).sent, sent + 2);
    assert_int_equal(ask(o, &first, &a), KT_S_PLUGIN);
    assert_int_equal(stats(o).sent, sent + 2);
    assert_int_equal(stats(o).memo_bytes, 0);
    kt_oracle_free(o);
}

/* A hang costs its time limit once: the ask of the question it hung on
 * answers at once. */
static void a_prefetch_that_hangs_is_reported_by_the_ask(void **state)
{
    kt_oracle *o = kt_oracle_new(fixture("hostile_shape_hang.so"), 300);
    (void)state;

    prefetch_then_ask_the_first(o, "did not return within");
    kt_oracle_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_same_question_reaches_the_child_once),
        cmocka_unit_test(a_different_question_reaches_the_child_again),
        cmocka_unit_test(a_crash_is_never_remembered),
        cmocka_unit_test(the_memo_stays_within_its_cap),
        cmocka_unit_test(prefetched_points_are_answered_from_memory),
        cmocka_unit_test(
            an_isolated_plugins_points_are_prefetched_through_the_loader),
        cmocka_unit_test(a_prefetch_that_crashes_is_reported_by_the_ask),
        cmocka_unit_test(a_prefetch_that_hangs_is_reported_by_the_ask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
