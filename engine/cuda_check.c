// SPDX-License-Identifier: Apache-2.0
#include "engine/cuda_check.h"

kt_status kt_cuda_classify(cudaError_t code)
{
    switch (code) {
    case cudaSuccess: return KT_S_OK;
    /* The launch was refused before running: this configuration cannot run
     * on this device, the context is intact. */
    case cudaErrorInvalidConfiguration:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorCooperativeLaunchTooLarge: return KT_S_INVALID;
    /* Sticky: the kernel faulted and the context is unusable. */
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed: return KT_S_EXEC;
    case cudaErrorMemoryAllocation: return KT_S_NOMEM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInvalidDevice: return KT_S_NO_DEVICE;
    default: return KT_S_CUDA;
    }
}

kt_status kt_cuda_status(cudaError_t code, const char *what, kt_err *err)
{
    kt_status status = kt_cuda_classify(code);
    if (status == KT_S_OK)
        return KT_S_OK;
    return kt_err_set(err, status, "%s: %s (%s)", what,
                      cudaGetErrorString(code), cudaGetErrorName(code));
}
