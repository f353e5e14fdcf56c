/* ktune compare: several variants of one operator, each at its tuned best
 * (from a results file), at a given configuration or at its defaults,
 * measured side by side in interleaved rounds; a Markdown report with
 * speed-ups against a reference variant (docs/compare.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "compare/compare.h"
#include "compare/compare_out.h"
#include "compare/compare_results.h"
#include "core/envrec.h"
#include "core/evaluator.h"
#include "core/instance.h"
#include "core/parse.h"
#include "core/worker.h"
#include "metrics/cupti/counters.h"
#include "tuner/replay.h"

static const char help[] =
    "usage: ktune compare PLUGIN:OPERATOR [--variants A,B,...]\n"
    "                     [--from RESULTS]... [--config VARIANT:NAME=VALUE,"
    "...]...\n"
    "                     [--reference VARIANT] [--size NAME=VALUE]...\n"
    "                     [--json FILE] [--csv FILE] [--no-counters] "
    "[options]\n\n"
    "Measures several variants of one operator side by side: each at its\n"
    "tuned best from a results file, at a given configuration, or at its\n"
    "defaults; all verified, then timed together in interleaved rounds (one\n"
    "sample of each per round) under identical conditions. Prints a\n"
    "Markdown report: per variant median, min, IQR/median, the 95% CI of\n"
    "the median, the speed-up against the reference variant with its 95%\n"
    "interval (paired per-round ratios), effective bandwidth and the share\n"
    "of the measured copy ceiling, and where counters can be read, sectors\n"
    "per request, achieved occupancy, DRAM utilisation and a diagnosis.\n\n"
    "  --variants A,B,...   the variants, in this order (default: those in\n"
    "                       the results files and --config, else all)\n"
    "  --from RESULTS       take each variant's best verified point from a\n"
    "                       tuner journal, a `ktune tune --json` summary or a\n"
    "                       `ktune compare --json` record (repeatable: the\n"
    "                       fastest recorded wins); sizes and seed default\n"
    "                       to the file's\n"
    "  --config V:N=X,...   measure variant V at these parameters (the rest\n"
    "                       at its defaults); overrides --from for V\n"
    "  --reference V        the variant speed-ups refer to (default: cublas,\n"
    "                       cub or memcpy when compared, else the first)\n"
    "  --size NAME=VALUE    a problem size, e.g. n=2^24 (repeatable)\n"
    "  --json FILE          the full record: environment, protocol, points,\n"
    "                       timings with raw samples, ratios, counters\n"
    "  --csv FILE           one row per variant\n"
    "  --no-counters        no hardware counters (no CUPTI)\n"
    "  --seed N             input seed (default: the results file's, else 1)\n"
    "  --device N           CUDA device ordinal (default 0)\n"
    "  --no-boundaries      verify at the requested size only\n"
    "  --in-process         measure in this process, not in a worker\n"
    "  --replay FILE        answer from a recorded tuner journal instead of a\n"
    "                       GPU (its sizes; the rounds were not interleaved)\n"
    "  --plugin FILE        load FILE too (repeatable)\n\n" KT_CLI_PROTOCOL_HELP
    "\nExit codes: 0 measured; 1 a variant failed verification or errored,\n"
    "the reference did not measure, counters failed, or no GPU; 2 bad\n"
    "input.\n";

typedef struct compare_args {
    const char *spec;
    const char *variants, *reference, *json_path, *csv_path, *replay;
    char **froms, **configs, **sizes, **plugins;
    size_t num_froms, num_configs, num_sizes, num_plugins;
    int64_t seed, device;
    int have_seed, boundaries, counters, in_process;
    kt_protocol protocol;
} compare_args;

static int parse_args(int argc, char **argv, compare_args *a, kt_err *err)
{
    static const struct option options[] = {
        {"variants", required_argument, NULL, 'V'},
        {"from", required_argument, NULL, 'f'},
        {"config", required_argument, NULL, 'c'},
        {"reference", required_argument, NULL, 'r'},
        {"size", required_argument, NULL, 'n'},
        {"json", required_argument, NULL, 'j'},
        {"csv", required_argument, NULL, 'v'},
        {"no-counters", no_argument, NULL, 'C'},
        {"seed", required_argument, NULL, 'S'},
        {"device", required_argument, NULL, 'd'},
        {"no-boundaries", no_argument, NULL, 'B'},
        {"in-process", no_argument, NULL, 'I'},
        {"replay", required_argument, NULL, 'R'},
        {"plugin", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        KT_CLI_PROTOCOL_OPTIONS,
        {NULL, 0, NULL, 0}};
    int opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'V':
            if (a->variants) {
                kt_err_set(err, KT_S_INPUT,
                           "compare: --variants given twice; list them "
                           "all in one, comma-separated");
                return KT_EXIT_USAGE;
            }
            a->variants = optarg;
            break;
        case 'f': a->froms[a->num_froms++] = optarg; break;
        case 'c': a->configs[a->num_configs++] = optarg; break;
        case 'r': a->reference = optarg; break;
        case 'n': a->sizes[a->num_sizes++] = optarg; break;
        case 'j': a->json_path = optarg; break;
        case 'v': a->csv_path = optarg; break;
        case 'C': a->counters = 0; break;
        case 'S':
            if (kt_parse_i64(optarg, "--seed", &a->seed, err))
                return KT_EXIT_USAGE;
            a->have_seed = 1;
            break;
        case 'd':
            if (kt_parse_i64(optarg, "--device", &a->device, err))
                return KT_EXIT_USAGE;
            break;
        case 'B': a->boundaries = 0; break;
        case 'I': a->in_process = 1; break;
        case 'R': a->replay = optarg; break;
        case 'p': a->plugins[a->num_plugins++] = optarg; break;
        case 'h': fputs(help, stdout); return -1;
        default:
            if (kt_cli_other_option("compare", opt, optarg, &a->protocol, err))
                return KT_EXIT_USAGE;
        }
    }
    if (kt_cli_operator_operand("compare", argc - optind, argv + optind,
                                &a->spec, err))
        return KT_EXIT_USAGE;
    if (a->replay && a->in_process) {
        kt_err_set(err, KT_S_INPUT,
                   "compare: --replay and --in-process exclude each other");
        return KT_EXIT_USAGE;
    }
    if (kt_protocol_validate(&a->protocol, err))
        return KT_EXIT_USAGE;
    return KT_EXIT_OK;
}

/* The chosen variants, in order, and their given configurations. */
typedef struct choice {
    uint32_t *variants;
    size_t count;
    kt_point *given; /* per variant of the operator */
    int *has_given;
} choice;

