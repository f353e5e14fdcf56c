// SPDX-License-Identifier: Apache-2.0
#include "report/document.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/scale.h"

/* Rows of the table of what could not run (the counts cover them all). */
#define KT_DOC_FAILED_MAX 200

/* No script, no fetch: the document is read as it is. */
static const char style[] =
    "body{font-family:system-ui,-apple-system,\"Segoe UI\",sans-serif;"
    "color:#1a1a1a;background:#fff;max-width:1080px;margin:0 auto;"
    "padding:16px 24px 48px;line-height:1.45}\n"
    "h1{font-size:1.55em;margin:.4em 0 .1em}h2{font-size:1.25em;"
    "border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}\n"
    "h3{font-size:1.05em;margin:1.4em 0 .4em}\n"
    ".sub{color:#555;margin:.2em 0}\n"
    "nav ol{display:flex;flex-wrap:wrap;gap:.3em 1.2em;padding:0;"
    "list-style:none;margin:1em 0}\n"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.92em}\n"
    "th,td{border:1px solid #ddd;padding:.25em .55em;text-align:left;"
    "vertical-align:top}\n"
    "thead th{background:#f4f4f4}\n"
    "table.kv th{background:#fafafa;font-weight:600;white-space:nowrap}\n"
    "table.kv table{margin:0}\n"
    ".env{display:grid;grid-template-columns:repeat(auto-fill,"
    "minmax(460px,1fr));gap:0 24px;align-items:start}\n"
    ".env td{overflow-wrap:anywhere}\n"
    "table.data{display:block;overflow-x:auto;max-width:100%}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap;overflow-wrap:normal}\n"
    "table.kv>tbody>tr>td.num{text-align:left}\n"
    "span.num{white-space:nowrap;font-variant-numeric:tabular-nums}\n"
    "span.list{overflow-wrap:normal}\n"
    "tr.best td{background:#eef6ee}\n"
    "figure{margin:1.2em 0}figcaption{color:#444;font-size:.9em;"
    "max-width:720px}\n"
    "svg.chart{max-width:100%;height:auto;display:block}\n"
    ".answer{font-size:1.1em;background:#f6f9fc;border-left:4px solid "
    "#0072B2;padding:.6em .9em}\n"
    ".missing{color:#7a4b00;background:#fff8e6;border-left:4px solid "
    "#e69f00;padding:.4em .8em}\n"
    ".notes li{color:#7a4b00}\n"
    "code{font-size:.95em;background:#f3f3f3;padding:0 .2em}\n"
    "footer{margin-top:3em;color:#666;font-size:.85em;border-top:1px solid "
    "#ddd;padding-top:.6em}\n";

/* ----------------------------------------------------------------- head */

/* "n = 268,435,456 (2^28)" for each size. */
static void sizes_text(const json_t *sizes, char *out, size_t size)
{
    const char *k;
    const json_t *v;
    size_t len;
    out[0] = '\0';
    json_object_foreach ((json_t *)sizes, k, v) {
        char num[48];
        long long n = json_integer_value(v);
        len = strlen(out);
        kt_html_group((double)n, 0, num, sizeof num);
        snprintf(out + len, size - len, "%s%s = %s", len ? ", " : "", k, num);
        if (n > 1024 && (n & (n - 1)) == 0) {
            int e = 0;
            while ((1LL << e) < n)
                ++e;
            len = strlen(out);
            snprintf(out + len, size - len, " (2^%d)", e);
        }
    }
}

static const char *device_of(const kt_sources *s)
{
    const json_t *env = kt_sources_environment(s);
    const char *name =
        kt_src_text(json_object_get(env, "device"), "name", NULL);
    return name ? name : kt_src_text(kt_sources_main(s), "device", "");
}

