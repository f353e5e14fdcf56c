// SPDX-License-Identifier: Apache-2.0
/*
 * The run's budget (max_seconds) as one clock: what the command spent
 * before the search (process start, plugins, evaluator, calibration: the
 * config's budget_origin), the search, and a reserve for the closing phase
 * (the finalists' re-measurement, energy windows where asked, outputs and
 * the evaluator's release), estimated from this run's measured cost per
 * evaluation, so that the search stops early enough for the command to end
 * within the budget (docs/configs.md, [strategy] max_seconds).
 */
#include "tuner/tune_impl.h"

#include <stdio.h>
#include <string.h>

#include "core/energy.h"

/* Writing the outputs and letting go of the device after the closing
 * call: not measurable before it happens; 0.5 s covers the worker's exit
 * and the files on the machines measured (docs/results). */
#define KT_TUNE_CLOSE_TAIL_S 0.5
/* An energy window waits for the counter's edge on both sides (core/
 * energy.h): a window takes its length plus about two counter steps. */
#define KT_TUNE_ENERGY_EDGES_S 0.25
/* How far past max_seconds a closing step may be expected to end and
 * still run: the command's promise is its wall within max_seconds + 3 s
 * (issue 54); the last second is the outputs' and the exit's. An
 * estimate past it leaves the step out. */
#define KT_TUNE_CLOSE_GRACE_S 2.0

/* 1 when the clock is the evaluator's simulation (a replay of another
 * tool's recording): max_seconds then is that tool's time_limit, counted
 * from the search's start with nothing reserved, as that tool counts it. */
static int simulated(const kt_tune *t)
{
    kt_evaluator *ev = t->cfg->ev;
    return ev && ev->ops->simulated_s;
}

double kt_tune_budget_used(const kt_tune *t)
{
    return kt_tune_run_clock(t) + (simulated(t) ? 0 : t->before_s);
}

void kt_tune_budget_note_call(kt_tune *t, double call_s)
{
    t->spent_s += call_s;
    ++t->spent_n;
    if (call_s > t->spent_max_s)
        t->spent_max_s = call_s;
}

/* The search's measured mean wall time per evaluation. */
static double mean_call_s(const kt_tune *t)
{
    return t->spent_n ? t->spent_s / (double)t->spent_n : 0;
}

/* The closing call of n points, estimated: the mean per evaluation each,
 * and the energy windows the search's calls did not already take (a
 * replay's are recorded and cost no time). */
static double closing_s(const kt_tune *t, size_t n)
{
    const kt_tune_config *cfg = t->cfg;
    const kt_protocol *p = &cfg->protocol;
    double est = mean_call_s(t) * (double)n;

    if (p->energy && !kt_objective_needs_energy(cfg->objective) &&
        !(cfg->ev && strcmp(cfg->ev->ops->kind, "replay") == 0))
        est += (double)n * (double)p->energy_rounds *
               (p->energy_window_s + KT_TUNE_ENERGY_EDGES_S);
    return est;
}

double kt_tune_budget_reserve(const kt_tune *t)
{
    const kt_tune_config *cfg = t->cfg;
    size_t finals = cfg->finalists ? cfg->finalists : 1;
    double in_flight;

    if (simulated(t))
        return 0;
    /* The closing call measures each finalist once more (their kernels
     * are compiled by then). The call in flight when the budget is checked
     * may be as long as the longest one so far: on a compile-bound search
     * most calls are short and a few wait on a compile (the H100's
     * convolution: 0.75 s mean, a 10 s wait as the last call overran
     * max_seconds 60 by 7 s). */
    finals = finals < t->res->measured ? finals : t->res->measured;
    for (size_t s = 0; s < cfg->space->num_slots; ++s)
        finals += kt_tune_slot_is_reference(t, s) != 0; /* they join it */
    in_flight = mean_call_s(t);
    if (t->spent_max_s > in_flight)
        in_flight = t->spent_max_s;
    return closing_s(t, finals) + in_flight + KT_TUNE_CLOSE_TAIL_S;
}

int kt_tune_budget_allows(kt_tune *t, const char *what, size_t n)
{
    double limit = t->cfg->max_seconds, end;
    size_t used;

    if (!(limit > 0) || simulated(t))
        return 1;
    end = kt_tune_budget_used(t) + closing_s(t, n) + KT_TUNE_CLOSE_TAIL_S;
    if (end <= limit + KT_TUNE_CLOSE_GRACE_S)
        return 1;
    used = strlen(t->res->budget_left_out);
    snprintf(t->res->budget_left_out + used,
             sizeof t->res->budget_left_out - used,
             "%s%s (it would have ended at about %.1f s)", used ? "; " : "",
             what, end);
    return 0;
}

int kt_tune_budget_spent(kt_tune *t)
{
    double limit = t->cfg->max_seconds, reserve;

    if (!(limit > 0))
        return 0;
    reserve = kt_tune_budget_reserve(t);
    if (kt_tune_budget_used(t) + reserve < limit)
        return 0;
    t->res->budget_reserve_s = reserve;
    return 1;
}
