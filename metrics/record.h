// SPDX-License-Identifier: Apache-2.0
/*
 * JSON forms of what metrics/ produces, for `ktune profile --json`, the
 * tuner's journal and its summary. NaN (not collected) is written as null.
 * Every function returns a new reference.
 */
#ifndef KT_METRICS_RECORD_H
#define KT_METRICS_RECORD_H

#include <jansson.h>

#include "core/evaluator.h"
#include "metrics/diagnose.h"
#include "metrics/occupancy.h"
#include "metrics/resolve.h"

/* [{"name", "value", "unit", "raw": [...], "kind"}...] for the set's items,
 * from raw values in set->raw order (NULL: all null). */
json_t *kt_metrics_json(const kt_metric_set *set, const double *raw);

/* {"raw counter name": value, ...}. */
json_t *kt_metrics_raw_json(const kt_metric_set *set, const double *raw);

/* Registers, shared and local memory, the occupancy API's answer, and the
 * computed occupancy with its limiters (occ may be NULL). */
json_t *kt_kernel_info_json(const kt_kernel_info *k, const kt_occupancy *occ);

json_t *kt_counter_stats_json(const kt_counter_stats *s);

json_t *kt_diagnosis_json(const kt_diagnosis *d);

#endif
