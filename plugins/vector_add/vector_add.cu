// SPDX-License-Identifier: Apache-2.0
// vector_add: c = a + b over n float32 values, in four thread-to-data
// mappings. The reference experiment of coalescing: `coalesced` and
// `strided` launch the same grid and block and differ only in which element
// a thread touches.
#include <cuda_runtime.h>
#include <ktune/plugin_util.h>

#include <stdio.h>
#include <stdlib.h>

namespace
{

// ---------------------------------------------------------------- kernels

__global__ void add_coalesced(const float *__restrict__ a,
                              const float *__restrict__ b,
                              float *__restrict__ c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// Neighbouring threads of a warp are gridDim.x elements apart: every thread
// touches its own 32-byte sector.
__global__ void add_strided(const float *__restrict__ a,
                            const float *__restrict__ b, float *__restrict__ c,
                            size_t n)
{
    size_t i = (size_t)threadIdx.x * gridDim.x + blockIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void add_grid_stride(const float *__restrict__ a,
                                const float *__restrict__ b,
                                float *__restrict__ c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        c[i] = a[i] + b[i];
}

// Each thread adds ITEMS float4 vectors, blockDim.x apart so every load
// instruction of a warp is coalesced; all loads are issued before the first
// add to keep ITEMS * 2 requests in flight. The n % 4 tail is added by the
// first threads of the grid.
template <int ITEMS>
__global__ void add_vec4(const float4 *__restrict__ a,
                         const float4 *__restrict__ b, float4 *__restrict__ c,
                         size_t n4, const float *__restrict__ a_tail,
                         const float *__restrict__ b_tail,
                         float *__restrict__ c_tail, unsigned tail)
{
    size_t base = (size_t)blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
    float4 x[ITEMS], y[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        size_t i = base + (size_t)k * blockDim.x;
        if (i < n4) {
            x[k] = a[i];
            y[k] = b[i];
        }
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        size_t i = base + (size_t)k * blockDim.x;
        if (i < n4)
            c[i] = make_float4(x[k].x + y[k].x, x[k].y + y[k].y,
                               x[k].z + y[k].z, x[k].w + y[k].w);
    }
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < tail)
        c_tail[t] = a_tail[t] + b_tail[t];
}

// ------------------------------------------------------------- parameters

enum { P_BLOCK = 0, P_BLOCKS_PER_SM = 1, P_ITEMS = 1 };

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
    KT_PARAM_LIST("items", "float4 vectors per thread", items_values, 1),
};

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    size_t n;
    float *a, *b, *c; // device
    float *ha, *hb;   // host inputs, for reset and the reference
    double *want;     // reference in double, host (the host path)
    double *want_dev; // reference in double, device (the device path)
};

size_t size_n(const kt_problem *p)
{
    return (size_t)p->sizes[0];
}

// ---------------------------------------------------------------- shapes

int shape_one_per_thread(const kt_problem *p, const kt_config *cfg,
                         kt_shape *out)
{
    uint64_t block = (uint64_t)cfg->values[P_BLOCK];
    return kt_shape_1d(out, kt_div_up(size_n(p), block), block,
                       (const void *)add_coalesced);
}

int shape_strided(const kt_problem *p, const kt_config *cfg, kt_shape *out)
{
    int rc = shape_one_per_thread(p, cfg, out);
    out->kernel = (const void *)add_strided;
    return rc;
}

int shape_grid_stride(const kt_problem *p, const kt_config *cfg, kt_shape *out)
{
    uint64_t grid =
        (uint64_t)cfg->values[P_BLOCKS_PER_SM] * (uint64_t)p->device->sm_count;
    return kt_shape_1d(out, grid, (uint64_t)cfg->values[P_BLOCK],
                       (const void *)add_grid_stride);
}

const void *vec4_kernel(int64_t items)
{
    switch (items) {
    case 1: return (const void *)add_vec4<1>;
    case 2: return (const void *)add_vec4<2>;
    case 4: return (const void *)add_vec4<4>;
    default: return (const void *)add_vec4<8>;
    }
}

