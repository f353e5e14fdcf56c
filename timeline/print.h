// SPDX-License-Identifier: Apache-2.0
/*
 * The text `ktune timeline` prints: the program and its processes, the
 * CUDA API, GPU kernel and memory-operation summaries (the tables
 * `nsys stats` prints), then the kernels in launch order, the GPU's idle
 * gaps, copy against kernel time and the reading. Also the CSV of every
 * GPU operation.
 */
#ifndef KT_TIMELINE_PRINT_H
#define KT_TIMELINE_PRINT_H

#include <stdio.h>

#include "timeline/summary.h"

typedef struct kt_tl_print_opts {
    size_t top;      /* kernels listed in launch order (0: none) */
    size_t max_rows; /* rows per summary table (0: all) */
} kt_tl_print_opts;

/* Everything after the processes block. */
void kt_tl_print(FILE *out, const kt_tl_summary *s, const kt_tl_print_opts *o);

/* One line per process: pid, program, how it ended, what it lost. */
void kt_tl_print_processes(FILE *out, const kt_tl_summary *s);

/* What the tracer could not do, per process, in the user's words: another
 * profiler holding CUPTI (naming the tool when its library is loaded),
 * missing privileges, other CUPTI failures, dropped records. Returns how
 * many processes recorded no kernel activity because of it. */
size_t kt_tl_print_problems(FILE *out, const kt_tl_trace *t);

/* The tool a loaded library belongs to ("Nsight Systems"), or NULL. */
const char *kt_tl_tool_of_library(const char *lib);

/* One row per GPU operation and API call, in start order, times in ns
 * from the program's start: kind,pid,device,stream,start_ns,duration_ns,
 * bytes,grid,block,registers,shared_bytes,name. Returns 0, or -1 when out
 * could not be written. */
int kt_tl_write_csv(FILE *out, const kt_tl_summary *s);

#endif