static int chosen(const choice *ch, uint32_t v)
{
    for (size_t i = 0; i < ch->count; ++i)
        if (ch->variants[i] == v)
            return 1;
    return 0;
}

/* --config VARIANT[:NAME=VALUE,...] */
static kt_status parse_config(const kt_operator *op, const char *arg,
                              choice *ch, kt_err *err)
{
    char buf[1024], *colon, **items = NULL;
    size_t index, count = 0;
    kt_point pt;
    kt_status rc;

    snprintf(buf, sizeof buf, "%s", arg);
    colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    if ((rc = kt_operator_find_variant(op, buf, &index, err)))
        return kt_err_prefix(err, "--config %s: ", arg);
    if (ch->has_given[index])
        return kt_err_set(err, KT_S_INPUT,
                          "--config %s: variant '%s' is configured twice; "
                          "one configuration per variant",
                          arg, op->variants[index].id);
    kt_point_default(op, (uint32_t)index, &pt);
    if (colon && colon[1]) {
        if ((rc = kt_parse_list(colon + 1, &items, &count, err)))
            return kt_err_prefix(err, "--config %s: ", arg);
        for (size_t i = 0; i < count && !rc; ++i) {
            char *name, *value;
            if ((rc = kt_parse_assignment(items[i], &name, &value, err)) ||
                (rc = kt_point_set(op, &pt, name, value, err)))
                kt_err_prefix(err, "--config %s: ", arg);
        }
        free(items);
        if (rc)
            return rc;
    }
    ch->given[index] = pt;
    ch->has_given[index] = 1;
    return KT_S_OK;
}

