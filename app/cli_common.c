// SPDX-License-Identifier: Apache-2.0
#include "app/cli.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/envrec.h"
#include "core/fileio.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "core/runctx.h"
#include "core/term.h"
#include "engine/declared_run.h"
#include "isolation/worker.h"

#ifndef KT_INSTALL_PLUGIN_DIR
#define KT_INSTALL_PLUGIN_DIR ""
#endif
/* The installed plugin folder relative to the installed binary's folder
 * (app/CMakeLists.txt computes it from GNUInstallDirs). */
#ifndef KT_PLUGIN_DIR_FROM_BINDIR
#define KT_PLUGIN_DIR_FROM_BINDIR "../lib/ktune/plugins"
#endif

/* The installed recordings (share/ktune/recordings) relative to bindir. */
#ifndef KT_RECORDINGS_DIR_FROM_BINDIR
#define KT_RECORDINGS_DIR_FROM_BINDIR "../share/ktune/recordings"
#endif

static int invocation_argc;
static char **invocation_argv;

void kt_cli_set_invocation(int argc, char **argv)
{
    /* A copy of the pointer array: getopt_long permutes the pointers, not
     * the strings. Lives until exit or the next call (a library run sets
     * its own and clears it with argc 0, app/embed.c). */
    free(invocation_argv);
    invocation_argv = NULL;
    invocation_argc = 0;
    if (argc <= 0 || !argv)
        return;
    invocation_argv = calloc((size_t)argc + 1, sizeof *invocation_argv);
    if (!invocation_argv)
        return;
    memcpy(invocation_argv, argv, (size_t)argc * sizeof *argv);
    invocation_argc = argc;
}

void kt_cli_invocation(int *argc, char ***argv)
{
    *argc = invocation_argc;
    *argv = invocation_argv;
}

void kt_cli_builtin_dir(char *out, size_t out_size)
{
    char exe[PATH_MAX], candidate[PATH_MAX + 64];

    snprintf(out, out_size, "%s", KT_INSTALL_PLUGIN_DIR);
    if (!kt_exe_dir(exe, sizeof exe))
        return;
    /* Build tree first, then an installed layout relative to bin/, so a
     * relocated install works without KTUNE_PLUGIN_PATH. */
    snprintf(candidate, sizeof candidate, "%s/plugins", exe);
    if (access(candidate, R_OK) == 0) {
        snprintf(out, out_size, "%s", candidate);
        return;
    }
    snprintf(candidate, sizeof candidate, "%s/%s", exe,
             KT_PLUGIN_DIR_FROM_BINDIR);
    if (access(candidate, R_OK) == 0) {
        /* Without the "bin/.." in the paths that results record. */
        char *real = realpath(candidate, NULL);
        snprintf(out, out_size, "%s", real ? real : candidate);
        free(real);
    }
}

/* The recording of plugin `name` in folder dir: the one whose name holds
 * `prefer` (a size such as "-n268435456."), else the first by name. */
static int find_recording(const char *dir, const char *name, const char *prefer,
                          char *out, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char best[NAME_MAX + 1] = "";
    size_t nlen = strlen(name);
    int preferred = 0;

    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL) {
        const char *f = de->d_name;
        size_t flen = strlen(f);
        int pref;
        if (strncmp(f, name, nlen) != 0 || f[nlen] != '-' || flen < 6 ||
            strcmp(f + flen - 6, ".jsonl") != 0)
            continue;
        pref = prefer && strstr(f, prefer) != NULL;
        if (!best[0] || (pref && !preferred) ||
            (pref == preferred && strcmp(f, best) < 0)) {
            snprintf(best, sizeof best, "%s", f);
            preferred = pref;
        }
    }
    closedir(d);
    if (!best[0])
        return 0;
    snprintf(out, size, "%s/%s", dir, best);
    return 1;
}

