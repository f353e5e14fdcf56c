// SPDX-License-Identifier: Apache-2.0
/*
 * kt_meter: timing launches with CUDA events in one stream.
 *
 * One sample is, in stream order:
 *   [reset inputs] [L2 flush, cold mode] clock probe | start | launch | stop
 * The clock probe (engine/kernels.h) records the SM clock just before the
 * sample and keeps the GPU busy while the host enqueues the launch, so the
 * interval between the events is the kernel, not the host's submission gap.
 * In cold mode the flush and the probe are one launch: the probe times the
 * flush's own read sweep instead of spinning after it.
 * Several targets are sampled in interleaved rounds (ABAB...): every target
 * gets one sample per round, so slow drift affects all alike and per-round
 * ratios cancel it.
 */
#ifndef KT_MEASURE_H
#define KT_MEASURE_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/stats.h"
#include "core/timing.h"
#include "engine/gpu.h"

/* Something to time. launch enqueues on the stream and returns. */
typedef struct kt_target {
    kt_status (*launch)(void *ctx, cudaStream_t stream, kt_err *err);
    /* Optional: restore inputs before each sample (outside the interval).
     * Called with the meter's stream drained, so it may copy on any stream
     * without running beside a launch. */
    kt_status (*reset)(void *ctx, kt_err *err);
    /* Optional, for the end-to-end scope: copy inputs host->device
     * (to_device = 1) or outputs device->host (to_device = 0),
     * synchronously. */
    kt_status (*transfer)(void *ctx, int to_device, kt_err *err);
    void *ctx;
    /* Untimed launches of this kernel at the measured problem that ran just
     * before (a fresh point's verification launch): they count as that
     * many of the protocol's warm-ups. 0 for anything else. */
    int warm;
} kt_target;

/* What the last kt_meter_measure spent outside the kernels: wall time of
 * its warm-up and of its sampling rounds, and how many L2 flushes and
 * clock probes the sampling enqueued; flush_us and probe_us are their GPU
 * time each (probe_us what a probe adds to a flush in cold mode), timed
 * once per meter and protocol cache mode. */
typedef struct kt_meter_costs {
    double warmup_s, sampling_s;
    size_t flushes, probes;
    double flush_us, probe_us;
    int timed; /* flush_us and probe_us hold times for the two below */
    kt_cache_mode timed_cache;
    unsigned timed_probe_ns;
} kt_meter_costs;

typedef struct kt_meter {
    const kt_gpu *gpu;
    cudaStream_t stream;
    void *flush_buf; /* L2 flush source: twice the L2, clean */
    size_t flush_bytes;
    unsigned int *flush_sink; /* keeps the flush's loads alive */
    unsigned int *probe_dev;  /* per-sample lowest SM clock, kHz */
    unsigned int *probe_host;
    size_t probe_cap;
    cudaEvent_t *events; /* start/stop pairs for one round */
    size_t event_cap;
    kt_meter_costs costs; /* of the last measurement */
} kt_meter;

/* Creates the stream, the flush buffer (twice the L2, initialised) and the
 * probe slots.
 * gpu must outlive the meter. */
kt_status kt_meter_open(kt_meter *meter, const kt_gpu *gpu, kt_err *err);
void kt_meter_close(kt_meter *meter);

/* Enqueues an L2 flush on the stream: a read of the flush buffer (twice the
 * L2, written once at open), which evicts every line and leaves only clean
 * ones, so no write-back of earlier work lands inside the next sample (a
 * memset flush would leave the L2 full of dirty lines). */
kt_status kt_meter_flush_l2(kt_meter *meter, kt_err *err);
#define KT_METER_FLUSH_L2_KERNELS 1

/* The nvbench-style flush of the cold-dirty mode: a memset of the flush
 * buffer, leaving dirty lines behind (the clean flush's buffer is
 * re-initialised by it, so the next clean flush still reads defined data). */
kt_status kt_meter_flush_l2_dirty(kt_meter *meter, kt_err *err);

/* The flush before a profiled (counter) pass, as Nsight Compute's cache
 * control leaves the L2: empty and clean. Two kernels: a write of the
 * flush buffer (twice the L2) evicts everything else, writing back what is
 * dirty; then its own lines are discarded, not written back (a read sweep
 * only evicts what it misses: lines of its own buffer that a cold-dirty
 * round left dirty would stay dirty). Leaves the flush buffer's contents
 * unspecified, which the read sweep does not mind. */
kt_status kt_meter_flush_l2_clean(kt_meter *meter, kt_err *err);
/* The kernels each flush launches: a profiler sees each as a range
 * (kt_counter_target.flush_kernels). */
#define KT_METER_FLUSH_L2_CLEAN_KERNELS 2

/* Warms up, then samples the n targets in interleaved rounds until each
 * meets the protocol's stopping rule (one kt_stop_rule per target,
 * core/stop_rule.h), then (when asked) the batch and
 * end-to-end scopes. out[0..n) receive the timings; free them with
 * kt_timing_free. A failed launch aborts the measurement with its status. */
kt_status kt_meter_measure(kt_meter *meter, const kt_target *targets, size_t n,
                           const kt_protocol *protocol, kt_timing *out,
                           kt_err *err);

#endif
