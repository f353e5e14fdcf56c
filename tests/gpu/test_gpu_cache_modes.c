// SPDX-License-Identifier: Apache-2.0
/* The cache mode does what it says: a 12 MiB working set (inside the 60 MiB
 * L2) runs faster hot than cold, because cold flushes the L2 before every
 * sample. */
#include "tests/kt_test.h"

#include "tests/gpu/gpu_util.h"

static kt_registry reg;

static void hot_beats_cold_inside_the_l2(void **state)
{
    const kt_operator *op;
    kt_evaluator *ev = kt_test_open(&reg, "vector_add:add", 1 << 20, &op);
    kt_protocol p = kt_quick_protocol();
    kt_eval_result cold, hot;
    kt_point pt;
    kt_err err;
    (void)state;

    p.min_samples = 50;
    p.max_samples = 400;
    kt_point_default(op, 0, &pt);
    p.cache = KT_CACHE_COLD;
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &cold, &err), KT_S_OK);
    p.cache = KT_CACHE_HOT;
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &hot, &err), KT_S_OK);
    assert_int_equal(cold.status, KT_EVAL_OK);
    assert_int_equal(hot.status, KT_EVAL_OK);
    printf("n=2^20: cold %.2f us, hot %.2f us\n", cold.timing.kernel.median,
           hot.timing.kernel.median);
    assert_true(hot.timing.kernel.median < 0.9 * cold.timing.kernel.median);
    kt_eval_result_free(&cold);
    kt_eval_result_free(&hot);
    ev->ops->close(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hot_beats_cold_inside_the_l2),
    };
    /* Plugins are probed in child processes: load them before anything
     * initialises CUDA in this one. */
    kt_test_registry(&reg);
    kt_skip_without_gpu();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