int shape_vec4(const kt_problem *p, const kt_config *cfg, kt_shape *out)
{
    uint64_t block = (uint64_t)cfg->values[P_BLOCK];
    uint64_t tile = block * (uint64_t)cfg->values[P_ITEMS];
    uint64_t n4 = size_n(p) / 4, tail = size_n(p) % 4;
    uint64_t grid = kt_div_up(n4, tile);
    // The tail needs `tail` threads in the grid.
    if (grid * block < tail)
        grid = kt_div_up(tail, block);
    return kt_shape_1d(out, grid, block, vec4_kernel(cfg->values[P_ITEMS]));
}

int check_grid_stride(const kt_problem *p, const kt_config *cfg, char *why,
                      size_t why_size)
{
    return kt_check_resident(p, cfg->values[P_BLOCK],
                             cfg->values[P_BLOCKS_PER_SM], why, why_size);
}

// --------------------------------------------------------------- launches
//
// Each launch takes its grid and block from the shape the host computed
// with the variant's shape(): the geometry is derived there alone.

int launch_coalesced(void *st, const kt_config *, const kt_shape *sh,
                     void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, add_coalesced, s->a, s->b, s->c, s->n);
}

int launch_strided(void *st, const kt_config *, const kt_shape *sh,
                   void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, add_strided, s->a, s->b, s->c, s->n);
}

int launch_grid_stride(void *st, const kt_config *, const kt_shape *sh,
                       void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, add_grid_stride, s->a, s->b, s->c, s->n);
}

template <int ITEMS>
int launch_vec4_items(const state *s, const kt_shape &sh, void *stream)
{
    const size_t n4 = s->n / 4, done = n4 * 4;
    const unsigned tail = (unsigned)(s->n - done);
    return kt_launch(sh, stream, add_vec4<ITEMS>, (const float4 *)s->a,
                     (const float4 *)s->b, (float4 *)s->c, n4,
                     (const float *)s->a + done, (const float *)s->b + done,
                     s->c + done, tail);
}

int launch_vec4(void *st, const kt_config *cfg, const kt_shape *sh,
                void *stream)
{
    const state *s = (const state *)st;
    switch (cfg->values[P_ITEMS]) {
    case 1: return launch_vec4_items<1>(s, *sh, stream);
    case 2: return launch_vec4_items<2>(s, *sh, stream);
    case 4: return launch_vec4_items<4>(s, *sh, stream);
    default: return launch_vec4_items<8>(s, *sh, stream);
    }
}

// -------------------------------------------------------------- lifecycle

int work(const kt_problem *p, kt_work *out)
{
    double n = (double)size_n(p);
    out->bytes_read = 8.0 * n;
    out->bytes_written = 4.0 * n;
    out->flops = n;
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
    if (s->c)
        s->host->free_device(s->host, s->c);
    if (s->want_dev)
        s->host->free_device(s->host, s->want_dev);
    free(s->ha);
    free(s->hb);
    free(s->want);
    free(s);
}

// The reference, element by element in double: the exact sum of two floats,
// the same bits as the host's loop.
__global__ void reference_add(const float *__restrict__ a,
                              const float *__restrict__ b,
                              double *__restrict__ want, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        want[i] = __dadd_rn((double)a[i], (double)b[i]);
}

// Computed once on the device from the uploaded inputs and kept there, so
// verifying compares on the device and copies nothing back.
int reference_on_device(state *s)
{
    cudaError_t e;
    if (s->host->alloc_device(s->host, s->n * sizeof(double), KT_MEM_SCRATCH,
                              "c (reference)", (void **)&s->want_dev))
        return KT_FAIL;
    reference_add<<<1024, 256>>>(s->a, s->b, s->want_dev, s->n);
    if ((e = cudaGetLastError()) != cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess)
        return s->host->error(s->host, "reference: %s", cudaGetErrorString(e));
    return KT_OK;
}

