// SPDX-License-Identifier: Apache-2.0
/* ktune profile: verify, time (unprofiled), then read hardware counters on
 * launches of their own, and print one table with the kernel's facts, the
 * counters, the derived figures and a bottleneck diagnosis. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "core/envrec.h"
#include "core/evaluator.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "core/result_json.h"
#include "core/runctx.h"
#include "engine/instance.h"
#include "metrics/cupti/counters.h"
#include "metrics/diag_facts.h"
#include "metrics/diagnose.h"
#include "metrics/occupancy.h"
#include "metrics/record.h"
#include "metrics/resolve.h"

static const char help[] =
    "usage: ktune profile PLUGIN:OPERATOR [--variant V] [--set NAME=VALUE]...\n"
    "                     [--size NAME=VALUE]... [--metrics A,B,...]\n"
    "                     [--no-counters] [--profile-launches N] [--json "
    "FILE]\n"
    "                     [options]\n"
    "       ktune profile --list-metrics\n\n"
    "Verifies one configuration, times it under the measurement protocol\n"
    "(unprofiled), then reads hardware counters with CUPTI on launches of\n"
    "their own (inputs restored and L2 flushed before each replay pass; no\n"
    "time is taken from them) and prints the kernel's registers, shared and\n"
    "local memory, its theoretical occupancy and what limits it, the\n"
    "counters, effective bandwidth, arithmetic intensity and a diagnosis:\n"
    "memory-, compute- or latency-bound, and whether the thread-to-data\n"
    "mapping is coalesced (docs/metrics.md).\n\n"
    "  --variant V          variant id (default: the operator's first)\n"
    "  --set NAME=VALUE     a tunable parameter (repeatable)\n"
    "  --size NAME=VALUE    a problem size, e.g. n=2^24 (repeatable)\n"
    "  --metrics A,B,...    more metrics: catalog names or raw CUPTI counter\n"
    "                       names such as smsp__inst_executed.sum\n"
    "  --no-default-metrics collect only the --metrics given\n"
    "  --no-counters        no CUPTI at all (e.g. under another profiler)\n"
    "  --profile-launches N launches of the point per replay pass (1-15,\n"
    "                       default 3; Nsight Compute profiles 1): each\n"
    "                       counter the median over them\n"
    "  --access-bytes N     bytes each thread loads per access, for the ideal\n"
    "                       sectors per request (default: inferred)\n"
    "  --list-metrics       print the metric catalog and exit\n"
    "  --seed N             input seed (default 1)\n"
    "  --device N           CUDA device ordinal (default 0)\n"
    "  --no-boundaries      verify at the requested size only\n"
    "  --json FILE          write the full record to FILE\n"
    "  --plugin FILE        load FILE too "
    "(repeatable)\n\n" KT_CLI_ISOLATION_HELP KT_CLI_PROTOCOL_HELP;

typedef struct profile_args {
    kt_cli_options o; /* o.counters: 0 after --no-counters */
    const char *spec;
    const char *metrics;
    int access_bytes;
    int defaults, list;
} profile_args;

/* Everything the report shows, gathered before printing. */
typedef struct report {
    const kt_operator *op;
    const char *plugin;
    const kt_point *pt;
    const int64_t *sizes;
    const kt_device *dev;
    const kt_eval_result *timed;
    const kt_profile_result *prof;
    const kt_metric_set *set;
    const kt_calibration *calib;
    const kt_protocol *protocol;
    int have_calib;
    kt_occupancy occ;
    int have_occ;
    char occ_note[512];
    kt_diagnosis diag;
    double peak_gflops;
    int gflops_measured; /* peak_gflops from the calibration's FMA kernel */
    const char *counters_note; /* why there are no counters, or NULL */
} report;

