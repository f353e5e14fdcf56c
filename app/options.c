// SPDX-License-Identifier: Apache-2.0
#include "app/options.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/envcheck.h"
#include "core/fileio.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "core/runctx.h"

kt_status kt_cli_list_push(kt_cli_list *list, char *item, kt_err *err)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? 2 * list->capacity : 8;
        char **grown = realloc(list->items, cap * sizeof *grown);
        if (!grown)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        list->items = grown;
        list->capacity = cap;
    }
    list->items[list->count++] = item;
    return KT_S_OK;
}

kt_status kt_cli_access_bytes(const char *arg, int *out, kt_err *err)
{
    int64_t v;
    kt_status rc = kt_parse_i64(arg, "--access-bytes", &v, err);
    if (rc)
        return rc;
    if (v < 1 || v > 256)
        return kt_err_set(err, KT_S_INPUT,
                          "--access-bytes: expected 1..256, found %s", arg);
    *out = (int)v;
    return KT_S_OK;
}

void kt_cli_list_free(kt_cli_list *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* Shared option values: the protocol's 1000..1009 (as they always were),
 * the rest from 1100. */
enum {
    OPT_WARMUPS = 1000,
    OPT_MIN_SAMPLES,
    OPT_MAX_SAMPLES,
    OPT_MIN_TIME,
    OPT_MAX_TIME,
    OPT_NOISE,
    OPT_CACHE,
    OPT_BATCH,
    OPT_END_TO_END,
    OPT_NO_PROBE,
    OPT_VARIANT = 1100,
    OPT_SET,
    OPT_SIZE,
    OPT_SEED,
    OPT_DEVICE,
    OPT_NO_BOUNDARIES,
    OPT_JSON,
    OPT_CSV,
    OPT_PLUGIN,
    OPT_NO_COUNTERS,
    OPT_PROFILE_LAUNCHES,
    OPT_IN_PROCESS,
    OPT_REPLAY,
    OPT_TIMEOUT,
    OPT_HELP
};

typedef struct shared_option {
    unsigned group;
    struct option opt;
} shared_option;

static const shared_option shared[] = {
    {KT_OPT_VARIANT, {"variant", required_argument, NULL, OPT_VARIANT}},
    {KT_OPT_SET, {"set", required_argument, NULL, OPT_SET}},
    {KT_OPT_SIZE, {"size", required_argument, NULL, OPT_SIZE}},
    {KT_OPT_SEED, {"seed", required_argument, NULL, OPT_SEED}},
    {KT_OPT_DEVICE, {"device", required_argument, NULL, OPT_DEVICE}},
    {KT_OPT_BOUNDARIES,
     {"no-boundaries", no_argument, NULL, OPT_NO_BOUNDARIES}},
    {KT_OPT_JSON, {"json", required_argument, NULL, OPT_JSON}},
    {KT_OPT_CSV, {"csv", required_argument, NULL, OPT_CSV}},
    {KT_OPT_PLUGIN, {"plugin", required_argument, NULL, OPT_PLUGIN}},
    {KT_OPT_COUNTERS, {"no-counters", no_argument, NULL, OPT_NO_COUNTERS}},
    {KT_OPT_COUNTERS,
     {"profile-launches", required_argument, NULL, OPT_PROFILE_LAUNCHES}},
    {KT_OPT_IN_PROCESS, {"in-process", no_argument, NULL, OPT_IN_PROCESS}},
    {KT_OPT_REPLAY, {"replay", required_argument, NULL, OPT_REPLAY}},
    {KT_OPT_TIMEOUT, {"timeout", required_argument, NULL, OPT_TIMEOUT}},
    {KT_OPT_PROTOCOL, {"warmups", required_argument, NULL, OPT_WARMUPS}},
    {KT_OPT_PROTOCOL,
     {"min-samples", required_argument, NULL, OPT_MIN_SAMPLES}},
    {KT_OPT_PROTOCOL,
     {"max-samples", required_argument, NULL, OPT_MAX_SAMPLES}},
    {KT_OPT_PROTOCOL, {"min-time", required_argument, NULL, OPT_MIN_TIME}},
    {KT_OPT_PROTOCOL, {"max-time", required_argument, NULL, OPT_MAX_TIME}},
    {KT_OPT_PROTOCOL, {"noise", required_argument, NULL, OPT_NOISE}},
    {KT_OPT_PROTOCOL, {"cache", required_argument, NULL, OPT_CACHE}},
    {KT_OPT_PROTOCOL, {"batch", required_argument, NULL, OPT_BATCH}},
    {KT_OPT_PROTOCOL, {"end-to-end", no_argument, NULL, OPT_END_TO_END}},
    {KT_OPT_PROTOCOL, {"no-probe", no_argument, NULL, OPT_NO_PROBE}},
};
#define NUM_SHARED (sizeof shared / sizeof shared[0])

/* The getopt table of one command: its own options, the shared ones it
 * accepts, --help. Caller frees. */
static struct option *option_table(const kt_cli_command *cmd, kt_err *err)
{
    size_t own = 0, n = 0;
    struct option *table;

    while (cmd->own && cmd->own[own].name)
        ++own;
    table = calloc(own + NUM_SHARED + 2, sizeof *table);
    if (!table) {
        kt_err_set(err, KT_S_NOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < own; ++i)
        table[n++] = cmd->own[i];
    for (size_t i = 0; i < NUM_SHARED; ++i)
        if (cmd->shared & shared[i].group)
            table[n++] = shared[i].opt;
    table[n] = (struct option){"help", no_argument, NULL, OPT_HELP};
    return table;
}

static kt_status count_option(const char *arg, const char *name, size_t *out,
                              kt_err *err)
{
    int64_t v;
    kt_status rc;
    if ((rc = kt_parse_i64(arg, name, &v, err)))
        return rc;
    if (v < 0)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: expected a count >= 0, found %s", name, arg);
    *out = (size_t)v;
    return KT_S_OK;
}

static kt_status protocol_option(int opt, const char *arg, kt_protocol *p,
                                 kt_err *err)
{
    int64_t v;
    size_t count = 0;
    int suspect;
    kt_status rc;

    switch (opt) {
    case OPT_WARMUPS:
        if ((rc = kt_parse_i64(arg, "--warmups", &v, err)))
            return rc;
        if (v < 0 || v > 1000)
            return kt_err_set(err, KT_S_INPUT,
                              "--warmups: %s, expected 0 to 1000", arg);
        p->warmups = (int)v;
        return KT_S_OK;
    case OPT_MIN_SAMPLES:
        return count_option(arg, "--min-samples", &p->min_samples, err);
    case OPT_MAX_SAMPLES:
        return count_option(arg, "--max-samples", &p->max_samples, err);
    case OPT_MIN_TIME:
        return kt_parse_double(arg, "--min-time", &p->min_time_s, err);
    case OPT_MAX_TIME:
        return kt_parse_double(arg, "--max-time", &p->max_time_s, err);
    case OPT_NOISE:
        if ((rc = kt_noise_parse(arg, "--noise", &p->target_noise, &suspect,
                                 err)))
            return rc;
        if (suspect)
            kt_noise_warn("--noise", p->target_noise);
        return KT_S_OK;
    case OPT_CACHE:
        if ((rc = kt_cache_mode_parse(arg, &p->cache, err)))
            return kt_err_prefix(err, "--");
        return KT_S_OK;
    case OPT_BATCH:
        if ((rc = count_option(arg, "--batch", &count, err)))
            return rc;
        p->batch = (int)(count > 1000000 ? 1000000 : count);
        return KT_S_OK;
    case OPT_END_TO_END: p->end_to_end = 1; return KT_S_OK;
    default: p->probe_ns = 0; return KT_S_OK; /* OPT_NO_PROBE */
    }
}

/* An integer 0..max (a seed, a device ordinal): checked here, before any
 * device is looked for. */
static kt_status count_value(const char *arg, const char *name, int64_t max,
                             int64_t *out, kt_err *err)
{
    kt_status rc;
    if ((rc = kt_parse_i64(arg, name, out, err)))
        return rc;
    if (*out < 0 || *out > max)
        return kt_err_set(err, KT_S_INPUT, "%s: expected 0 to %lld, found %s",
                          name, (long long)max, arg);
    return KT_S_OK;
}

/* --profile-launches N: 1..KT_PROFILE_MAX_LAUNCHES. */
static kt_status profile_launches(const char *arg, kt_cli_options *o,
                                  kt_err *err)
{
    int64_t n;
    kt_status rc = kt_parse_i64(arg, "--profile-launches", &n, err);
    if (rc)
        return rc;
    if (n < 1 || n > KT_PROFILE_MAX_LAUNCHES)
        return kt_err_set(err, KT_S_INPUT,
                          "--profile-launches: expected 1 to %d, found %s",
                          KT_PROFILE_MAX_LAUNCHES, arg);
    o->profile_launches = (int)n;
    return KT_S_OK;
}

/* One shared option (or a protocol option). */
kt_status kt_cli_output(const char *arg, const char *what, kt_err *err)
{
    if (!kt_out_is_stdout(arg))
        return kt_file_check_output(arg, what, err);
    if (kt_out_reserve_stdout() != 0)
        return kt_err_set(err, KT_S_IO, "%s -: cannot keep stdout: %s", what,
                          strerror(errno));
    return KT_S_OK;
}

static kt_status apply_shared(int opt, char *arg, kt_cli_options *o,
                              kt_err *err)
{
    switch (opt) {
    case OPT_VARIANT: o->variant = arg; return KT_S_OK;
    case OPT_SET: return kt_cli_list_push(&o->sets, arg, err);
    case OPT_SIZE: return kt_cli_list_push(&o->sizes, arg, err);
    case OPT_PLUGIN: return kt_cli_list_push(&o->plugins, arg, err);
    case OPT_SEED:
        o->have_seed = 1;
        return count_value(arg, "--seed", INT64_MAX, &o->seed, err);
    case OPT_DEVICE:
        return count_value(arg, "--device", INT_MAX, &o->device, err);
    case OPT_NO_BOUNDARIES: o->boundaries = 0; return KT_S_OK;
    /* Output files are checked now, not after the run they would end. */
    case OPT_JSON: o->json = arg; return kt_cli_output(arg, "--json", err);
    case OPT_CSV: o->csv = arg; return kt_cli_output(arg, "--csv", err);
    case OPT_NO_COUNTERS: o->counters = 0; return KT_S_OK;
    case OPT_PROFILE_LAUNCHES: return profile_launches(arg, o, err);
    case OPT_IN_PROCESS: o->in_process = 1; return KT_S_OK;
    case OPT_REPLAY: o->replay = arg; return KT_S_OK;
    case OPT_TIMEOUT:
        if (kt_parse_double(arg, "--timeout", &o->timeout_s, err))
            return KT_S_INPUT;
        if (o->timeout_s <= 0)
            return kt_err_set(err, KT_S_INPUT,
                              "--timeout: expected seconds > 0, found %s", arg);
        return KT_S_OK;
    default: return protocol_option(opt, arg, &o->protocol, err);
    }
}

static kt_status one_option(const kt_cli_command *cmd, int opt, char *arg,
                            kt_cli_options *o, kt_err *err)
{
    if (opt == '?' || opt == ':')
        return kt_err_set(err, KT_S_INPUT,
                          "%s: bad option; see 'ktune %s --help'", cmd->name,
                          cmd->name);
    if (opt >= OPT_WARMUPS)
        return apply_shared(opt, arg, o, err);
    return cmd->apply(cmd->ctx, opt, arg, err);
}

int kt_cli_parse(int argc, char **argv, const kt_cli_command *cmd,
                 kt_cli_options *o, kt_err *err)
{
    struct option *table;
    int opt, rc = 0;

    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->boundaries = 1;
    o->counters = 1;
    o->profile_launches = 0; /* KT_PROFILE_DEFAULT_LAUNCHES */
    kt_protocol_defaults(&o->protocol);
    kt_env_protocol_choices(&o->protocol);
    if (!(table = option_table(cmd, err)))
        return KT_EXIT_USAGE;
    /* 0: getopt starts over, forgetting any earlier parse in this
     * process (a library runs many, app/embed.h). */
    optind = 0;
    while (!rc && (opt = getopt_long(argc, argv,
                                     cmd->short_opts ? cmd->short_opts : "",
                                     table, NULL)) != -1) {
        if (opt == OPT_HELP) {
            fputs(cmd->help, kt_stdout());
            if (cmd->help_more)
                cmd->help_more(kt_stdout());
            rc = -1;
        } else if (opt == '?' || opt == ':') {
            kt_cli_option_error(cmd->name, argv, table, cmd->short_opts, err);
            rc = KT_EXIT_USAGE;
        } else if (one_option(cmd, opt, optarg, o, err)) {
            rc = KT_EXIT_USAGE;
        }
    }
    free(table);
    o->operands = argv + optind;
    o->num_operands = argc - optind;
    return rc;
}

void kt_cli_options_free(kt_cli_options *o)
{
    kt_cli_list_free(&o->sets);
    kt_cli_list_free(&o->sizes);
    kt_cli_list_free(&o->plugins);
}

kt_status kt_cli_one_operand(const char *cmd, const char *what,
                             const kt_cli_options *o, const char **operand,
                             kt_err *err)
{
    if (o->num_operands < 1)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s is missing; see 'ktune %s --help'", cmd, what,
                          cmd);
    if (o->num_operands > 1)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: one %s expected, found %d operands", cmd, what,
                          o->num_operands);
    *operand = o->operands[0];
    return KT_S_OK;
}

