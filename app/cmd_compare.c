// SPDX-License-Identifier: Apache-2.0
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
#include "core/msg.h"
#include "core/parse.h"
#include "engine/instance.h"
#include "isolation/worker.h"
#include "metrics/cupti/counters.h"
#include "records/replay.h"

static const char help[] =
    "usage: ktune compare PLUGIN:OPERATOR [--variants A,B,...]\n"
    "                     [--from RESULTS]... [--config VARIANT:NAME=VALUE,"
    "...]...\n"
    "                     [--reference VARIANT] [--size NAME=VALUE]...\n"
    "                     [--json FILE] [--csv FILE] [--no-counters]\n"
    "                     [--profile-launches N] "
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
    "  --profile-launches N launches of each variant per replay pass (1-15,\n"
    "                       default 3): each counter the median over them\n"
    "  --access-bytes N     bytes each thread loads per access, for the ideal\n"
    "                       sectors per request (default: inferred)\n"
    "  --seed N             input seed (default: the results file's, else 1)\n"
    "  --device N           CUDA device ordinal (default 0)\n"
    "  --no-boundaries      verify at the requested size only\n"
    "  --in-process         measure in this process, not in a worker\n"
    "  --timeout S          seconds for a worker to set the problem up, and\n"
    "                       per point on top of --max-time (300 and 60)\n"
    "  --replay FILE        answer from a recorded tuner journal instead of a\n"
    "                       GPU (its sizes; the rounds were not interleaved)\n"
    "  --plugin FILE        load FILE too (repeatable)\n\n" KT_CLI_PROTOCOL_HELP
    "\nExit codes: 0 measured; 1 a variant failed verification or errored,\n"
    "the reference did not measure, counters failed, or no GPU; 2 bad\n"
    "input.\n";

typedef struct compare_args {
    kt_cli_options o;
    const char *spec;
    const char *variants, *reference;
    kt_cli_list froms, configs;
    int access_bytes;
} compare_args;

static kt_status own_option(void *ctx, int opt, char *arg, kt_err *err)
{
    compare_args *a = ctx;

    switch (opt) {
    case 'V':
        if (a->variants)
            return kt_err_set(err, KT_S_INPUT,
                              "compare: --variants given twice; list them "
                              "all in one, comma-separated");
        a->variants = arg;
        return KT_S_OK;
    case 'f': return kt_cli_list_push(&a->froms, arg, err);
    case 'c': return kt_cli_list_push(&a->configs, arg, err);
    case 'a': return kt_cli_access_bytes(arg, &a->access_bytes, err);
    default: a->reference = arg; return KT_S_OK; /* 'r' */
    }
}

