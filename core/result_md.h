// SPDX-License-Identifier: Apache-2.0
/*
 * One measured configuration as Markdown (`ktune bench --markdown`): a
 * heading and one table row, the numbers a reader compares, laid out as
 * nvbench prints its own tables.
 */
#ifndef KT_RESULT_MD_H
#define KT_RESULT_MD_H

#include <stdint.h>
#include <stdio.h>

#include "core/evaluator.h"
#include "core/point.h"

/* What the table shows; everything borrowed. */
typedef struct kt_result_md {
    const char *spec;   /* "plugin:operator" */
    const char *device; /* the GPU's name */
    const kt_operator *op;
    const kt_point *pt;
    const int64_t *sizes;
    const kt_eval_result *r; /* status OK */
    const kt_work *work;
    double copy_gbs, peak_gbs; /* the ceilings; 0: unknown */
} kt_result_md;

/* "## SPEC", then a table: device, configuration, sizes, samples, median,
 * 95% CI of the median, noise, effective bandwidth, % of the copy ceiling
 * ("-" when unknown). */
void kt_result_markdown(FILE *out, const kt_result_md *m);

#endif
