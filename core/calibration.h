// SPDX-License-Identifier: Apache-2.0
/*
 * kt_calibration: the device's measured ceilings, as every result records
 * them (what "% of peak" means), and their JSON. Measured by
 * engine/calibrate.h, which says how each is measured.
 */
#ifndef KT_CALIBRATION_H
#define KT_CALIBRATION_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"

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

/* The name of a device's entry in the cache folder (core/cachedir.h):
 * calibration-<uuid>.json, a '/' in uuid written '_'. */
void kt_calib_cache_name(const char *uuid, char *out, size_t out_size);

json_t *kt_calib_to_json(const kt_calibration *c);
kt_status kt_calib_from_json(const json_t *j, kt_calibration *out, kt_err *err);

#endif
