// SPDX-License-Identifier: Apache-2.0
/*
 * kt_err: a status code plus the sentence the user will read.
 *
 * Every fallible function takes a `kt_err *err` last and returns its status.
 * The message names the file, field or call, what was expected and what was
 * found. Callers may pass NULL when they do not need the text.
 */
#ifndef KT_ERROR_H
#define KT_ERROR_H

#include <stdarg.h>

typedef enum kt_status {
    KT_S_OK = 0,
    KT_S_INPUT,     /* bad user input: usage, names, values, files -> exit 2 */
    KT_S_IO,        /* reading or writing a file failed */
    KT_S_PLUGIN,    /* a plugin failed to load or a callback failed */
    KT_S_NO_DEVICE, /* no usable CUDA device */
    KT_S_CUDA,      /* a CUDA API call failed; the context is still usable */
    KT_S_INVALID,   /* configuration cannot run: constraint, device limit,
                       launch refused for resources */
    KT_S_MISMATCH,  /* verification failed */
    KT_S_EXEC,      /* kernel execution error: the context is unusable */
    KT_S_NOMEM,     /* host or device memory exhausted */
    KT_S_UNSUPPORTED, /* the feature is not available here */
    KT_S_TIMEOUT,     /* a time limit passed (a worker was killed) */
    KT_S_CRASHED      /* a worker process died */
} kt_status;

typedef struct kt_err {
    kt_status status;
    char msg[1024];
} kt_err;

/* Records status and message (printf-style) in err (may be NULL); returns
 * status so callers can write `return kt_err_set(...)`. */
kt_status kt_err_set(kt_err *err, kt_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends context ("loading x.so: ") to an existing message. */
kt_status kt_err_prefix(kt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void kt_err_clear(kt_err *err);

/* Short stable name of a status, e.g. "mismatch". */
const char *kt_status_name(kt_status status);

/* Exit code of the CLI for a status: 0 ok, 2 user input, 1 anything else. */
int kt_status_exit_code(kt_status status);

#endif
