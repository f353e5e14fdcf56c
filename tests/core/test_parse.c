// SPDX-License-Identifier: Apache-2.0
/* Numbers, lists and assignments as users type them. */
#include "tests/kt_test.h"

#include <stdlib.h>

#include "core/parse.h"
#include "core/suggest.h"

static void integers_in_every_accepted_form(void **state)
{
    int64_t v;
    kt_err err;
    (void)state;
    assert_int_equal(kt_parse_i64("268435456", "n", &v, &err), KT_S_OK);
    assert_int_equal(v, 268435456);
    assert_int_equal(kt_parse_i64("2^28", "n", &v, &err), KT_S_OK);
    assert_int_equal(v, 1 << 28);
    assert_int_equal(kt_parse_i64("0x100", "n", &v, &err), KT_S_OK);
    assert_int_equal(v, 256);
    assert_int_equal(kt_parse_i64(" 42 ", "n", &v, &err), KT_S_OK);
    assert_int_equal(v, 42);
}

static void bad_integers_say_what_was_found(void **state)
{
    int64_t v;
    kt_err err;
    (void)state;
    assert_int_equal(kt_parse_i64("12abc", "size n", &v, &err), KT_S_INPUT);
    assert_contains(err.msg, "size n: expected an integer");
    assert_contains(err.msg, "found '12abc'");
    assert_int_equal(kt_parse_i64("2^64", "n", &v, &err), KT_S_INPUT);
    assert_contains(err.msg, "does not fit in 64 bits");
    assert_int_equal(kt_parse_i64("99999999999999999999", "n", &v, &err),
                     KT_S_INPUT);
    assert_int_equal(kt_parse_i64("", "n", &v, &err), KT_S_INPUT);
    assert_int_equal(kt_parse_i64("^3", "n", &v, &err), KT_S_INPUT);
}

static void powers_of_one_and_zero_need_no_loop(void **state)
{
    int64_t v;
    kt_err err;
    (void)state;
    /* Used to loop 10^12 times: bases 0, 1, -1 are answered directly. */
    assert_int_equal(kt_parse_i64("1^999999999999", "n", &v, &err), KT_S_OK);
    assert_int_equal(v, 1);
    assert_int_equal(kt_parse_i64("-1^999999999999", "n", &v, &err), KT_S_OK);
    assert_int_equal(v, -1);
    assert_int_equal(kt_parse_i64("0^999999999999", "n", &v, &err), KT_S_OK);
    assert_int_equal(v, 0);
    assert_int_equal(kt_parse_i64("0^0", "n", &v, &err), KT_S_OK);
    assert_int_equal(v, 1);
    assert_int_equal(kt_parse_i64("-2^63", "n", &v, &err), KT_S_OK);
    assert_true(v == INT64_MIN);
    /* |INT64_MIN| does not exist: the check must not negate it. */
    assert_int_equal(kt_parse_i64("-9223372036854775808^2", "n", &v, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "does not fit in 64 bits");
    assert_int_equal(kt_parse_i64("-9223372036854775808^1", "n", &v, &err),
                     KT_S_OK);
    assert_true(v == INT64_MIN);
}

static void leading_zeros_are_decimal(void **state)
{
    int64_t v;
    kt_err err;
    (void)state;
    assert_int_equal(kt_parse_i64("010", "seed", &v, &err), KT_S_OK);
    assert_int_equal(v, 10);
    assert_int_equal(kt_parse_i64("-010", "seed", &v, &err), KT_S_OK);
    assert_int_equal(v, -10);
    assert_int_equal(kt_parse_i64("0X1f", "seed", &v, &err), KT_S_OK);
    assert_int_equal(v, 31);
    assert_int_equal(kt_parse_i64("09", "seed", &v, &err), KT_S_OK);
    assert_int_equal(v, 9);
}

static void doubles_reject_garbage_and_infinity(void **state)
{
    double d;
    kt_err err;
    (void)state;
    assert_int_equal(kt_parse_double("0.005", "noise", &d, &err), KT_S_OK);
    assert_float_equal(d, 0.005, 0);
    assert_int_equal(kt_parse_double("inf", "noise", &d, &err), KT_S_INPUT);
    assert_int_equal(kt_parse_double("1x", "noise", &d, &err), KT_S_INPUT);
}

static void lists_are_trimmed_and_empty_items_rejected(void **state)
{
    char **items;
    size_t n;
    kt_err err;
    (void)state;
    assert_int_equal(kt_parse_list(" 64, 128 ,256", &items, &n, &err), KT_S_OK);
    assert_int_equal(n, 3);
    assert_string_equal(items[0], "64");
    assert_string_equal(items[1], "128");
    assert_string_equal(items[2], "256");
    free(items);
    assert_int_equal(kt_parse_list("64,,128", &items, &n, &err), KT_S_INPUT);
    assert_contains(err.msg, "empty item 2");
}

static void assignments_split_at_the_first_equals(void **state)
{
    char buf[] = " block = 256=x ", *name, *value;
    char bad[] = "=3";
    char none[] = "block";
    kt_err err;
    (void)state;
    assert_int_equal(kt_parse_assignment(buf, &name, &value, &err), KT_S_OK);
    assert_string_equal(name, "block");
    assert_string_equal(value, "256=x");
    assert_int_equal(kt_parse_assignment(bad, &name, &value, &err), KT_S_INPUT);
    assert_int_equal(kt_parse_assignment(none, &name, &value, &err),
                     KT_S_INPUT);
}

static void suggestions_find_typos_and_prefixes(void **state)
{
    const char *names[] = {"coalesced", "strided", "grid_stride", "vec4"};
    char out[256];
    (void)state;
    kt_suggest("coalsced", names, 4, out, sizeof out);
    assert_string_equal(out, "; did you mean 'coalesced'?");
    kt_suggest("vec", names, 4, out, sizeof out);
    assert_string_equal(out, "; did you mean 'vec4'?");
    kt_suggest("zzzzzz", names, 4, out, sizeof out);
    assert_string_equal(out, "; known: coalesced, strided, grid_stride, vec4");
    assert_int_equal(kt_edit_distance("kitten", "sitting"), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_in_every_accepted_form),
        cmocka_unit_test(bad_integers_say_what_was_found),
        cmocka_unit_test(powers_of_one_and_zero_need_no_loop),
        cmocka_unit_test(leading_zeros_are_decimal),
        cmocka_unit_test(doubles_reject_garbage_and_infinity),
        cmocka_unit_test(lists_are_trimmed_and_empty_items_rejected),
        cmocka_unit_test(assignments_split_at_the_first_equals),
        cmocka_unit_test(suggestions_find_typos_and_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
