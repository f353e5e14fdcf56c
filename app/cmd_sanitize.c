// SPDX-License-Identifier: Apache-2.0
/* ktune sanitize: every variant of an operator under compute-sanitizer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/cli.h"
#include "core/clock.h"
#include "core/msg.h"
#include "core/param.h"
#include "core/parse.h"
#include "core/proc.h"

static const char help[] =
    "usage: ktune sanitize PLUGIN:OPERATOR [--tools memcheck,racecheck]\n"
    "                      [--size NAME=VALUE]... [--log-dir DIR]\n\n"
    "Runs `ktune bench` on every variant of the operator (default\n"
    "configuration, verification at boundary sizes included) under NVIDIA\n"
    "compute-sanitizer, once per tool, and prints one line per variant and\n"
    "tool with the sanitizer's error count. Exit 1 when any run reports an\n"
    "error. Sizes default to the operator's, capped at 2^20 elements for one\n"
    "dimension and 4096 per dimension otherwise (the sanitizers are slow).\n\n"
    "  --tools LIST       compute-sanitizer tools (memcheck, racecheck,\n"
    "                     initcheck, synccheck); default memcheck,racecheck\n"
    "  --size NAME=VALUE  a problem size (repeatable)\n"
    "  --sanitizer PATH   the compute-sanitizer binary (default: from PATH,\n"
    "                     else /usr/local/cuda/bin/compute-sanitizer)\n"
    "  --log-dir DIR      keep each run's full output in DIR (created)\n"
    "  --timeout S        stop a run after S seconds (default 600): a\n"
    "                     kernel that never ends costs its line\n"
    "  --plugin FILE      load FILE too (repeatable)\n\n"
    "Each run is a process tree of its own (compute-sanitizer and the bench\n"
    "it starts, which runs the plugin in-process under the sanitizer).\n"
    "Exit codes: 0 clean; 1 a run reported errors, crashed or timed out;\n"
    "2 bad input (checked before anything runs).\n";

static void find_sanitizer(char *out, size_t out_size)
{
    const char *path = getenv("PATH");
    char *copy = path ? strdup(path) : NULL, *save = NULL;

    snprintf(out, out_size, "/usr/local/cuda/bin/compute-sanitizer");
    for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir;
         dir = strtok_r(NULL, ":", &save)) {
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof candidate, "%s/compute-sanitizer", dir);
        if (access(candidate, X_OK) == 0) {
            snprintf(out, out_size, "%s", candidate);
            break;
        }
    }
    free(copy);
}

/* Runs argv with stdout and stderr into log_path, in a process group of
 * its own, for at most timeout_s: a kernel that never ends under the
 * sanitizer is stopped with everything the sanitizer started. Returns the
 * wait status, -1 when it could not start, -2 when it was stopped. */
static int run_logged(char *const *argv, const char *log_path, double timeout_s)
{
    double deadline = kt_clock_seconds() + timeout_s;
    int status = 0;
    pid_t pid, got;

    if (kt_proc_fork("the sanitizer", &pid, NULL))
        return -1;
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        setpgid(0, 0);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
            kt_msg("cannot write %s: %s\n", log_path, strerror(errno));
            _exit(126);
        }
        kt_proc_exec(argv[0], argv, NULL);
        kt_msg("cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* either side may win the race; both ask */
    while ((got = kt_proc_reap(pid, &status, 1)) == 0) {
        if (kt_clock_seconds() > deadline) {
            kill(-pid, SIGKILL);
            kt_proc_reap(pid, &status, 0);
            return -2;
        }
        usleep(20000);
    }
    return got < 0 ? -1 : status;
}

/* The count in compute-sanitizer's summary line — "ERROR SUMMARY: N errors"
 * (memcheck, initcheck, synccheck) or "RACECHECK SUMMARY: H hazards
 * displayed (E errors, W warnings)" (racecheck; hazards counted: a warning
 * is a possible race too) — or -1 when there is none (the run did not
 * finish). */
