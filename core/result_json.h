// SPDX-License-Identifier: Apache-2.0
/*
 * JSON forms of points, timings and evaluation results, shared by bench
 * output, the tuner's journal and replay. Reading back validates against the
 * operator loaded now, so a record from another plugin build fails clearly.
 */
#ifndef KT_RESULT_JSON_H
#define KT_RESULT_JSON_H

#include <jansson.h>

#include "core/error.h"
#include "core/evaluator.h"
#include "core/point.h"

/* {"variant": "coalesced", "params": {"block": 256}}; enumeration values as
 * labels. New reference. */
json_t *kt_point_to_json(const kt_operator *op, const kt_point *pt);
kt_status kt_point_from_json(const kt_operator *op, const json_t *j,
                             kt_point *pt, kt_err *err);

/* Statistics in microseconds, and the raw per-round samples (null where a
 * sample was discarded) when with_samples is set. */
json_t *kt_stats_to_json(const kt_stats *s);
json_t *kt_timing_to_json(const kt_timing *t, int with_samples);
/* Rebuilds a timing (samples included when present). */
kt_status kt_timing_from_json(const json_t *j, kt_timing *t, kt_err *err);

/* {"point":…, "status":…, "reason":…, "shape":…, "timing":…} */
json_t *kt_eval_result_to_json(const kt_operator *op, const kt_point *pt,
                               const kt_eval_result *r, int with_samples);

/* Rebuilds a result written by kt_eval_result_to_json; the point is checked
 * against op. *pt receives the point. */
kt_status kt_eval_result_from_json(const kt_operator *op, const json_t *j,
                                   kt_point *pt, kt_eval_result *r,
                                   kt_err *err);

/* A result's own work ("work": {bytes_read, bytes_written, flops}, written
 * when has_work): sets r->work and has_work from rec's "work" when it has
 * one, leaves them as they are otherwise (results of a problem's work). */
void kt_eval_work_from_json(const json_t *rec, kt_eval_result *r);

/* The phases object of a result ({setup_s, verify_s, warmup_s, sampling_s,
 * flush_s, probe_s}); written only when one is non-zero, and read as all
 * zero when absent (results recorded before phases were). */
int kt_eval_phases_any(const kt_eval_phases *p);
json_t *kt_eval_phases_to_json(const kt_eval_phases *p);
kt_status kt_eval_phases_from_json(const json_t *j, kt_eval_phases *p,
                                   kt_err *err);

/* A profile result (kernel facts, counters, collection cost); values are
 * written in request order, null where not collected. */
json_t *kt_profile_result_to_json(const kt_profile_result *r);

/* The kernel facts of a profile result as the journal and profile records
 * write them ("num_regs", "block_threads", ...). New reference. */
json_t *kt_kernel_info_to_json(const kt_kernel_info *k);
/* Rebuilds one; r->values is allocated (kt_profile_result_free). */
kt_status kt_profile_result_from_json(const json_t *j, kt_profile_result *r,
                                      kt_err *err);

/* Status names back to kt_eval_status; KT_S_INPUT for an unknown name. */
kt_status kt_eval_status_parse(const char *name, kt_eval_status *out,
                               kt_err *err);

#endif
