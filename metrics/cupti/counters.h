// SPDX-License-Identifier: Apache-2.0
/*
 * The CUPTI counter source: hardware counters of one launch through the
 * Range Profiler API (auto range: each kernel of the launch is a range of
 * its own, as Nsight Compute profiles it; user replay, so ktune restores
 * inputs and flushes the L2 before every pass) and the Profiler Host API,
 * on CUDA 13 / Hopper. Several kernels' values are combined as
 * metrics/ranges.h says. Hand it to the local evaluator in
 * kt_eval_spec.counters; the evaluator calls it with a target that restores
 * inputs and flushes L2 before every pass.
 *
 * The driver library is not linked: the two driver calls CUPTI needs a
 * context for (cuCtxGetCurrent, cuCtxGetDevice) come through
 * cudaGetDriverEntryPointByVersion, so ktune still starts without a driver.
 */
#ifndef KT_METRICS_COUNTERS_H
#define KT_METRICS_COUNTERS_H

#include "core/evaluator.h"

/* The source (static storage; safe to share). Not thread-safe: one
 * collection at a time per process, like CUPTI's profiler itself. */
const kt_counter_source *kt_metrics_cupti_source(void);

#endif
