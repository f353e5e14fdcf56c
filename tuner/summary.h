// SPDX-License-Identifier: Apache-2.0
/*
 * kt_summary: the readable summary of a tuning run on stdout — the answer
 * (winner with its interval, or the configurations it is tied with), the
 * top N, the path the one-at-a-time search took, and what could not run.
 * kt_tune_facts (records/run.h) gathers what the summary needs besides the
 * result; the files of tuner/export.h use it too.
 */
#ifndef KT_SUMMARY_H
#define KT_SUMMARY_H

#include <jansson.h>
#include <stdio.h>

#include "core/loader.h"
#include "tuner/tune.h"

/* Prints the summary; top: rows of the top table. */
void kt_summary_print(FILE *out, const kt_tune_facts *f,
                      const kt_tune_result *r, int top);

/* The summary as Markdown: a heading (operator, sizes, device), the run in
 * one sentence, the answer and its finalists with their intervals, the top
 * N (top), and the failures by verdict. */
void kt_summary_markdown(FILE *out, const kt_tune_facts *f,
                         const kt_tune_result *r, int top);

/* The answer against the fastest reference variant (KT_VARIANT_REFERENCE)
 * of the closing round. */
typedef struct kt_summary_ref {
    const kt_tune_final *reference; /* its finalist */
    const kt_tune_final *tuned;     /* the fastest other finalist */
    int library_wins;               /* the reference is the answer */
    /* library_wins = 0: time(reference) / time(answer), the answer's
     * speed-up; 1: time(tuned) / time(reference), how much slower the best
     * tuned variant is. Paired, from the closing round. */
    kt_ratio ratio;
} kt_summary_ref;

/* 1 and *out when a reference took part in the closing round (and another
 * variant did too), else 0. */
int kt_summary_reference(const kt_tune_facts *f, const kt_tune_result *r,
                         kt_summary_ref *out);

/* "+1.2% [+0.8%, +1.6%]" for a ratio. */
void kt_summary_change(const kt_ratio *ratio, char *out, size_t size);

/* The entry of pt in r, or NULL. */
const kt_tune_entry *kt_summary_entry(const kt_tune_result *r,
                                      const kt_point *pt);

/* The diagnosis of a measured entry from its own median and its profile
 * (records/profiling.h); occ (may be NULL) receives its theoretical occupancy,
 * and the return says whether the kernel facts gave it. */
int kt_summary_diagnose(const kt_tune_facts *f, const kt_tune_entry *e,
                        kt_diagnosis *out, kt_occupancy *occ);

/* The answer's closing cost over the recorded optimum's (f->has_optimum,
 * r->has_best): under the run's objective where both costs are known, else
 * the ratio of their medians. */
double kt_summary_vs_optimum(const kt_tune_facts *f, const kt_tune_result *r);

#endif