static kt_status own_option(void *ctx, int opt, char *arg, kt_err *err)
{
    profile_args *a = ctx;

    switch (opt) {
    case 'm': a->metrics = arg; break;
    case 'D': a->defaults = 0; break;
    case 'L': a->list = 1; break;
    default: /* 'a' */ return kt_cli_access_bytes(arg, &a->access_bytes, err);
    }
    return KT_S_OK;
}

static int parse_args(int argc, char **argv, profile_args *a, kt_err *err)
{
    static const struct option own[] = {
        {"metrics", required_argument, NULL, 'm'},
        {"no-default-metrics", no_argument, NULL, 'D'},
        {"access-bytes", required_argument, NULL, 'a'},
        {"list-metrics", no_argument, NULL, 'L'},
        {NULL, 0, NULL, 0}};
    const kt_cli_command cmd = {.name = "profile",
                                .help = help,
                                .shared = KT_OPT_MEASURING | KT_OPT_VARIANT |
                                          KT_OPT_SET | KT_OPT_COUNTERS,
                                .own = own,
                                .apply = own_option,
                                .ctx = a};
    int rc;

    a->defaults = 1;
    if ((rc = kt_cli_parse(argc, argv, &cmd, &a->o, err)))
        return rc;
    if (a->list)
        return a->o.num_operands == 0
                   ? KT_EXIT_OK
                   : (kt_err_set(err, KT_S_INPUT,
                                 "profile: --list-metrics takes no "
                                 "PLUGIN:OPERATOR"),
                      KT_EXIT_USAGE);
    if (kt_cli_operator_operand("profile", &a->o, &a->spec, err))
        return KT_EXIT_USAGE;
    if (!a->o.counters && (a->metrics || !a->defaults)) {
        kt_err_set(err, KT_S_INPUT,
                   "profile: --no-counters cannot be combined with --metrics "
                   "or --no-default-metrics");
        return KT_EXIT_USAGE;
    }
    if (!a->defaults && !a->metrics) {
        kt_err_set(err, KT_S_INPUT,
                   "profile: --no-default-metrics needs --metrics");
        return KT_EXIT_USAGE;
    }
    if (kt_protocol_validate(&a->o.protocol, err))
        return KT_EXIT_USAGE;
    return KT_EXIT_OK;
}

static void list_metrics(void)
{
    size_t count;
    const kt_metric_def *cat = kt_metric_catalog(&count);

    fprintf(kt_stdout(),
            "Metric catalog (default set marked *; static ones need no "
            "counters):\n\n");
    for (size_t i = 0; i < count; ++i) {
        const kt_metric_def *d = &cat[i];
        fprintf(kt_stdout(), "%c %-32s %-16s %s\n", d->in_default ? '*' : ' ',
                d->name, d->unit, d->description);
        if (d->kind == KT_MK_STATIC)
            fprintf(kt_stdout(),
                    "  %-32s %-16s from the kernel's attributes and the "
                    "occupancy arithmetic\n",
                    "", "");
        else if (d->formula == KT_MF_VALUE)
            fprintf(kt_stdout(), "  %-32s %-16s = %s\n", "", "", d->raw[0]);
        else
            fprintf(kt_stdout(), "  %-32s %-16s = %s%s\n  %-32s %-16s   / %s\n",
                    "", "", d->formula == KT_MF_PERCENT ? "100 * " : "",
                    d->raw[0], "", "", d->raw[1]);
    }
    fprintf(kt_stdout(),
            "\nAny other counter can be named raw, UNIT__COUNTER.ROLLUP[.SUB], "
            "e.g.\n--metrics smsp__inst_executed.sum,"
            "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second;\n"
            "names are checked against the GPU's own list when one is "
            "present.\n");
}

/* NAME=VALUE items through `apply`. */
/* 1234567 -> "1,234,567". */
static void group_digits(double v, char *out, size_t out_size)
{
    char digits[64];
    size_t len, o = 0;
    int neg = v < 0;

    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    len = strlen(digits);
    if (neg && o + 1 < out_size)
        out[o++] = '-';
    for (size_t i = 0; i < len && o + 1 < out_size; ++i) {
        if (i && (len - i) % 3 == 0 && o + 1 < out_size)
            out[o++] = ',';
        if (o + 1 < out_size)
            out[o++] = digits[i];
    }
    out[o] = '\0';
}

