// SPDX-License-Identifier: Apache-2.0
/* gemv without a GPU: the descriptor loads and names the variants the issue
 * asks for, the work is the algorithm's, and every point of every variant
 * either has a launch shape that covers the problem (at odd sizes, at the
 * issue's shapes, at extremes) or is refused with a reason. */
#include "tests/kt_test.h"

#include "tests/plugins/plugin_test.h"

static kt_registry reg;
static const kt_operator *ax, *atx;

static int load(void **state)
{
    (void)state;
    kt_registry_init(&reg);
    kt_load_builtin(&reg, "gemv");
    ax = kt_find_op(&reg, "gemv:ax");
    atx = kt_find_op(&reg, "gemv:atx");
    return 0;
}

static int unload(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static void assert_variants(const kt_operator *op, const char *const *ids,
                            size_t n)
{
    assert_int_equal(op->num_variants, n);
    for (size_t i = 0; i < n; ++i)
        assert_string_equal(op->variants[i].id, ids[i]);
}

static void descriptor_has_both_layouts_and_the_cublas_reference(void **state)
{
    static const char *const ax_ids[] = {"vec4", "thread_row", "warp_row",
                                         "block_rows", "cublas"};
    static const char *const atx_ids[] = {"vec4",
                                          "thread_col",
                                          "warp_col",
                                          "col_split_atomic",
                                          "col_split_2pass",
                                          "cublas"};
    (void)state;
    assert_variants(ax, ax_ids, sizeof ax_ids / sizeof *ax_ids);
    assert_variants(atx, atx_ids, sizeof atx_ids / sizeof *atx_ids);
    for (int o = 0; o < 2; ++o) {
        const kt_operator *op = o ? atx : ax;
        assert_int_equal(op->num_sizes, 2);
        assert_string_equal(op->sizes[0].name, "m");
        assert_string_equal(op->sizes[1].name, "n");
        assert_int_equal(op->sizes[0].min, 1);
        assert_int_equal(op->sizes[1].min, 1);
        assert_int_equal(op->flags, 0);
    }
    /* The tunables the issue names. */
    {
        kt_point pt;
        kt_point_default(ax, kt_find_variant(ax, "vec4"), &pt);
        kt_param_index(ax, &pt, "block");
        kt_param_index(ax, &pt, "threads_per_row");
        kt_param_index(ax, &pt, "rows_per_thread");
        kt_param_index(ax, &pt, "unroll");
        kt_param_index(ax, &pt, "split");
        kt_point_default(ax, kt_find_variant(ax, "block_rows"), &pt);
        kt_param_index(ax, &pt, "rows_per_block");
        kt_point_default(atx, kt_find_variant(atx, "vec4"), &pt);
        kt_param_index(atx, &pt, "split");
        kt_param_index(atx, &pt, "unroll");
        kt_point_default(atx, kt_find_variant(atx, "col_split_2pass"), &pt);
        kt_param_index(atx, &pt, "split");
    }
}

static void work_counts_a_once_and_both_vectors(void **state)
{
    kt_device dev = kt_test_h200();
    int64_t sizes[2] = {3, 5};
    kt_problem p = kt_problem_at(ax, sizes, &dev);
    kt_work w;
    (void)state;
    memset(&w, 0, sizeof w);
    assert_int_equal(ax->work(&p, &w), KT_OK);
    assert_true(w.bytes_read == 4.0 * (15 + 5)); /* A and x (n) */
    assert_true(w.bytes_written == 4.0 * 3);     /* y (m) */
    assert_true(w.flops == 2.0 * 15);
    assert_int_equal(atx->work(&p, &w), KT_OK);
    assert_true(w.bytes_read == 4.0 * (15 + 3)); /* A and x (m) */
    assert_true(w.bytes_written == 4.0 * 5);     /* y (n) */
    assert_true(w.flops == 2.0 * 15);
    /* The decisive shape: 1 GiB of A dominates. */
    sizes[0] = sizes[1] = 16384;
    assert_int_equal(ax->work(&p, &w), KT_OK);
    assert_true(w.bytes_read == 4.0 * (16384.0 * 16384.0 + 16384.0));
}

/* ------------------------------------------------------------ shapes */

typedef struct walk {
    const kt_operator *op;
    kt_problem problem;
    int64_t m, n;
    size_t feasible, refused;
} walk;

static int64_t value_of(const kt_operator *op, const kt_point *pt,
                        const char *name)
{
    return pt->values[kt_param_index(op, pt, name)];
}

/* Rows (ax) or columns (atx) one block covers, and the split grid.y must
 * equal, from the point's parameters. */
static void expected_cover(const kt_operator *op, const kt_point *pt, int64_t m,
                           uint64_t *per_block, uint64_t *gy)
{
    const char *id = op->variants[pt->variant].id;
    int64_t block = value_of(op, pt, "block");
    *gy = 1;
    if (op == ax) {
        if (!strcmp(id, "thread_row"))
            *per_block = (uint64_t)block;
        else if (!strcmp(id, "warp_row"))
            *per_block = (uint64_t)block / 32;
        else if (!strcmp(id, "block_rows"))
            *per_block = (uint64_t)value_of(op, pt, "rows_per_block");
        else {
            *per_block =
                (uint64_t)(block / value_of(op, pt, "threads_per_row") *
                           value_of(op, pt, "rows_per_thread"));
            *gy = (uint64_t)value_of(op, pt, "split");
        }
        return;
    }
    if (!strcmp(id, "thread_col"))
        *per_block = (uint64_t)block;
    else if (!strcmp(id, "warp_col"))
        *per_block = (uint64_t)block / 32;
    else if (!strcmp(id, "vec4"))
        *per_block = 4 * (uint64_t)value_of(op, pt, "col_threads");
    else
        *per_block = (uint64_t)block;
    if (strstr(id, "split") || !strcmp(id, "vec4")) {
        int64_t split = value_of(op, pt, "split");
        *gy = (uint64_t)(split < m ? split : m);
    }
}

static void check_point(const kt_point *pt, void *ctx)
{
    walk *w = ctx;
    const kt_operator *op = w->op;
    const kt_variant *v = &op->variants[pt->variant];
    kt_shape shape;
    kt_err err;
    char shown[256];
    kt_status rc = kt_point_feasible(NULL, op, &w->problem, pt, &shape, &err);

    kt_point_format(op, pt, shown, sizeof shown);
    if (rc == KT_S_INVALID) {
        /* A refusal says why. */
        if (!err.msg[0])
            fail_msg("%s at m=%lld n=%lld: refused without a reason", shown,
                     (long long)w->m, (long long)w->n);
        ++w->refused;
        return;
    }
    if (rc != KT_S_OK)
        fail_msg("%s at m=%lld n=%lld: %s", shown, (long long)w->m,
                 (long long)w->n, err.msg);
    ++w->feasible;
    if (!strcmp(v->id, "cublas")) {
        assert_null(shape.kernel);
        return;
    }
    assert_non_null(shape.kernel);
    {
        uint64_t per_block, gy,
            need = op == ax ? (uint64_t)w->m : (uint64_t)w->n;
        expected_cover(op, pt, w->m, &per_block, &gy);
        /* Enough blocks for every row (ax) or column (atx), and not a
         * whole block more. */
        if (!((uint64_t)shape.grid[0] * per_block >= need &&
              ((uint64_t)shape.grid[0] - 1) * per_block < need))
            fail_msg("%s at m=%lld n=%lld: grid.x %u x %llu does not just "
                     "cover %llu",
                     shown, (long long)w->m, (long long)w->n, shape.grid[0],
                     (unsigned long long)per_block, (unsigned long long)need);
        assert_int_equal(shape.grid[1], gy);
        assert_int_equal(shape.block[0], value_of(op, pt, "block"));
        assert_int_equal(shape.block[1], 1);
    }
}

static void walk_all(const kt_operator *op, int64_t m, int64_t n,
                     size_t *feasible, size_t *refused)
{
    kt_device dev = kt_test_h200();
    int64_t sizes[2] = {m, n};
    walk w;
    memset(&w, 0, sizeof w);
    w.op = op;
    w.problem = kt_problem_at(op, sizes, &dev);
    w.m = m;
    w.n = n;
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        kt_point def;
        kt_shape shape;
        kt_err err;
        kt_for_each_point(op, v, check_point, &w);
        /* Every variant runs at its defaults, whatever the size. */
        kt_point_default(op, v, &def);
        if (kt_point_feasible(NULL, op, &w.problem, &def, &shape, &err) !=
            KT_S_OK)
            fail_msg("%s:%s default at m=%lld n=%lld: %s", op->id,
                     op->variants[v].id, (long long)m, (long long)n, err.msg);
    }
    *feasible += w.feasible;
    *refused += w.refused;
}

