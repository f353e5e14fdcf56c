// SPDX-License-Identifier: Apache-2.0
// The benchmark hub's gemm_milo kernel as its script compiles it for CUDA
// (gemm_milo.py: cl_to_cuda.h, then the OpenCL parts in order); includes
// only, no kernel code of the hub's changed. The folder comes from
// gemm.ini's -I. gemm_reference.cuh is ours: the verification reference,
// last, since it uses the parts' types (realM, realN).
// The order is the script's, not alphabetical:
// clang-format off
#include "cl_to_cuda.h"
#include "common.opencl"
#include "xgemm_part1.opencl"
#include "xgemm_part2.opencl"
#include "xgemm_part3.opencl"
#include "xgemm_part4.opencl"
#include "gemm_reference.cuh"
// clang-format on
