// SPDX-License-Identifier: Apache-2.0
/* Every vector_add variant verifies at every boundary size (fewer elements
 * than one block, exact multiples, tails) and at odd sizes, across its
 * parameter values. */
#include "tests/kt_test.h"

#include "core/param.h"
#include "tests/gpu/gpu_util.h"

static kt_registry reg;

static void every_variant_at_every_size(void **state)
{
    /* Sizes chosen around blocks (32..1024) and float4 tails. */
    static const int64_t sizes[] = {
        1, 2, 3, 5, 31, 33, 255, 257, 1023, 1025, 4099, 65537, (1 << 20) + 3};
    kt_protocol p = kt_quick_protocol();
    int checked = 0;
    (void)state;
    p.min_samples = 1;
    p.max_samples = 3;
    p.warmups = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const kt_operator *op;
        kt_evaluator *ev = kt_test_open(&reg, "vector_add:add", sizes[s], &op);
        for (uint32_t v = 0; v < op->num_variants; ++v) {
            const kt_variant *var = &op->variants[v];
            /* Every value of the first parameter (block), defaults for the
             * rest; then every value of the second, if any. */
            for (uint32_t k = 0; k < var->num_params && k < 2; ++k) {
                for (size_t i = 0; i < kt_param_count(&var->params[k]); ++i) {
                    kt_point pt;
                    kt_eval_result r;
                    kt_err err;
                    kt_point_default(op, v, &pt);
                    pt.values[k] = kt_param_value_at(&var->params[k], i);
                    assert_int_equal(
                        ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
                    if (r.status == KT_EVAL_INVALID)
                        continue; /* e.g. 32 blocks x 1024 per SM */
                    if (r.status != KT_EVAL_OK)
                        fail_msg("%s n=%lld %s=%lld: %s: %s", var->id,
                                 (long long)sizes[s], var->params[k].name,
                                 (long long)pt.values[k],
                                 kt_eval_status_name(r.status), r.reason);
                    kt_eval_result_free(&r);
                    ++checked;
                }
            }
        }
        ev->ops->close(ev);
    }
    printf("verified %d (variant, parameter, size) combinations\n", checked);
    assert_true(checked > 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_at_every_size),
    };
    /* Plugins are probed in child processes: load them before anything
     * initialises CUDA in this one. */
    kt_test_registry(&reg);
    kt_skip_without_gpu();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
