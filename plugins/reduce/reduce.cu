// SPDX-License-Identifier: Apache-2.0
// reduce: the sum of n float32 values, in the classic progression of block
// reductions (Harris, "Optimizing Parallel Reduction in CUDA") and the
// grid-stride float4 kernels that finish in one pass or two, with
// cub::DeviceReduce::Sum as the reference to beat.
//
// The progression (interleaved → sequential addressing → first add during
// load → unrolled last warp → warp shuffle) reduces one tile per block and
// is applied pass after pass until one value is left, as in the original.
// The grid-stride kernels run a fixed grid (blocks_per_sm x SMs) over the
// whole array with float4 loads; their block sums meet by atomicAdd (one
// pass), in a second kernel (two passes), or in the last block to finish
// (one pass, no float atomics).
//
// Memory-bound: n floats read once, one written. The result is checked
// against a sum in double with a tolerance from n and Σ|x| (tolerance()).
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <ktune/plugin_util.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace
{

constexpr unsigned FULL_MASK = 0xffffffffu;

// ------------------------------------------------------- device helpers

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, off);
    return v;
}

// Block-wide sum (blockDim.x a multiple of 32), valid in thread 0. Every
// thread must call it; a second call needs a __syncthreads() in between.
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warps[32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0)
        warps[w] = v;
    __syncthreads();
    if (w == 0)
        v = warp_sum(lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0f);
    return v;
}

// ------------------------------------------- the progression, one tile each
//
// Every kernel writes the sum of its block's tile of in[0..count) to
// out[blockIdx.x]; the launch repeats passes until one value is left. The
// block size is a power of two (the trees halve it).

// 1. Interleaved addressing with divergent branching: active threads are
// scattered over every warp (tid % 2s == 0).
__global__ void r_interleaved_divergent(const float *__restrict__ in,
                                        float *__restrict__ out, size_t count)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < count ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// 2. Interleaved addressing with a strided index: active threads are
// contiguous (no divergence), but the shared-memory accesses 2s apart
// conflict in the banks.
__global__ void r_interleaved(const float *__restrict__ in,
                              float *__restrict__ out, size_t count)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < count ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// 3. Sequential addressing: the first s threads add the upper half onto the
// lower half; conflict-free. Half the threads idle from the first step on.
__global__ void r_sequential(const float *__restrict__ in,
                             float *__restrict__ out, size_t count)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < count ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Loads two elements a block apart and adds them: a tile of 2 x blockDim.
__device__ __forceinline__ float load_pair(const float *__restrict__ in,
                                           size_t count)
{
    const size_t i = (size_t)blockIdx.x * 2 * blockDim.x + threadIdx.x;
    float v = i < count ? in[i] : 0.0f;
    if (i + blockDim.x < count)
        v += in[i + blockDim.x];
    return v;
}

// 4. First add during load: each thread adds two elements before the tree,
// so no thread idles in the first step and half the blocks are needed.
__global__ void r_first_add(const float *__restrict__ in,
                            float *__restrict__ out, size_t count)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    sdata[tid] = load_pair(in, count);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// 5. Unrolled last warp: below 32 active threads the block barriers stop;
// one warp finishes alone. The original relied on implicit warp-synchronous
// execution through a volatile pointer, which independent thread scheduling
// (Volta on) no longer guarantees: here each step reads, then __syncwarp,
// then writes, then __syncwarp.
__global__ void r_unroll_warp(const float *__restrict__ in,
                              float *__restrict__ out, size_t count)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    sdata[tid] = load_pair(in, count);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float v = sdata[tid];
        if (blockDim.x >= 64)
            v += sdata[tid + 32];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
#pragma unroll
        for (unsigned off = 16; off > 0; off >>= 1) {
            if (tid < off)
                v += sdata[tid + off];
            __syncwarp();
            if (tid < off)
                sdata[tid] = v;
            __syncwarp();
        }
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

