// SPDX-License-Identifier: Apache-2.0
/*
 * The diagnosis of one configuration, from its unprofiled time, the
 * algorithm's work, the device's ceilings and (when collected) its
 * counters: effective bandwidth and its share of the copy ceiling,
 * arithmetic intensity against the balance point, a classification
 * (memory-, compute- or latency-bound) with the numbers that led to it,
 * and the coalescing check: the sectors the bytes the threads asked for
 * need (SASS data-bytes counters) against the sectors moved, for loads and
 * stores separately. Pure; docs/metrics.md states the rules and
 * thresholds.
 */
#ifndef KT_METRICS_DIAGNOSE_H
#define KT_METRICS_DIAGNOSE_H

#include "core/derive.h"
#include "ktune/plugin.h"
#include "metrics/catalog.h"

/* Rule-of-thumb thresholds (methodology.md), in percent. */
#define KT_DIAG_HIGH 80.0 /* a unit this busy is saturated */
#define KT_DIAG_LOW 50.0  /* a unit below this is not the limit */
/* A memory unit this busy that also carries KT_DIAG_DOMINANT times the SM's
 * share is the limit even when it is not saturated: uncoalesced or
 * partial-sector traffic, ramp-up and tail keep it under KT_DIAG_HIGH, yet
 * no arithmetic change would help. */
#define KT_DIAG_MID 60.0
#define KT_DIAG_DOMINANT 1.75
#define KT_DIAG_OCC_LOW 50.0    /* occupancy below this starves latency */
#define KT_DIAG_STALL_HIGH 50.0 /* long-scoreboard share that dominates */
/* Sectors per request above ideal * this are uncoalesced: room for a
 * misaligned base or a partial last warp, not for a wrong mapping. */
#define KT_DIAG_UNCOALESCED 1.25
#define KT_SECTOR_BYTES 32

typedef enum kt_bound {
    KT_BOUND_UNKNOWN = 0, /* not enough data */
    KT_BOUND_MEMORY,      /* a memory unit is saturated, the SMs are not */
    KT_BOUND_COMPUTE,     /* the SMs are saturated, DRAM is not */
    KT_BOUND_LATENCY,     /* low occupancy, nothing saturated, waiting */
    KT_BOUND_BOTH,        /* DRAM and SMs both saturated */
    KT_BOUND_NONE         /* nothing saturated, occupancy not low */
} kt_bound;

typedef struct kt_diag_input {
    kt_work work;
    double time_us;     /* median kernel time of the unprofiled runs */
    double copy_gbs;    /* measured copy ceiling; 0 unknown */
    double peak_bw_gbs; /* theoretical DRAM peak; 0 unknown */
    double peak_gflops; /* compute ceiling; 0 unknown */
    /* Catalog values by kt_metric_id, NaN where not collected; NULL when
     * there are no counters at all. */
    const double *m;
    double theoretical_occupancy; /* percent; < 0 unknown */
    /* Override of the bytes each thread accesses per instruction (the
     * ideal is then warp * access_bytes / 32 sectors per request); 0: from
     * the bytes the instructions asked for (counted). */
    int access_bytes;
    int warp_size;       /* 0 means 32 */
    int gflops_measured; /* peak_gflops is the calibration's FMA ceiling */
} kt_diag_input;

typedef struct kt_coalescing {
    int have; /* requests and sectors were counted */
    double requests;
    double sectors;
    double measured; /* sectors per request */
    /* Bytes the instructions asked for (NaN: not counted), per request,
     * and as a share of the sectors moved (100: every byte of every sector
     * asked for; above 100 when threads share addresses). */
    double bytes;
    double bytes_per_request;
    double efficiency;
    /* Sectors per request the data needs: its own bytes in whole sectors,
     * at least one per request (max(1, bytes per request / 32)), or from
     * --access-bytes; 0 unknown. */
    double ideal;
    double excess;   /* measured / ideal */
    int uncoalesced; /* excess > KT_DIAG_UNCOALESCED */
} kt_coalescing;

typedef struct kt_diagnosis {
    kt_derived derived;
    double balance;       /* flop/byte where the roofline bends; 0 unknown */
    int balance_measured; /* both ceilings measured */
    char roofline[256];
    kt_bound bound;
    /* DRAM utilisation the class was decided on: the dram_throughput
     * counter itself (per kernel, as Nsight Compute's); NaN without it. */
    double dram_pct;
    const char *unit; /* memory-bound: "DRAM" or "L1/L2"; else NULL */
    char why[512];    /* the numbers that led to the class */
    int access_bytes; /* the --access-bytes override used; 0 none */
    kt_coalescing load, store;
    int cause_uncoalesced; /* the mapping is named as the cause */
    char coalescing[768];
    /* The profiled launch against the unprofiled median: the counters'
     * percentages of peak are over the profiled launch's elapsed cycles,
     * so a launch that ran KT_DIAG_PROFILED_OFF longer or shorter than the
     * median reads that much low or high against a typical one (and
     * against Nsight Compute's, which profiles one launch too). ratio is
     * profiled / timed; NaN, and an empty text, without the duration
     * counter. */
    double profiled_us;
    double profiled_ratio;
    char profiled[320];
    /* Set when the L2 hit rate was counted over a launch without global
     * loads or stores: it is then the hit rate of its instruction and
     * parameter fetches alone, whose lines survive any flush a program
     * can run (no kernel can evict them; Nsight Compute invalidates the
     * L2 through the driver), so it says what ran before, not what the
     * kernel does. Empty otherwise. */
    char l2_hit_note[256];
} kt_diagnosis;

/* Share by which the profiled launch may differ from the unprofiled median
 * before the diagnosis says so. */
#define KT_DIAG_PROFILED_OFF 0.02
/* Below this median (µs) the timed interval holds a visible share of
 * launch overhead that the profiled kernel time does not. */
#define KT_DIAG_SHORT_US 10.0

void kt_diagnose(const kt_diag_input *in, kt_diagnosis *out);

/* Sectors a warp must touch per request when each of its threads reads
 * access_bytes consecutive to its neighbour's: warp * access / 32, at
 * least 1 (4-byte: 4, 8-byte: 8, 16-byte: 16). */
double kt_ideal_sectors_per_request(int access_bytes, int warp_size);

/* Sectors per request that bytes_per_request asked-for bytes need when
 * they are contiguous and aligned: bytes / 32, at least 1 (a request
 * touches one sector at least). */
double kt_needed_sectors_per_request(double bytes_per_request);

/* FP32 lanes per SM of a compute capability (0 unknown), and the FP32
 * peak in GFLOP/s (an FMA counts 2) at sm_clock_mhz. */
int kt_fp32_lanes_per_sm(int cc_major, int cc_minor);
double kt_peak_gflops_fp32(const kt_device *dev, double sm_clock_mhz);

const char *kt_bound_name(kt_bound b);

#endif
