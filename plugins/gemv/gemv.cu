// SPDX-License-Identifier: Apache-2.0
// gemv: y = A·x (operator `ax`) and y = Aᵀ·x (operator `atx`) for a
// row-major float32 matrix A of m rows and n columns, as a family of
// thread-to-data mappings from the naive one-thread-per-row kernel to
// float4 kernels tuned to stream A once at the memory's speed, with
// cublasSgemv as the reference to beat.
//
// Memory-bound: A is m·n floats read exactly once, x and y are small. What
// decides the speed is 16-byte loads, enough independent loads in flight per
// SM, and not paying for x as much as for A. Verification compares with a
// reference computed in double, element by element, with a tolerance from the
// dot length and Σ|a·x| of that element (see tolerance()).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <ktune/plugin_util.h>

#include <math.h>
#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace
{

// ------------------------------------------------------------------ cuBLAS
//
// The reference variant's library is opened by the first setup() rather
// than linked: libcublas and libcublasLt are 600 MB that `ktune list` and
// every GPU-free use of the plugin would otherwise load (seconds), and
// whose statically linked C++ runtime leaves allocations behind when the
// plugin is unloaded. Once opened it stays loaded for the process. The
// loader's search path comes first, then the toolkit's library folder this
// plugin was built against (KT_CUDA_LIBRARY_DIR), then the usual install
// folder. Without cuBLAS only the `cublas` variant fails; the others run.

#define CUBLAS_SONAME "libcublas.so." KT_STRINGIFY(CUBLAS_VER_MAJOR)

struct cublas_api {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasSgemv_v2) sgemv;
    decltype(&cublasGetStatusString) status_string;
    char error[512]; // why opening failed; empty when it worked
};

cublas_api cublas;
std::once_flag cublas_once;

void cublas_open()
{
    static const char *const paths[] = {
        CUBLAS_SONAME,
#if defined(KT_CUDA_LIBRARY_DIR)
        KT_CUDA_LIBRARY_DIR "/" CUBLAS_SONAME,
#endif
        "/usr/local/cuda/lib64/" CUBLAS_SONAME,
    };
    void *lib = nullptr;
    for (const char *path : paths)
        if (!lib)
            lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const struct {
        void **slot;
        const char *name;
    } symbols[] = {
        {(void **)&cublas.create, "cublasCreate_v2"},
        {(void **)&cublas.destroy, "cublasDestroy_v2"},
        {(void **)&cublas.set_stream, "cublasSetStream_v2"},
        {(void **)&cublas.sgemv, "cublasSgemv_v2"},
        {(void **)&cublas.status_string, "cublasGetStatusString"},
    };
    if (!lib) {
        const char *why = dlerror();
        snprintf(cublas.error, sizeof cublas.error, "dlopen(%s): %s",
                 CUBLAS_SONAME, why ? why : "failed");
        return;
    }
    for (const auto &sym : symbols) {
        *sym.slot = dlsym(lib, sym.name);
        if (!*sym.slot) {
            snprintf(cublas.error, sizeof cublas.error, "%s has no symbol %s",
                     CUBLAS_SONAME, sym.name);
            return;
        }
    }
}

// Opens cuBLAS once per process; whether it is usable.
bool cublas_load()
{
    std::call_once(cublas_once, cublas_open);
    return cublas.error[0] == '\0';
}

constexpr unsigned FULL_MASK = 0xffffffffu;

// ------------------------------------------------------- device helpers

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, off);
    return v;
}

__device__ __forceinline__ float dot4(float4 a, float4 x, float acc)
{
    acc = fmaf(a.x, x.x, acc);
    acc = fmaf(a.y, x.y, acc);
    acc = fmaf(a.z, x.z, acc);
    return fmaf(a.w, x.w, acc);
}

// A is streamed once: the `streaming` cache hint (ld.global.cs) marks its
// lines evict-first so that x, reused by every row, keeps its place in L1
// and L2. Whether that pays is the tuner's question, hence a parameter.
template <bool STREAM> __device__ __forceinline__ float4 load_a(const float4 *p)
{
    if constexpr (STREAM)
        return __ldcs(p);
    else
        return *p;
}

// Sums v[r] over each group of `tpr` consecutive threads (tpr a power of
// two, groups aligned to multiples of tpr, blockDim.x a multiple of 32). The
// group's first thread gets the total. Groups within a warp reduce with
// shuffles; groups wider than a warp go through shared memory, so every
// thread of the block must call this (it synchronises).
template <int R>
__device__ __forceinline__ void group_sum(float (&v)[R], int tpr,
                                          float (*smem)[32])
{
    if (tpr <= 32) {
        for (int off = tpr >> 1; off > 0; off >>= 1) {
#pragma unroll
            for (int r = 0; r < R; ++r)
                v[r] += __shfl_down_sync(FULL_MASK, v[r], off, tpr);
        }
        return;
    }
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        v[r] = warp_sum(v[r]);
        if (lane == 0)
            smem[r][warp] = v[r];
    }
    __syncthreads();
    // The group's first warp adds its warps' sums.
    if ((threadIdx.x & (tpr - 1)) < 32) {
        const int warps = tpr >> 5;
#pragma unroll
        for (int r = 0; r < R; ++r)
            v[r] = warp_sum(lane < warps ? smem[r][warp + lane] : 0.0f);
    }
    __syncthreads(); // smem is free for the next call
}

// ------------------------------------------------------ kernels: y = A·x

// One thread per row: neighbouring threads read addresses n floats apart, so
// every load of a warp touches 32 rows (the uncoalesced baseline).
__global__ void ax_thread_row(const float *__restrict__ a,
                              const float *__restrict__ x,
                              float *__restrict__ y, int m, int n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const float *row = a + (size_t)i * n;
    float acc = 0.0f;
    for (int j = 0; j < n; ++j)
        acc = fmaf(row[j], x[j], acc);
    y[i] = acc;
}

