// SPDX-License-Identifier: Apache-2.0
/*
 * The launch callbacks the capturer enables, and what each one's
 * parameters say about the launch (capture/trace/capturer.c). CUDA
 * programs launch kernels through two layers, and CUPTI reports a call
 * only in the layer it was made in: the driver API callbacks never fire
 * for the driver calls the runtime makes internally. So both domains are
 * needed:
 *   runtime: __cudaLaunchKernel (what <<< >>> compiles to from CUDA 13 on),
 *            cudaLaunchKernel (<<< >>> before CUDA 13, and explicit calls),
 *            cudaLaunchKernelExC (cudaLaunchKernelEx), cooperative
 *            launches and cudaGraphLaunch (refused);
 *   driver:  cuLaunchKernel (CuPy's RawKernel, NVRTC users), cuLaunchKernelEx,
 *            cuLaunchCooperativeKernel and cuGraphLaunch (refused);
 * each with its per-thread-default-stream (_ptsz) twin. Links nothing of
 * ktune.
 */
#ifndef KT_CAPTURE_TRACE_LAUNCHES_H
#define KT_CAPTURE_TRACE_LAUNCHES_H

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>

/* One launch as its callback describes it. */
typedef struct kt_cap_launch {
    CUfunction f;       /* the driver's handle; NULL until resolved */
    CUkernel kernel;    /* __cudaLaunchKernel: the runtime's kernel handle */
    const void *stub;   /* cudaLaunchKernel*: the host stub (or a handle) */
    const char *symbol; /* CUPTI's name of the kernel, or NULL */
    unsigned grid[3], block[3], smem;
    CUstream stream;
    void **params, **extra;
    const char *refused; /* set when the launch kind cannot be captured */
    const char *how;     /* where f came from (--verbose) */
    int runtime;         /* 1: a runtime API callback */
    int graph;           /* 1: a graph launch (no kernel of its own) */
} kt_cap_launch;

/* The callbacks to enable, as (domain, id) pairs. */
typedef struct kt_cap_cb {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId id;
} kt_cap_cb;
extern const kt_cap_cb kt_cap_callbacks[];
extern const size_t kt_cap_num_callbacks;

/* Fills li from a launch callback's parameters; 0 when (domain, cbid) is
 * not a launch the capturer knows. */
int kt_cap_launch_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                     const void *params, kt_cap_launch *li);

#endif
