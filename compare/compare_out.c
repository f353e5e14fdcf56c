// SPDX-License-Identifier: Apache-2.0
#include "compare/compare_out.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/energy_text.h"
#include "core/envrec.h"
#include "core/loader.h"
#include "core/outfile.h"
#include "core/param.h"
#include "core/result_json.h"
#include "core/sizes.h"
#include "metrics/record.h"

/* ------------------------------------------------------------ helpers */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *verdict_name(int verdict)
{
    return verdict > 0 ? "faster" : verdict < 0 ? "slower" : "tie";
}

static const char *pick_kind_name(kt_pick_kind kind)
{
    switch (kind) {
    case KT_PICK_DEFAULTS: return "defaults";
    case KT_PICK_CONFIG: return "config";
    case KT_PICK_RESULTS: return "results";
    }
    return "?";
}

/* Microseconds with about four significant digits. */
static void fmt_us(double us, char *out, size_t size)
{
    snprintf(out, size, us >= 100 ? "%.1f" : us >= 10 ? "%.2f" : "%.3f", us);
}

/* 4431.2 -> "4,431". */
static void fmt_grouped(double v, char *out, size_t size)
{
    char digits[64];
    size_t len, o = 0;

    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    len = strlen(digits);
    if (v < 0 && o + 1 < size)
        out[o++] = '-';
    for (size_t i = 0; i < len && o + 2 < size; ++i) {
        if (i && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

/* A table cell: '|' escaped, line breaks as spaces. */
static void cell(FILE *out, const char *text)
{
    fputs(" ", out);
    for (const char *c = text; *c; ++c) {
        if (*c == '|')
            fputs("\\|", out);
        else if (*c == '\n' || *c == '\r')
            fputc(' ', out);
        else
            fputc(*c, out);
    }
    fputs(" |", out);
}

static int sizes_differ(const kt_compare *c, const int64_t *sizes)
{
    for (uint32_t i = 0; i < c->op->num_sizes; ++i)
        if (sizes[i] != c->sizes[i])
            return 1;
    return 0;
}

/* Where a row's configuration came from, for the table. */
static void source_text(const kt_compare *c, const kt_compare_row *r, char *out,
                        size_t size)
{
    const kt_results *f;
    char sizes[256];

    switch (r->pick.kind) {
    case KT_PICK_CONFIG: snprintf(out, size, "--config"); return;
    case KT_PICK_DEFAULTS:
        snprintf(out, size, "%s",
                 c->num_files ? "defaults (not in the results)" : "defaults");
        return;
    case KT_PICK_RESULTS: break;
    }
    f = &c->files[r->pick.file];
    snprintf(out, size, "`%s` %s: %s", base_name(f->path),
             kt_results_kind_name(f->kind), r->pick.detail);
    if (isfinite(r->pick.recorded_us)) {
        char us[64];
        size_t used = strlen(out);
        fmt_us(r->pick.recorded_us, us, sizeof us);
        snprintf(out + used, size - used, ", %s µs there", us);
    }
    if (sizes_differ(c, f->sizes)) {
        size_t used = strlen(out);
        kt_format_sizes(c->op, f->sizes, sizes, sizeof sizes);
        snprintf(out + used, size - used, " (tuned at %s)", sizes);
    }
}

void kt_compare_speedup_text(const kt_compare_row *r, char *out,
                             size_t out_size)
{
    if (r->speedup.n == 0) {
        snprintf(out, out_size, "%s", "");
        return;
    }
    snprintf(out, out_size, "%.3fx [%.3f, %.3f] %s", r->speedup.ratio,
             r->speedup.lo, r->speedup.hi, verdict_name(r->verdict));
}

static void diagnosis_text(const kt_compare_row *r, char *out, size_t size)
{
    const kt_diagnosis *d = &r->diag;
    if (!r->have_diag) {
        snprintf(out, size, "—");
        return;
    }
    if (r->counters == KT_S_OK)
        snprintf(out, size, "%s%s%s%s", kt_bound_name(d->bound),
                 d->unit ? " (" : "", d->unit ? d->unit : "",
                 d->unit ? ")" : "");
    else
        snprintf(out, size, "%s (%s%sfrom bandwidth alone)",
                 kt_bound_name(d->bound), d->unit ? d->unit : "",
                 d->unit ? "; " : "");
    if (d->cause_uncoalesced) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, "; uncoalesced");
    }
}

/* ----------------------------------------------------------- Markdown */

static void md_heading(FILE *out, const kt_compare *c)
{
    const kt_compare_row *ref = &c->rows[c->reference];
    char sizes[256], num[64], proto[256];
    int replay = strcmp(c->evaluator ? c->evaluator : "", "replay") == 0;
    size_t ok = 0;

    for (size_t i = 0; i < c->num_rows; ++i)
        ok += c->rows[i].result.status == KT_EVAL_OK;
    kt_format_sizes(c->op, c->sizes, sizes, sizeof sizes);
    fprintf(out, "## %s at %s on %s\n\n", c->spec, sizes, c->device);
    if (c->command[0])
        fprintf(out, "```\n%s\n```\n\n", c->command);
    if (replay)
        fprintf(out,
                "Replayed from a recording: every time below is the "
                "recording's, and the rounds of different variants were not "
                "measured together, so the speed-ups pair rounds that were "
                "not interleaved.\n\n");
    snprintf(proto, sizeof proto, "%s L2%s",
             kt_cache_mode_name(c->protocol.cache),
             c->protocol.probe_ns ? ", a clock probe before each sample" : "");
    if (replay)
        fprintf(out,
                "%zu of %zu variants answered from the recording (up to %zu "
                "recorded samples each; %s). Reference: **%s**.",
                ok, c->num_rows, c->rounds, proto,
                c->op->variants[ref->pick.point.variant].id);
    else
        fprintf(out,
                "%zu of %zu variants verified and measured together in %zu "
                "interleaved rounds (one sample of each per round; %s; %s "
                "evaluator, %.1f s). Reference: **%s**.",
                ok, c->num_rows, c->rounds, proto,
                c->evaluator ? c->evaluator : "?", c->wall_s,
                c->op->variants[ref->pick.point.variant].id);
    fmt_grouped(c->work.bytes_read + c->work.bytes_written, num, sizeof num);
    fprintf(out, " Work: %s B moved per launch (read + written", num);
    if (c->work.flops > 0) {
        fmt_grouped(c->work.flops, num, sizeof num);
        fprintf(out, ", %s flops", num);
    }
    fprintf(out, ")");
    if (c->have_calib) {
        fmt_grouped(c->calib.copy_gbs, num, sizeof num);
        fprintf(out,
                "; copy ceiling %s GB/s (device-to-device cudaMemcpy, "
                "measured %s).",
                num, c->calib.date);
    } else {
        fprintf(out, "; no calibration, no copy ceiling.");
    }
    fprintf(out, " GB = 1e9 B.\n\n");
}

static void md_timing(FILE *out, const kt_compare *c)
{
    const char *ref_id =
        c->op->variants[c->rows[c->reference].pick.point.variant].id;

    fprintf(out,
            "| variant | configuration | from | median µs | min µs | "
            "IQR/median | 95%% CI of median µs | speed-up vs %s [95%% CI] | "
            "GB/s | %% of copy |\n",
            ref_id);
    fprintf(out, "|---|---|---|--:|--:|--:|---|---|--:|--:|\n");
    for (size_t i = 0; i < c->num_rows; ++i) {
        const kt_compare_row *r = &c->rows[i];
        const kt_stats *s = &r->result.timing.kernel;
        char text[1024], a[64], b[64];
        const char *id = c->op->variants[r->pick.point.variant].id;

        fputs("|", out);
        snprintf(text, sizeof text,
                 i == c->reference ? "**%s** (reference)" : "%s", id);
        cell(out, text);
        kt_compare_params_text(c->op, &r->pick.point, text, sizeof text);
        cell(out, text);
        source_text(c, r, text, sizeof text);
        cell(out, text);
        if (r->result.status != KT_EVAL_OK) {
            snprintf(text, sizeof text, "**%s** (see below)",
                     kt_eval_status_name(r->result.status));
            cell(out, text);
            for (int k = 0; k < 6; ++k)
                cell(out, "—");
            fputs("\n", out);
            continue;
        }
        fmt_us(s->median, text, sizeof text);
        cell(out, text);
        fmt_us(s->min, text, sizeof text);
        cell(out, text);
        snprintf(text, sizeof text, "%.2f%%", 100.0 * s->rel_spread);
        cell(out, text);
        fmt_us(s->ci_lo, a, sizeof a);
        fmt_us(s->ci_hi, b, sizeof b);
        snprintf(text, sizeof text, "%s – %s", a, b);
        cell(out, text);
        if (i == c->reference)
            snprintf(text, sizeof text, "1 (reference)");
        else if (r->speedup.n) {
            kt_compare_speedup_text(r, a, sizeof a);
            snprintf(text, sizeof text, r->verdict > 0 ? "**%s**" : "%s", a);
        } else
            snprintf(text, sizeof text, "—");
        cell(out, text);
        fmt_grouped(r->derived.bandwidth_gbs, text, sizeof text);
        cell(out, text);
        if (c->have_calib && r->derived.pct_of_copy > 0)
            snprintf(text, sizeof text, "%.1f%%", r->derived.pct_of_copy);
        else
            snprintf(text, sizeof text, "—");
        cell(out, text);
        fputs("\n", out);
    }
    fputs("\n", out);
}

/* v with `decimals` decimals and `suffix`, or a dash when not counted. */
static void fmt_metric(double v, int decimals, const char *suffix, char *out,
                       size_t size)
{
    if (isnan(v))
        snprintf(out, size, "—");
    else
        snprintf(out, size, "%.*f%s", decimals, v, suffix);
}

static void md_counters(FILE *out, const kt_compare *c)
{
    int any = 0, failed = 0;

    for (size_t i = 0; i < c->num_rows; ++i) {
        const kt_compare_row *r = &c->rows[i];
        any |= r->have_diag;
        failed |= r->profiled && r->counters != KT_S_OK &&
                  r->counters != KT_S_UNSUPPORTED;
    }
    if (!any)
        return;
    if (c->counters_collected)
        fprintf(out,
                "Counters (CUPTI, on launches of their own after the timing, "
                "L2 flushed before each pass; no time is taken from them). "
                "DRAM %% is counted DRAM bytes over the median time above, "
                "against the theoretical peak:\n\n");
    else
        fprintf(out,
                "Counters: none (%s); the diagnosis comes from "
                "effective bandwidth alone:\n\n",
                c->counters_note[0] ? c->counters_note
                : failed            ? "the collection failed; see below"
                                    : "not collected");
    fprintf(out, "| variant | ld sectors/request | st sectors/request | "
                 "achieved occupancy | theoretical occupancy | DRAM %% of "
                 "peak | diagnosis |\n");
    fprintf(out, "|---|--:|--:|--:|--:|--:|---|\n");
    for (size_t i = 0; i < c->num_rows; ++i) {
        const kt_compare_row *r = &c->rows[i];
        char text[512], v[64];
        if (!r->have_diag)
            continue;
        fputs("|", out);
        cell(out, c->op->variants[r->pick.point.variant].id);
        fmt_metric(r->metrics[KT_M_LD_SECTORS_PER_REQUEST], 2, "", v, sizeof v);
        if (r->diag.load.have)
            snprintf(text, sizeof text, "%s (ideal %.0f)", v,
                     r->diag.load.ideal);
        else
            snprintf(text, sizeof text, "%s", v);
        cell(out, text);
        fmt_metric(r->metrics[KT_M_ST_SECTORS_PER_REQUEST], 2, "", v, sizeof v);
        if (r->diag.store.have)
            snprintf(text, sizeof text, "%s (ideal %.0f)", v,
                     r->diag.store.ideal);
        else
            snprintf(text, sizeof text, "%s", v);
        cell(out, text);
        fmt_metric(r->metrics[KT_M_ACHIEVED_OCCUPANCY], 1, "%", text,
                   sizeof text);
        cell(out, text);
        fmt_metric(r->have_occ ? r->occ.theoretical : NAN, 1, "%", text,
                   sizeof text);
        cell(out, text);
        fmt_metric(r->diag.dram_pct, 1, "%", text, sizeof text);
        cell(out, text);
        diagnosis_text(r, text, sizeof text);
        cell(out, text);
        fputs("\n", out);
    }
    fputs("\n", out);
    for (size_t i = 0; i < c->num_rows; ++i) {
        const kt_compare_row *r = &c->rows[i];
        if (!r->have_diag)
            continue;
        fprintf(out, "- %s: %s", c->op->variants[r->pick.point.variant].id,
                r->diag.why);
        if (r->diag.load.have || r->diag.store.have)
            fprintf(out, " Coalescing: %s", r->diag.coalescing);
        if (r->diag.profiled[0])
            fprintf(out, " Profiled: %s.", r->diag.profiled);
        if (r->diag.l2_hit_note[0])
            fprintf(out, " %s.", r->diag.l2_hit_note);
        if (r->profiled && r->counters != KT_S_OK && r->counters_note[0] &&
            strcmp(r->counters_note, c->counters_note) != 0)
            fprintf(out, " (no counters: %s)", r->counters_note);
        fputs("\n", out);
    }
    fputs("\n", out);
}

static void md_sources(FILE *out, const kt_compare *c)
{
    size_t failed = 0;

    if (c->num_files) {
        fprintf(out, "Results files:\n\n");
        for (size_t i = 0; i < c->num_files; ++i) {
            const kt_results *f = &c->files[i];
            char sizes[256];
            kt_format_sizes(c->op, f->sizes, sizes, sizeof sizes);
            fprintf(out, "%zu. `%s`: %s of %s at %s%s%s, %zu record%s%s%s\n",
                    i + 1, f->path, kt_results_kind_name(f->kind), c->spec,
                    sizes, f->device[0] ? " on " : "", f->device, f->records,
                    f->records == 1 ? "" : "s", f->note[0] ? "; " : "",
                    f->note);
        }
        fputs("\n", out);
    }
    for (size_t i = 0; i < c->num_rows; ++i)
        failed += c->rows[i].result.status != KT_EVAL_OK;
    if (failed) {
        fprintf(out, "Not measured:\n\n");
        for (size_t i = 0; i < c->num_rows; ++i) {
            const kt_compare_row *r = &c->rows[i];
            if (r->result.status == KT_EVAL_OK)
                continue;
            fprintf(out, "- %s: %s%s: %s\n",
                    c->op->variants[r->pick.point.variant].id,
                    kt_eval_status_name(r->result.status),
                    r->host_invalid ? " (refused on the host)" : "",
                    r->result.reason);
        }
        fputs("\n", out);
    }
    if (c->num_notes) {
        fprintf(out, "Notes:\n\n");
        for (size_t i = 0; i < c->num_notes; ++i)
            fprintf(out, "- %s\n", c->notes[i]);
        fputs("\n", out);
    }
}

/* Each measured row's energy window (core/energy_text.h); nothing when no
 * row has one. */
static void md_energy(FILE *out, const kt_compare *c)
{
    char text[1024];
    int any = 0;

    for (size_t i = 0; i < c->num_rows && !any; ++i)
        any = c->rows[i].result.status == KT_EVAL_OK &&
              c->rows[i].result.energy.measured;
    if (!any)
        return;
    fputs("\n### Energy\n", out);
    for (size_t i = 0; i < c->num_rows; ++i) {
        const kt_compare_row *r = &c->rows[i];
        if (r->result.status != KT_EVAL_OK || !r->result.energy.measured)
            continue;
        kt_compare_params_text(c->op, &r->pick.point, text, sizeof text);
        fprintf(out, "\n`%s` %s\n", c->op->variants[r->pick.point.variant].id,
                text);
        kt_energy_markdown(out, &r->result.energy, &c->work);
    }
}

void kt_compare_markdown(FILE *out, const kt_compare *c)
{
    md_heading(out, c);
    md_timing(out, c);
    md_energy(out, c);
    md_counters(out, c);
    md_sources(out, c);
}

/* --------------------------------------------------------------- JSON */

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *sizes_json(const kt_operator *op, const int64_t *sizes)
{
    json_t *j = json_object();
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        json_object_set_new(j, op->sizes[i].name, json_integer(sizes[i]));
    return j;
}

static json_t *stats_json(const kt_stats *s)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:I}",
                     "median_us", number(s->median), "min_us", number(s->min),
                     "max_us", number(s->max), "mean_us", number(s->mean),
                     "q1_us", number(s->q1), "q3_us", number(s->q3),
                     "iqr_over_median", number(s->rel_spread), "ci_lo_us",
                     number(s->ci_lo), "ci_hi_us", number(s->ci_hi), "noise",
                     number(s->noise), "samples", (json_int_t)s->n);
}

