// SPDX-License-Identifier: Apache-2.0
/*
 * kt_sweep: what a size sweep (several problem sizes in one job, one search
 * each) prints and names: one row per size — the answer, its time and
 * interval, bandwidth and % of the copy ceiling, and its speed-up over the
 * operator's default configuration and over the reference variant (a
 * vendor library: cublas, cub or memcpy) where the search measured them —
 * and the per-size names of the journal and the other outputs.
 */
#ifndef KT_SWEEP_H
#define KT_SWEEP_H

#include <stdio.h>

#include "tuner/job.h"
#include "tuner/summary.h"

typedef struct kt_sweep_row {
    int64_t sizes[KT_MAX_SIZES];
    int has_best;
    kt_point best;
    kt_stats stats;                 /* the winner's closing measurement */
    double bandwidth_gbs, pct_copy; /* NaN: unknown */
    double default_us;              /* NaN: the default was not measured */
    double reference_us;            /* NaN: no reference measured */
    char reference[64];             /* its variant id; "" none */
    size_t evaluations;
    char journal[PATH_MAX]; /* "" none */
} kt_sweep_row;

/* The row of one finished search. */
void kt_sweep_row_fill(const kt_tune_facts *f, const kt_tune_result *r,
                       kt_sweep_row *row);

/* The table of a sweep (rows[0..n)), after the per-size summaries, fitted
 * to width columns (core/term.h; <= 0: no limit). */
void kt_sweep_print(FILE *out, const char *spec, const kt_operator *op,
                    const char *device, const kt_sweep_row *rows, size_t n,
                    int width);

/* "n1048576" or "m1024-n4096": a size as file names carry it. */
void kt_sweep_tag(const kt_operator *op, const int64_t *sizes, char *out,
                  size_t size);

/* path with the size's tag before its last extension:
 * vector_add.journal.jsonl -> vector_add.journal.n1048576.jsonl. */
void kt_sweep_path(const char *path, const kt_operator *op,
                   const int64_t *sizes, char *out, size_t size);

#endif