kt_status kt_cli_operator_operand(const char *cmd, const kt_cli_options *o,
                                  const char **spec, kt_err *err)
{
    return kt_cli_one_operand(cmd, "PLUGIN:OPERATOR", o, spec, err);
}

/* Whether the long option `name` (n bytes) of table takes a value. */
static int needs_value(const struct option *table, const char *name, size_t n)
{
    for (const struct option *o = table; o && o->name; ++o)
        if (strlen(o->name) == n && strncmp(o->name, name, n) == 0)
            return o->has_arg == required_argument;
    return -1;
}

kt_status kt_cli_option_error(const char *cmd, char **argv,
                              const struct option *table,
                              const char *short_opts, kt_err *err)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    const char *sp;

    /* getopt's own messages are off (opterr = 0 in main): this is the one
     * line, naming the option. */
    if (arg && strncmp(arg, "--", 2) != 0 && optopt > 0 && optopt < 128) {
        sp = short_opts ? strchr(short_opts, optopt) : NULL;
        return kt_err_set(err, KT_S_INPUT,
                          sp && sp[1] == ':'
                              ? "%s: option '-%c' needs a value; see 'ktune "
                                "%s --help'"
                              : "%s: unknown option '-%c'; see 'ktune %s "
                                "--help'",
                          cmd, optopt, cmd);
    }
    if (arg && strncmp(arg, "--", 2) == 0) {
        const char *eq = strchr(arg + 2, '=');
        size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (!eq && needs_value(table, arg + 2, n) == 1)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: option '%s' needs a value; see 'ktune %s "
                              "--help'",
                              cmd, arg, cmd);
        return kt_err_set(err, KT_S_INPUT,
                          "%s: unknown option '%.*s'; see 'ktune %s --help'",
                          cmd, (int)(n + 2), arg, cmd);
    }
    return kt_err_set(err, KT_S_INPUT, "%s: bad option; see 'ktune %s --help'",
                      cmd, cmd);
}
