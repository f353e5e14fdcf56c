// SPDX-License-Identifier: Apache-2.0
/*
 * The options the measuring commands share (bench, profile, compare, tune,
 * and --plugin for report), parsed in one place. A command names the
 * shared options it accepts (KT_OPT_* bits), adds a table of its own and a
 * function that applies them; kt_cli_parse runs getopt_long over both and
 * fills a kt_cli_options. Option values: the command's own < 1000, the
 * shared ones >= 1000.
 */
#ifndef KT_CLI_OPTIONS_H
#define KT_CLI_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/protocol.h"

/* A repeatable option's values, in order. The strings are argv's (not
 * copied); the array is owned by the list (kt_cli_list_free). */
typedef struct kt_cli_list {
    char **items;
    size_t count, capacity;
} kt_cli_list;

/* Appends item (not copied). KT_S_OK or KT_S_NOMEM. */
kt_status kt_cli_list_push(kt_cli_list *list, char *item, kt_err *err);
void kt_cli_list_free(kt_cli_list *list);

/* --access-bytes N (profile, compare): 1..256 into *out, else KT_S_INPUT
 * naming the option and what was found. */
kt_status kt_cli_access_bytes(const char *arg, int *out, kt_err *err);

/* An output option's value (what: "--json"): checked as a file to write
 * (core/fileio.h), or "-": stdout is then kept for that document alone
 * and everything else the command prints goes to stderr
 * (kt_out_reserve_stdout). KT_S_INPUT for a path that cannot be written. */
kt_status kt_cli_output(const char *arg, const char *what, kt_err *err);

/* The shared options a command accepts. */
enum {
    KT_OPT_VARIANT = 1u << 0,     /* --variant V */
    KT_OPT_SET = 1u << 1,         /* --set ITEM (repeatable) */
    KT_OPT_SIZE = 1u << 2,        /* --size NAME=VALUE (repeatable) */
    KT_OPT_SEED = 1u << 3,        /* --seed N */
    KT_OPT_DEVICE = 1u << 4,      /* --device N */
    KT_OPT_BOUNDARIES = 1u << 5,  /* --no-boundaries */
    KT_OPT_JSON = 1u << 6,        /* --json FILE */
    KT_OPT_CSV = 1u << 7,         /* --csv FILE */
    KT_OPT_PLUGIN = 1u << 8,      /* --plugin FILE (repeatable) */
    KT_OPT_COUNTERS = 1u << 9,    /* --no-counters, --profile-launches N */
    KT_OPT_IN_PROCESS = 1u << 10, /* --in-process */
    KT_OPT_REPLAY = 1u << 11,     /* --replay FILE */
    KT_OPT_PROTOCOL = 1u << 12,   /* the measurement protocol's options */
    KT_OPT_TIMEOUT = 1u << 13,    /* --timeout S */
    /* What bench, profile and compare have in common. */
    KT_OPT_MEASURING = KT_OPT_SIZE | KT_OPT_SEED | KT_OPT_DEVICE |
                       KT_OPT_BOUNDARIES | KT_OPT_JSON | KT_OPT_PLUGIN |
                       KT_OPT_PROTOCOL | KT_OPT_TIMEOUT | KT_OPT_IN_PROCESS
};

/* The shared options' values after parsing. Defaults (kt_cli_parse sets
 * them): seed 1, boundaries and counters on, the default protocol. */
typedef struct kt_cli_options {
    const char *variant, *json, *csv, *replay;
    kt_cli_list sets, sizes, plugins;
    int64_t seed, device;
    int have_seed; /* --seed was given */
    int boundaries, counters, in_process;
    /* --profile-launches: launches of the point per replay pass, each
     * counter the median over them (kt_profile_request.launches); 0: the
     * default. */
    int profile_launches;
    /* --timeout: seconds the worker may take to set the problem up, and
     * per point on top of the protocol's --max-time; 0: the worker's
     * defaults (300 s, 60 s). */
    double timeout_s;
    kt_protocol protocol;
    /* The operands getopt left, in argv. */
    char **operands;
    int num_operands;
} kt_cli_options;

