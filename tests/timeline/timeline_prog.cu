// SPDX-License-Identifier: Apache-2.0
/*
 * The program whose timeline the GPU tests assert: copies in on two
 * streams, a memset, four kernels (two per stream, ordered by events so
 * that each one's CUDA-event time is its own), a host sleep of 20 ms
 * between the second and third kernel (the GPU idles), a copy out.
 *
 * usage: timeline_prog [--expect FILE] [--repeat R] [--iters N] [--crash]
 *
 * It writes what the timeline must show to FILE (one line per operation,
 * in issue order: "warmup NAME GRID BLOCK DYN_SMEM STREAM" for the two
 * untimed kernels first, "copy HtoD BYTES STREAM", "memset BYTES STREAM",
 * "kernel NAME GRID BLOCK DYN_SMEM STREAM EVENT_MS", "sleep MS", and
 * "wall_ms MS" last) and prints the event timings and its own wall time
 * (main to exit, CUDA initialisation included) on stdout. --crash raises
 * SIGSEGV after the kernels of the first round, before the copy out.
 */
#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "timeline_prog: %s: %s\n", #call,                  \
                    cudaGetErrorString(e_));                                   \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

__global__ void k_scale(float *x, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    for (int k = 0; k < iters; ++k)
        v = v * 0.999f + 0.001f;
    x[i] = v;
}

__global__ void k_offset(float *x, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    for (int k = 0; k < iters; ++k)
        v = v * 0.998f + 0.002f;
    x[i] = v;
}

__global__ void k_combine(const float *a, const float *b, float *c, int n,
                          int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = a[i] + b[i / 2];
    for (int k = 0; k < iters; ++k)
        v = v * 0.997f + 0.003f;
    c[i] = v;
}

/* The GPU's clocks rise under load; a kernel timed while they switch
 * stalls for a fraction of a millisecond between its events. */
__global__ void k_warmup(float *x, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    for (int k = 0; k < iters; ++k)
        v = v * 0.996f + 0.004f;
    x[i] = v;
}

/* Uses dynamic shared memory, so the record's shared-memory field is
 * checked too. */
__global__ void k_square(float *x, int n, int iters)
{
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    tile[threadIdx.x] = v;
    __syncthreads();
    v = tile[blockDim.x - 1 - threadIdx.x];
    for (int k = 0; k < iters; ++k)
        v = v * v * 0.5f + 0.25f;
    if (i < n)
        x[i] = v;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct prog {
    FILE *expect;
    int iters, crash;
    size_t n;
    float *ha, *hb, *hc, *da, *db, *dc;
    cudaStream_t s[2];
    cudaEvent_t order;
} prog;

/* One kernel between two events on stream s. The times are read after
 * the pair of kernels that share a phase (collect): the second one's
 * events are then queued while the first runs, so they time the kernel
 * and not the launch. */
typedef void (*launch_fn)(const prog *p, dim3 grid, dim3 block, size_t smem,
                          cudaStream_t s);

typedef struct pending {
    const char *name;
    unsigned grid, block;
    size_t smem;
    int stream;
    cudaEvent_t e0, e1;
} pending;

static void timed(prog *p, pending *k, const char *name, launch_fn fn,
                  unsigned grid, unsigned block, size_t smem, int stream)
{
    *k = (pending){name, grid, block, smem, stream, NULL, NULL};
    CHECK(cudaEventCreate(&k->e0));
    CHECK(cudaEventCreate(&k->e1));
    /* Each kernel waits for the one before, whatever its stream: the
     * events then time this kernel alone. */
    CHECK(cudaStreamWaitEvent(p->s[stream], p->order, 0));
    CHECK(cudaEventRecord(k->e0, p->s[stream]));
    fn(p, dim3(grid), dim3(block), smem, p->s[stream]);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(k->e1, p->s[stream]));
    CHECK(cudaEventRecord(p->order, p->s[stream]));
}

static void collect(prog *p, pending *k, int n)
{
    for (int i = 0; i < n; ++i) {
        float ms = 0;
        CHECK(cudaEventSynchronize(k[i].e1));
        CHECK(cudaEventElapsedTime(&ms, k[i].e0, k[i].e1));
        printf("event %s %.4f ms\n", k[i].name, ms);
        fprintf(p->expect, "kernel %s %u %u %zu %d %.6f\n", k[i].name,
                k[i].grid, k[i].block, k[i].smem, k[i].stream, ms);
        CHECK(cudaEventDestroy(k[i].e0));
        CHECK(cudaEventDestroy(k[i].e1));
    }
}

static void launch_scale(const prog *p, dim3 g, dim3 b, size_t smem,
                         cudaStream_t s)
{
    k_scale<<<g, b, smem, s>>>(p->da, (int)p->n, p->iters);
}

static void launch_offset(const prog *p, dim3 g, dim3 b, size_t smem,
                          cudaStream_t s)
{
    k_offset<<<g, b, smem, s>>>(p->db, (int)(p->n / 2), p->iters);
}

static void launch_combine(const prog *p, dim3 g, dim3 b, size_t smem,
                           cudaStream_t s)
{
    k_combine<<<g, b, smem, s>>>(p->da, p->db, p->dc, (int)p->n, p->iters);
}

static void launch_square(const prog *p, dim3 g, dim3 b, size_t smem,
                          cudaStream_t s)
{
    k_square<<<g, b, smem, s>>>(p->dc, (int)p->n, p->iters / 2);
}

