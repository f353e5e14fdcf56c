// SPDX-License-Identifier: Apache-2.0
/*
 * A T1 file as a whole tuning job, as `kernel_tuner FILE.json` runs it
 * (Kernel Tuner 1.5's tune_kernel_T1): the kernel (KernelName, KernelFile
 * found beside the file or one folder up), its arguments and their fills
 * (Vector float buffers filled Constant or Random, Scalars of float and
 * int32, MemType Constant as constant memory), ProblemSize, the grid as
 * ProblemSize over the product of GridDivX/Y/Z (block_size_x/y/z by
 * default), the block from block_size_x/y/z (256, 1, 1 where absent), the
 * space and its Conditions, and Search and Budget, written out as a ktune
 * declaration and job (docs/declared.md) that `ktune tune FILE.json` then
 * loads. ktune adds what Kernel Tuner leaves out: every configuration is
 * verified against the kernel at the file's Default configuration.
 *
 * Pure host code, no CUDA; the text is the whole of the translation, so
 * `ktune tune FILE.json --check` can show it.
 */
#ifndef KT_T1_JOB_H
#define KT_T1_JOB_H

#include <stddef.h>

#include "core/error.h"

/* What a file given as a job is, told by its content: not JSON (an INI
 * job, or anything else), a JSON object that is no T1 file, a T1 space
 * alone (ConfigurationSpace, no KernelSpecification: what a declaration's
 * `space =` imports), or a whole T1 job. Reads the whole file: T1 files
 * are small. */
typedef enum kt_t1_kind {
    KT_T1_NOT_JSON,
    KT_T1_OTHER_JSON,
    KT_T1_SPACE_ONLY,
    KT_T1_JOB
} kt_t1_kind;

kt_t1_kind kt_t1_kind_of(const char *path);

/* The declaration and job for the T1 file at path (absolute paths inside),
 * malloc'ed into *ini. What Kernel Tuner would not run either, or ktune
 * cannot (a Language other than CUDA, a missing KernelFile, an argument
 * type Kernel Tuner refuses), is KT_S_INPUT naming the file, the JSON path
 * and what was found. */
kt_status kt_t1_job_ini(const char *path, char **ini, kt_err *err);

/* "N point(s) in the file's Cartesian product, M after its Conditions":
 * the T1 file's own count, without loading anything else. */
kt_status kt_t1_job_count(const char *path, unsigned long long *product,
                          unsigned long long *count, kt_err *err);

#endif
