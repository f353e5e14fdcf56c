// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels.h"

#include <stdint.h>

static __device__ __forceinline__ uint64_t global_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The clock probe's two ends. Its start waits for a tick of %globaltimer:
 * the timer advances in coarse steps, and starting mid-step would bias the
 * interval by up to one step. Its end spins until spin_ns have passed
 * since the start, then lowers *min_khz to the SM clock clock64() counted
 * over the interval. */
struct probe_start {
    uint64_t ns;
    long long cycles;
};

static __device__ __forceinline__ probe_start probe_begin()
{
    uint64_t t0 = global_ns(), t;
    while ((t = global_ns()) == t0)
        ;
    return {t, clock64()};
}

static __device__ __forceinline__ void
probe_end(probe_start s, unsigned int spin_ns, unsigned int *min_khz)
{
    uint64_t now;
    do {
        now = global_ns();
    } while (now < s.ns + spin_ns);
    long long c1 = clock64();
    double khz = (double)(c1 - s.cycles) / (double)(now - s.ns) * 1e6;
    atomicMin(min_khz, (unsigned int)khz);
}

static __global__ void clock_probe(unsigned int *min_khz, unsigned int spin_ns)
{
    probe_end(probe_begin(), spin_ns, min_khz);
}

/* Reads p[0..n) with four independent loads in flight per thread, so the
 * sweep runs at DRAM speed rather than at one load's latency. */
static __device__ __forceinline__ uint32_t sweep(const uint4 *__restrict__ p,
                                                 size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t h = 0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride],
              d = p[i + 3 * stride];
        h ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w;
        h ^= c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < n; i += stride) {
        uint4 v = p[i];
        h ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    return h;
}

static __global__ void read_sweep(const uint4 *__restrict__ p, size_t n,
                                  unsigned int *sink)
{
    uint32_t h = sweep(p, n);
    if (h == 0x9e3779b9u)
        *sink = h;
}

/* The sweep and the clock probe in one launch: thread 0 of every block
 * times the block's part of the sweep (at least spin_ns of it) in SM
 * cycles against %globaltimer, as clock_probe does alone. The sweep is
 * longer than the probe's spin, so the probe costs no GPU time of its own
 * and still ends just before the sample. */
static __global__ void read_sweep_probe(const uint4 *__restrict__ p, size_t n,
                                        unsigned int *sink,
                                        unsigned int *min_khz,
                                        unsigned int spin_ns)
{
    probe_start start = {0, 0};
    uint32_t h;

    if (threadIdx.x == 0)
        start = probe_begin();
    h = sweep(p, n);
    if (h == 0x9e3779b9u)
        *sink = h;
    __syncthreads();
    if (threadIdx.x == 0)
        probe_end(start, spin_ns, min_khz);
}

static __global__ void write_sweep(uint4 *__restrict__ p, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_uint4(0, 0, 0, 0);
}

/* Drops every 128-byte line of p from the L2 without writing it back
 * (PTX discard.global.L2, sm_80 and later; a no-op before): the lines'
 * contents become unspecified, which is all a flush buffer needs. */
static __global__ void discard_lines(char *p, size_t lines)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < lines;
         i += (size_t)gridDim.x * blockDim.x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i * 128)
                     : "memory");
#endif
    }
}

static __global__ void empty_kernel()
{
}

static __global__ void copy16(uint4 *a, uint4 *b, size_t count, int passes)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int p = 0; p < passes; ++p) {
        const uint4 *src = (p & 1) ? b : a;
        uint4 *dst = (p & 1) ? a : b;
        for (size_t i = first; i < count; i += stride)
            dst[i] = src[i];
    }
}

extern "C" cudaError_t kt_launch_clock_probe(unsigned int *min_khz,
                                             int sm_count, unsigned int spin_ns,
                                             cudaStream_t stream)
{
    clock_probe<<<sm_count, 1, 0, stream>>>(min_khz, spin_ns);
    return cudaGetLastError();
}

/* Blocks of 512 threads for the sweeps over the flush buffer: four per SM
 * fill an sm_90 SM's 2048 threads, and a grid-stride loop covers any size. */
static unsigned int sweep_blocks(int sm_count)
{
    return (unsigned int)(sm_count > 0 ? 4 * sm_count : 128);
}

