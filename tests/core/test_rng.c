// SPDX-License-Identifier: Apache-2.0
/* Inputs are a pure function of (seed, stream, index). */
#include "tests/kt_test.h"

#include "core/rng.h"

static void fill_is_deterministic_whatever_the_length(void **state)
{
    float whole[1000], part[400];
    (void)state;
    kt_rng_fill_f32(7, 3, whole, 1000, -1.0f, 1.0f);
    /* Element i depends on i alone, not on how many are drawn: a boundary
     * size sees the first elements of the full-size inputs. */
    kt_rng_fill_f32(7, 3, part, 400, -1.0f, 1.0f);
    assert_memory_equal(whole, part, sizeof part);
    for (int i = 0; i < 1000; ++i)
        assert_true(whole[i] >= -1.0f && whole[i] < 1.0f);
}

static void seeds_and_streams_give_different_data(void **state)
{
    float a[64], b[64], c[64];
    (void)state;
    kt_rng_fill_f32(1, 0, a, 64, 0.0f, 1.0f);
    kt_rng_fill_f32(2, 0, b, 64, 0.0f, 1.0f);
    kt_rng_fill_f32(1, 1, c, 64, 0.0f, 1.0f);
    assert_memory_not_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
}

static void values_are_not_zero_and_spread_over_the_range(void **state)
{
    float x[4096];
    double mean = 0;
    int zeros = 0;
    (void)state;
    kt_rng_fill_f32(42, 0, x, 4096, -1.0f, 1.0f);
    for (int i = 0; i < 4096; ++i) {
        mean += x[i] / 4096.0;
        zeros += x[i] == 0.0f;
    }
    assert_true(mean > -0.05 && mean < 0.05);
    assert_true(zeros < 2);
}

static void sequential_generator_is_bounded_and_seeded(void **state)
{
    kt_rng r1, r2;
    (void)state;
    kt_rng_seed(&r1, 99);
    kt_rng_seed(&r2, 99);
    for (int i = 0; i < 1000; ++i) {
        uint64_t v = kt_rng_below(&r1, 7);
        double u = kt_rng_unit(&r2);
        assert_true(v < 7);
        assert_true(u >= 0.0 && u < 1.0);
    }
    kt_rng_seed(&r1, 5);
    kt_rng_seed(&r2, 5);
    assert_int_equal(kt_rng_next(&r1), kt_rng_next(&r2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fill_is_deterministic_whatever_the_length),
        cmocka_unit_test(seeds_and_streams_give_different_data),
        cmocka_unit_test(values_are_not_zero_and_spread_over_the_range),
        cmocka_unit_test(sequential_generator_is_bounded_and_seeded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
