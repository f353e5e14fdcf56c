// SPDX-License-Identifier: Apache-2.0
#include "metrics/occupancy.h"

#include <stdio.h>
#include <string.h>

#define REG_ALLOC_UNIT 256
#define SUB_PARTITIONS 4

static int64_t round_up(int64_t x, int64_t unit)
{
    return (x + unit - 1) / unit * unit;
}

static int smem_unit(int cc_major)
{
    return cc_major >= 8 ? 128 : 256;
}

kt_status kt_occupancy_compute(const kt_device *dev, int threads, int regs,
                               int64_t smem, int reserved_smem,
                               kt_occupancy *out, kt_err *err)
{
    int64_t smem_limit;
    int warps_per_sub;

    memset(out, 0, sizeof *out);
    if (dev->cc_major < 7)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "occupancy arithmetic covers compute capability 7.0 "
                          "and later; found %d.%d",
                          dev->cc_major, dev->cc_minor);
    if (threads <= 0 || dev->warp_size <= 0 || dev->max_threads_per_sm <= 0)
        return kt_err_set(err, KT_S_INVALID,
                          "occupancy: %d threads per block, warp size %d, %d "
                          "threads per SM",
                          threads, dev->warp_size, dev->max_threads_per_sm);
    if (threads > dev->max_threads_per_block)
        return kt_err_set(err, KT_S_INVALID,
                          "%d threads per block; the device allows %d", threads,
                          dev->max_threads_per_block);
    out->warps_per_block = (threads + dev->warp_size - 1) / dev->warp_size;
    out->max_warps_per_sm = dev->max_threads_per_sm / dev->warp_size;
    out->by_warps = out->max_warps_per_sm / out->warps_per_block;
    out->by_blocks = dev->max_blocks_per_sm;

    /* Registers: per warp, in allocation units; each sub-partition holds a
     * quarter of the file and whole warps only. */
    out->regs_per_warp =
        (int)round_up((int64_t)regs * dev->warp_size, REG_ALLOC_UNIT);
    if (out->regs_per_warp == 0) {
        out->by_registers = INT32_MAX;
    } else {
        int64_t per_block = (int64_t)out->regs_per_warp *
                            round_up(out->warps_per_block, SUB_PARTITIONS);
        if (per_block > dev->regs_per_block)
            return kt_err_set(err, KT_S_INVALID,
                              "%d registers per thread x %d threads need %lld "
                              "registers per block; the device allows %d",
                              regs, threads, (long long)per_block,
                              dev->regs_per_block);
        warps_per_sub = dev->regs_per_sm / SUB_PARTITIONS / out->regs_per_warp;
        out->by_registers =
            warps_per_sub * SUB_PARTITIONS / out->warps_per_block;
    }

    /* Shared memory: every block also carries the driver's reservation. */
    out->smem_per_block =
        round_up(smem + reserved_smem, smem_unit(dev->cc_major));
    out->smem_per_sm = dev->shared_mem_per_sm;
    smem_limit = (dev->shared_mem_per_block_optin > dev->shared_mem_per_block
                      ? dev->shared_mem_per_block_optin
                      : dev->shared_mem_per_block) +
                 reserved_smem;
    if (out->smem_per_block > smem_limit)
        return kt_err_set(err, KT_S_INVALID,
                          "%lld bytes of shared memory per block (with the "
                          "reservation); the device allows %lld",
                          (long long)out->smem_per_block,
                          (long long)smem_limit);
    out->by_shared = out->smem_per_block > 0
                         ? (int)(out->smem_per_sm / out->smem_per_block)
                         : INT32_MAX;

    out->blocks_per_sm = out->by_warps;
    if (out->by_registers < out->blocks_per_sm)
        out->blocks_per_sm = out->by_registers;
    if (out->by_shared < out->blocks_per_sm)
        out->blocks_per_sm = out->by_shared;
    if (out->by_blocks < out->blocks_per_sm)
        out->blocks_per_sm = out->by_blocks;
    out->limiters =
        (out->by_warps == out->blocks_per_sm ? KT_OCC_WARPS : 0) |
        (out->by_registers == out->blocks_per_sm ? KT_OCC_REGISTERS : 0) |
        (out->by_shared == out->blocks_per_sm ? KT_OCC_SHARED : 0) |
        (out->by_blocks == out->blocks_per_sm ? KT_OCC_BLOCKS : 0);
    out->active_warps = out->blocks_per_sm * out->warps_per_block;
    out->theoretical = 100.0 * out->active_warps / out->max_warps_per_sm;
    return KT_S_OK;
}

kt_status kt_occupancy_of_kernel(const kt_device *dev, const kt_kernel_info *k,
                                 kt_occupancy *out, kt_err *err)
{
    if (!k->available) {
        memset(out, 0, sizeof *out);
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "the plugin names no kernel (kt_shape.kernel), so "
                          "there are no attributes to compute occupancy from");
    }
    return kt_occupancy_compute(
        dev, k->block_threads, k->num_regs,
        (int64_t)(k->static_smem_bytes + k->dynamic_smem_bytes),
        k->reserved_smem_per_block, out, err);
}

const char *kt_occ_limit_name(kt_occ_limit limit)
{
    switch (limit) {
    case KT_OCC_WARPS: return "warps";
    case KT_OCC_REGISTERS: return "registers";
    case KT_OCC_SHARED: return "shared memory";
    case KT_OCC_BLOCKS: return "blocks per SM";
    }
    return "?";
}

void kt_occ_format_limiters(unsigned limiters, char *out, size_t out_size)
{
    static const kt_occ_limit order[] = {KT_OCC_REGISTERS, KT_OCC_SHARED,
                                         KT_OCC_WARPS, KT_OCC_BLOCKS};
    size_t used = 0;

    if (!out_size)
        return;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof order / sizeof order[0]; ++i)
        if ((limiters & order[i]) && used + 1 < out_size)
            used += (size_t)snprintf(out + used, out_size - used, "%s%s",
                                     used ? " and " : "",
                                     kt_occ_limit_name(order[i]));
}
