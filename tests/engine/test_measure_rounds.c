// SPDX-License-Identifier: Apache-2.0
/* Sampling rounds enqueued ahead (engine/measure.c) against a simulated CUDA
 * runtime: every stream operation runs when it is enqueued, on a simulated
 * clock, so the kernels' durations, and with them every sample, are known.
 * Overlapping rounds must take exactly the samples and decisions of
 * waiting for every round, enqueue no round more, and overlap some. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/kernels.h"
#include "engine/measure.h"

/* ------------------------------------------------- the simulated device */

typedef struct sim_event {
    double t_us;
    long seq; /* stream operations enqueued before it */
} sim_event;

static double now_us;           /* the simulated GPU clock */
static long probes;             /* clock probes enqueued: one per sample */
static long records_since;      /* events recorded since the last wait */
static long most_between;       /* the most of them before a wait */
static unsigned throttle_every; /* every k-th probe reads a low clock */
/* Stream operations enqueued, and how many of them a wait has seen done:
 * between the two, work is in flight. */
static long enqueued, completed;
static long restores, restores_beside_work;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
    (void)flags;
    *s = (cudaStream_t)0x1;
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    (void)s;
    return cudaSuccess;
}
cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = calloc(1, n ? n : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaMallocHost(void **p, size_t n)
{
    return cudaMalloc(p, n);
}
cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t cudaFreeHost(void *p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMemset(void *p, int v, size_t n)
{
    memset(p, v, n);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s)
{
    (void)s;
    memset(p, v, n);
    now_us += 1;
    ++enqueued;
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *d, const void *src, size_t n,
                            enum cudaMemcpyKind k, cudaStream_t s)
{
    (void)k;
    (void)s;
    memcpy(d, src, n);
    now_us += 2;
    ++enqueued;
    return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void)
{
    records_since = 0;
    completed = enqueued;
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    (void)s;
    records_since = 0;
    completed = enqueued;
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = (cudaEvent_t)calloc(1, sizeof(sim_event));
    return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    (void)s;
    ((sim_event *)e)->t_us = now_us;
    ((sim_event *)e)->seq = enqueued;
    if (++records_since > most_between)
        most_between = records_since;
    return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    records_since = 0;
    if (((sim_event *)e)->seq > completed)
        completed = ((sim_event *)e)->seq;
    return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)((((sim_event *)b)->t_us - ((sim_event *)a)->t_us) / 1e3);
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
cudaError_t kt_launch_clock_probe(unsigned int *min_khz, int sm_count,
                                  unsigned int ns, cudaStream_t s)
{
    (void)sm_count;
    (void)s;
    now_us += ns / 1e3;
    ++probes;
    ++enqueued;
    *min_khz =
        throttle_every && probes % throttle_every == 0 ? 1000000 : 1980000;
    return cudaSuccess;
}
cudaError_t kt_launch_read_sweep(const void *buf, size_t bytes,
                                 unsigned int *sink, int sm_count,
                                 cudaStream_t s)
{
    (void)buf;
    (void)bytes;
    (void)sink;
    (void)sm_count;
    (void)s;
    now_us += 30;
    ++enqueued;
    return cudaSuccess;
}

/* The flush with the probe riding on it: as long as the longer of the
 * two, one probe reading. */
cudaError_t kt_launch_read_sweep_probe(const void *buf, size_t bytes,
                                       unsigned int *sink,
                                       unsigned int *min_khz, unsigned int ns,
                                       int sm_count, cudaStream_t s)
{
    (void)buf;
    (void)bytes;
    (void)sink;
    now_us += ns / 1e3 > 30 ? 0 : 30 - ns / 1e3;
    return kt_launch_clock_probe(min_khz, sm_count, ns, s);
}

cudaError_t kt_launch_write_sweep(void *buf, size_t bytes, int sm_count,
                                  cudaStream_t s)
{
    (void)buf;
    (void)bytes;
    (void)sm_count;
    (void)s;
    now_us += 30;
    ++enqueued;
    return cudaSuccess;
}

cudaError_t kt_launch_l2_discard(void *buf, size_t bytes, int sm_count,
                                 cudaStream_t s)
{
    (void)buf;
    (void)bytes;
    (void)sm_count;
    (void)s;
    now_us += 5;
    ++enqueued;
    return cudaSuccess;
}

/* A kernel whose k-th launch takes base * (1 + a heavy-tailed noise that
 * depends only on the target and k). */
typedef struct sim_kernel {
    uint64_t id, launches;
    double base_us;
} sim_kernel;

static kt_status sim_launch(void *ctx, cudaStream_t s, kt_err *err)
{
    sim_kernel *k = ctx;
    uint64_t x = (k->id + 1) * 0x9E3779B97F4A7C15ull + k->launches++;
    double u;
    (void)s;
    (void)err;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    u = (double)(x % 1000) / 1000.0;
    now_us += k->base_us * (1 + 0.1 * u * u * u);
    ++enqueued;
    return KT_S_OK;
}

/* A restore of the inputs: an upload outside the timed stream, which
 * would run beside whatever of the stream is still in flight. */
static kt_status sim_reset(void *ctx, kt_err *err)
{
    (void)ctx;
    (void)err;
    ++restores;
    restores_beside_work += completed != enqueued;
    return KT_S_OK;
}

/* ------------------------------------------------------------ the tests */

typedef struct outcome {
    kt_timing t[4];
    long probes, most_between;
} outcome;

static int with_reset; /* the targets restore their inputs */

static void measure(const kt_protocol *p, size_t n, int overlap, outcome *o)
{
    static const double base[4] = {700, 760, 705, 900};
    kt_protocol sync = *p;
    kt_gpu gpu;
    kt_meter meter;
    kt_err err;
    kt_target targets[4];
    sim_kernel k[4];

    memset(&gpu, 0, sizeof gpu);
    gpu.dev.l2_bytes = 1024;
    gpu.dev.sm_count = 132;
    gpu.sm_clock_khz = 1980000;
    probes = records_since = most_between = 0;
    sync.round_sync = !overlap;
    assert_int_equal(kt_meter_open(&meter, &gpu, &err), KT_S_OK);
    for (size_t i = 0; i < n; ++i) {
        k[i] = (sim_kernel){i, 0, base[i]};
        targets[i] =
            (kt_target){sim_launch, with_reset ? sim_reset : NULL, NULL, &k[i]};
    }
    assert_int_equal(kt_meter_measure(&meter, targets, n, &sync, o->t, &err),
                     KT_S_OK);
    o->probes = probes;
    o->most_between = most_between;
    kt_meter_close(&meter);
}

static void assert_same(const outcome *a, const outcome *b, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const kt_timing *x = &a->t[i], *y = &b->t[i];
        assert_int_equal(x->num_rounds, y->num_rounds);
        assert_int_equal(x->discarded, y->discarded);
        assert_int_equal(x->kernel.n, y->kernel.n);
        assert_string_equal(x->stop_reason, y->stop_reason);
        for (size_t r = 0; r < x->num_rounds; ++r)
            assert_true(memcmp(&x->samples_us[r], &y->samples_us[r],
                               sizeof(double)) == 0);
    }
    assert_int_equal(a->probes, b->probes); /* no round sampled for nothing */
}

static void compare_modes(const kt_protocol *p, size_t n)
{
    outcome overlapped, waited;

    measure(p, n, 1, &overlapped);
    measure(p, n, 0, &waited);
    assert_same(&overlapped, &waited, n);
    /* Overlap happened: two rounds' events were recorded before a wait;
     * never beside a restore of the inputs. */
    if (with_reset)
        assert_int_equal(overlapped.most_between, waited.most_between);
    else
        assert_true(overlapped.most_between > waited.most_between);
    for (size_t i = 0; i < n; ++i) {
        kt_timing_free(&overlapped.t[i]);
        kt_timing_free(&waited.t[i]);
    }
}

static kt_protocol protocol(void)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    p.warmups = 1;
    p.min_samples = 10;
    p.max_samples = 300;
    p.min_time_s = 0.01;
    p.max_time_s = 30;
    p.target_noise = 0.001;
    p.cache = KT_CACHE_COLD;
    return p;
}

