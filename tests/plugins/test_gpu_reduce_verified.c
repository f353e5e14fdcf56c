// SPDX-License-Identifier: Apache-2.0
/* Every reduce variant sums correctly — within the tolerance from n and
 * Σ|x| — at boundary and odd sizes: one element, fewer than a warp, exact
 * and broken multiples of blocks and float4s, sizes that take the
 * progression through three to six passes, and 2^20 — across each value of
 * each parameter. Points run one after another in the same instance, so a
 * last-block counter that were not reset, or an atomic result not zeroed,
 * would fail the next point's verification. */
#include "tests/kt_test.h"

#include "tests/gpu/gpu_util.h"
#include "tests/plugins/plugin_test.h"

static kt_registry reg;

static void every_variant_at_every_size(void **state)
{
    static const int64_t sizes[] = {1,
                                    2,
                                    3,
                                    4,
                                    5,
                                    31,
                                    32,
                                    33,
                                    127,
                                    1023,
                                    1024,
                                    1025,
                                    4099,
                                    65537,
                                    1 << 20,
                                    (1 << 20) + 3,
                                    (1 << 22) + 1,
                                    3 * (1 << 21) + 7};
    enum { MAX_POINTS = 64 };
    static kt_point pts[MAX_POINTS];
    int failures = 0, checked = 0;
    (void)state;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
        const kt_operator *op;
        kt_evaluator *ev = kt_open_at(&reg, "reduce:sum", &sizes[s], 0, &op);
        for (uint32_t v = 0; v < op->num_variants; ++v) {
            char where[64];
            int ok_default = 0;
            size_t n = kt_one_at_a_time(op, v, pts, MAX_POINTS);
            snprintf(where, sizeof where, "reduce:sum n=%lld",
                     (long long)sizes[s]);
            failures +=
                kt_verify_points(ev, op, pts, n, where, &checked, &ok_default);
            if (!ok_default) {
                fprintf(stderr, "FAIL %s: %s at its defaults did not verify\n",
                        where, op->variants[v].id);
                ++failures;
            }
        }
        ev->ops->close(ev);
    }
    printf("reduce:sum: verified %d (variant, parameter, size) points\n",
           checked);
    assert_int_equal(failures, 0);
    assert_true(checked > 800);
}

static void defaults_at_the_host_boundary_sizes(void **state)
{
    static const int64_t n = 100003;
    const kt_operator *op;
    kt_evaluator *ev = kt_open_at(&reg, "reduce:sum", &n, 1, &op);
    int failures = 0, checked = 0;
    (void)state;
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        kt_point pt;
        int ok_default = 0;
        kt_point_default(op, v, &pt);
        failures += kt_verify_points(ev, op, &pt, 1, "reduce:sum", &checked,
                                     &ok_default);
        failures += !ok_default;
    }
    ev->ops->close(ev);
    assert_int_equal(failures, 0);
    assert_int_equal(checked, (int)op->num_variants);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_at_every_size),
        cmocka_unit_test(defaults_at_the_host_boundary_sizes),
    };
    kt_skip_without_gpu();
    kt_registry_init(&reg);
    kt_load_builtin(&reg, "reduce");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
