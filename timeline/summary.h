// SPDX-License-Identifier: Apache-2.0
/*
 * kt_tl_summary: what a trace says, in the terms `nsys stats` uses (API,
 * kernel and memory-operation summaries) and in the ones it does not
 * (kernels in launch order, the GPU's idle gaps, copy against kernel time,
 * a reading in words). Pure arithmetic on a kt_tl_trace.
 *
 * Times are ns. GPU "busy" is the union of the intervals in which any
 * kernel, copy or memset runs (overlapping operations count once); "idle"
 * is the rest of the span from the first GPU operation's start to the last
 * one's end. API times are host times inside CUDA calls: they overlap GPU
 * time (launches are asynchronous) and are never added to it.
 */
#ifndef KT_TIMELINE_SUMMARY_H
#define KT_TIMELINE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/records.h"

/* One row of a summary table: calls or operations sharing a name. */
typedef struct kt_tl_row {
    const char *name;
    char domain;   /* API rows: 'R' runtime, 'D' driver; else 0 */
    uint32_t kind; /* memory rows: copy kind, or UINT32_MAX for memset */
    uint64_t count;
    uint64_t total, min, max;             /* time */
    double share;                         /* of the table's total time, 0..1 */
    uint64_t bytes, min_bytes, max_bytes; /* memory rows */
} kt_tl_row;

/* A stretch of the span in which the GPU runs nothing. */
typedef struct kt_tl_gap {
    uint64_t start, end;
    const kt_tl_op *before, *after; /* the operations on either side */
} kt_tl_gap;

#define KT_TL_MAX_GAPS 10

typedef struct kt_tl_summary {
    const kt_tl_trace *trace;
    /* Program wall time and its start on the CUPTI clock (0: unknown, then
     * the trace's own span stands in). */
    uint64_t wall, wall_start;
    kt_tl_row *api; /* by total time, largest first; share within domain */
    size_t num_api;
    uint64_t api_total[2]; /* runtime, driver */
    kt_tl_row *kernels;    /* by total time */
    size_t num_kernels;
    kt_tl_row *memops; /* copies by kind, then memsets, by total time */
    size_t num_memops;
    kt_tl_row *syncs; /* by synchronisation type */
    size_t num_syncs;
    /* GPU operations sorted by start; kernels in launch order (process,
     * then correlation id: the order the host issued them). Borrowed from
     * the trace. */
    const kt_tl_op **by_start, **launch_order;
    size_t num_ops, num_launches;
    uint64_t span_start, span_end; /* first GPU start, last GPU end */
    uint64_t busy, idle;           /* within the span */
    uint64_t kernel_time, copy_time, memset_time;  /* sums */
    uint64_t kernel_busy, copy_busy, copy_overlap; /* unions; copies that run
                                                      under a kernel */
    uint64_t bytes_htod, bytes_dtoh, time_htod, time_dtoh;
    uint64_t num_htod, num_dtoh;
    uint64_t num_gaps, gap_threshold; /* gaps >= threshold */
    kt_tl_gap gaps[KT_TL_MAX_GAPS];   /* the largest, largest first */
    size_t num_top_gaps;
    uint64_t sync_time;
    uint64_t dropped;
    size_t num_errors;
} kt_tl_summary;

/* Summarises t (which must outlive s). wall and wall_start_mono: the
 * program's wall time and start on CLOCK_MONOTONIC as ktune measured them,
 * or 0 when the trace alone is summarised. KT_S_NOMEM or KT_S_OK. */
kt_status kt_tl_summarise(kt_tl_summary *s, const kt_tl_trace *t, uint64_t wall,
                          uint64_t wall_start_mono, kt_err *err);
void kt_tl_summary_free(kt_tl_summary *s);

/* The CUPTI-clock time of a CLOCK_MONOTONIC instant in process p's trace
 * (each process records both clocks at CUDA initialisation). */
uint64_t kt_tl_mono_to_cupti(const kt_tl_proc *p, uint64_t mono);

/* The reading: a paragraph of plain sentences on where the time goes.
 * Writes at most out_size - 1 characters; returns the length it needed. */
size_t kt_tl_reading(const kt_tl_summary *s, char *out, size_t out_size);

/* "1.23 ms", "456 us", "789 ns", "2.50 s". */
void kt_tl_fmt_time(uint64_t ns, char *out, size_t out_size);

#endif