static void overlapped_rounds_sample_as_waited_ones(void **state)
{
    kt_protocol p = protocol();
    (void)state;
    throttle_every = 0;
    compare_modes(&p, 1);
    compare_modes(&p, 3);
    p.max_samples = 37; /* a cap inside the run */
    compare_modes(&p, 2);
}

static void overlapped_rounds_race_and_pair_as_waited_ones(void **state)
{
    kt_protocol p = protocol();
    (void)state;
    throttle_every = 0;
    p.race = 0.005;
    p.race_bar_us = 701;
    compare_modes(&p, 4);
    p.race_pairs = 1;
    compare_modes(&p, 2);
    p.race = 0;
    p.race_bar_us = 0;
    compare_modes(&p, 3);
}

static void throttled_samples_keep_the_modes_equal(void **state)
{
    kt_protocol p = protocol();
    (void)state;
    throttle_every = 5; /* every fifth sample discarded */
    compare_modes(&p, 2);
    p.race = 0.005;
    p.race_bar_us = 701;
    p.race_pairs = 1;
    compare_modes(&p, 3);
    throttle_every = 0;
}

/* A restore before each sample runs outside the timed stream: a round in
 * flight beside it would be disturbed, so such targets never overlap. */
static void targets_that_restore_inputs_never_overlap(void **state)
{
    kt_protocol p = protocol();
    (void)state;
    throttle_every = 0;
    with_reset = 1;
    compare_modes(&p, 1);
    compare_modes(&p, 2);
    with_reset = 0;
}