static void header(FILE *o, const kt_sources *s, const kt_doc_options *opt)
{
    char sizes[512], title[1024];
    const json_t *main_doc = kt_sources_main(s);
    const json_t *host = json_object_get(kt_sources_environment(s), "host");
    const char *what = s->summary   ? "tuning run"
                       : s->compare ? "side-by-side comparison"
                                    : "tuning journal";

    sizes_text(kt_sources_sizes(s), sizes, sizeof sizes);
    if (opt && opt->title)
        snprintf(title, sizeof title, "%s", opt->title);
    else
        snprintf(title, sizeof title, "%s%s%s on %s", kt_sources_spec(s),
                 sizes[0] ? " at " : "", sizes, device_of(s));
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
          "'none'; style-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n<title>",
          o);
    kt_html_escf(o, "ktune report: %s", title);
    fprintf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>",
            style);
    kt_esc_write(o, title);
    fputs("</h1>\n<p class=\"sub\">", o);
    kt_html_escf(o, "A %s", what);
    if (json_is_object(json_object_get(main_doc, "strategy")) && !s->compare)
        kt_html_escf(
            o, " (strategy %s)",
            kt_src_text(json_object_get(main_doc, "strategy"), "name", "?"));
    if (host)
        kt_html_escf(o, ", started %s on host %s with ktune %s (%s)",
                     kt_src_text(host, "date", "?"),
                     kt_src_text(host, "host", "?"),
                     kt_src_text(host, "ktune_version", "?"),
                     kt_src_text(host, "git_commit", "?"));
    fputs(".</p>\n<p class=\"sub\">From ", o);
    if (s->summary_path[0]) {
        fputs("<code>", o);
        kt_esc_write(o, s->summary_path);
        fputs("</code>", o);
    }
    if (s->compare_path[0]) {
        fputs("<code>", o);
        kt_esc_write(o, s->compare_path);
        fputs("</code>", o);
    }
    if (s->journal_path[0]) {
        fputs(s->summary_path[0] ? " with the journal <code>" : "<code>", o);
        kt_esc_write(o, s->journal_path);
        fprintf(o, "</code> (%zu records)", s->num_records);
    }
    fputs(".</p>\n</header>\n", o);
}

static void nav(FILE *o, const kt_sources *s)
{
    fputs("<nav><ol>", o);
    if (s->compare)
        fputs("<li><a href=\"#compare\">Side by side</a></li>", o);
    else
        fputs("<li><a href=\"#answer\">Answer</a></li>"
              "<li><a href=\"#parameters\">Time against each "
              "parameter</a></li>"
              "<li><a href=\"#search\">Search path</a></li>",
              o);
    fputs("<li><a href=\"#roofline\">Roofline</a></li>"
          "<li><a href=\"#calibration\">Calibration</a></li>",
          o);
    if (!s->compare)
        fputs("<li><a href=\"#top\">Top configurations</a></li>", o);
    fputs("<li><a href=\"#failed\">Could not run</a></li>"
          "<li><a href=\"#environment\">Environment and protocol</a></li>"
          "</ol></nav>\n",
          o);
}

static void notes(FILE *o, const kt_sources *s)
{
    const json_t *more = json_object_get(kt_sources_main(s), "notes"), *x;
    size_t i, n = s->num_notes + json_array_size(more);
    if (!n)
        return;
    fputs("<section id=\"notes\">\n<h2>Notes</h2>\n<ul class=\"notes\">\n", o);
    for (i = 0; i < s->num_notes; ++i) {
        fputs("<li>", o);
        kt_esc_write(o, s->notes[i]);
        fputs("</li>\n", o);
    }
    json_array_foreach ((json_t *)more, i, x)
        if (json_is_string(x)) {
            fputs("<li>", o);
            kt_esc_write(o, json_string_value(x));
            fputs("</li>\n", o);
        }
    fputs("</ul>\n</section>\n", o);
}

/* --------------------------------------------------------------- answer */

/* median, CI, noise, samples and derived figures of a summary entry. */
static void entry_sentence(FILE *o, const kt_fig_ctx *c, const json_t *e)
{
    char m[32], lo[32], hi[32], bw[32], pct[32];
    double median = kt_src_num(e, "median_us");
    double gbs = kt_src_num(e, "bandwidth_gbs");
    double pc = kt_src_num(e, "pct_of_copy");

    kt_html_sig(median, 5, m, sizeof m);
    kt_html_sig(kt_src_num(e, "ci_lo_us"), 5, lo, sizeof lo);
    kt_html_sig(kt_src_num(e, "ci_hi_us"), 5, hi, sizeof hi);
    fputs("<strong>", o);
    kt_esc_write(o, kt_src_text(e, "config", "?"));
    fprintf(o,
            "</strong>: median %s \xC2\xB5s, 95%% CI [%s, %s] \xC2\xB5s, "
            "noise %.2f%%, %.0f samples",
            m, lo, hi, 100 * kt_src_num(e, "noise"), kt_src_num(e, "samples"));
    if (!isfinite(gbs))
        gbs = kt_fig_bandwidth(c, median);
    /* 0 GB/s is no measurement: the work is not known (another tool's
     * recording), so no bandwidth is said. */
    if (isfinite(gbs) && gbs > 0) {
        kt_html_group(gbs, 0, bw, sizeof bw);
        fprintf(o, "; %s GB/s effective", bw);
        if (!isfinite(pc) && c->copy_gbs > 0)
            pc = 100 * gbs / c->copy_gbs;
        if (isfinite(pc)) {
            kt_html_sig(pc, 3, pct, sizeof pct);
            fprintf(o, ", %s%% of the measured copy ceiling", pct);
        }
    }
    fputs(".", o);
}

