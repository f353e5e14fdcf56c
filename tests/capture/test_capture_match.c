// SPDX-License-Identifier: Apache-2.0
/* Which launches the capturer takes (capture/trace/match.h): a --kernel
 * expression is matched against the mangled, the demangled and the base
 * name (so '^scale_add$' finds a C++ kernel and an extern "C" one alike),
 * the launch number and --max decide next, and every answer says why in
 * words — the --verbose line of each launch callback. */
#include "tests/kt_test.h"

#include <regex.h>
#include <stdio.h>

#include "capture/trace/match.h"

static void base(const char *demangled, const char *want)
{
    char out[256];
    assert_int_equal(kt_cap_base_name(demangled, out, sizeof out), 0);
    assert_string_equal(out, want);
}

static void base_name_drops_parameters_and_return_type(void **state)
{
    (void)state;
    base("scale_add(float const*, float const*, float*, int, float)",
         "scale_add");
    base("transposeCoalesced(float*, float*, int, int)", "transposeCoalesced");
    base("void k<int, 4>(int*)", "k<int, 4>");
    base("void ns::tile<(anonymous namespace)::op, 32>(float*)",
         "ns::tile<(anonymous namespace)::op, 32>");
    base("void f<void (*)(int)>(void (*)(int))", "f<void (*)(int)>");
    base("saxpy", "saxpy");
    base("", "");
}

static void base_name_never_cuts_silently(void **state)
{
    char out[4];
    (void)state;
    assert_int_equal(kt_cap_base_name("scale_add(int)", out, sizeof out), -1);
    assert_int_equal(kt_cap_base_name("abc(int)", out, sizeof out), 0);
    assert_string_equal(out, "abc");
}

static void names_of_a_cpp_and_a_c_kernel(void **state)
{
    kt_cap_names n;
    (void)state;
    assert_int_equal(kt_cap_names_make("_Z9scale_addPKfS0_Pfif", &n), 0);
    assert_string_equal(n.mangled, "_Z9scale_addPKfS0_Pfif");
    assert_string_equal(
        n.demangled,
        "scale_add(float const*, float const*, float*, int, float)");
    assert_string_equal(n.base, "scale_add");
    kt_cap_names_free(&n);
    /* CuPy's RawKernel: extern "C", one name for all three */
    assert_int_equal(kt_cap_names_make("saxpy", &n), 0);
    assert_string_equal(n.demangled, "saxpy");
    assert_string_equal(n.base, "saxpy");
    kt_cap_names_free(&n);
}

/* decide with --kernel re on mangled, launch number launch. */
static int decide(const char *re, const char *mangled, uint64_t want,
                  uint64_t launch, uint64_t captures, int *hit, char *why)
{
    regex_t r;
    kt_cap_names n;
    kt_cap_want w = {re ? &r : NULL, re, want, 64, captures};
    int yes;
    if (re)
        assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
    assert_int_equal(kt_cap_names_make(mangled, &n), 0);
    yes = kt_cap_decide(&w, &n, launch, hit, why, 512);
    kt_cap_names_free(&n);
    if (re)
        regfree(&r);
    return yes;
}

static void an_anchored_expression_matches_the_base_name(void **state)
{
    char why[512];
    int hit;
    (void)state;
    /* Neither "_Z9scale_add..." nor "scale_add(float const*, ...)" is
     * matched by ^scale_add$: only the base name is. */
    assert_true(
        decide("^scale_add$", "_Z9scale_addPKfS0_Pfif", 1, 1, 0, &hit, why));
    assert_true(hit);
    assert_contains(why, "base");
    assert_true(decide("^saxpy$", "saxpy", 1, 1, 0, &hit, why));
    assert_contains(why, "mangled");
    assert_true(decide("transposeCoalesced", "_Z18transposeCoalescedPfS_ii", 1,
                       1, 0, &hit, why));
    assert_true(
        decide("float const\\*", "_Z9scale_addPKfS0_Pfif", 1, 1, 0, &hit, why));
    assert_contains(why, "demangled");
}

static void a_miss_says_which_names_were_tried(void **state)
{
    char why[512];
    int hit;
    (void)state;
    assert_false(
        decide("^bump$", "_Z9scale_addPKfS0_Pfif", 1, 1, 0, &hit, why));
    assert_false(hit);
    assert_contains(why, "--kernel '^bump$' matches none of its names");
    assert_contains(why, "base 'scale_add'");
}

static void the_launch_number_and_max_decide_after_the_name(void **state)
{
    char why[512];
    int hit;
    (void)state;
    assert_false(
        decide("scale_add", "_Z9scale_addPKfS0_Pfif", 2, 1, 0, &hit, why));
    assert_true(hit);
    assert_contains(why, "this is launch 1, not --launch 2");
    assert_true(
        decide("scale_add", "_Z9scale_addPKfS0_Pfif", 2, 2, 0, &hit, why));
    /* --launch all (0) takes every launch, up to --max */
    assert_true(decide(NULL, "_Z4bumpPfi", 0, 7, 0, &hit, why));
    assert_contains(why, "no --kernel");
    assert_false(decide(NULL, "_Z4bumpPfi", 0, 7, 64, &hit, why));
    assert_contains(why, "--max 64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(base_name_drops_parameters_and_return_type),
        cmocka_unit_test(base_name_never_cuts_silently),
        cmocka_unit_test(names_of_a_cpp_and_a_c_kernel),
        cmocka_unit_test(an_anchored_expression_matches_the_base_name),
        cmocka_unit_test(a_miss_says_which_names_were_tried),
        cmocka_unit_test(the_launch_number_and_max_decide_after_the_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
