// SPDX-License-Identifier: Apache-2.0
/* An include-only stand-in for CUB's umbrella header, for expdist.ini.
 * NVRTC compiles device code only, and <cub/cub.cuh> also brings CUB's
 * device-wide algorithms, whose dispatch is host code NVRTC refuses ("not
 * allowed in JIT mode"). BAT's expdist.cu includes it for cub::BlockReduce
 * alone; this header, first on the declaration's include path, gives it
 * that block primitive from the toolkit's own CUB (the folder ktune puts
 * last on NVRTC's include path). No kernel changes. */
#pragma once
#include <cub/block/block_reduce.cuh>
