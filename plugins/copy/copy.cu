// SPDX-License-Identifier: Apache-2.0
// copy: b = a, n float32 values, device to device. The copy ceiling that
// ktune's calibration measures with cudaMemcpy, reproduced with kernels:
// one element per thread, a grid-stride loop, float4 loads and stores, and
// cudaMemcpyAsync itself as the reference.
#include <cuda_runtime.h>
#include <ktune/plugin_util.h>

#include <stdio.h>
#include <stdlib.h>

namespace
{

// ---------------------------------------------------------------- kernels

__global__ void copy_one_per_thread(const float *__restrict__ a,
                                    float *__restrict__ b, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i];
}

__global__ void copy_grid_stride(const float *__restrict__ a,
                                 float *__restrict__ b, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        b[i] = a[i];
}

// ITEMS float4s per thread, blockDim.x apart (each load instruction of a
// warp coalesced), all loads before the first store; the n % 4 tail goes to
// the first threads of the grid.
template <int ITEMS>
__global__ void copy_vec4(const float *__restrict__ a, float *__restrict__ b,
                          size_t n)
{
    const size_t n4 = n / 4;
    const float4 *a4 = reinterpret_cast<const float4 *>(a);
    float4 *b4 = reinterpret_cast<float4 *>(b);
    const size_t base = (size_t)blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
    float4 v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < n4)
            v[k] = a4[i];
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < n4)
            b4[i] = v[k];
    }
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n - 4 * n4)
        b[4 * n4 + t] = a[4 * n4 + t];
}

// ------------------------------------------------------------- parameters

enum { P_BLOCK = 0, P_SECOND = 1 };

const int64_t blocks_per_sm_values[] = {1, 2, 4, 8, 16, 32};
const int64_t items_values[] = {1, 2, 4, 8};

const kt_param_desc block_only[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
};
const kt_param_desc grid_stride_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("blocks_per_sm", "resident blocks per SM; grid = this x SMs",
                  blocks_per_sm_values, 4),
};
const kt_param_desc vec4_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("items", "float4 vectors per thread", items_values, 2),
};

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    size_t n;
    float *a, *b;     // device
    float *ha;        // host input, for reset() and the reference
    double *want;     // reference, host (the host path)
    double *want_dev; // reference, device (the device path)
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
                       (const void *)copy_one_per_thread);
}

int shape_grid_stride(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return kt_shape_1d(
        out, (uint64_t)c->values[P_SECOND] * (uint64_t)p->device->sm_count,
        (uint64_t)c->values[P_BLOCK], (const void *)copy_grid_stride);
}

typedef void (*vec4_fn)(const float *, float *, size_t);

vec4_fn vec4_kernel(int64_t items)
{
    switch (items) {
    case 1: return copy_vec4<1>;
    case 2: return copy_vec4<2>;
    case 4: return copy_vec4<4>;
    default: return copy_vec4<8>;
    }
}

// Enough blocks for the float4s, and at least enough threads for the tail.
uint64_t vec4_grid(size_t n, const kt_config *c)
{
    uint64_t block = (uint64_t)c->values[P_BLOCK];
    uint64_t grid = kt_div_up(n / 4, block * (uint64_t)c->values[P_SECOND]);
    uint64_t tail = n % 4;
    if (grid * block < tail)
        grid = kt_div_up(tail, block);
    return grid;
}

int shape_vec4(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return kt_shape_1d(out, vec4_grid(size_n(p), c),
                       (uint64_t)c->values[P_BLOCK],
                       (const void *)vec4_kernel(c->values[P_SECOND]));
}

int shape_memcpy(const kt_problem *, const kt_config *, kt_shape *out)
{
    // The copy engine or the runtime's own kernel: this nominal shape is
    // what the host checks and what sets the boundary sizes of
    // verification.
    return kt_shape_1d(out, 1, 256, nullptr);
}

int check_grid_stride(const kt_problem *p, const kt_config *c, char *why,
                      size_t why_size)
{
    return kt_check_resident(p, c->values[P_BLOCK], c->values[P_SECOND], why,
                             why_size);
}

// --------------------------------------------------------------- launches

// The geometry is the shape's (the host computed it with shape()).
int launch_one_per_thread(void *st, const kt_config *, const kt_shape *sh,
                          void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, copy_one_per_thread, s->a, s->b, s->n);
}

int launch_grid_stride(void *st, const kt_config *, const kt_shape *sh,
                       void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, copy_grid_stride, s->a, s->b, s->n);
}

int launch_vec4(void *st, const kt_config *c, const kt_shape *sh, void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, vec4_kernel(c->values[P_SECOND]), s->a, s->b,
                     s->n);
}

int launch_memcpy(void *st, const kt_config *, const kt_shape *, void *stream)
{
    state *s = (state *)st;
    cudaError_t e =
        cudaMemcpyAsync(s->b, s->a, s->n * sizeof(float),
                        cudaMemcpyDeviceToDevice, (cudaStream_t)stream);
    return e == cudaSuccess ? KT_OK
                            : s->host->error(s->host, "cudaMemcpyAsync: %s",
                                             cudaGetErrorString(e));
}

