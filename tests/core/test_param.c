// SPDX-License-Identifier: Apache-2.0
/* Parameter value sets: enumeration in order, membership, validation of
 * descriptors, and parsing values as users type them. */
#include "tests/kt_test.h"

#include <ktune/plugin_util.h>

#include "core/param.h"

static const int64_t list_values[] = {1, 3, 9};
static const char *const labels[] = {"rows", "cols", "tiles"};

static void pow2_enumerates_every_power_in_range(void **state)
{
    kt_param_desc p = KT_PARAM_POW2("block", "", 32, 1024, 256);
    (void)state;
    assert_int_equal(kt_param_count(&p), 6);
    assert_int_equal(kt_param_value_at(&p, 0), 32);
    assert_int_equal(kt_param_value_at(&p, 5), 1024);
    assert_int_equal(kt_param_index_of(&p, 256), 3);
    assert_int_equal(kt_param_index_of(&p, 96), -1);
}

static void range_and_list_and_enum_enumerate_in_order(void **state)
{
    kt_param_desc r = KT_PARAM_RANGE("pad", "", 0, 10, 4, 4);
    kt_param_desc l = KT_PARAM_LIST("u", "", list_values, 3);
    kt_param_desc e = KT_PARAM_ENUM("layout", "", labels, 2);
    (void)state;
    assert_int_equal(kt_param_count(&r), 3); /* 0, 4, 8 */
    assert_int_equal(kt_param_value_at(&r, 2), 8);
    assert_int_equal(kt_param_count(&l), 3);
    assert_int_equal(kt_param_value_at(&l, 1), 3);
    assert_int_equal(kt_param_count(&e), 3);
    assert_int_equal(kt_param_value_at(&e, 2), 2);
}

static void validation_names_the_broken_field(void **state)
{
    kt_param_desc p = KT_PARAM_POW2("block", "", 32, 1024, 100);
    kt_param_desc q = KT_PARAM_POW2("block", "", 48, 1024, 64);
    kt_param_desc r = KT_PARAM_RANGE("pad", "", 0, 10, 0, 0);
    kt_param_desc k = KT_PARAM_POW2("block", "", 32, 1024, 64);
    kt_err err;
    (void)state;
    k.kind = 9;
    assert_int_equal(kt_param_validate(&p, &err), KT_S_PLUGIN);
    assert_contains(err.msg, "'default_value' 100 is not one of");
    assert_int_equal(kt_param_validate(&q, &err), KT_S_PLUGIN);
    assert_contains(err.msg, "min 48");
    assert_int_equal(kt_param_validate(&r, &err), KT_S_PLUGIN);
    assert_contains(err.msg, "step > 0");
    assert_int_equal(kt_param_validate(&k, &err), KT_S_PLUGIN);
    assert_contains(err.msg, "field 'kind' is 9");
}

static void ranges_spanning_all_of_int64_do_not_overflow(void **state)
{
    kt_param_desc r = KT_PARAM_RANGE("pad", "", INT64_MIN, INT64_MAX, 1, 0);
    kt_param_desc wide =
        KT_PARAM_RANGE("pad", "", INT64_MIN, INT64_MAX, INT64_MAX, 0);
    kt_err err;
    (void)state;
    assert_true(kt_param_count(&r) == SIZE_MAX);
    assert_int_equal(kt_param_validate(&r, &err), KT_S_PLUGIN);
    assert_contains(err.msg, "expected 1 to");
    /* INT64_MIN, -1, INT64_MAX - 1: three values. */
    assert_int_equal(kt_param_count(&wide), 3);
    assert_true(kt_param_value_at(&wide, 2) == INT64_MAX - 1);
    assert_int_equal(kt_param_index_of(&wide, -1), 1);
    assert_int_equal(kt_param_index_of(&wide, 0), -1);
}

static void parse_accepts_members_and_lists_the_allowed(void **state)
{
    kt_param_desc p = KT_PARAM_POW2("block", "", 32, 1024, 256);
    kt_param_desc e = KT_PARAM_ENUM("layout", "", labels, 0);
    int64_t v;
    kt_err err;
    (void)state;
    assert_int_equal(kt_param_parse(&p, "2^9", &v, &err), KT_S_OK);
    assert_int_equal(v, 512);
    assert_int_equal(kt_param_parse(&p, "100", &v, &err), KT_S_INPUT);
    assert_contains(err.msg, "100 is not one of 32..1024 (powers of two)");
    assert_int_equal(kt_param_parse(&p, "big", &v, &err), KT_S_INPUT);
    assert_int_equal(kt_param_parse(&e, "cols", &v, &err), KT_S_OK);
    assert_int_equal(v, 1);
    assert_int_equal(kt_param_parse(&e, "col", &v, &err), KT_S_INPUT);
    assert_contains(err.msg, "did you mean 'cols'?");
}

static void describe_and_format_read_naturally(void **state)
{
    kt_param_desc e = KT_PARAM_ENUM("layout", "", labels, 0);
    kt_param_desc l = KT_PARAM_LIST("u", "", list_values, 3);
    char buf[128];
    (void)state;
    kt_param_describe(&e, buf, sizeof buf);
    assert_string_equal(buf, "{rows, cols, tiles}");
    kt_param_describe(&l, buf, sizeof buf);
    assert_string_equal(buf, "{1, 3, 9}");
    kt_param_format(&e, 2, buf, sizeof buf);
    assert_string_equal(buf, "tiles");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pow2_enumerates_every_power_in_range),
        cmocka_unit_test(range_and_list_and_enum_enumerate_in_order),
        cmocka_unit_test(validation_names_the_broken_field),
        cmocka_unit_test(ranges_spanning_all_of_int64_do_not_overflow),
        cmocka_unit_test(parse_accepts_members_and_lists_the_allowed),
        cmocka_unit_test(describe_and_format_read_naturally),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