static void every_point_covers_odd_and_decisive_shapes(void **state)
{
    static const int64_t shapes[][2] = {
        {1, 1},        {1, 7},        {7, 1},       {3, 5},
        {33, 31},      {1000, 1001},  {1025, 4099}, {16384, 16384},
        {65536, 4096}, {4096, 65536}, {1024, 1024}, {1 << 30, 1},
        {1, 1 << 30},  {65537, 3},
    };
    size_t feasible = 0, refused = 0;
    (void)state;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        walk_all(ax, shapes[s][0], shapes[s][1], &feasible, &refused);
        walk_all(atx, shapes[s][0], shapes[s][1], &feasible, &refused);
    }
    printf("%zu feasible points checked, %zu refused with a reason\n", feasible,
           refused);
    assert_true(feasible > 10000);
    assert_true(refused > 0);
}

static kt_status feasible_at(const kt_operator *op, const kt_point *pt,
                             int64_t m, int64_t n, kt_shape *shape, kt_err *err)
{
    static kt_device dev;
    static int64_t sizes[2];
    kt_problem p;
    dev = kt_test_h200();
    sizes[0] = m;
    sizes[1] = n;
    p = kt_problem_at(op, sizes, &dev);
    return kt_point_feasible(NULL, op, &p, pt, shape, err);
}

