// SPDX-License-Identifier: Apache-2.0
/* The declared floor alone (declared/), in a binary that links neither the
 * CUDA runtime nor NVRTC (a PURE test): a declaration is read and checked
 * with no compiler, its scalars evaluated, and its mistakes named with
 * file and line. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "declared/declared.h"

/* float 2048 / n divides truly (0.5 at n = 4096, not 0); double 3.05e-6
 * is a literal. */
static void float_scalars_are_literals_or_true_divisions_of_sizes(void **s)
{
    kt_declared *d = NULL;
    int64_t sizes[2] = {4096, 16};
    double x = 0;
    kt_err err;
    (void)s;
    /* The declared floor alone: no compiler, no CUDA (a PURE test). */
    if (kt_declared_read(KT_SOURCE_DIR "/tests/declared/features/features.ini",
                         NULL, &d, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(kt_declared_scalar(d, &d->args[5], sizes, &x, &err),
                     KT_S_OK);
    assert_true(x == 0.5);
    sizes[0] = 3000;
    assert_int_equal(kt_declared_scalar(d, &d->args[5], sizes, &x, &err),
                     KT_S_OK);
    assert_true(fabs(x - 2048.0 / 3000.0) < 1e-15);
    assert_int_equal(kt_declared_scalar(d, &d->args[6], sizes, &x, &err),
                     KT_S_OK);
    assert_true(x == 3.05e-6);
    kt_declared_free(d);
}

/* Without a compiler the check compiles nothing, yet every other mistake
 * is still the declaration's, at its line. */
static void mistakes_are_named_without_a_compiler(void **s)
{
    const char *path = "declared_read_bad.ini";
    kt_declared *d = NULL;
    kt_err err;
    FILE *f;
    (void)s;
    assert_non_null(f = fopen(path, "w"));
    fputs("[operator]\nname = bad\nsource = nothing.cu\n", f);
    fclose(f);
    assert_int_equal(kt_declared_read(path, NULL, &d, &err), KT_S_INPUT);
    assert_null(d);
    assert_contains(err.msg, path);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_scalars_are_literals_or_true_divisions_of_sizes),
        cmocka_unit_test(mistakes_are_named_without_a_compiler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