static void format_value(double v, const char *unit, char *out, size_t out_size)
{
    if (isnan(v)) {
        snprintf(out, out_size, "n/a");
        return;
    }
    if (unit && strchr(unit, '%'))
        snprintf(out, out_size, "%.1f", v);
    else if (unit && strchr(unit, '/'))
        snprintf(out, out_size, "%.2f", v);
    else if (v == floor(v) && fabs(v) < 1e18)
        group_digits(v, out, out_size);
    else
        snprintf(out, out_size, "%.6g", v);
}

static void print_header(const report *r, int boundaries)
{
    const kt_shape *s = &r->timed->shape;
    const kt_stats *k = &r->timed->timing.kernel;
    char shown[512], sz[160];

    kt_point_format(r->op, r->pt, shown, sizeof shown);
    kt_format_sizes(r->op, r->sizes, sz, sizeof sz);
    fprintf(kt_stdout(), "%s:%s  %s  %s  on %s\n", r->plugin, r->op->id, shown,
            sz, r->dev->name);
    fprintf(kt_stdout(),
            "launch      grid (%u, %u, %u)  block (%u, %u, %u)  dynamic smem "
            "%u B\n",
            s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1],
            s->block[2], s->dynamic_smem_bytes);
    fprintf(kt_stdout(),
            "verified    %s%s: outputs poisoned, every element compared\n", sz,
            boundaries ? " and boundary sizes" : "");
    fprintf(kt_stdout(),
            "time        median %.3f us, min %.3f, IQR/median %.2f%%, %zu "
            "samples (kernel interval, per sample, %s L2; unprofiled runs)\n",
            k->median, k->min, 100.0 * k->rel_spread, k->n,
            kt_cache_mode_name(r->protocol->cache));
}

static void limit_text(int blocks, char *out, size_t out_size)
{
    if (blocks == INT32_MAX)
        snprintf(out, out_size, "no limit");
    else
        snprintf(out, out_size, "%d", blocks);
}

static void print_kernel(const report *r)
{
    const kt_kernel_info *k = &r->prof->kernel;
    char limiters[96], regs[32], smem[32];

    fprintf(kt_stdout(), "\n");
    if (!k->available) {
        fprintf(kt_stdout(),
                "kernel      no attributes: the plugin names no kernel in "
                "kt_shape.kernel\n");
        return;
    }
    fprintf(kt_stdout(),
            "kernel      %d registers/thread; shared memory %zu B/block "
            "(static %zu + dynamic %zu; the driver reserves %d more); local "
            "%zu B/thread%s\n",
            k->num_regs, k->static_smem_bytes + k->dynamic_smem_bytes,
            k->static_smem_bytes, k->dynamic_smem_bytes,
            k->reserved_smem_per_block, k->local_bytes_per_thread,
            k->local_bytes_per_thread ? " (spills or local arrays)"
                                      : " (no spills)");
    if (!r->have_occ) {
        fprintf(kt_stdout(), "occupancy   %s; occupancy API: %d blocks/SM\n",
                r->occ_note, k->api_blocks_per_sm);
        return;
    }
    kt_occ_format_limiters(r->occ.limiters, limiters, sizeof limiters);
    fprintf(kt_stdout(),
            "occupancy   theoretical %.1f%%: %d blocks x %d warps = %d of %d "
            "warps per SM, limited by %s\n",
            r->occ.theoretical, r->occ.blocks_per_sm, r->occ.warps_per_block,
            r->occ.active_warps, r->occ.max_warps_per_sm, limiters);
    limit_text(r->occ.by_registers, regs, sizeof regs);
    limit_text(r->occ.by_shared, smem, sizeof smem);
    fprintf(kt_stdout(),
            "            blocks/SM allowed by warps %d, registers %s, shared "
            "memory %s, block limit %d; occupancy API %d%s\n",
            r->occ.by_warps, regs, smem, r->occ.by_blocks, k->api_blocks_per_sm,
            k->api_blocks_per_sm == r->occ.blocks_per_sm ? " (agrees)"
                                                         : " (DISAGREES: the "
                                                           "API is right)");
}

