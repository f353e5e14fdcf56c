// SPDX-License-Identifier: Apache-2.0
/*
 * Theoretical occupancy and what limits it, computed from the device's
 * facts and the kernel's attributes (no GPU): how many blocks of the launch
 * fit on one SM by warp slots, registers, shared memory and the block
 * limit, and which of them binds. The allocation rules (sm_70 and later):
 * registers go to warps in units of 256 and are split evenly over the SM's
 * 4 sub-partitions; shared memory goes to blocks in units of 128 bytes
 * (256 on sm_7x) plus the driver's per-block reservation, out of the
 * largest carveout. The occupancy API's own answer (kt_kernel_info) is the
 * cross-check.
 */
#ifndef KT_METRICS_OCCUPANCY_H
#define KT_METRICS_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/evaluator.h"
#include "ktune/plugin.h"

typedef enum kt_occ_limit {
    KT_OCC_WARPS = 1u << 0,     /* warp slots per SM (max threads per SM) */
    KT_OCC_REGISTERS = 1u << 1, /* register file */
    KT_OCC_SHARED = 1u << 2,    /* shared memory */
    KT_OCC_BLOCKS = 1u << 3     /* resident blocks per SM */
} kt_occ_limit;

typedef struct kt_occupancy {
    int warps_per_block;
    int max_warps_per_sm;
    int regs_per_warp;      /* allocated: rounded to the allocation unit */
    int64_t smem_per_block; /* allocated: static + dynamic + reserved,
                               rounded to the allocation unit */
    int64_t smem_per_sm;    /* what the blocks share */
    /* Blocks per SM each resource allows on its own (INT32_MAX: no limit). */
    int by_warps, by_registers, by_shared, by_blocks;
    int blocks_per_sm;  /* the minimum */
    int active_warps;   /* blocks_per_sm * warps_per_block */
    double theoretical; /* percent of max_warps_per_sm */
    unsigned limiters;  /* kt_occ_limit bits at the minimum */
} kt_occupancy;

/* Computes the occupancy of a launch of `threads` threads per block with
 * `regs` registers per thread and `smem` bytes of shared memory per block
 * (static + dynamic, without the reservation). KT_S_INVALID when the
 * block cannot run at all (too many threads, registers or shared memory),
 * with the reason; KT_S_UNSUPPORTED for compute capabilities below 7.0. */
kt_status kt_occupancy_compute(const kt_device *dev, int threads, int regs,
                               int64_t smem, int reserved_smem,
                               kt_occupancy *out, kt_err *err);

/* The same from a profile result's kernel facts. */
kt_status kt_occupancy_of_kernel(const kt_device *dev, const kt_kernel_info *k,
                                 kt_occupancy *out, kt_err *err);

/* "registers", "shared memory", "warps", "blocks per SM". */
const char *kt_occ_limit_name(kt_occ_limit limit);

/* The limiters, joined with " and ", into out. */
void kt_occ_format_limiters(unsigned limiters, char *out, size_t out_size);

#endif
