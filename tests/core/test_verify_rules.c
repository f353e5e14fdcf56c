/* What verification checks, decided without a GPU: the boundary sizes of a
 * launch, and the element comparison (tolerance, NaN, every element). */
#include "tests/kt_test.h"

#include <math.h>

#include "core/services.h"
#include "core/verify.h"

static const kt_size_desc one_size[] = {
    {KT_STRUCT_SIZE(kt_size_desc), .name = "n", .default_value = 10, .min = 1,
     .max = 1 << 30},
};
static const kt_size_desc two_sizes[] = {
    {KT_STRUCT_SIZE(kt_size_desc), .name = "m", .default_value = 10, .min = 1,
     .max = 1 << 20},
    {KT_STRUCT_SIZE(kt_size_desc), .name = "n", .default_value = 10, .min = 4,
     .max = 1 << 20},
};

static void boundaries_cover_under_exact_multiple_and_tail(void **state)
{
    kt_operator op = {.num_sizes = 1, .sizes = one_size};
    int64_t requested[KT_MAX_SIZES] = {1 << 24};
    kt_boundary b[KT_MAX_BOUNDARIES];
    size_t n;
    (void)state;
    n = kt_boundary_sizes(&op, requested, 256, b, KT_MAX_BOUNDARIES);
    assert_int_equal(n, 5);
    assert_int_equal(b[0].sizes[0], 1);
    assert_int_equal(b[1].sizes[0], 129);  /* under one block */
    assert_int_equal(b[2].sizes[0], 256);  /* exactly one block */
    assert_int_equal(b[3].sizes[0], 1024); /* a multiple */
    assert_int_equal(b[4].sizes[0], 1029); /* a tail */
    assert_string_equal(b[4].label, "a tail after whole blocks");
}

static void boundaries_never_exceed_the_request(void **state)
{
    kt_operator op = {.num_sizes = 1, .sizes = one_size};
    int64_t requested[KT_MAX_SIZES] = {200};
    kt_boundary b[KT_MAX_BOUNDARIES];
    size_t n;
    (void)state;
    /* 256-thread blocks: 1 and 129 stay; 256, 1024, 1029 clamp to 200, which
     * is the requested size itself and is verified separately. */
    n = kt_boundary_sizes(&op, requested, 256, b, KT_MAX_BOUNDARIES);
    assert_int_equal(n, 2);
    assert_int_equal(b[1].sizes[0], 129);
}

static void boundaries_respect_each_dimension_minimum(void **state)
{
    kt_operator op = {.num_sizes = 2, .sizes = two_sizes};
    int64_t requested[KT_MAX_SIZES] = {1000, 1000};
    kt_boundary b[KT_MAX_BOUNDARIES];
    (void)state;
    assert_true(kt_boundary_sizes(&op, requested, 32, b, KT_MAX_BOUNDARIES) >=
                5);
    assert_int_equal(b[0].sizes[0], 1);
    assert_int_equal(b[0].sizes[1], 4); /* clamped up to n's minimum */
}

static void dimensions_vary_independently(void **state)
{
    kt_operator op = {.num_sizes = 2, .sizes = two_sizes};
    int64_t requested[KT_MAX_SIZES] = {1 << 20, 1 << 20};
    kt_boundary b[KT_MAX_BOUNDARIES];
    size_t n, non_square = 0;
    int one_by_n = 0, n_by_one = 0, both_ways = 0, prime = 0;
    (void)state;
    n = kt_boundary_sizes(&op, requested, 256, b, KT_MAX_BOUNDARIES);
    for (size_t i = 0; i < n; ++i) {
        int64_t m = b[i].sizes[0], c = b[i].sizes[1];
        non_square += m != c;
        one_by_n |= m == 1 && c > 256;
        n_by_one |= c == 4 && m > 256; /* n's minimum is 4 */
        prime |= m == 31 && c == 17;
        for (size_t j = 0; j < n; ++j)
            both_ways |= m != c && b[j].sizes[0] == c && b[j].sizes[1] == m;
    }
    /* All but "one element" differ between the dimensions. */
    assert_true(non_square + 1 >= n);
    assert_true(n >= 7);
    assert_true(one_by_n);
    assert_true(n_by_one);
    assert_true(both_ways); /* rows and columns swapped are both tried */
    assert_true(prime);
}

static void comparison_passes_within_tolerance(void **state)
{
    const float got[] = {1.0f, 2.0000001f, -3.0f};
    const double want[] = {1.0, 2.0, -3.0};
    char msg[512];
    (void)state;
    assert_int_equal(
        kt_check_values_f32("c", got, want, 3, 0, 1e-6, 0, msg, sizeof msg),
        KT_OK);
}

static void nan_and_unwritten_elements_fail(void **state)
{
    /* 0xFFFFFFFF, the poison pattern, is a NaN. */
    union {
        unsigned u;
        float f;
    } poison = {0xFFFFFFFFu};
    float got[] = {1.0f, poison.f, 3.0f, 4.5f};
    const double want[] = {1.0, 2.0, 3.0, 4.0};
    char msg[512];
    (void)state;
    assert_true(isnan(poison.f));
    assert_int_equal(
        kt_check_values_f32("c", got, want, 4, 100, 1e-6, 0, msg, sizeof msg),
        KT_MISMATCH);
    assert_contains(msg, "c: 2 of 4 elements outside");
    assert_contains(msg, "first at 101");
    assert_contains(msg, "[101] got NaN want 2");
    assert_contains(msg, "[103] got 4.5 want 4");
}

static void nan_in_the_reference_fails_too(void **state)
{
    const float got[] = {1.0f};
    const double want[] = {NAN};
    char msg[256];
    (void)state;
    assert_int_equal(
        kt_check_values_f32("y", got, want, 1, 0, 1, 1, msg, sizeof msg),
        KT_MISMATCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(boundaries_cover_under_exact_multiple_and_tail),
        cmocka_unit_test(boundaries_never_exceed_the_request),
        cmocka_unit_test(boundaries_respect_each_dimension_minimum),
        cmocka_unit_test(dimensions_vary_independently),
        cmocka_unit_test(comparison_passes_within_tolerance),
        cmocka_unit_test(nan_and_unwritten_elements_fail),
        cmocka_unit_test(nan_in_the_reference_fails_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
