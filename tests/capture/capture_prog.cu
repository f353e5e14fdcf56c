// SPDX-License-Identifier: Apache-2.0
// The program the capture GPU test and bench/capture_h200.sh capture: a
// plain CUDA runtime program that knows nothing of ktune.
//   capture_prog [MODE] [N]
// MODE add (default): scale_add over N floats (default 2^20), launched
// twice with 256 threads per block, then bump (in place) once.
// big: copy of N floats (N = 2^27 by default: 512 MiB in, 512 MiB out).
// managed: scale_add on cudaMallocManaged memory. graph: scale_add
// through a captured CUDA graph. crash: scale_add, then SIGSEGV. exit7:
// scale_add, then exit status 7. Prints a checksum of c.
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                               \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));           \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

__global__ void scale_add(const float *a, const float *b, float *c, int n,
                          float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = s * a[i] + b[i];
}

__global__ void bump(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * 2.0f + 1.0f;
}

__global__ void copy(const float *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

static void fill(float *h, size_t n, float k)
{
    for (size_t i = 0; i < n; ++i)
        h[i] = k * (float)(i % 1000) - 3.0f;
}

static double checksum(const float *d, size_t n)
{
    float *h = (float *)malloc(n * sizeof *h);
    double s = 0;
    CHECK(cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        s += h[i];
    free(h);
    return s;
}

static int run_add(const char *mode, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *a, *b, *c, *h = (float *)malloc(bytes);
    int managed = strcmp(mode, "managed") == 0;
    unsigned grid = (unsigned)((n + 255) / 256);
    if (managed) {
        CHECK(cudaMallocManaged(&a, bytes));
        CHECK(cudaMallocManaged(&b, bytes));
        CHECK(cudaMallocManaged(&c, bytes));
    } else {
        CHECK(cudaMalloc(&a, bytes));
        CHECK(cudaMalloc(&b, bytes));
        CHECK(cudaMalloc(&c, bytes));
    }
    fill(h, n, 0.5f);
    CHECK(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice));
    fill(h, n, -0.25f);
    CHECK(cudaMemcpy(b, h, bytes, cudaMemcpyHostToDevice));
    if (strcmp(mode, "graph") == 0) {
        cudaStream_t s;
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CHECK(cudaStreamCreate(&s));
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        scale_add<<<grid, 256, 0, s>>>(a, b, c, n, 3.0f);
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&ge, g, 0));
        CHECK(cudaGraphLaunch(ge, s));
        CHECK(cudaStreamSynchronize(s));
    } else {
        scale_add<<<grid, 256>>>(a, b, c, n, 3.0f);
        scale_add<<<grid, 256>>>(a, b, c, n, 3.0f);
        bump<<<grid, 256>>>(c, n);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("checksum %.6e\n", checksum(c, n));
    fflush(stdout);
    if (strcmp(mode, "crash") == 0)
        raise(SIGSEGV);
    free(h);
    return strcmp(mode, "exit7") == 0 ? 7 : 0;
}

static int run_big(size_t n)
{
    float *in, *out;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemset(in, 0x3f, n * sizeof(float)));
    copy<<<(unsigned)((n + 255) / 256), 256>>>(in, out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("checksum %.6e\n", checksum(out, n));
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "add";
    if (strcmp(mode, "big") == 0)
        return run_big(argc > 2 ? strtoull(argv[2], NULL, 0) : (1ull << 27));
    return run_add(mode, argc > 2 ? atoi(argv[2]) : (1 << 20));
}
