// SPDX-License-Identifier: Apache-2.0
/*
 * kt_objective: what a tuning run minimises ([strategy] objective).
 *
 * Maps a point's evaluation (timing, energy, work) to a cost, lower is
 * better, and two points measured together to a paired ratio of their
 * costs with its 95% interval, so the one-change-at-a-time comparison,
 * the finalists' re-measurement and the tie rule decide on the chosen
 * objective with that objective's own noise:
 *   time      kernel time; per-round time ratios (the default)
 *   energy    joules per launch; per-round energy ratios (the windows of
 *             the two points alternate, as the timing samples do)
 *   edp       energy x time; the product of the two ratios, its interval
 *             the product of their bounds
 *   gflops    throughput of the declared flops: time / flops
 *   gbs       throughput of the declared bytes: time / bytes
 *   gflops_w  flops per joule (GFLOP/s/W): energy / flops
 *   gbs_w     bytes per joule (GB/s/W): energy / bytes
 * The work is per point (kt_objective_side.work): today the problem's,
 * the same for every point; a per-point work callback plugs in there.
 */
#ifndef KT_OBJECTIVE_H
#define KT_OBJECTIVE_H

#include <ktune/plugin.h>

#include "core/energy.h"
#include "core/error.h"
#include "core/stats.h"
#include "core/timing.h"

typedef enum kt_objective {
    KT_OBJ_TIME = 0,
    KT_OBJ_ENERGY,
    KT_OBJ_EDP,
    KT_OBJ_GFLOPS,
    KT_OBJ_GBS,
    KT_OBJ_GFLOPS_W,
    KT_OBJ_GBS_W
} kt_objective;

/* One side of a comparison: a point's measurement and its work. */
typedef struct kt_objective_side {
    const kt_timing *timing;
    const kt_energy *energy; /* may be NULL for time-only objectives */
    const kt_work *work;     /* may be NULL for time, energy, edp */
} kt_objective_side;

/* "time", "energy", ... */
const char *kt_objective_name(kt_objective o);
/* KT_S_INPUT naming the seven when name is none of them. */
kt_status kt_objective_parse(const char *name, kt_objective *out, kt_err *err);

/* Whether o needs energy windows (kt_protocol.energy). */
int kt_objective_needs_energy(kt_objective o);

/* The cost of s under o (lower is better), in o's unit: us, J, J*s,
 * s/flop, s/byte, J/flop, J/byte. NAN when s lacks what o needs (no
 * energy measured, no work declared). */
double kt_objective_cost(kt_objective o, const kt_objective_side *s);

/* cost(b) / cost(a) over the rounds both have, with its 95% interval
 * (ratio < 1: b is better). out->n = 0 and ratio, lo, hi 1 (no decision:
 * kt_stats_verdict says tie) when either lacks what o needs. */
void kt_objective_ratio(kt_objective o, const kt_objective_side *a,
                        const kt_objective_side *b, kt_ratio *out);

/* The unit of kt_objective_cost, for summaries ("us", "J", ...). */
const char *kt_objective_unit(kt_objective o);

#endif
