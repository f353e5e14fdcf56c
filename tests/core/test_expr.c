// SPDX-License-Identifier: Apache-2.0
/* Declaration expressions: C precedence, the three functions, and every
 * mistake an error naming the expression, never a wrapped value. */
#include "tests/kt_test.h"

#include <stdlib.h>
#include <string.h>

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

/* Python syntax: the values Python 3 gives (computed with python3, names
 * n = 1000, tile = 32, pad = 1, neg = -7), ints and floats apart. */
static const char *const py_names[] = {"n", "tile", "pad", "neg"};
static const int64_t py_values[] = {1000, 32, 1, -7};

static const struct {
    const char *text;
    int is_float;
    int64_t i;
    double f;
} py_cases[] = {
    {"n // tile", 0, 31, 0},
    {"-n // tile", 0, -32, 0},
    {"n // -tile", 0, -32, 0},
    {"-7 // 2", 0, -4, 0},
    {"7 // -2", 0, -4, 0},
    {"neg // 2", 0, -4, 0},
    {"neg % 3", 0, 2, 0},
    {"7 % -3", 0, -2, 0},
    {"-7 % -3", 0, -1, 0},
    {"neg % -3", 0, -1, 0},
    {"n / tile", 1, 0, 31.25},
    {"1 / 3", 1, 0, 0.3333333333333333},
    {"-1 / 3", 1, 0, -0.3333333333333333},
    {"7 / 7", 1, 0, 1.0},
    {"2 ** 10", 0, 1024, 0},
    {"2 ** -1", 1, 0, 0.5},
    {"-2 ** 2", 0, -4, 0},
    {"(-2) ** 2", 0, 4, 0},
    {"2 ** 3 ** 2", 0, 512, 0},
    {"2 ** -2 ** 2", 1, 0, 0.0625},
    {"7.5 // 2", 1, 0, 3.0},
    {"-7.5 // 2", 1, 0, -4.0},
    {"7.5 % 2", 1, 0, 1.5},
    {"-7.5 % 2", 1, 0, 0.5},
    {"7.5 % -2", 1, 0, -0.5},
    {"1e3 + 1", 1, 0, 1001.0},
    {".5 * 4", 1, 0, 2.0},
    {"1_000 * 2", 0, 2000, 0},
    {"0x1f + 0o17 + 0b101", 0, 51, 0},
    {"32 <= n <= 1024", 0, 1, 0},
    {"1 < 2 < 3", 0, 1, 0},
    {"3 > 2 > 1 == 1", 0, 1, 0},
    {"1 < 2 > 3", 0, 0, 0},
    {"1 == 1.0", 0, 1, 0},
    {"n == 1000.0", 0, 1, 0},
    {"n < 1000.5", 0, 1, 0},
    {"True + True", 0, 2, 0},
    {"not 0", 0, 1, 0},
    {"not tile", 0, 0, 0},
    {"not tile == 32", 0, 0, 0},
    {"0 or 5", 0, 5, 0},
    {"3 or 5", 0, 3, 0},
    {"0 and 5", 0, 0, 0},
    {"3 and 5", 0, 5, 0},
    {"0.0 or 2.5", 1, 0, 2.5},
    {"tile > 1 or pad == 0", 0, 1, 0},
    {"not (n == 128 and tile == 32)", 0, 1, 0},
    {"tile == 1 and pad == 0 or tile == 32", 0, 1, 0},
    {"min(3, 1.0, 2)", 1, 0, 1.0},
    {"max(1, 1.0)", 0, 1, 0},
    {"min(1.0, 1)", 1, 0, 1.0},
    {"abs(neg)", 0, 7, 0},
    {"abs(-2.5)", 1, 0, 2.5},
    {"int(7 / 2)", 0, 3, 0},
    {"int(-7 / 2)", 0, -3, 0},
    {"n % ((tile * tile) / 16)", 1, 0, 40.0},
    {"n % ((tile * tile) / 3)", 1, 0, 317.33333333333337},
    {"(n * 3) % 7.5", 1, 0, 0.0},
    {"1000 % (tile / 3)", 1, 0, 8.000000000000055},
    {"2 ** 0.5", 1, 0, 1.4142135623730951},
    {"4 ** 0.5", 1, 0, 2.0},
    {"10 ** -3", 1, 0, 0.001},
    {"0 ** 0", 0, 1, 0},
    {"neg // 1.5", 1, 0, -5.0},
    {"neg % 1.5", 1, 0, 0.5},
    {"-(3 // 2)", 0, -1, 0},
    {"+tile", 0, 32, 0},
    {"True == 1", 0, 1, 0},
    {"False < True", 0, 1, 0},

};

