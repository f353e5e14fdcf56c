// SPDX-License-Identifier: Apache-2.0
/* What verification checks, decided without a GPU: the boundary sizes of a
 * launch, and the element comparison (tolerance, NaN, every element). */
#include "tests/kt_test.h"

#include <ktune/plugin_util.h>
#include <math.h>

#include "core/check.h"
#include "engine/services.h"
#include "engine/verify.h"

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

static void infinities_never_pass_and_the_bound_is_inclusive(void **state)
{
    (void)state;
    /* inf - inf is NaN: even equal infinities fail, as they always did. */
    assert_true(kt_check_fails(kt_check_error(INFINITY, INFINITY),
                               kt_check_bound(INFINITY, 1e-6, 0)));
    assert_true(kt_check_fails(kt_check_error(INFINITY, 1.0),
                               kt_check_bound(1.0, 1e-6, 0)));
    assert_true(kt_check_fails(kt_check_error(NAN, 1.0), 1e300));
    /* err <= bound passes; one step above fails. */
    assert_false(kt_check_fails(0.5, 0.5));
    assert_true(kt_check_fails(nextafter(0.5, 1), 0.5));
    /* 1 + 9 float ulps is outside 1e-6 relative, 1 + 8 inside. */
    assert_true(
        kt_check_fails(kt_check_error((double)(1.0f + 9 * 1.1920929e-7f), 1.0),
                       kt_check_bound(1.0, 1e-6, 0)));
    assert_false(
        kt_check_fails(kt_check_error((double)(1.0f + 8 * 1.1920929e-7f), 1.0),
                       kt_check_bound(1.0, 1e-6, 0)));
}

static void chunks_add_up_to_an_exact_count_and_first_index(void **state)
{
    float got[100];
    double want[100];
    kt_check_record r;
    char msg[512];
    (void)state;
    for (int i = 0; i < 100; ++i) {
        got[i] = (float)i;
        want[i] = i;
    }
    got[97] = -1.0f;
    got[3] = NAN;
    got[50] = INFINITY;
    kt_check_record_init(&r);
    /* Out of order, as device blocks finish: the record does not care. */
    kt_check_host_f32(got + 60, want + 60, NULL, 40, 60, 1e-6, 0, &r);
    kt_check_host_f32(got, want, NULL, 60, 0, 1e-6, 0, &r);
    assert_int_equal(r.bad, 3);
    assert_int_equal(r.first, 3);
    assert_true(kt_check_has_first(&r));
    assert_int_equal(
        kt_check_describe(&r, "y", 100, 0, 1e-6, 0, msg, sizeof msg),
        KT_MISMATCH);
    /* Lowest indices first, whatever order the slots were filled in. */
    assert_contains(msg, "y: 3 of 100 elements outside");
    assert_contains(msg, "first at 3;");
    assert_contains(msg, "[3] got NaN want 3; [50] got inf want 50; [97] got "
                         "-1 want 97");
    assert_contains(msg, "max |error| nan");
}

static void a_first_failure_without_a_slot_is_noticed(void **state)
{
    kt_check_record r;
    char msg[512];
    (void)state;
    kt_check_record_init(&r);
    r.bad = 20;
    r.first = 5;
    r.slots = 20; /* more failures than slots; index 5 lost the race */
    for (int i = 0; i < KT_CHECK_SLOTS; ++i) {
        r.fail[i].index = (uint64_t)(100 - i);
        r.fail[i].got = 1;
        r.fail[i].want = 0;
        r.fail[i].bound = 0.25;
    }
    assert_false(kt_check_has_first(&r));
    r.fail[KT_CHECK_SLOTS - 1].index = 5; /* what the service fetches */
    assert_true(kt_check_has_first(&r));
    assert_int_equal(kt_check_describe(&r, "y", 1000, 1, 0, 0, msg, sizeof msg),
                     KT_MISMATCH);
    assert_contains(msg, "20 of 1000 elements outside their tolerance");
    assert_contains(msg, "[5] got 1 want 0 tolerance 0.25; [94]");
}

static void per_element_tolerances_replace_the_relative_rule(void **state)
{
    const float got[] = {1.0f, 1.5f, 3.0f};
    const double want[] = {1.0, 1.0, 3.0};
    const double tol[] = {0.0, 0.5, 0.0};
    kt_check_record r;
    (void)state;
    kt_check_record_init(&r);
    kt_check_host_f32(got, want, tol, 3, 0, 1.0, 1.0, &r);
    assert_int_equal(r.bad, 0);
    kt_check_host_f32(got, want, NULL, 3, 0, 0, 0.25, &r);
    assert_int_equal(r.bad, 1);
    assert_int_equal(r.first, 1);
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
        cmocka_unit_test(infinities_never_pass_and_the_bound_is_inclusive),
        cmocka_unit_test(chunks_add_up_to_an_exact_count_and_first_index),
        cmocka_unit_test(a_first_failure_without_a_slot_is_noticed),
        cmocka_unit_test(per_element_tolerances_replace_the_relative_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
