// SPDX-License-Identifier: Apache-2.0
#include "launches.h"

#include <string.h>

#define RT(x)                                                                  \
    {                                                                          \
        CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##x              \
    }
#define DRV(x)                                                                 \
    {                                                                          \
        CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##x                \
    }

const kt_cap_cb kt_cap_callbacks[] = {
#if CUDA_VERSION >= 13000
    RT(__cudaLaunchKernel_v13000),
    RT(__cudaLaunchKernel_ptsz_v13000),
#endif
    RT(cudaLaunchKernel_v7000),
    RT(cudaLaunchKernel_ptsz_v7000),
    RT(cudaLaunchKernelExC_v11060),
    RT(cudaLaunchKernelExC_ptsz_v11060),
    RT(cudaLaunchCooperativeKernel_v9000),
    RT(cudaLaunchCooperativeKernel_ptsz_v9000),
    RT(cudaGraphLaunch_v10000),
    RT(cudaGraphLaunch_ptsz_v10000),
    DRV(cuLaunchKernel),
    DRV(cuLaunchKernel_ptsz),
    DRV(cuLaunchKernelEx),
    DRV(cuLaunchKernelEx_ptsz),
    DRV(cuLaunchCooperativeKernel),
    DRV(cuLaunchCooperativeKernel_ptsz),
    DRV(cuGraphLaunch),
    DRV(cuGraphLaunch_ptsz)};
const size_t kt_cap_num_callbacks =
    sizeof kt_cap_callbacks / sizeof kt_cap_callbacks[0];

static const char coop[] = "a cooperative launch: not captured (its grid "
                           "cannot be reshaped)";
static const char cluster[] = "a thread-block-cluster launch: not captured";

/* ---- driver ------------------------------------------------------------ */

static void from_driver_ex(const cuLaunchKernelEx_params *p, kt_cap_launch *li)
{
    const CUlaunchConfig *c = p->config;
    li->f = p->f;
    li->params = p->kernelParams;
    li->extra = p->extra;
    li->grid[0] = c->gridDimX, li->grid[1] = c->gridDimY;
    li->grid[2] = c->gridDimZ;
    li->block[0] = c->blockDimX, li->block[1] = c->blockDimY;
    li->block[2] = c->blockDimZ;
    li->smem = c->sharedMemBytes;
    li->stream = c->hStream;
    for (unsigned i = 0; i < c->numAttrs; ++i) {
        const CUlaunchAttribute *a = &c->attrs[i];
        if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->value.cooperative)
            li->refused = coop;
        else if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
                 a->value.clusterDim.x * a->value.clusterDim.y *
                         a->value.clusterDim.z >
                     1)
            li->refused = cluster;
    }
}

static int driver_launch_of(CUpti_CallbackId cbid, const void *params,
                            kt_cap_launch *li)
{
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
        const cuLaunchKernel_params *p = params;
        li->f = p->f;
        li->grid[0] = p->gridDimX, li->grid[1] = p->gridDimY;
        li->grid[2] = p->gridDimZ;
        li->block[0] = p->blockDimX, li->block[1] = p->blockDimY;
        li->block[2] = p->blockDimZ;
        li->smem = p->sharedMemBytes;
        li->stream = p->hStream;
        li->params = p->kernelParams;
        li->extra = p->extra;
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
               cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
        from_driver_ex(params, li);
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
               cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz) {
        li->f = ((const cuLaunchCooperativeKernel_params *)params)->f;
        li->refused = coop;
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
               cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
        li->graph = 1;
    } else {
        return 0;
    }
    return 1;
}

/* ---- runtime ----------------------------------------------------------- */

static void dims(kt_cap_launch *li, dim3 g, dim3 b, size_t smem, CUstream s)
{
    li->grid[0] = g.x, li->grid[1] = g.y, li->grid[2] = g.z;
    li->block[0] = b.x, li->block[1] = b.y, li->block[2] = b.z;
    li->smem = (unsigned)smem;
    li->stream = s;
}

static void from_runtime_ex(const cudaLaunchKernelExC_v11060_params *p,
                            kt_cap_launch *li)
{
    const cudaLaunchConfig_t *c = p->config;
    li->stub = p->func;
    li->params = p->args;
    dims(li, c->gridDim, c->blockDim, c->dynamicSmemBytes, c->stream);
    for (unsigned i = 0; i < c->numAttrs; ++i) {
        const cudaLaunchAttribute *a = &c->attrs[i];
        if (a->id == cudaLaunchAttributeCooperative && a->val.cooperative)
            li->refused = coop;
        else if (a->id == cudaLaunchAttributeClusterDimension &&
                 a->val.clusterDim.x * a->val.clusterDim.y *
                         a->val.clusterDim.z >
                     1)
            li->refused = cluster;
    }
}

/* cudaLaunchKernel's parameters; also __cudaLaunchKernel's, whose
 * structure CUPTI's headers do not publish: its prototype
 * (crt/device_functions.h) is cudaLaunchKernel's with a cudaKernel_t (a
 * CUkernel) in place of the host stub, so the layout is the same. */
static void from_runtime(CUpti_CallbackId cbid, const void *params,
                         kt_cap_launch *li)
{
    const cudaLaunchKernel_v7000_params *p = params;
    (void)cbid;
#if CUDA_VERSION >= 13000
    if (cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000)
        li->kernel = (CUkernel)p->func;
    else
#endif
        li->stub = p->func;
    li->params = p->args;
    dims(li, p->gridDim, p->blockDim, p->sharedMem, p->stream);
}

static int is_ptsz(CUpti_CallbackId cbid)
{
    return
#if CUDA_VERSION >= 13000
        cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000 ||
#endif
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000;
}

static int runtime_launch_of(CUpti_CallbackId cbid, const void *params,
                             kt_cap_launch *li)
{
    switch (cbid) {
#if CUDA_VERSION >= 13000
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
#endif
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        from_runtime(cbid, params, li);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        from_runtime_ex(params, li);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
        from_runtime(cbid, params, li);
        li->refused = coop;
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
        li->graph = 1;
        li->runtime = 1;
        return 1;
    default: return 0;
    }
    /* The per-thread default stream is stream 0 of a _ptsz call. */
    if (is_ptsz(cbid) && !li->stream)
        li->stream = CU_STREAM_PER_THREAD;
    li->runtime = 1;
    return 1;
}

int kt_cap_launch_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                     const void *params, kt_cap_launch *li)
{
    memset(li, 0, sizeof *li);
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        return runtime_launch_of(cbid, params, li);
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        return driver_launch_of(cbid, params, li);
    return 0;
}