// 6. Warp shuffle: ITEMS elements per thread (a block apart, coalesced, all
// loads issued before the adds), then shuffles within warps and one warp
// over the warp sums; shared memory only for 32 values.
template <int ITEMS>
__global__ void r_shuffle(const float *__restrict__ in, float *__restrict__ out,
                          size_t count)
{
    const size_t base = (size_t)blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
    float v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const size_t i = base + (size_t)k * blockDim.x;
        v[k] = i < count ? in[i] : 0.0f;
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
        sum += v[k];
    sum = block_sum(sum);
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

// ------------------------------------------------- grid-stride, float4

enum { TWO_PASS = 0, ATOMIC = 1, LAST_BLOCK = 2 };

// A fixed grid walks the array with float4 loads, ITEMS loads in flight per
// thread and iteration (each a whole grid apart, so every load of a warp is
// coalesced); the n % 4 tail goes to the first threads. Then:
//  TWO_PASS:   block sums to partials[], r_finish adds them (second kernel);
//  ATOMIC:     block sums atomicAdd into *out, zeroed by the launch before;
//  LAST_BLOCK: block sums to partials[]; the block that takes the last
//              ticket of *counter (after a fence that makes the partials
//              visible) adds them and resets the counter for the next launch.
// MINB is the launch bounds' minimum of blocks per SM (the `schedule`
// parameter: registers for occupancy, or for loads in flight).
template <int ITEMS, int MODE, int MINB>
__global__ void __launch_bounds__(1024, MINB)
    r_vec4(const float *__restrict__ in, size_t n, float *__restrict__ partials,
           float *__restrict__ out, unsigned *__restrict__ counter)
{
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    const size_t n4 = n / 4;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    float sum = 0.0f;
    size_t i = tid;
    for (; i + (ITEMS - 1) * threads < n4; i += ITEMS * threads) {
        float4 v[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            v[k] = in4[i + k * threads];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    for (; i < n4; i += threads) {
        const float4 v = in4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (tid < n - 4 * n4)
        sum += in[4 * n4 + tid];
    sum = block_sum(sum);

    if constexpr (MODE == ATOMIC) {
        if (threadIdx.x == 0)
            atomicAdd(out, sum);
    } else if constexpr (MODE == TWO_PASS) {
        if (threadIdx.x == 0)
            partials[blockIdx.x] = sum;
    } else {
        __shared__ bool last;
        if (threadIdx.x == 0) {
            partials[blockIdx.x] = sum;
            __threadfence();
            last = atomicAdd(counter, 1u) == gridDim.x - 1;
        }
        __syncthreads();
        if (last) {
            float v = 0.0f;
            // __ldcg: read through L2, where the other blocks' partials are.
            for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
                v += __ldcg(&partials[b]);
            v = block_sum(v);
            if (threadIdx.x == 0) {
                *out = v;
                *counter = 0;
            }
        }
    }
}

// Second pass: one block adds count values.
__global__ void r_finish(const float *__restrict__ in, size_t count,
                         float *__restrict__ out)
{
    float v = 0.0f;
    for (size_t i = threadIdx.x; i < count; i += blockDim.x)
        v += in[i];
    v = block_sum(v);
    if (threadIdx.x == 0)
        *out = v;
}

constexpr unsigned FINISH_BLOCK = 1024;

// ------------------------------------------------------------- parameters

const int64_t items_values[] = {1, 2, 4, 8, 16};
const int64_t vec_items_values[] = {1, 2, 4, 8};
const int64_t blocks_per_sm_values[] = {1, 2, 4, 8, 16, 32};
const char *const schedule_labels[] = {"occupancy", "loads_first"};

enum { P_BLOCK = 0, P_ITEMS = 1, P_BPS = 2, P_SCHED = 3 };

const kt_param_desc block_only[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
};
const kt_param_desc shuffle_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("items", "elements per thread, a block apart", items_values,
                  4),
};
// Left alone ptxas keeps 32 registers (full occupancy) and interleaves each
// load with its adds; with a minimum of one block per SM it may use 64 and
// issue the float4 loads first.
const kt_param_desc vec4_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("items", "float4 loads in flight per thread",
                  vec_items_values, 4),
    KT_PARAM_LIST("blocks_per_sm",
                  "grid = blocks_per_sm x SMs (fewer blocks "
                  "when n is small)",
                  blocks_per_sm_values, 4),
    KT_PARAM_ENUM("schedule", "registers for occupancy, or for loads in flight",
                  schedule_labels, 0),
};

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    size_t n;
    const kt_device *device;
    float *x;          // device input
    float *out;        // device output, one float
    float *buf[2];     // device: ping-pong partial sums of the passes
    unsigned *counter; // device: tickets of the last-block variant
    void *cub_temp;    // device: cub's temporary storage
    size_t cub_bytes;
    double want, tol;
    double *want_dev; // the reference, kept on the device (device path)
};

// Sizes of the two partial buffers: the first pass of a tile >= 32 leaves
// at most ceil(n / 32) values, the second ceil(n / 1024) + 1; the grid-stride
// kernels need one per block (32 x SMs at most).
size_t buf0_count(size_t n, int sm_count)
{
    size_t a = (n + 31) / 32, b = (size_t)32 * (size_t)sm_count;
    return a > b ? a : b;
}

size_t buf1_count(size_t n)
{
    return (n + 1023) / 1024 + 1;
}

// ---------------------------------------------------------------- shapes

size_t size_n(const kt_problem *p)
{
    return (size_t)p->sizes[0];
}

typedef void (*tile_fn)(const float *, float *, size_t);

// The progression's kernels by variant, with their tile per block factor.
struct tile_kernel {
    tile_fn fn;
    unsigned per_thread;
    bool smem; // block floats of dynamic shared memory
};

tile_kernel shuffle_kernel(int64_t items)
{
    switch (items) {
    case 1: return {r_shuffle<1>, 1, false};
    case 2: return {r_shuffle<2>, 2, false};
    case 4: return {r_shuffle<4>, 4, false};
    case 8: return {r_shuffle<8>, 8, false};
    default: return {r_shuffle<16>, 16, false};
    }
}

enum progression {
    INTERLEAVED_DIVERGENT,
    INTERLEAVED,
    SEQUENTIAL,
    FIRST_ADD,
    UNROLL_WARP,
    SHUFFLE
};

tile_kernel tile_kernel_of(progression which, const kt_config *c)
{
    switch (which) {
    case INTERLEAVED_DIVERGENT: return {r_interleaved_divergent, 1, true};
    case INTERLEAVED: return {r_interleaved, 1, true};
    case SEQUENTIAL: return {r_sequential, 1, true};
    case FIRST_ADD: return {r_first_add, 2, true};
    case UNROLL_WARP: return {r_unroll_warp, 2, true};
    default: return shuffle_kernel(c->values[P_ITEMS]);
    }
}

// The shape of the first (largest) pass.
int shape_tiles(const kt_problem *p, const kt_config *c, kt_shape *out,
                progression which)
{
    tile_kernel k = tile_kernel_of(which, c);
    uint64_t block = (uint64_t)c->values[P_BLOCK];
    return kt_shape_1d_smem(
        out, kt_div_up(size_n(p), block * k.per_thread), block,
        k.smem ? (uint32_t)(block * sizeof(float)) : 0, (const void *)k.fn);
}

#define TILE_SHAPE(name, which)                                                \
    int shape_##name(const kt_problem *p, const kt_config *c, kt_shape *out)   \
    {                                                                          \
        return shape_tiles(p, c, out, which);                                  \
    }
TILE_SHAPE(interleaved_divergent, INTERLEAVED_DIVERGENT)
TILE_SHAPE(interleaved, INTERLEAVED)
TILE_SHAPE(sequential, SEQUENTIAL)
TILE_SHAPE(first_add, FIRST_ADD)
TILE_SHAPE(unroll_warp, UNROLL_WARP)
TILE_SHAPE(shuffle, SHUFFLE)
#undef TILE_SHAPE

typedef void (*vec4_fn)(const float *, size_t, float *, float *, unsigned *);

template <int MODE, int MINB> vec4_fn vec4_pick_items(int64_t items)
{
    switch (items) {
    case 1: return r_vec4<1, MODE, MINB>;
    case 2: return r_vec4<2, MODE, MINB>;
    case 4: return r_vec4<4, MODE, MINB>;
    default: return r_vec4<8, MODE, MINB>;
    }
}

template <int MODE> vec4_fn vec4_kernel(const kt_config *c)
{
    return c->values[P_SCHED] == 1
               ? vec4_pick_items<MODE, 1>(c->values[P_ITEMS])
               : vec4_pick_items<MODE, 0>(c->values[P_ITEMS]);
}

// blocks_per_sm x SMs, but no more blocks than the float4s need: a small
// array gets a small grid (and the last-block variant a short wait).
uint64_t vec4_grid(size_t n, const kt_config *c, int sm_count)
{
    uint64_t block = (uint64_t)c->values[P_BLOCK];
    uint64_t full = (uint64_t)c->values[P_BPS] * (uint64_t)sm_count;
    uint64_t need = kt_div_up(n / 4 ? n / 4 : 1, block);
    return need < full ? need : full;
}

template <int MODE>
int shape_vec4(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return kt_shape_1d_smem(out, vec4_grid(size_n(p), c, p->device->sm_count),
                            (uint64_t)c->values[P_BLOCK], 0,
                            (const void *)vec4_kernel<MODE>(c));
}

int library_shape(const kt_problem *, const kt_config *, kt_shape *out)
{
    // cub chooses its own geometry; this nominal shape is what the host
    // checks and what sets the boundary sizes of verification.
    return kt_shape_1d_smem(out, 1, 256, 0, nullptr);
}

int check_vec4(const kt_problem *p, const kt_config *c, char *why,
               size_t why_size)
{
    return kt_check_resident(p, c->values[P_BLOCK], c->values[P_BPS], why,
                             why_size);
}

// --------------------------------------------------------------- launches

// Pass after pass until one block is left; that one writes the result.
// The first pass is the shape the host computed with shape(); each later
// pass reduces the previous pass's block sums with the same block.
int launch_tiles(void *st, const kt_config *c, const kt_shape *sh, void *stream,
                 progression which)
{
    state *s = (state *)st;
    const tile_kernel k = tile_kernel_of(which, c);
    const size_t tile = (size_t)sh->block[0] * k.per_thread;
    kt_shape pass = *sh;
    const float *src = s->x;
    size_t count = s->n;
    for (int i = 0;; ++i) {
        float *dst = pass.grid[0] == 1 ? s->out : s->buf[i & 1];
        kt_launch(pass, stream, k.fn, src, dst, count);
        if (pass.grid[0] == 1)
            return KT_OK;
        src = dst;
        count = pass.grid[0];
        pass.grid[0] = (uint32_t)kt_div_up(count, tile);
    }
}

#define TILE_LAUNCH(name, which)                                               \
    int launch_##name(void *st, const kt_config *c, const kt_shape *sh,        \
                      void *stream)                                            \
    {                                                                          \
        return launch_tiles(st, c, sh, stream, which);                         \
    }
