// SPDX-License-Identifier: Apache-2.0
/* Declaration expressions: C precedence, the three functions, and every
 * mistake an error naming the expression, never a wrapped value. */
#include "tests/kt_test.h"

#include <stdlib.h>

#include "core/expr.h"

static const char *const names[] = {"n", "tile", "pad"};
static const int64_t values[] = {1000, 32, 1};

static int64_t eval(const char *text)
{
    kt_expr *e = NULL;
    int64_t out = -999;
    kt_err err;
    if (kt_expr_parse(text, names, 3, &e, &err))
        fail_msg("%s", err.msg);
    if (kt_expr_eval(e, values, &out, &err))
        fail_msg("%s", err.msg);
    kt_expr_free(e);
    return out;
}

static kt_status eval_error(const char *text, kt_err *err)
{
    kt_expr *e = NULL;
    int64_t out;
    kt_status rc = kt_expr_parse(text, names, 3, &e, err);
    if (!rc)
        rc = kt_expr_eval(e, values, &out, err);
    kt_expr_free(e);
    return rc;
}

static void arithmetic_follows_c_precedence(void **state)
{
    (void)state;
    assert_int_equal(eval("2 + 3 * 4"), 14);
    assert_int_equal(eval("(2 + 3) * 4"), 20);
    assert_int_equal(eval("10 - 4 - 3"), 3);
    assert_int_equal(eval("100 / 10 / 5"), 2);
    assert_int_equal(eval("17 % 5"), 2);
    assert_int_equal(eval("-tile + 40"), 8);
    assert_int_equal(eval("0x10 * 2"), 32);
    assert_int_equal(eval("tile * (tile + pad) * 4"), 32 * 33 * 4);
}

static void functions_and_comparisons(void **state)
{
    (void)state;
    assert_int_equal(eval("ceil_div(n, tile)"), 32);
    assert_int_equal(eval("ceil_div(1024, 32)"), 32);
    assert_int_equal(eval("ceil_div(0, 32)"), 0);
    assert_int_equal(eval("min(n, tile, 7)"), 7);
    assert_int_equal(eval("max(n, tile)"), 1000);
    assert_int_equal(eval("tile <= 32 && pad == 1"), 1);
    assert_int_equal(eval("tile < 32 || pad != 1"), 0);
    assert_int_equal(eval("!pad"), 0);
    assert_int_equal(eval("tile >= 16"), 1);
}

static void uses_names_the_reads(void **state)
{
    kt_expr *e;
    kt_err err;
    (void)state;
    assert_int_equal(kt_expr_parse("ceil_div(n, 4) + pad", names, 3, &e, &err),
                     KT_S_OK);
    assert_int_equal(kt_expr_uses(e), 1u | 4u);
    assert_string_equal(kt_expr_text(e), "ceil_div(n, 4) + pad");
    kt_expr_free(e);
}

static void mistakes_name_the_expression(void **state)
{
    kt_err err;
    (void)state;
    assert_int_equal(eval_error("n / (tile - 32)", &err), KT_S_INPUT);
    assert_contains(err.msg, "'n / (tile - 32)': division by zero");
    assert_int_equal(eval_error("n % 0", &err), KT_S_INPUT);
    assert_contains(err.msg, "division by zero");
    assert_int_equal(eval_error("ceil_div(n, tile - 32)", &err), KT_S_INPUT);
    assert_contains(err.msg, "division by zero");
    assert_int_equal(eval_error("n * 9223372036854775807", &err), KT_S_INPUT);
    assert_contains(err.msg, "overflows 64-bit integers");
    assert_int_equal(eval_error("-9223372036854775807 - 2", &err), KT_S_INPUT);
    assert_contains(err.msg, "overflows");
    assert_int_equal(eval_error("99999999999999999999", &err), KT_S_INPUT);
    assert_int_equal(eval_error("rows * 2", &err), KT_S_INPUT);
    assert_contains(err.msg, "'rows' is not declared");
    assert_int_equal(eval_error("n +", &err), KT_S_INPUT);
    assert_contains(err.msg, "a missing operand at column 4");
    assert_int_equal(eval_error("(n + 1", &err), KT_S_INPUT);
    assert_contains(err.msg, "missing ')'");
    assert_int_equal(eval_error("n 1", &err), KT_S_INPUT);
    assert_contains(err.msg, "unexpected text");
    assert_int_equal(eval_error("floor(n)", &err), KT_S_INPUT);
    assert_contains(err.msg, "unknown function");
    assert_int_equal(eval_error("ceil_div(n)", &err), KT_S_INPUT);
    assert_int_equal(eval_error("n $ 2", &err), KT_S_INPUT);
    assert_int_equal(eval_error("", &err), KT_S_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arithmetic_follows_c_precedence),
        cmocka_unit_test(functions_and_comparisons),
        cmocka_unit_test(uses_names_the_reads),
        cmocka_unit_test(mistakes_name_the_expression),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
