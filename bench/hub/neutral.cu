// SPDX-License-Identifier: Apache-2.0
// The neutral harness of the hub benchmarks: one benchmark-hub kernel, its
// source included unmodified from KTUNE_HUB_DIR and compiled by nvcc with
// one configuration's parameters as -D defines (as Kernel Tuner prepends
// them: every parameter, block_size_*/grid_size_* and kernel_tuner), timed
// with CUDA events around each launch after an L2 flush (cold L2), median
// of --samples launches after --warmups, under two flush recipes: `write`
// (a memset of a 256 MiB buffer) and `read` (a kernel reading it, which
// leaves no dirty lines). Neither tool's code is used: inputs come from our
// own fill kernels, the geometry from the hub's T1 file (GridDiv), the
// checks from a host reference in double at sampled outputs (convolution,
// dedispersion, gemm) and the output is written to --dump for comparisons
// across configurations (bench/hub/neutral.py).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -DHUB_KERNEL=1 -I$HUB/kernels \
//        -Dblock_size_x=64 ... bench/hub/neutral.cu -o conv
//   ./conv --samples 50 --warmups 3 --flush-mib 256 --dump out.bin
//
// HUB_KERNEL: 1 convolution_milo, 2 dedispersion (dedisp_milo), 3 gemm_milo
// (CLBlast Xgemm through cl_to_cuda.h), 4 hotspot_milo. Prints one JSON
// line; exit 0 when the launch ran and the checks passed, 3 when a check
// failed, 1 on a CUDA error (the line says which call).
#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#ifndef HUB_KERNEL
#error                                                                         \
    "HUB_KERNEL must be 1 (convolution), 2 (dedispersion), 3 (gemm) or 4 (hotspot)"
#endif

#if HUB_KERNEL == 1
#include "convolution_milo.cu"
#elif HUB_KERNEL == 2
#include "dedisp_milo/dedispersion.cu"
#elif HUB_KERNEL == 3
#include "gemm_milo/cl_to_cuda.h"
#include "gemm_milo/common.opencl"
#include "gemm_milo/xgemm_part1.opencl"
#include "gemm_milo/xgemm_part2.opencl"
#include "gemm_milo/xgemm_part3.opencl"
#include "gemm_milo/xgemm_part4.opencl"
#elif HUB_KERNEL == 4
#include "hotspot_milo.cu"
#endif

#ifndef HUB_CONFIG
#define HUB_CONFIG "?"
#endif

static void hub_fail(const char *what, const char *why)
{
    printf("{\"ok\": false, \"config\": \"%s\", \"error\": \"%s: %s\"}\n",
           HUB_CONFIG, what, why);
    exit(1);
}

#define HUB_CK(call)                                                           \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess)                                                 \
            hub_fail(#call, cudaGetErrorString(e_));                           \
    } while (0)

static unsigned long long hub_div_up(unsigned long long a, unsigned long long b)
{
    return (a + b - 1) / b;
}