// One warp per row: lanes read consecutive floats (coalesced), U loads per
// lane in flight, then a shuffle reduction.
template <int U>
__global__ void ax_warp_row(const float *__restrict__ a,
                            const float *__restrict__ x, float *__restrict__ y,
                            int m, int n)
{
    const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (w >= m) // the whole warp leaves together
        return;
    const float *row = a + (size_t)w * n;
    float acc = 0.0f;
    int j = lane;
    for (; j + (U - 1) * 32 < n; j += U * 32) {
        float av[U], xv[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            av[u] = row[j + u * 32];
            xv[u] = x[j + u * 32];
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
            acc = fmaf(av[u], xv[u], acc);
    }
    for (; j < n; j += 32)
        acc = fmaf(row[j], x[j], acc);
    acc = warp_sum(acc);
    if (lane == 0)
        y[w] = acc;
}

// Several rows per block: `rows` rows share a block, each with
// blockDim.x / rows threads (from one thread per row to the whole block),
// scalar loads, reduction by group_sum.
__global__ void ax_block_rows(const float *__restrict__ a,
                              const float *__restrict__ x,
                              float *__restrict__ y, int m, int n, int rows)
{
    __shared__ float smem[1][32];
    const int tpr = blockDim.x / rows;
    const int g = threadIdx.x / tpr, l = threadIdx.x % tpr;
    const long long row = (long long)blockIdx.x * rows + g;
    float v[1] = {0.0f};
    if (row < m) {
        const float *ar = a + (size_t)row * n;
        for (int j = l; j < n; j += tpr)
            v[0] = fmaf(ar[j], x[j], v[0]);
    }
    group_sum<1>(v, tpr, smem);
    if (l == 0 && row < m)
        y[row] = v[0];
}

// float4 loads. A group of `tpr` threads owns R consecutive rows; each
// iteration a thread issues U float4 loads per row (R·U loads of A in
// flight) and reuses each float4 of x for its R rows. grid.y splits the
// columns into `split` chunks whose partial sums meet in y by atomicAdd (y is
// zeroed by the launch before).
//
// ALIGNED (n % 4 == 0): every row starts on a 16-byte boundary. Otherwise row
// i starts (i·n) % 4 floats past one: a scalar prologue of p < 4 elements
// reaches the boundary, float4 loads cover the body, a scalar tail the
// remaining < 4 elements, and x is read with scalar loads (x + p is not
// 16-byte aligned). No float4 load is ever unaligned.
//
// MINB is the launch bounds' minimum of blocks per SM (see `schedule`).
template <int R, int U, bool ALIGNED, bool STREAM, int MINB>
__global__ void __launch_bounds__(1024, MINB)
    ax_vec4(const float *__restrict__ a, const float *__restrict__ x,
            float *__restrict__ y, int m, int n, int tpr, int split)
{
    __shared__ float smem[R][32];
    const int g = threadIdx.x / tpr, l = threadIdx.x % tpr;
    const int groups = blockDim.x / tpr;
    const long long row0 = ((long long)blockIdx.x * groups + g) * R;
    const int chunk = ((n >> 2) + split - 1) / split; // float4s per split
    const int lo = (int)blockIdx.y * chunk;
    float acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r)
        acc[r] = 0.0f;

    if constexpr (ALIGNED) {
        const int hi = min(lo + chunk, n >> 2);
        const float4 *x4 = reinterpret_cast<const float4 *>(x);
        const float4 *ar[R];
        // Rows past the end read the last row (valid memory) and are not
        // stored: no branch in the loop.
#pragma unroll
        for (int r = 0; r < R; ++r)
            ar[r] = reinterpret_cast<const float4 *>(
                a + (size_t)min(row0 + r, (long long)m - 1) * n);
        int k = lo + l;
        for (; k + (U - 1) * tpr < hi; k += U * tpr) {
            float4 xv[U], av[R][U];
#pragma unroll
            for (int u = 0; u < U; ++u)
                xv[u] = x4[k + u * tpr];
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int u = 0; u < U; ++u)
                    av[r][u] = load_a<STREAM>(ar[r] + k + u * tpr);
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int u = 0; u < U; ++u)
                    acc[r] = dot4(av[r][u], xv[u], acc[r]);
        }
        for (; k < hi; k += tpr) {
            const float4 xv = x4[k];
#pragma unroll
            for (int r = 0; r < R; ++r)
                acc[r] = dot4(load_a<STREAM>(ar[r] + k), xv, acc[r]);
        }
    } else {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const long long row = row0 + r;
            if (row >= m)
                continue;
            const size_t e0 = (size_t)row * n;
            const float *arow = a + e0;
            int p = (int)((4 - (e0 & 3)) & 3);
            if (p > n)
                p = n;
            const int n4 = (n - p) >> 2;
            const int hi = min(lo + chunk, n4);
            const float4 *a4 = reinterpret_cast<const float4 *>(arow + p);
            const float *xp = x + p;
            int k = lo + l;
            for (; k + (U - 1) * tpr < hi; k += U * tpr) {
                float4 av[U], xv[U];
#pragma unroll
                for (int u = 0; u < U; ++u)
                    av[u] = a4[k + u * tpr];
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    const float *xx = xp + 4 * (k + u * tpr);
                    xv[u] = make_float4(xx[0], xx[1], xx[2], xx[3]);
                }
#pragma unroll
                for (int u = 0; u < U; ++u)
                    acc[r] = dot4(av[u], xv[u], acc[r]);
            }
            for (; k < hi; k += tpr) {
                const float *xx = xp + 4 * k;
                acc[r] = dot4(a4[k], make_float4(xx[0], xx[1], xx[2], xx[3]),
                              acc[r]);
            }
            if (blockIdx.y == 0) {
                for (int t = l; t < p; t += tpr)
                    acc[r] = fmaf(arow[t], x[t], acc[r]);
                for (int t = p + 4 * n4 + l; t < n; t += tpr)
                    acc[r] = fmaf(arow[t], x[t], acc[r]);
            }
        }
    }
    group_sum<R>(acc, tpr, smem);
    if (l == 0) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (row0 + r >= m)
                break;
            if (split == 1)
                y[row0 + r] = acc[r];
            else
                atomicAdd(&y[row0 + r], acc[r]);
        }
    }
}

// ----------------------------------------------------- kernels: y = Aᵀ·x

// One thread per column: a warp reads 32 consecutive floats of a row
// (coalesced), but only n threads exist: too few when n is small.
__global__ void atx_thread_col(const float *__restrict__ a,
                               const float *__restrict__ x,
                               float *__restrict__ y, int m, int n)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    float acc = 0.0f;
    for (int i = 0; i < m; ++i)
        acc = fmaf(a[(size_t)i * n + j], x[i], acc);
    y[j] = acc;
}

// One warp per column, lanes over rows, shuffle reduction: the transpose of
// warp_row, and uncoalesced (a warp's load touches 32 rows).
__global__ void atx_warp_col(const float *__restrict__ a,
                             const float *__restrict__ x, float *__restrict__ y,
                             int m, int n)
{
    const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (w >= n)
        return;
    float acc = 0.0f;
    for (int i = lane; i < m; i += 32)
        acc = fmaf(a[(size_t)i * n + w], x[i], acc);
    acc = warp_sum(acc);
    if (lane == 0)
        y[w] = acc;
}

// Column per thread (coalesced) with the rows split into gridDim.y chunks:
// split·n threads instead of n. ATOMIC: partial sums meet in y by atomicAdd
// (y zeroed by the launch). Otherwise each chunk writes its own row of
// `out` (split x n partials) and atx_sum_partials adds them in a second pass.
template <int U, bool ATOMIC>
__global__ void atx_col_split(const float *__restrict__ a,
                              const float *__restrict__ x,
                              float *__restrict__ out, int m, int n)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    const int split = gridDim.y;
    const int chunk = (m + split - 1) / split;
    const int lo = (int)blockIdx.y * chunk;
    const int hi = min(lo + chunk, m);
    const float *col = a + j;
    float acc = 0.0f;
    int i = lo;
    for (; i + U - 1 < hi; i += U) {
        float av[U], xv[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            av[u] = col[(size_t)(i + u) * n];
            xv[u] = x[i + u];
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
            acc = fmaf(av[u], xv[u], acc);
    }
    for (; i < hi; ++i)
        acc = fmaf(col[(size_t)i * n], x[i], acc);
    if constexpr (ATOMIC) {
        if (split == 1)
            out[j] = acc;
        else
            atomicAdd(&out[j], acc);
    } else {
        out[(size_t)blockIdx.y * n + j] = acc;
    }
}

