// SPDX-License-Identifier: Apache-2.0
#include "records/objective.h"

#include <math.h>
#include <strings.h>

static const char *const names[] = {"time", "energy",   "edp",  "gflops",
                                    "gbs",  "gflops_w", "gbs_w"};
static const char *const units[] = {"us",     "J",      "J*s",   "s/flop",
                                    "s/byte", "J/flop", "J/byte"};
#define NUM_OBJECTIVES (sizeof names / sizeof names[0])

const char *kt_objective_name(kt_objective o)
{
    return (size_t)o < NUM_OBJECTIVES ? names[o] : "?";
}

const char *kt_objective_unit(kt_objective o)
{
    return (size_t)o < NUM_OBJECTIVES ? units[o] : "?";
}

kt_status kt_objective_parse(const char *name, kt_objective *out, kt_err *err)
{
    for (size_t i = 0; name && i < NUM_OBJECTIVES; ++i)
        if (strcasecmp(name, names[i]) == 0) {
            *out = (kt_objective)i;
            return KT_S_OK;
        }
    return kt_err_set(err, KT_S_INPUT,
                      "'%s' is not an objective; expected time, energy, edp, "
                      "gflops, gbs, gflops_w or gbs_w",
                      name ? name : "");
}

int kt_objective_needs_energy(kt_objective o)
{
    return o == KT_OBJ_ENERGY || o == KT_OBJ_EDP || o == KT_OBJ_GFLOPS_W ||
           o == KT_OBJ_GBS_W;
}

/* The work o divides by; 0 when o divides by none, NAN when undeclared. */
static double work_of(kt_objective o, const kt_work *w)
{
    double v;
    if (o == KT_OBJ_GFLOPS || o == KT_OBJ_GFLOPS_W)
        v = w ? w->flops : 0;
    else if (o == KT_OBJ_GBS || o == KT_OBJ_GBS_W)
        v = w ? w->bytes_read + w->bytes_written : 0;
    else
        return 0;
    return v > 0 ? v : NAN;
}

static int has_energy(const kt_objective_side *s)
{
    return s->energy && s->energy->measured && s->energy->rounds > 0;
}

double kt_objective_cost(kt_objective o, const kt_objective_side *s)
{
    double t_s = 1e-6 * s->timing->kernel.median, w = work_of(o, s->work);

    if (kt_objective_needs_energy(o) && !has_energy(s))
        return NAN;
    switch (o) {
    case KT_OBJ_TIME: return s->timing->kernel.median;
    case KT_OBJ_ENERGY: return s->energy->joules.median;
    case KT_OBJ_EDP: return s->energy->joules.median * t_s;
    case KT_OBJ_GFLOPS:
    case KT_OBJ_GBS: return t_s / w;
    case KT_OBJ_GFLOPS_W:
    case KT_OBJ_GBS_W: return s->energy->joules.median / w;
    }
    return NAN;
}

static void time_ratio(const kt_objective_side *a, const kt_objective_side *b,
                       kt_ratio *out)
{
    size_t n = a->timing->num_rounds < b->timing->num_rounds
                   ? a->timing->num_rounds
                   : b->timing->num_rounds;
    /* Samples of separate runs pair nothing: round i of one is not round
     * i of the other. */
    if (a->timing->unpaired || b->timing->unpaired)
        kt_stats_unpaired_ratio(a->timing->samples_us, a->timing->num_rounds,
                                b->timing->samples_us, b->timing->num_rounds,
                                out);
    else
        kt_stats_paired_ratio(a->timing->samples_us, b->timing->samples_us, n,
                              out);
}

static void energy_ratio(const kt_objective_side *a, const kt_objective_side *b,
                         kt_ratio *out)
{
    size_t n = a->energy->rounds < b->energy->rounds ? a->energy->rounds
                                                     : b->energy->rounds;
    kt_stats_paired_ratio(a->energy->samples_j, b->energy->samples_j, n, out);
}

/* r scaled by k (a ratio of works: constants of the two points). */
static void scale(kt_ratio *r, double k)
{
    r->ratio *= k;
    r->lo *= k;
    r->hi *= k;
}

void kt_objective_ratio(kt_objective o, const kt_objective_side *a,
                        const kt_objective_side *b, kt_ratio *out)
{
    double wa = work_of(o, a->work), wb = work_of(o, b->work);
    kt_ratio e;

    /* No decision: n = 0 (kt_stats_verdict calls it a tie), ratio 1. */
    out->n = 0;
    out->ratio = out->lo = out->hi = 1;
    if ((kt_objective_needs_energy(o) && (!has_energy(a) || !has_energy(b))) ||
        isnan(wa) || isnan(wb))
        return;
    if (o == KT_OBJ_TIME || o == KT_OBJ_GFLOPS || o == KT_OBJ_GBS ||
        o == KT_OBJ_EDP)
        time_ratio(a, b, out);
    if (o == KT_OBJ_ENERGY || o == KT_OBJ_GFLOPS_W || o == KT_OBJ_GBS_W)
        energy_ratio(a, b, out);
    if (o == KT_OBJ_EDP) {
        /* Both factors' intervals: the product's bounds are the bounds'
         * products (each factor positive). */
        energy_ratio(a, b, &e);
        out->ratio *= e.ratio;
        out->lo *= e.lo;
        out->hi *= e.hi;
        out->n = out->n < e.n ? out->n : e.n;
    }
    if (wa > 0 && wb > 0)
        scale(out, wa / wb);
}