/* What the percentages of peak are relative to: each kernel's own
 * elapsed cycles, as Nsight Compute's, unless the ranges were not per
 * kernel. */
static void print_ranges(size_t kernels)
{
    if (kernels == 1)
        fprintf(kt_stdout(),
                "            the kernel profiled as a range of its own: "
                "percentages of peak over its elapsed cycles, as Nsight "
                "Compute's\n");
    else if (kernels > 1)
        fprintf(kt_stdout(),
                "            %zu kernels, each profiled as a range of its own: "
                "counts summed, percentages weighted by each kernel's "
                "duration (Nsight Compute shows each kernel apart)\n",
                kernels);
    else
        fprintf(
            kt_stdout(),
            "            ranges not per kernel (KTUNE_CUPTI_RANGE=launch): one "
            "range holds the launch and its synchronisation, so "
            "percentages of peak read low against Nsight Compute's\n");
}

static void print_counters(const report *r)
{
    const kt_profile_result *p = r->prof;
    const kt_metric_set *set = r->set;
    double values[KT_METRICS_MAX];

    fprintf(kt_stdout(), "\n");
    if (r->counters_note) {
        fprintf(kt_stdout(), "counters    none: %s\n", r->counters_note);
        return;
    }
    fprintf(kt_stdout(),
            "counters    %zu raw counters in %zu replay passes, %.3f s "
            "(launches of their own: inputs restored and L2 flushed before "
            "each; no time is taken from them)\n",
            set->num_raw, p->stats.passes, p->stats.total_s);
    if (p->stats.launches > 1)
        fprintf(kt_stdout(),
                "            %zu launches per pass: each counter is the "
                "median over them\n",
                p->stats.launches);
    print_ranges(p->stats.kernels);
    kt_metric_set_values(set, p->values, values, NULL);
    fprintf(kt_stdout(), "%-40s %18s  %s\n", "metric", "value", "unit");
    for (size_t k = 0; k < set->num_items; ++k) {
        const kt_metric_item *item = &set->items[k];
        char text[64];
        if (item->def && item->def->kind == KT_MK_STATIC)
            continue;
        format_value(values[k], item->def ? item->def->unit : NULL, text,
                     sizeof text);
        fprintf(kt_stdout(), "%-40s %18s  %s\n", item->name, text,
                item->def ? item->def->unit : "(raw counter)");
    }
}

static void print_diagnosis(const report *r)
{
    const kt_diagnosis *d = &r->diag;

    fprintf(kt_stdout(),
            "\nbandwidth   %.1f GB/s effective (GB = 1e9 B; the algorithm's "
            "bytes / median time)",
            d->derived.bandwidth_gbs);
    if (r->have_calib)
        fprintf(kt_stdout(),
                " = %.1f%% of the measured copy ceiling %.0f GB/s, %.1f%% of "
                "the theoretical %.0f GB/s\n",
                d->derived.pct_of_copy, r->calib->copy_gbs,
                d->derived.pct_of_peak, r->calib->peak_bw_gbs);
    else
        fprintf(kt_stdout(), "; no calibration, no ceiling\n");
    fprintf(kt_stdout(), "intensity   %s", d->roofline);
    if (d->balance > 0)
        fprintf(kt_stdout(),
                " (FP32 FMA ceiling %.0f GFLOP/s, %s, over the measured copy "
                "ceiling)",
                r->peak_gflops,
                r->gflops_measured ? "measured" : "theoretical");
    fprintf(kt_stdout(), "\n");
    fprintf(kt_stdout(), "diagnosis   %s%s%s%s: %s\n", kt_bound_name(d->bound),
            d->unit ? " (" : "", d->unit ? d->unit : "", d->unit ? ")" : "",
            d->why);
    fprintf(kt_stdout(), "coalescing  %s\n", d->coalescing);
    if (d->profiled[0])
        fprintf(kt_stdout(), "profiled    %s\n", d->profiled);
    if (d->l2_hit_note[0])
        fprintf(kt_stdout(), "l2 hits     %s\n", d->l2_hit_note);
}

