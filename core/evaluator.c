// SPDX-License-Identifier: Apache-2.0
/* The evaluator's own data: status names, and frees of its results (the
 * evaluators themselves are in engine/ and isolation/, records/replay.c). */
#include "core/evaluator.h"

#include <stdlib.h>
#include <string.h>

const char *kt_eval_status_name(kt_eval_status s)
{
    switch (s) {
    case KT_EVAL_OK: return "ok";
    case KT_EVAL_INVALID: return "invalid";
    case KT_EVAL_MISMATCH: return "mismatch";
    case KT_EVAL_ERROR: return "error";
    case KT_EVAL_EXEC: return "execution-error";
    case KT_EVAL_CRASH: return "crashed";
    case KT_EVAL_TIMEOUT: return "timeout";
    }
    return "unknown";
}

int kt_eval_is_compile_failure(kt_eval_status status, const char *reason)
{
    return status == KT_EVAL_INVALID && reason &&
           strstr(reason, KT_COMPILE_FAILED) != NULL;
}

kt_eval_status kt_eval_status_from(kt_status s)
{
    switch (s) {
    case KT_S_OK: return KT_EVAL_OK;
    case KT_S_INVALID: return KT_EVAL_INVALID;
    case KT_S_MISMATCH: return KT_EVAL_MISMATCH;
    case KT_S_EXEC: return KT_EVAL_EXEC;
    default: return KT_EVAL_ERROR;
    }
}

void kt_eval_result_free(kt_eval_result *r)
{
    kt_timing_free(&r->timing);
}

void kt_profile_result_free(kt_profile_result *r)
{
    free(r->values);
    r->values = NULL;
    r->num_values = 0;
}
