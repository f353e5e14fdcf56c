// SPDX-License-Identifier: Apache-2.0
// The application's own kernels, shared by the application (app.cu) and
// the ktune plugin that wraps them for tuning (plugin.cu): the plugin
// launches exactly what the application launches, so an answer tuned
// through the plugin is an answer for the application.
//
//   vadd  c = a + b over n floats: one_per_thread (block), grid_stride
//         (block, blocks_per_sm), vec4 (block, blocks_per_sm; float4
//         loads, scalar tail)
//   gemv  y = A x, A row-major m x n floats: thread_row (a thread per row;
//         block), warp_row (a warp per row; block, vec), block_row (a block
//         per row; block, vec); vec = 4 reads float4 and needs n % 4 == 0
#pragma once

#include <cuda_runtime.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace wa
{

// ------------------------------------------------------------------ vadd

enum vadd_variant { VADD_ONE_PER_THREAD = 0, VADD_GRID_STRIDE, VADD_VEC4 };
static const char *const vadd_variant_names[] = {"one_per_thread",
                                                 "grid_stride", "vec4"};

struct vadd_config {
    int variant;
    int block;         // threads per block
    int blocks_per_sm; // grid_stride, vec4: grid = this x SMs
};

__global__ void vadd_one(const float *__restrict__ a,
                         const float *__restrict__ b, float *__restrict__ c,
                         size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void vadd_grid(const float *__restrict__ a,
                          const float *__restrict__ b, float *__restrict__ c,
                          size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        c[i] = a[i] + b[i];
}

// float4 over the first n / 4 vectors (cudaMalloc'd arrays are aligned),
// then the n % 4 tail element by element.
__global__ void vadd_vec4(const float *__restrict__ a,
                          const float *__restrict__ b, float *__restrict__ c,
                          size_t n)
{
    size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float4 *a4 = (const float4 *)a, *b4 = (const float4 *)b;
    float4 *c4 = (float4 *)c;
    for (size_t i = t; i < n4; i += stride) {
        float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    if (t < n % 4)
        c[n4 * 4 + t] = a[n4 * 4 + t] + b[n4 * 4 + t];
}

// The grid of a launch; 0 when the configuration cannot run.
inline uint64_t vadd_grid_size(const vadd_config &c, size_t n, int sm_count)
{
    if (c.block < 32 || c.block > 1024 || (c.block & (c.block - 1)))
        return 0;
    if (c.variant == VADD_ONE_PER_THREAD) {
        uint64_t g = (n + (size_t)c.block - 1) / (size_t)c.block;
        return g ? g : 1;
    }
    if (c.blocks_per_sm < 1 || c.blocks_per_sm > 32 ||
        (int64_t)c.block * c.blocks_per_sm > 2048)
        return 0;
    return (uint64_t)c.blocks_per_sm * (uint64_t)sm_count;
}

inline const void *vadd_kernel(const vadd_config &c)
{
    return c.variant == VADD_ONE_PER_THREAD ? (const void *)vadd_one
           : c.variant == VADD_GRID_STRIDE  ? (const void *)vadd_grid
                                            : (const void *)vadd_vec4;
}

inline cudaError_t vadd_launch(const vadd_config &c, const float *a,
                               const float *b, float *out, size_t n,
                               int sm_count, cudaStream_t s)
{
    uint64_t grid = vadd_grid_size(c, n, sm_count);
    if (!grid || grid > 0x7fffffffu)
        return cudaErrorInvalidConfiguration;
    dim3 g((unsigned)grid), blk((unsigned)c.block);
    switch (c.variant) {
    case VADD_ONE_PER_THREAD: vadd_one<<<g, blk, 0, s>>>(a, b, out, n); break;
    case VADD_GRID_STRIDE: vadd_grid<<<g, blk, 0, s>>>(a, b, out, n); break;
    case VADD_VEC4: vadd_vec4<<<g, blk, 0, s>>>(a, b, out, n); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaPeekAtLastError();
}

// ------------------------------------------------------------------ gemv

enum gemv_variant { GEMV_THREAD_ROW = 0, GEMV_WARP_ROW, GEMV_BLOCK_ROW };
static const char *const gemv_variant_names[] = {"thread_row", "warp_row",
                                                 "block_row"};

struct gemv_config {
    int variant;
    int block; // threads per block
    int vec;   // 1 or 4: floats per load (warp_row, block_row)
};

__device__ inline float warp_sum(float v)
{
#pragma unroll
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}

__global__ void gemv_thread_row(const float *__restrict__ A,
                                const float *__restrict__ x,
                                float *__restrict__ y, int m, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;
    const float *r = A + (size_t)row * n;
    float acc = 0;
    for (int j = 0; j < n; ++j)
        acc += r[j] * x[j];
    y[row] = acc;
}

// The dot product of row r with x by `lanes` threads starting at `lane`.
template <int VEC>
__device__ inline float row_dot(const float *__restrict__ r,
                                const float *__restrict__ x, int n, int lane,
                                int lanes)
{
    float acc = 0;
    if (VEC == 4) {
        const float4 *r4 = (const float4 *)r, *x4 = (const float4 *)x;
        for (int j = lane; j < n / 4; j += lanes) {
            float4 a = r4[j], b = x4[j];
            acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
    } else {
        for (int j = lane; j < n; j += lanes)
            acc += r[j] * x[j];
    }
    return acc;
}

template <int VEC>
__global__ void gemv_warp_row(const float *__restrict__ A,
                              const float *__restrict__ x,
                              float *__restrict__ y, int m, int n)
{
    int warps = blockDim.x / 32, lane = threadIdx.x % 32;
    int row = blockIdx.x * warps + threadIdx.x / 32;
    if (row >= m)
        return; // whole warps leave together: row is uniform in a warp
    float acc = warp_sum(row_dot<VEC>(A + (size_t)row * n, x, n, lane, 32));
    if (lane == 0)
        y[row] = acc;
}

template <int VEC>
__global__ void gemv_block_row(const float *__restrict__ A,
                               const float *__restrict__ x,
                               float *__restrict__ y, int m, int n)
{
    __shared__ float part[32];
    int row = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (row >= m)
        return;
    float acc = warp_sum(
        row_dot<VEC>(A + (size_t)row * n, x, n, threadIdx.x, blockDim.x));
    if (lane == 0)
        part[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < (int)(blockDim.x / 32) ? part[lane] : 0.0f;
        acc = warp_sum(acc);
        if (lane == 0)
            y[row] = acc;
    }
}

// The grid of a launch; 0 when the configuration cannot run.
inline uint64_t gemv_grid_size(const gemv_config &c, int64_t m, int64_t n)
{
    if (c.block < 32 || c.block > 1024 || (c.block & (c.block - 1)))
        return 0;
    if (c.variant != GEMV_THREAD_ROW && c.vec != 1 && c.vec != 4)
        return 0;
    if (c.variant != GEMV_THREAD_ROW && c.vec == 4 && n % 4)
        return 0;
    switch (c.variant) {
    case GEMV_THREAD_ROW: return (uint64_t)(m + c.block - 1) / c.block;
    case GEMV_WARP_ROW: {
        int64_t warps = c.block / 32;
        return (uint64_t)((m + warps - 1) / warps);
    }
    case GEMV_BLOCK_ROW: return (uint64_t)m;
    default: return 0;
    }
}

inline const void *gemv_kernel(const gemv_config &c)
{
    switch (c.variant) {
    case GEMV_THREAD_ROW: return (const void *)gemv_thread_row;
    case GEMV_WARP_ROW:
        return c.vec == 4 ? (const void *)gemv_warp_row<4>
                          : (const void *)gemv_warp_row<1>;
    default:
        return c.vec == 4 ? (const void *)gemv_block_row<4>
                          : (const void *)gemv_block_row<1>;
    }
}

inline cudaError_t gemv_launch(const gemv_config &c, const float *A,
                               const float *x, float *y, int m, int n,
                               cudaStream_t s)
{
    uint64_t grid = gemv_grid_size(c, m, n);
    if (!grid || grid > 0x7fffffffu)
        return cudaErrorInvalidConfiguration;
    dim3 g((unsigned)grid), blk((unsigned)c.block);
    switch (c.variant) {
    case GEMV_THREAD_ROW:
        gemv_thread_row<<<g, blk, 0, s>>>(A, x, y, m, n);
        break;
    case GEMV_WARP_ROW:
        if (c.vec == 4)
            gemv_warp_row<4><<<g, blk, 0, s>>>(A, x, y, m, n);
        else
            gemv_warp_row<1><<<g, blk, 0, s>>>(A, x, y, m, n);
        break;
    case GEMV_BLOCK_ROW:
        if (c.vec == 4)
            gemv_block_row<4><<<g, blk, 0, s>>>(A, x, y, m, n);
        else
            gemv_block_row<1><<<g, blk, 0, s>>>(A, x, y, m, n);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaPeekAtLastError();
}

// The index of name in names[0..count), or -1.
inline int variant_index(const char *const *names, int count, const char *name)
{
    for (int i = 0; name && i < count; ++i)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

} // namespace wa
