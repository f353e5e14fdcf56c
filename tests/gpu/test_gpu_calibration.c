// SPDX-License-Identifier: Apache-2.0
/* Calibration is sane: the measured copy ceiling lies below the theoretical
 * peak and not absurdly far from it, the launch floor is microseconds, and
 * working sets inside the L2 copy faster than ones far beyond it. */
#include "tests/kt_test.h"

#include "engine/calibrate.h"
#include "tests/gpu/gpu_util.h"

static void ceilings_are_plausible(void **state)
{
    kt_gpu gpu;
    kt_meter meter;
    kt_calibration c;
    kt_err err;
    double best_in_l2 = 0;
    (void)state;

    assert_int_equal(kt_gpu_open(0, &gpu, &err), KT_S_OK);
    assert_int_equal(kt_meter_open(&meter, &gpu, &err), KT_S_OK);
    assert_int_equal(kt_calib_run(&meter, &c, &err), KT_S_OK);
    printf("copy %.0f GB/s of %.0f theoretical; floor %.2f us queued, %.2f us "
           "synchronous\n",
           c.copy_gbs, c.peak_bw_gbs, c.launch_floor_us, c.launch_sync_us);
    assert_true(c.copy_gbs < c.peak_bw_gbs);
    assert_true(c.copy_gbs > 0.5 * c.peak_bw_gbs);
    assert_true(c.launch_floor_us > 0 && c.launch_floor_us < 50);
    assert_true(c.launch_sync_us > 0 && c.launch_sync_us < 200);
    assert_true(c.sweep_count >= 8);
    for (size_t i = 0; i < c.sweep_count; ++i)
        if (c.sweep_bytes[i] <= c.l2_bytes / 2 && c.sweep_gbs[i] > best_in_l2)
            best_in_l2 = c.sweep_gbs[i];
    printf("best in-L2 copy %.0f GB/s, largest working set %.0f GB/s\n",
           best_in_l2, c.sweep_gbs[c.sweep_count - 1]);
    assert_true(best_in_l2 > 1.2 * c.sweep_gbs[c.sweep_count - 1]);
    /* The FMA ceiling: FP32 at 128 lanes x 2 flops per SM and clock at
     * most; FP64 slower (half the lanes on sm_90, far fewer elsewhere). */
    printf("FMA ceiling FP32 %.0f GFLOP/s, FP64 %.0f GFLOP/s (%d SMs)\n",
           c.fp32_gflops, c.fp64_gflops, gpu.dev.sm_count);
    assert_true(c.fp32_gflops > 0 && c.fp64_gflops > 0);
    assert_true(c.fp64_gflops < c.fp32_gflops);
    assert_true(c.fp32_gflops < 2.0 * 128 * gpu.dev.sm_count * 3.0);
    kt_meter_close(&meter);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ceilings_are_plausible),
    };
    kt_skip_without_gpu();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
