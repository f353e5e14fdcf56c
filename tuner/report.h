/*
 * kt_report: the readable summary of a tuning run on stdout — the answer
 * (winner with its interval, or the configurations it is tied with), the
 * top N, the path the one-at-a-time search took, and what could not run.
 * kt_tune_facts gathers what the summary needs besides the result; the
 * files of tuner/export.h use it too.
 */
#ifndef KT_REPORT_H
#define KT_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "core/loader.h"
#include "tuner/tune.h"

typedef struct kt_tune_facts {
    const char *spec; /* "plugin:operator" */
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    const kt_space *space;
    const int64_t *sizes;
    const kt_tune_config *cfg;
    const char *device_name;
    const kt_work *work;       /* may be NULL */
    double copy_gbs, peak_gbs; /* 0: unknown */
    json_t *environment;       /* borrowed; may be NULL */
    const char *journal;       /* may be NULL */
    /* Replay only. */
    const char *replay; /* the recording; NULL when measured live */
    int has_optimum;    /* the recording's fastest valid point of the space */
    kt_point optimum;
    kt_stats optimum_stats;
} kt_tune_facts;

/* Prints the summary; top: rows of the top table. */
void kt_report_print(FILE *out, const kt_tune_facts *f, const kt_tune_result *r,
                     int top);

/* Entries with a valid timing, fastest first (by their own measurement);
 * *count receives how many. Caller frees the array (not the entries). */
const kt_tune_entry **kt_report_ranked(const kt_tune_result *r, size_t *count);

/* "+1.2% [+0.8%, +1.6%]" for a ratio. */
void kt_report_change(const kt_ratio *ratio, char *out, size_t size);

#endif
