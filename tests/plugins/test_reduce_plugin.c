// SPDX-License-Identifier: Apache-2.0
/* reduce without a GPU: the descriptor has Harris's progression, the
 * grid-stride float4 kernels in one and two passes, and CUB; the work is one
 * read of n floats; every point of every variant has a launch shape at the
 * issue's sizes and at odd ones, or a reason why not. */
#include "tests/kt_test.h"

#include "tests/plugins/plugin_test.h"

static kt_registry reg;
static const kt_operator *op;

static int load(void **state)
{
    (void)state;
    kt_registry_init(&reg);
    kt_load_builtin(&reg, "reduce");
    op = kt_find_op(&reg, "reduce:sum");
    return 0;
}

static int unload(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static void descriptor_follows_the_progression_and_has_cub(void **state)
{
    static const char *const ids[] = {"last_block",  "interleaved_divergent",
                                      "interleaved", "sequential",
                                      "first_add",   "unroll_warp",
                                      "shuffle",     "two_pass",
                                      "atomic",      "cub"};
    kt_point pt;
    (void)state;
    assert_int_equal(op->num_variants, sizeof ids / sizeof *ids);
    for (size_t i = 0; i < sizeof ids / sizeof *ids; ++i)
        assert_string_equal(op->variants[i].id, ids[i]);
    assert_int_equal(op->num_sizes, 1);
    assert_int_equal(op->sizes[0].min, 1);
    assert_true(op->sizes[0].max >= (int64_t)1 << 28);
    /* Block size, items per thread and grid size are tunable. */
    kt_point_default(op, kt_find_variant(op, "two_pass"), &pt);
    kt_param_index(op, &pt, "block");
    kt_param_index(op, &pt, "items");
    kt_param_index(op, &pt, "blocks_per_sm");
    assert_int_equal(op->variants[kt_find_variant(op, "cub")].num_params, 0);
}

static void work_is_one_read_of_n_floats(void **state)
{
    kt_device dev = kt_test_h200();
    int64_t n = (int64_t)1 << 28;
    kt_problem p = kt_problem_at(op, &n, &dev);
    kt_work w;
    (void)state;
    assert_int_equal(op->work(&p, &w), KT_OK);
    assert_true(w.bytes_read == 4.0 * (double)((int64_t)1 << 28));
    assert_true(w.bytes_written == 4.0);
    assert_true(w.flops == (double)((int64_t)1 << 28) - 1.0);
    n = 1;
    assert_int_equal(op->work(&p, &w), KT_OK);
    assert_true(w.bytes_read == 4.0 && w.flops == 0.0);
}

typedef struct walk {
    kt_problem problem;
    int64_t n;
    size_t feasible, refused;
} walk;

static int64_t value_of(const kt_point *pt, const char *name)
{
    return pt->values[kt_param_index(op, pt, name)];
}

static void check_point(const kt_point *pt, void *ctx)
{
    walk *w = ctx;
    const char *id = op->variants[pt->variant].id;
    kt_shape s;
    kt_err err;
    char shown[256];
    kt_status rc = kt_point_feasible(NULL, op, &w->problem, pt, &s, &err);
    uint64_t n = (uint64_t)w->n;

    kt_point_format(op, pt, shown, sizeof shown);
    if (rc == KT_S_INVALID) {
        assert_true(err.msg[0] != '\0');
        ++w->refused;
        return;
    }
    if (rc != KT_S_OK)
        fail_msg("%s at n=%llu: %s", shown, (unsigned long long)n, err.msg);
    ++w->feasible;
    if (!strcmp(id, "cub")) {
        assert_null(s.kernel);
        return;
    }
    assert_non_null(s.kernel);
    {
        uint64_t block = (uint64_t)value_of(pt, "block"), tile, want;
        if (!strcmp(id, "last_block") || !strcmp(id, "two_pass") ||
            !strcmp(id, "atomic")) {
            /* blocks_per_sm x SMs, fewer when the float4s need fewer. */
            uint64_t full = (uint64_t)value_of(pt, "blocks_per_sm") * 132;
            uint64_t n4 = n / 4 ? n / 4 : 1;
            uint64_t need = (n4 + block - 1) / block;
            want = need < full ? need : full;
            assert_int_equal(s.dynamic_smem_bytes, 0);
        } else {
            tile = block;
            if (!strcmp(id, "first_add") || !strcmp(id, "unroll_warp"))
                tile *= 2;
            if (!strcmp(id, "shuffle"))
                tile *= (uint64_t)value_of(pt, "items");
            want = (n + tile - 1) / tile;
            /* The shared-memory trees need a float per thread. */
            assert_int_equal(s.dynamic_smem_bytes,
                             strcmp(id, "shuffle") ? block * 4 : 0);
        }
        if (s.grid[0] != want)
            fail_msg("%s at n=%llu: grid %u, expected %llu", shown,
                     (unsigned long long)n, s.grid[0],
                     (unsigned long long)want);
        assert_int_equal(s.block[0], block);
    }
}

static void every_point_has_a_shape_at_every_size(void **state)
{
    static const int64_t sizes[] = {1,
                                    2,
                                    3,
                                    5,
                                    31,
                                    1023,
                                    1 << 10,
                                    1025,
                                    65537,
                                    1 << 20,
                                    (1 << 20) + 3,
                                    1 << 28,
                                    ((int64_t)1 << 28) + 7,
                                    (int64_t)1 << 33};
    kt_device dev = kt_test_h200();
    size_t feasible = 0, refused = 0;
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
        walk w;
        memset(&w, 0, sizeof w);
        w.n = sizes[i];
        w.problem = kt_problem_at(op, &sizes[i], &dev);
        for (uint32_t v = 0; v < op->num_variants; ++v) {
            kt_point def;
            kt_err err;
            kt_for_each_point(op, v, check_point, &w);
            kt_point_default(op, v, &def);
            if (kt_point_feasible(NULL, op, &w.problem, &def, NULL, &err))
                fail_msg("%s default at n=%lld: %s", op->variants[v].id,
                         (long long)sizes[i], err.msg);
        }
        feasible += w.feasible;
        refused += w.refused;
    }
    printf("%zu feasible points checked, %zu refused with a reason\n", feasible,
           refused);
    assert_true(feasible > 3000);
    assert_true(refused > 0);
}

static void grid_size_must_fit_on_an_sm(void **state)
{
    kt_device dev = kt_test_h200();
    int64_t n = 1 << 28;
    kt_problem p = kt_problem_at(op, &n, &dev);
    kt_point pt;
    kt_err err;
    (void)state;
    kt_point_default(op, kt_find_variant(op, "atomic"), &pt);
    kt_point_put(op, &pt, "block", 1024);
    kt_point_put(op, &pt, "blocks_per_sm", 4);
    assert_int_equal(kt_point_feasible(NULL, op, &p, &pt, NULL, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "4 blocks of 1024 threads do not fit on one SM");
    kt_point_put(op, &pt, "block", 64);
    kt_point_put(op, &pt, "blocks_per_sm", 32);
    assert_int_equal(kt_point_feasible(NULL, op, &p, &pt, NULL, &err), KT_S_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptor_follows_the_progression_and_has_cub),
        cmocka_unit_test(work_is_one_read_of_n_floats),
        cmocka_unit_test(every_point_has_a_shape_at_every_size),
        cmocka_unit_test(grid_size_must_fit_on_an_sm),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
