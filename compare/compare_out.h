// SPDX-License-Identifier: Apache-2.0
/*
 * What `ktune compare` writes: the Markdown report (stdout), the full JSON
 * record (--json, kind "ktune.compare", format 1; docs/compare.md lists
 * every field, and report renderers rely on them) and one CSV row per
 * variant (--csv). Pure formatting of a kt_compare that kt_compare_run()
 * filled; no GPU.
 */
#ifndef KT_COMPARE_OUT_H
#define KT_COMPARE_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "compare/compare.h"

/* The report: heading, command, conditions, the timing table, the counter
 * table with diagnoses, the results files and notes. */
void kt_compare_markdown(FILE *out, const kt_compare *c);

/* The record (new reference). */
json_t *kt_compare_json(const kt_compare *c);

kt_status kt_compare_write_json(const char *path, const kt_compare *c,
                                kt_err *err);
kt_status kt_compare_write_csv(const char *path, const kt_compare *c,
                               kt_err *err);

/* "1.085x [1.081, 1.089] faster", "0.912x [0.905, 0.920] slower",
 * "1.002x [0.996, 1.007] tie"; "" without a ratio. */
void kt_compare_speedup_text(const kt_compare_row *r, char *out,
                             size_t out_size);

#endif