static json_t *source_json(const kt_compare *c, const kt_compare_row *r)
{
    json_t *j = json_pack("{s:s}", "kind", pick_kind_name(r->pick.kind));
    if (r->pick.kind == KT_PICK_RESULTS) {
        json_object_set_new(j, "file", json_integer((json_int_t)r->pick.file));
        json_object_set_new(j, "path",
                            json_string(c->files[r->pick.file].path));
        json_object_set_new(j, "detail", json_string(r->pick.detail));
        json_object_set_new(j, "recorded_median_us",
                            number(r->pick.recorded_us));
    }
    return j;
}

static json_t *counters_json(const kt_compare *c, const kt_compare_row *r)
{
    json_t *j;
    if (r->counters != KT_S_OK || !r->prof.values)
        return json_pack("{s:b,s:s}", "collected", 0, "why",
                         r->counters_note[0]   ? r->counters_note
                         : c->counters_note[0] ? c->counters_note
                                               : "not collected");
    j = json_pack("{s:b,s:s,s:o,s:o,s:o}", "collected", 1, "source", "cupti",
                  "metrics", kt_metrics_json(&c->set, r->prof.values), "raw",
                  kt_metrics_raw_json(&c->set, r->prof.values), "cost",
                  kt_counter_stats_json(&r->prof.stats));
    return j;
}