TILE_LAUNCH(interleaved_divergent, INTERLEAVED_DIVERGENT)
TILE_LAUNCH(interleaved, INTERLEAVED)
TILE_LAUNCH(sequential, SEQUENTIAL)
TILE_LAUNCH(first_add, FIRST_ADD)
TILE_LAUNCH(unroll_warp, UNROLL_WARP)
TILE_LAUNCH(shuffle, SHUFFLE)
#undef TILE_LAUNCH

template <int MODE>
int launch_vec4(void *st, const kt_config *c, const kt_shape *sh, void *stream)
{
    state *s = (state *)st;
    cudaStream_t cs = (cudaStream_t)stream;
    if (MODE == ATOMIC) {
        cudaError_t e = cudaMemsetAsync(s->out, 0, sizeof(float), cs);
        if (e != cudaSuccess)
            return s->host->error(s->host, "zeroing the sum: %s",
                                  cudaGetErrorString(e));
    }
    kt_launch(*sh, stream, vec4_kernel<MODE>(c), (const float *)s->x, s->n,
              s->buf[0], s->out, s->counter);
    if (MODE == TWO_PASS)
        r_finish<<<1, FINISH_BLOCK, 0, cs>>>(s->buf[0], sh->grid[0], s->out);
    return KT_OK;
}

