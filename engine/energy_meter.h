// SPDX-License-Identifier: Apache-2.0
/*
 * kt_energy_meter: the energy window, run apart from the timing samples.
 *
 * After a call's timing (which stays uninstrumented: no NVML call runs
 * while a timed sample is in flight), each verified point runs back to
 * back in the launch stream, in batches that keep the GPU busy, while the
 * host polls the total-energy counter and, every few milliseconds, power,
 * clocks and temperature. A round gives every point one window (ABAB...,
 * as the timing rounds do); a window spans from the first counter change
 * seen after its point started to the first change seen once it is at
 * least protocol.energy_window_s long (core/energy.h has the arithmetic).
 * No L2 flush and no input restore run in the window: it is the steady
 * state of the kernel repeated, like the batch scope.
 */
#ifndef KT_ENERGY_METER_H
#define KT_ENERGY_METER_H

#include "core/energy.h"
#include "core/nvml.h"
#include "core/protocol.h"
#include "engine/measure.h"

/* GPU time one batch of back-to-back launches aims at, and the cap on its
 * launches (so enqueuing never blocks on a full launch queue). */
#define KT_ENERGY_BATCH_S 0.005
#define KT_ENERGY_MAX_BATCH 256
/* Batches in flight while the host polls. */
#define KT_ENERGY_IN_FLIGHT 3
/* How often power, clocks and temperature are sampled beside the counter. */
#define KT_ENERGY_SAMPLE_S 0.005

/* Measures targets[0..n) (median_us[k]: the point's timed median, which
 * sizes its batches) in p->energy_rounds interleaved rounds; out[k]
 * belongs to targets[k]. A point whose window could not be measured (the
 * counter too slow, a read refused) gets measured = 0 and a note; a failed
 * launch or CUDA call aborts with its status (KT_S_EXEC: the context is
 * lost). */
kt_status kt_energy_measure(const kt_nvml *nvml, cudaStream_t stream,
                            const kt_target *targets, const double *median_us,
                            size_t n, const kt_protocol *p, kt_energy *out,
                            kt_err *err);

#endif
