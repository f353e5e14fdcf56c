// SPDX-License-Identifier: Apache-2.0
/* T1 space files: every field read, value strings expanded as Python
 * would, the feasible count equal to a brute-force count and to Python's,
 * and each kind of damage refused with the file, the JSON path, what was
 * expected and what was found. tests/core/t1/space.json is our own file. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/t1.h"

#define SPACE KT_SOURCE_DIR "/tests/core/t1/space.json"

static void every_field_is_read(void **state)
{
    kt_t1_space *s = NULL;
    kt_err err;
    (void)state;
    if (kt_t1_load(SPACE, &s, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s->num_params, 7);
    assert_string_equal(s->params[0].name, "BX");
    assert_int_equal(s->params[0].num_values, 11);
    assert_int_equal(s->params[0].values[10], 64);
    /* Default not the first value; a one-element list; absent. */
    assert_true(s->params[0].has_default);
    assert_int_equal(s->params[0].default_value, 32);
    assert_int_equal(s->params[2].default_value, 2);
    assert_false(s->params[4].has_default);
    assert_string_equal(s->params[4].type, "int");
    assert_string_equal(s->params[3].type, "uint");
    assert_int_equal(s->params[3].num_values, 5); /* 1, 2, 4, 6, 8 */
    assert_int_equal(s->params[3].values[3], 6);
    assert_int_equal(kt_t1_find(s, "NEG"), 6);
    assert_int_equal(kt_t1_find(s, "nope"), -1);
    assert_int_equal(s->num_conditions, 7);
    assert_string_equal(s->conditions[0].text, "32 <= BX * BY <= 512");
    assert_string_equal(s->kernel_name, "scale");
    assert_string_equal(s->kernel_file, "scale.cu");
    assert_string_equal(s->language, "CUDA");
    assert_string_equal(s->global_size_type, "CUDA");
    assert_string_equal(s->local_size[0], "BX");
    assert_string_equal(s->global_size[0], "(4096 // BX) // TILE");
    assert_string_equal(s->global_size[1], "16");
    assert_int_equal(s->num_problem_size, 2);
    assert_int_equal(s->problem_size[0], 4096);
    assert_int_equal(s->num_compiler_options, 1);
    assert_string_equal(s->compiler_options[0], "-std=c++11");
    assert_int_equal(s->num_args, 3);
    assert_string_equal(s->args[0].size_text, "ProblemSize[0]*ProblemSize[1]");
    assert_true(s->args[0].output);
    assert_int_equal(s->args[1].size, 65536);
    assert_string_equal(s->args[2].memory_type, "Scalar");
    assert_true(s->args[2].has_fill_value);
    assert_true(s->args[2].fill_value == 0.5);
    kt_t1_free(s);
}

/* Every point of the product checked against every condition, one by
 * one: what the pruned count must equal. */
static uint64_t brute_force(const kt_t1_space *s)
{
    size_t idx[KT_T1_MAX_PARAMS] = {0};
    int64_t vals[KT_T1_MAX_PARAMS];
    uint64_t n = 0;

    for (;;) {
        int ok = 1;
        for (size_t i = 0; i < s->num_params; ++i)
            vals[i] = s->params[i].values[idx[i]];
        for (size_t c = 0; c < s->num_conditions && ok; ++c) {
            kt_expr_value v;
            ok = kt_expr_eval_value(s->conditions[c].expr, vals, &v, NULL) ==
                     KT_S_OK &&
                 (v.is_float ? v.f != 0 : v.i != 0);
        }
        n += ok;
        size_t k = s->num_params;
        while (k-- > 0 && ++idx[k] == s->params[k].num_values)
            idx[k] = 0;
        if (k == (size_t)-1)
            return n;
    }
}

static void count_matches_brute_force_and_python(void **state)
{
    kt_t1_space *s = NULL;
    uint64_t count = 0;
    kt_err err;
    (void)state;
    assert_int_equal(kt_t1_load(SPACE, &s, &err), KT_S_OK);
    assert_int_equal(kt_t1_count(s, &count, &err), KT_S_OK);
    /* python3: the conditions over itertools.product of the values */
    assert_int_equal(count, 6280);
    assert_int_equal(brute_force(s), 6280);
    kt_t1_free(s);
}

