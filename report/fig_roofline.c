// SPDX-License-Identifier: Apache-2.0
/* The roofline: every evaluated configuration by arithmetic intensity and
 * achieved rate, under the measured bandwidth ceiling and the compute
 * ceiling (the calibration's FMA kernel when it measured one, else the
 * theoretical FP32 peak, drawn dashed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/plot.h"

static void missing(kt_fig_ctx *c, const char *why)
{
    fputs("<p class=\"missing\">", c->out);
    kt_esc_write(c->out, why);
    fputs("</p>\n", c->out);
}

/* Says why there is no roofline, when there is none: 1 then. */
static int without_roofline(kt_fig_ctx *c, const kt_sources *s,
                            const kt_work *w, double bytes)
{
    if (!s->have_work && kt_sources_external(s)) {
        missing(c, "The roofline needs the operator's work (bytes and flops "
                   "per problem), which another tool's recording does not "
                   "carry: these results have no place on it.");
        return 1;
    }
    if (!s->have_work) {
        missing(c, "The roofline needs the operator's work (bytes and flops "
                   "per problem): these results do not record it and its "
                   "plugin was not loaded. Run ktune report where the "
                   "plugin loads, or name it with --plugin FILE.");
        return 1;
    }
    if (!(w->flops > 0) || !(bytes > 0)) {
        missing(c, "The operator does no arithmetic (0 flops per problem), "
                   "so it has no place on a roofline; its effective "
                   "bandwidth is in the tables.");
        return 1;
    }
    if (!(c->copy_gbs > 0) || !(c->peak_gflops > 0)) {
        missing(c, "The roofline needs the device's ceilings: the "
                   "environment record has no calibration (copy ceiling) "
                   "or no device description.");
        return 1;
    }
    return 0;
}

