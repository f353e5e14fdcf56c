// SPDX-License-Identifier: Apache-2.0
/*
 * The timeline chart: `ktune report TIMELINE.json` draws a `ktune
 * timeline --json` file as one SVG — a lane per stream (per process when
 * several traced processes ran), kernels and copies as bars over the GPU's
 * span, the largest idle gaps shaded and labelled. Reads the JSON only.
 */
#ifndef KT_REPORT_FIG_TIMELINE_H
#define KT_REPORT_FIG_TIMELINE_H

#include <jansson.h>
#include <stdio.h>

#include "core/error.h"

/* Whether the JSON file at path is a ktune timeline (its "format"); 0 for
 * anything else, unreadable files included (the caller reports those). */
int kt_fig_timeline_detect(const char *path);

/* The chart of root (a timeline, version 1) to out. KT_S_INPUT naming the
 * field when root is not a readable timeline, KT_S_IO when out fails. */
kt_status kt_fig_timeline_svg(FILE *out, const json_t *root, kt_err *err);

/* Reads the timeline at in and writes its chart to out_path ("-":
 * stdout). */
kt_status kt_fig_timeline_write(const char *in, const char *out_path,
                                kt_err *err);

#endif
