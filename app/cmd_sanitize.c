/* ktune sanitize: every variant of an operator under compute-sanitizer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/cli.h"
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
    "  --log-dir DIR      keep each run's full output in DIR\n"
    "  --plugin FILE      load FILE too (repeatable)\n";

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

/* Runs argv with stdout and stderr into log_path; returns the wait status
 * or -1. */
static int run_logged(char *const *argv, const char *log_path)
{
    int status = 0;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
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

int kt_cmd_sanitize(int argc, char **argv)
{
    static const struct option options[] = {
        {"tools", required_argument, NULL, 't'},
        {"size", required_argument, NULL, 'n'},
        {"sanitizer", required_argument, NULL, 's'},
        {"log-dir", required_argument, NULL, 'l'},
        {"plugin", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *tools_text = "memcheck,racecheck", *log_dir = NULL;
    char **user_sizes = calloc((size_t)argc + 1, sizeof *user_sizes);
    char **plugins = calloc((size_t)argc + 1, sizeof *plugins);
    char sanitizer[PATH_MAX], exe[PATH_MAX], sizes[KT_MAX_SIZES][64];
    char **tools = NULL;
    size_t num_sizes = 0, num_plugins = 0, num_tools = 0;
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_registry reg;
    int opt, rc = KT_EXIT_OK, failures = 0;
    ssize_t len;
    kt_err err;

    kt_registry_init(&reg);
    sanitizer[0] = '\0';
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 't': tools_text = optarg; break;
        case 'n': user_sizes[num_sizes++] = optarg; break;
        case 's': snprintf(sanitizer, sizeof sanitizer, "%s", optarg); break;
        case 'l': log_dir = optarg; break;
        case 'p': plugins[num_plugins++] = optarg; break;
        case 'h': fputs(help, stdout); goto done;
        default: rc = kt_cli_usage_error("sanitize", "bad option"); goto done;
        }
    }
    if (optind != argc - 1) {
        rc = kt_cli_usage_error("sanitize", "one PLUGIN:OPERATOR expected");
        goto done;
    }
    if (kt_parse_list(tools_text, &tools, &num_tools, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    for (size_t t = 0; t < num_tools; ++t) {
        static const char *const known[] = {"memcheck", "racecheck",
                                            "initcheck", "synccheck"};
        int ok = 0;
        for (size_t k = 0; k < 4; ++k)
            ok |= strcmp(tools[t], known[k]) == 0;
        if (!ok) {
            rc = kt_cli_usage_error("sanitize",
                                    "unknown tool '%s'; known: "
                                    "memcheck, racecheck, initcheck, "
                                    "synccheck",
                                    tools[t]);
            goto done;
        }
    }
    kt_cli_load_plugins(&reg, plugins, num_plugins, 0);
    if (kt_registry_resolve(&reg, argv[optind], &lp, &op, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (!sanitizer[0])
        find_sanitizer(sanitizer, sizeof sanitizer);
    if (access(sanitizer, X_OK) != 0) {
        kt_err_set(&err, KT_S_UNSUPPORTED,
                   "compute-sanitizer not found at %s "
                   "(give --sanitizer PATH)",
                   sanitizer);
        rc = kt_cli_fail(&err);
        goto done;
    }
    len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        kt_err_set(&err, KT_S_IO, "cannot find this executable");
        rc = kt_cli_fail(&err);
        goto done;
    }
    exe[len] = '\0';
    default_sizes(op, sizes);
    printf("%s:%s under %s\n%-16s %-10s %8s  %s\n", lp->desc.name, op->id,
           sanitizer, "variant", "tool", "errors", "first report");
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        for (size_t t = 0; t < num_tools; ++t) {
            char tool_arg[64], log_path[PATH_MAX], first[512];
            char *args[64];
            size_t a = 0;
            int status;
            long errors;
            snprintf(tool_arg, sizeof tool_arg, "%s", tools[t]);
            if (log_dir)
                snprintf(log_path, sizeof log_path, "%s/%s.%s.%s.log", log_dir,
                         lp->desc.name, op->variants[v].id, tools[t]);
            else
                snprintf(log_path, sizeof log_path,
                         "/tmp/ktune-sanitize-%d."
                         "log",
                         (int)getpid());
            args[a++] = sanitizer;
            args[a++] = "--tool";
            args[a++] = tool_arg;
            args[a++] = "--error-exitcode";
            args[a++] = "99";
            args[a++] = exe;
            args[a++] = "bench";
            args[a++] = argv[optind];
            args[a++] = "--variant";
            args[a++] = (char *)op->variants[v].id;
            for (uint32_t s = 0; s < op->num_sizes; ++s) {
                args[a++] = "--size";
                args[a++] = sizes[s];
            }
            for (size_t s = 0; s < num_sizes && a < 50; ++s) {
                args[a++] = "--size";
                args[a++] = user_sizes[s];
            }
            for (size_t s = 0; s < num_plugins && a < 56; ++s) {
                args[a++] = "--plugin";
                args[a++] = plugins[s];
            }
            /* One verified launch per boundary size and one timed sample:
             * the sanitizer sees every kernel path without the cost of a
             * full measurement. */
            args[a++] = "--warmups=0";
            args[a++] = "--min-samples=1";
            args[a++] = "--max-samples=1";
            args[a++] = "--min-time=0";
            args[a++] = "--no-probe";
            args[a++] = "--cache=hot";
            args[a++] = "--no-calibration";
            args[a] = NULL;
            status = run_logged(args, log_path);
            errors = error_summary(log_path, first, sizeof first);
            /* 0: clean; 99: the sanitizer found errors; anything else: the
             * bench itself failed, which hides what the tool would see. */
            if (status < 0 || !WIFEXITED(status) ||
                (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 99)) {
                char how[128];
                kt_describe_exit(status, how, sizeof how);
                snprintf(first, sizeof first, "the run %s%s%s", how,
                         log_dir ? "; see " : "", log_dir ? log_path : "");
                errors = errors > 0 ? errors : -1;
            }
            if (errors < 0 && !first[0])
                snprintf(first, sizeof first,
                         "no ERROR SUMMARY in the "
                         "sanitizer's output");
            printf("%-16s %-10s %8ld  %s\n", op->variants[v].id, tools[t],
                   errors, first);
            fflush(stdout);
            failures += errors != 0;
            if (!log_dir)
                unlink(log_path);
        }
    }
    rc = failures ? KT_EXIT_FAILURE : KT_EXIT_OK;
done:
    kt_registry_free(&reg);
    free(tools);
    free(user_sizes);
    free(plugins);
    return rc;
}
