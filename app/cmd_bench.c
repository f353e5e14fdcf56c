// SPDX-License-Identifier: Apache-2.0
/* ktune bench: verify one configuration, then measure it. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "core/derive.h"
#include "core/energy_text.h"
#include "core/envrec.h"
#include "core/evaluator.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "core/result_json.h"
#include "core/result_md.h"
#include "core/runctx.h"
#include "core/term.h"
#include "engine/instance.h"
#include "engine/verify.h"

static const char help[] =
    "usage: ktune bench PLUGIN:OPERATOR [--variant V] [--set NAME=VALUE]...\n"
    "                   [--size NAME=VALUE]... [--json FILE]\n"
    "                   [--markdown FILE] [options]\n\n"
    "Verifies one configuration at boundary sizes and at the requested size\n"
    "(outputs poisoned, every element compared), then times it under the\n"
    "measurement protocol and prints median, spread, confidence interval,\n"
    "effective bandwidth and the share of the measured copy ceiling.\n\n"
    "  --variant V        variant id (default: the operator's first)\n"
    "  --set NAME=VALUE   a tunable parameter (repeatable)\n"
    "  --size NAME=VALUE  a problem size, e.g. n=2^24 (repeatable)\n"
    "  --seed N           input seed (default 1)\n"
    "  --device N         CUDA device ordinal (default 0)\n"
    "  --no-boundaries    verify at the requested size only\n"
    "  --no-calibration   skip the device's ceilings (no % of copy)\n"
    "  --json FILE        write the full record (environment, protocol,\n"
    "                     statistics, raw samples) to FILE\n"
    "  --markdown FILE    the result as a Markdown table to FILE\n"
    "                     ('-' for stdout; the report then goes to stderr)\n"
    "  --plugin FILE      load FILE too (repeatable)\n\n" KT_CLI_ISOLATION_HELP
        KT_CLI_PROTOCOL_HELP;

typedef struct bench_args {
    kt_cli_options o;
    const char *spec, *markdown;
    int calibration;
} bench_args;

static kt_status own_option(void *ctx, int opt, char *arg, kt_err *err)
{
    bench_args *a = ctx;
    if (opt == 'M') {
        a->markdown = arg;
        return kt_cli_output(arg, "--markdown", err);
    }
    a->calibration = 0; /* --no-calibration */
    return KT_S_OK;
}

static int parse_args(int argc, char **argv, bench_args *a, kt_err *err)
{
    static const struct option own[] = {
        {"no-calibration", no_argument, NULL, 'C'},
        {"markdown", required_argument, NULL, 'M'},
        {NULL, 0, NULL, 0}};
    const kt_cli_command cmd = {.name = "bench",
                                .help = help,
                                .shared = KT_OPT_MEASURING | KT_OPT_VARIANT |
                                          KT_OPT_SET,
                                .own = own,
                                .apply = own_option,
                                .ctx = a};
    int rc;

    a->calibration = 1;
    if ((rc = kt_cli_parse(argc, argv, &cmd, &a->o, err)))
        return rc;
    if (kt_cli_operator_operand("bench", &a->o, &a->spec, err))
        return KT_EXIT_USAGE;
    a->o.protocol.energy = 1; /* where NVML answers (engine/energy_meter.h) */
    if (kt_protocol_validate(&a->o.protocol, err))
        return KT_EXIT_USAGE;
    return KT_EXIT_OK;
}

/* The columns of the timing table, left out from the highest rank when the
 * terminal is narrow (core/term.h): the median, its interval and n stay. */
static const kt_term_col stats_cols[] = {
    {"time (us)", 0, 0}, {"median", 1, 0},  {"min", 1, 5},
    {"mean", 1, 7},      {"stddev", 1, 6},  {"q1", 1, 4},
    {"q3", 1, 4},        {"IQR/med", 1, 3}, {"95% CI of median", 1, 1},
    {"n", 1, 0}};

