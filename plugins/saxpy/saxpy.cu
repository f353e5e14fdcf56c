// SPDX-License-Identifier: Apache-2.0
// saxpy: y = a·x + y in place over n float32 values (BLAS's saxpy with unit
// strides), the first kernel of most CUDA introductions. The grid-stride
// loop is the experiment: a fixed grid of blocks_per_sm x SMs blocks walks
// the whole array, against one thread per element and against float4 loads.
//
// y is both input and output, so the operator declares
// KT_OP_MODIFIES_INPUTS: the host calls reset() (restoring y) before every
// timed launch and before verification. With a host that makes inputs on
// the device, x, y's initial values and the reference are made there and y
// is restored by a device-to-device copy; nothing passes through host
// memory. Otherwise (--verify host) they are made on the host as before.
#include <cuda_runtime.h>
#include <ktune/plugin_util.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

namespace
{

// Not a power of two, so a·x is rounded (fmaf rounds once, a·x + y in two
// steps twice; the tolerance allows both).
constexpr float ALPHA = 1.5f;

// ---------------------------------------------------------------- kernels

__global__ void saxpy_one_per_thread(float a, const float *__restrict__ x,
                                     float *__restrict__ y, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaf(a, x[i], y[i]);
}

__global__ void saxpy_grid_stride(float a, const float *__restrict__ x,
                                  float *__restrict__ y, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        y[i] = fmaf(a, x[i], y[i]);
}

// Grid-stride over float4s; the n % 4 tail goes to the first threads.
__global__ void saxpy_vec4(float a, const float *__restrict__ x,
                           float *__restrict__ y, size_t n)
{
    const size_t n4 = n / 4;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *y4 = reinterpret_cast<float4 *>(y);
    for (size_t i = tid; i < n4; i += stride) {
        const float4 xv = x4[i];
        float4 yv = y4[i];
        yv.x = fmaf(a, xv.x, yv.x);
        yv.y = fmaf(a, xv.y, yv.y);
        yv.z = fmaf(a, xv.z, yv.z);
        yv.w = fmaf(a, xv.w, yv.w);
        y4[i] = yv;
    }
    if (tid < n - 4 * n4)
        y[4 * n4 + tid] = fmaf(a, x[4 * n4 + tid], y[4 * n4 + tid]);
}

// ------------------------------------------------------------- parameters

enum { P_BLOCK = 0, P_BLOCKS_PER_SM = 1 };

const int64_t blocks_per_sm_values[] = {1, 2, 4, 8, 16, 32};

const kt_param_desc block_only[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
};
const kt_param_desc grid_stride_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("blocks_per_sm", "resident blocks per SM; grid = this x SMs",
                  blocks_per_sm_values, 4),
};

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    size_t n;
    int sm_count;
    float *x, *y;     // device
    float *y0;        // device: y's initial values (the device path)
    float *hx, *hy;   // host inputs, for reset() (the host path)
    double *want;     // reference, host (the host path)
    double *want_dev; // reference, device (the device path)
    double atol;
};

size_t size_n(const kt_problem *p)
{
    return (size_t)p->sizes[0];
}

// ---------------------------------------------------------------- shapes

int shape_one_per_thread(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    uint64_t block = (uint64_t)c->values[P_BLOCK];
    return kt_shape_1d(out, kt_div_up(size_n(p), block), block,
                       (const void *)saxpy_one_per_thread);
}

uint64_t grid_stride_grid(const kt_config *c, int sm_count)
{
    return (uint64_t)c->values[P_BLOCKS_PER_SM] * (uint64_t)sm_count;
}

int shape_grid_stride(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return kt_shape_1d(out, grid_stride_grid(c, p->device->sm_count),
                       (uint64_t)c->values[P_BLOCK],
                       (const void *)saxpy_grid_stride);
}

int shape_vec4(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return kt_shape_1d(out, grid_stride_grid(c, p->device->sm_count),
                       (uint64_t)c->values[P_BLOCK], (const void *)saxpy_vec4);
}

int check_grid_stride(const kt_problem *p, const kt_config *c, char *why,
                      size_t why_size)
{
    return kt_check_resident(p, c->values[P_BLOCK], c->values[P_BLOCKS_PER_SM],
                             why, why_size);
}

// --------------------------------------------------------------- launches

// The geometry is the shape's (the host computed it with shape()).
int launch_one_per_thread(void *st, const kt_config *, const kt_shape *sh,
                          void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, saxpy_one_per_thread, ALPHA, s->x, s->y,
                     s->n);
}

int launch_grid_stride(void *st, const kt_config *, const kt_shape *sh,
                       void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, saxpy_grid_stride, ALPHA, s->x, s->y, s->n);
}

int launch_vec4(void *st, const kt_config *, const kt_shape *sh, void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, saxpy_vec4, ALPHA, s->x, s->y, s->n);
}

// -------------------------------------------------------------- lifecycle

int work(const kt_problem *p, kt_work *out)
{
    double n = (double)size_n(p);
    out->bytes_read = 8.0 * n;
    out->bytes_written = 4.0 * n;
    out->flops = 2.0 * n;
    return KT_OK;
}

void teardown(void *st)
{
    state *s = (state *)st;
    if (!s)
        return;
    if (s->x)
        s->host->free_device(s->host, s->x);
    if (s->y)
        s->host->free_device(s->host, s->y);
    if (s->y0)
        s->host->free_device(s->host, s->y0);
    if (s->want_dev)
        s->host->free_device(s->host, s->want_dev);
    free(s->hx);
    free(s->hy);
    free(s->want);
    free(s);
}