__global__ void atx_sum_partials(const float *__restrict__ partials,
                                 float *__restrict__ y, int n, int split)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    float acc = 0.0f;
    for (int s = 0; s < split; ++s)
        acc += partials[(size_t)s * n + j];
    y[j] = acc;
}

// Four columns of A per thread. ALIGNED (n % 4 == 0): one float4 load per
// row; otherwise four scalar loads (a row's columns 4c..4c+3 are not
// 16-byte aligned), columns past n read as zero.
template <bool ALIGNED, bool STREAM>
__device__ __forceinline__ float4 load_cols(const float *p, long long j0, int n)
{
    if constexpr (ALIGNED) {
        return load_a<STREAM>(reinterpret_cast<const float4 *>(p));
    } else {
        float4 v;
        v.x = p[0];
        v.y = j0 + 1 < n ? p[1] : 0.0f;
        v.z = j0 + 2 < n ? p[2] : 0.0f;
        v.w = j0 + 3 < n ? p[3] : 0.0f;
        return v;
    }
}

__device__ __forceinline__ void axpy4(float4 &acc, float4 a, float x)
{
    acc.x = fmaf(a.x, x, acc.x);
    acc.y = fmaf(a.y, x, acc.y);
    acc.z = fmaf(a.z, x, acc.z);
    acc.w = fmaf(a.w, x, acc.w);
}

