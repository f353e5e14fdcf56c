// SPDX-License-Identifier: Apache-2.0
/*
 * ktune: find the fastest correct launch configuration of CUDA kernels.
 * Dispatches to one subcommand; each has --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/envcheck.h"
#include "core/msg.h"
#include "core/version.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"list", kt_cmd_list, "plugins, operators, variants and parameters"},
    {"info", kt_cmd_info, "the device record and its measured ceilings"},
    {"bench", kt_cmd_bench, "verify and time one configuration"},
    {"tune", kt_cmd_tune, "search for the fastest verified configuration"},
    {"compare", kt_cmd_compare, "variants side by side, with speed-ups"},
    {"diff", kt_cmd_diff,
     "two results files compared, for CI (exit 1: slower)"},
    {"profile", kt_cmd_profile, "time, counters and a bottleneck diagnosis"},
    {"report", kt_cmd_report, "an HTML report of tuning or compare results"},
    {"timeline", kt_cmd_timeline, "a CUDA program's kernels, copies, gaps"},
    {"capture", kt_cmd_capture, "save a program's kernel launches to tune"},
    {"sanitize", kt_cmd_sanitize, "every variant under compute-sanitizer"},
    {"new-plugin", kt_cmd_new_plugin, "scaffold an out-of-tree plugin project"},
    {"wisdom", kt_cmd_wisdom, "list, check and query a wisdom file"},
    {"worker", kt_cmd_worker, "internal: serve evaluations for a parent"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: ktune COMMAND [options]   (ktune COMMAND --help)\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nExit codes: 0 success, 1 runtime failure (no GPU, CUDA, "
                 "plugin or verification error),\n2 usage or input error.\n"
                 "Plugins: the built-in folder, then KTUNE_PLUGIN_PATH "
                 "(folders or files, ':'-separated),\nthen --plugin FILE.\n");
}

static void print_version(void)
{
    printf("ktune %s (%s)\n", KT_VERSION, KT_GIT_COMMIT);
}

/* 1 (the message printed) when a KTUNE_* variable holds a value it cannot
 * take: refused before the command reads it (app/envcheck.h). */
static int env_refused(void)
{
    kt_err err;

    if (kt_env_check(&err) == KT_S_OK)
        return 0;
    kt_msg("%s\n", err.msg);
    return 1;
}

/* -h and --version mean the same on every command: -h is --help (which
 * each command prints), --version the program's version. Only options
 * before a "--" count. */
static int run_command(const command *c, int argc, char **argv)
{
    /* Messages say which command printed them; a worker says its
     * parent's, which the parent names in its argv (--command). */
    kt_msg_set_command(strcmp(c->name, "worker") == 0 ? NULL : c->name);
    if (env_refused())
        return KT_EXIT_USAGE;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; ++i) {
        if (strcmp(argv[i], "--version") == 0) {
            print_version();
            return KT_EXIT_OK;
        }
        if (strcmp(argv[i], "-h") == 0)
            argv[i] = (char *)"--help";
    }
    /* A capture folder where an operator or job goes (app/capture_cli.c). */
    if (kt_capture_cli_prepare(c->name, &argc, &argv) != 0)
        return KT_EXIT_USAGE;
    return c->run(argc, argv);
}

/* What a command printed must have reached stdout: a full disk or a
 * closed file there is a failure (exit 1), not a silent success. */
static int finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        kt_msg("cannot write standard output: %s\n", strerror(errno));
        return rc ? rc : KT_EXIT_FAILURE;
    }
    return rc;
}

/* ktune help COMMAND: that command's --help. */
static int help_on(const char *name)
{
    char *args[] = {(char *)name, (char *)"--help", NULL};

    opterr = 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(name, commands[i].name) == 0)
            return finish_stdout(run_command(&commands[i], 2, args));
    kt_msg("help: unknown command '%s'\n", name);
    usage(stderr);
    return KT_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    kt_cli_set_invocation(argc, argv);
    if (argc < 2) {
        usage(stderr);
        return KT_EXIT_USAGE;
    }
    if (strcmp(argv[1], "help") == 0 && argc > 2)
        return help_on(argv[2]);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return finish_stdout(KT_EXIT_OK);
    }
    /* -V as well: the short form newcomers try first (GNU tools, nvcc). */
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        print_version();
        return finish_stdout(KT_EXIT_OK);
    }
    /* getopt's own messages are off: each command prints one line naming
     * the option it refuses (kt_cli_option_error). */
    opterr = 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0)
            return finish_stdout(run_command(&commands[i], argc - 1, argv + 1));
    kt_msg("unknown command '%s'\n", argv[1]);
    usage(stderr);
    return KT_EXIT_USAGE;
}
