// SPDX-License-Identifier: Apache-2.0
/*
 * kt_metric_set: a list of metric names resolved into what to collect.
 * Names are catalog names ("achieved_occupancy") or raw counter names
 * ("smsp__inst_executed.sum"); a set also knows the de-duplicated raw
 * counters its items need, in the order the counter source receives them.
 *
 * Resolution without a GPU checks catalog names and the syntax of raw
 * names; the counter source checks raw names against the chip's own list
 * when the device is there (kt_counter_source.check). The tuner's
 * [metrics] section uses the same function.
 */
#ifndef KT_METRICS_RESOLVE_H
#define KT_METRICS_RESOLVE_H

#include <stddef.h>

#include "core/error.h"
#include "metrics/catalog.h"

#define KT_METRIC_NAME_MAX 128
#define KT_METRICS_MAX 64
#define KT_METRICS_RAW_MAX 128

typedef struct kt_metric_item {
    char name[KT_METRIC_NAME_MAX]; /* as requested */
    const kt_metric_def *def;      /* NULL: a raw counter */
    size_t raw[2];                 /* indices into the set's raw names */
    size_t num_raw;                /* 0 for static catalog entries */
} kt_metric_item;

/* Plain data: copy it by value. */
typedef struct kt_metric_set {
    kt_metric_item items[KT_METRICS_MAX];
    size_t num_items;
    char raw[KT_METRICS_RAW_MAX][KT_METRIC_NAME_MAX];
    size_t num_raw;
} kt_metric_set;

/* KT_S_OK when `name` is a well-formed raw counter name:
 * UNIT__COUNTER.SUFFIX[.SUFFIX...], lowercase letters, digits and '_',
 * e.g. dram__bytes_read.sum or sm__throughput.avg.pct_of_peak_sustained_
 * elapsed. KT_S_INPUT says what is wrong. */
kt_status kt_metric_name_check(const char *name, kt_err *err);

/* Resolves names[0..n) (each a catalog name or a raw counter name; repeats
 * are dropped), after the default set when with_defaults is set. Unknown
 * catalog-style names and malformed raw names give KT_S_INPUT with close
 * matches. */
kt_status kt_metrics_resolve(const char *const *names, size_t n,
                             int with_defaults, kt_metric_set *out,
                             kt_err *err);

/* Splits "a,b , c" and resolves it (NULL or "" -> defaults only when
 * with_defaults). */
kt_status kt_metrics_resolve_list(const char *list, int with_defaults,
                                  kt_metric_set *out, kt_err *err);

/* Pointers to the set's raw names, for kt_profile_request (valid while the
 * set lives). Returns the count. */
size_t kt_metric_set_raw_names(const kt_metric_set *set,
                               const char *raw_names[KT_METRICS_RAW_MAX]);

/* Item values from the raw values (raw[i] belongs to set->raw[i]):
 * item_values[k] for set->items[k] (NaN for static items), and by_id[] the
 * catalog values, NaN where not in the set. Either output may be NULL. */
void kt_metric_set_values(const kt_metric_set *set, const double *raw,
                          double *item_values, double by_id[KT_M_COUNT]);

#endif
