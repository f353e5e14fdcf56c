// SPDX-License-Identifier: Apache-2.0
/*
 * kt_compare: several variants of one operator, each at one configuration,
 * measured side by side — the measurement behind `ktune compare`
 * (docs/compare.md).
 *
 * Every row's point goes into ONE evaluate() call, so the evaluator
 * verifies each and measures the verified ones together in interleaved
 * rounds (one sample of each per round): drift touches all alike, and the
 * per-round ratio against the reference row cancels it. From the rounds:
 * each row's statistics, its speed-up against the reference (median of the
 * per-round ratios t_ref / t_row with its distribution-free 95% interval),
 * effective bandwidth and its share of the measured copy ceiling. Then,
 * where the evaluator can profile and counters are wanted, each verified
 * row's hardware counters on launches of their own (never timed) and a
 * diagnosis (metrics/diagnose.h) on the interleaved median.
 *
 * All GPU work is behind the kt_evaluator, so a fake or replay evaluator
 * drives the same code in tests.
 */
#ifndef KT_COMPARE_H
#define KT_COMPARE_H

#include <jansson.h>
#include <stddef.h>

#include "compare/compare_results.h"
#include "core/calibration.h"
#include "core/derive.h"
#include "core/evaluator.h"
#include "core/loader.h"
#include "core/stats.h"
#include "metrics/diag_facts.h"
#include "metrics/diagnose.h"
#include "metrics/occupancy.h"
#include "metrics/resolve.h"

#define KT_COMPARE_MAX_NOTES 16

/* One variant at one configuration. */
typedef struct kt_compare_row {
    kt_pick pick;     /* the point and where it came from (set by the caller) */
    int host_invalid; /* refused on the host, never sent to the GPU */
    kt_eval_result result; /* owned; status OK: timing with raw samples */
    /* Against the reference row, from the same rounds: the median of
     * t_ref / t_row per round and its 95% interval (n == 0: none). */
    kt_ratio speedup;
    int verdict;        /* +1 faster than the reference, -1 slower, 0 a tie */
    kt_derived derived; /* status OK */
    /* Counters: profiled is set when profile() ran for the row; counters
     * is its collection status (KT_S_OK: metrics hold the values). */
    int profiled;
    kt_status counters;
    char counters_note[1024];
    kt_profile_result prof;     /* owned */
    double metrics[KT_M_COUNT]; /* catalog values by id, NaN: not counted */
    int have_occ;
    kt_occupancy occ;
    int have_diag; /* status OK (with or without counters) */
    kt_diagnosis diag;
} kt_compare_row;

typedef struct kt_compare {
    /* Set by the caller before kt_compare_run(). */
    const char *spec; /* "plugin:operator" */
    const char *plugin_name;
    const kt_loaded_plugin *plugin; /* op's, for its callbacks; may be NULL */
    const kt_operator *op;
    int64_t sizes[KT_MAX_SIZES];
    uint64_t seed;
    kt_protocol protocol;
    kt_compare_row *rows; /* kt_compare_init(); owned */
    size_t num_rows;
    size_t reference;        /* index into rows */
    const kt_results *files; /* the --from files; borrowed, may be NULL */
    size_t num_files;
    int counters;         /* collect counters where the evaluator can */
    int profile_launches; /* per replay pass (kt_profile_request); 0: 3 */
    kt_metric_set set;    /* what to collect (the default set) */
    int access_bytes;     /* --access-bytes: the diagnosis override; 0 none */
    char command[4096];   /* the command line as typed, for the record */

    /* Filled by kt_compare_run(). */
    const char *evaluator; /* "worker", "local", "replay", ... (static) */
    char device[256];
    kt_work work;
    int have_calib;
    kt_calibration calib;
    /* What every row's diagnosis stands on (metrics/diag_facts.h): the
     * ceilings, and access_bytes as the caller set it. */
    kt_diag_facts facts;
    json_t *environment;      /* owned: device, plugin, protocol, calibration */
    size_t rounds;            /* interleaved rounds of the measurement */
    double wall_s;            /* of the evaluate() call */
    int counters_collected;   /* some row has counters */
    char counters_note[1024]; /* why there are none at all, or "" */
    char notes[KT_COMPARE_MAX_NOTES][512];
    size_t num_notes;
} kt_compare;

/* Zeroes c and allocates num_rows rows. */
kt_status kt_compare_init(kt_compare *c, size_t num_rows, kt_err *err);

void kt_compare_free(kt_compare *c);

/* Adds a line to the record's notes (dropped beyond the limit). */
void kt_compare_note(kt_compare *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Measures every row on ev: checks each point on the host first (a row
 * picked with --config that cannot run is the user's mistake: KT_S_INPUT
 * naming it; any other is recorded as invalid and not sent), then one
 * evaluate() call for the rest, then ratios, derived figures, counters and
 * diagnoses. ev must serve c->op at c->sizes. Returns non-OK only when the
 * comparison cannot go on (the evaluator failed, bad input); per-row
 * failures are in the rows. */
kt_status kt_compare_run(kt_compare *c, kt_evaluator *ev, kt_err *err);

/* 1 when the result should not pass silently: a row failed verification,
 * errored, faulted, crashed or timed out, or the reference did not measure
 * (rows refused as invalid on this device do not count). */
int kt_compare_failed(const kt_compare *c);

/* "block=256 items=2" (parameters only), or "(no parameters)". */
void kt_compare_params_text(const kt_operator *op, const kt_point *pt,
                            char *out, size_t out_size);

#endif