/* Every restore waits for the stream to drain: in the warm-up, in a round
 * of several targets (the one before still running), in either mode. */
static void a_restore_never_runs_beside_a_launch_in_flight(void **state)
{
    kt_protocol p = protocol();
    outcome o;
    (void)state;
    throttle_every = 0;
    with_reset = 1;
    p.warmups = 3;
    for (int overlap = 0; overlap < 2; ++overlap) {
        restores = restores_beside_work = 0;
        measure(&p, 3, overlap, &o);
        assert_true(restores >= 3 * (3 + (long)o.t[0].num_rounds));
        assert_int_equal(restores_beside_work, 0);
        for (size_t i = 0; i < 3; ++i)
            kt_timing_free(&o.t[i]);
    }
    with_reset = 0;
}

/* A target whose verification launch just ran (warm = 1) gets one warm-up
 * less: the same samples follow, one launch earlier in its sequence. */
static void a_verification_launch_counts_as_a_warm_up(void **state)
{
    kt_protocol p = protocol();
    kt_gpu gpu;
    kt_meter meter;
    kt_err err;
    kt_timing t[2];
    sim_kernel k[2] = {{0, 0, 700}, {0, 0, 700}};
    kt_target tg[2] = {{sim_launch, NULL, NULL, &k[0], 0},
                       {sim_launch, NULL, NULL, &k[1], 1}};
    (void)state;
    throttle_every = 0;
    p.warmups = 2;
    p.round_sync = 1;
    memset(&gpu, 0, sizeof gpu);
    gpu.dev.l2_bytes = 1024;
    gpu.dev.sm_count = 132;
    gpu.sm_clock_khz = 1980000;
    assert_int_equal(kt_meter_open(&meter, &gpu, &err), KT_S_OK);
    for (int i = 0; i < 2; ++i) {
        k[i].launches = (uint64_t)i; /* the verification's launch, for k[1] */
        assert_int_equal(kt_meter_measure(&meter, &tg[i], 1, &p, &t[i], &err),
                         KT_S_OK);
        assert_int_equal(k[i].launches, 2 + t[i].num_rounds);
    }
    assert_int_equal(t[0].num_rounds, t[1].num_rounds);
    for (size_t r = 0; r < t[0].num_rounds; ++r)
        assert_true(t[0].samples_us[r] == t[1].samples_us[r]);
    for (int i = 0; i < 2; ++i)
        kt_timing_free(&t[i]);
    kt_meter_close(&meter);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overlapped_rounds_sample_as_waited_ones),
        cmocka_unit_test(overlapped_rounds_race_and_pair_as_waited_ones),
        cmocka_unit_test(throttled_samples_keep_the_modes_equal),
        cmocka_unit_test(targets_that_restore_inputs_never_overlap),
        cmocka_unit_test(a_restore_never_runs_beside_a_launch_in_flight),
        cmocka_unit_test(a_verification_launch_counts_as_a_warm_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