// float4 columns. The block is tx threads across columns (4 columns each)
// by blockDim.x / tx threads down the rows of the block's chunk (rows
// interleaved); U rows in flight per thread. Threads down the rows meet in
// shared memory, chunks (gridDim.y) meet in y by atomicAdd — one float4
// atomic per 4 columns on sm_90 — after the launch zeroed y.
template <int U, bool ALIGNED, bool STREAM, int MINB>
__global__ void __launch_bounds__(1024, MINB)
    atx_vec4(const float *__restrict__ a, const float *__restrict__ x,
             float *__restrict__ y, int m, int n, int tx)
{
    extern __shared__ float4 red[]; // blockDim.x when ty > 1
    const int cx = threadIdx.x % tx, ry = threadIdx.x / tx;
    const int ty = blockDim.x / tx;
    const long long j0 = 4 * ((long long)blockIdx.x * tx + cx);
    const int split = gridDim.y;
    const int chunk = (m + split - 1) / split;
    const int lo = (int)blockIdx.y * chunk;
    const int hi = min(lo + chunk, m);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (j0 < n) {
        const float *base = a + j0;
        int i = lo + ry;
        for (; i + (U - 1) * ty < hi; i += U * ty) {
            float4 av[U];
            float xv[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                av[u] = load_cols<ALIGNED, STREAM>(
                    base + (size_t)(i + u * ty) * n, j0, n);
                xv[u] = x[i + u * ty];
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
                axpy4(acc, av[u], xv[u]);
        }
        for (; i < hi; i += ty)
            axpy4(acc, load_cols<ALIGNED, STREAM>(base + (size_t)i * n, j0, n),
                  x[i]);
    }
    if (ty > 1) {
        red[threadIdx.x] = acc;
        __syncthreads();
        for (int s = ty >> 1; s > 0; s >>= 1) {
            if (ry < s) {
                const float4 o = red[threadIdx.x + s * tx];
                acc.x += o.x;
                acc.y += o.y;
                acc.z += o.z;
                acc.w += o.w;
                red[threadIdx.x] = acc;
            }
            __syncthreads();
        }
    }
    if (ry != 0 || j0 >= n)
        return;
    if (split == 1) {
        if (ALIGNED) {
            *reinterpret_cast<float4 *>(y + j0) = acc;
        } else {
            y[j0] = acc.x;
            if (j0 + 1 < n)
                y[j0 + 1] = acc.y;
            if (j0 + 2 < n)
                y[j0 + 2] = acc.z;
            if (j0 + 3 < n)
                y[j0 + 3] = acc.w;
        }
        return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (ALIGNED) {
        atomicAdd(reinterpret_cast<float4 *>(y + j0), acc);
        return;
    }
#endif
    atomicAdd(&y[j0], acc.x);
    if (j0 + 1 < n)
        atomicAdd(&y[j0 + 1], acc.y);
    if (j0 + 2 < n)
        atomicAdd(&y[j0 + 2], acc.z);
    if (j0 + 3 < n)
        atomicAdd(&y[j0 + 3], acc.w);
}

// ------------------------------------------------------------- parameters

const int64_t unroll_values[] = {1, 2, 4, 8};
const int64_t rows_per_thread_values[] = {1, 2, 4};
const int64_t ax_split_values[] = {1, 2, 4, 8, 16};
const int64_t atx_split_values[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
// The two-pass variant keeps split x n partials: at most SPLIT_2PASS_MAX.
constexpr int SPLIT_2PASS_MAX = 64;
const int64_t atx_split_2pass_values[] = {1, 2, 4, 8, 16, 32, SPLIT_2PASS_MAX};
const char *const cache_labels[] = {"default", "streaming"};
// How ptxas schedules the float4 kernels. Left alone ("occupancy") it keeps
// registers at 32 for full occupancy and interleaves each load with the FMAs
// that consume it, so only a few loads per thread are in flight; with a
// minimum of one block per SM in the launch bounds ("loads_first") it may use
// up to 64 registers and issues the unrolled loads before the first FMA.
// More warps or more loads per warp: the tuner measures which hides the
// memory latency better.
const char *const schedule_labels[] = {"occupancy", "loads_first"};

#define BLOCK_PARAM(dflt)                                                      \
    KT_PARAM_POW2("block", "threads per block", 32, 1024, dflt)

const kt_param_desc thread_params[] = {BLOCK_PARAM(128)};

enum { P_BLOCK = 0 };
enum { WR_UNROLL = 1 };
const kt_param_desc warp_row_params[] = {
    BLOCK_PARAM(256),
    KT_PARAM_LIST("unroll", "loads in flight per lane", unroll_values, 4),
};

enum { BR_ROWS = 1 };
const kt_param_desc block_rows_params[] = {
    BLOCK_PARAM(256),
    KT_PARAM_POW2("rows_per_block",
                  "rows sharing a block; block / rows_per_block threads each",
                  1, 1024, 8),
};

enum {
    AV_TPR = 1,
    AV_RPT = 2,
    AV_UNROLL = 3,
    AV_SPLIT = 4,
    AV_CACHE = 5,
    AV_SCHED = 6
};
const kt_param_desc ax_vec4_params[] = {
    BLOCK_PARAM(256),
    KT_PARAM_POW2("threads_per_row", "threads reading one row", 1, 1024, 32),
    KT_PARAM_LIST("rows_per_thread",
                  "rows a thread reads together, sharing each float4 of x",
                  rows_per_thread_values, 1),
    KT_PARAM_LIST("unroll", "float4 loads in flight per row and thread",
                  unroll_values, 4),
    KT_PARAM_LIST("split",
                  "column chunks (grid.y), combined by atomicAdd into a "
                  "zeroed y",
                  ax_split_values, 1),
    KT_PARAM_ENUM("cache", "cache hint of the loads of A", cache_labels, 0),
    KT_PARAM_ENUM("schedule", "registers for occupancy, or for loads in flight",
                  schedule_labels, 0),
};

enum { CS_UNROLL = 1, CS_SPLIT = 2 };
const kt_param_desc col_split_params[] = {
    BLOCK_PARAM(256),
    KT_PARAM_LIST("unroll", "rows in flight per thread", unroll_values, 4),
    KT_PARAM_LIST("split", "row chunks (grid.y), combined by atomicAdd",
                  atx_split_values, 16),
};
const kt_param_desc col_split_2pass_params[] = {
    BLOCK_PARAM(256),
    KT_PARAM_LIST("unroll", "rows in flight per thread", unroll_values, 4),
    KT_PARAM_LIST("split",
                  "row chunks (grid.y), whose split x n partial sums a second "
                  "kernel adds",
                  atx_split_2pass_values, 16),
};

enum { TV_COLS = 1, TV_UNROLL = 2, TV_SPLIT = 3, TV_CACHE = 4, TV_SCHED = 5 };
const kt_param_desc atx_vec4_params[] = {
    BLOCK_PARAM(256),
    KT_PARAM_POW2("col_threads",
                  "threads across columns (4 columns each); the other "
                  "block / col_threads run down the rows",
                  8, 1024, 64),
    KT_PARAM_LIST("unroll", "rows in flight per thread", unroll_values, 4),
    KT_PARAM_LIST("split",
                  "row chunks (grid.y), combined by atomicAdd into a zeroed y",
                  atx_split_values, 16),
    KT_PARAM_ENUM("cache", "cache hint of the loads of A", cache_labels, 0),
    KT_PARAM_ENUM("schedule", "registers for occupancy, or for loads in flight",
                  schedule_labels, 0),
};

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    int transposed; // 0: y = A·x, 1: y = Aᵀ·x
    int m, n;
    size_t xlen, ylen;
    float *a, *x, *y; // device
    float *partials;  // device, min(m, SPLIT_2PASS_MAX) x n (atx only)
    cublasHandle_t cublas;
    char cublas_error[512]; // why there is no handle, when there is none
    double *want, *tol;     // host: reference and tolerance per element of y
    float *got;             // host: y downloaded for verification
    // The same two kept on the device (the device path; then the host
    // copies are freed).
    double *want_dev, *tol_dev;
};

// ---------------------------------------------------------------- shapes
//
// One geometry function per variant, called by its shape() on the
// problem's sizes. The launches get the result from the host
// (launch_shaped): the geometry is derived once, here.

// A 1-D block of `block` threads over a gx x gy grid.
int set_shape(kt_shape *out, uint64_t gx, uint64_t gy, uint64_t block,
              uint32_t smem, const void *kernel)
{
    return kt_shape_2d(out, gx, gy, block, 1, smem, kernel);
}

int64_t cfg(const kt_config *c, int index)
{
    return c->values[index];
}

// Library calls choose their own geometry. The nominal shape below is what
// the host checks and what sets the boundary sizes verification uses.
int geom_library(int64_t, int64_t, const kt_config *, kt_shape *out)
{
    return set_shape(out, 1, 1, 256, 0, nullptr);
}

int geom_ax_thread_row(int64_t m, int64_t, const kt_config *c, kt_shape *out)
{
    uint64_t block = (uint64_t)cfg(c, P_BLOCK);
    return set_shape(out, kt_div_up((uint64_t)m, block), 1, block, 0,
                     (const void *)ax_thread_row);
}

const void *ax_warp_row_kernel(int64_t unroll)
{
    switch (unroll) {
    case 1: return (const void *)ax_warp_row<1>;
    case 2: return (const void *)ax_warp_row<2>;
    case 4: return (const void *)ax_warp_row<4>;
    default: return (const void *)ax_warp_row<8>;
    }
}

int geom_ax_warp_row(int64_t m, int64_t, const kt_config *c, kt_shape *out)
{
    uint64_t block = (uint64_t)cfg(c, P_BLOCK);
    return set_shape(out, kt_div_up((uint64_t)m * 32, block), 1, block, 0,
                     ax_warp_row_kernel(cfg(c, WR_UNROLL)));
}

int geom_ax_block_rows(int64_t m, int64_t, const kt_config *c, kt_shape *out)
{
    uint64_t block = (uint64_t)cfg(c, P_BLOCK),
             rows = (uint64_t)cfg(c, BR_ROWS);
    if (rows > block)
        return KT_INVALID;
    return set_shape(out, kt_div_up((uint64_t)m, rows), 1, block, 0,
                     (const void *)ax_block_rows);
}

typedef void (*ax_vec4_fn)(const float *, const float *, float *, int, int, int,
                           int);

template <int R, int U, int MINB>
ax_vec4_fn ax_vec4_pick_sched(bool aligned, bool stream)
{
    if (!aligned)
        return ax_vec4<R, U, false, false, MINB>;
    return stream ? ax_vec4<R, U, true, true, MINB>
                  : ax_vec4<R, U, true, false, MINB>;
}

template <int R, int U>
ax_vec4_fn ax_vec4_pick(bool aligned, bool stream, bool loads_first)
{
    return loads_first ? ax_vec4_pick_sched<R, U, 1>(aligned, stream)
                       : ax_vec4_pick_sched<R, U, 0>(aligned, stream);
}

// rows_per_thread x unroll is capped at 16 float4 loads of A in flight per
// thread (check_ax_vec4): beyond that the registers run out.
ax_vec4_fn ax_vec4_kernel(int64_t rpt, int64_t unroll, bool aligned,
                          bool stream, bool loads_first)
{
    switch (rpt * 16 + unroll) {
    case 16 + 1: return ax_vec4_pick<1, 1>(aligned, stream, loads_first);
    case 16 + 2: return ax_vec4_pick<1, 2>(aligned, stream, loads_first);
    case 16 + 4: return ax_vec4_pick<1, 4>(aligned, stream, loads_first);
    case 16 + 8: return ax_vec4_pick<1, 8>(aligned, stream, loads_first);
    case 32 + 1: return ax_vec4_pick<2, 1>(aligned, stream, loads_first);
    case 32 + 2: return ax_vec4_pick<2, 2>(aligned, stream, loads_first);
    case 32 + 4: return ax_vec4_pick<2, 4>(aligned, stream, loads_first);
    case 32 + 8: return ax_vec4_pick<2, 8>(aligned, stream, loads_first);
    case 64 + 1: return ax_vec4_pick<4, 1>(aligned, stream, loads_first);
    case 64 + 2: return ax_vec4_pick<4, 2>(aligned, stream, loads_first);
    case 64 + 4: return ax_vec4_pick<4, 4>(aligned, stream, loads_first);
    default: return nullptr;
    }
}

constexpr int64_t MAX_LOADS_IN_FLIGHT = 16;

int geom_ax_vec4(int64_t m, int64_t n, const kt_config *c, kt_shape *out)
{
    uint64_t block = (uint64_t)cfg(c, P_BLOCK), tpr = (uint64_t)cfg(c, AV_TPR),
             rpt = (uint64_t)cfg(c, AV_RPT);
    ax_vec4_fn k = ax_vec4_kernel(cfg(c, AV_RPT), cfg(c, AV_UNROLL), n % 4 == 0,
                                  cfg(c, AV_CACHE) == 1, cfg(c, AV_SCHED) == 1);
    if (tpr > block || !k)
        return KT_INVALID;
    return set_shape(out, kt_div_up((uint64_t)m, block / tpr * rpt),
                     (uint64_t)cfg(c, AV_SPLIT), block, 0, (const void *)k);
}

int geom_atx_thread_col(int64_t, int64_t n, const kt_config *c, kt_shape *out)
{
    uint64_t block = (uint64_t)cfg(c, P_BLOCK);
    return set_shape(out, kt_div_up((uint64_t)n, block), 1, block, 0,
                     (const void *)atx_thread_col);
}

int geom_atx_warp_col(int64_t, int64_t n, const kt_config *c, kt_shape *out)
{
    uint64_t block = (uint64_t)cfg(c, P_BLOCK);
    return set_shape(out, kt_div_up((uint64_t)n * 32, block), 1, block, 0,
                     (const void *)atx_warp_col);
}

template <bool ATOMIC> const void *col_split_kernel(int64_t unroll)
{
    switch (unroll) {
    case 1: return (const void *)atx_col_split<1, ATOMIC>;
    case 2: return (const void *)atx_col_split<2, ATOMIC>;
    case 4: return (const void *)atx_col_split<4, ATOMIC>;
    default: return (const void *)atx_col_split<8, ATOMIC>;
    }
}

// More chunks than rows would only add empty blocks: the split is capped at
// m, which also bounds the two-pass scratch by min(m, 64) x n floats.
uint64_t effective_split(int64_t split, int64_t m)
{
    return (uint64_t)(split < m ? split : m);
}

int geom_col_split(int64_t m, int64_t n, const kt_config *c, kt_shape *out,
                   bool atomic)
{
    uint64_t block = (uint64_t)cfg(c, P_BLOCK);
    return set_shape(out, kt_div_up((uint64_t)n, block),
                     effective_split(cfg(c, CS_SPLIT), m), block, 0,
                     atomic ? col_split_kernel<true>(cfg(c, CS_UNROLL))
                            : col_split_kernel<false>(cfg(c, CS_UNROLL)));
}

int geom_col_split_atomic(int64_t m, int64_t n, const kt_config *c,
                          kt_shape *out)
{
    return geom_col_split(m, n, c, out, true);
}

int geom_col_split_2pass(int64_t m, int64_t n, const kt_config *c,
                         kt_shape *out)
{
    return geom_col_split(m, n, c, out, false);
}

typedef void (*atx_vec4_fn)(const float *, const float *, float *, int, int,
                            int);

template <int U, int MINB>
atx_vec4_fn atx_vec4_pick_sched(bool aligned, bool stream)
{
    if (!aligned)
        return atx_vec4<U, false, false, MINB>;
    return stream ? atx_vec4<U, true, true, MINB>
                  : atx_vec4<U, true, false, MINB>;
}

template <int U>
atx_vec4_fn atx_vec4_pick(bool aligned, bool stream, bool loads_first)
{
    return loads_first ? atx_vec4_pick_sched<U, 1>(aligned, stream)
                       : atx_vec4_pick_sched<U, 0>(aligned, stream);
}

atx_vec4_fn atx_vec4_kernel(int64_t unroll, bool aligned, bool stream,
                            bool loads_first)
{
    switch (unroll) {
    case 1: return atx_vec4_pick<1>(aligned, stream, loads_first);
    case 2: return atx_vec4_pick<2>(aligned, stream, loads_first);
    case 4: return atx_vec4_pick<4>(aligned, stream, loads_first);
    default: return atx_vec4_pick<8>(aligned, stream, loads_first);
    }
}

int geom_atx_vec4(int64_t m, int64_t n, const kt_config *c, kt_shape *out)
{
    uint64_t block = (uint64_t)cfg(c, P_BLOCK), tx = (uint64_t)cfg(c, TV_COLS);
    if (tx > block)
        return KT_INVALID;
    // Shared memory only when threads down the rows must meet.
    uint32_t smem = tx < block ? (uint32_t)(block * sizeof(float4)) : 0;
    return set_shape(out, kt_div_up(kt_div_up((uint64_t)n, 4), tx),
                     effective_split(cfg(c, TV_SPLIT), m), block, smem,
                     (const void *)atx_vec4_kernel(
                         cfg(c, TV_UNROLL), n % 4 == 0, cfg(c, TV_CACHE) == 1,
                         cfg(c, TV_SCHED) == 1));
}

// shape() callbacks: the problem's m and n.
#define SHAPE_FN(name)                                                         \
    int shape_##name(const kt_problem *p, const kt_config *c, kt_shape *out)   \
    {                                                                          \
        return geom_##name(p->sizes[0], p->sizes[1], c, out);                  \
    }
SHAPE_FN(library)
SHAPE_FN(ax_thread_row)
SHAPE_FN(ax_warp_row)
SHAPE_FN(ax_block_rows)
SHAPE_FN(ax_vec4)
SHAPE_FN(atx_thread_col)
SHAPE_FN(atx_warp_col)
SHAPE_FN(col_split_atomic)
SHAPE_FN(col_split_2pass)
SHAPE_FN(atx_vec4)
#undef SHAPE_FN

// ---------------------------------------------------------------- checks

int check_block_rows(const kt_problem *, const kt_config *c, char *why,
                     size_t why_size)
{
    if (cfg(c, BR_ROWS) > cfg(c, P_BLOCK)) {
        snprintf(why, why_size, "rows_per_block %lld > block %lld",
                 (long long)cfg(c, BR_ROWS), (long long)cfg(c, P_BLOCK));
        return KT_INVALID;
    }
    return KT_OK;
}

int check_ax_vec4(const kt_problem *, const kt_config *c, char *why,
                  size_t why_size)
{
    if (cfg(c, AV_TPR) > cfg(c, P_BLOCK)) {
        snprintf(why, why_size, "threads_per_row %lld > block %lld",
                 (long long)cfg(c, AV_TPR), (long long)cfg(c, P_BLOCK));
        return KT_INVALID;
    }
    if (cfg(c, AV_RPT) * cfg(c, AV_UNROLL) > MAX_LOADS_IN_FLIGHT) {
        snprintf(why, why_size,
                 "rows_per_thread x unroll = %lld float4 loads in flight > "
                 "%lld (registers)",
                 (long long)(cfg(c, AV_RPT) * cfg(c, AV_UNROLL)),
                 (long long)MAX_LOADS_IN_FLIGHT);
        return KT_INVALID;
    }
    return KT_OK;
}

int check_atx_vec4(const kt_problem *, const kt_config *c, char *why,
                   size_t why_size)
{
    if (cfg(c, TV_COLS) > cfg(c, P_BLOCK)) {
        snprintf(why, why_size, "col_threads %lld > block %lld",
                 (long long)cfg(c, TV_COLS), (long long)cfg(c, P_BLOCK));
        return KT_INVALID;
    }
    return KT_OK;
}

// --------------------------------------------------------------- launches

// Zeroes y inside the launch sequence (timed) for the atomic variants.
int zero_y(const state *s, cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(s->y, 0, s->ylen * sizeof(float), stream);
    return e == cudaSuccess ? KT_OK
                            : s->host->error(s->host, "zeroing y: %s",
                                             cudaGetErrorString(e));
}

// The kernels that shape() picks among instances, by their signature.
typedef void (*rows_fn)(const float *, const float *, float *, int, int);
typedef void (*col_split_fn)(const float *, const float *, float *, int, int);

int launch_ax_thread_row(void *st, const kt_config *, const kt_shape *sh,
                         void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, ax_thread_row, s->a, s->x, s->y, s->m, s->n);
}

int launch_ax_warp_row(void *st, const kt_config *, const kt_shape *sh,
                       void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, (rows_fn)sh->kernel, s->a, s->x, s->y, s->m,
                     s->n);
}