static const struct {
    const char *text;
    size_t n;
    int64_t want[32];
} value_cases[] = {
    /* each expanded by python3 */
    {"[16, 32]", 2, {16, 32}},
    {"list(range(32, 1024+1, 32))",
     32,
     {32,  64,  96,  128, 160, 192, 224, 256, 288, 320, 352,
      384, 416, 448, 480, 512, 544, 576, 608, 640, 672, 704,
      736, 768, 800, 832, 864, 896, 928, 960, 992, 1024}},
    {"[1, 2, 4, 8, 16] + list(range(32, 96+1, 32))",
     8,
     {1, 2, 4, 8, 16, 32, 64, 96}},
    {"[2**i for i in range(0, 6)]", 6, {1, 2, 4, 8, 16, 32}},
    {"[i for i in range(1, 11)]", 10, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
    {"[1] + [2*i for i in range(1,4)]", 4, {1, 2, 4, 6}},
    {"range(5, 0, -2)", 3, {5, 3, 1}},
    {"[x * x for x in [3, 1, 2] if x != 1]", 2, {9, 4}},
    {"list([7, 5])", 2, {7, 5}},
    {"([1] + [2])", 2, {1, 2}},
    {"[ 4 , 8 , ]", 2, {4, 8}},
    {"[-(2 ** 3), 10 // 3, True]", 3, {-8, 3, 1}},
};

static void value_strings_expand_as_python_does(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof value_cases / sizeof value_cases[0]; ++k) {
        int64_t *v = NULL;
        size_t n = 0;
        kt_err err;
        if (kt_t1_parse_values(value_cases[k].text, &v, &n, &err))
            fail_msg("%s: %s", value_cases[k].text, err.msg);
        assert_int_equal(n, value_cases[k].n);
        for (size_t i = 0; i < n; ++i)
            if (v[i] != value_cases[k].want[i])
                fail_msg("%s: value %zu is %lld", value_cases[k].text, i,
                         (long long)v[i]);
        free(v);
    }
}

static void bad_value_strings_say_where(void **state)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[1, 2", "a missing ']'"},
        {"[1.5, 2]", "parameters are integers"},
        {"range(1, 5, 0)", "step 0"},
        {"range(1, 2, 3, 4)", "more than 3 arguments"},
        {"[i for j in range(3)]", "'i' is not declared"},
        {"[1, i for i in range(3)]", "a comprehension after values"},
        {"[]", "no values"},
        {"list(range(100000))", "more than 4096 values"},
        {"{1, 2}", "expected a list"},
        {"[1] 2", "unexpected text after the list"},
        {"['a']", "strings are not supported"},
    };
    (void)state;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        int64_t *v = NULL;
        size_t n = 0;
        kt_err err;
        if (kt_t1_parse_values(bad[k].text, &v, &n, &err) != KT_S_INPUT)
            fail_msg("%s: accepted", bad[k].text);
        if (!strstr(err.msg, bad[k].want))
            fail_msg("%s: '%s' lacks '%s'", bad[k].text, err.msg, bad[k].want);
        assert_null(v);
    }
}

#define P(x) "{\"ConfigurationSpace\": {\"TuningParameters\": [" x "]}}"
#define OK_PARAM "{\"Name\": \"a\", \"Values\": \"[1, 2]\"}"

