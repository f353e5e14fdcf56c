// SPDX-License-Identifier: Apache-2.0
#include "engine/gpu.h"

#include <stdio.h>
#include <string.h>

#include "engine/cuda_check.h"

int kt_gpu_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
        return 0;
    return count;
}

static kt_status attribute(int *out, enum cudaDeviceAttr attr, int ordinal,
                           const char *name, kt_err *err)
{
    char what[128];
    snprintf(what, sizeof what, "cudaDeviceGetAttribute(%s)", name);
    return kt_cuda_status(cudaDeviceGetAttribute(out, attr, ordinal), what,
                          err);
}

kt_status kt_gpu_open(int ordinal, kt_gpu *gpu, kt_err *err)
{
    struct cudaDeviceProp prop;
    cudaError_t code;
    int count = 0;
    size_t total = 0;
    kt_status rc;

    memset(gpu, 0, sizeof *gpu);
    code = cudaGetDeviceCount(&count);
    if (code != cudaSuccess || count == 0)
        /* Without a driver the runtime says "driver version is
         * insufficient", which reads as "upgrade the driver": say what is
         * missing first, the runtime's words after as detail. */
        return kt_err_set(err, KT_S_NO_DEVICE,
                          "no CUDA device or driver found on this machine "
                          "(CUDA: %s)",
                          code != cudaSuccess ? cudaGetErrorString(code)
                                              : "the driver reports 0 devices");
    if (ordinal < 0 || ordinal >= count)
        return kt_err_set(err, KT_S_NO_DEVICE,
                          "no CUDA device %d: found %d "
                          "device(s), ordinals 0 to %d",
                          ordinal, count, count - 1);
    if ((rc = KT_CUDA_TRY(cudaSetDevice(ordinal), err)) ||
        (rc = KT_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal), err)) ||
        (rc = KT_CUDA_TRY(cudaDriverGetVersion(&gpu->driver_version), err)) ||
        (rc = KT_CUDA_TRY(cudaRuntimeGetVersion(&gpu->runtime_version), err)))
        return rc;
    gpu->ordinal = ordinal;
    snprintf(gpu->name, sizeof gpu->name, "%s", prop.name);
    for (int i = 0; i < 16; ++i) {
        static const int dash[] = {4, 6, 8, 10};
        char *p = gpu->uuid + strlen(gpu->uuid);
        for (int d = 0; d < 4; ++d)
            if (i == dash[d])
                *p++ = '-';
        sprintf(p, "%02x", (unsigned char)prop.uuid.bytes[i]);
    }
    snprintf(gpu->pci_bus_id, sizeof gpu->pci_bus_id, "%04x:%02x:%02x.0",
             prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
    if ((rc = attribute(&gpu->sm_clock_khz, cudaDevAttrClockRate, ordinal,
                        "ClockRate", err)) ||
        (rc = attribute(&gpu->mem_clock_khz, cudaDevAttrMemoryClockRate,
                        ordinal, "MemoryClockRate", err)) ||
        (rc = attribute(&gpu->bus_width_bits, cudaDevAttrGlobalMemoryBusWidth,
                        ordinal, "GlobalMemoryBusWidth", err)) ||
        (rc = attribute(&gpu->compute_mode, cudaDevAttrComputeMode, ordinal,
                        "ComputeMode", err)))
        return rc;
    gpu->ecc_enabled = prop.ECCEnabled;
    /* Double data rate: two transfers per memory clock. */
    gpu->peak_bw_gbs =
        2.0 * gpu->mem_clock_khz * 1e3 * (gpu->bus_width_bits / 8.0) / 1e9;

    gpu->dev.struct_size = sizeof gpu->dev;
    gpu->dev.cc_major = prop.major;
    gpu->dev.cc_minor = prop.minor;
    gpu->dev.sm_count = prop.multiProcessorCount;
    gpu->dev.warp_size = prop.warpSize;
    gpu->dev.max_threads_per_block = prop.maxThreadsPerBlock;
    gpu->dev.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    gpu->dev.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    gpu->dev.regs_per_sm = prop.regsPerMultiprocessor;
    gpu->dev.regs_per_block = prop.regsPerBlock;
    gpu->dev.shared_mem_per_block = (int64_t)prop.sharedMemPerBlock;
    gpu->dev.shared_mem_per_block_optin = (int64_t)prop.sharedMemPerBlockOptin;
    gpu->dev.shared_mem_per_sm = (int64_t)prop.sharedMemPerMultiprocessor;
    gpu->dev.l2_bytes = prop.l2CacheSize;
    gpu->dev.global_mem_bytes = (int64_t)prop.totalGlobalMem;
    for (int i = 0; i < 3; ++i) {
        gpu->dev.max_grid[i] = prop.maxGridSize[i];
        gpu->dev.max_block[i] = prop.maxThreadsDim[i];
    }
    gpu->dev.name = gpu->name;
    return KT_CUDA_TRY(cudaMemGetInfo(&gpu->free_bytes_at_open, &total), err);
}