int launch_ax_block_rows(void *st, const kt_config *c, const kt_shape *sh,
                         void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, ax_block_rows, s->a, s->x, s->y, s->m, s->n,
                     (int)cfg(c, BR_ROWS));
}

int launch_ax_vec4(void *st, const kt_config *c, const kt_shape *sh,
                   void *stream)
{
    state *s = (state *)st;
    int split = (int)cfg(c, AV_SPLIT);
    if (split > 1 && zero_y(s, (cudaStream_t)stream) != KT_OK)
        return KT_FAIL;
    return kt_launch(*sh, stream, (ax_vec4_fn)sh->kernel, s->a, s->x, s->y,
                     s->m, s->n, (int)cfg(c, AV_TPR), split);
}

int launch_atx_thread_col(void *st, const kt_config *, const kt_shape *sh,
                          void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, atx_thread_col, s->a, s->x, s->y, s->m, s->n);
}

int launch_atx_warp_col(void *st, const kt_config *, const kt_shape *sh,
                        void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, atx_warp_col, s->a, s->x, s->y, s->m, s->n);
}

int launch_col_split_atomic(void *st, const kt_config *, const kt_shape *sh,
                            void *stream)
{
    state *s = (state *)st;
    if (sh->grid[1] > 1 && zero_y(s, (cudaStream_t)stream) != KT_OK)
        return KT_FAIL;
    return kt_launch(*sh, stream, (col_split_fn)sh->kernel, s->a, s->x, s->y,
                     s->m, s->n);
}

