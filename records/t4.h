// SPDX-License-Identifier: Apache-2.0
/*
 * Kernel Tuner's T4 exchange files (schema 1.0.0), as Kernel Tuner writes
 * them: the results file (--t4 FILE), one result per point visited, and
 * the metadata file next to it (the machine, the device, what produced the
 * results). docs/schemas/t4-results.schema.json and
 * t4-metadata.schema.json describe both; docs/configs.md the mapping of
 * ktune's verdicts onto T4's invalidity classes.
 */
#ifndef KT_T4_H
#define KT_T4_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "core/evaluator.h"
#include "records/run.h"

/* T4's invalidity class of a verdict, as Kernel Tuner assigns it:
 * "correct"; "compile" (the kernel did not compile or load); "constraints"
 * (refused before running: a constraint, a device limit checked on the
 * host); "runtime" (the driver refused the launch, e.g. for resources, or
 * an error, fault or crash while running); "correctness" (verification
 * failed); "timeout". Static text. */
const char *kt_t4_invalidity(kt_eval_status status, const char *reason,
                             int host_checked);

/* The metadata file's path for a results path: the stem's trailing
 * "results" becomes "metadata", else "-metadata" is appended, and ".json"
 * ends it ("x-results.json" -> "x-metadata.json", "s.t4" ->
 * "s.t4-metadata.json"). KT_S_INPUT when it does not fit in out[size]. */
kt_status kt_t4_metadata_path(const char *results, char *out, size_t size,
                              kt_err *err);

/* The metadata object (new reference): operating system and machine,
 * the device record, what produced the results (ktune, the plugin, the
 * CUDA versions), the results' time unit. */
json_t *kt_t4_metadata_json(const kt_tune_facts *f);

/* The T4 results object (new reference) of run r, and the file with its
 * metadata file next to it (kt_t4_metadata_path; none when path is "-"). */
json_t *kt_export_t4_json(const kt_tune_facts *f, const kt_tune_result *r);
kt_status kt_export_t4(const char *path, const kt_tune_facts *f,
                       const kt_tune_result *r, kt_err *err);

#endif