int launch_cub(void *st, const kt_config *, const kt_shape *, void *stream)
{
    state *s = (state *)st;
    size_t bytes = s->cub_bytes;
    cudaError_t e;
    // int item counts where they fit: the 32-bit offsets a caller of cub
    // would get for such sizes.
    if (s->n <= (size_t)INT_MAX)
        e = cub::DeviceReduce::Sum(s->cub_temp, bytes, s->x, s->out, (int)s->n,
                                   (cudaStream_t)stream);
    else
        e = cub::DeviceReduce::Sum(s->cub_temp, bytes, s->x, s->out,
                                   (long long)s->n, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return s->host->error(s->host, "cub::DeviceReduce::Sum: %s",
                              cudaGetErrorString(e));
    return KT_OK;
}

// -------------------------------------------------------------- lifecycle

constexpr double U32 = 1.0 / 16777216.0; // unit roundoff of float32

// A sum of n terms in any order (trees, grid strides, atomics) passes each
// term through at most n roundings: n·u·Σ|x| bounds the error (Higham's
// γ_n). The probabilistic bound 10·√n·u·Σ|x| (Higham & Mary 2019; a
// failure by chance below 1e-15 even for n = 2^28) is far tighter for large
// n. Plus half an ulp for the result's own rounding.
double tolerance(double n, double abs_sum, double want)
{
    double g = fmin(n, 10.0 * sqrt(n));
    return U32 * (g * abs_sum + fabs(want));
}

int work(const kt_problem *p, kt_work *out)
{
    double n = (double)size_n(p);
    out->bytes_read = 4.0 * n;
    out->bytes_written = 4.0;
    out->flops = n - 1.0;
    return KT_OK;
}

void teardown(void *st)
{
    state *s = (state *)st;
    if (!s)
        return;
    void *ptrs[] = {s->x,       s->out,      s->buf[0],  s->buf[1],
                    s->counter, s->cub_temp, s->want_dev};
    for (void *p : ptrs)
        if (p)
            s->host->free_device(s->host, p);
    free(s);
}

// The reference on the device path: the sum in double of the inputs the
// device made, per thread, per block, then one atomic per block. The order
// moves the double result by ~1e-16 relative, far inside the tolerance.
__global__ void reference_sum(const float *__restrict__ x, size_t n,
                              double *sum)
{
    __shared__ double part[256];
    double acc = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        acc += (double)x[i];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h)
            part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(sum, part[0]);
}

