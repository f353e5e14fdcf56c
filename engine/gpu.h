// SPDX-License-Identifier: Apache-2.0
/*
 * Opening the CUDA device a session runs on (kt_gpu, core/gpu_info.h:
 * the facts every result records about it).
 */
#ifndef KT_GPU_H
#define KT_GPU_H

#include "core/error.h"
#include "core/gpu_info.h"

/* Selects device `ordinal` and fills gpu. No device (no driver, no GPU, bad
 * ordinal) gives KT_S_NO_DEVICE with one line saying so. */
kt_status kt_gpu_open(int ordinal, kt_gpu *gpu, kt_err *err);

/* Number of devices, 0 when there is no driver or no GPU. */
int kt_gpu_count(void);

#endif