void kt_fig_roofline(kt_fig_ctx *c)
{
    const kt_sources *s = c->src;
    const kt_work *w = &s->work;
    double bytes = w->bytes_read + w->bytes_written, ai, balance, roof;
    double ylo = INFINITY, yhi, best_rate = NAN;
    const kt_src_point *best = NULL;
    const char *answer;
    char a[32], b[32], d[64], label[256];
    kt_style mem = {.color = "#222", .width = 2};
    kt_style dram = {.color = "#222", .width = 1.2, .dash = "6 4"};
    kt_style comp = {.color = "#8B0000",
                     .width = 2,
                     .dash = c->gflops_measured ? NULL : "6 4"};
    kt_style ring = {.color = "#000", .radius = 8, .opacity = 0.18};
    kt_plot plot;
    size_t ok = 0;

    fputs("<section id=\"roofline\">\n<h2>Roofline</h2>\n", c->out);
    if (without_roofline(c, s, w, bytes))
        goto done;
    ai = w->flops / bytes;
    balance = c->peak_gflops / c->copy_gbs;
    roof = fmin(ai * c->copy_gbs, c->peak_gflops);
    for (size_t i = 0; i < s->num_points; ++i) {
        const kt_src_point *p = &s->points[i];
        double rate;
        if (!p->ok)
            continue;
        rate = w->flops / (p->kernel.median * 1e-6) / 1e9;
        ylo = fmin(ylo, rate);
        if (!best || p->kernel.median < best->kernel.median) {
            best = p;
            best_rate = rate;
        }
        ++ok;
    }
    if (!ok) {
        missing(c, "No measured configuration to place.");
        goto done;
    }
    /* A summary's answer is marked rather than the fastest single
     * measurement: the closing paired comparison decided it. */
    answer = kt_src_text(json_object_get(s->summary, "best"), "config", NULL);
    {
        const kt_src_point *marked = NULL;
        for (size_t i = 0; answer && i < s->num_points; ++i)
            if (s->points[i].ok && strcmp(s->points[i].config, answer) == 0)
                marked = &s->points[i];
        if (marked) {
            best = marked;
            best_rate = w->flops / (best->kernel.median * 1e-6) / 1e9;
        } else {
            answer = NULL;
        }
    }
    memset(&plot, 0, sizeof plot);
    plot.x.scale.kind = KT_SCALE_LOG;
    kt_scale_nice_domain(&plot.x.scale, fmin(ai, balance) / 4,
                         fmax(ai, balance) * 4, 6);
    plot.x.title = "arithmetic intensity (flop / algorithm byte, log scale)";
    plot.y.scale.kind = KT_SCALE_LOG;
    /* Just room above the compute roof and below the lowest mark: a wider
     * margin rounded out to whole decades drew 1 to 10^6 GFLOP/s for a
     * kernel of 0.08 flop/B at a few hundred. */
    yhi = c->peak_gflops * 1.25;
    ylo = fmin(ylo, plot.x.scale.d0 * c->copy_gbs) / 1.25;
    kt_scale_nice_domain(&plot.y.scale, ylo, yhi, 6);
    plot.y.title = "achieved GFLOP/s (log scale)";
    if (kt_plot_begin(&plot, c->next_id++, 720, 400,
                      "Roofline: configurations under the device's "
                      "ceilings"))
        goto done;
    kt_plot_axes(&plot);

    /* The roofs: bandwidth-bound up to the balance point, then flat. */
    kt_plot_segment(&plot, plot.x.scale.d0, plot.x.scale.d0 * c->copy_gbs,
                    balance, c->peak_gflops, &mem);
    if (c->peak_bw_gbs > 0)
        kt_plot_segment(&plot, plot.x.scale.d0,
                        plot.x.scale.d0 * c->peak_bw_gbs,
                        c->peak_gflops / c->peak_bw_gbs, c->peak_gflops, &dram);
    kt_plot_segment(&plot, balance, c->peak_gflops, plot.x.scale.d1,
                    c->peak_gflops, &comp);
    kt_html_sig(balance, 3, a, sizeof a);
    snprintf(label, sizeof label, "balance point %s flop/B", a);
    kt_plot_text(&plot, balance, c->peak_gflops, 4, 16, "start", label, NULL);

    for (size_t v = 0; v < c->num_variants; ++v) {
        kt_style marks = {
            .color = kt_plot_color(v), .radius = 4, .opacity = 0.8};
        size_t n = 0;
        double *x = calloc(ok, sizeof *x), *y = calloc(ok, sizeof *y);
        const char **tips = calloc(ok, sizeof *tips);
        char(*buf)[320] = calloc(ok, sizeof *buf);
        if (!x || !y || !tips || !buf)
            goto next;
        for (size_t i = 0; i < s->num_points; ++i) {
            const kt_src_point *p = &s->points[i];
            if (!p->ok || strcmp(p->variant, c->variants[v]) != 0)
                continue;
            x[n] = ai;
            y[n] = w->flops / (p->kernel.median * 1e-6) / 1e9;
            kt_html_sig(y[n], 4, a, sizeof a);
            kt_html_sig(100 * y[n] / roof, 3, b, sizeof b);
            kt_html_sig(kt_fig_bandwidth(c, p->kernel.median), 4, d, sizeof d);
            snprintf(buf[n], sizeof buf[n],
                     "%s: %s GFLOP/s, %s GB/s, %s%% of the roof at this "
                     "intensity",
                     p->config, a, d, b);
            tips[n] = buf[n];
            ++n;
        }
        if (n) {
            kt_plot_markers(&plot, x, y, n, &marks, tips);
            kt_plot_legend(&plot, c->variants[v], &marks, KT_LEGEND_MARKER);
        }
    next:
        free(x);
        free(y);
        free(tips);
        free(buf);
    }
    kt_plot_markers(&plot, &ai, &best_rate, 1, &ring, NULL);
    snprintf(label, sizeof label, "%s%s", answer ? "the answer: " : "",
             best->config);
    kt_plot_text(&plot, ai, best_rate, 10, 4, "start", label,
                 answer ? "the answer" : NULL);

    kt_html_group(c->copy_gbs, 0, a, sizeof a);
    snprintf(label, sizeof label, "bandwidth ceiling: measured copy, %s GB/s",
             a);
    kt_plot_legend(&plot, label, &mem, KT_LEGEND_LINE);
    if (c->peak_bw_gbs > 0) {
        kt_html_group(c->peak_bw_gbs, 0, a, sizeof a);
        snprintf(label, sizeof label, "DRAM peak %s GB/s (theoretical)", a);
        kt_plot_legend(&plot, label, &dram, KT_LEGEND_LINE);
    }
    kt_html_sig(c->peak_gflops / 1e3, 3, a, sizeof a);
    snprintf(label, sizeof label, "compute ceiling: FP32 %s TFLOP/s (%s)", a,
             c->gflops_measured ? "measured FMA" : "theoretical");
    kt_plot_legend(&plot, label, &comp, KT_LEGEND_LINE);
    fputs("<figure>\n", c->out);
    kt_plot_end(&plot, c->out);
    fputs("<figcaption>", c->out);
    kt_html_sig(ai, 3, a, sizeof a);
    kt_html_sig(roof, 4, b, sizeof b);
    kt_html_escf(c->out,
                 "Arithmetic intensity = flops / bytes the algorithm must "
                 "move = %s flop/B. The work does not depend on the "
                 "configuration, so every configuration (%zu measured) sits "
                 "at this intensity, higher the faster it is; the roof there "
                 "is %s GFLOP/s. ",
                 a, ok, b);
    kt_html_sig(100 * best_rate / roof, 3, a, sizeof a);
    kt_html_escf(c->out, "%s, %s, reaches %s%% of it (ringed). ",
                 answer ? "The run's answer" : "The fastest", best->config, a);
    if (!c->gflops_measured)
        fputs("The compute ceiling is theoretical (FP32 lanes per SM \xC3\x97 "
              "2 \xC3\x97 SMs \xC3\x97 rated SM clock), not measured; the "
              "bandwidth ceiling is the calibration's measured "
              "device-to-device copy.",
              c->out);
    else
        fputs("Both ceilings are measured by the calibration: the "
              "device-to-device copy, and FP32 FMA throughput of a kernel "
              "that fills every warp slot with independent FMA chains.",
              c->out);
    fputs(" Work: ", c->out);
    kt_esc_write(c->out, s->work_source);
    fputs(".</figcaption>\n</figure>\n", c->out);
done:
    fputs("</section>\n", c->out);
}
