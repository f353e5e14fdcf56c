// SPDX-License-Identifier: Apache-2.0
/* The traced program's environment is ktune's with the named changes, and
 * ktune's own is left as it was: a variable set for the child, one
 * removed from it, one replaced, and the exit status passed on. */
#include "tests/kt_test.h"

#include <stdlib.h>

#include "core/childenv.h"
#include "timeline/launch.h"

/* The shell exits 7 only when it saw exactly the changes asked for. */
static void the_program_sees_the_changes_and_ktune_keeps_its_own(void **state)
{
    char *argv[] = {"/bin/sh", "-c",
                    "[ \"$KT_T_NEW\" = 'a b' ] && [ -z \"${KT_T_GONE+x}\" ] "
                    "&& [ \"$KT_T_SWAP\" = 2 ] && [ \"$KT_T_KEEP\" = k ] "
                    "&& exit 7; exit 1",
                    NULL};
    const char *vars[] = {"KT_T_NEW=a b", "KT_T_GONE", "KT_T_SWAP=2", NULL};
    kt_tl_run run;
    kt_err err;
    (void)state;
    /* The test process's own environment, as ktune's would be. */
    assert_int_equal(putenv("KT_T_GONE=x"), 0);
    assert_int_equal(putenv("KT_T_SWAP=1"), 0);
    assert_int_equal(putenv("KT_T_KEEP=k"), 0);
    assert_int_equal(kt_tl_launch_env(argv, vars, &run, &err), KT_S_OK);
    assert_int_equal(run.signal, 0);
    assert_int_equal(run.exit_code, 7);
    assert_null(getenv("KT_T_NEW"));
    assert_string_equal(getenv("KT_T_GONE"), "x");
    assert_string_equal(getenv("KT_T_SWAP"), "1");
}

/* The list the commands build their changes with: a set, a removal, and
 * one change too many said instead of dropped. */
static void changes_are_gathered_and_too_many_are_refused(void **state)
{
    char *argv[] = {"/bin/sh", "-c",
                    "[ \"$KT_T_LIST\" = 1 ] && [ -z \"${KT_T_GONE+x}\" ] "
                    "&& exit 7; exit 1",
                    NULL};
    kt_childenv_changes c = {.n = 0};
    kt_tl_run run;
    kt_err err;
    (void)state;
    assert_int_equal(putenv("KT_T_GONE=x"), 0);
    kt_childenv_change(&c, "KT_T_LIST", "1");
    kt_childenv_change(&c, "KT_T_GONE", NULL);
    assert_int_equal(kt_childenv_changes_check(&c, &err), KT_S_OK);
    assert_int_equal(
        kt_tl_launch_env(argv, kt_childenv_changes_list(&c), &run, &err),
        KT_S_OK);
    assert_int_equal(run.exit_code, 7);
    for (unsigned i = 0; i < KT_CHILDENV_MAX_CHANGES; ++i)
        kt_childenv_change(&c, "KT_T_MORE", "1");
    assert_int_equal(kt_childenv_changes_check(&c, &err), KT_S_NOMEM);
    assert_non_null(strstr(err.msg, "more than"));
    kt_childenv_changes_free(&c);
}

static void a_program_that_cannot_start_is_named(void **state)
{
    char *argv[] = {"/nonexistent/kt-prog", NULL};
    kt_tl_run run;
    kt_err err;
    (void)state;
    assert_int_equal(kt_tl_launch_env(argv, NULL, &run, &err), KT_S_INPUT);
    assert_non_null(strstr(err.msg, "/nonexistent/kt-prog: cannot run it"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_program_sees_the_changes_and_ktune_keeps_its_own),
        cmocka_unit_test(changes_are_gathered_and_too_many_are_refused),
        cmocka_unit_test(a_program_that_cannot_start_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