int kt_cli_recording(const char *name, const char *prefer, char *out,
                     size_t size)
{
    char exe[PATH_MAX], dir[PATH_MAX + 64];
    char *real;
    int found;

    if (!kt_exe_dir(exe, sizeof exe))
        return 0;
    /* Build tree first (the build copies them next to the binary), then
     * the installed layout relative to bin/. */
    snprintf(dir, sizeof dir, "%s/recordings", exe);
    if (find_recording(dir, name, prefer, out, size))
        return 1;
    snprintf(dir, sizeof dir, "%s/%s", exe, KT_RECORDINGS_DIR_FROM_BINDIR);
    real = realpath(dir, NULL);
    found = find_recording(real ? real : dir, name, prefer, out, size);
    free(real);
    return found;
}

void kt_cli_shell_quote(const char *word, char *out, size_t size)
{
    size_t n = 0;
    int plain = word[0] != '\0';

    for (const char *c = word; *c; ++c)
        if (!isalnum((unsigned char)*c) && !strchr("_./-=+:,@%", *c))
            plain = 0;
    if (plain) {
        snprintf(out, size, "%s", word);
        return;
    }
    /* '...' with each ' written as '\'' */
    if (size < 3) {
        if (size)
            out[0] = '\0';
        return;
    }
    out[n++] = '\'';
    for (const char *c = word; *c && n + 5 < size; ++c) {
        if (*c == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *c;
        }
    }
    out[n++] = '\'';
    out[n] = '\0';
}

void kt_cli_load_plugins(kt_registry *reg, char **files, size_t num_files,
                         int quiet)
{
    char dir[PATH_MAX + 64];

    kt_cli_builtin_dir(dir, sizeof dir);
    kt_registry_load_default(reg, dir[0] ? dir : NULL,
                             (const char *const *)files, num_files);
    if (!quiet)
        for (size_t i = 0; i < reg->num_failures; ++i)
            kt_msg("plugin not loaded: %s\n", reg->failures[i]);
}

kt_status kt_cli_load_declared(kt_registry *reg, const char *path, kt_err *err)
{
    for (size_t i = 0; i < reg->count; ++i)
        if (strcmp(reg->plugins[i]->path, path) == 0)
            return KT_S_OK; /* named with --plugin too */
    if (!kt_declared_is_declaration(path))
        return KT_S_OK;
    return kt_registry_load_file(reg, path, err);
}

/* One NAME=VALUE item, split in a copy of its own (any length; the caller
 * frees *buf); a failure names the flag and the item as typed. */