static void add_stats_row(kt_term_table *t, const char *label,
                          const kt_stats *s)
{
    char v[9][48];
    const char *row[] = {label, v[0], v[1], v[2], v[3],
                         v[4],  v[5], v[6], v[7], v[8]};

    snprintf(v[0], sizeof v[0], "%.3f", s->median);
    snprintf(v[1], sizeof v[1], "%.3f", s->min);
    snprintf(v[2], sizeof v[2], "%.3f", s->mean);
    snprintf(v[3], sizeof v[3], "%.3f", s->stddev);
    snprintf(v[4], sizeof v[4], "%.3f", s->q1);
    snprintf(v[5], sizeof v[5], "%.3f", s->q3);
    snprintf(v[6], sizeof v[6], "%.2f%%", 100.0 * s->rel_spread);
    snprintf(v[7], sizeof v[7], "[%.3f, %.3f]", s->ci_lo, s->ci_hi);
    snprintf(v[8], sizeof v[8], "%zu", s->n);
    kt_term_table_add(t, row);
}

static void print_stats(FILE *out, const kt_timing *t, const kt_protocol *p,
                        int width)
{
    kt_term_table table;
    char label[64];

    kt_term_table_init(&table, stats_cols,
                       sizeof stats_cols / sizeof stats_cols[0]);
    snprintf(label, sizeof label, "kernel, per-sample, %s",
             kt_cache_mode_name(p->cache));
    add_stats_row(&table, label, &t->kernel);
    if (t->end_to_end.n)
        add_stats_row(&table, "end to end (host clock)", &t->end_to_end);
    kt_term_table_print(out, &table, 0, width);
    kt_term_table_free(&table);
}

static void print_report(FILE *out, int width, const kt_operator *op,
                         const char *plugin, const kt_point *pt,
                         const int64_t *sizes, const kt_eval_result *r,
                         const kt_work *work, const kt_calibration *calib,
                         int have_calib, const kt_protocol *p, int boundaries,
                         const char *gpu_name)
{
    char shown[512], sz[160];
    const kt_timing *t = &r->timing;
    kt_derived d;

    kt_point_format(op, pt, shown, sizeof shown);
    kt_format_sizes(op, sizes, sz, sizeof sz);
    fprintf(out, "%s:%s  %s  %s  on %s\n", plugin, op->id, shown, sz, gpu_name);
    fprintf(out,
            "launch      grid (%u, %u, %u)  block (%u, %u, %u)  dynamic smem "
            "%u B\n",
            r->shape.grid[0], r->shape.grid[1], r->shape.grid[2],
            r->shape.block[0], r->shape.block[1], r->shape.block[2],
            r->shape.dynamic_smem_bytes);
    fprintf(out, "verified    ");
    if (boundaries) {
        kt_boundary list[KT_MAX_BOUNDARIES];
        size_t n = kt_boundary_sizes(op, sizes,
                                     (uint64_t)r->shape.block[0] *
                                         r->shape.block[1] * r->shape.block[2],
                                     list, KT_MAX_BOUNDARIES);
        for (size_t i = 0; i < n; ++i) {
            kt_format_sizes(op, list[i].sizes, sz, sizeof sz);
            fprintf(out, "%s, ", sz);
        }
        kt_format_sizes(op, sizes, sz, sizeof sz);
    }
    fprintf(out, "%s: outputs poisoned, every element compared\n", sz);
    if (r->compiled || r->compile_cache_hits)
        fprintf(out,
                "compiled    %u kernel(s) with NVRTC in %.3f s, %u read from "
                "the cache\n",
                r->compiled, r->compile_s, r->compile_cache_hits);
    fprintf(out, "\n");
    print_stats(out, t, p, width);
    if (t->batch_k)
        fprintf(out,
                "%-28s %10.3f  (batch mean of %d back-to-back launches, hot; "
                "not comparable with medians)\n",
                "batch mean", t->batch_us, t->batch_k);
    kt_derive(work, t->kernel.median, have_calib ? calib->copy_gbs : 0,
              have_calib ? calib->peak_bw_gbs : 0, &d);
    fprintf(
        out,
        "\neffective bandwidth  %.1f GB/s (GB = 1e9 B; %.0f B read + %.0f B "
        "written by the algorithm)\n",
        d.bandwidth_gbs, work->bytes_read, work->bytes_written);
    if (have_calib)
        fprintf(out,
                "                     %.1f%% of the measured copy ceiling "
                "%.0f GB/s, %.1f%% of the theoretical %.0f GB/s\n",
                d.pct_of_copy, calib->copy_gbs, d.pct_of_peak,
                calib->peak_bw_gbs);
    if (work->flops > 0)
        fprintf(out, "compute              %.1f GFLOP/s, %.3f flop/byte\n",
                d.gflops, d.intensity);
    if (p->probe_ns)
        fprintf(out,
                "SM clock             median %.0f MHz, min %.0f MHz; %zu "
                "sample(s) discarded below %.0f%% of rated\n",
                t->median_clock_mhz, t->min_clock_mhz, t->discarded,
                100.0 * p->throttle_ratio);
    fprintf(out,
            "sampling             %zu rounds, stopped on %s after %.3f s of "
            "GPU time; noise %.3f%% (target %.3f%%)\n",
            t->num_rounds, t->stop_reason ? t->stop_reason : "?", t->gpu_time_s,
            100.0 * t->kernel.noise, 100.0 * p->target_noise);
    kt_energy_print(out, &r->energy, work);
    if (have_calib)
        kt_energy_print_best(out, &r->energy, work, calib->copy_j_per_byte,
                             calib->fma_j_per_flop);
}

