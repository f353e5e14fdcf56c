// SPDX-License-Identifier: Apache-2.0
/*
 * Running the traced program: found the way a shell finds it, started
 * with the tracer named in CUDA_INJECTION64_PATH and the record folder in
 * KTUNE_TIMELINE_DIR (children inherit both, so every process that uses
 * CUDA writes its own record file), timed on CLOCK_MONOTONIC, and its exit
 * status kept to be passed on. Pure POSIX; no CUDA.
 */
#ifndef KT_TIMELINE_LAUNCH_H
#define KT_TIMELINE_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct kt_tl_run {
    uint64_t start_mono; /* CLOCK_MONOTONIC ns just before the start */
    uint64_t wall;       /* ns from start to its exit */
    int signal;          /* the signal that ended it, or 0 */
    int exit_code;       /* its exit code when signal is 0 */
    int core_dumped;
} kt_tl_run;

/* The file program names: a path when it holds a '/', else the first
 * executable match in PATH. KT_S_INPUT ("not found", "not executable",
 * "is a folder") otherwise. */
kt_status kt_tl_find_program(const char *program, char *out, size_t out_size,
                             kt_err *err);

/* Runs argv[0] (found by kt_tl_find_program) with argv, in ktune's
 * environment changed by vars (a NULL-terminated list of "NAME=VALUE",
 * set, and "NAME", removed; borrowed; core/childenv.h): the tracer in
 * CUDA_INJECTION64_PATH, its settings beside it. ktune's own environment
 * is never changed. Waits for it; ktune ignores SIGINT and SIGQUIT
 * meanwhile, so that Ctrl-C ends the program and the timeline of what it
 * did is still shown. KT_S_INPUT when the program cannot be started,
 * KT_S_IO when it cannot be waited for. */
kt_status kt_tl_launch_env(char *const *argv, const char *const *vars,
                           kt_tl_run *run, kt_err *err);

/* The status a shell would report: the exit code, or 128 + signal. */
int kt_tl_run_status(const kt_tl_run *run);

#endif