static kt_status choose_variants(const compare_args *a, const kt_operator *op,
                                 const kt_results *files, size_t num_files,
                                 choice *ch, kt_err *err)
{
    kt_status rc;

    for (size_t i = 0; i < a->num_configs; ++i)
        if ((rc = parse_config(op, a->configs[i], ch, err)))
            return rc;
    if (a->variants) {
        char **items = NULL;
        size_t count = 0;
        if ((rc = kt_parse_list(a->variants, &items, &count, err)))
            return kt_err_prefix(err, "--variants: ");
        for (size_t i = 0; i < count && !rc; ++i) {
            size_t index;
            if ((rc = kt_operator_find_variant(op, items[i], &index, err)))
                kt_err_prefix(err, "--variants: ");
            else if (chosen(ch, (uint32_t)index))
                rc = kt_err_set(err, KT_S_INPUT,
                                "--variants: '%s' is listed twice", items[i]);
            else
                ch->variants[ch->count++] = (uint32_t)index;
        }
        free(items);
        if (rc)
            return rc;
        if (ch->count == 0)
            return kt_err_set(err, KT_S_INPUT, "--variants: empty list");
        for (uint32_t v = 0; v < op->num_variants; ++v)
            if (ch->has_given[v] && !chosen(ch, v))
                return kt_err_set(err, KT_S_INPUT,
                                  "--config names variant '%s', which is not "
                                  "among --variants %s",
                                  op->variants[v].id, a->variants);
        return KT_S_OK;
    }
    /* In declaration order: with results files, the variants they hold and
     * those configured; without, all. */
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        kt_pick p;
        if (!num_files || ch->has_given[v] ||
            kt_results_best(files, num_files, v, &p))
            ch->variants[ch->count++] = v;
    }
    if (ch->count == 0)
        return kt_err_set(err, KT_S_INPUT,
                          "--from: the results files hold no verified point "
                          "of %s; name the variants with --variants",
                          a->spec);
    return KT_S_OK;
}

/* --reference, else cublas/cub/memcpy when compared, else the first. */
static kt_status choose_reference(const compare_args *a, const kt_operator *op,
                                  const choice *ch, size_t *out, kt_err *err)
{
    static const char *const libraries[] = {"cublas", "cub", "memcpy"};
    size_t index;
    kt_status rc;

    if (a->reference) {
        if ((rc = kt_operator_find_variant(op, a->reference, &index, err)))
            return kt_err_prefix(err, "--reference: ");
        for (size_t i = 0; i < ch->count; ++i)
            if (ch->variants[i] == index) {
                *out = i;
                return KT_S_OK;
            }
        return kt_err_set(err, KT_S_INPUT,
                          "--reference %s is not among the compared "
                          "variants; add it to --variants",
                          a->reference);
    }
    *out = 0;
    for (size_t k = 0; k < sizeof libraries / sizeof libraries[0]; ++k)
        for (size_t i = 0; i < ch->count; ++i)
            if (strcmp(op->variants[ch->variants[i]].id, libraries[k]) == 0) {
                *out = i;
                return KT_S_OK;
            }
    return KT_S_OK;
}

/* The command line as typed, quoted where a shell would need it. */
static void command_text(char *out, size_t size)
{
    int argc;
    char **argv;
    size_t used = 0;

    kt_cli_invocation(&argc, &argv);
    out[0] = '\0';
    for (int i = 0; i < argc && used + 1 < size; ++i) {
        const char *arg = argv[i];
        int quote = arg[0] == '\0' || strpbrk(arg, " \t\"'$*?&|;<>()\\`");
        used += (size_t)snprintf(out + used, size - used,
                                 quote ? "%s'%s'" : "%s%s", i ? " " : "", arg);
    }
}

