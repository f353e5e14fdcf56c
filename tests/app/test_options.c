// SPDX-License-Identifier: Apache-2.0
/* The shared options (app/options.c), parsed in one place for bench,
 * profile, compare, tune and report: each command gets the shared options
 * it names and its own, repeatable options keep every value in order, and
 * a bad option or value is one message naming the command. */
#include "tests/kt_test.h"

#include "app/cli.h"
#include "app/options.h"

typedef struct own {
    int flag;
    const char *value;
} own;

static kt_status apply(void *ctx, int opt, char *arg, kt_err *err)
{
    own *o = ctx;
    (void)err;
    if (opt == 'f')
        o->flag = 1;
    else
        o->value = arg;
    return KT_S_OK;
}

static const struct option own_options[] = {
    {"flag", no_argument, NULL, 'f'},
    {"value", required_argument, NULL, 'v'},
    {NULL, 0, NULL, 0}};

static int parse(unsigned shared, own *mine, kt_cli_options *o, kt_err *err,
                 int argc, char **argv)
{
    const kt_cli_command cmd = {.name = "demo",
                                .help = "usage: demo\n",
                                .shared = shared,
                                .own = own_options,
                                .apply = apply,
                                .ctx = mine};
    kt_err_clear(err);
    return kt_cli_parse(argc, argv, &cmd, o, err);
}

static void shared_and_own_options_in_one_pass(void **state)
{
    char *argv[] = {
        "demo",   "--set",      "block=64",        "--size", "n=2^20",
        "--flag", "--set",      "items=2",         "a:b",    "--value=x",
        "--seed", "7",          "--warmups",       "0",      "--cache",
        "hot",    "--no-probe", "--no-boundaries", NULL};
    kt_cli_options o;
    own mine = {0};
    kt_err err;
    (void)state;

    assert_int_equal(
        parse(KT_OPT_MEASURING | KT_OPT_SET, &mine, &o, &err, 18, argv), 0);
    assert_int_equal(o.sets.count, 2);
    assert_string_equal(o.sets.items[0], "block=64");
    assert_string_equal(o.sets.items[1], "items=2");
    assert_int_equal(o.sizes.count, 1);
    assert_true(mine.flag);
    assert_string_equal(mine.value, "x");
    assert_true(o.have_seed);
    assert_int_equal(o.seed, 7);
    assert_int_equal(o.protocol.warmups, 0);
    assert_int_equal(o.protocol.probe_ns, 0);
    assert_int_equal(o.boundaries, 0);
    assert_int_equal(o.counters, 1); /* the default */
    assert_int_equal(o.num_operands, 1);
    assert_string_equal(o.operands[0], "a:b");
    kt_cli_options_free(&o);
}

static void an_option_the_command_does_not_take_is_a_usage_error(void **state)
{
    char *argv[] = {"demo", "--warmups", "3", "a:b", NULL};
    kt_cli_options o;
    own mine = {0};
    kt_err err;
    (void)state;

    opterr = 0; /* not getopt's own line on stderr */
    assert_int_equal(parse(KT_OPT_PLUGIN, &mine, &o, &err, 4, argv),
                     KT_EXIT_USAGE);
    opterr = 1;
    assert_int_equal(err.status, KT_S_INPUT);
    assert_string_equal(err.msg,
                        "demo: unknown option '--warmups'; see 'ktune demo "
                        "--help'");
    kt_cli_options_free(&o);
}

static void an_option_without_its_value_says_so(void **state)
{
    char *argv[] = {"demo", "a:b", "--plugin", NULL};
    kt_cli_options o;
    own mine = {0};
    kt_err err;
    (void)state;

    opterr = 0;
    assert_int_equal(parse(KT_OPT_PLUGIN, &mine, &o, &err, 3, argv),
                     KT_EXIT_USAGE);
    opterr = 1;
    assert_string_equal(err.msg,
                        "demo: option '--plugin' needs a value; see 'ktune "
                        "demo --help'");
    kt_cli_options_free(&o);
}

static void a_bad_value_names_the_option(void **state)
{
    char *argv[] = {"demo", "--min-samples", "-1", NULL};
    kt_cli_options o;
    own mine = {0};
    kt_err err;
    (void)state;

    assert_int_equal(parse(KT_OPT_PROTOCOL, &mine, &o, &err, 3, argv),
                     KT_EXIT_USAGE);
    assert_contains(err.msg, "--min-samples: expected a count >= 0");
    kt_cli_options_free(&o);
}

static void repeatable_options_keep_every_value(void **state)
{
    enum { N = 100 };
    char *argv[2 * N + 2];
    kt_cli_options o;
    own mine = {0};
    kt_err err;
    (void)state;

    argv[0] = "demo";
    for (int i = 0; i < N; ++i) {
        argv[1 + 2 * i] = "--plugin";
        argv[2 + 2 * i] = i % 2 ? "odd.so" : "even.so";
    }
    argv[2 * N + 1] = NULL;
    assert_int_equal(parse(KT_OPT_PLUGIN, &mine, &o, &err, 2 * N + 1, argv), 0);
    assert_int_equal(o.plugins.count, N);
    assert_string_equal(o.plugins.items[N - 1], "odd.so");
    kt_cli_options_free(&o);
}

static void the_operand_is_exactly_one_plugin_operator(void **state)
{
    char *none[] = {"demo", NULL}, *two[] = {"demo", "a:b", "c:d", NULL};
    kt_cli_options o;
    own mine = {0};
    const char *spec;
    kt_err err;
    (void)state;

    assert_int_equal(parse(0, &mine, &o, &err, 1, none), 0);
    assert_int_equal(kt_cli_operator_operand("demo", &o, &spec, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "demo: PLUGIN:OPERATOR is missing");
    kt_cli_options_free(&o);
    assert_int_equal(parse(0, &mine, &o, &err, 3, two), 0);
    assert_int_equal(kt_cli_operator_operand("demo", &o, &spec, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "found 2 operands");
    kt_cli_options_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_and_own_options_in_one_pass),
        cmocka_unit_test(an_option_the_command_does_not_take_is_a_usage_error),
        cmocka_unit_test(an_option_without_its_value_says_so),
        cmocka_unit_test(a_bad_value_names_the_option),
        cmocka_unit_test(repeatable_options_keep_every_value),
        cmocka_unit_test(the_operand_is_exactly_one_plugin_operator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