// splitmix64 of (seed, i): the same values on host and device
__host__ __device__ static inline unsigned long long
hub_mix(unsigned long long seed, unsigned long long i)
{
    unsigned long long z = i + 0x9E3779B97F4A7C15ull * (seed + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__host__ __device__ static inline float hub_uniform(unsigned long long seed,
                                                    unsigned long long i)
{
    return (float)(hub_mix(seed, i) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void hub_fill(float *p, unsigned long long n,
                         unsigned long long seed, float scale, float offset)
{
    for (unsigned long long i =
             (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += (unsigned long long)gridDim.x * blockDim.x)
        p[i] = offset + scale * hub_uniform(seed, i);
}

__global__ void hub_fill_bytes(unsigned char *p, unsigned long long n,
                               unsigned long long seed)
{
    for (unsigned long long i =
             (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += (unsigned long long)gridDim.x * blockDim.x)
        p[i] = (unsigned char)(hub_mix(seed, i) >> 56);
}

__global__ void hub_read_flush(const float4 *p, unsigned long long n4,
                               float *sink)
{
    float acc = 0.0f;
    for (unsigned long long i =
             (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n4; i += (unsigned long long)gridDim.x * blockDim.x) {
        float4 v = p[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 12345.678f) // practically never; keeps the loads
        *sink = acc;
}

struct HubOpts {
    int samples = 50, warmups = 3;
    long long flush_mib = 256;
    const char *dump = nullptr;
    int checks = 256;
};

static HubOpts hub_parse(int argc, char **argv)
{
    HubOpts o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--samples"))
            o.samples = atoi(v);
        else if (!strcmp(k, "--warmups"))
            o.warmups = atoi(v);
        else if (!strcmp(k, "--flush-mib"))
            o.flush_mib = atoll(v);
        else if (!strcmp(k, "--checks"))
            o.checks = atoi(v);
        else if (!strcmp(k, "--dump"))
            o.dump = v;
        else
            hub_fail("arguments", k);
    }
    if (o.samples < 1 || o.warmups < 0 || o.flush_mib < 1)
        hub_fail("arguments", "samples >= 1, warmups >= 0, flush-mib >= 1");
    return o;
}

// What a problem gives the timing loop: its launch, its output, what runs
// before each sample outside the timed interval, and a check.
struct HubProblem {
    dim3 grid, block;
    void *out = nullptr;
    size_t out_bytes = 0;
    const char *out_type = "f32";
    void setup();
    void launch(cudaStream_t s);
    void before_sample(cudaStream_t s);
    // checked outputs, those out of tolerance, the worst error / tolerance
    void check(int count, long long *checked, long long *bad, double *worst);
};

#if HUB_KERNEL == 1
// ------------------------------------------------------------- convolution
static float *conv_in, *conv_filter;
static std::vector<float> conv_h_filter;

void HubProblem::setup()
{
    const size_t in_n = (size_t)input_width * input_height,
                 out_n = (size_t)image_width * image_height;
    HUB_CK(cudaMalloc(&conv_in, in_n * sizeof(float)));
    HUB_CK(
        cudaMalloc(&conv_filter, filter_width * filter_height * sizeof(float)));
    HUB_CK(cudaMalloc(&out, out_n * sizeof(float)));
    out_bytes = out_n * sizeof(float);
    hub_fill<<<1024, 256>>>(conv_in, in_n, 1, 1.0f, 0.0f);
    conv_h_filter.resize(filter_width * filter_height);
    for (size_t i = 0; i < conv_h_filter.size(); ++i)
        conv_h_filter[i] = hub_uniform(2, i);
    HUB_CK(cudaMemcpy(conv_filter, conv_h_filter.data(),
                      conv_h_filter.size() * sizeof(float),
                      cudaMemcpyHostToDevice));
    HUB_CK(cudaMemcpyToSymbol(d_filter, conv_h_filter.data(),
                              conv_h_filter.size() * sizeof(float)));
    block = dim3(block_size_x, block_size_y, 1);
    grid =
        dim3((unsigned)hub_div_up(image_width, block_size_x * tile_size_x),
             (unsigned)hub_div_up(image_height, block_size_y * tile_size_y), 1);
}

void HubProblem::launch(cudaStream_t s)
{
    convolution_kernel<<<grid, block, 0, s>>>((float *)out, conv_in,
                                              conv_filter);
}

void HubProblem::before_sample(cudaStream_t)
{
}

void HubProblem::check(int count, long long *checked, long long *bad,
                       double *worst)
{
    const size_t in_n = (size_t)input_width * input_height;
    std::vector<float> in(in_n), o((size_t)image_width * image_height);
    HUB_CK(cudaMemcpy(in.data(), conv_in, in_n * sizeof(float),
                      cudaMemcpyDeviceToHost));
    HUB_CK(cudaMemcpy(o.data(), out, out_bytes, cudaMemcpyDeviceToHost));
    for (int c = 0; c < count; ++c) {
        const int y = (int)(hub_mix(7, 2 * c) % image_height),
                  x = (int)(hub_mix(7, 2 * c + 1) % image_width);
        double want = 0, mag = 0;
        for (int i = 0; i < filter_height; ++i)
            for (int j = 0; j < filter_width; ++j) {
                const double t =
                    (double)in[(size_t)(y + i) * input_width + x + j] *
                    conv_h_filter[i * filter_width + j];
                want += t;
                mag += fabs(t);
            }
        const double got = o[(size_t)y * image_width + x],
                     tol = 1e-5 * mag + 1e-30;
        const double err = fabs(got - want);
        *worst = std::max(*worst, err / tol);
        *bad += !(err <= tol);
        ++*checked;
    }
}
#elif HUB_KERNEL == 2
// ------------------------------------------------------------ dedispersion
static unsigned char *dd_in;
static float *dd_shifts;
static std::vector<float> dd_h_shifts;

// The hub script's get_shifts(): delay per channel, in samples per DM unit.
static void dd_make_shifts()
{
    const double min_freq = 1425.0, bw = 0.1953125, tsamp = 0.00004096;
    const double max_freq = min_freq + (nr_channels - 1) * bw;
    const double inv_high = 1.0 / (max_freq * max_freq),
                 time_unit = nr_samples * tsamp;
    dd_h_shifts.resize(nr_channels);
    for (int c = 0; c < nr_channels; ++c) {
        const double f = min_freq + c * bw;
        dd_h_shifts[c] =
            (float)((4148.808 * (1.0 / (f * f) - inv_high) * nr_samples) /
                    time_unit);
    }
    dd_h_shifts[nr_channels - 1] = 0.0f;
}

#ifndef HUB_DEDISP_TILED_GRID
#define HUB_DEDISP_TILED_GRID 1 // the T1 file's GridDiv: block x tile
#endif

void HubProblem::setup()
{
    const size_t in_n = (size_t)nr_samples_per_channel * nr_channels,
                 out_n = (size_t)nr_dms * nr_samples;
    HUB_CK(cudaMalloc(&dd_in, in_n));
    HUB_CK(cudaMalloc(&dd_shifts, nr_channels * sizeof(float)));
    HUB_CK(cudaMalloc(&out, out_n * sizeof(float)));
    out_bytes = out_n * sizeof(float);
    hub_fill_bytes<<<1024, 256>>>(dd_in, in_n, 1);
    dd_make_shifts();
    HUB_CK(cudaMemcpy(dd_shifts, dd_h_shifts.data(),
                      nr_channels * sizeof(float), cudaMemcpyHostToDevice));
    block = dim3(block_size_x, block_size_y, 1);
    const unsigned tx = HUB_DEDISP_TILED_GRID ? tile_size_x : 1,
                   ty = HUB_DEDISP_TILED_GRID ? tile_size_y : 1;
    grid = dim3((unsigned)hub_div_up(nr_samples, block_size_x * tx),
                (unsigned)hub_div_up(nr_dms, block_size_y * ty), 1);
}

void HubProblem::launch(cudaStream_t s)
{
    dedispersion_kernel<<<grid, block, 0, s>>>(dd_in, (float *)out, dd_shifts);
}

void HubProblem::before_sample(cudaStream_t)
{
}

void HubProblem::check(int count, long long *checked, long long *bad,
                       double *worst)
{
    const size_t in_n = (size_t)nr_samples_per_channel * nr_channels;
    std::vector<unsigned char> in(in_n);
    std::vector<float> o((size_t)nr_dms * nr_samples);
    HUB_CK(cudaMemcpy(in.data(), dd_in, in_n, cudaMemcpyDeviceToHost));
    HUB_CK(cudaMemcpy(o.data(), out, out_bytes, cudaMemcpyDeviceToHost));
    for (int c = 0; c < count; ++c) {
        const int dm = (int)(hub_mix(7, 2 * c) % nr_dms),
                  sample = (int)(hub_mix(7, 2 * c + 1) % nr_samples);
        double want = 0;
        for (int ch = 0; ch < nr_channels; ++ch) {
            const unsigned shift =
                (unsigned)((dm_first + dm * dm_step) * dd_h_shifts[ch]);
            want += in[(size_t)ch * nr_samples_per_channel + sample + shift];
        }
        // integer sums below 2^24 are exact in float; a shift rounded the
        // other way moves one term: allow one byte's worth
        const double err = fabs((double)o[(size_t)dm * nr_samples + sample] -
                                want),
                     tol = 255.0;
        *worst = std::max(*worst, err / tol);
        *bad += !(err <= tol);
        ++*checked;
    }
}
#elif HUB_KERNEL == 3
// -------------------------------------------------------------------- gemm
#define GEMM_M 4096
#define GEMM_N 4096
#define GEMM_K 4096
static float *gm_a, *gm_b;

void HubProblem::setup()
{
    const size_t na = (size_t)GEMM_M * GEMM_K, nb = (size_t)GEMM_K * GEMM_N,
                 nc = (size_t)GEMM_M * GEMM_N;
    HUB_CK(cudaMalloc(&gm_a, na * sizeof(float)));
    HUB_CK(cudaMalloc(&gm_b, nb * sizeof(float)));
    HUB_CK(cudaMalloc(&out, nc * sizeof(float)));
    out_bytes = nc * sizeof(float);
    hub_fill<<<1024, 256>>>(gm_a, na, 1, 1.0f, 0.0f);
    hub_fill<<<1024, 256>>>(gm_b, nb, 2, 1.0f, 0.0f);
    HUB_CK(cudaMemset(out, 0, out_bytes));
    block = dim3(MDIMC, NDIMC, 1);
    grid = dim3((unsigned)hub_div_up(GEMM_M, MWG),
                (unsigned)hub_div_up(GEMM_N, NWG), 1);
}

void HubProblem::launch(cudaStream_t s)
{
    int m = GEMM_M, n = GEMM_N, k = GEMM_K, b_offset = 0, c_offset = 0;
    float alpha = 1.0f, beta = 1.0f; // the hub script's alpha, beta
    void *args[] = {&m,    &n,    &k,   &alpha,    &beta,
                    &gm_a, &gm_b, &out, &b_offset, &c_offset};
    HUB_CK(cudaLaunchKernel((const void *)Xgemm, grid, block, args, 0, s));
}

// beta = 1: C is read; it is zeroed before each sample (outside the timing)
void HubProblem::before_sample(cudaStream_t s)
{
    HUB_CK(cudaMemsetAsync(out, 0, out_bytes, s));
}

void HubProblem::check(int count, long long *checked, long long *bad,
                       double *worst)
{
    // the layout the hub script states: A [k*M + m], B [k*N + n], C [n*M + m]
    std::vector<float> a((size_t)GEMM_M * GEMM_K), b((size_t)GEMM_K * GEMM_N),
        c((size_t)GEMM_M * GEMM_N);
    HUB_CK(cudaMemcpy(a.data(), gm_a, a.size() * sizeof(float),
                      cudaMemcpyDeviceToHost));
    HUB_CK(cudaMemcpy(b.data(), gm_b, b.size() * sizeof(float),
                      cudaMemcpyDeviceToHost));
    HUB_CK(cudaMemcpy(c.data(), out, out_bytes, cudaMemcpyDeviceToHost));
    for (int t = 0; t < count; ++t) {
        const int i = (int)(hub_mix(7, 2 * t) % GEMM_M),
                  j = (int)(hub_mix(7, 2 * t + 1) % GEMM_N);
        double want = 0, mag = 0;
        for (int kk = 0; kk < GEMM_K; ++kk) {
            const double x =
                (double)a[(size_t)kk * GEMM_M + i] * b[(size_t)kk * GEMM_N + j];
            want += x;
            mag += fabs(x);
        }
        const double tol = 64.0 * 5.96e-8 * mag + 1e-30,
                     err = fabs((double)c[(size_t)j * GEMM_M + i] - want);
        *worst = std::max(*worst, err / tol);
        *bad += !(err <= tol);
        ++*checked;
    }
}
#elif HUB_KERNEL == 4
// ----------------------------------------------------------------- hotspot
static float *hs_power, *hs_temp;
static float hs_rx, hs_ry, hs_rz, hs_step;

// The hub script's get_input_arguments(4096, 4096).
static void hs_constants()
{
    const double max_pd = 3.0e6, precision = 0.001, spec_heat = 1.75e6,
                 k_si = 100, factor = 0.5;
    const double t_chip = 0.0005, chip_h = 0.016, chip_w = 0.016;
    const double gh = chip_h / grid_height, gw = chip_w / grid_width;
    const double cap = factor * spec_heat * t_chip * gw * gh;
    const double rx = gw / (2.0 * k_si * t_chip * gh),
                 ry = gh / (2.0 * k_si * t_chip * gw);
    const double rz = t_chip / (k_si * gh * gw);
    const double step = precision / (max_pd / (factor * t_chip * spec_heat));
    hs_step = (float)(step / cap);
    hs_rx = (float)(1 / rx);
    hs_ry = (float)(1 / ry);
    hs_rz = (float)(1 / rz);
}

// zero border of max_tfactor cells around the grid, as the hub script's
// get_input_data() lays it out: temperatures 324 + [0, 1), power [0, 1)
__global__ void hs_fill(float *temp, float *power)
{
    const unsigned long long n = (unsigned long long)input_width * input_height;
    for (unsigned long long i =
             (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
        const long long r = (long long)(i / input_width),
                        c = (long long)(i % input_width);
        const bool in = r >= max_tfactor && r < max_tfactor + grid_height &&
                        c >= max_tfactor && c < max_tfactor + grid_width;
        temp[i] = in ? 324.5f + 0.5f * hub_uniform(1, i) : 0.0f;
        power[i] = in ? 0.5f + 0.5f * hub_uniform(2, i) : 0.0f;
    }
}

void HubProblem::setup()
{
    const size_t in_n = (size_t)input_width * input_height,
                 out_n = (size_t)output_width * output_height;
    HUB_CK(cudaMalloc(&hs_power, in_n * sizeof(float)));
    HUB_CK(cudaMalloc(&hs_temp, in_n * sizeof(float)));
    HUB_CK(cudaMalloc(&out, out_n * sizeof(float)));
    out_bytes = out_n * sizeof(float);
    hs_fill<<<1024, 256>>>(hs_temp, hs_power);
    hs_constants();
    block = dim3(block_size_x, block_size_y, 1);
    grid =
        dim3((unsigned)hub_div_up(grid_width, block_size_x * tile_size_x),
             (unsigned)hub_div_up(grid_height, block_size_y * tile_size_y), 1);
}

void HubProblem::launch(cudaStream_t s)
{
    calculate_temp<<<grid, block, 0, s>>>(hs_power, hs_temp, (float *)out,
                                          hs_rx, hs_ry, hs_rz, hs_step);
}

void HubProblem::before_sample(cudaStream_t)
{
}

// no host reference: neutral.py compares outputs of equal temporal tiling
void HubProblem::check(int, long long *, long long *, double *)
{
}
#endif

struct HubStats {
    double median, mean, min, q1, q3;
};

static HubStats hub_stats(std::vector<double> t)
{
    std::sort(t.begin(), t.end());
    const size_t n = t.size();
    HubStats s;
    s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    s.min = t[0];
    s.q1 = t[n / 4];
    s.q3 = t[(3 * n) / 4];
    double sum = 0;
    for (double v : t)
        sum += v;
    s.mean = sum / (double)n;
    return s;
}

// One flush recipe: warm-ups, then samples, each [prepare] [flush] [event]
// launch [event], one sync per sample.
static HubStats hub_time(HubProblem &p, const HubOpts &o, cudaStream_t s,
                         int mode, float *flush, size_t flush_bytes,
                         float *sink, int sms)
{
    cudaEvent_t e0, e1;
    HUB_CK(cudaEventCreate(&e0));
    HUB_CK(cudaEventCreate(&e1));
    std::vector<double> t;
    for (int it = 0; it < o.warmups + o.samples; ++it) {
        p.before_sample(s);
        if (mode == 0)
            HUB_CK(cudaMemsetAsync(flush, it & 0xFF, flush_bytes, s));
        else
            hub_read_flush<<<sms * 4, 512, 0, s>>>((const float4 *)flush,
                                                   flush_bytes / 16, sink);
        HUB_CK(cudaEventRecord(e0, s));
        p.launch(s);
        HUB_CK(cudaEventRecord(e1, s));
        HUB_CK(cudaEventSynchronize(e1));
        HUB_CK(cudaGetLastError());
        float ms = 0;
        HUB_CK(cudaEventElapsedTime(&ms, e0, e1));
        if (it >= o.warmups)
            t.push_back(1e3 * (double)ms);
    }
    HUB_CK(cudaEventDestroy(e0));
    HUB_CK(cudaEventDestroy(e1));
    return hub_stats(t);
}

// The output of one untimed launch after poisoning it, checked, and dumped.
static void hub_verify(HubProblem &p, const HubOpts &o, cudaStream_t s,
                       long long *checked, long long *bad, double *worst)
{
    HUB_CK(cudaMemset(p.out, 0xFF, p.out_bytes));
    HUB_CK(cudaDeviceSynchronize());
    p.before_sample(s);
    p.launch(s);
    HUB_CK(cudaGetLastError());
    HUB_CK(cudaStreamSynchronize(s));
    p.check(o.checks, checked, bad, worst);
    if (o.dump) {
        std::vector<unsigned char> h(p.out_bytes);
        HUB_CK(
            cudaMemcpy(h.data(), p.out, p.out_bytes, cudaMemcpyDeviceToHost));
        FILE *f = fopen(o.dump, "wb");
        if (!f || fwrite(h.data(), 1, h.size(), f) != h.size() ||
            fclose(f) != 0)
            hub_fail("--dump", o.dump);
    }
}

int main(int argc, char **argv)
{
    const HubOpts o = hub_parse(argc, argv);
    cudaDeviceProp prop;
    HUB_CK(cudaGetDeviceProperties(&prop, 0));
    HubProblem p;
    p.setup();
    HUB_CK(cudaGetLastError());
    HUB_CK(cudaDeviceSynchronize());
    cudaStream_t s; // blocking: ordered with the set-up on the default stream
    HUB_CK(cudaStreamCreate(&s));
    const size_t flush_bytes = (size_t)o.flush_mib << 20;
    float *flush = nullptr, *sink = nullptr;
    HUB_CK(cudaMalloc(&flush, flush_bytes));
    HUB_CK(cudaMalloc(&sink, sizeof(float)));
    HUB_CK(cudaMemset(flush, 0, flush_bytes));

    long long checked = 0, bad = 0;
    double worst = 0;
    hub_verify(p, o, s, &checked, &bad, &worst);
    HubStats st[2];
    for (int mode = 0; mode < 2; ++mode)
        st[mode] = hub_time(p, o, s, mode, flush, flush_bytes, sink,
                            prop.multiProcessorCount);
    // the timed launches still give the right answer (no dump this time)
    HubOpts again = o;
    again.dump = nullptr;
    long long checked2 = 0, bad2 = 0;
    double worst2 = 0;
    hub_verify(p, again, s, &checked2, &bad2, &worst2);

    printf("{\"ok\": true, \"config\": \"%s\", \"device\": \"%s\", \"block\": "
           "[%u, %u], \"grid\": [%u, %u], "
           "\"checked\": %lld, \"bad\": %lld, \"bad_after\": %lld, "
           "\"worst_err_over_tol\": %.4g, "
           "\"samples\": %d, \"warmups\": %d, \"flush_mib\": %lld, "
           "\"out_bytes\": %zu",
           HUB_CONFIG, prop.name, p.block.x, p.block.y, p.grid.x, p.grid.y,
           checked, bad, bad2, std::max(worst, worst2), o.samples, o.warmups,
           o.flush_mib, p.out_bytes);
    const char *names[2] = {"flush_write", "flush_read"};
    for (int mode = 0; mode < 2; ++mode)
        printf(", \"%s\": {\"median_us\": %.3f, \"mean_us\": %.3f, \"min_us\": "
               "%.3f, \"q1_us\": %.3f, "
               "\"q3_us\": %.3f}",
               names[mode], st[mode].median, st[mode].mean, st[mode].min,
               st[mode].q1, st[mode].q3);
    printf("}\n");
    return (bad || bad2) ? 3 : 0;
}