static kt_status open_evaluator(const compare_args *a, kt_compare *c,
                                const kt_loaded_plugin *plugin,
                                kt_evaluator **ev, kt_err *err)
{
    kt_eval_spec spec;
    kt_status rc;

    if (a->replay) {
        const int64_t *rec;
        char want[256], got[256];
        if ((rc = kt_replay_open(a->replay, plugin, c->op, NULL, ev, err)))
            return rc;
        rec = kt_replay_sizes(*ev);
        kt_format_sizes(c->op, c->sizes, want, sizeof want);
        kt_format_sizes(c->op, rec, got, sizeof got);
        if (strcmp(want, got) != 0)
            kt_compare_note(c,
                            "replay: %s is recorded at %s; %s does not apply",
                            a->replay, got, want);
        memcpy(c->sizes, rec, c->op->num_sizes * sizeof *rec);
        c->seed = kt_replay_seed(*ev);
        /* The recording fixed the protocol; the record says which. */
        {
            json_t *env = (*ev)->ops->environment(*ev);
            kt_err perr;
            if (kt_protocol_from_json(json_object_get(env, "protocol"),
                                      &c->protocol, &perr) != KT_S_OK)
                kt_compare_note(c,
                                "replay: the recording names no protocol "
                                "(%s); the one shown is not what it used",
                                perr.msg);
            json_decref(env);
        }
        return KT_S_OK;
    }
    memset(&spec, 0, sizeof spec);
    spec.plugin = plugin;
    spec.op = c->op;
    memcpy(spec.sizes, c->sizes, sizeof spec.sizes);
    spec.seed = c->seed;
    spec.device = (int)a->device;
    spec.check_boundaries = a->boundaries;
    spec.log_level = KT_LOG_WARN;
    spec.counters = a->counters ? kt_metrics_cupti_source() : NULL;
    rc = a->in_process ? kt_local_open(&spec, ev, err)
                       : kt_worker_open(&spec, NULL, ev, err);
    if (rc == KT_S_NO_DEVICE) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        kt_err_set(err, KT_S_NO_DEVICE,
                   "%s; without a GPU, compare from a recorded journal: "
                   "ktune compare %s --from JOURNAL --replay JOURNAL",
                   msg, a->spec);
    }
    return rc;
}

/* Notes on what the results files say about the problem and the device. */
static void note_provenance(kt_compare *c, const kt_results *files,
                            size_t num_files, int sizes_given)
{
    char sizes[256], here[256];

    kt_format_sizes(c->op, c->sizes, here, sizeof here);
    for (size_t i = 0; i < num_files; ++i) {
        const kt_results *f = &files[i];
        int differ = 0;
        for (uint32_t k = 0; k < c->op->num_sizes; ++k)
            differ |= f->sizes[k] != c->sizes[k];
        if (differ) {
            kt_format_sizes(c->op, f->sizes, sizes, sizeof sizes);
            kt_compare_note(c,
                            "%s was measured at %s; its configurations are "
                            "compared at %s%s",
                            f->path, sizes, here,
                            sizes_given ? " (--size)" : "");
        }
        if (f->device[0] && strcmp(f->device, c->device) != 0)
            kt_compare_note(c, "%s was measured on %s; compared on %s", f->path,
                            f->device, c->device);
        if (f->note[0])
            kt_compare_note(c, "%s", f->note);
    }
}

