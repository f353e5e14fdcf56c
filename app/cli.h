// SPDX-License-Identifier: Apache-2.0
/*
 * Shared pieces of the ktune command-line interface: the subcommand entry
 * points, plugin discovery, resolving a point and printing failures. The
 * options commands share are parsed in app/options.h.
 *
 * Exit codes (docs/cli.md): 0 success, 1 runtime failure (no GPU, CUDA or
 * plugin error, verification failed), 2 usage or input error.
 */
#ifndef KT_CLI_H
#define KT_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "app/options.h"
#include "core/calibration.h"
#include "core/error.h"
#include "core/evaluator.h"
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
int kt_cmd_timeline(int argc, char **argv);
int kt_cmd_wisdom(int argc, char **argv);
int kt_cmd_diff(int argc, char **argv);
int kt_cmd_capture(int argc, char **argv);

/* Registers captures as a kind of plugin file (core/loader.h) and, for a
 * command that takes an operator or a job, rewrites a capture folder among
 * the operands (app/capture_cli.c): *argv may then point to a new array
 * that lives until exit. 0, or -1 after a message. */
int kt_capture_cli_prepare(const char *cmd, int *argc, char ***argv);

/* The folder of built-in plugins: next to the executable (build tree:
 * build/plugins), else <prefix>/lib/ktune/plugins for an installed ktune. */
void kt_cli_builtin_dir(char *out, size_t out_size);

/* The path of a recorded journal of plugin `name` shipped with ktune (next
 * to a build tree's binary in recordings/, or share/ktune/recordings of an
 * install) into out, preferring a file whose name holds `prefer` (may be
 * NULL). Returns 0 when none is found. */
int kt_cli_recording(const char *name, const char *prefer, char *out,
                     size_t size);

/* word as one shell word: unchanged when it needs no quoting, else in
 * single quotes. A word longer than out is cut (a hint, not a command run). */
void kt_cli_shell_quote(const char *word, char *out, size_t size);

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
void kt_cli_set_invocation(int argc, char **argv); /* argc 0: none */
void kt_cli_invocation(int *argc, char ***argv);

/* Applies "NAME=VALUE" items of --set to pt (parameters of its variant)
 * and of --size to sizes (the operator's dimensions). The message names the
 * item and, for unknown names, close matches. */
kt_status kt_cli_apply_sets(const kt_operator *op, kt_point *pt,
                            char *const *items, size_t n, kt_err *err);
kt_status kt_cli_apply_sizes(const kt_operator *op, int64_t *sizes,
                             char *const *items, size_t n, kt_err *err);

/* What bench and profile measure: "PLUGIN:OPERATOR" resolved in reg, the
 * variant's defaults (--variant; none: the operator's first) with --set
 * applied, and the operator's default sizes with --size applied. */
kt_status kt_cli_resolve_point(const kt_registry *reg, const char *spec,
                               const kt_cli_options *o,
                               const kt_loaded_plugin **plugin,
                               const kt_operator **op, kt_point *pt,
                               int64_t *sizes_out, kt_err *err);

/* The evaluator spec of the shared options: plugin, operator, sizes, seed,
 * device, boundaries, warnings from plugins; no counters. */
void kt_cli_eval_spec(const kt_cli_options *o, const kt_loaded_plugin *plugin,
                      const kt_operator *op, const int64_t *sizes,
                      kt_eval_spec *spec);

/* Opens the evaluator of spec for a measuring command: a worker process
 * (with o->timeout_s) unless --in-process. */
kt_status kt_cli_open_evaluator(const kt_cli_options *o,
                                const kt_eval_spec *spec, kt_evaluator **ev,
                                kt_err *err);

/* The device's calibration: 1 when there is one, else 0 after a warning
 * on stderr (when warn is 1) that no %% of the copy ceiling follows. */
int kt_cli_calibration(kt_evaluator *ev, kt_calibration *calib, int warn);

/* A result that is not KT_EVAL_OK: prints "ktune CMD: STATUS: reason" and
 * returns the exit code (2 for an invalid point, else 1). */
int kt_cli_eval_failed(const kt_eval_result *r);

/* Sets env's "host" record from the command line as typed. */
void kt_cli_env_host(json_t *env);

/* Prints "ktune CMD: <message>" to stderr and returns the exit code of the
 * error's status. */
int kt_cli_fail(const kt_err *err);

/* Prints "ktune CMD: <message>; see 'ktune CMD --help'" and returns 2. */
/* kt_cli_option_error printed through kt_cli_fail; returns KT_EXIT_USAGE. */
int kt_cli_bad_option(const char *cmd, char **argv, const struct option *table);

int kt_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* list and info: `--json` alone writes to stdout, `--json FILE`,
 * `--json=FILE` (or `-`) to FILE, like every other command's --json (they
 * take no other operand, so the flag form is unambiguous). *path is
 * --json=FILE's FILE or NULL; without it the one operand left after getopt
 * is FILE when json is set. Any other operand is a usage error, and so is
 * a FILE that cannot be written (KT_EXIT_USAGE or the check's exit code,
 * message printed). */
int kt_cli_json_operand(const char *cmd, int argc, char **argv, int json,
                        const char **path);

/* j to path ("-" or NULL: stdout), replaced whole; KT_EXIT_OK, or
 * KT_EXIT_FAILURE after a message naming path and the cause. */
int kt_cli_write_json(const char *cmd, const json_t *j, const char *path);

/* Writes len bytes of text to `to` with control characters other than
 * newline and tab shown escaped (\x1b, not ESC): text read from a file
 * must not retitle or clear the terminal. */
void kt_cli_put_escaped(FILE *to, const char *text, size_t len);

/* render(out, ctx)'s text on stdout, its lines fitted to the terminal's
 * width (core/term.h: wrapped at spaces, nothing cut). */
void kt_cli_fit_stdout(void (*render)(FILE *out, const void *ctx),
                       const void *ctx);

#endif
