// SPDX-License-Identifier: Apache-2.0
/* In a worker process, a kernel that writes out of bounds (a sticky fault
 * that destroys the CUDA context) and one that never terminates each cost
 * one point: the first is an execution error, the second a time-out, and
 * the points before and after them are measured normally. */
#include "tests/kt_test.h"

#include "isolation/worker.h"
#include "tests/gpu/gpu_util.h"

static kt_registry reg;

static kt_point variant(const kt_operator *op, const char *id)
{
    kt_point pt;
    size_t index;
    kt_err err;
    assert_int_equal(kt_operator_find_variant(op, id, &index, &err), KT_S_OK);
    kt_point_default(op, (uint32_t)index, &pt);
    return pt;
}

static void faults_and_hangs_cost_one_point_each(void **state)
{
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_eval_spec spec = {0};
    kt_worker_options opt = {KT_KTUNE_EXE, 120.0, 5.0};
    kt_protocol p = kt_quick_protocol();
    kt_evaluator *ev;
    kt_eval_result r[4];
    kt_point pts[4];
    kt_err err;
    (void)state;

    assert_int_equal(
        kt_registry_resolve(&reg, "gpu_faults:twice", &lp, &op, &err), KT_S_OK);
    spec.plugin = lp;
    spec.op = op;
    spec.sizes[0] = 100000;
    spec.seed = 1;
    spec.check_boundaries = 1;
    spec.log_level = KT_LOG_WARN;
    assert_int_equal(kt_worker_open(&spec, &opt, &ev, &err), KT_S_OK);
    pts[0] = variant(op, "correct");
    pts[1] = variant(op, "out_of_bounds");
    pts[2] = variant(op, "endless");
    pts[3] = variant(op, "correct");
    pts[3].values[0] = 256;
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(ev->ops->evaluate(ev, &pts[i], 1, &p, &r[i], &err),
                         KT_S_OK);
        printf("%-14s %s %s\n", op->variants[pts[i].variant].id,
               kt_eval_status_name(r[i].status), r[i].reason);
    }
    assert_int_equal(r[0].status, KT_EVAL_OK);
    assert_int_equal(r[1].status, KT_EVAL_EXEC);
    assert_contains(r[1].reason, "illegal");
    assert_int_equal(r[2].status, KT_EVAL_TIMEOUT);
    assert_int_equal(r[3].status, KT_EVAL_OK);
    assert_true(r[3].timing.kernel.median > 0);
    for (int i = 0; i < 4; ++i)
        kt_eval_result_free(&r[i]);
    ev->ops->close(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(faults_and_hangs_cost_one_point_each),
    };
    kt_test_registry(&reg);
    kt_skip_without_gpu();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
