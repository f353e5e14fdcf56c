// SPDX-License-Identifier: Apache-2.0
#include "core/msg.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/runctx.h"

/* The one piece of process state: set by main() before any message. */
static const char *command;

void kt_msg_set_command(const char *cmd)
{
    command = cmd && *cmd ? cmd : NULL;
}

const char *kt_msg_command(void)
{
    const kt_run_ctx *ctx = kt_run_ctx_get();

    if (ctx)
        return ctx->command && *ctx->command ? ctx->command : NULL;
    return command;
}

void kt_msg_prefix(FILE *out)
{
    const char *cmd = kt_msg_command();

    if (cmd)
        fprintf(out, "ktune %s: ", cmd);
    else
        fputs("ktune: ", out);
}

void kt_msg(const char *fmt, ...)
{
    va_list ap;
    FILE *err = kt_stderr();

    kt_msg_prefix(err);
    va_start(ap, fmt);
    vfprintf(err, fmt, ap);
    va_end(ap);
}

void kt_fmsg(FILE *out, const char *fmt, ...)
{
    va_list ap;
    kt_msg_prefix(out);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
}