extern "C" cudaError_t kt_launch_read_sweep(const void *buf, size_t bytes,
                                            unsigned int *sink, int sm_count,
                                            cudaStream_t stream)
{
    read_sweep<<<sweep_blocks(sm_count), 512, 0, stream>>>(
        (const uint4 *)buf, bytes / sizeof(uint4), sink);
    return cudaGetLastError();
}

extern "C" cudaError_t
kt_launch_read_sweep_probe(const void *buf, size_t bytes, unsigned int *sink,
                           unsigned int *min_khz, unsigned int spin_ns,
                           int sm_count, cudaStream_t stream)
{
    read_sweep_probe<<<sweep_blocks(sm_count), 512, 0, stream>>>(
        (const uint4 *)buf, bytes / sizeof(uint4), sink, min_khz, spin_ns);
    return cudaGetLastError();
}

extern "C" cudaError_t kt_launch_write_sweep(void *buf, size_t bytes,
                                             int sm_count, cudaStream_t stream)
{
    write_sweep<<<sweep_blocks(sm_count), 512, 0, stream>>>(
        (uint4 *)buf, bytes / sizeof(uint4));
    return cudaGetLastError();
}

extern "C" cudaError_t kt_launch_l2_discard(void *buf, size_t bytes,
                                            int sm_count, cudaStream_t stream)
{
    discard_lines<<<sweep_blocks(sm_count), 512, 0, stream>>>((char *)buf,
                                                              bytes / 128);
    return cudaGetLastError();
}

extern "C" cudaError_t kt_launch_empty(cudaStream_t stream)
{
    empty_kernel<<<1, 1, 0, stream>>>();
    return cudaGetLastError();
}

extern "C" cudaError_t kt_launch_copy(void *a, void *b, size_t count16,
                                      int passes, int sm_count,
                                      cudaStream_t stream)
{
    // Enough resident blocks to saturate memory, no more: grid-stride covers
    // any size.
    unsigned int blocks = (unsigned int)sm_count * 4;
    size_t needed = (count16 + 255) / 256;
    if (needed < blocks)
        blocks = (unsigned int)(needed ? needed : 1);
    copy16<<<blocks, 256, 0, stream>>>((uint4 *)a, (uint4 *)b, count16, passes);
    return cudaGetLastError();
}

// ------------------------------------------------------------ verification

// Grid-stride comparison. Each thread keeps its own count, lowest index and
// largest errors; a block folds them in shared memory and adds them to the
// record with one atomic each, so an output that is wrong everywhere costs
// no more than one that is right. Failures claim record slots until the
// slots run out (a plain read first, so a wrong output does not queue
// atomics on the slot counter).
static __global__ void check_f32(const float *__restrict__ got,
                                 const double *__restrict__ want,
                                 const double *__restrict__ tol, size_t count,
                                 double rtol, double atol, kt_check_record *rec)
{
    __shared__ unsigned long long s_bad, s_first, s_err, s_ratio;
    unsigned long long bad = 0, first = ~0ull, max_err = 0, max_ratio = 0;

    if (threadIdx.x == 0) {
        s_bad = 0;
        s_first = ~0ull;
        s_err = 0;
        s_ratio = 0;
    }
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        double g = (double)got[i], w = want[i];
        double bound = tol ? tol[i] : kt_check_bound(w, rtol, atol);
        double err = kt_check_error(g, w);
        if (!kt_check_fails(err, bound))
            continue;
        // Sign bits cleared: the device's abs leaves a NaN's sign as it
        // is, and every NaN must order above infinity.
        unsigned long long eb =
            (unsigned long long)__double_as_longlong(err) & ~(1ull << 63);
        unsigned long long rb =
            (unsigned long long)__double_as_longlong(__ddiv_rn(err, bound)) &
            ~(1ull << 63);
        ++bad;
        first = i < first ? i : first;
        max_err = eb > max_err ? eb : max_err;
        max_ratio = rb > max_ratio ? rb : max_ratio;
        if (*(volatile unsigned int *)&rec->slots < KT_CHECK_SLOTS) {
            unsigned int slot = atomicAdd(&rec->slots, 1u);
            if (slot < KT_CHECK_SLOTS) {
                rec->fail[slot].index = i;
                rec->fail[slot].got = g;
                rec->fail[slot].want = w;
                rec->fail[slot].bound = bound;
            }
        }
    }
    if (bad) {
        atomicAdd(&s_bad, bad);
        atomicMin(&s_first, first);
        atomicMax(&s_err, max_err);
        atomicMax(&s_ratio, max_ratio);
    }
    __syncthreads();
    if (threadIdx.x == 0 && s_bad) {
        atomicAdd((unsigned long long *)&rec->bad, s_bad);
        atomicMin((unsigned long long *)&rec->first, s_first);
        atomicMax((unsigned long long *)&rec->max_err_bits, s_err);
        atomicMax((unsigned long long *)&rec->max_ratio_bits, s_ratio);
    }
}

