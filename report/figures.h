// SPDX-License-Identifier: Apache-2.0
/*
 * The report's sections that draw charts, each writing one <section> of
 * the document from the sources (report/sources.h), or a line saying why
 * the results do not allow it:
 *   parameters   median time (interquartile range) against each tuned
 *                parameter, one line per variant;
 *   search       the one-at-a-time path (step, change, gain with its
 *                interval) and the best time after each evaluation;
 *   roofline     every configuration by arithmetic intensity and achieved
 *                rate under the measured bandwidth and compute ceilings;
 *   calibration  bandwidth against working set, with the L2 size marked;
 *   compare      `ktune compare` rows side by side with their intervals
 *                and counters;
 *   energy       time against energy per launch, the Pareto front marked.
 * kt_fig_ctx carries what they share, gathered once by kt_fig_ctx_init.
 */
#ifndef KT_REPORT_FIGURES_H
#define KT_REPORT_FIGURES_H

#include <jansson.h>
#include <stdio.h>

#include "report/sources.h"

#define KT_FIG_MAX_VARIANTS 64

typedef struct kt_fig_ctx {
    FILE *out;
    const kt_sources *src;
    int next_id;                        /* chart ids, unique in the document */
    const json_t *env, *device, *calib; /* borrowed; may be NULL */
    double copy_gbs;                    /* measured copy ceiling; NaN unknown */
    double peak_bw_gbs;                 /* theoretical DRAM peak; NaN unknown */
    double l2_bytes;                    /* NaN unknown */
    double peak_gflops;                 /* compute ceiling; NaN unknown */
    int gflops_measured;                /* 0: peak_gflops is theoretical */
    /* Variants in a stable order (declared, else first seen): their
     * colours are the same in every chart. */
    const char *variants[KT_FIG_MAX_VARIANTS];
    size_t num_variants;
} kt_fig_ctx;

void kt_fig_ctx_init(kt_fig_ctx *c, FILE *out, const kt_sources *src);

/* The colour of a variant (its place in c->variants). */
const char *kt_fig_variant_color(const kt_fig_ctx *c, const char *variant);

/* Fastest first by median; ok points only. Caller frees the array. */
const kt_src_point **kt_fig_ranked(const kt_sources *s, size_t *count);

/* Effective bandwidth in GB/s of a time, NaN without work. */
double kt_fig_bandwidth(const kt_fig_ctx *c, double median_us);

void kt_fig_parameters(kt_fig_ctx *c);
void kt_fig_search(kt_fig_ctx *c);
void kt_fig_roofline(kt_fig_ctx *c);
void kt_fig_calibration(kt_fig_ctx *c);
void kt_fig_compare(kt_fig_ctx *c);
/* Time against energy of a tuning run's configurations (the summary's
 * energy.points, else a journal's evaluations with energy), the Pareto
 * front marked, and a table of each configuration's energy against the
 * device's best; nothing without a summary or energy records. */
void kt_fig_energy(kt_fig_ctx *c);

/* front[i] = 1 when no other point is at most as slow and as costly in
 * energy and better in one of them (both minimised); returns how many. */
size_t kt_fig_pareto(const double *time, const double *energy, size_t n,
                     int *front);

#endif