// The second pass sums the grid[1] chunks' partials of each column.
int launch_col_split_2pass(void *st, const kt_config *, const kt_shape *sh,
                           void *stream)
{
    state *s = (state *)st;
    cudaStream_t cs = (cudaStream_t)stream;
    kt_launch(*sh, stream, (col_split_fn)sh->kernel, s->a, s->x, s->partials,
              s->m, s->n);
    atx_sum_partials<<<sh->grid[0], sh->block[0], 0, cs>>>(
        s->partials, s->y, s->n, (int)sh->grid[1]);
    return KT_OK;
}

int launch_atx_vec4(void *st, const kt_config *c, const kt_shape *sh,
                    void *stream)
{
    state *s = (state *)st;
    if (sh->grid[1] > 1 && zero_y(s, (cudaStream_t)stream) != KT_OK)
        return KT_FAIL;
    return kt_launch(*sh, stream, (atx_vec4_fn)sh->kernel, s->a, s->x, s->y,
                     s->m, s->n, (int)cfg(c, TV_COLS));
}

// Row-major A (m x n) is, to column-major cuBLAS, the n x m matrix Aᵀ with
// leading dimension n. So y = A·x is cuBLAS's transposed product of that
// matrix, and y = Aᵀ·x its plain product.
int launch_cublas(void *st, const kt_config *, const kt_shape *, void *stream)
{
    state *s = (state *)st;
    const float one = 1.0f, zero = 0.0f;
    if (!s->cublas)
        return s->host->error(s->host, "cuBLAS is not available: %s",
                              s->cublas_error);
    cublasStatus_t e = cublas.set_stream(s->cublas, (cudaStream_t)stream);
    if (e == CUBLAS_STATUS_SUCCESS)
        e = cublas.sgemv(s->cublas, s->transposed ? CUBLAS_OP_N : CUBLAS_OP_T,
                         s->n, s->m, &one, s->a, s->n, s->x, 1, &zero, s->y, 1);
    if (e != CUBLAS_STATUS_SUCCESS)
        return s->host->error(s->host, "cublasSgemv: %s",
                              cublas.status_string(e));
    return KT_OK;
}

// -------------------------------------------------------------- lifecycle

// Unit roundoff of float32.
constexpr double U32 = 1.0 / 16777216.0;

// Tolerance of one element of y, a dot product of length k whose terms sum
// in an order the variant chooses (sequential, trees, split chunks, atomics).
// Any order passes each term through at most k roundings, so
// k·u·Σ|a·x| bounds the error (Higham's γ_k); the probabilistic bound
// λ·√k·u·Σ|a·x| (Higham & Mary 2019; λ = 10 makes a failure by chance
// below 1e-15 even for k = 2^28) is far tighter for long rows. Plus half an
// ulp for the result's own rounding.
double tolerance(double k, double abs_sum, double want)
{
    double g = fmin(k, 10.0 * sqrt(k));
    return U32 * (g * abs_sum + fabs(want));
}

int sizes_of(const kt_problem *p, int64_t *m, int64_t *n)
{
    *m = p->sizes[0];
    *n = p->sizes[1];
    return KT_OK;
}

int work_ax(const kt_problem *p, kt_work *out)
{
    int64_t m, n;
    sizes_of(p, &m, &n);
    out->bytes_read = 4.0 * ((double)m * (double)n + (double)n);
    out->bytes_written = 4.0 * (double)m;
    out->flops = 2.0 * (double)m * (double)n;
    return KT_OK;
}

int work_atx(const kt_problem *p, kt_work *out)
{
    int64_t m, n;
    sizes_of(p, &m, &n);
    out->bytes_read = 4.0 * ((double)m * (double)n + (double)m);
    out->bytes_written = 4.0 * (double)n;
    out->flops = 2.0 * (double)m * (double)n;
    return KT_OK;
}

void teardown(void *st)
{
    state *s = (state *)st;
    if (!s)
        return;
    if (s->cublas) {
        cublasStatus_t e = cublas.destroy(s->cublas);
        if (e != CUBLAS_STATUS_SUCCESS)
            s->host->log(s->host, KT_LOG_WARN, "cublasDestroy: %s",
                         cublas.status_string(e));
    }
    if (s->a)
        s->host->free_device(s->host, s->a);
    if (s->x)
        s->host->free_device(s->host, s->x);
    if (s->y)
        s->host->free_device(s->host, s->y);
    if (s->partials)
        s->host->free_device(s->host, s->partials);
    if (s->want_dev)
        s->host->free_device(s->host, s->want_dev);
    if (s->tol_dev)
        s->host->free_device(s->host, s->tol_dev);
    free(s->want);
    free(s->tol);
    free(s->got);
    free(s);
}