static __global__ void check_record_init(kt_check_record *rec)
{
    rec->bad = 0;
    rec->first = ~0ull;
    rec->max_err_bits = 0;
    rec->max_ratio_bits = 0;
    rec->slots = 0;
    rec->reserved = 0;
}

extern "C" cudaError_t kt_launch_check_f32(const float *got, const double *want,
                                           const double *tol, size_t count,
                                           double rtol, double atol,
                                           kt_check_record *rec, int sm_count,
                                           cudaStream_t stream)
{
    // Enough resident blocks to stream the arrays at full bandwidth; a
    // small output gets the blocks it needs.
    size_t blocks = (size_t)(sm_count > 0 ? sm_count : 16) * 8;
    size_t needed = (count + 255) / 256;
    if (needed < blocks)
        blocks = needed ? needed : 1;
    check_record_init<<<1, 1, 0, stream>>>(rec);
    check_f32<<<(unsigned)blocks, 256, 0, stream>>>(got, want, tol, count, rtol,
                                                    atol, rec);
    return cudaGetLastError();
}

// ------------------------------------------------------------------ inputs

// The device twin of kt_rng_fill_f32_at (core/rng.c): the same splitmix64
// finaliser on (seed, stream, index) and the same float arithmetic, each
// step rounded on its own (no contraction), so every element has the bits
// the host would give it.
static __device__ __forceinline__ uint64_t rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static __global__ void fill_f32(float *dst, size_t count, uint64_t key,
                                float lo, float scale)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t bits =
            rng_mix(key + (uint64_t)i * 0x9e3779b97f4a7c15ull) >> 40;
        float u = __fmul_rn((float)bits, 1.0f / 16777216.0f);
        dst[i] = __fadd_rn(lo, __fmul_rn(scale, u));
    }
}

extern "C" cudaError_t kt_launch_fill_f32(float *dst, size_t count,
                                          uint64_t key, float lo, float hi,
                                          int sm_count, cudaStream_t s)
{
    size_t blocks = (size_t)(sm_count > 0 ? sm_count : 16) * 8;
    size_t needed = (count + 255) / 256;
    if (needed < blocks)
        blocks = needed ? needed : 1;
    fill_f32<<<(unsigned)blocks, 256, 0, s>>>(dst, count, key, lo, hi - lo);
    return cudaGetLastError();
}

// FMA_CHAINS independent chains per thread hide the FMA latency at full
// occupancy; mul and add come from the host, so nothing can be folded.
#define FMA_CHAINS 8

template <typename T>
static __global__ void fma_peak(T *out, int iters, T mul, T add)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T acc[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c)
        acc[c] = (T)(i + c);
#pragma unroll 4
    for (int k = 0; k < iters; ++k)
#pragma unroll
        for (int c = 0; c < FMA_CHAINS; ++c)
            acc[c] = fma(acc[c], mul, add);
    T sum = 0;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c)
        sum += acc[c];
    out[i] = sum;
}

extern "C" double kt_fma_flops(int sm_count, int iters)
{
    return 2.0 * FMA_CHAINS * (double)iters * (double)sm_count *
           KT_FMA_BLOCKS_PER_SM * KT_FMA_BLOCK;
}

extern "C" cudaError_t kt_launch_fma(int fp64, void *out, int iters,
                                     int sm_count, cudaStream_t stream)
{
    unsigned grid = (unsigned)sm_count * KT_FMA_BLOCKS_PER_SM;
    if (fp64)
        fma_peak<double><<<grid, KT_FMA_BLOCK, 0, stream>>>(
            (double *)out, iters, 1.0, 1.0 / 1024);
    else
        fma_peak<float><<<grid, KT_FMA_BLOCK, 0, stream>>>((float *)out, iters,
                                                           1.0f, 1.0f / 1024);
    return cudaGetLastError();
}