static long error_summary(const char *log_path, char *first, size_t first_size)
{
    FILE *f = fopen(log_path, "r");
    char line[1024];
    long errors = -1;

    first[0] = '\0';
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        char *at = strstr(line, "ERROR SUMMARY: ");
        char *race = strstr(line, "RACECHECK SUMMARY: ");
        if (race)
            errors = strtol(race + strlen("RACECHECK SUMMARY: "), NULL, 10);
        else if (at)
            errors = strtol(at + strlen("ERROR SUMMARY: "), NULL, 10);
        else if (!first[0] && (strstr(line, "========= Invalid") ||
                               strstr(line, "========= Race") ||
                               strstr(line, "========= Warning") ||
                               strstr(line, "========= Error") ||
                               strstr(line, "========= Uninitialized") ||
                               strstr(line, "========= Barrier"))) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(first, first_size, "%s", line + strlen("========= "));
        }
    }
    fclose(f);
    return errors;
}

static void default_sizes(const kt_operator *op, char sizes[][64])
{
    for (uint32_t i = 0; i < op->num_sizes; ++i) {
        int64_t cap = op->num_sizes == 1 ? (int64_t)1 << 20 : 4096;
        int64_t v = op->sizes[i].default_value;
        snprintf(sizes[i], 64, "%s=%lld", op->sizes[i].name,
                 (long long)(v > cap ? cap : v));
    }
}

typedef struct sanitize_args {
    const char *spec, *tools_text, *log_dir;
    double timeout_s;
    char sanitizer[PATH_MAX];
    kt_cli_list sizes, plugins;
    kt_cli_list owned; /* absolute --plugin paths, malloc'ed */
    char **tools;
    size_t num_tools;
} sanitize_args;

/* 0 to go on, -1 after --help, or an exit code (the message printed). */
static int parse_args(int argc, char **argv, sanitize_args *a)
{
    static const struct option options[] = {
        {"tools", required_argument, NULL, 't'},
        {"size", required_argument, NULL, 'n'},
        {"sanitizer", required_argument, NULL, 's'},
        {"log-dir", required_argument, NULL, 'l'},
        {"plugin", required_argument, NULL, 'p'},
        {"timeout", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int opt;
    kt_err err;

    kt_err_clear(&err);
    a->tools_text = "memcheck,racecheck";
    a->timeout_s = 600;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 't': a->tools_text = optarg; break;
        case 'n':
            if (kt_cli_list_push(&a->sizes, optarg, &err))
                return kt_cli_fail(&err);
            break;
        case 's':
            snprintf(a->sanitizer, sizeof a->sanitizer, "%s", optarg);
            break;
        case 'l': a->log_dir = optarg; break;
        case 'p':
            if (kt_cli_list_push(&a->plugins, optarg, &err))
                return kt_cli_fail(&err);
            break;
        case 'T':
            if (kt_parse_double(optarg, "--timeout", &a->timeout_s, &err))
                return kt_cli_fail(&err);
            if (a->timeout_s <= 0)
                return kt_cli_usage_error("sanitize",
                                          "--timeout: expected seconds > 0, "
                                          "found %s",
                                          optarg);
            break;
        case 'h': fputs(help, stdout); return -1;
        default: return kt_cli_bad_option("sanitize", argv, options);
        }
    }
    if (optind != argc - 1)
        return kt_cli_usage_error("sanitize", "one PLUGIN:OPERATOR expected");
    a->spec = argv[optind];
    return 0;
}

/* --tools: a list of known tools. 0 or an exit code. */
static int parse_tools(sanitize_args *a)
{
    static const char *const known[] = {"memcheck", "racecheck", "initcheck",
                                        "synccheck"};
    kt_err err;

    if (kt_parse_list(a->tools_text, &a->tools, &a->num_tools, &err))
        return kt_cli_fail(&err);
    for (size_t t = 0; t < a->num_tools; ++t) {
        int ok = 0;
        for (size_t k = 0; k < 4; ++k)
            ok |= strcmp(a->tools[t], known[k]) == 0;
        if (!ok)
            return kt_cli_usage_error("sanitize",
                                      "unknown tool '%s'; known: "
                                      "memcheck, racecheck, initcheck, "
                                      "synccheck",
                                      a->tools[t]);
    }
    return 0;
}

