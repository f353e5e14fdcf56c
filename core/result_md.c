// SPDX-License-Identifier: Apache-2.0
#include "core/result_md.h"

#include "core/derive.h"
#include "core/energy_text.h"
#include "core/sizes.h"

/* A cell's text; '|' would end the cell early. */
static void cell(FILE *out, const char *text)
{
    for (const char *p = text; *p; ++p) {
        if (*p == '|')
            fputc('\\', out);
        fputc(*p, out);
    }
}

void kt_result_markdown(FILE *out, const kt_result_md *m)
{
    const kt_stats *s = &m->r->timing.kernel;
    char shown[512], sz[160];
    kt_derived d;

    kt_point_format(m->op, m->pt, shown, sizeof shown);
    kt_format_sizes(m->op, m->sizes, sz, sizeof sz);
    kt_derive(m->work, s->median, m->copy_gbs, m->peak_gbs, &d);
    fprintf(out, "## %s\n\n", m->spec);
    fputs("| Device | Configuration | Sizes | Samples | Median (us) | 95% CI "
          "(us) | Noise | Bandwidth (GB/s) | of copy |\n",
          out);
    fputs("|---|---|---|---:|---:|---:|---:|---:|---:|\n", out);
    fputs("| ", out);
    cell(out, m->device ? m->device : "?");
    fputs(" | `", out);
    cell(out, shown);
    fprintf(out, "` | %s | %zu | %.3f | [%.3f, %.3f] | %.2f%% | %.1f | ", sz,
            s->n, s->median, s->ci_lo, s->ci_hi, 100.0 * s->noise,
            d.bandwidth_gbs);
    if (m->copy_gbs > 0)
        fprintf(out, "%.1f%% |\n", d.pct_of_copy);
    else
        fputs("- |\n", out);
    kt_energy_markdown(out, &m->r->energy, m->work);
}
