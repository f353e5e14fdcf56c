// SPDX-License-Identifier: Apache-2.0
// stencil: an out-of-tree ktune plugin, built against an installed ktune
// with find_package(ktune) (see CMakeLists.txt and README.md).
//
// One operator, stencil:blur9: a 9-point weighted average along one
// dimension, y[i] = sum over k in [-4, 4] of w[k] * x[clamp(i + k)], with
// the indices clamped to the array at both ends. Every input is read by
// nine neighbouring outputs, so the question is where that reuse happens:
//   direct  each thread reads its nine inputs from global memory and leaves
//           the reuse to the L1 and L2 caches
//   tiled   a block stages its inputs plus the halo in shared memory once
//           (coalesced), then each thread computes `items` outputs from it
// Both do the same work (work() counts each input read once and each output
// written once), so their effective bandwidths compare directly.
#include <cuda_runtime.h>
#include <ktune/plugin_util.h>

#include <stdio.h>
#include <stdlib.h>

namespace
{

constexpr int RADIUS = 4;
constexpr int TAPS = 2 * RADIUS + 1;

// A normalised 9-tap Gaussian; the same floats on the device and in the
// reference.
#define STENCIL_WEIGHTS                                                        \
    {                                                                          \
        0.0162162162f, 0.0540540541f, 0.1216216216f, 0.1945945946f,            \
            0.2270270270f, 0.1945945946f, 0.1216216216f, 0.0540540541f,        \
            0.0162162162f                                                      \
    }
__constant__ float d_weights[TAPS] = STENCIL_WEIGHTS;
const float h_weights[TAPS] = STENCIL_WEIGHTS;

// Index i + k clamped to [0, n): signed, since i + k may be below zero.
__host__ __device__ inline size_t clamp_index(long long g, size_t n)
{
    return g < 0 ? 0 : (size_t)g >= n ? n - 1 : (size_t)g;
}

// ---------------------------------------------------------------- kernels

// Indices are size_t throughout: n may be beyond 2^31 elements.
__global__ void stencil_direct(const float *__restrict__ x,
                               float *__restrict__ y, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < TAPS; ++k)
        acc = fmaf(d_weights[k], x[clamp_index((long long)i + k - RADIUS, n)],
                   acc);
    y[i] = acc;
}

// The block's outputs are [base, base + blockDim.x * items); it needs the
// inputs [base - RADIUS, base + blockDim.x * items + RADIUS).
__global__ void stencil_tiled(const float *__restrict__ x,
                              float *__restrict__ y, size_t n, unsigned items)
{
    extern __shared__ float tile[];
    const size_t outputs = (size_t)blockDim.x * items;
    const size_t base = (size_t)blockIdx.x * outputs;
    const unsigned width = (unsigned)outputs + 2 * RADIUS;

    for (unsigned k = threadIdx.x; k < width; k += blockDim.x)
        tile[k] = x[clamp_index((long long)base + k - RADIUS, n)];
    __syncthreads();
    // Output j * blockDim.x + threadIdx.x: neighbouring threads write
    // neighbouring elements (coalesced) and read neighbouring shared words
    // (no bank conflicts).
    for (unsigned j = 0; j < items; ++j) {
        const unsigned local = j * blockDim.x + threadIdx.x;
        const size_t i = base + local;
        if (i >= n)
            break;
        float acc = 0.0f;
#pragma unroll
        for (int k = 0; k < TAPS; ++k)
            acc = fmaf(d_weights[k], tile[local + k], acc);
        y[i] = acc;
    }
}

// ------------------------------------------------------------- parameters

enum { P_BLOCK = 0, P_ITEMS = 1 };

const int64_t items_values[] = {1, 2, 4, 8};

const kt_param_desc direct_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
};
const kt_param_desc tiled_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("items", "outputs per thread", items_values, 2),
};

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    size_t n;
    float *x, *y; // device memory, allocated through the host
    double *want; // the reference
    double atol;
};

size_t size_n(const kt_problem *p)
{
    return (size_t)p->sizes[0];
}

uint32_t tiled_smem_bytes(uint64_t block, uint64_t items)
{
    return (uint32_t)((block * items + 2 * RADIUS) * sizeof(float));
}

// ----------------------------------------------------------------- shapes

int shape_direct(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    const uint64_t block = (uint64_t)c->values[P_BLOCK];
    return kt_shape_cover(out, size_n(p), block, (const void *)stencil_direct);
}