// Positive inputs: a lost or doubled element moves the sum in one
// direction, never cancelled by the others (so the sum of |x| is the sum).
// The device path makes them and their reference on the GPU and keeps the
// reference there; nothing of the input passes through host memory.
int inputs_on_device(state *s)
{
    const kt_host *host = s->host;
    cudaError_t e;

    if (host->alloc_device(host, sizeof(double), KT_MEM_SCRATCH,
                           "sum (reference)", (void **)&s->want_dev) ||
        host->random_f32_device(host, 0, s->x, s->n, 0.0f, 1.0f))
        return KT_FAIL;
    if ((e = cudaMemset(s->want_dev, 0, sizeof(double))) != cudaSuccess)
        return host->error(host, "reference: %s", cudaGetErrorString(e));
    reference_sum<<<1024, 256>>>(s->x, s->n, s->want_dev);
    if ((e = cudaGetLastError()) != cudaSuccess ||
        (e = cudaMemcpy(&s->want, s->want_dev, sizeof(double),
                        cudaMemcpyDeviceToHost)) != cudaSuccess)
        return host->error(host, "reference: %s", cudaGetErrorString(e));
    s->tol = tolerance((double)s->n, s->want, s->want);
    return KT_OK;
}

// The host path: inputs made in host memory, summed there, uploaded.
int inputs_on_host(state *s)
{
    const kt_host *host = s->host;
    double sum = 0.0, abs_sum = 0.0;
    float *hx = (float *)malloc(s->n * sizeof(float));
    int rc = KT_FAIL;

    if (!hx)
        return host->error(host, "out of host memory for n = %zu", s->n);
    host->random_f32(host, 0, hx, s->n, 0.0f, 1.0f);
    for (size_t i = 0; i < s->n; ++i) {
        sum += hx[i];
        abs_sum += fabs((double)hx[i]);
    }
    s->want = sum;
    s->tol = tolerance((double)s->n, abs_sum, sum);
    if (host->upload(host, s->x, hx, s->n * sizeof(float)))
        goto done;
    // The device path compares the one element on the device too, so both
    // paths of the host's verification are exercised alike.
    if (KT_HOST_HAS(host, check_f32_device) &&
        (host->alloc_device(host, sizeof(double), KT_MEM_SCRATCH,
                            "sum (reference)", (void **)&s->want_dev) ||
         host->upload(host, s->want_dev, &s->want, sizeof(double))))
        goto done;
    rc = KT_OK;
done:
    free(hx);
    return rc;
}

