// SPDX-License-Identifier: Apache-2.0
/*
 * kt_gpu: the CUDA device a session runs on, and the facts every result
 * records about it. Filled by kt_gpu_open (engine/gpu.h).
 */
#ifndef KT_GPU_INFO_H
#define KT_GPU_INFO_H

#include <stddef.h>

#include "ktune/plugin.h"

typedef struct kt_gpu {
    int ordinal;
    kt_device dev; /* the view handed to plugins; dev.name -> name */
    char name[256];
    char uuid[40];
    char pci_bus_id[32];
    int driver_version;  /* e.g. 13000 */
    int runtime_version; /* of the libcudart this process loaded */
    int sm_clock_khz;    /* rated peak SM clock */
    int mem_clock_khz;   /* peak memory clock */
    int bus_width_bits;
    double peak_bw_gbs; /* theoretical: 2 * mem clock * bus width / 8 */
    int ecc_enabled;
    int compute_mode;
    size_t free_bytes_at_open;
    /* Where run-time compiles of this device's kernels go (the local
     * evaluator's pool, engine/compile_pool.h); NULL: compiled by the
     * caller. Not owned; set after kt_gpu_open. */
    struct kt_cpool *compile_pool;
} kt_gpu;

#endif