/* The sanitizer's command line: `ktune bench` of one variant at the capped
 * sizes, one verified launch per boundary size and one timed sample, so
 * the sanitizer sees every kernel path without the cost of a full
 * measurement. args has room for 64. */
static void bench_command(const sanitize_args *a, const char *exe,
                          const char *tool, const char *variant,
                          const kt_operator *op, char sizes[][64], char **args)
{
    static char *const quick[] = {
        "--warmups=0", "--min-samples=1", "--max-samples=1", "--min-time=0",
        "--no-probe",  "--cache=hot",     "--no-calibration"};
    size_t n = 0;

    args[n++] = (char *)a->sanitizer;
    args[n++] = "--tool";
    args[n++] = (char *)tool;
    args[n++] = "--error-exitcode";
    args[n++] = "99";
    args[n++] = (char *)exe;
    args[n++] = "bench";
    args[n++] = (char *)a->spec;
    args[n++] = "--in-process"; /* the sanitizer's process tree isolates */
    args[n++] = "--variant";
    args[n++] = (char *)variant;
    for (uint32_t s = 0; s < op->num_sizes; ++s) {
        args[n++] = "--size";
        args[n++] = sizes[s];
    }
    for (size_t s = 0; s < a->sizes.count && n < 50; ++s) {
        args[n++] = "--size";
        args[n++] = a->sizes.items[s];
    }
    for (size_t s = 0; s < a->plugins.count && n < 56; ++s) {
        args[n++] = "--plugin";
        args[n++] = a->plugins.items[s];
    }
    for (size_t q = 0; q < sizeof quick / sizeof quick[0]; ++q)
        args[n++] = quick[q];
    args[n] = NULL;
}

/* One variant under one tool: prints its line; returns the error count
 * (-1: the run did not finish). */
static long sanitize_one(const sanitize_args *a, const char *exe,
                         const char *plugin, const kt_operator *op, uint32_t v,
                         const char *tool, char sizes[][64])
{
    char tool_arg[64], log_path[PATH_MAX], first[512];
    char *args[64];
    int status;
    long errors;

    snprintf(tool_arg, sizeof tool_arg, "%s", tool);
    if (a->log_dir)
        snprintf(log_path, sizeof log_path, "%s/%s.%s.%s.log", a->log_dir,
                 plugin, op->variants[v].id, tool);
    else {
        /* A fresh file of our own: a fixed name in /tmp could be a link. */
        const char *tmp = getenv("TMPDIR");
        int fd;
        snprintf(log_path, sizeof log_path, "%s/ktune-sanitize-XXXXXX.log",
                 tmp && *tmp ? tmp : "/tmp");
        fd = mkstemps(log_path, 4);
        if (fd >= 0)
            close(fd);
    }
    bench_command(a, exe, tool_arg, op->variants[v].id, op, sizes, args);
    status = run_logged(args, log_path, a->timeout_s);
    errors = error_summary(log_path, first, sizeof first);
    if (status == -2) {
        snprintf(first, sizeof first,
                 "the run did not finish within %.0f s; stopped%s%s",
                 a->timeout_s, a->log_dir ? "; see " : "",
                 a->log_dir ? log_path : "");
        errors = -1;
    } else
        /* 0: clean; 99: the sanitizer found errors; anything else: the bench
         * itself failed, which hides what the tool would see. */
        if (status < 0 || !WIFEXITED(status) ||
            (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 99)) {
            char how[128];
            kt_describe_exit(status, how, sizeof how);
            snprintf(first, sizeof first, "the run %s%s%s", how,
                     a->log_dir ? "; see " : "", a->log_dir ? log_path : "");
            errors = errors > 0 ? errors : -1;
        }
    if (errors < 0 && !first[0])
        snprintf(first, sizeof first,
                 "no ERROR SUMMARY in the sanitizer's output");
    printf("%-16s %-10s %8ld  %s\n", op->variants[v].id, tool, errors, first);
    fflush(stdout);
    if (!a->log_dir)
        unlink(log_path);
    return errors;
}