static void copy_in(prog *p, void *dst, const void *src, size_t bytes,
                    int stream)
{
    CHECK(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, p->s[stream]));
    fprintf(p->expect, "copy HtoD %zu %d\n", bytes, stream);
}

static void round_once(prog *p, int first)
{
    size_t bytes = p->n * sizeof(float);
    unsigned grid = (unsigned)((p->n + 255) / 256);
    pending k[2];

    copy_in(p, p->da, p->ha, bytes, 0);
    copy_in(p, p->db, p->hb, bytes / 2, 1);
    CHECK(cudaMemsetAsync(p->dc, 0, bytes, p->s[0]));
    fprintf(p->expect, "memset %zu 0\n", bytes);
    CHECK(cudaStreamSynchronize(p->s[1]));
    timed(p, &k[0], "k_scale", launch_scale, grid, 256, 0, 0);
    timed(p, &k[1], "k_offset", launch_offset, grid / 2, 256, 0, 1);
    collect(p, k, 2);
    CHECK(cudaDeviceSynchronize());
    /* The deliberate idle gap: the GPU has nothing to do for 20 ms. */
    {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        fprintf(p->expect, "sleep 20\n");
    }
    timed(p, &k[0], "k_combine", launch_combine, grid, 256, 0, 0);
    timed(p, &k[1], "k_square", launch_square, (unsigned)((p->n + 127) / 128),
          128, 128 * sizeof(float), 1);
    collect(p, k, 2);
    fflush(p->expect);
    fflush(stdout);
    if (first && p->crash)
        raise(SIGSEGV);
    CHECK(cudaStreamWaitEvent(p->s[0], p->order, 0));
    CHECK(
        cudaMemcpyAsync(p->hc, p->dc, bytes, cudaMemcpyDeviceToHost, p->s[0]));
    fprintf(p->expect, "copy DtoH %zu 0\n", bytes);
    CHECK(cudaStreamSynchronize(p->s[0]));
}

/* Two long kernels (about 75 ms each on an H200) before the rounds, so
 * that the timed kernels run at the clocks they will keep. */
static void warm_up(prog *p)
{
    unsigned grid = (unsigned)((p->n + 255) / 256);
    for (int i = 0; i < 2; ++i) {
        k_warmup<<<grid, 256, 0, p->s[0]>>>(p->da, (int)p->n, p->iters * 30);
        CHECK(cudaGetLastError());
        fprintf(p->expect, "warmup k_warmup %u 256 0 0\n", grid);
    }
    CHECK(cudaStreamSynchronize(p->s[0]));
}

static void setup(prog *p)
{
    size_t bytes = p->n * sizeof(float);
    CHECK(cudaMallocHost((void **)&p->ha, bytes));
    CHECK(cudaMallocHost((void **)&p->hb, bytes / 2));
    CHECK(cudaMallocHost((void **)&p->hc, bytes));
    for (size_t i = 0; i < p->n; ++i)
        p->ha[i] = (float)(i % 1000) / 1000.0f;
    for (size_t i = 0; i < p->n / 2; ++i)
        p->hb[i] = (float)(i % 777) / 777.0f;
    CHECK(cudaMalloc((void **)&p->da, bytes));
    CHECK(cudaMalloc((void **)&p->db, bytes / 2));
    CHECK(cudaMalloc((void **)&p->dc, bytes));
    CHECK(cudaStreamCreateWithFlags(&p->s[0], cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&p->s[1], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&p->order, cudaEventDisableTiming));
    CHECK(cudaEventRecord(p->order, p->s[0]));
}

static void teardown(prog *p)
{
    CHECK(cudaEventDestroy(p->order));
    CHECK(cudaStreamDestroy(p->s[0]));
    CHECK(cudaStreamDestroy(p->s[1]));
    CHECK(cudaFree(p->da));
    CHECK(cudaFree(p->db));
    CHECK(cudaFree(p->dc));
    CHECK(cudaFreeHost(p->ha));
    CHECK(cudaFreeHost(p->hb));
    CHECK(cudaFreeHost(p->hc));
}

int main(int argc, char **argv)
{
    double t0 = now_ms(), wall;
    const char *expect = "/dev/null";
    int repeat = 1;
    prog p;

    memset(&p, 0, sizeof p);
    /* About 2 ms per kernel on an H200: long enough that the microseconds
     * between an event and its kernel's start stay well under 5%. */
    p.iters = 16000;
    p.n = (size_t)1 << 22;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
            expect = argv[++i];
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            p.iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--crash") == 0)
            p.crash = 1;
        else {
            fprintf(stderr, "usage: timeline_prog [--expect FILE] [--repeat "
                            "R] [--iters N] [--crash]\n");
            return 2;
        }
    }
    if (repeat < 1 || p.iters < 1 || !(p.expect = fopen(expect, "w"))) {
        fprintf(stderr, "timeline_prog: bad arguments or %s\n", expect);
        return 2;
    }
    /* Modules load at CUDA start-up, not inside the first timed launch
     * (lazy loading would put the load between a kernel's events). */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    CHECK(cudaFree(0));
    setup(&p);
    warm_up(&p);
    for (int r = 0; r < repeat; ++r)
        round_once(&p, r == 0);
    teardown(&p);
    wall = now_ms() - t0;
    printf("wall %.3f ms\n", wall);
    fprintf(p.expect, "wall_ms %.3f\n", wall);
    fclose(p.expect);
    return 0;
}