static json_t *row_json(const kt_compare *c, size_t i)
{
    const kt_compare_row *r = &c->rows[i];
    json_t *j = kt_point_to_json(c->op, &r->pick.point);
    json_t *full = kt_eval_result_to_json(c->op, &r->pick.point, &r->result, 1);
    char text[512];

    kt_point_format(c->op, &r->pick.point, text, sizeof text);
    json_object_set_new(j, "config", json_string(text));
    json_object_set_new(j, "reference", json_boolean(i == c->reference));
    json_object_set_new(j, "source", source_json(c, r));
    json_object_set_new(j, "status",
                        json_string(kt_eval_status_name(r->result.status)));
    json_object_set_new(j, "reason", json_string(r->result.reason));
    json_object_set_new(j, "host_checked", json_boolean(r->host_invalid));
    json_object_set(j, "shape", json_object_get(full, "shape"));
    if (r->result.status != KT_EVAL_OK) {
        json_decref(full);
        return j;
    }
    json_object_set_new(j, "stats", stats_json(&r->result.timing.kernel));
    json_object_set(j, "timing", json_object_get(full, "timing"));
    if (json_object_get(full, "energy"))
        json_object_set(j, "energy", json_object_get(full, "energy"));
    json_decref(full);
    json_object_set_new(j, "vs_reference",
                        r->speedup.n
                            ? json_pack("{s:f,s:f,s:f,s:I,s:s}", "speedup",
                                        r->speedup.ratio, "lo", r->speedup.lo,
                                        "hi", r->speedup.hi, "rounds",
                                        (json_int_t)r->speedup.n, "verdict",
                                        verdict_name(r->verdict))
                            : json_null());
    json_object_set_new(
        j, "derived",
        json_pack(
            "{s:o,s:o,s:o,s:o,s:o}", "bandwidth_gbs",
            number(r->derived.bandwidth_gbs), "pct_of_copy",
            number(r->derived.pct_of_copy > 0 ? r->derived.pct_of_copy : NAN),
            "pct_of_peak",
            number(r->derived.pct_of_peak > 0 ? r->derived.pct_of_peak : NAN),
            "gflops", number(r->derived.gflops), "intensity",
            number(r->derived.intensity)));
    json_object_set_new(j, "counters", counters_json(c, r));
    json_object_set_new(
        j, "figures",
        json_pack("{s:o,s:o,s:o,s:o,s:o}", "ld_sectors_per_request",
                  number(r->metrics[KT_M_LD_SECTORS_PER_REQUEST]),
                  "st_sectors_per_request",
                  number(r->metrics[KT_M_ST_SECTORS_PER_REQUEST]),
                  "achieved_occupancy_pct",
                  number(r->metrics[KT_M_ACHIEVED_OCCUPANCY]),
                  "theoretical_occupancy_pct",
                  number(r->have_occ ? r->occ.theoretical : NAN), "dram_pct",
                  number(r->have_diag ? r->diag.dram_pct : NAN)));
    json_object_set_new(
        j, "kernel",
        r->profiled && r->prof.status == KT_EVAL_OK
            ? kt_kernel_info_json(&r->prof.kernel, r->have_occ ? &r->occ : NULL)
            : json_null());
    json_object_set_new(j, "diagnosis",
                        r->have_diag ? kt_diagnosis_json(&r->diag)
                                     : json_null());
    return j;
}

