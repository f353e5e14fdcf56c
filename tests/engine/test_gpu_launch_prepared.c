// SPDX-License-Identifier: Apache-2.0
/* A point's launch is prepared once per point and size: the local evaluator
 * asks shape() once at the requested size and once at each boundary size it
 * verifies at, and hands that answer to every launch, the timed ones
 * included, however many samples are taken (shape() is pure). The plugin
 * (tests/fixtures/shape_count_plugin.c) counts its shape() calls and
 * launches; its launches are empty, so the GPU only times nothing. */
#include "tests/kt_test.h"

#include <dlfcn.h>
#include <stdio.h>

#include "core/point.h"
#include "engine/verify.h"
#include "tests/gpu/gpu_util.h"

static kt_registry reg;

/* Evaluates block at samples samples: the shape() calls and launches it
 * made (counted from zero), and its status. */
static void evaluate(kt_evaluator *ev, const kt_operator *op, int64_t block,
                     uint32_t samples, long *shapes, long *launches,
                     long *shape_calls, long *launch_calls,
                     kt_eval_status *status)
{
    kt_protocol p = kt_quick_protocol();
    kt_point pt;
    kt_eval_result r;
    kt_err err;

    p.min_samples = p.max_samples = samples;
    kt_point_default(op, 0, &pt);
    pt.values[0] = block;
    *shape_calls = *launch_calls = 0;
    assert_int_equal(ev->ops->evaluate(ev, &pt, 1, &p, &r, &err), KT_S_OK);
    *shapes = *shape_calls;
    *launches = *launch_calls;
    *status = r.status;
    printf("block %lld, %u samples: %s%s%s, shape() %ld, launches %ld\n",
           (long long)block, samples, kt_eval_status_name(r.status),
           r.reason[0] ? ": " : "", r.reason, *shapes, *launches);
    kt_eval_result_free(&r);
}

/* 1 + the boundary sizes block is verified at (each one feasible: the
 * plugin has no check and its shapes fit any device). */
static long sizes_of(const kt_operator *op, int64_t n, int64_t block)
{
    kt_boundary list[KT_MAX_BOUNDARIES];
    return 1 + (long)kt_boundary_sizes(op, &n, (uint64_t)block, list,
                                       KT_MAX_BOUNDARIES);
}

static void a_points_launch_is_prepared_once_per_size(void **state)
{
    const int64_t n = 4096;
    static const int64_t blocks[] = {64, 128, 256, 512};
    const kt_operator *op;
    kt_evaluator *ev = kt_test_open(&reg, "shape_count:scale", n, &op);
    const kt_loaded_plugin *lp = kt_registry_find(&reg, "shape_count");
    long *shape_calls, *launch_calls, shapes, launches;
    kt_eval_status status;
    (void)state;

    assert_non_null(lp);
    assert_non_null(lp->handle); /* mapped here: its counters are ours */
    shape_calls = dlsym(lp->handle, "kt_test_shape_calls");
    launch_calls = dlsym(lp->handle, "kt_test_launches");
    assert_non_null(shape_calls);
    assert_non_null(launch_calls);
    /* Fresh points, at few samples and at many: shape() once per size
     * either way; one verification launch per size, then the timed ones. */
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; ++i) {
        uint32_t samples = i % 2 ? 40 : 3;
        evaluate(ev, op, blocks[i], samples, &shapes, &launches, shape_calls,
                 launch_calls, &status);
        assert_int_equal(shapes, sizes_of(op, n, blocks[i]));
        assert_true(launches >= shapes);
        if (status == KT_EVAL_OK)
            assert_true(launches >= shapes + (long)samples);
    }
    /* A point verified before: measured again, prepared from its verdict. */
    evaluate(ev, op, blocks[0], 40, &shapes, &launches, shape_calls,
             launch_calls, &status);
    assert_int_equal(shapes, 0);
    if (status == KT_EVAL_OK)
        assert_true(launches >= 40);
    ev->ops->close(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_points_launch_is_prepared_once_per_size),
    };
    /* Probed before anything initialises CUDA in this process. */
    kt_registry_init(&reg);
    if (kt_registry_load_file(&reg, KT_SHAPE_COUNT_PLUGIN, &(kt_err){0}))
        return 1;
    kt_skip_without_gpu();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
