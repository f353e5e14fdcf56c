// SPDX-License-Identifier: Apache-2.0
/*
 * The one way a measured point's diagnosis input is built. profile,
 * compare and tune each hold the same facts of their run (the device, the
 * operator's work, the calibration's ceilings, the --access-bytes
 * override) and the same facts of each point (its unprofiled median, its
 * kernel facts, its counters by catalog id); kt_diagnose_point turns them
 * into a kt_diag_input the same way for all three, so the three commands
 * give one verdict on the same counters. Pure.
 */
#ifndef KT_METRICS_DIAG_FACTS_H
#define KT_METRICS_DIAG_FACTS_H

#include "core/error.h"
#include "metrics/diagnose.h"
#include "metrics/occupancy.h"

/* A run's facts. The pointers are borrowed: they must outlive the calls. */
typedef struct kt_diag_facts {
    const kt_device *dev;
    const kt_work *work; /* may be NULL */
    double copy_gbs;     /* measured copy ceiling; 0 unknown */
    double peak_bw_gbs;  /* theoretical DRAM peak; 0 unknown */
    double peak_gflops;  /* compute ceiling; 0 unknown */
    int gflops_measured; /* peak_gflops is the calibration's FMA ceiling */
    int access_bytes;    /* bytes per thread access override; 0 counted */
} kt_diag_facts;

/* A point's facts. */
typedef struct kt_diag_point {
    double median_us;             /* unprofiled kernel median */
    const kt_kernel_info *kernel; /* NULL or not available: no occupancy */
    const double *by_id;          /* KT_M_COUNT values; NULL: no counters */
} kt_diag_point;

/* Facts of a run on dev with work, no ceilings yet. */
void kt_diag_facts_init(kt_diag_facts *f, const kt_device *dev,
                        const kt_work *work);

/* The calibration's ceilings (0 where not measured). The compute ceiling
 * is the measured FMA rate when there is one, so the roofline and the
 * compute-bound verdict stand on what this device does; else the FP32
 * peak at sm_clock_mhz (0 or NaN: the device's own clock). */
void kt_diag_facts_ceilings(kt_diag_facts *f, double copy_gbs,
                            double peak_bw_gbs, double fp32_gflops,
                            double sm_clock_mhz);

/* Diagnoses point p into out. occ (may be NULL) receives the theoretical
 * occupancy and occ_err (may be NULL) why there is none. Returns 1 when
 * the occupancy was computed. */
int kt_diagnose_point(const kt_diag_facts *f, const kt_diag_point *p,
                      kt_diagnosis *out, kt_occupancy *occ, kt_err *occ_err);

#endif