static void finalists_table(FILE *o, const json_t *finals)
{
    size_t i;
    const json_t *f;
    fputs("<table class=\"data\"><thead><tr><th>finalist</th>"
          "<th>median (\xC2\xB5s)</th><th>95% CI (\xC2\xB5s)</th>"
          "<th>time vs the answer [95% CI]</th><th>rounds</th>"
          "<th>verdict</th></tr></thead><tbody>\n",
          o);
    json_array_foreach ((json_t *)finals, i, f) {
        const json_t *vs = json_object_get(f, "vs_best");
        char m[32], a[32], b[32], r[32], l[32], h[32];
        kt_html_sig(kt_src_num(f, "median_us"), 5, m, sizeof m);
        kt_html_sig(kt_src_num(f, "ci_lo_us"), 5, a, sizeof a);
        kt_html_sig(kt_src_num(f, "ci_hi_us"), 5, b, sizeof b);
        kt_html_change(kt_src_num(vs, "ratio"), r, sizeof r);
        kt_html_change(kt_src_num(vs, "lo"), l, sizeof l);
        kt_html_change(kt_src_num(vs, "hi"), h, sizeof h);
        fprintf(o, "<tr%s><td>", i == 0 ? " class=\"best\"" : "");
        kt_esc_write(o, kt_src_text(f, "config", "?"));
        fprintf(o,
                "</td><td class=\"num\">%s</td><td class=\"num\">[%s, "
                "%s]</td>",
                m, a, b);
        if (i == 0)
            fputs("<td class=\"num\">\xE2\x80\x94</td>", o);
        else
            fprintf(o, "<td class=\"num\">%s [%s, %s]</td>", r, l, h);
        fprintf(o, "<td class=\"num\">%.0f</td><td>%s</td></tr>\n",
                kt_src_num(vs, "rounds"),
                i == 0                                     ? "the answer"
                : json_is_true(json_object_get(f, "tied")) ? "tied"
                                                           : "slower");
    }
    fputs("</tbody></table>\n", o);
}

/* A count, or a dash when the results do not say. */
static const char *count_text(double v, char *buf, size_t size)
{
    kt_html_group(v, 0, buf, size);
    return buf;
}