static void constraints_name_what_is_wrong(void **state)
{
    kt_point pt;
    kt_shape shape;
    kt_err err;
    (void)state;
    kt_point_default(ax, kt_find_variant(ax, "vec4"), &pt);
    kt_point_put(ax, &pt, "block", 128);
    kt_point_put(ax, &pt, "threads_per_row", 256);
    assert_int_equal(feasible_at(ax, &pt, 100, 100, &shape, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "threads_per_row 256 > block 128");
    kt_point_put(ax, &pt, "threads_per_row", 32);
    kt_point_put(ax, &pt, "rows_per_thread", 4);
    kt_point_put(ax, &pt, "unroll", 8);
    assert_int_equal(feasible_at(ax, &pt, 100, 100, &shape, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "32 float4 loads in flight > 16");
    kt_point_default(ax, kt_find_variant(ax, "block_rows"), &pt);
    kt_point_put(ax, &pt, "block", 64);
    kt_point_put(ax, &pt, "rows_per_block", 128);
    assert_int_equal(feasible_at(ax, &pt, 100, 100, &shape, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "rows_per_block 128 > block 64");
    kt_point_default(atx, kt_find_variant(atx, "vec4"), &pt);
    kt_point_put(atx, &pt, "block", 64);
    kt_point_put(atx, &pt, "col_threads", 128);
    assert_int_equal(feasible_at(atx, &pt, 100, 100, &shape, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "col_threads 128 > block 64");
}

static void alignment_picks_the_kernel_and_split_sets_grid_y(void **state)
{
    kt_point pt;
    kt_shape aligned, unaligned, streaming, loads_first;
    kt_err err;
    (void)state;
    /* n % 4 == 0: float4 rows; otherwise the prologue/tail kernel. */
    kt_point_default(ax, kt_find_variant(ax, "vec4"), &pt);
    kt_point_put(ax, &pt, "rows_per_thread", 2);
    kt_point_put(ax, &pt, "split", 4);
    assert_int_equal(feasible_at(ax, &pt, 1000, 1024, &aligned, &err), KT_S_OK);
    assert_int_equal(feasible_at(ax, &pt, 1000, 1023, &unaligned, &err),
                     KT_S_OK);
    assert_ptr_not_equal(aligned.kernel, unaligned.kernel);
    /* 256 threads, 32 per row, 2 rows each: 16 rows per block. */
    assert_int_equal(aligned.grid[0], (1000 + 15) / 16);
    assert_int_equal(aligned.grid[1], 4);
    /* The cache hint changes the aligned kernel only... */
    kt_point_put(ax, &pt, "cache", 1);
    assert_int_equal(feasible_at(ax, &pt, 1000, 1024, &streaming, &err),
                     KT_S_OK);
    assert_ptr_not_equal(streaming.kernel, aligned.kernel);
    assert_int_equal(feasible_at(ax, &pt, 1000, 1023, &streaming, &err),
                     KT_S_OK);
    assert_ptr_equal(streaming.kernel, unaligned.kernel);
    /* ...the schedule changes both. */
    kt_point_put(ax, &pt, "schedule", 1);
    assert_int_equal(feasible_at(ax, &pt, 1000, 1023, &loads_first, &err),
                     KT_S_OK);
    assert_ptr_not_equal(loads_first.kernel, unaligned.kernel);

    /* Aᵀx: 4 columns per thread; the split is capped at m, and shared
     * memory appears only when threads run down the rows. */
    kt_point_default(atx, kt_find_variant(atx, "vec4"), &pt);
    kt_point_put(atx, &pt, "block", 256);
    kt_point_put(atx, &pt, "col_threads", 64);
    kt_point_put(atx, &pt, "split", 256);
    assert_int_equal(feasible_at(atx, &pt, 10, 1025, &aligned, &err), KT_S_OK);
    assert_int_equal(aligned.grid[0], (1025 + 255) / 256);
    assert_int_equal(aligned.grid[1], 10);
    assert_int_equal(aligned.dynamic_smem_bytes, 256 * 16);
    kt_point_put(atx, &pt, "col_threads", 256);
    assert_int_equal(feasible_at(atx, &pt, 10, 1025, &aligned, &err), KT_S_OK);
    assert_int_equal(aligned.dynamic_smem_bytes, 0);
    /* The two-pass split never exceeds its 64 x n scratch. */
    kt_point_default(atx, kt_find_variant(atx, "col_split_2pass"), &pt);
    kt_point_put(atx, &pt, "split", 64);
    assert_int_equal(feasible_at(atx, &pt, 5000, 7, &aligned, &err), KT_S_OK);
    assert_int_equal(aligned.grid[1], 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptor_has_both_layouts_and_the_cublas_reference),
        cmocka_unit_test(work_counts_a_once_and_both_vectors),
        cmocka_unit_test(every_point_covers_odd_and_decisive_shapes),
        cmocka_unit_test(constraints_name_what_is_wrong),
        cmocka_unit_test(alignment_picks_the_kernel_and_split_sets_grid_y),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
