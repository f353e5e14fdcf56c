// SPDX-License-Identifier: Apache-2.0
/* The basics without a GPU: saxpy, matrix_add, copy and empty load, account
 * for their work (the empty kernel's zero bytes give a bandwidth of 0, not
 * NaN or infinity), and every point has a launch shape that covers the
 * problem at odd sizes, or a reason why not. */
#include "tests/kt_test.h"

#include <math.h>

#include "core/derive.h"
#include "tests/plugins/plugin_test.h"

static kt_registry reg;

static int load(void **state)
{
    (void)state;
    kt_registry_init(&reg);
    kt_load_builtin(&reg, "saxpy");
    kt_load_builtin(&reg, "matrix_add");
    kt_load_builtin(&reg, "copy");
    kt_load_builtin(&reg, "empty");
    return 0;
}

static int unload(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static kt_work work_at(const kt_operator *op, int64_t a, int64_t b)
{
    kt_device dev = kt_test_h200();
    int64_t sizes[2] = {a, b};
    kt_problem p = kt_problem_at(op, sizes, &dev);
    kt_work w;
    memset(&w, 0, sizeof w);
    assert_int_equal(op->work(&p, &w), KT_OK);
    return w;
}

static void descriptors_and_work(void **state)
{
    const kt_operator *saxpy = kt_find_op(&reg, "saxpy:saxpy");
    const kt_operator *madd = kt_find_op(&reg, "matrix_add:add");
    const kt_operator *copy = kt_find_op(&reg, "copy:copy");
    const kt_operator *empty = kt_find_op(&reg, "empty:launch");
    kt_work w;
    (void)state;

    /* saxpy writes its input y: the host must restore it before every
     * timed launch. */
    assert_true(saxpy->flags & KT_OP_MODIFIES_INPUTS);
    assert_non_null(saxpy->reset);
    assert_string_equal(saxpy->variants[0].id, "grid_stride");
    w = work_at(saxpy, 1000, 0);
    assert_true(w.bytes_read == 8000.0 && w.bytes_written == 4000.0 &&
                w.flops == 2000.0);

    assert_int_equal(madd->num_variants, 2);
    assert_string_equal(madd->variants[0].id, "x_cols");
    assert_string_equal(madd->variants[1].id, "x_rows");
    w = work_at(madd, 3, 7);
    assert_true(w.bytes_read == 8.0 * 21 && w.bytes_written == 4.0 * 21 &&
                w.flops == 21.0);

    assert_int_equal(copy->variants[kt_find_variant(copy, "memcpy")].num_params,
                     0);
    w = work_at(copy, 1000, 0);
    assert_true(w.bytes_read == 4000.0 && w.bytes_written == 4000.0 &&
                w.flops == 0.0);

    w = work_at(empty, 1, 0);
    assert_true(w.bytes_read == 0.0 && w.bytes_written == 0.0 &&
                w.flops == 0.0);
}

static void zero_work_gives_zero_bandwidth_not_nan(void **state)
{
    const kt_operator *empty = kt_find_op(&reg, "empty:launch");
    kt_work w = work_at(empty, 1 << 20, 0);
    kt_derived d;
    (void)state;
    kt_derive(&w, 6.7, 4185.0, 4814.0, &d);
    assert_true(d.seconds > 0);
    assert_true(d.bandwidth_gbs == 0.0 && isfinite(d.bandwidth_gbs));
    assert_true(d.pct_of_copy == 0.0 && d.pct_of_peak == 0.0);
    assert_true(d.gflops == 0.0 && d.intensity == 0.0);
}

/* ------------------------------------------------------------ shapes */

typedef struct walk {
    const kt_operator *op;
    kt_problem problem;
    int64_t a, b; /* n, or m and n */
    size_t feasible, refused;
} walk;

static int64_t value_of(const kt_operator *op, const kt_point *pt,
                        const char *name)
{
    return pt->values[kt_param_index(op, pt, name)];
}

static void check_1d(const walk *w, const kt_point *pt, const kt_shape *s,
                     const char *shown)
{
    const char *id = w->op->variants[pt->variant].id;
    uint64_t n = (uint64_t)w->a, block = s->block[0];
    if (!strcmp(id, "memcpy")) {
        assert_null(s->kernel);
        return;
    }
    assert_non_null(s->kernel);
    assert_int_equal(block, value_of(w->op, pt, "block"));
    /* saxpy's vec4 is a grid-stride loop too. */
    if (!strcmp(id, "grid_stride") ||
        (!strcmp(w->op->id, "saxpy") && !strcmp(id, "vec4"))) {
        assert_int_equal(s->grid[0],
                         value_of(w->op, pt, "blocks_per_sm") * 132);
        return;
    }
    if (!strcmp(id, "vec4")) {
        /* copy: items float4s per thread; threads enough for the tail. */
        uint64_t tile = block * (uint64_t)value_of(w->op, pt, "items");
        uint64_t need = (n / 4 + tile - 1) / tile;
        if (need * block < n % 4)
            need = (n % 4 + block - 1) / block;
        if (s->grid[0] != (need ? need : 1))
            fail_msg("%s at n=%llu: grid %u", shown, (unsigned long long)n,
                     s->grid[0]);
        return;
    }
    /* One element (or one thread, for empty) per thread. */
    if ((uint64_t)s->grid[0] * block < n ||
        ((uint64_t)s->grid[0] - 1) * block >= n)
        fail_msg("%s at n=%llu: grid %u x %llu does not just cover n", shown,
                 (unsigned long long)n, s->grid[0], (unsigned long long)block);
}

static void check_2d(const walk *w, const kt_point *pt, const kt_shape *s,
                     const char *shown)
{
    const char *id = w->op->variants[pt->variant].id;
    uint64_t bx = (uint64_t)value_of(w->op, pt, "block_x");
    uint64_t by = (uint64_t)value_of(w->op, pt, "block_y");
    /* x_cols: x over columns (n), y over rows (m); x_rows swapped. */
    uint64_t along_x = (uint64_t)(strcmp(id, "x_cols") ? w->a : w->b);
    uint64_t along_y = (uint64_t)(strcmp(id, "x_cols") ? w->b : w->a);
    uint64_t gy = (along_y + by - 1) / by;
    assert_int_equal(s->block[0], bx);
    assert_int_equal(s->block[1], by);
    if (s->grid[0] != (along_x + bx - 1) / bx ||
        s->grid[1] != (gy < 65535 ? gy : 65535))
        fail_msg("%s at m=%lld n=%lld: grid (%u, %u)", shown, (long long)w->a,
                 (long long)w->b, s->grid[0], s->grid[1]);
}

static void check_point(const kt_point *pt, void *ctx)
{
    walk *w = ctx;
    kt_shape s;
    kt_err err;
    char shown[256];
    kt_status rc = kt_point_feasible(NULL, w->op, &w->problem, pt, &s, &err);
    kt_point_format(w->op, pt, shown, sizeof shown);
    if (rc == KT_S_INVALID) {
        assert_true(err.msg[0] != '\0');
        ++w->refused;
        return;
    }
    if (rc != KT_S_OK)
        fail_msg("%s: %s", shown, err.msg);
    ++w->feasible;
    if (w->op->num_sizes == 2)
        check_2d(w, pt, &s, shown);
    else
        check_1d(w, pt, &s, shown);
}

static void walk_op(const char *spec, int64_t a, int64_t b, size_t *feasible,
                    size_t *refused)
{
    kt_device dev = kt_test_h200();
    int64_t sizes[2] = {a, b};
    walk w;
    memset(&w, 0, sizeof w);
    w.op = kt_find_op(&reg, spec);
    w.problem = kt_problem_at(w.op, sizes, &dev);
    w.a = a;
    w.b = b;
    for (uint32_t v = 0; v < w.op->num_variants; ++v) {
        kt_point def;
        kt_err err;
        kt_for_each_point(w.op, v, check_point, &w);
        kt_point_default(w.op, v, &def);
        if (kt_point_feasible(NULL, w.op, &w.problem, &def, NULL, &err))
            fail_msg("%s %s default: %s", spec, w.op->variants[v].id, err.msg);
    }
    *feasible += w.feasible;
    *refused += w.refused;
}

static void every_point_covers_odd_sizes(void **state)
{
    static const int64_t n1[] = {1, 3, 33, 1025, 65537, 1 << 28};
    static const int64_t mn[][2] = {{1, 1},     {1, 33},     {33, 1},
                                    {3, 5},     {257, 1023}, {70000, 3},
                                    {3, 70000}, {8192, 8192}};
    size_t feasible = 0, refused = 0;
    (void)state;
    for (size_t i = 0; i < sizeof n1 / sizeof *n1; ++i) {
        walk_op("saxpy:saxpy", n1[i], 0, &feasible, &refused);
        walk_op("copy:copy", n1[i], 0, &feasible, &refused);
        walk_op("empty:launch", n1[i], 0, &feasible, &refused);
    }
    for (size_t i = 0; i < sizeof mn / sizeof *mn; ++i)
        walk_op("matrix_add:add", mn[i][0], mn[i][1], &feasible, &refused);
    printf("%zu feasible points checked, %zu refused with a reason\n", feasible,
           refused);
    assert_true(feasible > 500);
    assert_true(refused > 0);
}

static void matrix_add_blocks_are_whole_warps_within_the_limit(void **state)
{
    const kt_operator *op = kt_find_op(&reg, "matrix_add:add");
    kt_device dev = kt_test_h200();
    int64_t sizes[2] = {100, 100};
    kt_problem p = kt_problem_at(op, sizes, &dev);
    kt_point pt;
    kt_err err;
    (void)state;
    kt_point_default(op, 1, &pt);
    kt_point_put(op, &pt, "block_x", 4);
    kt_point_put(op, &pt, "block_y", 4);
    assert_int_equal(kt_point_feasible(NULL, op, &p, &pt, NULL, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "16 threads, less than one warp");
    kt_point_put(op, &pt, "block_x", 64);
    kt_point_put(op, &pt, "block_y", 32);
    assert_int_equal(kt_point_feasible(NULL, op, &p, &pt, NULL, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "block of 2048 threads > device limit 1024");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptors_and_work),
        cmocka_unit_test(zero_work_gives_zero_bandwidth_not_nan),
        cmocka_unit_test(every_point_covers_odd_sizes),
        cmocka_unit_test(matrix_add_blocks_are_whole_warps_within_the_limit),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