static int write_json(const char *path, const profile_args *a, const report *r,
                      kt_evaluator *ev)
{
    json_t *sz = json_object(), *root, *env = ev->ops->environment(ev);
    const kt_work *work = ev->ops->work(ev);
    json_t *counters;
    int rc;

    for (uint32_t i = 0; i < r->op->num_sizes; ++i)
        json_object_set_new(sz, r->op->sizes[i].name,
                            json_integer(r->sizes[i]));
    kt_cli_env_host(env);
    json_object_set_new(env, "protocol", kt_env_protocol(&a->o.protocol));
    if (r->have_calib)
        json_object_set_new(env, "calibration", kt_calib_to_json(r->calib));
    if (r->counters_note)
        counters =
            json_pack("{s:b,s:s}", "collected", 0, "why", r->counters_note);
    else
        counters = json_pack("{s:b,s:s,s:o,s:o,s:o}", "collected", 1, "source",
                             "cupti", "metrics",
                             kt_metrics_json(r->set, r->prof->values), "raw",
                             kt_metrics_raw_json(r->set, r->prof->values),
                             "cost", kt_counter_stats_json(&r->prof->stats));
    root = json_pack(
        "{s:s,s:s,s:s,s:o,s:I,s:o,s:{s:f,s:f,s:f},s:o,s:o,s:o,s:o,s:o}", "kind",
        "ktune.profile", "plugin", a->spec, "operator", r->op->id, "sizes", sz,
        "seed", (json_int_t)a->o.seed, "environment", env, "work", "bytes_read",
        work->bytes_read, "bytes_written", work->bytes_written, "flops",
        work->flops, "result",
        kt_eval_result_to_json(r->op, r->pt, r->timed, 1), "kernel",
        kt_kernel_info_json(&r->prof->kernel, r->have_occ ? &r->occ : NULL),
        "counters", counters, "diagnosis", kt_diagnosis_json(&r->diag),
        "peak_gflops_fp32",
        r->peak_gflops > 0 ? json_real(r->peak_gflops) : json_null());
    json_object_set_new(root, "format", json_integer(1));
    rc = kt_out_json(root, path);
    json_decref(root);
    if (rc) {
        kt_msg("cannot write %s\n", path);
        return KT_EXIT_FAILURE;
    }
    return KT_EXIT_OK;
}

static double sm_clock_mhz(kt_evaluator *ev)
{
    json_t *env = ev->ops->environment(ev);
    double mhz = json_number_value(
        json_object_get(json_object_get(env, "device"), "sm_clock_mhz"));
    json_decref(env);
    return mhz;
}

/* Checks metric names against the device before anything is timed, so a
 * misspelt counter costs nothing. Returns 0 to go on (counters may have
 * been switched off, with *note saying why), or an exit code. */
static int check_counters(kt_evaluator *ev, const char **raw, size_t n,
                          int *counters, char *note, size_t note_size)
{
    kt_profile_request req = {raw, n, 1};
    kt_profile_result res;
    kt_err err;
    kt_status rc;

    kt_err_clear(&err);
    if (!ev->ops->profile) {
        snprintf(note, note_size, "this evaluator cannot profile");
        *counters = 0;
        return 0;
    }
    rc = ev->ops->profile(ev, NULL, &req, &res, &err);
    if (rc)
        return kt_cli_fail(&err);
    if (res.counters != KT_S_OK && res.counters != KT_S_UNSUPPORTED) {
        kt_msg("checking the metric names failed: %s\n", res.note);
        return kt_status_exit_code(res.counters);
    }
    if (res.counters != KT_S_OK) {
        snprintf(note, note_size, "%s", res.note);
        *counters = 0;
        kt_msg("%s; continuing without counters\n", res.note);
    }
    return 0;
}