// The host copies of the inputs: made in setup on the host path, and on the
// device path only when reset() first needs them (the end-to-end scope's
// host-to-device copy); the same values either way.
int host_inputs(state *s)
{
    size_t bytes = s->n * sizeof(float);
    if (s->ha)
        return KT_OK;
    s->ha = (float *)malloc(bytes);
    s->hb = (float *)malloc(bytes);
    if (!s->ha || !s->hb)
        return s->host->error(s->host, "out of host memory for n = %zu", s->n);
    s->host->random_f32(s->host, 0, s->ha, s->n, -1.0f, 1.0f);
    s->host->random_f32(s->host, 1, s->hb, s->n, -1.0f, 1.0f);
    return KT_OK;
}

int reset(void *st)
{
    state *s = (state *)st;
    size_t bytes = s->n * sizeof(float);
    if (host_inputs(s) != KT_OK ||
        s->host->upload(s->host, s->a, s->ha, bytes) != KT_OK ||
        s->host->upload(s->host, s->b, s->hb, bytes) != KT_OK)
        return KT_FAIL;
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
        host->alloc_device(host, bytes, KT_MEM_INPUT, "b", (void **)&s->b) ||
        host->alloc_device(host, bytes, KT_MEM_OUTPUT, "c", (void **)&s->c))
        return KT_FAIL;
    // The device path: inputs made and the reference computed on the GPU,
    // nothing in host memory.
    if (KT_HOST_HAS(host, check_f32_device) &&
        KT_HOST_HAS(host, random_f32_device)) {
        if (host->random_f32_device(host, 0, s->a, n, -1.0f, 1.0f) ||
            host->random_f32_device(host, 1, s->b, n, -1.0f, 1.0f))
            return KT_FAIL;
        return reference_on_device(s);
    }
    if (reset(s) != KT_OK)
        return KT_FAIL;
    if (KT_HOST_HAS(host, check_f32_device))
        return reference_on_device(s);
    s->want = (double *)malloc(n * sizeof(double));
    if (!s->want)
        return host->error(host, "out of host memory for n = %zu", n);
    for (size_t i = 0; i < n; ++i)
        s->want[i] = (double)s->ha[i] + (double)s->hb[i];
    return KT_OK;
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    state *s = (state *)st;
    // float a + b is the correctly rounded exact sum: relative error at most
    // 2^-24; 1e-6 leaves room without hiding a wrong element.
    if (s->want_dev)
        return s->host->check_f32_device(s->host, "c", s->c, s->want_dev,
                                         nullptr, s->n, 1e-6, 0.0);
    return s->host->check_f32(s->host, "c", s->c, s->want, s->n, 1e-6, 0.0);
}

const kt_size_desc sizes[] = {
    KT_SIZE("n", "number of elements", 1 << 24, 1, (int64_t)1 << 33),
};

const kt_variant variants[] = {
    KT_VARIANT("coalesced", "one element per thread, i = block * dim + thread",
               block_only, shape_one_per_thread, nullptr, launch_coalesced),
    KT_VARIANT(
        "strided",
        "same grid and block, i = thread * gridDim + block (uncoalesced)",
        block_only, shape_strided, nullptr, launch_strided),
    KT_VARIANT("grid_stride", "blocks_per_sm x SMs blocks loop over the array",
               grid_stride_params, shape_grid_stride, check_grid_stride,
               launch_grid_stride),
    KT_VARIANT("vec4",
               "float4 loads and stores, `items` per thread, scalar tail",
               vec4_params, shape_vec4, nullptr, launch_vec4),
};

const kt_operator operators[] = {
    KT_OPERATOR("add", "c = a + b, float32, inputs uniform in [-1, 1)", 0,
                sizes, variants, work, setup, reset, verify, teardown),
};

const kt_plugin plugin =
    KT_PLUGIN("vector_add", "1.0.0",
              "c = a + b in four thread-to-data mappings", operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