/* The sanitizer (--sanitizer, PATH, the toolkit's) and this executable. */
static kt_status find_programs(sanitize_args *a, char *exe, size_t exe_size,
                               kt_err *err)
{
    ssize_t len;

    if (!a->sanitizer[0])
        find_sanitizer(a->sanitizer, sizeof a->sanitizer);
    if (access(a->sanitizer, X_OK) != 0)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "compute-sanitizer not found at %s "
                          "(give --sanitizer PATH)",
                          a->sanitizer);
    len = readlink("/proc/self/exe", exe, exe_size - 1);
    if (len <= 0)
        return kt_err_set(err, KT_S_IO, "cannot find this executable");
    exe[len] = '\0';
    return KT_S_OK;
}

/* Everything the runs will be given, checked here first (exit 2): the
 * sizes against the operator, --log-dir (created when missing), and the
 * --plugin files as absolute paths, so the bench the sanitizer starts finds
 * them wherever it runs. */
static kt_status check_inputs(sanitize_args *a, const kt_operator *op,
                              kt_err *err)
{
    int64_t sizes[KT_MAX_SIZES];
    struct stat st;

    for (uint32_t i = 0; i < op->num_sizes; ++i)
        sizes[i] = op->sizes[i].default_value;
    if (kt_cli_apply_sizes(op, sizes, a->sizes.items, a->sizes.count, err))
        return KT_S_INPUT;
    if (a->log_dir && mkdir(a->log_dir, 0755) != 0 && errno != EEXIST)
        return kt_err_set(err, KT_S_INPUT, "--log-dir %s: cannot create: %s",
                          a->log_dir, strerror(errno));
    if (a->log_dir && (stat(a->log_dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
                       access(a->log_dir, W_OK) != 0))
        return kt_err_set(err, KT_S_INPUT,
                          "--log-dir %s: not a writable folder", a->log_dir);
    for (size_t i = 0; i < a->plugins.count; ++i) {
        char *real = realpath(a->plugins.items[i], NULL);
        if (!real)
            return kt_err_set(err, KT_S_INPUT, "--plugin %s: %s",
                              a->plugins.items[i], strerror(errno));
        if (kt_cli_list_push(&a->owned, real, err)) {
            free(real);
            return KT_S_NOMEM;
        }
        a->plugins.items[i] = real;
    }
    return KT_S_OK;
}

int kt_cmd_sanitize(int argc, char **argv)
{
    sanitize_args a;
    char exe[PATH_MAX], sizes[KT_MAX_SIZES][64];
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_registry reg;
    int rc, failures = 0;
    kt_err err;

    memset(&a, 0, sizeof a);
    kt_registry_init(&reg);
    if ((rc = parse_args(argc, argv, &a)) || (rc = parse_tools(&a))) {
        rc = rc < 0 ? KT_EXIT_OK : rc;
        goto done;
    }
    reg.isolated = 1; /* only the descriptor is needed here */
    kt_cli_load_plugins(&reg, a.plugins.items, a.plugins.count, 0);
    if (kt_registry_resolve(&reg, a.spec, &lp, &op, &err) ||
        check_inputs(&a, op, &err) ||
        find_programs(&a, exe, sizeof exe, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    default_sizes(op, sizes);
    printf("%s:%s under %s\n%-16s %-10s %8s  %s\n", lp->desc.name, op->id,
           a.sanitizer, "variant", "tool", "errors", "first report");
    for (uint32_t v = 0; v < op->num_variants; ++v)
        for (size_t t = 0; t < a.num_tools; ++t)
            failures += sanitize_one(&a, exe, lp->desc.name, op, v, a.tools[t],
                                     sizes) != 0;
    rc = failures ? KT_EXIT_FAILURE : KT_EXIT_OK;
done:
    kt_registry_free(&reg);
    free(a.tools);
    kt_cli_list_free(&a.sizes);
    kt_cli_list_free(&a.plugins);
    for (size_t i = 0; i < a.owned.count; ++i)
        free(a.owned.items[i]);
    kt_cli_list_free(&a.owned);
    return rc;
}