// Restores y: from its device copy on the device path, from the host copy
// otherwise (then also the end-to-end scope's host-to-device copy). x is
// never written.
int reset(void *st)
{
    state *s = (state *)st;
    size_t bytes = s->n * sizeof(float);
    cudaError_t e;

    if (!s->y0)
        return s->host->upload(s->host, s->y, s->hy, bytes);
    // A device-to-device cudaMemcpy returns before the copy is done, and
    // the timed stream does not wait for the legacy stream: y is restored
    // when reset returns only after the wait (the upload's contract).
    if ((e = cudaMemcpy(s->y, s->y0, bytes, cudaMemcpyDeviceToDevice)) !=
            cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess)
        return s->host->error(s->host, "restoring y: %s",
                              cudaGetErrorString(e));
    return KT_OK;
}

// The tolerance for a largest |a x| + |y| of worst: fmaf rounds once,
// a x then + y twice; each rounding is at most u (|a x| + |y|), u = 2^-24,
// so 2u of the largest covers every element, cancellation (want near 0)
// included; 3u for margin.
double tolerance(double worst)
{
    return 3.0 / 16777216.0 * worst;
}

__global__ void reference_saxpy(const float *__restrict__ x,
                                const float *__restrict__ y, double *want,
                                size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        want[i] = (double)ALPHA * x[i] + y[i];
}

// The device path: x and y in [-1, 1) made on the GPU (the same values as
// the host path's), y's copy and the reference kept there. |a x| + |y| is
// below |a| + 1 for every element, the bound the tolerance uses.
int inputs_on_device(state *s)
{
    const kt_host *host = s->host;
    size_t bytes = s->n * sizeof(float);
    cudaError_t e;

    if (host->alloc_device(host, bytes, KT_MEM_SCRATCH, "y (initial)",
                           (void **)&s->y0) ||
        host->alloc_device(host, s->n * sizeof(double), KT_MEM_SCRATCH,
                           "y (reference)", (void **)&s->want_dev) ||
        host->random_f32_device(host, 0, s->x, s->n, -1.0f, 1.0f) ||
        host->random_f32_device(host, 1, s->y0, s->n, -1.0f, 1.0f))
        return KT_FAIL;
    reference_saxpy<<<(unsigned)(4 * s->sm_count), 256>>>(s->x, s->y0,
                                                          s->want_dev, s->n);
    if ((e = cudaGetLastError()) != cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess)
        return host->error(host, "reference: %s", cudaGetErrorString(e));
    s->atol = tolerance(fabs((double)ALPHA) + 1.0);
    return reset(s);
}

// The host path: inputs and the reference made in host memory, uploaded.
int inputs_on_host(state *s)
{
    const kt_host *host = s->host;
    size_t n = s->n, bytes = n * sizeof(float);
    double worst = 0.0;

    s->hx = (float *)malloc(bytes);
    s->hy = (float *)malloc(bytes);
    s->want = (double *)malloc(n * sizeof(double));
    if (!s->hx || !s->hy || !s->want)
        return host->error(host, "out of host memory for n = %zu", n);
    host->random_f32(host, 0, s->hx, n, -1.0f, 1.0f);
    host->random_f32(host, 1, s->hy, n, -1.0f, 1.0f);
    for (size_t i = 0; i < n; ++i) {
        double ax = (double)ALPHA * s->hx[i];
        s->want[i] = ax + s->hy[i];
        if (fabs(ax) + fabs((double)s->hy[i]) > worst)
            worst = fabs(ax) + fabs((double)s->hy[i]);
    }
    s->atol = tolerance(worst);
    if (host->upload(host, s->x, s->hx, bytes) != KT_OK || reset(s) != KT_OK)
        return KT_FAIL;
    return kt_reference_to_device(host, "y (reference)", &s->want, n,
                                  &s->want_dev);
}

int setup(const kt_host *host, const kt_problem *p, void **out)
{
    state *s = (state *)calloc(1, sizeof(state));
    size_t bytes = size_n(p) * sizeof(float);
    *out = s;
    if (!s)
        return host->error(host, "out of host memory");
    s->host = host;
    s->n = size_n(p);
    s->sm_count = host->device->sm_count;
    if (host->alloc_device(host, bytes, KT_MEM_INPUT, "x", (void **)&s->x) ||
        host->alloc_device(host, bytes, KT_MEM_INPUT, "y", (void **)&s->y))
        return KT_FAIL;
    if (KT_HOST_HAS(host, check_f32_device) &&
        KT_HOST_HAS(host, random_f32_device))
        return inputs_on_device(s);
    return inputs_on_host(s);
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    state *s = (state *)st;
    return kt_check_kept(s->host, "y", s->y, s->want, s->want_dev, s->n, 0.0,
                         s->atol);
}

const kt_size_desc sizes[] = {
    KT_SIZE("n", "number of elements", 1 << 24, 1, (int64_t)1 << 33),
};

const kt_variant variants[] = {
    KT_VARIANT("grid_stride", "blocks_per_sm x SMs blocks loop over the array",
               grid_stride_params, shape_grid_stride, check_grid_stride,
               launch_grid_stride),
    KT_VARIANT("one_per_thread", "one element per thread", block_only,
               shape_one_per_thread, nullptr, launch_one_per_thread),
    KT_VARIANT("vec4", "grid-stride loop over float4s, scalar tail",
               grid_stride_params, shape_vec4, check_grid_stride, launch_vec4),
};

const kt_operator operators[] = {
    KT_OPERATOR("saxpy",
                "y = 1.5 x + y in place, float32, inputs uniform in [-1, 1)",
                KT_OP_MODIFIES_INPUTS, sizes, variants, work, setup, reset,
                verify, teardown),
};

const kt_plugin plugin = KT_PLUGIN(
    "saxpy", "1.0.0", "y = a x + y: grid-stride loop, one per thread, float4",
    operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
