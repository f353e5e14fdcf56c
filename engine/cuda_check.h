// SPDX-License-Identifier: Apache-2.0
/*
 * Turning CUDA runtime errors into kt_err, classified by what they mean for
 * the run: a refused launch (this configuration is invalid), an execution
 * error (the context is lost: only a new process recovers), or an ordinary
 * API failure.
 */
#ifndef KT_CUDA_CHECK_H
#define KT_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "core/error.h"

/* KT_S_OK when code is cudaSuccess; else sets err with `what` (the call or
 * the step), the error's name and text, and returns the classified status. */
kt_status kt_cuda_status(cudaError_t code, const char *what, kt_err *err);

/* The status an error code maps to, without a message. */
kt_status kt_cuda_classify(cudaError_t code);

#define KT_CUDA_TRY(call, err) kt_cuda_status((call), #call, (err))

#endif
