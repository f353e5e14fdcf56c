// SPDX-License-Identifier: Apache-2.0
#include "core/msg.h"

#include <stdarg.h>
#include <stdio.h>

/* The one piece of process state: set by main() before any message. */
static const char *command;

void kt_msg_set_command(const char *cmd)
{
    command = cmd && *cmd ? cmd : NULL;
}

const char *kt_msg_command(void)
{
    return command;
}

void kt_msg_prefix(FILE *out)
{
    if (command)
        fprintf(out, "ktune %s: ", command);
    else
        fputs("ktune: ", out);
}

void kt_msg(const char *fmt, ...)
{
    va_list ap;
    kt_msg_prefix(stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
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