static void run_facts(FILE *o, const json_t *sum)
{
    const json_t *space = json_object_get(sum, "space");
    const json_t *ovh = json_object_get(sum, "overhead");
    const json_t *strat = json_object_get(sum, "strategy");
    char a[32], b[32], c[32], d[32], e[32], f[32];

    fputs("<table class=\"kv\"><tbody>\n<tr><th>strategy</th><td>", o);
    kt_esc_write(o, kt_src_text(strat, "name", "?"));
    kt_html_sig(100 * kt_src_num(strat, "min_gain"), 2, c, sizeof c);
    fprintf(o, ", seed %s, finalists %s, minimum gain %s%%",
            count_text(kt_src_num(strat, "seed"), a, sizeof a),
            count_text(kt_src_num(strat, "finalists"), b, sizeof b), c);
    fputs("</td></tr>\n<tr><th>stopped because</th><td>", o);
    kt_esc_write(o, kt_src_text(sum, "stop_reason", "?"));
    fputs("</td></tr>\n", o);
    fprintf(o, "<tr><th>evaluated</th><td>%s points of %s feasible (space: ",
            count_text(kt_src_num(sum, "evaluations"), a, sizeof a),
            count_text(kt_src_num(space, "feasible"), b, sizeof b));
    fprintf(o,
            "%s); %s measured, %s refused on the host, %s from an earlier "
            "session's journal</td></tr>\n",
            count_text(kt_src_num(space, "size"), c, sizeof c),
            count_text(kt_src_num(sum, "measured"), d, sizeof d),
            count_text(kt_src_num(sum, "host_invalid"), e, sizeof e),
            count_text(kt_src_num(sum, "from_journal"), f, sizeof f));
    kt_html_sig(kt_src_num(ovh, "wall_s"), 3, a, sizeof a);
    kt_html_sig(kt_src_num(ovh, "gpu_s"), 3, b, sizeof b);
    /* A replay's GPU time is the recording's (what its answers took to
     * measure then), not part of the replay's own wall time. */
    if (json_is_object(json_object_get(sum, "replay")))
        fprintf(o,
                "<tr><th>time</th><td>%s s of wall time for the replay, "
                "which ran nothing on a GPU; the recorded measurements it "
                "answered from had sampled %s s of kernel time on the "
                "recording's GPU",
                a, b);
    else
        fprintf(o,
                "<tr><th>time</th><td>%s s of wall time, %s s of it sampled "
                "on the GPU",
                a, b);
    if (isfinite(kt_src_num(ovh, "tuner_ms_per_evaluation")))
        fprintf(o, "; the tuner's own overhead %.3g ms per evaluation",
                kt_src_num(ovh, "tuner_ms_per_evaluation"));
    fputs("</td></tr>\n</tbody></table>\n", o);
}

static void replay_facts(FILE *o, const json_t *rep)
{
    const json_t *opt = json_object_get(rep, "recorded_optimum");
    if (!json_is_object(rep))
        return;
    fputs("<h3>Replay</h3>\n<p>", o);
    kt_html_escf(o, "Answered from the recording %s",
                 kt_src_text(rep, "recording", "?"));
    if (json_is_object(opt)) {
        fputs("; its fastest point: ", o);
        kt_esc_write(o, kt_src_text(opt, "config", "?"));
        double ratio = kt_src_num(rep, "best_vs_optimum");
        if (isfinite(ratio) && ratio == 1)
            fputs("; the answer is that point", o);
        else if (isfinite(ratio))
            fprintf(o, "; the answer's recorded time is %+.2f%% off its time",
                    100 * (ratio - 1));
    }
    if (isfinite(kt_src_num(rep, "fraction_evaluated")))
        fprintf(o, "; %.1f%% of the feasible space evaluated",
                100 * kt_src_num(rep, "fraction_evaluated"));
    fputs(".</p>\n", o);
}

static void answer(FILE *o, const kt_fig_ctx *c)
{
    const kt_sources *s = c->src;
    const json_t *sum = s->summary;
    const json_t *best = json_object_get(sum, "best");
    const json_t *tie = json_object_get(sum, "tie");

    fputs("<section id=\"answer\">\n<h2>Answer</h2>\n", o);
    if (sum) {
        if (json_is_object(best)) {
            size_t i;
            const json_t *t;
            fputs("<p class=\"answer\">", o);
            entry_sentence(o, c, best);
            fputs("</p>\n", o);
            if (json_is_object(json_object_get(best, "diagnosis"))) {
                const json_t *d = json_object_get(best, "diagnosis");
                fputs("<p>Diagnosis (counters from launches of their own, "
                      "never timed): <strong>",
                      o);
                kt_esc_write(o, kt_src_text(d, "bound", "?"));
                fputs("</strong>. ", o);
                kt_esc_write(o, kt_src_text(d, "why", ""));
                fputs("</p>\n", o);
            }
            if (json_array_size(tie)) {
                fputs("<p>Statistically tied with it (paired ratio within "
                      "the noise and the minimum gain): ",
                      o);
                json_array_foreach ((json_t *)tie, i, t) {
                    char r[32];
                    kt_html_change(
                        kt_src_num(json_object_get(t, "vs_best"), "ratio"), r,
                        sizeof r);
                    fputs(i ? "; " : "", o);
                    kt_esc_write(o, kt_src_text(t, "config", "?"));
                    fprintf(o, " (%s)", r);
                }
                fputs(".</p>\n", o);
            }
            fputs("<p>The finalists were measured again together in "
                  "interleaved rounds; their paired time ratios against "
                  "the answer:</p>\n",
                  o);
            finalists_table(o, json_object_get(sum, "finalists"));
        } else {
            fputs("<p class=\"missing\">No configuration verified and "
                  "measured: nothing to answer.</p>\n",
                  o);
        }
        run_facts(o, sum);
        replay_facts(o, json_object_get(sum, "replay"));
    } else {
        size_t n;
        const kt_src_point **r = kt_fig_ranked(s, &n);
        if (n) {
            char m[32], a[32], b[32];
            kt_html_sig(r[0]->kernel.median, 5, m, sizeof m);
            kt_html_sig(r[0]->kernel.ci_lo, 5, a, sizeof a);
            kt_html_sig(r[0]->kernel.ci_hi, 5, b, sizeof b);
            fputs("<p class=\"answer\">Fastest by its own measurement: "
                  "<strong>",
                  o);
            kt_esc_write(o, r[0]->config);
            fprintf(o,
                    "</strong>, median %s \xC2\xB5s, 95%% CI [%s, %s] "
                    "\xC2\xB5s.</p>\n",
                    m, a, b);
        }
        fputs("<p>A journal records every evaluation but not the run's "
              "verdict: the closing paired comparison and its ties are in "
              "the summary (<code>ktune tune --json</code>).</p>\n",
              o);
        free(r);
    }
    fputs("</section>\n", o);
}