/* What one run gathers, for the report and the record. */
typedef struct profile_run {
    kt_metric_set *set;
    const char *raw[KT_METRICS_RAW_MAX];
    size_t num_raw;
    char note[1024]; /* why there are no counters */
    kt_eval_result timed;
    kt_profile_result prof;
    kt_calibration calib;
    int have_calib;
    kt_point pt;
    kt_eval_spec spec;
} profile_run;

/* The counters asked for, resolved before any GPU work: a wrong name is
 * the user's mistake, found without a GPU. */
static kt_status resolve_metrics(profile_args *a, profile_run *run, kt_err *err)
{
    kt_err ignored;

    if (!a->o.counters) {
        kt_metrics_resolve(NULL, 0, 0, run->set, &ignored);
        snprintf(run->note, sizeof run->note, "not collected (--no-counters)");
        return KT_S_OK;
    }
    if (kt_metrics_resolve_list(a->metrics, a->defaults, run->set, err))
        return kt_err_prefix(err, "--metrics: ");
    run->num_raw = kt_metric_set_raw_names(run->set, run->raw);
    if (run->num_raw == 0) {
        a->o.counters = 0;
        snprintf(run->note, sizeof run->note,
                 "none requested (only static facts)");
    }
    return KT_S_OK;
}

/* The report's figures: occupancy, the FP32 peak and the diagnosis. */
static void gather(const profile_args *a, profile_run *run, kt_evaluator *ev,
                   const kt_loaded_plugin *plugin, report *r)
{
    double by_id[KT_M_COUNT];
    kt_diag_facts facts;
    kt_diag_point pt;
    kt_err oerr;

    memset(r, 0, sizeof *r);
    r->op = run->spec.op;
    r->plugin = plugin->desc.name;
    r->pt = &run->pt;
    r->sizes = run->spec.sizes;
    r->dev = ev->ops->device(ev);
    r->timed = &run->timed;
    r->prof = &run->prof;
    r->set = run->set;
    r->calib = &run->calib;
    r->protocol = &a->o.protocol;
    r->have_calib = run->have_calib;
    r->counters_note = run->prof.values ? NULL : run->note;
    kt_diag_facts_init(&facts, r->dev, ev->ops->work(ev));
    if (run->have_calib)
        kt_diag_facts_ceilings(&facts, run->calib.copy_gbs,
                               run->calib.peak_bw_gbs, run->calib.fp32_gflops,
                               sm_clock_mhz(ev));
    else
        kt_diag_facts_ceilings(&facts, 0, 0, 0, sm_clock_mhz(ev));
    facts.access_bytes = a->access_bytes;
    r->gflops_measured = facts.gflops_measured;
    r->peak_gflops = facts.peak_gflops;
    kt_metric_set_values(run->set, run->prof.values, NULL, by_id);
    pt.median_us = run->timed.timing.kernel.median;
    pt.kernel = &run->prof.kernel;
    pt.by_id = run->prof.values ? by_id : NULL;
    kt_err_clear(&oerr);
    r->have_occ = kt_diagnose_point(&facts, &pt, &r->diag, &r->occ, &oerr);
    if (!r->have_occ)
        snprintf(r->occ_note, sizeof r->occ_note, "%s", oerr.msg);
}

/* Times the point unprofiled under the normal protocol, then reads its
 * counters on launches of their own. 0 or an exit code. */