static kt_status py_eval(const char *text, kt_expr_value *v, kt_err *err)
{
    kt_expr *e = NULL;
    kt_status rc = kt_expr_parse_as(text, KT_EXPR_PYTHON, py_names, 4, &e, err);
    if (!rc)
        rc = kt_expr_eval_value(e, py_values, v, err);
    kt_expr_free(e);
    return rc;
}

static void python_syntax_gives_what_python_gives(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof py_cases / sizeof py_cases[0]; ++k) {
        kt_expr_value v;
        kt_err err;
        if (py_eval(py_cases[k].text, &v, &err))
            fail_msg("%s: %s", py_cases[k].text, err.msg);
        if (v.is_float != py_cases[k].is_float ||
            (v.is_float ? v.f != py_cases[k].f : v.i != py_cases[k].i))
            fail_msg("%s: got %s %.17g / %lld, Python gives %.17g / %lld",
                     py_cases[k].text, v.is_float ? "float" : "int", v.f,
                     (long long)v.i, py_cases[k].f, (long long)py_cases[k].i);
    }
}

/* or, and and chained comparisons evaluate only what decides, as Python
 * does; so do C's || and &&. */
static void short_circuits_skip_what_would_fail(void **state)
{
    kt_expr_value v;
    kt_err err;
    (void)state;
    assert_int_equal(py_eval("pad == 0 and n // (pad - 1) > 0", &v, &err), 0);
    assert_int_equal(v.i, 0);
    assert_int_equal(py_eval("tile == 32 or n % 0", &v, &err), 0);
    assert_int_equal(v.i, 1);
    assert_int_equal(py_eval("0 > 1 > n // 0", &v, &err), 0);
    assert_int_equal(v.i, 0);
    assert_int_equal(py_eval("1 < 2 < n // 0", &v, &err), KT_S_INPUT);
    assert_contains(err.msg, "division by zero");
    assert_int_equal(eval("pad == 0 && n / (pad - 1)"), 0);
    assert_int_equal(eval("pad == 1 || n / (pad - 1)"), 1);
    assert_int_equal(eval("tile && 7"), 1); /* C gives 0 or 1 */
}

static void c_syntax_has_floor_division_and_powers(void **state)
{
    kt_err err;
    (void)state;
    assert_int_equal(eval("-7 / 2"), -3); /* C truncates */
    assert_int_equal(eval("-7 % 2"), -1);
    assert_int_equal(eval("-7 // 2"), -4); /* floor */
    assert_int_equal(eval("2 ** 10"), 1024);
    assert_int_equal(eval("(262144 // tile) // 2"), 4096);
    assert_int_equal(eval_error("tile ** -1", &err), KT_S_INPUT);
    assert_contains(err.msg, "negative exponent");
    assert_int_equal(eval_error("2 ** 63", &err), KT_S_INPUT);
    assert_contains(err.msg, "overflows 64-bit integers");
}

static void expect_refused(kt_expr_syntax syntax, const char *text,
                           const char *want)
{
    kt_expr *e = NULL;
    kt_expr_value v;
    kt_err err;
    kt_status rc = kt_expr_parse_as(text, syntax, py_names, 4, &e, &err);
    if (!rc)
        rc = kt_expr_eval_value(e, py_values, &v, &err);
    kt_expr_free(e);
    if (rc != KT_S_INPUT)
        fail_msg("%s: accepted", text);
    if (!strstr(err.msg, want))
        fail_msg("%s: '%s' lacks '%s'", text, err.msg, want);
}

