/*
 * A read sweep that leaves the L2 holding clean lines only. An L2 flush by
 * writing a buffer (what the evaluator's prepare step does) leaves the L2
 * full of dirty lines; their write-backs would then land inside the next
 * counted range as DRAM writes the kernel never made. Reading a buffer of
 * twice the L2's size afterwards evicts them (written back now, outside
 * the range) and leaves lines that cost nothing to drop — the state Nsight
 * Compute's cache control gives a replay pass. C entry point over a CUDA
 * kernel.
 */
#ifndef KT_METRICS_L2_CLEAN_H
#define KT_METRICS_L2_CLEAN_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads bytes (a multiple of 16) of buf on stream, writing nothing but,
 * in the unlikely case that the data hashes to one value, 4 bytes to
 * *sink (so the loads cannot be optimised away). */
cudaError_t kt_launch_read_sweep(const void *buf, size_t bytes,
                                 unsigned int *sink, int sm_count,
                                 cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
