// SPDX-License-Identifier: Apache-2.0
/*
 * kt_timing: what one measurement of one target found (the statistics of
 * its kept samples, the raw samples, the clocks), the record every result
 * carries. The meter measures it (engine/measure.h); core/result_json.h
 * writes and reads it.
 */
#ifndef KT_TIMING_H
#define KT_TIMING_H

#include <stddef.h>

#include "core/error.h"
#include "core/stats.h"

typedef struct kt_timing {
    kt_stats kernel;    /* event intervals in us, kept samples only */
    double *samples_us; /* one per round; NaN where discarded. Owned */
    size_t num_rounds;
    size_t discarded;     /* samples dropped for a throttled clock */
    double min_clock_mhz; /* lowest probed SM clock over kept samples */
    double median_clock_mhz;
    double batch_us; /* batch mean per launch; 0 when off */
    int batch_k;
    kt_stats end_to_end;     /* us; n == 0 when off */
    const char *stop_reason; /* static text */
    double gpu_time_s;       /* sum of kept samples */
    double wall_time_s;      /* of the whole measurement */
    /* 1: the samples were not measured in rounds interleaved with other
     * points' (a recording's runs of one point one after the other), so
     * a ratio with this timing is unpaired (kt_stats_unpaired_ratio). */
    int unpaired;
} kt_timing;

/* Frees the samples; safe on a zeroed timing. */
void kt_timing_free(kt_timing *timing);

/* A deep copy of from into to (the samples too; to's own are not freed).
 * KT_S_OK or KT_S_NOMEM. */
kt_status kt_timing_copy(const kt_timing *from, kt_timing *to, kt_err *err);

#endif
