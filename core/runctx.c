// SPDX-License-Identifier: Apache-2.0
#include "core/runctx.h"

/* Process-wide, not per thread: the threads a run starts (compile pool,
 * progress) print through it too. One library run at a time sets it
 * (app/embed.c holds a lock for the run); the ktune program never does. */
static kt_run_ctx *current;

void kt_run_ctx_set(kt_run_ctx *ctx)
{
    current = ctx;
}

kt_run_ctx *kt_run_ctx_get(void)
{
    return current;
}

FILE *kt_stdout(void)
{
    if (!current)
        return stdout;
    if (current->reserved)
        return kt_stderr();
    return current->out ? current->out : stdout;
}

FILE *kt_stderr(void)
{
    return current && current->err ? current->err : stderr;
}

const char *kt_run_program(void)
{
    return current ? current->program : NULL;
}
