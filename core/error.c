// SPDX-License-Identifier: Apache-2.0
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fits text (len bytes) into out[size]: whole when it fits, else its head
 * and its tail around a marker saying how much was cut, so both the
 * subject a message starts with and the reason it ends with survive a long
 * value quoted in the middle. */
static void fit(char *out, size_t size, const char *text, size_t len)
{
    char mark[64];
    size_t mlen, keep, head, tail;

    if (len < size) {
        memcpy(out, text, len + 1);
        return;
    }
    snprintf(mark, sizeof mark, " [... %zu characters cut ...] ",
             len - (size - 1));
    mlen = strlen(mark);
    /* The cut grows by the marker's own length. */
    snprintf(mark, sizeof mark, " [... %zu characters cut ...] ",
             len - (size - 1 - mlen));
    mlen = strlen(mark);
    keep = size - 1 - mlen;
    head = keep / 2;
    tail = keep - head;
    memcpy(out, text, head);
    memcpy(out + head, mark, mlen);
    memcpy(out + head + mlen, text + len - tail, tail);
    out[size - 1] = '\0';
}

static void set_message(kt_err *err, const char *fmt, va_list ap)
{
    va_list copy;
    int n;

    va_copy(copy, ap);
    n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    if (n >= (int)sizeof err->msg) {
        char *whole = malloc((size_t)n + 1);
        if (whole) {
            vsnprintf(whole, (size_t)n + 1, fmt, copy);
            fit(err->msg, sizeof err->msg, whole, (size_t)n);
            free(whole);
        }
    }
    va_end(copy);
}

kt_status kt_err_set(kt_err *err, kt_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        set_message(err, fmt, ap);
        va_end(ap);
    }
    return status;
}

kt_status kt_err_prefix(kt_err *err, const char *fmt, ...)
{
    char prefix[512], *whole;
    size_t plen, mlen;
    va_list ap;

    if (!err)
        return KT_S_OK;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    plen = strlen(prefix);
    mlen = strlen(err->msg);
    whole = malloc(plen + mlen + 1);
    if (!whole)
        return err->status;
    memcpy(whole, prefix, plen);
    memcpy(whole + plen, err->msg, mlen + 1);
    fit(err->msg, sizeof err->msg, whole, plen + mlen);
    free(whole);
    return err->status;
}

void kt_err_clear(kt_err *err)
{
    if (err) {
        err->status = KT_S_OK;
        err->msg[0] = '\0';
    }
}

const char *kt_status_name(kt_status status)
{
    switch (status) {
    case KT_S_OK: return "ok";
    case KT_S_INPUT: return "input";
    case KT_S_IO: return "io";
    case KT_S_PLUGIN: return "plugin";
    case KT_S_NO_DEVICE: return "no-device";
    case KT_S_CUDA: return "cuda";
    case KT_S_INVALID: return "invalid";
    case KT_S_MISMATCH: return "mismatch";
    case KT_S_EXEC: return "execution";
    case KT_S_NOMEM: return "out-of-memory";
    case KT_S_UNSUPPORTED: return "unsupported";
    case KT_S_TIMEOUT: return "timeout";
    case KT_S_CRASHED: return "crashed";
    }
    return "unknown";
}

int kt_status_exit_code(kt_status status)
{
    if (status == KT_S_OK)
        return 0;
    return status == KT_S_INPUT ? 2 : 1;
}
