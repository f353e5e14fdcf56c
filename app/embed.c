// SPDX-License-Identifier: Apache-2.0
/*
 * kt_embed_run (app/embed.h): one command of the CLI run for libktune, with
 * the run's streams and program (core/runctx.h) in place of the process's.
 */
#include "app/embed.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <string.h>

#include "app/cli.h"
#include "app/envcheck.h"
#include "core/msg.h"
#include "core/runctx.h"
#include "core/settings.h"

/* The commands a library runs: those whose output goes through the run's
 * streams (core/runctx.h). The rest (list, info, capture, timeline, ...)
 * print to the process's own and are the program's. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"tune", kt_cmd_tune},
    {"bench", kt_cmd_bench},
    {"profile", kt_cmd_profile},
    {"report", kt_cmd_report},
};

/* Held for a whole run: getopt's optind, the invocation record, the
 * output table (core/outfile.c) and the run context are process state. */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

static int dispatch(int argc, char **argv)
{
    kt_err err;

    if (kt_env_check(&err) != KT_S_OK) {
        kt_msg("%s\n", err.msg);
        return KT_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    kt_msg("unknown command '%s' (a library runs tune, bench, profile and "
           "report)\n",
           argv[1]);
    return KT_EXIT_USAGE;
}

int kt_embed_run(int argc, char **argv, const kt_embed *e)
{
    kt_run_ctx ctx = {.out = e->out,
                      .err = e->err,
                      .program = e->program,
                      .verify = e->verify,
                      .verify_user = e->verify_user};
    int rc;

    if (argc < 2 || !argv[1])
        return KT_EXIT_USAGE;
    ctx.command = argv[1];
    pthread_mutex_lock(&run_lock);
    kt_run_ctx_set(&ctx);
    kt_cli_set_invocation(argc, argv);
    /* 0, not 1: glibc starts getopt over, forgetting the last run's
     * place inside a group of short options. */
    optind = 0;
    opterr = 0;
    rc = dispatch(argc, argv);
    if (e->out && fflush(e->out) != 0) {
        kt_msg("cannot write the output: %s\n", strerror(errno));
        rc = rc ? rc : KT_EXIT_FAILURE;
    }
    if (e->err)
        fflush(e->err);
    kt_cli_set_invocation(0, NULL);
    kt_run_ctx_set(NULL);
    pthread_mutex_unlock(&run_lock);
    return rc;
}

static const char *set_or_null(const char *value)
{
    return value && *value ? value : NULL;
}

void kt_embed_env_read(kt_embed_env *out)
{
    kt_settings s;

    kt_settings_read(&s);
    out->ktune_exe = set_or_null(s.ktune_exe);
    out->path = set_or_null(s.path);
    out->tmpdir = set_or_null(s.tmpdir);
}
