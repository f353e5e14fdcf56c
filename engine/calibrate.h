// SPDX-License-Identifier: Apache-2.0
/*
 * kt_calibration: the device's measured ceilings — what "% of peak" means in
 * every ktune result. Measured once per device and driver, then cached.
 *  - copy ceiling: device-to-device cudaMemcpy of 1 GiB, bytes read plus
 *    bytes written, median;
 *  - launch floor: an empty kernel, timed like any sample (queued launch),
 *    and a synchronous launch timed with the host clock;
 *  - bandwidth against working set: a copy kernel in the hot-cache mode,
 *    from well inside the L2 to far beyond it, each launch making enough
 *    passes over its buffers to move 1 GiB;
 *  - compute ceiling: FP32 and FP64 FMA throughput of a kernel that fills
 *    every warp slot with independent FMA chains, median (the roofline's
 *    measured roof; 0 in records made before it was measured).
 */
#ifndef KT_CALIBRATE_H
#define KT_CALIBRATE_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "engine/gpu.h"
#include "engine/measure.h"

#define KT_CALIB_VERSION 3
#define KT_CALIB_SWEEP_MAX 24

typedef struct kt_calibration {
    int version;
    char uuid[40];
    char gpu_name[256];
    int driver_version;
    char date[32];      /* ISO 8601, UTC */
    double copy_bytes;  /* size of one copy (read + write = 2x this moved) */
    double copy_gbs;    /* median, read + write counted, GB = 1e9 bytes */
    double peak_bw_gbs; /* theoretical, from memory clock and bus width */
    double launch_floor_us; /* empty kernel, event interval, median */
    double launch_sync_us;  /* empty kernel, launch + sync, host clock */
    size_t sweep_count;
    double sweep_bytes[KT_CALIB_SWEEP_MAX]; /* working set: source + dest */
    double sweep_gbs[KT_CALIB_SWEEP_MAX];
    double l2_bytes;
    double fp32_gflops; /* measured FMA throughput, an FMA = 2 flops; 0 */
    double fp64_gflops; /* unknown (JSON: compute_gflops, _fp64_gflops) */
    /* The device's measured best energy per unit of work, where NVML
     * answered (kt_calib_energy; 0: not measured): the 1 GiB
     * device-to-device copy's joules per byte moved (read + written), and
     * the FP32 FMA kernel's joules per flop (JSON: copy_pj_per_byte,
     * compute_pj_per_flop, in picojoules). */
    double copy_j_per_byte;
    double fma_j_per_flop;
} kt_calibration;

/* Measures everything on the meter's device (a few seconds). */
kt_status kt_calib_run(kt_meter *meter, kt_calibration *out, kt_err *err);

/* The cache file of a device: $KTUNE_CACHE_DIR, else $XDG_CACHE_HOME/ktune,
 * else ~/.cache/ktune; then calibration-<uuid>.json. */
void kt_calib_cache_path(const char *uuid, char *out, size_t out_size);

/* The cached calibration when it exists and matches this device, driver and
 * format; measures and caches it otherwise (or always, with refresh).
 * *from_cache tells which happened. A cache that cannot be written is a
 * warning, not an error. */
kt_status kt_calib_get(kt_meter *meter, int refresh, kt_calibration *out,
                       int *from_cache, kt_err *err);

/* Measures the copy's and the FP32 FMA kernel's energy per byte and per
 * flop into out (core/energy_meter.h, energy windows of the copy and the
 * FMA kernel back to back), and stores out in the device's cache file.
 * KT_S_UNSUPPORTED saying why when a window said nothing; a failed launch
 * is its CUDA status. Called by an evaluator that has NVML. */
struct kt_nvml;
kt_status kt_calib_energy(kt_meter *meter, const struct kt_nvml *nvml,
                          kt_calibration *out, kt_err *err);

json_t *kt_calib_to_json(const kt_calibration *c);
kt_status kt_calib_from_json(const json_t *j, kt_calibration *out, kt_err *err);

#endif
