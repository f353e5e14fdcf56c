// SPDX-License-Identifier: Apache-2.0
/*
 * The timeline as JSON (`ktune timeline --json`; the format, version 1, is
 * documented in docs/timeline.md): the summaries, the gaps, every GPU
 * operation with times in ns from the program's start, and the reading.
 * `ktune report` draws it as SVG.
 */
#ifndef KT_TIMELINE_JSON_H
#define KT_TIMELINE_JSON_H

#include <jansson.h>

#include "timeline/summary.h"

#define KT_TL_JSON_VERSION 1

/* What the command knows beyond the trace. */
typedef struct kt_tl_json_info {
    int argc;
    char *const *argv; /* the program and its arguments */
    int exit_code, signal;
    int measured; /* 0: wall time taken from the trace (--records) */
    int untraced; /* --no-trace: the wall time alone */
} kt_tl_json_info;

/* A new reference, or NULL when out of memory. */
json_t *kt_tl_to_json(const kt_tl_summary *s, const kt_tl_json_info *info);

#endif
