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
#include "core/instance.h"
#include "core/parse.h"
#include "core/result_json.h"
#include "metrics/cupti/counters.h"
#include "metrics/diagnose.h"
#include "metrics/occupancy.h"
#include "metrics/record.h"
#include "metrics/resolve.h"

static const char help[] =
    "usage: ktune profile PLUGIN:OPERATOR [--variant V] [--set NAME=VALUE]...\n"
    "                     [--size NAME=VALUE]... [--metrics A,B,...]\n"
    "                     [--no-counters] [--json FILE] [options]\n"
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
    "  --access-bytes N     bytes each thread loads per access, for the ideal\n"
    "                       sectors per request (default: inferred)\n"
    "  --list-metrics       print the metric catalog and exit\n"
    "  --seed N             input seed (default 1)\n"
    "  --device N           CUDA device ordinal (default 0)\n"
    "  --no-boundaries      verify at the requested size only\n"
    "  --json FILE          write the full record to FILE\n"
    "  --plugin FILE        load FILE too "
    "(repeatable)\n\n" KT_CLI_PROTOCOL_HELP;

typedef struct profile_args {
    const char *spec;
    const char *variant;
    char **sets, **sizes, **plugins;
    size_t num_sets, num_sizes, num_plugins;
    const char *json_path;
    const char *metrics;
    int64_t seed, device, access_bytes;
    int boundaries, counters, defaults, list;
    kt_protocol protocol;
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

static int parse_args(int argc, char **argv, profile_args *a, kt_err *err)
{
    static const struct option options[] = {
        {"variant", required_argument, NULL, 'v'},
        {"set", required_argument, NULL, 's'},
        {"size", required_argument, NULL, 'n'},
        {"metrics", required_argument, NULL, 'm'},
        {"no-default-metrics", no_argument, NULL, 'D'},
        {"no-counters", no_argument, NULL, 'C'},
        {"access-bytes", required_argument, NULL, 'a'},
        {"list-metrics", no_argument, NULL, 'L'},
        {"seed", required_argument, NULL, 'S'},
        {"device", required_argument, NULL, 'd'},
        {"no-boundaries", no_argument, NULL, 'B'},
        {"json", required_argument, NULL, 'j'},
        {"plugin", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        KT_CLI_PROTOCOL_OPTIONS,
        {NULL, 0, NULL, 0}};
    int opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'v': a->variant = optarg; break;
        case 's': a->sets[a->num_sets++] = optarg; break;
        case 'n': a->sizes[a->num_sizes++] = optarg; break;
        case 'm': a->metrics = optarg; break;
        case 'D': a->defaults = 0; break;
        case 'C': a->counters = 0; break;
        case 'a':
            if (kt_parse_i64(optarg, "--access-bytes", &a->access_bytes, err))
                return KT_EXIT_USAGE;
            if (a->access_bytes < 1 || a->access_bytes > 256) {
                kt_err_set(err, KT_S_INPUT,
                           "--access-bytes: expected 1..256, found %s", optarg);
                return KT_EXIT_USAGE;
            }
            break;
        case 'L': a->list = 1; break;
        case 'S':
            if (kt_parse_i64(optarg, "--seed", &a->seed, err))
                return KT_EXIT_USAGE;
            break;
        case 'd':
            if (kt_parse_i64(optarg, "--device", &a->device, err))
                return KT_EXIT_USAGE;
            break;
        case 'B': a->boundaries = 0; break;
        case 'j': a->json_path = optarg; break;
        case 'p': a->plugins[a->num_plugins++] = optarg; break;
        case 'h': fputs(help, stdout); return -1;
        default:
            if (kt_cli_other_option("profile", opt, optarg, &a->protocol, err))
                return KT_EXIT_USAGE;
        }
    }
    if (a->list)
        return optind == argc ? KT_EXIT_OK
                              : (kt_err_set(err, KT_S_INPUT,
                                            "profile: --list-metrics takes no "
                                            "PLUGIN:OPERATOR"),
                                 KT_EXIT_USAGE);
    if (kt_cli_operator_operand("profile", argc - optind, argv + optind,
                                &a->spec, err))
        return KT_EXIT_USAGE;
    if (!a->counters && (a->metrics || !a->defaults)) {
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
    if (kt_protocol_validate(&a->protocol, err))
        return KT_EXIT_USAGE;
    return KT_EXIT_OK;
}

static void list_metrics(void)
{
    size_t count;
    const kt_metric_def *cat = kt_metric_catalog(&count);

    printf("Metric catalog (default set marked *; static ones need no "
           "counters):\n\n");
    for (size_t i = 0; i < count; ++i) {
        const kt_metric_def *d = &cat[i];
        printf("%c %-32s %-16s %s\n", d->in_default ? '*' : ' ', d->name,
               d->unit, d->description);
        if (d->kind == KT_MK_STATIC)
            printf("  %-32s %-16s from the kernel's attributes and the "
                   "occupancy arithmetic\n",
                   "", "");
        else if (d->formula == KT_MF_VALUE)
            printf("  %-32s %-16s = %s\n", "", "", d->raw[0]);
        else
            printf("  %-32s %-16s = %s%s\n  %-32s %-16s   / %s\n", "", "",
                   d->formula == KT_MF_PERCENT ? "100 * " : "", d->raw[0], "",
                   "", d->raw[1]);
    }
    printf("\nAny other counter can be named raw, UNIT__COUNTER.ROLLUP[.SUB], "
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
    printf("%s:%s  %s  %s  on %s\n", r->plugin, r->op->id, shown, sz,
           r->dev->name);
    printf("launch      grid (%u, %u, %u)  block (%u, %u, %u)  dynamic smem "
           "%u B\n",
           s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1],
           s->block[2], s->dynamic_smem_bytes);
    printf("verified    %s%s: outputs poisoned, every element compared\n", sz,
           boundaries ? " and boundary sizes" : "");
    printf("time        median %.3f us, min %.3f, IQR/median %.2f%%, %zu "
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

    printf("\n");
    if (!k->available) {
        printf("kernel      no attributes: the plugin names no kernel in "
               "kt_shape.kernel\n");
        return;
    }
    printf("kernel      %d registers/thread; shared memory %zu B/block "
           "(static %zu + dynamic %zu; the driver reserves %d more); local "
           "%zu B/thread%s\n",
           k->num_regs, k->static_smem_bytes + k->dynamic_smem_bytes,
           k->static_smem_bytes, k->dynamic_smem_bytes,
           k->reserved_smem_per_block, k->local_bytes_per_thread,
           k->local_bytes_per_thread ? " (spills or local arrays)"
                                     : " (no spills)");
    if (!r->have_occ) {
        printf("occupancy   %s; occupancy API: %d blocks/SM\n", r->occ_note,
               k->api_blocks_per_sm);
        return;
    }
    kt_occ_format_limiters(r->occ.limiters, limiters, sizeof limiters);
    printf("occupancy   theoretical %.1f%%: %d blocks x %d warps = %d of %d "
           "warps per SM, limited by %s\n",
           r->occ.theoretical, r->occ.blocks_per_sm, r->occ.warps_per_block,
           r->occ.active_warps, r->occ.max_warps_per_sm, limiters);
    limit_text(r->occ.by_registers, regs, sizeof regs);
    limit_text(r->occ.by_shared, smem, sizeof smem);
    printf("            blocks/SM allowed by warps %d, registers %s, shared "
           "memory %s, block limit %d; occupancy API %d%s\n",
           r->occ.by_warps, regs, smem, r->occ.by_blocks, k->api_blocks_per_sm,
           k->api_blocks_per_sm == r->occ.blocks_per_sm ? " (agrees)"
                                                        : " (DISAGREES: the "
                                                          "API is right)");
}

static void print_counters(const report *r)
{
    const kt_profile_result *p = r->prof;
    const kt_metric_set *set = r->set;
    double values[KT_METRICS_MAX];

    printf("\n");
    if (r->counters_note) {
        printf("counters    none: %s\n", r->counters_note);
        return;
    }
    printf("counters    %zu raw counters in %zu replay passes, %.3f s "
           "(launches of their own: inputs restored and L2 flushed before "
           "each; no time is taken from them)\n",
           set->num_raw, p->stats.passes, p->stats.total_s);
    if (p->stats.kernels == 1)
        printf("            the kernel profiled as a range of its own: "
               "percentages of peak over its elapsed cycles, as Nsight "
               "Compute's\n");
    else if (p->stats.kernels > 1)
        printf("            %zu kernels, each profiled as a range of its own: "
               "counts summed, percentages weighted by each kernel's "
               "duration (Nsight Compute shows each kernel apart)\n",
               p->stats.kernels);
    else
        printf(
            "            ranges not per kernel (KTUNE_CUPTI_RANGE=launch): one "
            "range holds the launch and its synchronisation, so "
            "percentages of peak read low against Nsight Compute's\n");
    kt_metric_set_values(set, p->values, values, NULL);
    printf("%-40s %18s  %s\n", "metric", "value", "unit");
    for (size_t k = 0; k < set->num_items; ++k) {
        const kt_metric_item *item = &set->items[k];
        char text[64];
        if (item->def && item->def->kind == KT_MK_STATIC)
            continue;
        format_value(values[k], item->def ? item->def->unit : NULL, text,
                     sizeof text);
        printf("%-40s %18s  %s\n", item->name, text,
               item->def ? item->def->unit : "(raw counter)");
    }
}

static void print_diagnosis(const report *r)
{
    const kt_diagnosis *d = &r->diag;

    printf("\nbandwidth   %.1f GB/s effective (GB = 1e9 B; the algorithm's "
           "bytes / median time)",
           d->derived.bandwidth_gbs);
    if (r->have_calib)
        printf(" = %.1f%% of the measured copy ceiling %.0f GB/s, %.1f%% of "
               "the theoretical %.0f GB/s\n",
               d->derived.pct_of_copy, r->calib->copy_gbs,
               d->derived.pct_of_peak, r->calib->peak_bw_gbs);
    else
        printf("; no calibration, no ceiling\n");
    printf("intensity   %s", d->roofline);
    if (d->balance > 0)
        printf(" (FP32 FMA ceiling %.0f GFLOP/s, %s, over the measured copy "
               "ceiling)",
               r->peak_gflops, r->gflops_measured ? "measured" : "theoretical");
    printf("\n");
    printf("diagnosis   %s%s%s%s: %s\n", kt_bound_name(d->bound),
           d->unit ? " (" : "", d->unit ? d->unit : "", d->unit ? ")" : "",
           d->why);
    printf("coalescing  %s\n", d->coalescing);
}

static int write_json(const char *path, const profile_args *a, const report *r,
                      kt_evaluator *ev)
{
    json_t *sz = json_object(), *root, *env = ev->ops->environment(ev);
    const kt_work *work = ev->ops->work(ev);
    json_t *counters;
    int argc, rc;
    char **argv;

    for (uint32_t i = 0; i < r->op->num_sizes; ++i)
        json_object_set_new(sz, r->op->sizes[i].name,
                            json_integer(r->sizes[i]));
    kt_cli_invocation(&argc, &argv);
    json_object_set_new(env, "host", kt_env_host(argc, argv));
    json_object_set_new(env, "protocol", kt_env_protocol(&a->protocol));
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
        "seed", (json_int_t)a->seed, "environment", env, "work", "bytes_read",
        work->bytes_read, "bytes_written", work->bytes_written, "flops",
        work->flops, "result",
        kt_eval_result_to_json(r->op, r->pt, r->timed, 1), "kernel",
        kt_kernel_info_json(&r->prof->kernel, r->have_occ ? &r->occ : NULL),
        "counters", counters, "diagnosis", kt_diagnosis_json(&r->diag),
        "peak_gflops_fp32",
        r->peak_gflops > 0 ? json_real(r->peak_gflops) : json_null());
    rc = json_dump_file(root, path, JSON_INDENT(2));
    json_decref(root);
    if (rc) {
        fprintf(stderr, "ktune: cannot write %s\n", path);
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
        fprintf(stderr, "ktune: checking the metric names failed: %s\n",
                res.note);
        return kt_status_exit_code(res.counters);
    }
    if (res.counters != KT_S_OK) {
        snprintf(note, note_size, "%s", res.note);
        *counters = 0;
        fprintf(stderr, "ktune: %s; continuing without counters\n", res.note);
    }
    return 0;
}

int kt_cmd_profile(int argc, char **argv)
{
    profile_args a;
    kt_registry reg;
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_evaluator *ev = NULL;
    kt_eval_spec spec;
    kt_eval_result timed;
    kt_profile_result prof;
    kt_profile_request req;
    kt_calibration calib;
    kt_metric_set *set = NULL;
    const char *raw[KT_METRICS_RAW_MAX];
    double by_id[KT_M_COUNT];
    char note[1024] = "";
    kt_diag_input din;
    report r;
    kt_point pt;
    size_t num_raw = 0;
    int have_calib = 0, rc;
    kt_err err;

    memset(&a, 0, sizeof a);
    memset(&timed, 0, sizeof timed);
    memset(&prof, 0, sizeof prof);
    memset(&r, 0, sizeof r);
    kt_err_clear(&err);
    kt_registry_init(&reg);
    a.seed = 1;
    a.boundaries = 1;
    a.counters = 1;
    a.defaults = 1;
    kt_protocol_defaults(&a.protocol);
    a.sets = calloc((size_t)argc + 1, sizeof *a.sets);
    a.sizes = calloc((size_t)argc + 1, sizeof *a.sizes);
    a.plugins = calloc((size_t)argc + 1, sizeof *a.plugins);
    set = calloc(1, sizeof *set);
    if (!a.sets || !a.sizes || !a.plugins || !set) {
        kt_err_set(&err, KT_S_NOMEM, "out of memory");
        rc = kt_cli_fail(&err);
        goto done;
    }
    rc = parse_args(argc, argv, &a, &err);
    if (rc) {
        rc = rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
        goto done;
    }
    if (a.list) {
        list_metrics();
        goto done;
    }
    /* Names first: a wrong one is the user's mistake, found without a GPU. */
    if (a.counters) {
        if (kt_metrics_resolve_list(a.metrics, a.defaults, set, &err)) {
            kt_err_prefix(&err, "--metrics: ");
            rc = kt_cli_fail(&err);
            goto done;
        }
        num_raw = kt_metric_set_raw_names(set, raw);
        if (num_raw == 0) {
            a.counters = 0;
            snprintf(note, sizeof note, "none requested (only static facts)");
        }
    } else {
        kt_metrics_resolve(NULL, 0, 0, set, &err);
        snprintf(note, sizeof note, "not collected (--no-counters)");
    }
    kt_cli_load_plugins(&reg, a.plugins, a.num_plugins, 0);
    memset(&spec, 0, sizeof spec);
    if (kt_cli_resolve_point(&reg, a.spec, a.variant, a.sets, a.num_sets,
                             a.sizes, a.num_sizes, &plugin, &op, &pt,
                             spec.sizes, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    spec.plugin = plugin;
    spec.op = op;
    spec.seed = (uint64_t)a.seed;
    spec.device = (int)a.device;
    spec.check_boundaries = a.boundaries;
    spec.log_level = KT_LOG_WARN;
    spec.counters = a.counters ? kt_metrics_cupti_source() : NULL;
    if (kt_local_open(&spec, &ev, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (a.counters &&
        (rc = check_counters(ev, raw, num_raw, &a.counters, note, sizeof note)))
        goto done;
    if (ev->ops->calibration(ev, 0, &calib, &err) == KT_S_OK)
        have_calib = 1;
    else
        fprintf(stderr,
                "ktune: warning: no calibration, so no %% of the copy "
                "ceiling: %s\n",
                err.msg);

    /* Time first, unprofiled, under the normal protocol. */
    if (ev->ops->evaluate(ev, &pt, 1, &a.protocol, &timed, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (timed.status != KT_EVAL_OK) {
        fprintf(stderr, "ktune: %s: %s\n", kt_eval_status_name(timed.status),
                timed.reason);
        rc = timed.status == KT_EVAL_INVALID ? KT_EXIT_USAGE : KT_EXIT_FAILURE;
        goto done;
    }
    /* Then the counters, on launches of their own. */
    memset(&req, 0, sizeof req);
    req.metrics = a.counters ? raw : NULL;
    req.num_metrics = a.counters ? num_raw : 0;
    if (ev->ops->profile(ev, &pt, &req, &prof, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (a.counters && prof.counters != KT_S_OK) {
        snprintf(note, sizeof note, "%s", prof.note);
        if (prof.counters == KT_S_UNSUPPORTED)
            fprintf(stderr, "ktune: %s; continuing without counters\n",
                    prof.note);
    }

    r.op = op;
    r.plugin = plugin->desc.name;
    r.pt = &pt;
    r.sizes = spec.sizes;
    r.dev = ev->ops->device(ev);
    r.timed = &timed;
    r.prof = &prof;
    r.set = set;
    r.calib = &calib;
    r.protocol = &a.protocol;
    r.have_calib = have_calib;
    r.counters_note = prof.values ? NULL : note;
    {
        kt_err oerr;
        r.have_occ = kt_occupancy_of_kernel(r.dev, &prof.kernel, &r.occ,
                                            &oerr) == KT_S_OK;
        if (!r.have_occ)
            snprintf(r.occ_note, sizeof r.occ_note, "%s", oerr.msg);
    }
    r.gflops_measured = have_calib && calib.fp32_gflops > 0;
    r.peak_gflops = r.gflops_measured
                        ? calib.fp32_gflops
                        : kt_peak_gflops_fp32(r.dev, sm_clock_mhz(ev));
    kt_metric_set_values(set, prof.values, NULL, by_id);
    memset(&din, 0, sizeof din);
    din.work = *ev->ops->work(ev);
    din.time_us = timed.timing.kernel.median;
    din.copy_gbs = have_calib ? calib.copy_gbs : 0;
    din.peak_bw_gbs = have_calib ? calib.peak_bw_gbs : 0;
    din.peak_gflops = r.peak_gflops;
    din.m = prof.values ? by_id : NULL;
    din.theoretical_occupancy = r.have_occ ? r.occ.theoretical : -1;
    din.access_bytes = (int)a.access_bytes;
    din.warp_size = r.dev->warp_size;
    din.gflops_measured = r.gflops_measured;
    kt_diagnose(&din, &r.diag);

    print_header(&r, a.boundaries);
    print_kernel(&r);
    print_counters(&r);
    print_diagnosis(&r);
    rc = a.json_path ? write_json(a.json_path, &a, &r, ev) : KT_EXIT_OK;
    /* Unavailable counters are a fact of the machine; a failed collection
     * is an error, reported after everything else that stands. */
    if (!rc && a.counters && prof.counters != KT_S_OK &&
        prof.counters != KT_S_UNSUPPORTED) {
        fprintf(stderr, "ktune: collecting counters failed: %s\n", prof.note);
        rc = kt_status_exit_code(prof.counters);
    }
done:
    kt_profile_result_free(&prof);
    kt_eval_result_free(&timed);
    if (ev)
        ev->ops->close(ev);
    kt_registry_free(&reg);
    free(set);
    free(a.sets);
    free(a.sizes);
    free(a.plugins);
    return rc;
}