// The reference in double, and each element's Σ|a·x| for its tolerance.
void reference(state *s, const float *ha, const float *hx, double *abs_sum)
{
    const size_t m = (size_t)s->m, n = (size_t)s->n;
    if (!s->transposed) {
        for (size_t i = 0; i < m; ++i) {
            const float *row = ha + i * n;
            double sum = 0.0, abs = 0.0;
            for (size_t j = 0; j < n; ++j) {
                double t = (double)row[j] * (double)hx[j];
                sum += t;
                abs += fabs(t);
            }
            s->want[i] = sum;
            abs_sum[i] = abs;
        }
        return;
    }
    memset(s->want, 0, n * sizeof(double));
    memset(abs_sum, 0, n * sizeof(double));
    for (size_t i = 0; i < m; ++i) {
        const float *row = ha + i * n;
        const double xi = hx[i];
        for (size_t j = 0; j < n; ++j) {
            double t = (double)row[j] * xi;
            s->want[j] += t;
            abs_sum[j] += fabs(t);
        }
    }
}

// The device path's reference: y and each element's Σ|a·x| in double by
// plain kernels, then the same tolerance() as the host's, every product and
// sum rounded on its own. The sums run in another order than the host
// loop's; in double that moves them by about 1e-16 of Σ|a·x|, nine orders
// below the tolerance.
__device__ double tolerance_dev(double k, double abs_sum, double want)
{
    double g = fmin(k, __dmul_rn(10.0, sqrt(k)));
    return __dmul_rn(U32, __dadd_rn(__dmul_rn(g, abs_sum), fabs(want)));
}

// y = A·x: one warp per row.
__global__ void reference_ax(const float *__restrict__ a,
                             const float *__restrict__ x, int m, int n,
                             double *want, double *tol)
{
    int row = (int)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32);
    int lane = (int)(threadIdx.x % 32);
    double sum = 0.0, abs = 0.0;
    if (row >= m)
        return;
    for (int j = lane; j < n; j += 32) {
        double t = __dmul_rn((double)a[(size_t)row * n + j], (double)x[j]);
        sum = __dadd_rn(sum, t);
        abs = __dadd_rn(abs, fabs(t));
    }
    for (int o = 16; o > 0; o /= 2) {
        sum = __dadd_rn(sum, __shfl_down_sync(0xffffffffu, sum, o));
        abs = __dadd_rn(abs, __shfl_down_sync(0xffffffffu, abs, o));
    }
    if (lane == 0) {
        want[row] = sum;
        tol[row] = tolerance_dev((double)n, abs, sum);
    }
}

// y = Aᵀ·x: a thread per column over a chunk of rows (grid.y chunks), the
// chunks' partial sums then added in chunk order: the same result every
// time.
constexpr int REF_CHUNKS = 64;

__global__ void reference_atx_chunks(const float *__restrict__ a,
                                     const float *__restrict__ x, int m, int n,
                                     double *part_sum, double *part_abs)
{
    int col = (int)((size_t)blockIdx.x * blockDim.x + threadIdx.x);
    int rows = (m + REF_CHUNKS - 1) / REF_CHUNKS;
    int first = (int)blockIdx.y * rows, last = min(m, first + rows);
    double sum = 0.0, abs = 0.0;
    if (col >= n)
        return;
    for (int i = first; i < last; ++i) {
        double t = __dmul_rn((double)a[(size_t)i * n + col], (double)x[i]);
        sum = __dadd_rn(sum, t);
        abs = __dadd_rn(abs, fabs(t));
    }
    part_sum[(size_t)blockIdx.y * n + col] = sum;
    part_abs[(size_t)blockIdx.y * n + col] = abs;
}

__global__ void reference_atx_total(const double *part_sum,
                                    const double *part_abs, int m, int n,
                                    double *want, double *tol)
{
    int col = (int)((size_t)blockIdx.x * blockDim.x + threadIdx.x);
    double sum = 0.0, abs = 0.0;
    if (col >= n)
        return;
    for (int c = 0; c < REF_CHUNKS; ++c) {
        sum = __dadd_rn(sum, part_sum[(size_t)c * n + col]);
        abs = __dadd_rn(abs, part_abs[(size_t)c * n + col]);
    }
    want[col] = sum;
    tol[col] = tolerance_dev((double)m, abs, sum);
}

int reference_on_device(state *s)
{
    const kt_host *host = s->host;
    double *parts = nullptr;
    cudaError_t e;
    if (host->alloc_device(host, s->ylen * sizeof(double), KT_MEM_SCRATCH,
                           "y (reference)", (void **)&s->want_dev) ||
        host->alloc_device(host, s->ylen * sizeof(double), KT_MEM_SCRATCH,
                           "y (tolerance)", (void **)&s->tol_dev))
        return KT_FAIL;
    if (!s->transposed) {
        size_t blocks = ((size_t)s->m * 32 + 255) / 256;
        reference_ax<<<(unsigned)blocks, 256>>>(s->a, s->x, s->m, s->n,
                                                s->want_dev, s->tol_dev);
    } else {
        size_t half = (size_t)REF_CHUNKS * (size_t)s->n;
        if (host->alloc_device(host, 2 * half * sizeof(double), KT_MEM_SCRATCH,
                               "y (reference partials)", (void **)&parts))
            return KT_FAIL;
        dim3 grid((unsigned)(((size_t)s->n + 255) / 256), REF_CHUNKS);
        reference_atx_chunks<<<grid, 256>>>(s->a, s->x, s->m, s->n, parts,
                                            parts + half);
        reference_atx_total<<<grid.x, 256>>>(parts, parts + half, s->m, s->n,
                                             s->want_dev, s->tol_dev);
    }
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (parts)
        host->free_device(host, parts);
    if (e != cudaSuccess)
        return host->error(host, "reference: %s", cudaGetErrorString(e));
    return KT_OK;
}

// The host path: inputs made and the reference computed in host memory
// (kept there, or uploaded once when the host compares on the device).
int inputs_on_host(state *s, size_t elems)
{
    const kt_host *host = s->host;
    float *ha = (float *)malloc(elems * sizeof(float));
    float *hx = (float *)malloc(s->xlen * sizeof(float));
    double *abs_sum = (double *)malloc(s->ylen * sizeof(double));
    int rc = KT_FAIL;

    s->want = (double *)malloc(s->ylen * sizeof(double));
    s->tol = (double *)malloc(s->ylen * sizeof(double));
    s->got = (float *)malloc(s->ylen * sizeof(float));
    if (!ha || !hx || !abs_sum || !s->want || !s->tol || !s->got) {
        host->error(host, "out of host memory for m = %d, n = %d", s->m, s->n);
        goto done;
    }
    host->random_f32(host, 0, ha, elems, -1.0f, 1.0f);
    host->random_f32(host, 1, hx, s->xlen, -1.0f, 1.0f);
    reference(s, ha, hx, abs_sum);
    for (size_t i = 0; i < s->ylen; ++i)
        s->tol[i] = tolerance((double)s->xlen, abs_sum[i], s->want[i]);
    if (host->upload(host, s->a, ha, elems * sizeof(float)) ||
        host->upload(host, s->x, hx, s->xlen * sizeof(float)) ||
        kt_reference_to_device(host, "y (reference)", &s->want, s->ylen,
                               &s->want_dev) ||
        kt_reference_to_device(host, "y (tolerance)", &s->tol, s->ylen,
                               &s->tol_dev))
        goto done;
    rc = KT_OK;
done:
    free(ha);
    free(hx);
    free(abs_sum);
    return rc;
}