json_t *kt_compare_json(const kt_compare *c)
{
    json_t *root, *list, *names;

    root = json_pack(
        "{s:s,s:i,s:s,s:s,s:s,s:o,s:I,s:s,s:s,s:s,s:o,s:o,s:{s:f,s:f,s:f},s:"
        "s,s:I,s:f}",
        "kind", "ktune.compare", "format", 1, "spec", c->spec, "plugin",
        c->plugin_name, "operator", c->op->id, "sizes",
        sizes_json(c->op, c->sizes), "seed", (json_int_t)c->seed, "device",
        c->device, "command", c->command, "evaluator",
        c->evaluator ? c->evaluator : "", "protocol",
        kt_env_protocol(&c->protocol), "environment",
        c->environment ? json_deep_copy(c->environment) : json_object(), "work",
        "bytes_read", c->work.bytes_read, "bytes_written",
        c->work.bytes_written, "flops", c->work.flops, "reference",
        c->op->variants[c->rows[c->reference].pick.point.variant].id, "rounds",
        (json_int_t)c->rounds, "wall_s", c->wall_s);
    json_object_set_new(
        root, "ceilings",
        json_pack("{s:o,s:o}", "copy_gbs",
                  c->have_calib ? number(c->calib.copy_gbs) : json_null(),
                  "peak_bw_gbs",
                  c->have_calib ? number(c->calib.peak_bw_gbs) : json_null()));
    list = json_array();
    for (size_t i = 0; i < c->num_files; ++i) {
        const kt_results *f = &c->files[i];
        json_array_append_new(
            list,
            json_pack("{s:s,s:s,s:o,s:s,s:I,s:s}", "path", f->path, "kind",
                      kt_results_kind_name(f->kind), "sizes",
                      sizes_json(c->op, f->sizes), "device", f->device,
                      "records", (json_int_t)f->records, "note", f->note));
    }
    json_object_set_new(root, "sources", list);
    names = json_array();
    for (size_t i = 0; c->counters && i < c->set.num_items; ++i)
        json_array_append_new(names, json_string(c->set.items[i].name));
    json_object_set_new(root, "counters",
                        json_pack("{s:b,s:b,s:o,s:o}", "requested", c->counters,
                                  "collected", c->counters_collected, "why",
                                  c->counters_collected || !c->counters_note[0]
                                      ? json_null()
                                      : json_string(c->counters_note),
                                  "metrics", names));
    list = json_array();
    for (size_t i = 0; i < c->num_rows; ++i)
        json_array_append_new(list, row_json(c, i));
    json_object_set_new(root, "variants", list);
    list = json_array();
    for (size_t i = 0; i < c->num_notes; ++i)
        json_array_append_new(list, json_string(c->notes[i]));
    json_object_set_new(root, "notes", list);
    return root;
}

