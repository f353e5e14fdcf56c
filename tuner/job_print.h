// SPDX-License-Identifier: Apache-2.0
/*
 * `ktune tune --check`: what a loaded job would do, printed without a
 * device — the operator and its sizes (pinned ones said), the sweep, the
 * space before device limits and after the declaration's require, per
 * variant, the strategy, the protocol, the journal and the [metrics].
 */
#ifndef KT_TUNER_JOB_PRINT_H
#define KT_TUNER_JOB_PRINT_H

#include <stdio.h>

#include "tuner/job.h"

void kt_job_print_check(FILE *out, const kt_job *job);

#endif