/* ------------------------------------------------------------- tables */

/* The counters the diagnosis leans on, for one point (dashes where it has
 * none). */
static void counter_cells(FILE *o, const kt_src_point *p)
{
    static const char *const names[] = {
        "global_load_sectors_per_request", "global_store_sectors_per_request",
        "achieved_occupancy", "dram_throughput"};
    const json_t *d =
        p->profile ? json_object_get(p->profile, "diagnosis") : NULL;
    for (size_t k = 0; k < 4; ++k) {
        char t[32];
        double v = kt_src_counter(p, names[k]);
        kt_html_sig(v, 3, t, sizeof t);
        fprintf(o, "<td class=\"num\">%s%s</td>", t,
                k >= 2 && isfinite(v) ? "%" : "");
    }
    fputs("<td>", o);
    kt_esc_write(o, kt_src_text(d, "bound", "\xE2\x80\x93"));
    fputs("</td>", o);
}

static void top_table(FILE *o, const kt_fig_ctx *c, int top)
{
    size_t n, i;
    const kt_src_point **r = kt_fig_ranked(c->src, &n);
    int quartiles = 0, counters = 0;

    for (i = 0; i < n; ++i) {
        quartiles |= isfinite(r[i]->kernel.q1);
        if (i < (size_t)top)
            counters |= r[i]->profile != NULL;
    }
    fputs("<section id=\"top\">\n<h2>Top configurations</h2>\n", o);
    if (!n) {
        fputs("<p class=\"missing\">No measured configuration.</p>\n", o);
        goto done;
    }
    fprintf(o,
            "<p>By their own medians (each measured alone or with its "
            "incumbent; %zu measured configurations).</p>\n",
            n);
    fprintf(o,
            "<table class=\"data\"><thead><tr><th>#</th>"
            "<th>configuration</th><th>median (\xC2\xB5s)</th>%s"
            "<th>95%% CI (\xC2\xB5s)</th><th>noise</th><th>samples</th>"
            "<th>GB/s</th><th>%% of copy</th>%s</tr></thead><tbody>\n",
            quartiles ? "<th>q1 \xE2\x80\x93 q3 (\xC2\xB5s)</th>" : "",
            counters ? "<th>load sectors / request</th><th>store sectors / "
                       "request</th><th>achieved occupancy</th><th>DRAM "
                       "throughput</th><th>diagnosis</th>"
                     : "");
    for (i = 0; i < n && i < (size_t)top; ++i) {
        const kt_src_point *p = r[i];
        char m[32], a[32], b[32], q[32], w[32], bw[32], pc[32];
        double gbs = kt_fig_bandwidth(c, p->kernel.median);
        kt_html_sig(p->kernel.median, 5, m, sizeof m);
        kt_html_sig(p->kernel.ci_lo, 5, a, sizeof a);
        kt_html_sig(p->kernel.ci_hi, 5, b, sizeof b);
        kt_html_sig(p->kernel.q1, 5, q, sizeof q);
        kt_html_sig(p->kernel.q3, 5, w, sizeof w);
        kt_html_group(gbs, 0, bw, sizeof bw);
        kt_html_sig(c->copy_gbs > 0 ? 100 * gbs / c->copy_gbs : NAN, 3, pc,
                    sizeof pc);
        fprintf(o, "<tr><td class=\"num\">%zu</td><td>", i + 1);
        kt_esc_write(o, p->config);
        fprintf(o, "</td><td class=\"num\">%s</td>", m);
        if (quartiles)
            fprintf(o, "<td class=\"num\">%s \xE2\x80\x93 %s</td>", q, w);
        fprintf(o, "<td class=\"num\">[%s, %s]</td>", a, b);
        if (isfinite(p->kernel.noise))
            fprintf(o, "<td class=\"num\">%.2f%%</td>", 100 * p->kernel.noise);
        else
            fputs("<td class=\"num\">\xE2\x80\x93</td>", o);
        if (p->kernel.samples >= 0)
            fprintf(o, "<td class=\"num\">%ld</td>", p->kernel.samples);
        else
            fputs("<td class=\"num\">\xE2\x80\x93</td>", o);
        fprintf(o, "<td class=\"num\">%s</td><td class=\"num\">%s</td>", bw,
                pc);
        if (counters)
            counter_cells(o, p);
        fputs("</tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
    if (n > (size_t)top)
        fprintf(o, "<p>\xE2\x80\xA6 and %zu more.</p>\n", n - (size_t)top);
done:
    free(r);
    fputs("</section>\n", o);
}

static void failed_table(FILE *o, const kt_sources *s)
{
    size_t n = 0;
    fputs("<section id=\"failed\">\n<h2>Could not run</h2>\n", o);
    for (size_t i = 0; i < s->num_points; ++i)
        n += !s->points[i].ok;
    if (!n) {
        fputs("<p>Every configuration in these results verified and "
              "measured.</p>\n",
              o);
        goto done;
    }
    fprintf(o,
            "<p>%zu configuration%s: refused on the host (the variant's "
            "constraint or the device's limits, never sent to the GPU), "
            "refused at launch, failed verification, or failed while "
            "running.</p>\n",
            n, n == 1 ? "" : "s");
    /* By status first: a large space can refuse thousands of points. */
    {
        json_t *by = json_object();
        const char *k;
        json_t *v;
        for (size_t i = 0; i < s->num_points; ++i)
            if (!s->points[i].ok) {
                json_t *c = json_object_get(by, s->points[i].status);
                json_object_set_new(
                    by, s->points[i].status,
                    json_integer(c ? json_integer_value(c) + 1 : 1));
            }
        const char *sep = "";
        fputs("<p>By status: ", o);
        json_object_foreach (by, k, v) {
            fputs(sep, o);
            kt_esc_write(o, k);
            fprintf(o, " %lld", (long long)json_integer_value(v));
            sep = ", ";
        }
        fputs(".</p>\n", o);
        json_decref(by);
    }
    fputs("<table class=\"data\"><thead><tr><th>configuration</th>"
          "<th>status</th><th>found</th><th>reason</th></tr></thead>"
          "<tbody>\n",
          o);
    for (size_t i = 0, shown = 0; i < s->num_points; ++i) {
        const kt_src_point *p = &s->points[i];
        if (p->ok)
            continue;
        if (shown++ == KT_DOC_FAILED_MAX) {
            fprintf(o,
                    "<tr><td colspan=\"4\">\xE2\x80\xA6 and %zu more</td>"
                    "</tr>\n",
                    n - KT_DOC_FAILED_MAX);
            break;
        }
        fputs("<tr><td>", o);
        kt_esc_write(o, p->config);
        fputs("</td><td>", o);
        kt_esc_write(o, p->status);
        fputs("</td><td>", o);
        fputs(strcmp(p->source, "check") == 0 ? "on the host" : "on the device",
              o);
        fputs("</td><td>", o);
        kt_esc_write(o, p->reason);
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
done:
    fputs("</section>\n", o);
}

/* ---------------------------------------------------------- environment */

static void env_record(FILE *o, const json_t *env, const char *heading)
{
    static const char *const parts[] = {"device", "plugin", "host", "protocol",
                                        "calibration"};
    static const char *const names[] = {"Device", "Plugin", "Host and command",
                                        "Protocol", "Calibration"};
    static const char *const skip_calib[] = {"sweep", NULL};
    const char *k;
    const json_t *v;

    if (heading) {
        fputs("<h3>", o);
        kt_esc_write(o, heading);
        fputs("</h3>\n", o);
    }
    fputs("<div class=\"env\">\n", o);
    for (size_t i = 0; i < 5; ++i) {
        const json_t *part = json_object_get(env, parts[i]);
        if (!json_is_object(part))
            continue;
        fprintf(o, "<div><h3>%s</h3>\n", names[i]);
        kt_html_kv_table(o, part, i == 4 ? skip_calib : NULL);
        if (i == 4 && json_object_get(part, "sweep"))
            fputs("<p>The sweep is drawn under <a "
                  "href=\"#calibration\">Calibration</a>.</p>\n",
                  o);
        fputs("</div>\n", o);
    }
    /* Parts a newer ktune adds. */
    json_object_foreach ((json_t *)env, k, v) {
        int known = strcmp(k, "id") == 0;
        for (size_t i = 0; i < 5; ++i)
            known |= strcmp(k, parts[i]) == 0;
        if (known || !json_is_object(v))
            continue;
        fputs("<div><h3>", o);
        kt_esc_write(o, k);
        fputs("</h3>\n", o);
        kt_html_kv_table(o, v, NULL);
        fputs("</div>\n", o);
    }
    fputs("</div>\n", o);
}

static void environment(FILE *o, const kt_sources *s)
{
    const json_t *main_doc = kt_sources_main(s);
    const json_t *env = kt_sources_environment(s);
    size_t n = json_array_size(s->environments);

    fputs("<section id=\"environment\">\n<h2>Environment and protocol</h2>\n",
          o);
    fputs("<p>The record every ktune result carries: the machine, the "
          "plugin build, the command, the measurement protocol and the "
          "calibration the percentages refer to.</p>\n",
          o);
    if (!env)
        fputs("<p class=\"missing\">These results hold no environment "
              "record.</p>\n",
              o);
    else
        env_record(o, env, NULL);
    if (!s->compare && json_is_object(json_object_get(main_doc, "strategy"))) {
        fputs("<h3>Strategy</h3>\n", o);
        kt_html_kv_table(o, json_object_get(main_doc, "strategy"), NULL);
    }
    if (json_is_object(json_object_get(main_doc, "metrics"))) {
        fputs("<h3>Counters ([metrics])</h3>\n", o);
        kt_html_kv_table(o, json_object_get(main_doc, "metrics"), NULL);
    }
    if (json_is_object(json_object_get(s->header, "space"))) {
        fputs("<h3>Space</h3>\n", o);
        kt_html_kv_table(o, json_object_get(s->header, "space"), NULL);
    }
    /* A resumed journal: each session's record. */
    for (size_t i = 1; i < n; ++i) {
        char h[64];
        snprintf(h, sizeof h, "Resumed session (environment %zu)", i);
        env_record(o, json_array_get(s->environments, i), h);
    }
    fputs("</section>\n", o);
}

kt_status kt_doc_write(FILE *out, const kt_sources *s,
                       const kt_doc_options *opt, kt_err *err)
{
    kt_fig_ctx c;
    int top = opt && opt->top > 0 ? opt->top : 30;

    kt_fig_ctx_init(&c, out, s);
    header(out, s, opt);
    nav(out, s);
    notes(out, s);
    if (s->compare) {
        kt_fig_compare(&c);
    } else {
        answer(out, &c);
        kt_fig_parameters(&c);
        kt_fig_search(&c);
    }
    kt_fig_roofline(&c);
    if (!s->compare)
        kt_fig_energy(&c);
    kt_fig_calibration(&c);
    if (!s->compare)
        top_table(out, &c, top);
    failed_table(out, s);
    environment(out, s);
    fputs("<footer>", out);
    if (opt && opt->generator)
        kt_html_escf(out, "Written by %s (ktune report). ", opt->generator);
    fputs("One self-contained file: the charts are inline SVG, nothing is "
          "fetched and no script runs. Hover a point for its "
          "configuration.</footer>\n</body>\n</html>\n",
          out);
    if (ferror(out))
        return kt_err_set(err, KT_S_IO, "writing the report failed: %s",
                          strerror(errno ? errno : EIO));
    return KT_S_OK;
}