kt_status kt_compare_write_json(const char *path, const kt_compare *c,
                                kt_err *err)
{
    json_t *j = kt_compare_json(c);
    int rc = kt_out_json(j, path);
    json_decref(j);
    if (rc)
        return kt_err_set(err, KT_S_IO, "%s: cannot write: %s", path,
                          strerror(errno));
    return KT_S_OK;
}

/* ---------------------------------------------------------------- CSV */

static void csv_number(FILE *out, double v, int last)
{
    char text[64] = "";
    if (isfinite(v))
        snprintf(text, sizeof text, "%.9g", v);
    kt_csv_field(out, text, last);
}

/* The columns after the parameters'. */
static const char *const csv_tail[] = {
    "config",
    "reference",
    "source",
    "source_file",
    "source_detail",
    "status",
    "reason",
    "median_us",
    "min_us",
    "q1_us",
    "q3_us",
    "iqr_over_median",
    "ci_lo_us",
    "ci_hi_us",
    "noise",
    "samples",
    "speedup",
    "speedup_lo",
    "speedup_hi",
    "verdict",
    "bandwidth_gbs",
    "pct_of_copy",
    "ld_sectors_per_request",
    "st_sectors_per_request",
    "achieved_occupancy_pct",
    "dram_pct",
    "diagnosis",
};

