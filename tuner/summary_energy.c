// SPDX-License-Identifier: Apache-2.0
#include "tuner/summary_energy.h"

#include <string.h>

#include "core/energy_text.h"

/* Energy per byte and per flop of work w, as "1.2 pJ/B, 0.3 pJ/flop". */
static void per_work(const kt_energy *e, const kt_work *w, char *out,
                     size_t size)
{
    double b = w ? kt_energy_per(e, w->bytes_read + w->bytes_written) : 0;
    double fl = w ? kt_energy_per(e, w->flops) : 0;
    int n = 0;

    out[0] = '\0';
    if (b > 0)
        n = snprintf(out, size, ", %.3g pJ/byte", 1e12 * b);
    if (fl > 0 && n >= 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, ", %.3g pJ/flop", 1e12 * fl);
}

/* The device's measured best energy per byte and per flop, from the
 * environment record's calibration (0: not measured). */
static void device_best(const kt_tune_facts *f, double *per_b, double *per_f)
{
    json_t *c =
        f->environment ? json_object_get(f->environment, "calibration") : NULL;

    *per_b = 1e-12 * json_number_value(json_object_get(c, "copy_pj_per_byte"));
    *per_f =
        1e-12 * json_number_value(json_object_get(c, "compute_pj_per_flop"));
}

/* "; 3.1x the copy's 8.2 pJ/byte" after a finalist's figures. */
static void best_text(const kt_tune_facts *f, const kt_energy *e, char *out,
                      size_t size)
{
    double b, fl;
    char text[256];

    device_best(f, &b, &fl);
    kt_energy_best_text(e, f->work, b, fl, text, sizeof text);
    snprintf(out, size, "%s%s", text[0] ? "; " : "", text);
}

static void limit_text(const kt_energy *e, char *out, size_t size)
{
    out[0] = '\0';
    if (e->dev.power_limit_w > 0)
        snprintf(out, size, " (%.1f%% of the %.0f W limit)",
                 100 * e->power_w / e->dev.power_limit_w, e->dev.power_limit_w);
}

/* The sentence on the time-best and the energy-best. */
static void print_tradeoff(FILE *out, const kt_tune_facts *f,
                           const kt_tune_result *r, const char *indent)
{
    const kt_tune_tradeoff *x = &r->tradeoff;
    char tb[512], eb[512], dt[96], de[96];

    if (!x->have)
        return;
    kt_point_format(f->op, &x->time_best, tb, sizeof tb);
    kt_point_format(f->op, &x->energy_best, eb, sizeof eb);
    if (kt_point_equal(&x->time_best, &x->energy_best)) {
        fprintf(out, "%sthe energy-best finalist is the time-best: %s\n",
                indent, tb);
        return;
    }
    kt_summary_change(&x->energy, de, sizeof de);
    kt_summary_change(&x->time, dt, sizeof dt);
    fprintf(out,
            "%sthe energy-best finalist %s differs from the time-best %s: "
            "energy %s, time %s (energy-best vs time-best, paired, 95%% CI)\n",
            indent, eb, tb, de, dt);
}

int kt_summary_energy_asked(const kt_tune_config *cfg)
{
    return cfg &&
           (cfg->protocol.energy || kt_objective_needs_energy(cfg->objective));
}

void kt_summary_energy(FILE *out, const kt_tune_facts *f,
                       const kt_tune_result *r)
{
    char cfg[512], lim[96], per[96], best[300];

    if (!r->has_best)
        return;
    fprintf(out, "\nenergy of the finalists (objective: %s)\n",
            kt_objective_name(f->cfg->objective));
    if (!r->finals[0].energy.measured && !kt_summary_energy_asked(f->cfg)) {
        /* Said, so that a reader knows none was attempted and how to ask. */
        fprintf(out,
                "  not measured: the objective is time and energy was not "
                "asked for (--energy or [measure] energy = true measures "
                "the finalists' energy, a window of about %g s each)\n",
                f->cfg->protocol.energy_rounds *
                    f->cfg->protocol.energy_window_s);
        return;
    }
    if (!r->finals[0].energy.measured) {
        fprintf(out, "  not measured: %s\n",
                r->finals[0].energy.note[0] ? r->finals[0].energy.note
                                            : "no energy window ran");
        return;
    }
    for (size_t i = 0; i < r->num_finals; ++i) {
        const kt_energy *e = &r->finals[i].energy;
        kt_point_format(f->op, &r->finals[i].point, cfg, sizeof cfg);
        if (!e->measured) {
            fprintf(out, "  %s  not measured: %s\n", cfg, e->note);
            continue;
        }
        limit_text(e, lim, sizeof lim);
        per_work(e, f->work, per, sizeof per);
        best_text(f, e, best, sizeof best);
        fprintf(out,
                "  %.6g mJ/launch [%.6g, %.6g], %.1f W%s%s%s, %.3f us  %s\n",
                1e3 * e->joules.median, 1e3 * e->joules.ci_lo,
                1e3 * e->joules.ci_hi, e->power_w, lim, per, best,
                r->finals[i].stats.median, cfg);
    }
    print_tradeoff(out, f, r, "  ");
}

void kt_summary_energy_markdown(FILE *out, const kt_tune_facts *f,
                                const kt_tune_result *r)
{
    char cfg[512];

    if (!r->has_best || !r->finals[0].energy.measured)
        return;
    fprintf(out,
            "\n### Energy (objective: %s)\n\n| Configuration | Energy (mJ) | "
            "95%% CI (mJ) | Power (W) | of limit | Median (us) |\n"
            "|---|---:|---:|---:|---:|---:|\n",
            kt_objective_name(f->cfg->objective));
    for (size_t i = 0; i < r->num_finals; ++i) {
        const kt_energy *e = &r->finals[i].energy;
        if (!e->measured)
            continue;
        kt_point_format(f->op, &r->finals[i].point, cfg, sizeof cfg);
        fprintf(out, "| `%s` | %.6g | [%.6g, %.6g] | %.1f | ", cfg,
                1e3 * e->joules.median, 1e3 * e->joules.ci_lo,
                1e3 * e->joules.ci_hi, e->power_w);
        if (e->dev.power_limit_w > 0)
            fprintf(out, "%.1f%% | ", 100 * e->power_w / e->dev.power_limit_w);
        else
            fputs("- | ", out);
        fprintf(out, "%.3f |\n", r->finals[i].stats.median);
    }
    fputc('\n', out);
    if (r->tradeoff.have) {
        print_tradeoff(out, f, r, "");
        fputc('\n', out); /* the next heading's blank line */
    }
}
