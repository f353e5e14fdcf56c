// SPDX-License-Identifier: Apache-2.0
/* Every gemv variant, A·x and Aᵀ·x, verifies against the double reference
 * at odd and boundary shapes — one row or column, fewer than a warp, every
 * n % 4 (the unaligned rows of the float4 kernels), more rows than a grid
 * covers at once, very long rows and very many rows — across each value of
 * each parameter (the others at their defaults), and at the host's own
 * boundary sizes for the defaults. */
#include "tests/kt_test.h"

#include "tests/gpu/gpu_util.h"
#include "tests/plugins/plugin_test.h"

static kt_registry reg;

static const int64_t shapes[][2] = {
    {1, 1},    {1, 2},     {2, 1},      {1, 7},       {7, 1},     {3, 5},
    {5, 3},    {4, 4},     {6, 10},     {17, 33},     {33, 17},   {31, 129},
    {64, 64},  {127, 255}, {257, 1023}, {1000, 1001}, {1025, 36}, {7, 4099},
    {6, 4102}, {3, 65537}, {65537, 3},  {130, 4097},
};

static void sweep(const char *spec, int *checked)
{
    enum { MAX_POINTS = 128 };
    static kt_point pts[MAX_POINTS];
    int failures = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const kt_operator *op;
        kt_evaluator *ev = kt_open_at(&reg, spec, shapes[s], 0, &op);
        for (uint32_t v = 0; v < op->num_variants; ++v) {
            char where[160];
            int ok_default = 0;
            size_t n = kt_one_at_a_time(op, v, pts, MAX_POINTS);
            snprintf(where, sizeof where, "%s m=%lld n=%lld", spec,
                     (long long)shapes[s][0], (long long)shapes[s][1]);
            failures +=
                kt_verify_points(ev, op, pts, n, where, checked, &ok_default);
            if (!ok_default) {
                fprintf(stderr, "FAIL %s: %s at its defaults did not verify\n",
                        where, op->variants[v].id);
                ++failures;
            }
        }
        ev->ops->close(ev);
    }
    if (failures)
        fail_msg("%s: %d failures (listed above)", spec, failures);
}

static void every_ax_variant_at_every_shape(void **state)
{
    int checked = 0;
    (void)state;
    sweep("gemv:ax", &checked);
    printf("gemv:ax: verified %d (variant, parameter, shape) points\n",
           checked);
    assert_true(checked > 1000);
}

static void every_atx_variant_at_every_shape(void **state)
{
    int checked = 0;
    (void)state;
    sweep("gemv:atx", &checked);
    printf("gemv:atx: verified %d (variant, parameter, shape) points\n",
           checked);
    assert_true(checked > 1000);
}

/* The host's boundary sizes (one element, under a block, a block, four,
 * four and a tail) for the default point of every variant, at an odd
 * shape. */
static void defaults_at_the_host_boundary_sizes(void **state)
{
    static const char *const specs[] = {"gemv:ax", "gemv:atx"};
    static const int64_t shape[2] = {1029, 1031};
    int failures = 0, checked = 0;
    (void)state;
    for (size_t i = 0; i < 2; ++i) {
        const kt_operator *op;
        kt_evaluator *ev = kt_open_at(&reg, specs[i], shape, 1, &op);
        for (uint32_t v = 0; v < op->num_variants; ++v) {
            kt_point pt;
            int ok_default = 0;
            kt_point_default(op, v, &pt);
            failures += kt_verify_points(ev, op, &pt, 1, specs[i], &checked,
                                         &ok_default);
            failures += !ok_default;
        }
        ev->ops->close(ev);
    }
    assert_int_equal(failures, 0);
    assert_int_equal(checked, 11);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_ax_variant_at_every_shape),
        cmocka_unit_test(every_atx_variant_at_every_shape),
        cmocka_unit_test(defaults_at_the_host_boundary_sizes),
    };
    kt_skip_without_gpu();
    kt_registry_init(&reg);
    kt_load_builtin(&reg, "gemv");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