static const struct {
    const char *json, *want;
} damaged[] = {
    {"{\"ConfigurationSpace\": ", "not JSON"},
    {"[1, 2]", "expected a JSON object with ConfigurationSpace"},
    {"{\"General\": {}}",
     "ConfigurationSpace: expected an object with TuningParameters, found "
     "nothing"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": {}}}",
     "ConfigurationSpace.TuningParameters: expected a list of parameters, "
     "found an object"},
    {P("7"), "TuningParameters[0]: expected an object with Name and Values, "
             "found 7"},
    {P("{\"Values\": [1]}"), "TuningParameters[0].Name: expected a name"},
    {P("{\"Name\": \"a b\", \"Values\": [1]}"),
     "TuningParameters[0].Name: expected a name"},
    {P(OK_PARAM ", " OK_PARAM), "TuningParameters[1].Name: 'a' is declared "
                                "twice"},
    {P("{\"Name\": \"a\", \"Type\": \"float\", \"Values\": [1.5]}"),
     "TuningParameters[0].Type: expected \"int\" or \"uint\""},
    {P("{\"Name\": \"a\", \"Values\": true}"),
     "TuningParameters[0].Values: expected a list of integers or a string "
     "of Python"},
    {P("{\"Name\": \"a\", \"Values\": [1, \"2\"]}"),
     "TuningParameters[0].Values[1]: expected an integer"},
    /* Whole floats past int64 are refused, not cast (undefined
     * behaviour: the sanitizer build's float-cast-overflow stops there). */
    {P("{\"Name\": \"a\", \"Values\": [1, 1e19]}"),
     "TuningParameters[0].Values[1]: expected an integer"},
    {P("{\"Name\": \"a\", \"Values\": [9223372036854775808.0]}"),
     "TuningParameters[0].Values[0]: expected an integer"},
    {P("{\"Name\": \"a\", \"Values\": [-1e300]}"),
     "TuningParameters[0].Values[0]: expected an integer"},
    {P("{\"Name\": \"a\", \"Values\": []}"),
     "TuningParameters[0].Values: expected at least one value"},
    {P("{\"Name\": \"a\", \"Values\": \"[1, 2, 1]\"}"),
     "TuningParameters[0].Values: 1 is listed twice"},
    {P("{\"Name\": \"a\", \"Values\": \"[1, 2\"}"),
     "TuningParameters[0].Values: '[1, 2': a missing ']'"},
    {P("{\"Name\": \"a\", \"Values\": [1], \"Default\": \"1\"}"),
     "TuningParameters[0].Default: expected an integer, found the string"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": [" OK_PARAM
     "], \"Conditions\": [{\"Parameters\": [\"a\"]}]}}",
     "Conditions[0].Expression: expected a condition in Python syntax"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": [" OK_PARAM
     "], \"Conditions\": [{\"Expression\": \"a && 1\"}]}}",
     "Conditions[0].Expression: 'a && 1': unexpected text after the "
     "expression: '&&' is written 'and' in Python syntax at column 3"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": [" OK_PARAM
     "], \"Conditions\": [{\"Expression\": \"b > 1\"}]}}",
     "Conditions[0].Expression: 'b > 1': 'b' is not declared"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": [" OK_PARAM
     "], \"Conditions\": [{\"Expression\": \"a > 1\", \"Parameters\": "
     "[\"a\", \"c\"]}]}}",
     "Conditions[0].Parameters[1]: 'c' is not a parameter"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": [" OK_PARAM
     "]}, \"KernelSpecification\": {\"LocalSize\": [1]}}",
     "KernelSpecification.LocalSize: expected an object"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": [" OK_PARAM
     "]}, \"KernelSpecification\": {\"ProblemSize\": \"4096\"}}",
     "KernelSpecification.ProblemSize: expected an integer or a list"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": [" OK_PARAM
     "]}, \"KernelSpecification\": {\"KernelName\": 3}}",
     "KernelSpecification.KernelName: expected a string, found 3"},
    {"{\"ConfigurationSpace\": {\"TuningParameters\": [" OK_PARAM
     "]}, \"KernelSpecification\": {\"Arguments\": [{\"Size\": true}]}}",
     "KernelSpecification.Arguments[0].Size: expected an integer or an "
     "expression, found true"},
};

