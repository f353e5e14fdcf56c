// SPDX-License-Identifier: Apache-2.0
/*
 * Figures derived from a time and the algorithm's work: effective bandwidth
 * (bytes the algorithm must move, GB = 1e9 bytes), its share of the measured
 * copy ceiling and of the theoretical peak, the flop rate and the arithmetic
 * intensity. Pure arithmetic; no GPU.
 */
#ifndef KT_DERIVE_H
#define KT_DERIVE_H

#include "ktune/plugin.h"

typedef struct kt_derived {
    double seconds;
    double bandwidth_gbs; /* (read + written) / seconds / 1e9 */
    double pct_of_copy;   /* of the measured copy ceiling; 0 if unknown */
    double pct_of_peak;   /* of the theoretical peak; 0 if unknown */
    double gflops;        /* flops / seconds / 1e9 */
    double intensity;     /* flops per algorithm byte */
} kt_derived;

/* time_us > 0. copy_gbs or peak_gbs may be 0 (unknown). */
void kt_derive(const kt_work *work, double time_us, double copy_gbs,
               double peak_gbs, kt_derived *out);

#endif