int kt_cmd_compare(int argc, char **argv)
{
    compare_args a;
    kt_registry reg;
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_results *files = NULL;
    kt_evaluator *ev = NULL;
    kt_compare c;
    choice ch;
    size_t reference = 0;
    int have_compare = 0, rc;
    kt_err err;

    memset(&a, 0, sizeof a);
    memset(&ch, 0, sizeof ch);
    memset(&c, 0, sizeof c);
    kt_err_clear(&err);
    kt_registry_init(&reg);
    a.seed = 1;
    a.boundaries = 1;
    a.counters = 1;
    kt_protocol_defaults(&a.protocol);
    a.froms = calloc((size_t)argc + 1, sizeof *a.froms);
    a.configs = calloc((size_t)argc + 1, sizeof *a.configs);
    a.sizes = calloc((size_t)argc + 1, sizeof *a.sizes);
    a.plugins = calloc((size_t)argc + 1, sizeof *a.plugins);
    if (!a.froms || !a.configs || !a.sizes || !a.plugins) {
        kt_err_set(&err, KT_S_NOMEM, "out of memory");
        rc = kt_cli_fail(&err);
        goto done;
    }
    rc = parse_args(argc, argv, &a, &err);
    if (rc) {
        rc = rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
        goto done;
    }
    kt_cli_load_plugins(&reg, a.plugins, a.num_plugins, 0);
    if (kt_registry_resolve(&reg, a.spec, &plugin, &op, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    files = calloc(a.num_froms ? a.num_froms : 1, sizeof *files);
    ch.variants = calloc(op->num_variants, sizeof *ch.variants);
    ch.given = calloc(op->num_variants, sizeof *ch.given);
    ch.has_given = calloc(op->num_variants, sizeof *ch.has_given);
    if (!files || !ch.variants || !ch.given || !ch.has_given) {
        kt_err_set(&err, KT_S_NOMEM, "out of memory");
        rc = kt_cli_fail(&err);
        goto done;
    }
    for (size_t i = 0; i < a.num_froms; ++i)
        if (kt_results_load(a.froms[i], plugin->desc.name, op, &files[i],
                            &err)) {
            kt_err_prefix(&err, "--from: ");
            rc = kt_cli_fail(&err);
            goto done;
        }
    if (choose_variants(&a, op, files, a.num_froms, &ch, &err) ||
        choose_reference(&a, op, &ch, &reference, &err) ||
        kt_compare_init(&c, ch.count, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    have_compare = 1;
    c.spec = a.spec;
    c.plugin_name = plugin->desc.name;
    c.op = op;
    c.protocol = a.protocol;
    c.reference = reference;
    c.files = files;
    c.num_files = a.num_froms;
    c.counters = a.counters;
    command_text(c.command, sizeof c.command);
    /* The problem: the operator's defaults, the first results file's, then
     * --size; the seed likewise. */
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        c.sizes[i] =
            a.num_froms ? files[0].sizes[i] : op->sizes[i].default_value;
    c.seed = 1;
    for (size_t i = 0; i < a.num_froms; ++i)
        if (files[i].has_seed) {
            c.seed = files[i].seed;
            break;
        }
    if (a.have_seed)
        c.seed = (uint64_t)a.seed;
    if (kt_cli_apply_sizes(op, c.sizes, a.sizes, a.num_sizes, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    for (size_t i = 0; i < ch.count; ++i) {
        kt_compare_row *r = &c.rows[i];
        uint32_t v = ch.variants[i];
        if (ch.has_given[v]) {
            r->pick.found = 1;
            r->pick.kind = KT_PICK_CONFIG;
            r->pick.point = ch.given[v];
        } else if (!kt_results_best(files, a.num_froms, v, &r->pick)) {
            r->pick.kind = KT_PICK_DEFAULTS;
            kt_point_default(op, v, &r->pick.point);
        }
    }
    if (a.counters &&
        kt_metrics_resolve_list(NULL, 1, &c.set, &err) != KT_S_OK) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (open_evaluator(&a, &c, plugin, &ev, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    snprintf(c.device, sizeof c.device, "%s",
             ev->ops->device(ev)->name ? ev->ops->device(ev)->name : "");
    note_provenance(&c, files, a.num_froms, a.num_sizes > 0);
    if (kt_compare_run(&c, ev, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    {
        int full_argc;
        char **full_argv;
        kt_cli_invocation(&full_argc, &full_argv);
        json_object_set_new(c.environment, "host",
                            kt_env_host(full_argc, full_argv));
    }
    for (size_t i = 0; i < c.num_notes; ++i)
        fprintf(stderr, "ktune: note: %s\n", c.notes[i]);
    kt_compare_markdown(stdout, &c);
    fflush(stdout);
    if ((a.json_path && kt_compare_write_json(a.json_path, &c, &err)) ||
        (a.csv_path && kt_compare_write_csv(a.csv_path, &c, &err))) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    rc = KT_EXIT_OK;
    if (kt_compare_failed(&c)) {
        for (size_t i = 0; i < c.num_rows; ++i) {
            const kt_compare_row *r = &c.rows[i];
            if (r->result.status != KT_EVAL_OK)
                fprintf(stderr, "ktune: %s: %s: %s\n",
                        op->variants[r->pick.point.variant].id,
                        kt_eval_status_name(r->result.status),
                        r->result.reason);
            else if (r->profiled && r->counters != KT_S_OK &&
                     r->counters != KT_S_UNSUPPORTED)
                fprintf(stderr, "ktune: %s: collecting counters failed: %s\n",
                        op->variants[r->pick.point.variant].id,
                        r->counters_note);
        }
        rc = KT_EXIT_FAILURE;
    }
done:
    if (ev)
        ev->ops->close(ev);
    if (have_compare)
        kt_compare_free(&c);
    for (size_t i = 0; files && i < a.num_froms; ++i)
        kt_results_free(&files[i]);
    free(files);
    free(ch.variants);
    free(ch.given);
    free(ch.has_given);
    kt_registry_free(&reg);
    free(a.froms);
    free(a.configs);
    free(a.sizes);
    free(a.plugins);
    return rc;
}
