// SPDX-License-Identifier: Apache-2.0
/*
 * The commands run inside another program: libktune's entry into the
 * command library (ktune_cmd, the code of `ktune tune/bench/profile/...`
 * that the ktune program's main() dispatches to). Plain C types only
 * (core/runctx.h is plain C too), so that libktune/ includes this header and
 * nothing else of ktune.
 */
#ifndef KT_EMBED_H
#define KT_EMBED_H

#include <stdio.h>

#include "core/runctx.h"

typedef struct kt_embed {
    FILE *out;               /* what the command prints on stdout (borrowed) */
    FILE *err;               /* its messages and progress (borrowed) */
    const char *program;     /* the ktune executable workers run, whose folder
                              * holds the plugins and the NVRTC helper */
    kt_run_verify_fn verify; /* NULL: the declared tolerances */
    void *verify_user;
} kt_embed;

/* The environment libktune reads outside a run (where the ktune program
 * and the session folder are), through the one settings record
 * (core/settings.h): pointers into the environment, NULL when unset or
 * empty, valid while the variable is not set again. */
typedef struct kt_embed_env {
    const char *ktune_exe; /* KTUNE_EXE */
    const char *path;      /* PATH */
    const char *tmpdir;    /* TMPDIR */
} kt_embed_env;

void kt_embed_env_read(kt_embed_env *out);

/* Runs argv ("ktune", "tune", CONFIG, options...: the command line the CLI
 * would take) in this process and returns the exit code the CLI would
 * (0, 1 or 2; its message on e->err). Nothing is printed to the process's
 * stdout or stderr, no signal handler, exit or process-wide stream setting
 * is made, and nothing is left for the next run. Runs are serialised: one
 * at a time in the process (getopt's state, the output table and the
 * message context are the process's); a second caller waits. argv is
 * borrowed; its pointers may be permuted. */
int kt_embed_run(int argc, char **argv, const kt_embed *e);

#endif
