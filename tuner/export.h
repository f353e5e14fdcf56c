// SPDX-License-Identifier: Apache-2.0
/*
 * The files a tuning run writes besides its journal:
 *  - the JSON summary (--json): the answer, ties, top, path, what could not
 *    run, the budget trace, the overhead, and in replay the recorded
 *    optimum and the fraction of the space evaluated (docs/configs.md);
 *  - CSV (--csv): one row per point visited;
 *  - Kernel Tuner's T4 results format (--t4), schema 1.0.0, for exchange
 *    with Kernel Tuner and KTT, and its metadata file (records/t4.h, whose
 *    kt_export_t4 and kt_export_t4_json this header declares through it).
 */
#ifndef KT_EXPORT_H
#define KT_EXPORT_H

#include <jansson.h>

#include "core/error.h"
#include "records/t4.h"
#include "tuner/summary.h"

/* The summary object (new reference). */
json_t *kt_export_summary(const kt_tune_facts *f, const kt_tune_result *r,
                          int top);

kt_status kt_export_json(const char *path, const kt_tune_facts *f,
                         const kt_tune_result *r, int top, kt_err *err);
kt_status kt_export_csv(const char *path, const kt_tune_facts *f,
                        const kt_tune_result *r, kt_err *err);

/* Where a run's time went, in seconds (tune.h's phases): total_s,
 * exec_s, start_s, close_s, calibration_s, setup_s, verify_s, warmup_s,
 * sampling_s,
 * kernels_s, flush_s, probe_s, evaluator_other_s, journal_s, strategy_s.
 * New reference. */
json_t *kt_export_phases(const kt_tune_result *r);

#endif