static kt_status split_item(const char *flag, const char *item, char **buf,
                            char **name, char **value, kt_err *err)
{
    if (!(*buf = strdup(item)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (kt_parse_assignment(*buf, name, value, err))
        return kt_err_prefix(err, "%s: ", flag);
    return KT_S_OK;
}

kt_status kt_cli_apply_sets(const kt_operator *op, kt_point *pt,
                            char *const *items, size_t n, kt_err *err)
{
    kt_status rc = KT_S_OK;

    for (size_t i = 0; i < n && !rc; ++i) {
        char *buf = NULL, *name, *value;
        /* The message of kt_point_set names the parameter already. */
        if (!(rc = split_item("--set", items[i], &buf, &name, &value, err)) &&
            (rc = kt_point_set(op, pt, name, value, err)))
            kt_err_prefix(err, "--set: ");
        free(buf);
    }
    return rc;
}

/* A size within its dimension's bounds; the message names it once. */
static kt_status size_value(const kt_size_desc *d, const char *value,
                            int64_t *out, kt_err *err)
{
    kt_status rc;

    if ((rc = kt_parse_i64(value, d->name, out, err)))
        return rc;
    if (*out < d->min || *out > d->max)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: expected %lld to %lld, found %s", d->name,
                          (long long)d->min, (long long)d->max, value);
    return KT_S_OK;
}

kt_status kt_cli_apply_sizes(const kt_operator *op, int64_t *sizes,
                             char *const *items, size_t n, kt_err *err)
{
    kt_status rc = KT_S_OK;

    for (size_t i = 0; i < n && !rc; ++i) {
        char *buf = NULL, *name, *value;
        size_t index;
        /* An unknown name is shown as typed; a bad value's message names
         * the size and the value already. */
        if (!(rc = split_item("--size", items[i], &buf, &name, &value, err)) &&
            (rc = kt_operator_find_size(op, name, &index, err)))
            kt_err_prefix(err, "--size %s: ", items[i]);
        else if (!rc && (rc = size_value(&op->sizes[index], value,
                                         &sizes[index], err)))
            kt_err_prefix(err, "--size: ");
        free(buf);
    }
    return rc;
}

/* A declared operator's point that breaks its variant's require is the
 * user's mistake, refused here before a device is looked for. Only a
 * declaration's check is called without a device: it reads sizes and
 * parameters alone, where a compiled plugin's check may read the device. */
static kt_status host_constraint(const kt_loaded_plugin *plugin,
                                 const kt_operator *op, const kt_point *pt,
                                 const int64_t *sizes, kt_err *err)
{
    const kt_variant *v = &op->variants[pt->variant];
    kt_problem problem = {sizeof problem, op->num_sizes, sizes, 0, NULL};
    const kt_declared *d = kt_declared_of_plugin(plugin);
    kt_bound_config bc;
    char why[512] = "";

    if (!d || !v->check)
        return KT_S_OK;
    if (kt_declared_check(d, pt->variant, &problem, kt_point_bind(op, pt, &bc),
                          why, sizeof why) == KT_OK)
        return KT_S_OK;
    why[sizeof why - 1] = '\0';
    return kt_err_set(err, KT_S_INPUT,
                      "variant '%s': this point cannot run: %s", v->id,
                      why[0] ? why : "its constraint refuses it");
}

kt_status kt_cli_resolve_point(const kt_registry *reg, const char *spec,
                               const kt_cli_options *o,
                               const kt_loaded_plugin **plugin,
                               const kt_operator **op, kt_point *pt,
                               int64_t *sizes_out, kt_err *err)
{
    size_t index = 0;
    kt_status rc;

    if ((rc = kt_registry_resolve(reg, spec, plugin, op, err)) ||
        (o->variant &&
         (rc = kt_operator_find_variant(*op, o->variant, &index, err))))
        return rc;
    kt_point_default(*op, (uint32_t)index, pt);
    for (uint32_t i = 0; i < (*op)->num_sizes; ++i)
        sizes_out[i] = (*op)->sizes[i].default_value;
    if ((rc = kt_cli_apply_sets(*op, pt, o->sets.items, o->sets.count, err)) ||
        (rc = kt_cli_apply_sizes(*op, sizes_out, o->sizes.items, o->sizes.count,
                                 err)))
        return rc;
    return host_constraint(*plugin, *op, pt, sizes_out, err);
}

void kt_cli_eval_spec(const kt_cli_options *o, const kt_loaded_plugin *plugin,
                      const kt_operator *op, const int64_t *sizes,
                      kt_eval_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->plugin = plugin;
    spec->op = op;
    memcpy(spec->sizes, sizes, op->num_sizes * sizeof *sizes);
    spec->seed = (uint64_t)o->seed;
    spec->device = (int)o->device;
    spec->check_boundaries = o->boundaries;
    spec->log_level = KT_LOG_WARN;
}

kt_status kt_cli_open_evaluator(const kt_cli_options *o,
                                const kt_eval_spec *spec, kt_evaluator **ev,
                                kt_err *err)
{
    kt_worker_options wopt = {kt_run_program(), o->timeout_s, o->timeout_s};

    /* In a worker, a setup() that faults or a kernel that never ends costs
     * the point, not this process. */
    return o->in_process ? kt_local_open(spec, ev, err)
                         : kt_worker_open(spec, &wopt, ev, err);
}

int kt_cli_calibration(kt_evaluator *ev, kt_calibration *calib, int warn)
{
    kt_err err;

    kt_err_clear(&err);
    if (ev->ops->calibration(ev, 0, calib, &err) == KT_S_OK)
        return 1;
    if (warn)
        kt_msg("warning: no calibration, so no %% of the copy "
               "ceiling: %s\n",
               err.msg);
    return 0;
}

int kt_cli_eval_failed(const kt_eval_result *r)
{
    kt_msg("%s: %s\n", kt_eval_status_name(r->status), r->reason);
    return r->status == KT_EVAL_INVALID ? KT_EXIT_USAGE : KT_EXIT_FAILURE;
}

/* A built-in plugin is named by name and version alone: its path is the
 * build or install tree's, which a recording that ships must not carry. A
 * plugin the user named by file (--plugin, KTUNE_PLUGIN_PATH) keeps it. */
static void drop_builtin_path(json_t *env)
{
    json_t *plugin = json_object_get(env, "plugin");
    const char *path = json_string_value(json_object_get(plugin, "path"));
    char dir[PATH_MAX];
    size_t n;

    kt_cli_builtin_dir(dir, sizeof dir);
    n = strlen(dir);
    if (path && n && strncmp(path, dir, n) == 0 && path[n] == '/' &&
        !strchr(path + n + 1, '/'))
        json_object_del(plugin, "path");
}

void kt_cli_env_host(json_t *env)
{
    int argc;
    char **argv, *first;
    const char *slash;

    kt_cli_invocation(&argc, &argv);
    /* The program by its name, not the folder it was built in. */
    first = argc > 0 ? argv[0] : NULL;
    if (first && (slash = strrchr(first, '/')))
        argv[0] = (char *)(slash + 1);
    json_object_set_new(env, "host", kt_env_host(argc, argv));
    if (first)
        argv[0] = first;
    drop_builtin_path(env);
}

int kt_cli_fail(const kt_err *err)
{
    const char *msg = err->msg[0] ? err->msg : "failed";
    const char *cmd = kt_msg_command();
    size_t n = cmd ? strlen(cmd) : 0;

    /* One prefix, "ktune CMD: ", whether or not the message already
     * starts with the command's name. */
    if (cmd && strncmp(msg, cmd, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        msg += n + 2;
    kt_msg("%s\n", msg);
    return kt_status_exit_code(err->status);
}

int kt_cli_json_operand(const char *cmd, int argc, char **argv, int json,
                        const char **path)
{
    kt_err err;

    if (json && !*path && optind == argc - 1)
        *path = argv[optind++];
    if (optind < argc)
        return kt_cli_usage_error(cmd, "unexpected argument '%s'",
                                  argv[optind]);
    kt_err_clear(&err);
    if (*path && kt_cli_output(*path, "--json", &err))
        return kt_cli_fail(&err);
    return KT_EXIT_OK;
}

int kt_cli_write_json(const char *cmd, const json_t *j, const char *path)
{
    if (!path)
        path = "-";
    if (!j || kt_out_json(j, path) != 0) {
        fprintf(kt_stderr(), "ktune %s: --json %s: cannot write: %s\n", cmd,
                strcmp(path, "-") ? path : "(stdout)",
                j ? strerror(errno) : "out of memory");
        return KT_EXIT_FAILURE;
    }
    return KT_EXIT_OK;
}

void kt_cli_put_escaped(FILE *to, const char *text, size_t len)
{
    const unsigned char *c = (const unsigned char *)text;

    for (size_t i = 0; i < len; ++i) {
        if ((c[i] < 0x20 && c[i] != '\n' && c[i] != '\t') || c[i] == 0x7f)
            fprintf(to, "\\x%02x", c[i]);
        else
            fputc(c[i], to);
    }
}

int kt_cli_bad_option(const char *cmd, char **argv, const struct option *table)
{
    kt_err err;
    kt_cli_option_error(cmd, argv, table, NULL, &err);
    return kt_cli_fail(&err);
}

int kt_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(kt_stderr(), "ktune %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(kt_stderr(), fmt, ap);
    va_end(ap);
    fprintf(kt_stderr(), "; see 'ktune %s --help'\n", cmd);
    return KT_EXIT_USAGE;
}

void kt_cli_fit_stdout(void (*render)(FILE *out, const void *ctx),
                       const void *ctx)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    if (!mem) {
        render(kt_stdout(), ctx);
        return;
    }
    render(mem, ctx);
    if (fclose(mem) == 0)
        kt_term_wrap(kt_stdout(), text, len, kt_term_width(kt_stdout()));
    else
        render(kt_stdout(), ctx);
    free(text);
}
