// SPDX-License-Identifier: Apache-2.0
/*
 * What `ktune report` accepts of a tune summary (ktune tune --json) or a
 * compare record before drawing anything: the numbers a run can produce.
 * A summary that says a median is -1 us, a count is "x" or a bandwidth is
 * 1e308 GB/s is damaged or made up, and is refused (exit 2) rather than
 * rendered as if it were a result.
 */
#ifndef KT_REPORT_SUMMARY_CHECK_H
#define KT_REPORT_SUMMARY_CHECK_H

#include <jansson.h>

#include "core/error.h"

/* KT_S_INPUT naming path, the field (as a JSON path) and what was
 * expected when doc holds a value no run writes. Reads doc only. */
kt_status kt_report_check_summary(const json_t *doc, const char *path,
                                  kt_err *err);

#endif
