// SPDX-License-Identifier: Apache-2.0
/* Verification catches what it must: an element left unwritten (poison), a
 * single wrong element, and a launch the device refuses; none of them stops
 * the evaluator from measuring the correct variant afterwards. */
#include "tests/kt_test.h"

#include "tests/gpu/gpu_util.h"

static kt_registry reg;

/* Asserts the status, printing the reason when it differs. */
#define assert_status(r, want)                                                 \
    do {                                                                       \
        if ((r).status != (want))                                              \
            fail_msg("status %s, expected %s: %s",                             \
                     kt_eval_status_name((r).status),                          \
                     kt_eval_status_name(want), (r).reason);                   \
    } while (0)

static kt_eval_result run(kt_evaluator *ev, const kt_operator *op,
                          const char *variant)
{
    kt_protocol p = kt_quick_protocol();
    kt_eval_result r;
    kt_point pt;
    size_t index;
    kt_err err;
    assert_int_equal(kt_operator_find_variant(op, variant, &index, &err),
                     KT_S_OK);
    kt_point_default(op, (uint32_t)index, &pt);
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
    return r;
}

static void faults_are_named_and_the_run_goes_on(void **state)
{
    const kt_operator *op;
    kt_evaluator *ev = kt_test_open(&reg, "gpu_faults:twice", 100000, &op);
    kt_eval_result r;
    (void)state;

    r = run(ev, op, "skips_last");
    assert_status(r, KT_EVAL_MISMATCH);
    /* Caught already at the smallest boundary size, where the only element
     * is the last one. */
    assert_contains(r.reason, "verifying at n=1 (one element)");
    assert_contains(r.reason, "got NaN");

    r = run(ev, op, "wrong_one");
    assert_status(r, KT_EVAL_MISMATCH);
    assert_contains(r.reason, "1 of");

    r = run(ev, op, "refused");
    assert_status(r, KT_EVAL_INVALID);
    assert_contains(r.reason, "launch refused");

    r = run(ev, op, "correct");
    assert_status(r, KT_EVAL_OK);
    assert_true(r.timing.kernel.n >= 5);
    assert_true(r.timing.kernel.median > 0);
    kt_eval_result_free(&r);
    ev->ops->close(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(faults_are_named_and_the_run_goes_on),
    };
    /* Plugins are probed in child processes: load them before anything
     * initialises CUDA in this one. */
    kt_test_registry(&reg);
    kt_skip_without_gpu();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
