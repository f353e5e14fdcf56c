// SPDX-License-Identifier: Apache-2.0
#include "core/msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

void kt_term_scrub(char *s)
{
    for (unsigned char *p = (unsigned char *)s; p && *p; ++p) {
        if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            p[0] = p[1] = '?';
            ++p;
        } else if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7F) {
            *p = '?';
        }
    }
}

/* The message formatted, scrubbed of terminal controls, then written:
 * messages quote file contents (names, values) that may hold escapes. */
static void scrubbed(FILE *out, const char *fmt, va_list ap)
{
    va_list again;
    char *text = NULL;
    int n;

    kt_msg_prefix(out);
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    if (n >= 0 && (text = malloc((size_t)n + 1)))
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    if (!text) {
        fputs("(a message could not be formatted: out of memory)\n", out);
        return;
    }
    kt_term_scrub(text);
    fputs(text, out);
    free(text);
}

void kt_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    scrubbed(kt_stderr(), fmt, ap);
    va_end(ap);
}

void kt_fmsg(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    scrubbed(out, fmt, ap);
    va_end(ap);
}