// The shared memory a block asks for is part of the shape: ktune checks it
// against the device's limit (and the occupancy it allows) without a GPU.
int shape_tiled(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    const uint64_t block = (uint64_t)c->values[P_BLOCK];
    const uint64_t items = (uint64_t)c->values[P_ITEMS];
    return kt_shape_1d_smem(out, kt_div_up(size_n(p), block * items), block,
                            tiled_smem_bytes(block, items),
                            (const void *)stencil_tiled);
}

// --------------------------------------------------------------- launches

// The host hands each launch the shape it computed with the variant's
// shape(): grid, block and shared memory are derived there alone.
int launch_direct(void *st, const kt_config *, const kt_shape *sh, void *stream)
{
    const state *s = (const state *)st;
    // ktune checks the launch and the execution itself.
    return kt_launch(*sh, stream, stencil_direct, s->x, s->y, s->n);
}

int launch_tiled(void *st, const kt_config *c, const kt_shape *sh, void *stream)
{
    const state *s = (const state *)st;
    return kt_launch(*sh, stream, stencil_tiled, s->x, s->y, s->n,
                     (unsigned)c->values[P_ITEMS]);
}

// -------------------------------------------------------------- lifecycle

int work(const kt_problem *p, kt_work *out)
{
    const double n = (double)size_n(p);
    out->bytes_read = 4.0 * n;    // each input once, however often reused
    out->bytes_written = 4.0 * n; // each output once
    out->flops = 2.0 * TAPS * n;  // nine multiply-adds per output
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
    free(s->want);
    free(s);
}

int setup(const kt_host *host, const kt_problem *p, void **out)
{
    const size_t n = size_n(p), bytes = n * sizeof(float);
    state *s = (state *)calloc(1, sizeof(state));
    float *hx = NULL;
    double weight_sum = 0.0;
    int rc;

    *out = s; // handed to teardown() even when setup fails
    if (!s)
        return host->error(host, "out of host memory");
    s->host = host;
    s->n = n;
    hx = (float *)malloc(bytes);
    s->want = (double *)malloc(n * sizeof(double));
    if (!hx || !s->want) {
        free(hx);
        return host->error(host, "out of host memory for n = %zu", n);
    }
    host->random_f32(host, 0, hx, n, -1.0f, 1.0f);
    for (size_t i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int k = 0; k < TAPS; ++k)
            sum += (double)h_weights[k] *
                   hx[clamp_index((long long)i + k - RADIUS, n)];
        s->want[i] = sum;
    }
    // Nine float multiply-adds in a row: each rounding is at most 2^-24 of
    // the partial sum, and every partial sum is at most sum |w| * max |x|
    // (|x| < 1), so 9 * 2^-24 * sum |w| bounds the error of every element,
    // whatever the order of the additions.
    for (int k = 0; k < TAPS; ++k)
        weight_sum += h_weights[k] < 0 ? -h_weights[k] : h_weights[k];
    s->atol = TAPS * 0x1p-24 * weight_sum;
    rc = host->alloc_device(host, bytes, KT_MEM_INPUT, "x", (void **)&s->x);
    if (rc == KT_OK)
        rc =
            host->alloc_device(host, bytes, KT_MEM_OUTPUT, "y", (void **)&s->y);
    if (rc == KT_OK)
        rc = host->upload(host, s->x, hx, bytes);
    free(hx);
    return rc;
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    const state *s = (const state *)st;
    return s->host->check_f32(s->host, "y", s->y, s->want, s->n, 0.0, s->atol);
}

// ------------------------------------------------------------ descriptors

const kt_size_desc sizes[] = {
    KT_SIZE("n", "number of elements", 1 << 24, 1, (int64_t)1 << 32),
};

const kt_variant variants[] = {
    KT_VARIANT("direct",
               "one output per thread, nine global loads, reuse left to "
               "the caches",
               direct_params, shape_direct, nullptr, launch_direct),
    KT_VARIANT("tiled",
               "inputs and halo staged in shared memory, `items` outputs "
               "per thread",
               tiled_params, shape_tiled, nullptr, launch_tiled),
};

const kt_operator operators[] = {
    KT_OPERATOR("blur9",
                "y = 9-point weighted average of x, clamped ends, float32", 0,
                sizes, variants, work, setup, nullptr, verify, teardown),
};

const kt_plugin plugin =
    KT_PLUGIN("stencil", "1.0.0",
              "1-D 9-point stencil: global loads against a shared-memory "
              "tile (an out-of-tree example)",
              operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