// -------------------------------------------------------------- lifecycle

int work(const kt_problem *p, kt_work *out)
{
    double n = (double)size_n(p);
    out->bytes_read = 4.0 * n;
    out->bytes_written = 4.0 * n;
    out->flops = 0.0;
    return KT_OK;
}

void teardown(void *st)
{
    state *s = (state *)st;
    if (!s)
        return;
    if (s->a)
        s->host->free_device(s->host, s->a);
    if (s->b)
        s->host->free_device(s->host, s->b);
    if (s->want_dev)
        s->host->free_device(s->host, s->want_dev);
    free(s->ha);
    free(s->want);
    free(s);
}

// The reference on the device path: the input widened to double, the
// same bits as the host's loop.
__global__ void reference_copy(const float *__restrict__ a,
                               double *__restrict__ want, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        want[i] = (double)a[i];
}

// The host copy of the input: made in setup on the host path, and on the
// device path only when reset() first needs it (the end-to-end scope's
// host-to-device copy); the same values either way.
int host_input(state *s)
{
    if (s->ha)
        return KT_OK;
    s->ha = (float *)malloc(s->n * sizeof(float));
    if (!s->ha)
        return s->host->error(s->host, "out of host memory for n = %zu", s->n);
    s->host->random_f32(s->host, 0, s->ha, s->n, -1.0f, 1.0f);
    return KT_OK;
}

int reset(void *st)
{
    state *s = (state *)st;
    if (host_input(s) != KT_OK)
        return KT_FAIL;
    return s->host->upload(s->host, s->a, s->ha, s->n * sizeof(float));
}

// The device path: the input made and the reference computed on the GPU,
// nothing in host memory.
int inputs_on_device(state *s)
{
    const kt_host *host = s->host;
    cudaError_t e;

    if (host->random_f32_device(host, 0, s->a, s->n, -1.0f, 1.0f) ||
        host->alloc_device(host, s->n * sizeof(double), KT_MEM_SCRATCH,
                           "b (reference)", (void **)&s->want_dev))
        return KT_FAIL;
    reference_copy<<<1024, 256>>>(s->a, s->want_dev, s->n);
    if ((e = cudaGetLastError()) != cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess)
        return host->error(host, "reference: %s", cudaGetErrorString(e));
    return KT_OK;
}

int setup(const kt_host *host, const kt_problem *p, void **out)
{
    state *s = (state *)calloc(1, sizeof(state));
    size_t n = size_n(p), bytes = n * sizeof(float);
    *out = s;
    if (!s)
        return host->error(host, "out of host memory");
    s->host = host;
    s->n = n;
    if (host->alloc_device(host, bytes, KT_MEM_INPUT, "a", (void **)&s->a) ||
        host->alloc_device(host, bytes, KT_MEM_OUTPUT, "b", (void **)&s->b))
        return KT_FAIL;
    if (KT_HOST_HAS(host, check_f32_device) &&
        KT_HOST_HAS(host, random_f32_device))
        return inputs_on_device(s);
    if (reset(s) != KT_OK)
        return KT_FAIL;
    s->want = (double *)malloc(n * sizeof(double));
    if (!s->want)
        return host->error(host, "out of host memory for n = %zu", n);
    for (size_t i = 0; i < n; ++i)
        s->want[i] = s->ha[i];
    return kt_reference_to_device(host, "b (reference)", &s->want, n,
                                  &s->want_dev);
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    state *s = (state *)st;
    // A copy is exact: every element bit for bit (the poison is NaN).
    return kt_check_kept(s->host, "b", s->b, s->want, s->want_dev, s->n, 0.0,
                         0.0);
}

const kt_size_desc sizes[] = {
    KT_SIZE("n", "number of elements", 1 << 28, 1, (int64_t)1 << 33),
};

const kt_variant variants[] = {
    KT_VARIANT("vec4",
               "float4 loads then stores, `items` per thread, scalar tail",
               vec4_params, shape_vec4, nullptr, launch_vec4),
    KT_VARIANT("one_per_thread", "one element per thread", block_only,
               shape_one_per_thread, nullptr, launch_one_per_thread),
    KT_VARIANT("grid_stride", "blocks_per_sm x SMs blocks loop over the array",
               grid_stride_params, shape_grid_stride, check_grid_stride,
               launch_grid_stride),
    KT_VARIANT_REFERENCE("memcpy",
                         "cudaMemcpyAsync device to device, the reference",
                         shape_memcpy, nullptr, launch_memcpy),
};

const kt_operator operators[] = {
    KT_OPERATOR("copy", "b = a, n float32 values, device to device", 0, sizes,
                variants, work, setup, reset, verify, teardown),
};

const kt_plugin plugin = KT_PLUGIN(
    "copy", "1.0.0", "b = a device to device: kernels against cudaMemcpyAsync",
    operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
