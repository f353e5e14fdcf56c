#include "core/error.h"

#include <stdio.h>
#include <string.h>

kt_status kt_err_set(kt_err *err, kt_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

kt_status kt_err_prefix(kt_err *err, const char *fmt, ...)
{
    char prefix[512];
    size_t plen, mlen;
    va_list ap;

    if (!err)
        return KT_S_OK;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    plen = strlen(prefix);
    if (plen >= sizeof err->msg)
        plen = sizeof err->msg - 1;
    mlen = strlen(err->msg);
    if (plen + mlen >= sizeof err->msg)
        mlen = sizeof err->msg - 1 - plen;
    memmove(err->msg + plen, err->msg, mlen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen + mlen] = '\0';
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
