// SPDX-License-Identifier: Apache-2.0
/*
 * kt_run_ctx: where a command run inside another program (libktune) sends
 * what the CLI sends to the process's own streams. The ktune program runs
 * without one: stdout, stderr, /proc/self/exe, signal handlers, exactly as
 * before. A library run enters a context for its thread; then the command's
 * output goes to ctx->out, every message to ctx->err, the ktune program
 * named by ctx->program is the executable workers start and the folder
 * plugins and the NVRTC helper are found in, and no process-wide effect
 * (signal handlers, file descriptor 1 duplicated over) is made.
 */
#ifndef KT_RUNCTX_H
#define KT_RUNCTX_H

#include <stdio.h>

/* One output of a point handed to a verification callback: the kernel's
 * values, count elements of the declared type (its name, "f32"), and the
 * reference's for the same elements as doubles. Borrowed for the call. */
typedef struct kt_run_output {
    const char *name;
    const char *type;
    size_t count;
    const void *data;
    const double *expected;
} kt_run_output;

/* 1: the outputs pass; 0: they fail, with msg (msg_size bytes, "" on
 * entry) saying why. */
typedef int (*kt_run_verify_fn)(void *user, const kt_run_output *outputs,
                                size_t num_outputs, char *msg, size_t msg_size);

typedef struct kt_run_ctx {
    FILE *out; /* the command's stdout (borrowed), NULL: stdout */
    FILE *err; /* its messages and progress (borrowed), NULL: stderr */
    const char *program; /* the ktune executable (borrowed), NULL: this one */
    const char *command; /* the command messages name ("tune") */
    /* Set: a declared operator's outputs are verified by this function (in
     * place of its tolerances) in the process that ran the kernel, which
     * is this one only when isolation is off (engine/declared_run.c). */
    kt_run_verify_fn verify;
    void *verify_user;
    int reserved; /* set by kt_out_reserve_stdout: out is the document's */
} kt_run_ctx;

/* Makes ctx the process's context (NULL: none) until the next call; ctx
 * is borrowed and must outlive it. Every thread sees it: one run at a time
 * (the caller serialises, app/embed.h). */
void kt_run_ctx_set(kt_run_ctx *ctx);

/* The calling thread's context, or NULL (the ktune program). */
kt_run_ctx *kt_run_ctx_get(void);

/* The streams of the run: the context's, else stdout and stderr.
 * Once the document reserved stdout, kt_stdout is the messages' stream, as
 * the CLI's fd 1 then is a copy of stderr (core/outfile.h). */
FILE *kt_stdout(void);
FILE *kt_stderr(void);

/* The ktune executable workers run: the context's program, or NULL (this
 * process's own, isolation/worker.h). */
const char *kt_run_program(void);

#endif
