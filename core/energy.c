// SPDX-License-Identifier: Apache-2.0
#include "core/energy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t kt_energy_delta_mj(uint64_t a, uint64_t b)
{
    return b - a; /* unsigned: modulo 2^64 */
}

static double edge_gap(const kt_energy_change *c)
{
    return c->t_s - c->t_before_s;
}

/* Median of the n - 1 gaps between successive change times c[0..n). */
static double median_gap(const kt_energy_change *c, size_t n)
{
    double *gaps = malloc((n ? n : 1) * sizeof *gaps), med;
    kt_stats s;

    if (!gaps || n < 2) {
        free(gaps);
        return 0;
    }
    for (size_t i = 1; i < n; ++i)
        gaps[i - 1] = c[i].t_s - c[i - 1].t_s;
    kt_stats_compute(gaps, n - 1, &s);
    med = s.median;
    free(gaps);
    return med;
}

/* The largest distance of a gap between successive changes c[0..n) from
 * the nearest whole number (at least one) of step periods: how far the
 * counter's update instants wander. */
static double jitter_of(const kt_energy_change *c, size_t n, double step_s)
{
    double worst = 0;

    if (!(step_s > 0))
        return 0;
    for (size_t i = 1; i < n; ++i) {
        double gap = c[i].t_s - c[i - 1].t_s;
        double k = fmax(1, round(gap / step_s));
        worst = fmax(worst, fabs(gap - k * step_s));
    }
    return worst;
}

static kt_status too_few_changes(size_t n, kt_err *err)
{
    return kt_err_set(err, KT_S_UNSUPPORTED,
                      "the energy counter changed %zu time%s in the window; "
                      "a window needs %d changes (a lead-in step and two "
                      "edges)",
                      n ? n - 1 : 0, n == 2 ? "" : "s", KT_ENERGY_MIN_CHANGES);
}

kt_status kt_energy_span_of(const kt_energy_change *c, size_t n,
                            double min_window_s, kt_energy_span *out,
                            kt_err *err)
{
    const kt_energy_change *first, *last;
    double dt;

    memset(out, 0, sizeof *out);
    if (n < 1 + KT_ENERGY_MIN_CHANGES)
        return too_few_changes(n, err);
    first = &c[1 + KT_ENERGY_LEAD_IN];
    last = &c[n - 1];
    dt = last->t_s - first->t_s;
    out->t0_s = first->t_s;
    out->t1_s = last->t_s;
    out->changes = (size_t)(last - first) + 1;
    out->mj = kt_energy_delta_mj(first->mj, last->mj);
    /* The full steps: every gap from the first change on (the one before
     * it started at the kernel's start, not at an update). */
    out->step_s = median_gap(&c[1], n - 1);
    out->jitter_s = jitter_of(&c[1], n - 1, out->step_s);
    out->step_mj = UINT64_MAX;
    for (size_t i = 2; i < n; ++i) {
        uint64_t d = kt_energy_delta_mj(c[i - 1].mj, c[i].mj);
        if (d > 0 && d < out->step_mj)
            out->step_mj = d;
    }
    out->edge_s = fmax(edge_gap(first), edge_gap(last));
    if (!(dt > 0) || dt < min_window_s)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "the energy window spans %.3f ms between its "
                          "first and last counter change, shorter than the "
                          "%.3f ms it needs",
                          1e3 * dt, 1e3 * min_window_s);
    out->power_w = 1e-3 * (double)out->mj / dt;
    if (out->power_w > KT_ENERGY_MAX_PLAUSIBLE_W)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "the energy counter moved by %llu mJ in %.3f ms "
                          "(%.0f W, above %.0f W): it was reset in the window",
                          (unsigned long long)out->mj, 1e3 * dt, out->power_w,
                          KT_ENERGY_MAX_PLAUSIBLE_W);
    return KT_S_OK;
}

/* A window's relative bound: its edges' timing over its span (the edges
 * are counter updates, so its energy is whole steps, exact to the two
 * readings' unit). */
double kt_energy_resolution(const kt_energy_span *s)
{
    double dt = s->t1_s - s->t0_s;

    if (!(dt > 0) || s->mj == 0)
        return 0;
    return (s->edge_s + s->jitter_s) / dt + 2.0 / (double)s->mj;
}

kt_status kt_energy_add_round(kt_energy *e, const kt_energy_span *span,
                              double launch_s, uint64_t launches, kt_err *err)
{
    double dt = span->t1_s - span->t0_s, res = kt_energy_resolution(span);

    if (e->rounds >= KT_ENERGY_MAX_ROUNDS)
        return kt_err_set(err, KT_S_INPUT,
                          "energy: more than %d rounds in one measurement",
                          KT_ENERGY_MAX_ROUNDS);
    if (!(launch_s > 0) || launches == 0)
        return kt_err_set(err, KT_S_INPUT,
                          "energy: a round of %llu launches at %g s each",
                          (unsigned long long)launches, launch_s);
    e->samples_j[e->rounds] = span->power_w * launch_s;
    /* GPU time per launch over all windows, weighted by their launches. */
    e->launch_us = (e->launch_us * (double)e->launches +
                    1e6 * launch_s * (double)launches) /
                   (double)(e->launches + launches);
    e->launches += launches;
    e->window_s += dt;
    e->window_mj += span->mj;
    if (e->rounds == 0 || (double)span->step_mj < e->step_mj)
        e->step_mj = (double)span->step_mj;
    /* Running median of step periods is overkill: rounds share a counter,
     * so the mean of their medians is as good. */
    e->step_s = (e->step_s * (double)e->rounds + span->step_s) /
                (double)(e->rounds + 1);
    if (span->jitter_s > e->jitter_s)
        e->jitter_s = span->jitter_s;
    if (res > e->resolution)
        e->resolution = res;
    ++e->rounds;
    return KT_S_OK;
}

void kt_energy_finish(kt_energy *e, const kt_energy_device *dev)
{
    if (dev)
        e->dev = *dev;
    if (e->rounds == 0) {
        e->measured = 0;
        return;
    }
    kt_stats_compute(e->samples_j, e->rounds, &e->joules);
    e->power_w =
        e->window_s > 0 ? 1e-3 * (double)e->window_mj / e->window_s : 0;
    e->crosscheck = e->power_w > 0 && e->dev.power_samples
                        ? e->dev.sampled_power_w / e->power_w - 1
                        : 0;
    e->measured = 1;
}

void kt_energy_none(kt_energy *e, const char *fmt, ...)
{
    va_list ap;

    memset(e, 0, sizeof *e);
    va_start(ap, fmt);
    vsnprintf(e->note, sizeof e->note, fmt, ap);
    va_end(ap);
}

double kt_energy_per(const kt_energy *e, double work)
{
    if (!e->measured || !(work > 0) || !(e->joules.median > 0))
        return 0;
    return e->joules.median / work;
}