static void damaged_files_name_the_json_path(void **state)
{
    char path[] = "/tmp/ktune-t1-XXXXXX";
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    for (size_t k = 0; k < sizeof damaged / sizeof damaged[0]; ++k) {
        FILE *f = fopen(path, "w");
        kt_t1_space *s = NULL;
        kt_err err;
        assert_non_null(f);
        fputs(damaged[k].json, f);
        fclose(f);
        if (kt_t1_load(path, &s, &err) != KT_S_INPUT)
            fail_msg("case %zu accepted: %s", k, damaged[k].json);
        if (!strstr(err.msg, damaged[k].want) || !strstr(err.msg, path))
            fail_msg("case %zu: '%s' lacks '%s'", k, err.msg, damaged[k].want);
        assert_null(s);
    }
    unlink(path);
}

/* s repeated n times, then mid, then tail repeated n times (malloc'ed). */
static char *nest(const char *head, size_t n, const char *mid, const char *tail)
{
    size_t h = strlen(head), m = strlen(mid), t = strlen(tail);
    char *out = malloc(n * (h + t) + m + 1), *p = out;
    assert_non_null(out);
    for (size_t i = 0; i < n; ++i, p += h)
        memcpy(p, head, h);
    memcpy(p, mid, m);
    p += m;
    for (size_t i = 0; i < n; ++i, p += t)
        memcpy(p, tail, t);
    *p = '\0';
    return out;
}

/* Issue 53, N20: 100,000 levels of nesting in a condition or a value list
 * crashed the importer (stack overflow); each is refused naming the
 * limit. */
static void hostile_nesting_is_refused_naming_the_limit(void **state)
{
    static const struct {
        const char *head, *mid, *tail, *want;
        int is_values;
    } cases[] = {
        {"(", "a", ")", "deeper than 200 levels", 0},
        {"-", "a", "", "deeper than 200 levels", 0},
        {"not ", "a", "", "deeper than 200 levels", 0},
        {"2**", "a", "", "deeper than 200 levels", 0},
        {"min(1, ", "a", ")", "deeper than 200 levels", 0},
        {"list(", "[1]", ")", "deeper than 64 levels", 1},
        {"(", "[1]", ")", "deeper than 64 levels", 1},
        {"[x for x in ", "[1]", "]", "deeper than 64 levels", 1},
    };
    char path[] = "/tmp/ktune-t1-nest-XXXXXX";
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char *text = nest(cases[k].head, 100000, cases[k].mid, cases[k].tail);
        FILE *f = fopen(path, "w");
        kt_t1_space *s = NULL;
        kt_err err;
        assert_non_null(f);
        if (cases[k].is_values)
            fprintf(f,
                    "{\"ConfigurationSpace\": {\"TuningParameters\": "
                    "[{\"Name\": \"a\", \"Values\": \"%s\"}]}}",
                    text);
        else
            fprintf(f,
                    "{\"ConfigurationSpace\": {\"TuningParameters\": "
                    "[" OK_PARAM "], \"Conditions\": [{\"Expression\": "
                    "\"%s\"}]}}",
                    text);
        fclose(f);
        free(text);
        if (kt_t1_load(path, &s, &err) != KT_S_INPUT)
            fail_msg("case %zu accepted", k);
        if (!strstr(err.msg, cases[k].want) || !strstr(err.msg, "limit"))
            fail_msg("case %zu: '%.300s' lacks '%s'", k, err.msg,
                     cases[k].want);
        assert_null(s);
    }
    unlink(path);
}

static void only_regular_files_are_read(void **state)
{
    kt_t1_space *s = NULL;
    kt_err err;
    (void)state;
    assert_int_equal(kt_t1_load(KT_SOURCE_DIR "/tests", &s, &err), KT_S_INPUT);
    assert_contains(err.msg, "directory");
    assert_int_equal(kt_t1_load("/nonexistent/space.json", &s, &err),
                     KT_S_INPUT);
    assert_null(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_field_is_read),
        cmocka_unit_test(count_matches_brute_force_and_python),
        cmocka_unit_test(value_strings_expand_as_python_does),
        cmocka_unit_test(bad_value_strings_say_where),
        cmocka_unit_test(damaged_files_name_the_json_path),
        cmocka_unit_test(only_regular_files_are_read),
        cmocka_unit_test(hostile_nesting_is_refused_naming_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