static int time_and_count(profile_args *a, profile_run *run, kt_evaluator *ev)
{
    kt_profile_request req;
    kt_err err;
    int rc;

    kt_err_clear(&err);
    if (a->o.counters &&
        (rc = check_counters(ev, run->raw, run->num_raw, &a->o.counters,
                             run->note, sizeof run->note)))
        return rc;
    run->have_calib = kt_cli_calibration(ev, &run->calib, 1);
    if (ev->ops->evaluate(ev, &run->pt, 1, &a->o.protocol, &run->timed, &err))
        return kt_cli_fail(&err);
    if (run->timed.status != KT_EVAL_OK)
        return kt_cli_eval_failed(&run->timed);
    memset(&req, 0, sizeof req);
    req.metrics = a->o.counters ? run->raw : NULL;
    req.num_metrics = a->o.counters ? run->num_raw : 0;
    req.launches = a->o.profile_launches;
    req.sweep_flush = a->o.protocol.profile_flush_sweep;
    if (ev->ops->profile(ev, &run->pt, &req, &run->prof, &err))
        return kt_cli_fail(&err);
    if (a->o.counters && run->prof.counters != KT_S_OK) {
        snprintf(run->note, sizeof run->note, "%s", run->prof.note);
        if (run->prof.counters == KT_S_UNSUPPORTED)
            kt_msg("%s; continuing without counters\n", run->prof.note);
    }
    return 0;
}

/* Measures, prints and writes --json. */
static int profile(profile_args *a, profile_run *run,
                   const kt_loaded_plugin *plugin, kt_evaluator *ev)
{
    report r;
    int rc;

    if ((rc = time_and_count(a, run, ev)))
        return rc;
    gather(a, run, ev, plugin, &r);
    print_header(&r, a->o.boundaries);
    print_kernel(&r);
    print_counters(&r);
    print_diagnosis(&r);
    rc = a->o.json ? write_json(a->o.json, a, &r, ev) : KT_EXIT_OK;
    /* Unavailable counters are a fact of the machine; a failed collection
     * is an error, reported after everything else that stands. */
    if (!rc && a->o.counters && run->prof.counters != KT_S_OK &&
        run->prof.counters != KT_S_UNSUPPORTED) {
        kt_msg("collecting counters failed: %s\n", run->prof.note);
        rc = kt_status_exit_code(run->prof.counters);
    }
    return rc;
}

int kt_cmd_profile(int argc, char **argv)
{
    profile_args a;
    kt_registry reg;
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_evaluator *ev = NULL;
    profile_run run;
    int64_t sizes[KT_MAX_SIZES];
    int rc;
    kt_err err;

    memset(&a, 0, sizeof a);
    memset(&run, 0, sizeof run);
    kt_err_clear(&err);
    kt_registry_init(&reg);
    if (!(run.set = calloc(1, sizeof *run.set))) {
        kt_err_set(&err, KT_S_NOMEM, "out of memory");
        rc = kt_cli_fail(&err);
        goto done;
    }
    if ((rc = parse_args(argc, argv, &a, &err))) {
        rc = rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
        goto done;
    }
    if (a.list) {
        list_metrics();
        goto done;
    }
    if (resolve_metrics(&a, &run, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    reg.isolated = !a.o.in_process; /* plugin code runs in the worker */
    kt_cli_load_plugins(&reg, a.o.plugins.items, a.o.plugins.count, 0);
    if (kt_cli_resolve_point(&reg, a.spec, &a.o, &plugin, &op, &run.pt, sizes,
                             &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    kt_cli_eval_spec(&a.o, plugin, op, sizes, &run.spec);
    run.spec.counters = a.o.counters ? kt_metrics_cupti_source() : NULL;
    if (kt_cli_open_evaluator(&a.o, &run.spec, &ev, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    rc = profile(&a, &run, plugin, ev);
done:
    kt_profile_result_free(&run.prof);
    kt_eval_result_free(&run.timed);
    if (ev)
        ev->ops->close(ev);
    kt_registry_free(&reg);
    free(run.set);
    kt_cli_options_free(&a.o);
    return rc;
}