static int parse_args(int argc, char **argv, compare_args *a, kt_err *err)
{
    static const struct option own[] = {
        {"variants", required_argument, NULL, 'V'},
        {"from", required_argument, NULL, 'f'},
        {"config", required_argument, NULL, 'c'},
        {"reference", required_argument, NULL, 'r'},
        {"access-bytes", required_argument, NULL, 'a'},
        {NULL, 0, NULL, 0}};
    const kt_cli_command cmd = {.name = "compare",
                                .help = help,
                                .shared = KT_OPT_MEASURING | KT_OPT_CSV |
                                          KT_OPT_COUNTERS | KT_OPT_IN_PROCESS |
                                          KT_OPT_REPLAY,
                                .own = own,
                                .apply = own_option,
                                .ctx = a};
    int rc;

    if ((rc = kt_cli_parse(argc, argv, &cmd, &a->o, err)))
        return rc;
    if (kt_cli_operator_operand("compare", &a->o, &a->spec, err))
        return KT_EXIT_USAGE;
    if (a->o.replay && a->o.in_process) {
        kt_err_set(err, KT_S_INPUT,
                   "compare: --replay and --in-process exclude each other");
        return KT_EXIT_USAGE;
    }
    if (kt_protocol_validate(&a->o.protocol, err))
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

    for (size_t i = 0; i < a->configs.count; ++i)
        if ((rc = parse_config(op, a->configs.items[i], ch, err)))
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

    if (a->o.replay) {
        const int64_t *rec;
        char want[256], got[256];
        if ((rc = kt_replay_open(a->o.replay, plugin, c->op, NULL, ev, err)))
            return rc;
        rec = kt_replay_sizes(*ev);
        kt_format_sizes(c->op, c->sizes, want, sizeof want);
        kt_format_sizes(c->op, rec, got, sizeof got);
        if (strcmp(want, got) != 0)
            kt_compare_note(c,
                            "replay: %s is recorded at %s; %s does not apply",
                            a->o.replay, got, want);
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
    kt_cli_eval_spec(&a->o, plugin, c->op, c->sizes, &spec);
    spec.seed = c->seed;
    spec.counters = a->o.counters ? kt_metrics_cupti_source() : NULL;
    rc = kt_cli_open_evaluator(&a->o, &spec, ev, err);
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

/* The chosen variants and their given configurations, one slot per
 * variant of op; freed with choice_free. */
static kt_status choice_alloc(choice *ch, const kt_operator *op, kt_err *err)
{
    memset(ch, 0, sizeof *ch);
    ch->variants = calloc(op->num_variants, sizeof *ch->variants);
    ch->given = calloc(op->num_variants, sizeof *ch->given);
    ch->has_given = calloc(op->num_variants, sizeof *ch->has_given);
    if (!ch->variants || !ch->given || !ch->has_given)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    return KT_S_OK;
}

static void choice_free(choice *ch)
{
    free(ch->variants);
    free(ch->given);
    free(ch->has_given);
}

/* Every --from file, into files (a.froms.count of them). */
static kt_status load_results(const compare_args *a,
                              const kt_loaded_plugin *plugin,
                              const kt_operator *op, kt_results *files,
                              kt_err *err)
{
    for (size_t i = 0; i < a->froms.count; ++i)
        if (kt_results_load(a->froms.items[i], plugin->desc.name, op, &files[i],
                            err))
            return kt_err_prefix(err, "--from: ");
    return KT_S_OK;
}

/* The problem and each row's point: the operator's defaults, the first
 * results file's, then --size; the seed likewise; each variant at its
 * --config, its best recorded point, or its defaults. */
static kt_status set_problem(const compare_args *a, kt_compare *c,
                             const choice *ch, const kt_results *files,
                             kt_err *err)
{
    const kt_operator *op = c->op;
    size_t num_files = a->froms.count;

    for (uint32_t i = 0; i < op->num_sizes; ++i)
        c->sizes[i] =
            num_files ? files[0].sizes[i] : op->sizes[i].default_value;
    c->seed = 1;
    for (size_t i = 0; i < num_files; ++i)
        if (files[i].has_seed) {
            c->seed = files[i].seed;
            break;
        }
    if (a->o.have_seed)
        c->seed = (uint64_t)a->o.seed;
    if (kt_cli_apply_sizes(op, c->sizes, a->o.sizes.items, a->o.sizes.count,
                           err))
        return err->status;
    for (size_t i = 0; i < ch->count; ++i) {
        kt_compare_row *r = &c->rows[i];
        uint32_t v = ch->variants[i];
        if (ch->has_given[v]) {
            r->pick.found = 1;
            r->pick.kind = KT_PICK_CONFIG;
            r->pick.point = ch->given[v];
        } else if (!kt_results_best(files, num_files, v, &r->pick)) {
            r->pick.kind = KT_PICK_DEFAULTS;
            kt_point_default(op, v, &r->pick.point);
        }
    }
    if (a->o.counters)
        return kt_metrics_resolve_list(NULL, 1, &c->set, err);
    return KT_S_OK;
}

/* What failed, one line per row. */
static void print_failures(const kt_compare *c)
{
    for (size_t i = 0; i < c->num_rows; ++i) {
        const kt_compare_row *r = &c->rows[i];
        const char *id = c->op->variants[r->pick.point.variant].id;
        if (r->result.status != KT_EVAL_OK)
            kt_msg("%s: %s: %s\n", id, kt_eval_status_name(r->result.status),
                   r->result.reason);
        else if (r->profiled && r->counters != KT_S_OK &&
                 r->counters != KT_S_UNSUPPORTED)
            kt_msg("%s: collecting counters failed: %s\n", id,
                   r->counters_note);
    }
}

/* Opens the evaluator, measures, prints the report, writes --json and
 * --csv. An exit code. */
static int measure(const compare_args *a, kt_compare *c,
                   const kt_loaded_plugin *plugin)
{
    kt_evaluator *ev = NULL;
    const char *device;
    int rc = KT_EXIT_OK;
    kt_err err;

    kt_err_clear(&err);
    if (open_evaluator(a, c, plugin, &ev, &err))
        return kt_cli_fail(&err);
    device = ev->ops->device(ev)->name;
    snprintf(c->device, sizeof c->device, "%s", device ? device : "");
    note_provenance(c, c->files, c->num_files, a->o.sizes.count > 0);
    if (kt_compare_run(c, ev, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    kt_cli_env_host(c->environment);
    for (size_t i = 0; i < c->num_notes; ++i)
        kt_msg("note: %s\n", c->notes[i]);
    kt_compare_markdown(stdout, c);
    fflush(stdout);
    if ((a->o.json && kt_compare_write_json(a->o.json, c, &err)) ||
        (a->o.csv && kt_compare_write_csv(a->o.csv, c, &err))) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (kt_compare_failed(c)) {
        print_failures(c);
        rc = KT_EXIT_FAILURE;
    }
done:
    ev->ops->close(ev);
    return rc;
}

int kt_cmd_compare(int argc, char **argv)
{
    compare_args a;
    kt_registry reg;
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_results *files = NULL;
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
    if ((rc = parse_args(argc, argv, &a, &err))) {
        rc = rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
        goto done;
    }
    reg.isolated = !a.o.in_process; /* plugin code runs in workers */
    kt_cli_load_plugins(&reg, a.o.plugins.items, a.o.plugins.count, 0);
    if (kt_registry_resolve(&reg, a.spec, &plugin, &op, &err) ||
        !(files = calloc(a.froms.count ? a.froms.count : 1, sizeof *files)) ||
        choice_alloc(&ch, op, &err) ||
        load_results(&a, plugin, op, files, &err) ||
        choose_variants(&a, op, files, a.froms.count, &ch, &err) ||
        choose_reference(&a, op, &ch, &reference, &err) ||
        kt_compare_init(&c, ch.count, &err)) {
        if (!err.status)
            kt_err_set(&err, KT_S_NOMEM, "out of memory");
        rc = kt_cli_fail(&err);
        goto done;
    }
    have_compare = 1;
    c.spec = a.spec;
    c.plugin_name = plugin->desc.name;
    c.plugin = plugin;
    c.op = op;
    c.protocol = a.o.protocol;
    c.access_bytes = a.access_bytes;
    c.protocol.energy = 1; /* where NVML answers; a replay's is recorded */
    c.reference = reference;
    c.files = files;
    c.num_files = a.froms.count;
    c.counters = a.o.counters;
    c.profile_launches = a.o.profile_launches;
    command_text(c.command, sizeof c.command);
    if (set_problem(&a, &c, &ch, files, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    rc = measure(&a, &c, plugin);
done:
    if (have_compare)
        kt_compare_free(&c);
    for (size_t i = 0; files && i < a.froms.count; ++i)
        kt_results_free(&files[i]);
    free(files);
    choice_free(&ch);
    kt_registry_free(&reg);
    kt_cli_list_free(&a.froms);
    kt_cli_list_free(&a.configs);
    kt_cli_options_free(&a.o);
    return rc;
}
