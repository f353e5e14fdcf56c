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

#include "core/calibration.h"
#include "core/error.h"
#include "engine/gpu.h"
#include "engine/measure.h"

/* Measures everything on the meter's device (a few seconds). */
kt_status kt_calib_run(kt_meter *meter, kt_calibration *out, kt_err *err);

/* The cached calibration when it exists and matches this device, driver and
 * format; measures and caches it otherwise (or always, with refresh).
 * *from_cache tells which happened. A cache that cannot be written is a
 * warning, not an error. */
kt_status kt_calib_get(kt_meter *meter, int refresh, kt_calibration *out,
                       int *from_cache, kt_err *err);

/* Measures the copy's and the FP32 FMA kernel's energy per byte and per
 * flop into out (engine/energy_meter.h, energy windows of the copy and the
 * FMA kernel back to back), and stores out in the device's cache file.
 * KT_S_UNSUPPORTED saying why when a window said nothing; a failed launch
 * is its CUDA status. Called by an evaluator that has NVML. */
struct kt_nvml;
kt_status kt_calib_energy(kt_meter *meter, const struct kt_nvml *nvml,
                          kt_calibration *out, kt_err *err);

#endif
