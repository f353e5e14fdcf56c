// SPDX-License-Identifier: Apache-2.0
/*
 * kt_profiling: the kernel facts and hardware counters of the points a
 * tuning run profiles — every point or the best few ([metrics], docs/
 * configs.md) — as journal records and back, and the diagnosis they give.
 *
 * Counters always come from the evaluator's profile(): launches of their
 * own (inputs restored, L2 flushed before every replay pass), never the
 * timed ones, and no time is ever taken from them. A record keeps every
 * raw counter by name, so a replay or a resumed run can serve any subset
 * of what was collected, and says plainly when something was not.
 */
#ifndef KT_PROFILING_H
#define KT_PROFILING_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "core/evaluator.h"
#include "core/point.h"
#include "metrics/catalog.h"
#include "metrics/diag_facts.h"
#include "metrics/diagnose.h"
#include "metrics/occupancy.h"
#include "metrics/resolve.h"

/* Which points a run profiles. */
typedef enum kt_profiling_points {
    KT_PROFILING_OFF = 0, /* no [metrics] section */
    KT_PROFILING_EVERY,   /* each point once it verified and was timed */
    KT_PROFILING_TOP      /* the best `top` (and the answer) after the search */
} kt_profiling_points;

/* What a run profiles: the job's [metrics]. Plain data. */
typedef struct kt_profiling_spec {
    kt_profiling_points points;
    size_t top;        /* KT_PROFILING_TOP: how many */
    int counters;      /* 0: kernel facts only (counters = none) */
    kt_metric_set set; /* items shown, and the raw counters requested */
    int access_bytes;  /* the diagnoses' per-thread access width; 0: counted */
} kt_profiling_spec;

/* One point's profile as a run keeps it. */
typedef struct kt_profiling_point {
    kt_eval_status status; /* of the point's verification */
    kt_status counters;    /* KT_S_OK: raw and by_id hold counters */
    char note[512];        /* why there are none, or which are missing */
    double raw[KT_METRICS_RAW_MAX]; /* in set.raw order; NaN: not collected */
    double by_id[KT_M_COUNT];       /* catalog values; NaN: not collected */
    kt_kernel_info kernel;
    kt_counter_stats cost;
    int from_journal; /* read back from the resumed journal */
} kt_profiling_point;

const char *kt_profiling_points_name(kt_profiling_points p);

/* 1 when the spec asks the evaluator for hardware counters. */
int kt_profiling_wants_counters(const kt_profiling_spec *spec);

/* The header's "metrics" (new reference): what is collected, for which
 * points. */
json_t *kt_profiling_spec_json(const kt_profiling_spec *spec);

/* Checks the spec's raw counter names against the evaluator's device
 * without launching anything. KT_S_INPUT for unknown names (with close
 * matches); *available = 0 with note saying why when counters cannot be
 * read here (no privileges, another profiler, a recording without them).
 * pt: any point of the operator (the worker evaluator sends one along;
 * nothing runs). */
kt_status kt_profiling_check(kt_evaluator *ev, const kt_profiling_spec *spec,
                             const kt_point *pt, int *available, char *note,
                             size_t note_size, kt_err *err);

/* The record of one profile (new reference), as the journal keeps it:
 * point, config, status, reason, shape, counters ("ok", "unavailable",
 * "failed" or "none"), note, raw {name: value or null}, metrics (the
 * catalog items with units), kernel (kt_kernel_info's fields),
 * occupancy (theoretical, limited by; dev may be NULL) and cost.
 * requested: how many of set's raw counters were asked for (0 or all). */
json_t *kt_profiling_record(const kt_operator *op, const kt_point *pt,
                            const kt_metric_set *set, size_t requested,
                            const kt_device *dev, const kt_profile_result *r);

/* A profile result rebuilt from a record for the raw counters names[0..n):
 * values of names the record lacks are NaN; counters is KT_S_OK when it
 * holds them all, KT_S_OK with a note naming the missing ones when it holds
 * some, KT_S_UNSUPPORTED ("not recorded") when none, and what the record
 * says when its collection was unavailable or failed. Free with
 * kt_profile_result_free(). */
kt_status kt_profiling_result(const json_t *rec, const char *const *names,
                              size_t n, kt_profile_result *out, kt_err *err);

/* 1 when rec holds every one of names[0..n) collected. */
int kt_profiling_covers(const json_t *rec, const char *const *names, size_t n);

/* Fills out from a profile result for set's raw counters (requested: how
 * many were asked for). */
void kt_profiling_from_result(const kt_metric_set *set, size_t requested,
                              const kt_profile_result *r,
                              kt_profiling_point *out);

/* The diagnosis of a point from its unprofiled median and its profile p
 * (NULL: no counters, no kernel facts), on the run's facts f
 * (metrics/diag_facts.h); occ as there. Returns 1 when the occupancy was
 * computed. */
int kt_profiling_diagnose(const kt_diag_facts *f, double median_us,
                          const kt_profiling_point *p, kt_diagnosis *out,
                          kt_occupancy *occ);

#endif
