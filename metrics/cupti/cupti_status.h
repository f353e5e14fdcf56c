// SPDX-License-Identifier: Apache-2.0
/*
 * CUPTI results as kt_status: whether a failure means "no counters here"
 * (privileges, another profiler attached, MIG, vGPU, confidential
 * computing, an unsupported device or chip: KT_S_UNSUPPORTED, the run goes
 * on without counters), a bad metric name (KT_S_INPUT), or a real failure
 * (KT_S_CUDA). C and C++.
 */
#ifndef KT_METRICS_CUPTI_STATUS_H
#define KT_METRICS_CUPTI_STATUS_H

#include <cupti_result.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The status a CUPTI result maps to, without a message. */
kt_status kt_cupti_classify(CUptiResult code);

/* Why counters are unavailable, in the user's words, for the results that
 * classify as KT_S_UNSUPPORTED; NULL for the others. */
const char *kt_cupti_unavailable_reason(CUptiResult code);

/* KT_S_OK for CUPTI_SUCCESS; else sets err naming `call`, the result's
 * name and (for unavailability) what the user can do, and returns the
 * classified status. */
kt_status kt_cupti_status(CUptiResult code, const char *call, kt_err *err);

#define KT_CUPTI_TRY(call, err) kt_cupti_status((call), #call, (err))

#ifdef __cplusplus
}
#endif

#endif
