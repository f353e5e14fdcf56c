// SPDX-License-Identifier: Apache-2.0
/* The device comparison is exact: single wrong elements planted at the
 * first, middle and last index of outputs at boundary and full sizes (a
 * wrong value, a NaN, an infinity, an infinity against an infinity, a value
 * just outside the tolerance) are each caught, counted once and reported
 * with their index; a value just inside passes; an output wrong
 * everywhere is counted exactly. At small sizes the host path decides and
 * reports the same. Inputs made on the device equal the host's bit for
 * bit. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/gpu.h"
#include "engine/services.h"

#define SKIP 77

static int failures;

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            ++failures;                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

typedef struct plant {
    const char *what;
    float got;
    double want;
    int fails;
} plant;

static void put(float *dev_got, double *dev_want, size_t i, float g, double w)
{
    if (cudaMemcpy(dev_got + i, &g, sizeof g, cudaMemcpyHostToDevice) ||
        cudaMemcpy(dev_want + i, &w, sizeof w, cudaMemcpyHostToDevice)) {
        fprintf(stderr, "cudaMemcpy failed\n");
        exit(1);
    }
}

/* Host copies of small arrays, for the host path. */
static void host_path_agrees(kt_services *svc, const float *dev_got,
                             const double *dev_want, size_t n,
                             const char *device_msg, int device_rc)
{
    double *want = malloc(n * sizeof *want);
    char msg[sizeof svc->error];
    int rc;
    if (!want || cudaMemcpy(want, dev_want, n * sizeof *want,
                            cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "host copy failed\n");
        exit(1);
    }
    snprintf(msg, sizeof msg, "%s", device_msg);
    kt_services_clear_error(svc);
    rc = svc->host.check_f32(&svc->host, "y", dev_got, want, n, 1e-6, 0.0);
    EXPECT(rc == device_rc, "host path rc %d, device %d (n=%zu)", rc, device_rc,
           n);
    if (rc == KT_MISMATCH)
        EXPECT(strcmp(svc->error, msg) == 0, "host: '%s'\ndevice: '%s'",
               svc->error, msg);
    free(want);
}

static void one_size(kt_services *svc, size_t n)
{
    const kt_host *h = &svc->host;
    const float inf = INFINITY, nan = NAN;
    /* 1 + 8 ulps is 9.5e-7 away (inside 1e-6), 1 + 9 ulps 1.07e-6. */
    const float inside = 1.0f + 8 * 1.1920929e-7f;
    const float outside = 1.0f + 9 * 1.1920929e-7f;
    const plant plants[] = {
        {"a wrong value", 0.5f, 0.0, 1},
        {"a NaN", nan, 0.0, 1},
        {"an infinity", inf, 1.0, 1},
        {"an infinity against an infinity", inf, (double)inf, 1},
        {"a value just outside the tolerance", outside, 1.0, 1},
        {"a value just inside the tolerance", inside, 1.0, 0},
    };
    const size_t where[] = {0, n / 2, n - 1};
    float *got = NULL;
    double *want = NULL;
    char shown[64];

    if (h->alloc_device(h, n * sizeof *got, KT_MEM_OUTPUT, "y",
                        (void **)&got) ||
        h->alloc_device(h, n * sizeof *want, KT_MEM_SCRATCH, "want",
                        (void **)&want) ||
        cudaMemset(got, 0, n * sizeof *got) ||
        cudaMemset(want, 0, n * sizeof *want) || cudaDeviceSynchronize()) {
        fprintf(stderr, "setting up n=%zu: %s\n", n, svc->error);
        exit(1);
    }
    EXPECT(h->check_f32_device(h, "y", got, want, NULL, n, 1e-6, 0.0) == KT_OK,
           "n=%zu: a right output fails: %s", n, svc->error);
    for (size_t p = 0; p < sizeof plants / sizeof plants[0]; ++p) {
        for (size_t w = 0; w < 3; ++w) {
            size_t i = where[w];
            int rc;
            put(got, want, i, plants[p].got, plants[p].want);
            kt_services_clear_error(svc);
            rc = h->check_f32_device(h, "y", got, want, NULL, n, 1e-6, 0.0);
            snprintf(shown, sizeof shown, "first at %zu;", i);
            if (plants[p].fails) {
                EXPECT(rc == KT_MISMATCH, "n=%zu, %s at %zu: not caught", n,
                       plants[p].what, i);
                EXPECT(svc->check_host->bad == 1 && svc->check_host->first == i,
                       "n=%zu, %s at %zu: counted %llu, first %llu", n,
                       plants[p].what, i,
                       (unsigned long long)svc->check_host->bad,
                       (unsigned long long)svc->check_host->first);
                EXPECT(strstr(svc->error, shown) != NULL,
                       "n=%zu, %s: message '%s' lacks '%s'", n, plants[p].what,
                       svc->error, shown);
            } else {
                EXPECT(rc == KT_OK, "n=%zu, %s at %zu: refused: %s", n,
                       plants[p].what, i, svc->error);
            }
            if (n <= (1u << 20))
                host_path_agrees(svc, got, want, n, svc->error, rc);
            put(got, want, i, 0.0f, 0.0);
        }
    }
    /* Wrong everywhere (the poison pattern: NaN): every element counted. */
    if (cudaMemset(got, 0xFF, n * sizeof *got) || cudaDeviceSynchronize())
        exit(1);
    EXPECT(h->check_f32_device(h, "y", got, want, NULL, n, 1e-6, 0.0) ==
                   KT_MISMATCH &&
               svc->check_host->bad == n && svc->check_host->first == 0,
           "n=%zu: unwritten output counted %llu, first %llu", n,
           (unsigned long long)svc->check_host->bad,
           (unsigned long long)svc->check_host->first);
    /* Per-element tolerances: the bound is tol[i] alone. */
    if (cudaMemset(got, 0, n * sizeof *got) || cudaDeviceSynchronize())
        exit(1);
    put(got, want, n - 1, 0.25f, 0.0);
    EXPECT(h->check_f32_device(h, "y", got, want, want, n, 0.0, 0.0) ==
                   KT_MISMATCH &&
               svc->check_host->bad == 1 && svc->check_host->first == n - 1,
           "n=%zu: per-element tolerance missed the last element", n);
    h->free_device(h, got);
    h->free_device(h, want);
}

