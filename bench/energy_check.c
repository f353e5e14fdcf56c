// SPDX-License-Identifier: Apache-2.0
/* Benchmark (not a test): an independent check of ktune's energy per
 * launch. The same kernel (the operator's default configuration at its
 * default sizes, set up through the plugin as ktune does) runs back to
 * back for a long loop, and NVML's total-energy counter is read once
 * before and once after: energy per launch = the counter's difference over
 * the launches. Nothing of ktune's energy meter is used (no window, no
 * polling, its own dlopen of NVML); over a loop of SECONDS (default 10)
 * the counter's step and the loop's edges weigh well under 1%.
 *
 *   energy_check PLUGIN_DIR PLUGIN:OPERATOR [SECONDS]
 *
 * Reads only: it never changes a setting of the GPU.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/feasible.h"
#include "core/loader.h"
#include "core/point.h"
#include "engine/gpu.h"
#include "engine/instance.h"

typedef int (*nvml_void)(void);
typedef int (*nvml_by_pci)(const char *, void **);
typedef int (*nvml_energy)(void *, unsigned long long *);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Opens NVML and the device with PCI bus id pci; 0 on success. */
static int open_nvml(const char *pci, nvml_energy *energy, void **dev)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    nvml_void init;
    nvml_by_pci by_pci;

    if (!lib) {
        fprintf(stderr, "energy_check: no NVML: %s\n", dlerror());
        return 1;
    }
    init = (nvml_void)dlsym(lib, "nvmlInit_v2");
    by_pci = (nvml_by_pci)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *energy = (nvml_energy)dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
    if (!init || !by_pci || !*energy || init() != 0 || by_pci(pci, dev) != 0) {
        fprintf(stderr, "energy_check: NVML does not answer for %s\n", pci);
        return 1;
    }
    return 0;
}

/* Launches pt n times back to back and waits; the GPU seconds in *gpu_s.
 * Its configuration and shape are prepared once, as the meter's are. */
static int loop(kt_instance *in, const kt_point *pt, cudaStream_t s, long n,
                double *gpu_s)
{
    cudaEvent_t a, b;
    float ms = 0;
    kt_bound_config bc;
    const kt_config *cfg = kt_point_bind(in->op, pt, &bc);
    kt_shape shape;
    kt_err err;

    memset(&shape, 0, sizeof shape);
    if (kt_point_feasible(in->plugin, in->op, &in->problem, pt, &shape, &err)) {
        fprintf(stderr, "energy_check: %s\n", err.msg);
        return 1;
    }
    if (cudaEventCreate(&a) || cudaEventCreate(&b) || cudaEventRecord(a, s))
        return 1;
    for (long i = 0; i < n; ++i)
        if (kt_instance_launch(in, pt->variant, cfg, &shape, s, &err)) {
            fprintf(stderr, "energy_check: %s\n", err.msg);
            return 1;
        }
    if (cudaEventRecord(b, s) || cudaStreamSynchronize(s) ||
        cudaEventElapsedTime(&ms, a, b))
        return 1;
    *gpu_s = 1e-3 * ms;
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return 0;
}

/* Times a short loop, then counts energy over a long one. */
static int measure(kt_instance *in, const kt_point *pt, const char *pci,
                   double seconds, const char *spec)
{
    unsigned long long e0 = 0, e1 = 0;
    nvml_energy energy;
    void *dev;
    cudaStream_t s;
    double per, gpu_s, t0, t1;
    long n;

    if (open_nvml(pci, &energy, &dev) || cudaStreamCreate(&s) ||
        loop(in, pt, s, 20, &gpu_s) || loop(in, pt, s, 200, &gpu_s))
        return 1;
    per = gpu_s / 200;
    n = (long)(seconds / per) + 1;
    t0 = now();
    if (energy(dev, &e0) || loop(in, pt, s, n, &gpu_s) || energy(dev, &e1))
        return 1;
    t1 = now();
    printf("energy_check %s: %ld launches in %.3f s of GPU time (%.3f s wall), "
           "%.6g mJ per launch, %.1f W average (counter read around the "
           "loop: %llu mJ)\n",
           spec, n, gpu_s, t1 - t0, (double)(e1 - e0) / (double)n,
           1e-3 * (double)(e1 - e0) / (t1 - t0), e1 - e0);
    return 0;
}

int main(int argc, char **argv)
{
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_registry reg;
    kt_instance in;
    kt_gpu gpu;
    kt_point pt;
    int64_t sizes[KT_MAX_SIZES] = {0};
    double seconds = argc > 3 ? atof(argv[3]) : 10;
    int rc;
    kt_err err;

    if (argc < 3 || !(seconds > 0)) {
        fprintf(stderr, "usage: %s PLUGIN_DIR PLUGIN:OPERATOR [SECONDS > 0]\n",
                argv[0]);
        return 2;
    }
    kt_registry_init(&reg);
    kt_registry_load_dir(&reg, argv[1], 1);
    if (kt_registry_resolve(&reg, argv[2], &lp, &op, &err) ||
        kt_gpu_open(0, &gpu, &err)) {
        fprintf(stderr, "energy_check: %s\n", err.msg);
        return 1;
    }
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        sizes[i] = op->sizes[i].default_value;
    kt_point_default(op, 0, &pt);
    memset(&in, 0, sizeof in);
    if (kt_instance_setup(&in, lp, op, &gpu, sizes, 1, KT_LOG_WARN, 0, &err)) {
        fprintf(stderr, "energy_check: %s\n", err.msg);
        return 1;
    }
    rc = measure(&in, &pt, gpu.pci_bus_id, seconds, argv[2]);
    kt_instance_teardown(&in);
    kt_registry_free(&reg);
    return rc;
}
