// SPDX-License-Identifier: Apache-2.0
#include "metrics/cupti/cupti_status.h"

#include <cupti.h>
#include <stddef.h>

const char *kt_cupti_unavailable_reason(CUptiResult code)
{
    switch (code) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        return "the driver restricts GPU performance counters to admin users "
               "(NVreg_RestrictProfilingToAdminUsers=1); run as root or "
               "lift the restriction";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return "profiling is not enabled for this virtual GPU";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
        return "another profiler (Nsight Compute/Systems, cuda-gdb, "
               "compute-sanitizer) holds the counters; run without it or "
               "pass --no-counters";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        return "counters cannot be read on a MIG instance";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        return "counters cannot be read with confidential computing on";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        return "counters cannot be read on a CMP device";
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
        return "counters cannot be read with SLI on";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
        return "counters cannot be read under this WSL set-up";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        return "counters cannot be read on this virtual GPU";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
        return "this device or driver does not support the CUPTI range "
               "profiler";
    case CUPTI_ERROR_INVALID_CHIP_NAME:
        return "this CUPTI does not know the device's chip";
    case CUPTI_ERROR_DISABLED: return "profiling is disabled on this system";
    default: return NULL;
    }
}

kt_status kt_cupti_classify(CUptiResult code)
{
    if (code == CUPTI_SUCCESS)
        return KT_S_OK;
    if (kt_cupti_unavailable_reason(code))
        return KT_S_UNSUPPORTED;
    if (code == CUPTI_ERROR_INVALID_METRIC_NAME)
        return KT_S_INPUT;
    if (code == CUPTI_ERROR_OUT_OF_MEMORY)
        return KT_S_NOMEM;
    return KT_S_CUDA;
}

kt_status kt_cupti_status(CUptiResult code, const char *call, kt_err *err)
{
    const char *name = NULL, *why = kt_cupti_unavailable_reason(code);
    kt_status status = kt_cupti_classify(code);

    if (status == KT_S_OK)
        return KT_S_OK;
    if (cuptiGetResultString(code, &name) != CUPTI_SUCCESS || !name)
        name = "unknown CUPTI result";
    if (status == KT_S_UNSUPPORTED)
        return kt_err_set(err, status, "no hardware counters: %s (%s: %s)", why,
                          call, name);
    return kt_err_set(err, status, "%s failed: %s (%d)", call, name, (int)code);
}
