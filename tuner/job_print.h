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

#include <jansson.h>

#include "tuner/job.h"

/* Prints the check to out; doc not NULL: *doc gets the same counts as
 * the document --check --json FILE writes, {"kind": "ktune.check", "job",
 * "space": {"size", "feasible" (null when the operator cannot be counted
 * without a device), "counted", "estimated" (feasible is an estimate from
 * random points)}, "variants": [{"id", "points", "feasible" (when
 * counted)}]}, a new reference (the caller's), NULL when out of memory. */
void kt_job_print_check(FILE *out, const kt_job *job, json_t **doc);

#endif
