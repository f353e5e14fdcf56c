// SPDX-License-Identifier: Apache-2.0
/*
 * The device facts of an NVIDIA H200 (cc 9.0, 132 SMs, 141 GiB) as the
 * tests that need no GPU use them: the limits CUDA reports for it
 * (cudaGetDeviceProperties), so feasibility, occupancy and shapes are
 * computed as they would be on the machine.
 */
#ifndef KT_TEST_FAKE_DEVICE_H
#define KT_TEST_FAKE_DEVICE_H

#include <string.h>

#include "ktune/plugin.h"

static inline kt_device kt_test_h200(void)
{
    kt_device d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.warp_size = 32;
    d.max_threads_per_block = 1024;
    d.max_threads_per_sm = 2048;
    d.max_blocks_per_sm = 32;
    d.regs_per_sm = 65536;
    d.regs_per_block = 65536;
    d.shared_mem_per_block = 49152;
    d.shared_mem_per_block_optin = 232448;
    d.shared_mem_per_sm = 233472;
    d.l2_bytes = 60 * 1024 * 1024;
    d.global_mem_bytes = (int64_t)143771 * 1024 * 1024;
    d.max_grid[0] = 0x7fffffff;
    d.max_grid[1] = d.max_grid[2] = 65535;
    d.max_block[0] = d.max_block[1] = 1024;
    d.max_block[2] = 64;
    d.name = "NVIDIA H200 (fake)";
    return d;
}

#endif