/* One column per parameter name of any compared variant (64 at most). */
static size_t csv_param_names(const kt_compare *c, const char **names)
{
    size_t num_names = 0;
    for (size_t i = 0; i < c->num_rows; ++i) {
        const kt_variant *v = &c->op->variants[c->rows[i].pick.point.variant];
        for (uint32_t k = 0; k < v->num_params; ++k) {
            int seen = 0;
            for (size_t n = 0; n < num_names; ++n)
                seen |= strcmp(names[n], v->params[k].name) == 0;
            if (!seen && num_names < 64)
                names[num_names++] = v->params[k].name;
        }
    }
    return num_names;
}

static void csv_header(FILE *out, const kt_compare *c, const char *const *names,
                       size_t num_names)
{
    const size_t num_tail = sizeof csv_tail / sizeof csv_tail[0];
    kt_csv_field(out, "device", 0);
    kt_csv_field(out, "spec", 0);
    for (uint32_t i = 0; i < c->op->num_sizes; ++i)
        kt_csv_field(out, c->op->sizes[i].name, 0);
    kt_csv_field(out, "variant", 0);
    for (size_t n = 0; n < num_names; ++n)
        kt_csv_field(out, names[n], 0);
    for (size_t k = 0; k < num_tail; ++k)
        kt_csv_field(out, csv_tail[k], k + 1 == num_tail);
}