int setup(const kt_host *host, const kt_problem *p, void **out)
{
    state *s = (state *)calloc(1, sizeof(state));
    size_t n = size_n(p);
    cudaError_t e;

    *out = s;
    if (!s)
        return host->error(host, "out of host memory");
    s->host = host;
    s->n = n;
    s->device = host->device;
    // Sized once here, for the item type launch_cub passes.
    if (n <= (size_t)INT_MAX)
        e = cub::DeviceReduce::Sum(nullptr, s->cub_bytes, s->x, s->out, (int)n);
    else
        e = cub::DeviceReduce::Sum(nullptr, s->cub_bytes, s->x, s->out,
                                   (long long)n);
    if (e != cudaSuccess)
        return host->error(
            host, "cub::DeviceReduce::Sum (temporary storage size): %s",
            cudaGetErrorString(e));
    if (host->alloc_device(host, n * sizeof(float), KT_MEM_INPUT, "x",
                           (void **)&s->x) ||
        host->alloc_device(host, sizeof(float), KT_MEM_OUTPUT, "sum",
                           (void **)&s->out) ||
        host->alloc_device(
            host, buf0_count(n, host->device->sm_count) * sizeof(float),
            KT_MEM_SCRATCH, "partials", (void **)&s->buf[0]) ||
        host->alloc_device(host, buf1_count(n) * sizeof(float), KT_MEM_SCRATCH,
                           "partials2", (void **)&s->buf[1]) ||
        host->alloc_device(host, sizeof(unsigned), KT_MEM_SCRATCH, "counter",
                           (void **)&s->counter) ||
        host->alloc_device(host, s->cub_bytes, KT_MEM_SCRATCH, "cub_temp",
                           &s->cub_temp))
        return KT_FAIL;
    // The last-block variant finds its counter at zero and leaves it so.
    e = cudaMemset(s->counter, 0, sizeof(unsigned));
    if (e != cudaSuccess)
        return host->error(host, "zeroing the counter: %s",
                           cudaGetErrorString(e));
    if (KT_HOST_HAS(host, check_f32_device) &&
        KT_HOST_HAS(host, random_f32_device))
        return inputs_on_device(s);
    return inputs_on_host(s);
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    state *s = (state *)st;
    if (s->want_dev)
        return s->host->check_f32_device(s->host, "sum", s->out, s->want_dev,
                                         nullptr, 1, 0.0, s->tol);
    return s->host->check_f32(s->host, "sum", s->out, &s->want, 1, 0.0, s->tol);
}

const kt_size_desc sizes[] = {
    KT_SIZE("n", "number of elements", 1 << 28, 1, (int64_t)1 << 33),
};

const kt_variant variants[] = {
    KT_VARIANT("last_block",
               "grid-stride float4, block sums finished by the last block (one "
               "kernel)",
               vec4_params, shape_vec4<LAST_BLOCK>, check_vec4,
               launch_vec4<LAST_BLOCK>),
    KT_VARIANT("interleaved_divergent",
               "1: interleaved addressing, divergent branch (tid % 2s), passes",
               block_only, shape_interleaved_divergent, nullptr,
               launch_interleaved_divergent),
    KT_VARIANT(
        "interleaved",
        "2: interleaved addressing, strided index (bank conflicts), passes",
        block_only, shape_interleaved, nullptr, launch_interleaved),
    KT_VARIANT("sequential", "3: sequential addressing, passes", block_only,
               shape_sequential, nullptr, launch_sequential),
    KT_VARIANT("first_add", "4: first add during load (2 per thread), passes",
               block_only, shape_first_add, nullptr, launch_first_add),
    KT_VARIANT("unroll_warp",
               "5: first add, last warp without block barriers (__syncwarp), "
               "passes",
               block_only, shape_unroll_warp, nullptr, launch_unroll_warp),
    KT_VARIANT("shuffle", "6: `items` per thread, warp shuffles, passes",
               shuffle_params, shape_shuffle, nullptr, launch_shuffle),
    KT_VARIANT(
        "two_pass", "grid-stride float4, block sums added by a second kernel",
        vec4_params, shape_vec4<TWO_PASS>, check_vec4, launch_vec4<TWO_PASS>),
    KT_VARIANT("atomic",
               "grid-stride float4, block sums atomicAdd into a zeroed result "
               "(one pass)",
               vec4_params, shape_vec4<ATOMIC>, check_vec4,
               launch_vec4<ATOMIC>),
    KT_VARIANT_REFERENCE("cub", "cub::DeviceReduce::Sum, the reference",
                         library_shape, nullptr, launch_cub),
};

const kt_operator operators[] = {
    KT_OPERATOR("sum", "sum of n float32 values, inputs uniform in [0, 1)", 0,
                sizes, variants, work, setup, nullptr, verify, teardown),
};

const kt_plugin plugin =
    KT_PLUGIN("reduce", "1.0.0",
              "sum of n floats: Harris's progression, grid-stride float4 "
              "kernels, and CUB",
              operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