/* The report on stdout, fitted to its width (core/term.h). */
static void report(const kt_operator *op, const char *plugin,
                   const kt_point *pt, const int64_t *sizes,
                   const kt_eval_result *r, const kt_work *work,
                   const kt_calibration *calib, int have_calib,
                   const kt_protocol *p, int boundaries, const char *gpu_name)
{
    int width = kt_term_width(kt_stdout());
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    if (mem) {
        print_report(mem, width, op, plugin, pt, sizes, r, work, calib,
                     have_calib, p, boundaries, gpu_name);
        if (fclose(mem) == 0)
            kt_term_wrap(kt_stdout(), text, len, width);
    } else {
        print_report(kt_stdout(), width, op, plugin, pt, sizes, r, work, calib,
                     have_calib, p, boundaries, gpu_name);
    }
    free(text);
}

static int write_json(const char *path, const bench_args *a,
                      const kt_operator *op, const kt_point *pt,
                      const int64_t *sizes, const kt_eval_result *r,
                      kt_evaluator *ev, const kt_calibration *calib,
                      int have_calib)
{
    const kt_work *work = r->has_work ? &r->work : ev->ops->work(ev);
    json_t *sz = json_object(), *root, *env = ev->ops->environment(ev);
    kt_derived d;
    int rc;

    for (uint32_t i = 0; i < op->num_sizes; ++i)
        json_object_set_new(sz, op->sizes[i].name, json_integer(sizes[i]));
    kt_cli_env_host(env);
    json_object_set_new(env, "protocol", kt_env_protocol(&a->o.protocol));
    if (have_calib)
        json_object_set_new(env, "calibration", kt_calib_to_json(calib));
    kt_derive(work, r->timing.kernel.median, have_calib ? calib->copy_gbs : 0,
              have_calib ? calib->peak_bw_gbs : 0, &d);
    root = json_pack(
        "{s:s,s:s,s:o,s:I,s:o,s:{s:f,s:f,s:f},s:o,s:{s:f,s:f,s:f,s:f,s:f}}",
        "kind", "ktune.bench", "operator", op->id, "sizes", sz, "seed",
        (json_int_t)a->o.seed, "environment", env, "work", "bytes_read",
        work->bytes_read, "bytes_written", work->bytes_written, "flops",
        work->flops, "result", kt_eval_result_to_json(op, pt, r, 1), "derived",
        "bandwidth_gbs", d.bandwidth_gbs, "pct_of_copy", d.pct_of_copy,
        "pct_of_peak", d.pct_of_peak, "gflops", d.gflops, "intensity",
        d.intensity);
    json_object_set_new(root, "plugin", json_string(a->spec));
    json_object_set_new(root, "format", json_integer(1));
    rc = kt_out_json(root, path);
    json_decref(root);
    if (rc) {
        kt_msg("cannot write %s\n", path);
        return KT_EXIT_FAILURE;
    }
    return KT_EXIT_OK;
}