/* Row i: the columns of csv_header, in its order. */
static void csv_row(FILE *out, const kt_compare *c, size_t i,
                    const char *const *names, size_t num_names)
{
    const kt_compare_row *r = &c->rows[i];
    const kt_variant *v = &c->op->variants[r->pick.point.variant];
    const kt_stats *s = &r->result.timing.kernel;
    int ok = r->result.status == KT_EVAL_OK;
    char text[1024];

    kt_csv_field(out, c->device, 0);
    kt_csv_field(out, c->spec, 0);
    for (uint32_t k = 0; k < c->op->num_sizes; ++k) {
        snprintf(text, sizeof text, "%lld", (long long)c->sizes[k]);
        kt_csv_field(out, text, 0);
    }
    kt_csv_field(out, v->id, 0);
    for (size_t n = 0; n < num_names; ++n) {
        long k = kt_variant_find_param(v, names[n]);
        text[0] = '\0';
        if (k >= 0)
            kt_param_format(&v->params[k], r->pick.point.values[k], text,
                            sizeof text);
        kt_csv_field(out, text, 0);
    }
    kt_compare_params_text(c->op, &r->pick.point, text, sizeof text);
    kt_csv_field(out, text, 0);
    kt_csv_field(out, i == c->reference ? "1" : "0", 0);
    kt_csv_field(out, pick_kind_name(r->pick.kind), 0);
    kt_csv_field(
        out, r->pick.kind == KT_PICK_RESULTS ? c->files[r->pick.file].path : "",
        0);
    kt_csv_field(out, r->pick.kind == KT_PICK_RESULTS ? r->pick.detail : "", 0);
    kt_csv_field(out, kt_eval_status_name(r->result.status), 0);
    kt_csv_field(out, r->result.reason, 0);
    csv_number(out, ok ? s->median : NAN, 0);
    csv_number(out, ok ? s->min : NAN, 0);
    csv_number(out, ok ? s->q1 : NAN, 0);
    csv_number(out, ok ? s->q3 : NAN, 0);
    csv_number(out, ok ? s->rel_spread : NAN, 0);
    csv_number(out, ok ? s->ci_lo : NAN, 0);
    csv_number(out, ok ? s->ci_hi : NAN, 0);
    csv_number(out, ok ? s->noise : NAN, 0);
    csv_number(out, ok ? (double)s->n : NAN, 0);
    csv_number(out, r->speedup.n ? r->speedup.ratio : NAN, 0);
    csv_number(out, r->speedup.n ? r->speedup.lo : NAN, 0);
    csv_number(out, r->speedup.n ? r->speedup.hi : NAN, 0);
    kt_csv_field(out, r->speedup.n ? verdict_name(r->verdict) : "", 0);
    csv_number(out, ok ? r->derived.bandwidth_gbs : NAN, 0);
    csv_number(out,
               ok && r->derived.pct_of_copy > 0 ? r->derived.pct_of_copy : NAN,
               0);
    csv_number(out, r->metrics[KT_M_LD_SECTORS_PER_REQUEST], 0);
    csv_number(out, r->metrics[KT_M_ST_SECTORS_PER_REQUEST], 0);
    csv_number(out, r->metrics[KT_M_ACHIEVED_OCCUPANCY], 0);
    csv_number(out, r->have_diag ? r->diag.dram_pct : NAN, 0);
    if (r->have_diag)
        diagnosis_text(r, text, sizeof text);
    else
        text[0] = '\0';
    kt_csv_field(out, text, 1);
}

kt_status kt_compare_write_csv(const char *path, const kt_compare *c,
                               kt_err *err)
{
    const char *names[64];
    size_t num_names;
    FILE *out = kt_out_open(path);

    if (!out)
        return kt_err_set(err, KT_S_IO, "%s: cannot write: %s", path,
                          strerror(errno));
    num_names = csv_param_names(c, names);
    csv_header(out, c, names, num_names);
    for (size_t i = 0; i < c->num_rows; ++i)
        csv_row(out, c, i, names, num_names);
    if (kt_out_close(out) != 0)
        return kt_err_set(err, KT_S_IO, "%s: cannot write: %s", path,
                          strerror(errno));
    return KT_S_OK;
}
