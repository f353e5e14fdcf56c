// SPDX-License-Identifier: Apache-2.0
/* The calibration's bandwidth against working set, the L2 size marked, and
 * the ceilings it measured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/plot.h"

#define KT_SWEEP_MAX 64

static void ceilings_table(kt_fig_ctx *c)
{
    char a[64], b[64];
    double copy = c->copy_gbs, peak = c->peak_bw_gbs;
    double floor_us = kt_src_num(c->calib, "launch_floor_us");
    double sync_us = kt_src_num(c->calib, "launch_sync_us");
    double copy_bytes = kt_src_num(c->calib, "copy_bytes");

    fputs("<table class=\"kv\"><tbody>\n", c->out);
    kt_html_group(copy, 1, a, sizeof a);
    kt_scale_fmt_bytes(copy_bytes, b, sizeof b);
    fprintf(c->out,
            "<tr><th>copy ceiling</th><td>%s GB/s (device-to-device copy of "
            "%s, bytes read + written, median)",
            a, isfinite(copy_bytes) ? b : "?");
    if (peak > 0 && copy > 0)
        fprintf(c->out, ", %.1f%% of the theoretical peak", 100 * copy / peak);
    fputs("</td></tr>\n", c->out);
    kt_html_group(peak, 1, a, sizeof a);
    fprintf(c->out,
            "<tr><th>theoretical peak</th><td>%s GB/s (memory clock "
            "\xC3\x97 2 \xC3\x97 bus width)</td></tr>\n",
            a);
    kt_html_sig(floor_us, 3, a, sizeof a);
    kt_html_sig(sync_us, 3, b, sizeof b);
    fprintf(c->out,
            "<tr><th>launch floor</th><td>%s \xC2\xB5s (empty kernel, event "
            "interval, median); %s \xC2\xB5s launch + synchronise, host "
            "clock</td></tr>\n",
            a, b);
    fputs("<tr><th>measured</th><td>", c->out);
    kt_esc_write(c->out, kt_src_text(c->calib, "date", "?"));
    fputs(" on ", c->out);
    kt_esc_write(c->out, kt_src_text(c->calib, "gpu", "?"));
    fputs("</td></tr>\n</tbody></table>\n", c->out);
}

void kt_fig_calibration(kt_fig_ctx *c)
{
    const json_t *sweep = json_object_get(c->calib, "sweep"), *pt;
    double x[KT_SWEEP_MAX], y[KT_SWEEP_MAX];
    char buf[KT_SWEEP_MAX][96], a[32], b[32], label[160];
    const char *tips[KT_SWEEP_MAX];
    double xlo = INFINITY, xhi = 0, yhi = 0;
    size_t n = 0, i;
    kt_style line = {.color = kt_plot_color(0), .width = 2};
    kt_style marks = {.color = kt_plot_color(0), .radius = 3.5};
    kt_style l2 = {.color = "#8B0000", .width = 1.5, .dash = "5 4"};
    kt_style copy = {.color = "#222", .width = 1.5};
    kt_style peak = {.color = "#222", .width = 1.2, .dash = "6 4"};
    kt_plot plot;

    fputs("<section id=\"calibration\">\n<h2>Calibration: bandwidth against "
          "working set</h2>\n",
          c->out);
    if (!c->calib) {
        fputs("<p class=\"missing\">The environment record holds no "
              "calibration (measured with <code>ktune info</code>; a run "
              "with <code>--no-calibration</code> has none).</p>\n",
              c->out);
        goto done;
    }
    ceilings_table(c);
    json_array_foreach ((json_t *)sweep, i, pt) {
        double bytes = kt_src_num(pt, "working_set_bytes");
        double gbs = kt_src_num(pt, "gbs");
        if (n == KT_SWEEP_MAX || !(bytes > 0) || !(gbs >= 0))
            continue;
        x[n] = bytes;
        y[n] = gbs;
        kt_scale_fmt_bytes(bytes, a, sizeof a);
        kt_html_group(gbs, 0, b, sizeof b);
        snprintf(buf[n], sizeof buf[n], "%s working set: %s GB/s", a, b);
        tips[n] = buf[n];
        xlo = fmin(xlo, bytes);
        xhi = fmax(xhi, bytes);
        yhi = fmax(yhi, gbs);
        ++n;
    }
    if (n < 2) {
        fputs("<p class=\"missing\">The calibration has no "
              "bandwidth-against-working-set sweep.</p>\n",
              c->out);
        goto done;
    }
    if (c->l2_bytes > 0) {
        xlo = fmin(xlo, c->l2_bytes);
        xhi = fmax(xhi, c->l2_bytes);
    }
    yhi = fmax(yhi, fmax(c->copy_gbs, c->peak_bw_gbs));
    memset(&plot, 0, sizeof plot);
    plot.x.scale = (kt_scale){KT_SCALE_LOG, xlo / 1.3, xhi * 1.3, 0, 0};
    plot.x.format = KT_TICK_BYTES;
    plot.x.pow2 = 1;
    plot.x.title = "working set: source + destination (log scale)";
    plot.y.scale.kind = KT_SCALE_LINEAR;
    kt_scale_nice_domain(&plot.y.scale, 0, yhi * 1.05, 6);
    plot.y.title = "copy bandwidth, hot cache (GB/s)";
    if (kt_plot_begin(&plot, c->next_id++, 720, 340,
                      "Copy bandwidth against working set"))
        goto done;
    kt_plot_axes(&plot);
    if (c->l2_bytes > 0) {
        kt_scale_fmt_bytes(c->l2_bytes, a, sizeof a);
        snprintf(label, sizeof label, "L2 %s", a);
        kt_plot_vline(&plot, c->l2_bytes, &l2, label);
    }
    if (c->copy_gbs > 0)
        kt_plot_hline(&plot, c->copy_gbs, &copy, NULL);
    if (c->peak_bw_gbs > 0)
        kt_plot_hline(&plot, c->peak_bw_gbs, &peak, NULL);
    kt_plot_path(&plot, x, y, n, &line);
    kt_plot_markers(&plot, x, y, n, &marks, tips);
    kt_plot_legend(&plot, "copy kernel, hot cache", &marks, KT_LEGEND_BOTH);
    if (c->l2_bytes > 0)
        kt_plot_legend(&plot, label, &l2, KT_LEGEND_LINE);
    if (c->copy_gbs > 0) {
        kt_html_group(c->copy_gbs, 0, a, sizeof a);
        snprintf(label, sizeof label, "copy ceiling %s GB/s (measured)", a);
        kt_plot_legend(&plot, label, &copy, KT_LEGEND_LINE);
    }
    if (c->peak_bw_gbs > 0) {
        kt_html_group(c->peak_bw_gbs, 0, a, sizeof a);
        snprintf(label, sizeof label, "DRAM peak %s GB/s (theoretical)", a);
        kt_plot_legend(&plot, label, &peak, KT_LEGEND_LINE);
    }
    fputs("<figure>\n", c->out);
    kt_plot_end(&plot, c->out);
    fputs("<figcaption>A copy kernel in the hot-cache mode, each launch "
          "making enough passes over its buffers to move 1 GiB. Left of the "
          "L2 line the working set fits the L2 and the rate is the "
          "cache's; right of it, the DRAM's. A kernel whose working set "
          "fits the L2 must be timed cold (the default) to report DRAM "
          "bandwidth.</figcaption>\n</figure>\n",
          c->out);
done:
    fputs("</section>\n", c->out);
}
