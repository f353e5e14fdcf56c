/*
 * Shared pieces of the ktune command-line interface: the subcommand entry
 * points, plugin discovery and the protocol options every measuring command
 * accepts.
 *
 * Exit codes (docs/cli.md): 0 success, 1 runtime failure (no GPU, CUDA or
 * plugin error, verification failed), 2 usage or input error.
 */
#ifndef KT_CLI_H
#define KT_CLI_H

#include <getopt.h>
#include <stddef.h>

#include "core/error.h"
#include "core/loader.h"
#include "core/point.h"
#include "core/protocol.h"

enum { KT_EXIT_OK = 0, KT_EXIT_FAILURE = 1, KT_EXIT_USAGE = 2 };

int kt_cmd_list(int argc, char **argv);
int kt_cmd_info(int argc, char **argv);
int kt_cmd_bench(int argc, char **argv);
int kt_cmd_tune(int argc, char **argv);
int kt_cmd_compare(int argc, char **argv);
int kt_cmd_profile(int argc, char **argv);
int kt_cmd_report(int argc, char **argv);
int kt_cmd_worker(int argc, char **argv);
int kt_cmd_sanitize(int argc, char **argv);
int kt_cmd_new_plugin(int argc, char **argv);

/* The folder of built-in plugins: next to the executable (build tree:
 * build/plugins), else <prefix>/lib/ktune/plugins for an installed ktune. */
void kt_cli_builtin_dir(char *out, size_t out_size);

/* Loads the default search path plus extra files, and prints one line per
 * plugin that failed to load (when quiet is 0). */
void kt_cli_load_plugins(kt_registry *reg, char **files, size_t num_files,
                         int quiet);

/* When the job file at path declares an operator (an [operator] section,
 * docs/declared.md), loads it into reg; its mistakes are KT_S_INPUT. */
kt_status kt_cli_load_declared(kt_registry *reg, const char *path, kt_err *err);

/* The command line as typed, recorded by main() before any getopt_long call
 * permutes argv (options move ahead of operands). Results record it. The
 * one piece of process state the CLI keeps. */
void kt_cli_set_invocation(int argc, char **argv);
void kt_cli_invocation(int *argc, char ***argv);

/* Applies "NAME=VALUE" items of --set to pt (parameters of its variant)
 * and of --size to sizes (the operator's dimensions). The message names the
 * item and, for unknown names, close matches. */
kt_status kt_cli_apply_sets(const kt_operator *op, kt_point *pt,
                            char *const *items, size_t n, kt_err *err);
kt_status kt_cli_apply_sizes(const kt_operator *op, int64_t *sizes,
                             char *const *items, size_t n, kt_err *err);

/* What bench and profile measure: "PLUGIN:OPERATOR" resolved in reg, the
 * variant's defaults (variant NULL: the operator's first) with --set
 * applied, and the operator's default sizes with --size applied. */
kt_status kt_cli_resolve_point(const kt_registry *reg, const char *spec,
                               const char *variant, char *const *sets,
                               size_t num_sets, char *const *sizes,
                               size_t num_sizes,
                               const kt_loaded_plugin **plugin,
                               const kt_operator **op, kt_point *pt,
                               int64_t *sizes_out, kt_err *err);

/* Prints "ktune: <message>" to stderr and returns the exit code of the
 * error's status. */
int kt_cli_fail(const kt_err *err);

/* Prints "ktune CMD: <message>; see 'ktune CMD --help'" and returns 2. */
int kt_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Options shared by measuring commands. Option values >= 1000. */
#define KT_CLI_PROTOCOL_OPTIONS                                                \
    {"warmups", required_argument, NULL, 1000},                                \
        {"min-samples", required_argument, NULL, 1001},                        \
        {"max-samples", required_argument, NULL, 1002},                        \
        {"min-time", required_argument, NULL, 1003},                           \
        {"max-time", required_argument, NULL, 1004},                           \
        {"noise", required_argument, NULL, 1005},                              \
        {"cache", required_argument, NULL, 1006},                              \
        {"batch", required_argument, NULL, 1007},                              \
        {"end-to-end", no_argument, NULL, 1008},                               \
    {                                                                          \
        "no-probe", no_argument, NULL, 1009                                    \
    }

#define KT_CLI_PROTOCOL_HELP                                                   \
    "Measurement protocol (docs/measurement.md):\n"                            \
    "  --warmups N        untimed launches first (default 3)\n"                \
    "  --min-samples N    at least N samples (default 10)\n"                   \
    "  --max-samples N    at most N samples (default 10000)\n"                 \
    "  --min-time S       at least S seconds of sampled GPU time (0.5)\n"      \
    "  --max-time S       wall-clock cap per measurement (15)\n"               \
    "  --noise F          stop at this robust relative noise (0.005)\n"        \
    "  --cache MODE       cold: flush L2 (left clean) before each sample;\n"   \
    "                     hot: no flush; cold-dirty: flush by writing, as\n"   \
    "                     nvbench does (default cold)\n"                       \
    "  --batch K          also time K back-to-back launches (batch mean)\n"    \
    "  --end-to-end       also time copies + launch + sync + copies\n"         \
    "  --no-probe         no clock probe before samples (no throttle check)\n"

/* Applies one protocol option; returns 1 when opt was one, 0 when not,
 * and -1 (with err) for a bad value. */
int kt_cli_protocol_option(int opt, const char *arg, kt_protocol *p,
                           kt_err *err);

/* The default branch of a measuring command's option loop: a protocol
 * option, or a usage error naming cmd's --help. KT_S_OK or KT_S_INPUT. */
kt_status kt_cli_other_option(const char *cmd, int opt, const char *arg,
                              kt_protocol *p, kt_err *err);

/* The operands getopt left (argv + optind) must be exactly one,
 * PLUGIN:OPERATOR. Points *spec at it (not copied) or sets err naming cmd.
 * KT_S_OK or KT_S_INPUT. */
kt_status kt_cli_operator_operand(const char *cmd, int num_operands,
                                  char *const *operands, const char **spec,
                                  kt_err *err);

#endif
