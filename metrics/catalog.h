// SPDX-License-Identifier: Apache-2.0
/*
 * The metric catalog: the figures `ktune profile` and tuning jobs report by
 * name, each with a description, a unit and the raw CUPTI counter(s) it is
 * computed from (sm_90 names, as Nsight Compute spells them). Names outside
 * the catalog can still be collected as raw counters (metrics/resolve.h).
 * Static entries come from the kernel's attributes and the occupancy
 * arithmetic, not from counters, and are always reported.
 */
#ifndef KT_METRICS_CATALOG_H
#define KT_METRICS_CATALOG_H

#include <stddef.h>

typedef enum kt_metric_id {
    KT_M_ACHIEVED_OCCUPANCY = 0,
    KT_M_LD_REQUESTS,
    KT_M_LD_SECTORS,
    KT_M_LD_SECTORS_PER_REQUEST,
    KT_M_ST_REQUESTS,
    KT_M_ST_SECTORS,
    KT_M_ST_SECTORS_PER_REQUEST,
    KT_M_DRAM_READ_BYTES,
    KT_M_DRAM_WRITE_BYTES,
    KT_M_DRAM_THROUGHPUT,
    KT_M_MEMORY_THROUGHPUT,
    KT_M_SM_THROUGHPUT,
    KT_M_L1_HIT_RATE,
    KT_M_L2_HIT_RATE,
    KT_M_LONG_SCOREBOARD,
    KT_M_LD_BYTES,
    KT_M_ST_BYTES,
    KT_M_LD_EFFICIENCY,
    KT_M_ST_EFFICIENCY,
    KT_M_DURATION,
    /* Static: no counters. */
    KT_M_REGISTERS,
    KT_M_SHARED_PER_BLOCK,
    KT_M_LOCAL_PER_THREAD,
    KT_M_THEORETICAL_OCCUPANCY,
    KT_M_COUNT
} kt_metric_id;

typedef enum kt_metric_kind {
    KT_MK_COUNTER = 0, /* read with CUPTI */
    KT_MK_STATIC = 1   /* kernel attributes and occupancy arithmetic */
} kt_metric_kind;

typedef enum kt_metric_formula {
    KT_MF_VALUE = 0,  /* raw[0] */
    KT_MF_RATIO = 1,  /* raw[0] / raw[1] */
    KT_MF_PERCENT = 2 /* 100 * raw[0] / raw[1] */
} kt_metric_formula;

typedef struct kt_metric_def {
    kt_metric_id id;
    kt_metric_kind kind;
    const char *name;
    const char *description;
    const char *unit;
    kt_metric_formula formula;
    const char *raw[2]; /* raw[1] only for ratios; NULL for static ones */
    int in_default;     /* part of the default counter set */
} kt_metric_def;

/* The whole catalog, in kt_metric_id order (static storage). */
const kt_metric_def *kt_metric_catalog(size_t *count);

/* The entry called `name` (exact), or NULL. */
const kt_metric_def *kt_metric_find(const char *name);

/* The catalog value from its raw counters (raw[i] for def->raw[i]); NaN
 * when a denominator is zero or a value is missing. */
double kt_metric_compute(const kt_metric_def *def, const double *raw);

#endif