/* Inputs made on the device are the host's, bit for bit. */
static void device_inputs_equal_host_inputs(kt_services *svc)
{
    const kt_host *h = &svc->host;
    const size_t n = (1u << 20) + 3;
    const float ranges[][2] = {{-1.0f, 1.0f}, {0.0f, 1.0f}};
    float *dev = NULL, *got = malloc(n * sizeof *got),
          *want = malloc(n * sizeof *want);

    if (!got || !want ||
        h->alloc_device(h, n * sizeof *dev, KT_MEM_INPUT, "x", (void **)&dev)) {
        fprintf(stderr, "setting up the input test failed\n");
        exit(1);
    }
    for (size_t r = 0; r < 2; ++r) {
        for (uint64_t stream = 0; stream < 3; ++stream) {
            EXPECT(h->random_f32_device(h, stream, dev, n, ranges[r][0],
                                        ranges[r][1]) == KT_OK,
                   "random_f32_device: %s", svc->error);
            h->random_f32(h, stream, want, n, ranges[r][0], ranges[r][1]);
            EXPECT(h->download(h, got, dev, n * sizeof *got) == KT_OK,
                   "download: %s", svc->error);
            EXPECT(memcmp(got, want, n * sizeof *got) == 0,
                   "stream %llu, [%g, %g): device inputs differ from the "
                   "host's",
                   (unsigned long long)stream, ranges[r][0], ranges[r][1]);
        }
    }
    h->free_device(h, dev);
    free(got);
    free(want);
}

int main(void)
{
    /* Boundary sizes of a 256-thread launch, a larger odd size, and the
     * full size of the main job. */
    const size_t sizes[] = {1, 129, 256, 1024, 1029, (1u << 20) + 3, 1u << 28};
    kt_services svc;
    kt_gpu gpu;
    kt_err err;

    if (kt_gpu_count() == 0) {
        printf("no CUDA device: skipped\n");
        return SKIP;
    }
    if (kt_gpu_open(0, &gpu, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    kt_services_init(&svc, &gpu, 1, KT_LOG_WARN, 0);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        one_size(&svc, sizes[s]);
    device_inputs_equal_host_inputs(&svc);
    kt_services_release(&svc, 1);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("device comparison: every planted element caught with its index "
           "at %zu sizes\n",
           sizeof sizes / sizeof sizes[0]);
    return 0;
}