/* Applies one of the command's own options (opt: its table's value). */
typedef kt_status (*kt_cli_own_fn)(void *ctx, int opt, char *arg, kt_err *err);

/* A command as the parser sees it. */
typedef struct kt_cli_command {
    const char *name;         /* "bench": messages name it */
    const char *help;         /* printed on --help */
    unsigned shared;          /* KT_OPT_* bits */
    const struct option *own; /* NULL-terminated, or NULL */
    const char *short_opts;   /* getopt's short options, or NULL */
    kt_cli_own_fn apply;      /* the own options; NULL when there are none */
    void *ctx;                /* handed to apply */
    void (*help_more)(FILE *out); /* printed after help (a registry's list);
                                   * NULL when there is none */
} kt_cli_command;

/* Parses argv (argv[0]: the command's name) into o. Returns 0 to go on,
 * -1 when --help was printed (exit 0), or KT_EXIT_USAGE with err set (an
 * unknown option: "CMD: bad option; see 'ktune CMD --help'"; a bad value;
 * out of memory). o is filled in every case and freed with
 * kt_cli_options_free. */
int kt_cli_parse(int argc, char **argv, const kt_cli_command *cmd,
                 kt_cli_options *o, kt_err *err);
void kt_cli_options_free(kt_cli_options *o);

/* The one-line error for the option getopt_long just refused (opterr off):
 * "CMD: unknown option '--x'" or "CMD: option '--json' needs a value", with
 * a pointer to --help. table: the command's long options; short_opts may
 * be NULL. Returns KT_S_INPUT. */
kt_status kt_cli_option_error(const char *cmd, char **argv,
                              const struct option *table,
                              const char *short_opts, kt_err *err);

/* The operands must be exactly one, called `what` in messages (CONFIG,
 * RESULTS, ...). Points *operand at it (not copied) or sets err naming cmd.
 * KT_S_OK or KT_S_INPUT. */
kt_status kt_cli_one_operand(const char *cmd, const char *what,
                             const kt_cli_options *o, const char **operand,
                             kt_err *err);

/* kt_cli_one_operand for PLUGIN:OPERATOR. */
kt_status kt_cli_operator_operand(const char *cmd, const kt_cli_options *o,
                                  const char **spec, kt_err *err);

/* Help for --in-process and --timeout (docs/isolation.md). */
#define KT_CLI_ISOLATION_HELP                                                  \
    "Plugin code runs in a worker process (docs/isolation.md):\n"              \
    "  --timeout S        seconds for setting the problem up, and per point\n" \
    "                     on top of --max-time (default 300 and 60): a\n"      \
    "                     point's limit counts from when it is sent to the\n"  \
    "                     worker and includes killing it\n"                    \
    "  --in-process       run the plugin in this process (no isolation)\n\n"

#define KT_CLI_PROTOCOL_HELP                                                   \
    "Measurement protocol (docs/measurement.md):\n"                            \
    "  --warmups N        untimed launches first (default 3)\n"                \
    "  --min-samples N    at least N samples (default 10)\n"                   \
    "  --max-samples N    at most N samples (default 10000)\n"                 \
    "  --min-time S       at least S seconds of sampled GPU time (0.5)\n"      \
    "  --max-time S       wall-clock cap per measurement (15)\n"               \
    "  --noise F          stop at this robust relative noise: a fraction\n"    \
    "                     (0.005) or a percentage (0.5%)\n"                    \
    "  --cache MODE       cold: flush L2 (left clean) before each sample;\n"   \
    "                     hot: no flush; cold-dirty: flush by writing, as\n"   \
    "                     nvbench does (default cold)\n"                       \
    "  --batch K          also time K back-to-back launches (batch mean)\n"    \
    "  --end-to-end       also time copies + launch + sync + copies\n"         \
    "  --no-probe         no clock probe before samples (no throttle check)\n"

#endif