/* --markdown: the result as a Markdown table (core/result_md.h). */
static int write_markdown(const char *path, const bench_args *a,
                          const kt_operator *op, const kt_point *pt,
                          const int64_t *sizes, const kt_eval_result *r,
                          kt_evaluator *ev, const kt_calibration *calib,
                          int have_calib)
{
    FILE *out = kt_out_open(path);
    kt_result_md m = {.spec = a->spec,
                      .device = ev->ops->device(ev)->name,
                      .op = op,
                      .pt = pt,
                      .sizes = sizes,
                      .r = r,
                      .work = r->has_work ? &r->work : ev->ops->work(ev),
                      .copy_gbs = have_calib ? calib->copy_gbs : 0,
                      .peak_gbs = have_calib ? calib->peak_bw_gbs : 0};

    if (out)
        kt_result_markdown(out, &m);
    if (!out || kt_out_close(out) != 0) {
        kt_msg("--markdown %s: cannot write: %s\n", path, strerror(errno));
        return KT_EXIT_FAILURE;
    }
    return KT_EXIT_OK;
}

/* Verifies and times the point; prints the report and writes --json and
 * --markdown. */
static int measure(const bench_args *a, const kt_loaded_plugin *plugin,
                   const kt_operator *op, const kt_point *pt,
                   kt_eval_spec *spec, kt_eval_result *result)
{
    kt_evaluator *ev = NULL;
    kt_calibration calib;
    int have_calib, rc;
    kt_err err;

    kt_err_clear(&err);
    if (kt_cli_open_evaluator(&a->o, spec, &ev, &err))
        return kt_cli_fail(&err);
    /* The point first: one that fails (a kernel that never ends: its
     * --timeout) costs no calibration, which is needed only for the
     * report of a measured point (read from the cache after its first
     * run on a device). */
    if (ev->ops->evaluate(ev, pt, 1, &a->o.protocol, result, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (result->status != KT_EVAL_OK) {
        rc = kt_cli_eval_failed(result);
        goto done;
    }
    have_calib = a->calibration && kt_cli_calibration(ev, &calib, 1);
    report(op, plugin->desc.name, pt, spec->sizes, result,
           result->has_work ? &result->work : ev->ops->work(ev), &calib,
           have_calib, &a->o.protocol, a->o.boundaries,
           ev->ops->device(ev)->name);
    rc = a->o.json ? write_json(a->o.json, a, op, pt, spec->sizes, result, ev,
                                &calib, have_calib)
                   : KT_EXIT_OK;
    if (!rc && a->markdown)
        rc = write_markdown(a->markdown, a, op, pt, spec->sizes, result, ev,
                            &calib, have_calib);
done:
    ev->ops->close(ev);
    return rc;
}

int kt_cmd_bench(int argc, char **argv)
{
    bench_args a;
    kt_registry reg;
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_eval_spec spec;
    kt_eval_result result;
    int64_t sizes[KT_MAX_SIZES];
    kt_point pt;
    int rc;
    kt_err err;

    memset(&a, 0, sizeof a);
    memset(&result, 0, sizeof result);
    kt_err_clear(&err);
    kt_registry_init(&reg);
    rc = parse_args(argc, argv, &a, &err);
    if (rc) {
        rc = rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
        goto done;
    }
    reg.isolated = !a.o.in_process; /* plugin code runs in the worker */
    kt_cli_load_plugins(&reg, a.o.plugins.items, a.o.plugins.count, 0);
    if (kt_cli_resolve_point(&reg, a.spec, &a.o, &plugin, &op, &pt, sizes,
                             &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    kt_cli_eval_spec(&a.o, plugin, op, sizes, &spec);
    rc = measure(&a, plugin, op, &pt, &spec, &result);
done:
    kt_eval_result_free(&result);
    kt_registry_free(&reg);
    kt_cli_options_free(&a.o);
    return rc;
}