int setup_common(const kt_host *host, const kt_problem *p, void **out,
                 int transposed)
{
    state *s = (state *)calloc(1, sizeof(state));
    int64_t m, n;
    size_t elems;
    cublasStatus_t ce;

    *out = s;
    if (!s)
        return host->error(host, "out of host memory");
    sizes_of(p, &m, &n);
    s->host = host;
    s->transposed = transposed;
    s->m = (int)m;
    s->n = (int)n;
    s->xlen = (size_t)(transposed ? m : n);
    s->ylen = (size_t)(transposed ? n : m);
    elems = (size_t)m * (size_t)n;
    if (host->alloc_device(host, elems * sizeof(float), KT_MEM_INPUT, "A",
                           (void **)&s->a) ||
        host->alloc_device(host, s->xlen * sizeof(float), KT_MEM_INPUT, "x",
                           (void **)&s->x) ||
        host->alloc_device(host, s->ylen * sizeof(float), KT_MEM_OUTPUT, "y",
                           (void **)&s->y) ||
        (transposed &&
         host->alloc_device(host,
                            effective_split(SPLIT_2PASS_MAX, m) * (size_t)n *
                                sizeof(float),
                            KT_MEM_SCRATCH, "partials", (void **)&s->partials)))
        return KT_FAIL;
    // The device path keeps nothing in host memory.
    if (KT_HOST_HAS(host, check_f32_device) &&
        KT_HOST_HAS(host, random_f32_device)) {
        if (host->random_f32_device(host, 0, s->a, elems, -1.0f, 1.0f) ||
            host->random_f32_device(host, 1, s->x, s->xlen, -1.0f, 1.0f) ||
            reference_on_device(s))
            return KT_FAIL;
    } else if (inputs_on_host(s, elems)) {
        return KT_FAIL;
    }
    // The reference is optional: without it the other variants still run
    // and the `cublas` variant's launch says why it cannot.
    if (!cublas_load()) {
        snprintf(s->cublas_error, sizeof s->cublas_error, "%s", cublas.error);
    } else if ((ce = cublas.create(&s->cublas)) != CUBLAS_STATUS_SUCCESS) {
        s->cublas = nullptr;
        snprintf(s->cublas_error, sizeof s->cublas_error, "cublasCreate: %s",
                 cublas.status_string(ce));
    }
    if (s->cublas_error[0])
        host->log(host, KT_LOG_WARN, "the cublas variant cannot run: %s",
                  s->cublas_error);
    return KT_OK;
}

int setup_ax(const kt_host *host, const kt_problem *p, void **out)
{
    return setup_common(host, p, out, 0);
}

int setup_atx(const kt_host *host, const kt_problem *p, void **out)
{
    return setup_common(host, p, out, 1);
}

// Own comparison rather than check_f32: each element has its own tolerance.
int verify(void *st, const kt_config *, const kt_variant *)
{
    state *s = (state *)st;
    size_t bad = 0, first = 0;
    double worst = 0.0;
    if (s->want_dev)
        return s->host->check_f32_device(s->host, "y", s->y, s->want_dev,
                                         s->tol_dev, s->ylen, 0.0, 0.0);
    if (s->host->download(s->host, s->got, s->y, s->ylen * sizeof(float)) !=
        KT_OK)
        return KT_FAIL;
    for (size_t i = 0; i < s->ylen; ++i) {
        double err = fabs((double)s->got[i] - s->want[i]);
        if (!(err <= s->tol[i])) { // NaN fails
            if (bad++ == 0)
                first = i;
            if (!(err / s->tol[i] <= worst))
                worst = err / s->tol[i];
        }
    }
    if (!bad)
        return KT_OK;
    s->host->error(s->host,
                   "y: %zu of %zu elements outside |got - want| <= "
                   "u (min(k, 10 sqrt k) sum|a x| + |want|), k = %zu "
                   "(first y[%zu] got %.9g want %.9g tolerance %.3g; worst "
                   "error %.3g x its tolerance)",
                   bad, s->ylen, s->xlen, first, (double)s->got[first],
                   s->want[first], s->tol[first], worst);
    return KT_MISMATCH;
}

const kt_size_desc sizes[] = {
    KT_SIZE("m", "rows of A", 16384, 1, (int64_t)1 << 30),
    /* Not square by default: rows and columns must not be confusable. */
    KT_SIZE("n", "columns of A (row-major)", 12288, 1, (int64_t)1 << 30),
};

const kt_variant ax_variants[] = {
    KT_VARIANT("vec4",
               "float4 loads, threads_per_row threads x rows_per_thread rows, "
               "scalar prologue/tail for unaligned rows, optional column split",
               ax_vec4_params, shape_ax_vec4, check_ax_vec4, launch_ax_vec4),
    KT_VARIANT("thread_row", "one thread per row (uncoalesced baseline)",
               thread_params, shape_ax_thread_row, nullptr,
               launch_ax_thread_row),
    KT_VARIANT("warp_row", "one warp per row, shuffle reduction",
               warp_row_params, shape_ax_warp_row, nullptr, launch_ax_warp_row),
    KT_VARIANT("block_rows",
               "rows_per_block rows per block, block / rows_per_block threads "
               "per row, scalar loads",
               block_rows_params, shape_ax_block_rows, check_block_rows,
               launch_ax_block_rows),
    KT_VARIANT_REFERENCE(
        "cublas",
        "cublasSgemv (CUBLAS_OP_T on the column-major view), the "
        "reference",
        shape_library, nullptr, launch_cublas),
};

const kt_variant atx_variants[] = {
    KT_VARIANT("vec4",
               "float4 columns per thread, col_threads x (block / col_threads) "
               "block, row split with float4 atomics",
               atx_vec4_params, shape_atx_vec4, check_atx_vec4,
               launch_atx_vec4),
    KT_VARIANT(
        "thread_col", "one thread per column (coalesced, n threads only)",
        thread_params, shape_atx_thread_col, nullptr, launch_atx_thread_col),
    KT_VARIANT("warp_col",
               "one warp per column, shuffle reduction (uncoalesced)",
               thread_params, shape_atx_warp_col, nullptr, launch_atx_warp_col),
    KT_VARIANT("col_split_atomic",
               "one column per thread, rows split over grid.y, atomicAdd",
               col_split_params, shape_col_split_atomic, nullptr,
               launch_col_split_atomic),
    KT_VARIANT("col_split_2pass",
               "one column per thread, rows split over grid.y, partials added "
               "by a second kernel",
               col_split_2pass_params, shape_col_split_2pass, nullptr,
               launch_col_split_2pass),
    KT_VARIANT_REFERENCE(
        "cublas",
        "cublasSgemv (CUBLAS_OP_N on the column-major view), the "
        "reference",
        shape_library, nullptr, launch_cublas),
};

const kt_operator operators[] = {
    KT_OPERATOR("ax",
                "y = A x, A row-major m x n, float32, inputs uniform in "
                "[-1, 1)",
                0, sizes, ax_variants, work_ax, setup_ax, nullptr, verify,
                teardown),
    KT_OPERATOR("atx",
                "y = A^T x, A row-major m x n, float32, inputs uniform in "
                "[-1, 1)",
                0, sizes, atx_variants, work_atx, setup_atx, nullptr, verify,
                teardown),
};

const kt_plugin plugin = KT_PLUGIN(
    "gemv", "1.0.0",
    "y = A x and y = A^T x: naive to float4 variants, and cuBLAS", operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
