// SPDX-License-Identifier: Apache-2.0
/* The energy window (engine/energy_meter.c) end to end on the CPU: a
 * simulated CUDA runtime whose stream runs the launches on the host's real
 * clock (each takes its target's duration, back to back), and the
 * simulated NVML of fake_nvml.c (300 W in 10 ms stairs). The windows
 * must keep the simulated GPU busy, span at least the asked window between
 * two counter changes, alternate the targets round by round, and give each
 * target its power x its launch time; a counter that never moves in time
 * gives a note, not a figure. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "core/nvml.h"
#include "engine/energy_meter.h"

/* ------------------------------------------------- the simulated device */

typedef struct sim_event {
    double t;
} sim_event;

static double gpu_free_at; /* real time the queued work is done */

static double real_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = (cudaEvent_t)calloc(1, sizeof(sim_event));
    return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags)
{
    (void)flags;
    return cudaEventCreate(e);
}
cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    (void)s;
    gpu_free_at = fmax(gpu_free_at, real_now());
    ((sim_event *)e)->t = gpu_free_at;
    return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t e)
{
    return real_now() >= ((sim_event *)e)->t ? cudaSuccess : cudaErrorNotReady;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    (void)s;
    while (real_now() < gpu_free_at)
        ;
    return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(1e3 * (((sim_event *)b)->t - ((sim_event *)a)->t));
    return cudaSuccess;
}
cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t c)
{
    (void)c;
    return "simulated";
}
const char *cudaGetErrorName(cudaError_t c)
{
    (void)c;
    return "simulated";
}

/* A target: each launch runs us microseconds after what is queued. */
typedef struct sim_target {
    double us;
    long launches;
} sim_target;

static kt_status sim_launch(void *ctx, cudaStream_t s, kt_err *err)
{
    sim_target *t = ctx;
    (void)s;
    (void)err;
    gpu_free_at = fmax(gpu_free_at, real_now()) + 1e-6 * t->us;
    ++t->launches;
    return KT_S_OK;
}

static void open_fake(kt_nvml *n)
{
    kt_err err;
    setenv("KTUNE_NVML_LIBRARY", KT_FAKE_NVML, 1);
    setenv("KT_FAKE_NVML_POWER_W", "300", 1);
    setenv("KT_FAKE_NVML_STEP_MS", "10", 1);
    if (kt_nvml_open("0000:19:00.0", n, &err))
        fail_msg("%s", err.msg);
}

static void each_target_gets_its_power_times_its_launch_time(void **state)
{
    sim_target t[2] = {{50, 0}, {200, 0}};
    kt_target tg[2] = {{sim_launch, NULL, NULL, &t[0]},
                       {sim_launch, NULL, NULL, &t[1]}};
    const double median[2] = {50, 200};
    kt_protocol p;
    kt_energy e[2];
    kt_nvml n;
    kt_err err;
    (void)state;

    open_fake(&n);
    kt_protocol_defaults(&p);
    p.energy = 1;
    p.energy_rounds = 2;
    p.energy_window_s = 0.06;
    assert_int_equal(kt_energy_measure(&n, NULL, tg, median, 2, &p, e, &err),
                     KT_S_OK);
    for (int k = 0; k < 2; ++k) {
        double want, bound;
        assert_true(e[k].measured);
        assert_int_equal(e[k].rounds, 2);
        assert_int_equal(e[k].launches, (uint64_t)t[k].launches);
        assert_true(e[k].window_s >= 2 * 0.06);
        /* GPU time per launch: the launch's own, plus whatever gaps a
         * loaded host left between batches (they count, as on a GPU). */
        assert_true(e[k].launch_us >= t[k].us * 0.999);
        assert_true(e[k].launch_us <= t[k].us * 1.2);
        want = 300 * 1e-6 * e[k].launch_us;
        /* Within the resolution the window states, and a little for the
         * simulated stream's own timing. */
        bound = e[k].resolution + 0.03;
        if (fabs(e[k].joules.median / want - 1) > bound)
            fail_msg("target %d: %g J per launch, %g J expected within %.1f%%",
                     k, e[k].joules.median, want, 100 * bound);
        assert_float_equal(e[k].power_w, 300, 300 * bound);
        assert_float_equal(e[k].dev.power_limit_w, 700, 0);
        assert_float_equal(e[k].dev.sampled_power_w, 300, 1e-9);
        assert_true(e[k].dev.power_samples > 0);
        assert_float_equal(e[k].step_mj, 3000, 0);
    }
}

static void a_counter_too_slow_for_the_window_gives_a_note(void **state)
{
    sim_target t = {100, 0};
    kt_target tg = {sim_launch, NULL, NULL, &t};
    const double median = 100;
    kt_protocol p;
    kt_energy e;
    kt_nvml n;
    kt_err err;
    (void)state;

    open_fake(&n);
    /* A 3 s step against a 1 ms window: the window gives up (after
     * 4 x 1 ms + 2 s) with at most one change seen. */
    setenv("KT_FAKE_NVML_STEP_MS", "3000", 1);
    kt_protocol_defaults(&p);
    p.energy = 1;
    p.energy_rounds = 1;
    p.energy_window_s = 0.001;
    assert_int_equal(kt_energy_measure(&n, NULL, &tg, &median, 1, &p, &e, &err),
                     KT_S_OK);
    assert_false(e.measured);
    assert_true(strstr(e.note, "the energy counter changed") != NULL);
    setenv("KT_FAKE_NVML_STEP_MS", "10", 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_target_gets_its_power_times_its_launch_time),
        cmocka_unit_test(a_counter_too_slow_for_the_window_gives_a_note),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
