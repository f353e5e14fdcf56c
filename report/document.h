// SPDX-License-Identifier: Apache-2.0
/*
 * kt_doc: the report as one self-contained HTML document — inline SVG
 * charts and inline CSS, no script, no external resource (a Content
 * Security Policy forbids fetching any) — drawn from kt_sources:
 * the answer, the charts of report/figures.h, the top configurations,
 * what could not run, and the environment record and protocol.
 */
#ifndef KT_REPORT_DOCUMENT_H
#define KT_REPORT_DOCUMENT_H

#include <stdio.h>

#include "core/error.h"
#include "report/sources.h"

typedef struct kt_doc_options {
    const char *title;     /* NULL: from the results */
    const char *generator; /* "ktune 0.1.0 (abc123)"; NULL: none */
    int top;               /* rows of the top table; 0: 30 */
} kt_doc_options;

/* Writes the document. KT_S_IO when out reports a write error. */
kt_status kt_doc_write(FILE *out, const kt_sources *s,
                       const kt_doc_options *opt, kt_err *err);

#endif
