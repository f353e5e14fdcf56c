// SPDX-License-Identifier: Apache-2.0
#include "core/energy_text.h"

static double bytes_of(const kt_work *w)
{
    return w ? w->bytes_read + w->bytes_written : 0;
}

static double pct_of_limit(const kt_energy *e)
{
    return e->dev.power_limit_w > 0 ? 100 * e->power_w / e->dev.power_limit_w
                                    : 0;
}

void kt_energy_print(FILE *out, const kt_energy *e, const kt_work *work)
{
    double per_b = kt_energy_per(e, bytes_of(work));
    double per_f = kt_energy_per(e, work ? work->flops : 0);

    if (!e->measured) {
        fprintf(out, "energy               not measured: %s\n",
                e->note[0] ? e->note : "not asked for");
        return;
    }
    fprintf(out,
            "energy               %.6g mJ per launch, 95%% CI [%.6g, %.6g] "
            "over %zu windows\n",
            1e3 * e->joules.median, 1e3 * e->joules.ci_lo,
            1e3 * e->joules.ci_hi, e->rounds);
    fprintf(out, "power                %.1f W average", e->power_w);
    if (e->dev.power_limit_w > 0)
        fprintf(out, ", %.1f%% of the %.0f W limit", pct_of_limit(e),
                e->dev.power_limit_w);
    fprintf(out, "; power x time %.1f W (%+.1f%%)\n", e->dev.sampled_power_w,
            100 * e->crosscheck);
    if (per_b > 0 || per_f > 0) {
        fprintf(out, "energy per work     ");
        if (per_b > 0)
            fprintf(out, " %.4g pJ/byte", 1e12 * per_b);
        if (per_f > 0)
            fprintf(out, " %.4g pJ/flop", 1e12 * per_f);
        fputc('\n', out);
    }
    fprintf(out,
            "energy window        %.3f s, %llu launches back to back at "
            "%.3f us; counter step %.1f ms / %.0f mJ (jitter %.2f ms); "
            "resolution %.2f%%\n",
            e->window_s, (unsigned long long)e->launches, e->launch_us,
            1e3 * e->step_s, e->step_mj, 1e3 * e->jitter_s,
            100 * e->resolution);
    fprintf(out,
            "during the window    SM %.0f MHz (min %.0f), memory %.0f MHz, "
            "up to %.0f C\n",
            e->dev.sm_mhz, e->dev.sm_mhz_min, e->dev.mem_mhz, e->dev.temp_c);
    if (e->note[0])
        fprintf(out, "energy note          %s\n", e->note);
}

void kt_energy_best_text(const kt_energy *e, const kt_work *work,
                         double best_per_byte, double best_per_flop, char *out,
                         size_t size)
{
    double per_b = kt_energy_per(e, bytes_of(work));
    double per_f = kt_energy_per(e, work ? work->flops : 0);
    int n = 0;

    out[0] = '\0';
    if (per_b > 0 && best_per_byte > 0)
        n = snprintf(out, size, "%.3gx the copy's %.3g pJ/byte",
                     per_b / best_per_byte, 1e12 * best_per_byte);
    if (per_f > 0 && best_per_flop > 0 && n >= 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n,
                 "%s%.3gx the FMA kernel's %.3g "
                 "pJ/flop",
                 n ? ", " : "", per_f / best_per_flop, 1e12 * best_per_flop);
}

void kt_energy_print_best(FILE *out, const kt_energy *e, const kt_work *work,
                          double best_per_byte, double best_per_flop)
{
    char text[256];

    kt_energy_best_text(e, work, best_per_byte, best_per_flop, text,
                        sizeof text);
    if (text[0])
        fprintf(out,
                "against the best      %s (the device's measured "
                "best)\n",
                text);
}

void kt_energy_markdown(FILE *out, const kt_energy *e, const kt_work *work)
{
    double per_b = kt_energy_per(e, bytes_of(work));

    if (!e->measured)
        return;
    fputs("\n| Energy (mJ) | 95% CI (mJ) | Power (W) | of limit | pJ/byte | "
          "Window (s) | Counter step (ms) |\n",
          out);
    fputs("|---:|---:|---:|---:|---:|---:|---:|\n", out);
    fprintf(out, "| %.6g | [%.6g, %.6g] | %.1f | ", 1e3 * e->joules.median,
            1e3 * e->joules.ci_lo, 1e3 * e->joules.ci_hi, e->power_w);
    if (e->dev.power_limit_w > 0)
        fprintf(out, "%.1f%% | ", pct_of_limit(e));
    else
        fputs("- | ", out);
    if (per_b > 0)
        fprintf(out, "%.4g | ", 1e12 * per_b);
    else
        fputs("- | ", out);
    fprintf(out, "%.3f | %.1f |\n", e->window_s, 1e3 * e->step_s);
}
