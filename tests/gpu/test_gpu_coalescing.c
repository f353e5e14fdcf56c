// SPDX-License-Identifier: Apache-2.0
/* The finding of the methodology, reproduced: at n = 2^24 with block 256,
 * the strided mapping is several times slower than the coalesced one. Both
 * are measured in the same interleaved rounds. */
#include "tests/kt_test.h"

#include "core/stats.h"
#include "tests/gpu/gpu_util.h"

static kt_registry reg;

static void strided_is_several_times_slower(void **state)
{
    const kt_operator *op;
    kt_evaluator *ev = kt_test_open(&reg, "vector_add:add", 1 << 24, &op);
    kt_protocol p;
    kt_point pts[2];
    kt_eval_result r[2];
    kt_ratio ratio;
    kt_err err;
    (void)state;

    kt_protocol_defaults(&p);
    p.min_time_s = 0.1;
    kt_point_default(op, 0, &pts[0]); /* coalesced */
    kt_point_default(op, 1, &pts[1]); /* strided */
    assert_string_equal(op->variants[1].id, "strided");
    assert_int_equal(ev->ops->evaluate(ev, pts, 2, &p, r, &err), KT_S_OK);
    assert_int_equal(r[0].status, KT_EVAL_OK);
    assert_int_equal(r[1].status, KT_EVAL_OK);
    kt_stats_paired_ratio(r[0].timing.samples_us, r[1].timing.samples_us,
                          r[0].timing.num_rounds, &ratio);
    printf("coalesced %.1f us, strided %.1f us, paired ratio %.2f "
           "[%.2f, %.2f]\n",
           r[0].timing.kernel.median, r[1].timing.kernel.median, ratio.ratio,
           ratio.lo, ratio.hi);
    assert_true(ratio.lo > 3.0);
    kt_eval_result_free(&r[0]);
    kt_eval_result_free(&r[1]);
    ev->ops->close(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strided_is_several_times_slower),
    };
    /* Plugins are probed in child processes: load them before anything
     * initialises CUDA in this one. */
    kt_test_registry(&reg);
    kt_skip_without_gpu();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