static void each_syntax_says_how_the_other_is_written(void **state)
{
    (void)state;
    expect_refused(KT_EXPR_C, "tile < 32 or pad", "'or' is written '||'");
    expect_refused(KT_EXPR_C, "tile and pad", "'and' is written '&&'");
    expect_refused(KT_EXPR_C, "not pad", "'not' is written '!'");
    expect_refused(KT_EXPR_C, "16 <= tile <= 64", "write a < b && b < c");
    expect_refused(KT_EXPR_C, "tile == True", "write 1 or 0 here");
    expect_refused(KT_EXPR_C, "2.5 * tile", "a fractional number");
    expect_refused(KT_EXPR_PYTHON, "tile && pad", "'&&' is written 'and'");
    expect_refused(KT_EXPR_PYTHON, "tile || pad", "'||' is written 'or'");
    expect_refused(KT_EXPR_PYTHON, "!pad", "'!' is written 'not'");
    expect_refused(KT_EXPR_PYTHON, "tile & 1", "bitwise operators");
    expect_refused(KT_EXPR_PYTHON, "tile << 1", "bitwise shifts");
    expect_refused(KT_EXPR_PYTHON, "1 if pad else 0", "conditional");
    expect_refused(KT_EXPR_PYTHON, "tile in [1]", "'in' and 'is'");
    expect_refused(KT_EXPR_PYTHON, "1 + not pad", "parenthesize");
    expect_refused(KT_EXPR_PYTHON, "tile == 'a'", "strings");
    expect_refused(KT_EXPR_PYTHON, "tile = 1", "compare with '=='");
    expect_refused(KT_EXPR_PYTHON, "ceil_div(n, 2)", "unknown function");
    expect_refused(KT_EXPR_PYTHON, "n / 0", "division by zero");
    expect_refused(KT_EXPR_PYTHON, "0 ** -1", "division by zero");
    expect_refused(KT_EXPR_PYTHON, "7.5 // 0", "division by zero");
    expect_refused(KT_EXPR_PYTHON, "(-8) ** 0.5", "complex");
    expect_refused(KT_EXPR_PYTHON, "10.0 ** 400", "range of a double");
    expect_refused(KT_EXPR_PYTHON, "2 ** 64", "overflows 64-bit");
    expect_refused(KT_EXPR_PYTHON, "1.5e", "malformed number");
}

static void a_float_result_is_an_integer_only_when_whole(void **state)
{
    kt_expr *e = NULL;
    int64_t out = 0;
    kt_err err;
    (void)state;
    assert_int_equal(
        kt_expr_parse_as("n / 8", KT_EXPR_PYTHON, py_names, 4, &e, &err), 0);
    assert_int_equal(kt_expr_eval(e, py_values, &out, &err), 0);
    assert_int_equal(out, 125);
    kt_expr_free(e);
    assert_int_equal(
        kt_expr_parse_as("n / 3", KT_EXPR_PYTHON, py_names, 4, &e, &err), 0);
    assert_int_equal(kt_expr_eval(e, py_values, &out, &err), KT_S_INPUT);
    assert_contains(err.msg, "not an integer");
    kt_expr_free(e);
}

static void conjoined_expressions_mix_syntaxes(void **state)
{
    kt_expr *c = NULL, *py = NULL, *acc = NULL;
    int64_t out = -1;
    int64_t other[] = {1000, 16, 0, 0};
    kt_err err;
    (void)state;
    assert_int_equal(kt_expr_parse("tile >= 16", py_names, 4, &c, &err), 0);
    assert_int_equal(kt_expr_parse_as("n // tile > 31 or pad // pad",
                                      KT_EXPR_PYTHON, py_names, 4, &py, &err),
                     0);
    assert_int_equal(kt_expr_conjoin(&acc, c, &err), 0);
    assert_int_equal(kt_expr_conjoin(&acc, py, &err), 0);
    assert_string_equal(kt_expr_text(acc),
                        "(tile >= 16) && (n // tile > 31 or pad // pad)");
    assert_int_equal(kt_expr_uses(acc), 1u | 2u | 4u);
    assert_int_equal(kt_expr_eval(acc, py_values, &out, &err), 0);
    assert_int_equal(out, 1); /* pad // pad is 1, made a bool */
    /* tile 16: n // tile is 62 > 31, so pad // pad (0 // 0) is never
     * evaluated. */
    assert_int_equal(kt_expr_eval(acc, other, &out, &err), 0);
    assert_int_equal(out, 1);
    other[1] = 8;
    assert_int_equal(kt_expr_eval(acc, other, &out, &err), 0);
    assert_int_equal(out, 0);
    kt_expr_free(acc);
    kt_expr_free(c);
    kt_expr_free(py);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arithmetic_follows_c_precedence),
        cmocka_unit_test(functions_and_comparisons),
        cmocka_unit_test(uses_names_the_reads),
        cmocka_unit_test(mistakes_name_the_expression),
        cmocka_unit_test(python_syntax_gives_what_python_gives),
        cmocka_unit_test(short_circuits_skip_what_would_fail),
        cmocka_unit_test(c_syntax_has_floor_division_and_powers),
        cmocka_unit_test(each_syntax_says_how_the_other_is_written),
        cmocka_unit_test(a_float_result_is_an_integer_only_when_whole),
        cmocka_unit_test(conjoined_expressions_mix_syntaxes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
