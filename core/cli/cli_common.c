#include "core/cli/cli.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/parse.h"

#ifndef KT_INSTALL_PLUGIN_DIR
#define KT_INSTALL_PLUGIN_DIR ""
#endif
/* The installed plugin folder relative to the installed binary's folder
 * (core/cli/CMakeLists.txt computes it from GNUInstallDirs). */
#ifndef KT_PLUGIN_DIR_FROM_BINDIR
#define KT_PLUGIN_DIR_FROM_BINDIR "../lib/ktune/plugins"
#endif

static int invocation_argc;
static char **invocation_argv;

void kt_cli_set_invocation(int argc, char **argv)
{
    /* A copy of the pointer array: getopt_long permutes the pointers, not
     * the strings. Lives until exit. */
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
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;

    snprintf(out, out_size, "%s", KT_INSTALL_PLUGIN_DIR);
    if (len <= 0)
        return;
    exe[len] = '\0';
    slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
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

void kt_cli_load_plugins(kt_registry *reg, char **files, size_t num_files,
                         int quiet)
{
    char dir[PATH_MAX + 64];

    kt_cli_builtin_dir(dir, sizeof dir);
    kt_registry_load_default(reg, dir[0] ? dir : NULL,
                             (const char *const *)files, num_files);
    if (!quiet)
        for (size_t i = 0; i < reg->num_failures; ++i)
            fprintf(stderr, "ktune: plugin not loaded: %s\n", reg->failures[i]);
}

int kt_cli_fail(const kt_err *err)
{
    fprintf(stderr, "ktune: %s\n", err->msg[0] ? err->msg : "failed");
    return kt_status_exit_code(err->status);
}

int kt_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "ktune %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; see 'ktune %s --help'\n", cmd);
    return KT_EXIT_USAGE;
}

static int size_option(const char *arg, const char *name, size_t *out,
                       kt_err *err)
{
    int64_t v;
    if (kt_parse_i64(arg, name, &v, err))
        return -1;
    if (v < 0) {
        kt_err_set(err, KT_S_INPUT, "%s: expected a count >= 0, found %s", name,
                   arg);
        return -1;
    }
    *out = (size_t)v;
    return 1;
}

int kt_cli_protocol_option(int opt, const char *arg, kt_protocol *p,
                           kt_err *err)
{
    int64_t v;
    size_t count;

    switch (opt) {
    case 1000:
        if (kt_parse_i64(arg, "--warmups", &v, err))
            return -1;
        p->warmups = (int)(v > 100000 ? 100000 : v < -1 ? -1 : v);
        return 1;
    case 1001: return size_option(arg, "--min-samples", &p->min_samples, err);
    case 1002: return size_option(arg, "--max-samples", &p->max_samples, err);
    case 1003:
        return kt_parse_double(arg, "--min-time", &p->min_time_s, err) ? -1 : 1;
    case 1004:
        return kt_parse_double(arg, "--max-time", &p->max_time_s, err) ? -1 : 1;
    case 1005:
        return kt_parse_double(arg, "--noise", &p->target_noise, err) ? -1 : 1;
    case 1006:
        if (kt_cache_mode_parse(arg, &p->cache, err)) {
            kt_err_prefix(err, "--");
            return -1;
        }
        return 1;
    case 1007:
        if (size_option(arg, "--batch", &count, err) < 0)
            return -1;
        p->batch = (int)(count > 1000000 ? 1000000 : count);
        return 1;
    case 1008: p->end_to_end = 1; return 1;
    case 1009: p->probe_ns = 0; return 1;
    }
    return 0;
}
