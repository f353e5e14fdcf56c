// SPDX-License-Identifier: Apache-2.0
/* CUB's umbrella header as NVRTC can compile it, for Kernel Tuner scripts
 * (ktune.kernel_tuner puts this folder first on the include path).
 * Kernel Tuner compiles with nvcc, where <cub/cub.cuh> is whole; NVRTC
 * compiles device code only, and the umbrella also brings CUB's
 * device-wide algorithms, whose dispatch is host code NVRTC refuses ("not
 * allowed in JIT mode"). A kernel can only use CUB's block- and
 * warp-level primitives anyway, so this header includes those, from the
 * toolkit's own CUB. */
#pragma once
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
