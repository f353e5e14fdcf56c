// SPDX-License-Identifier: Apache-2.0
/*
 * The core's own kernels: the clock probe that runs before each timed
 * sample, the empty kernel of the launch floor, the copy of the
 * bandwidth-vs-working-set sweep and the FMA loop of the compute ceiling. C
 * entry points so the host code stays C.
 */
#ifndef KT_KERNELS_H
#define KT_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "core/check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One single-thread block per SM: each waits for a tick of %globaltimer,
 * then spins for spin_ns of it counting clock64(), and atomically lowers
 * *min_khz to its derived SM clock. Running it just before the start event
 * also keeps the GPU busy while the host enqueues the timed launch, so the
 * event interval holds no host submission gap. *min_khz must start at
 * UINT_MAX. */
cudaError_t kt_launch_clock_probe(unsigned int *min_khz, int sm_count,
                                  unsigned int spin_ns, cudaStream_t stream);

/* Reads bytes (a multiple of 16) of buf, writing nothing but, in the
 * unlikely case the data hashes to one value, 4 bytes to *sink (so the
 * loads cannot be optimised away). Over a clean buffer twice the L2's
 * size it flushes the L2 and leaves it holding clean lines only: the dirty
 * lines of earlier work are written back now, not during the next timed
 * kernel. */
cudaError_t kt_launch_read_sweep(const void *buf, size_t bytes,
                                 unsigned int *sink, int sm_count,
                                 cudaStream_t stream);

/* kt_launch_read_sweep and kt_launch_clock_probe in one launch: every
 * block's thread 0 times its block's part of the sweep (at least spin_ns)
 * and lowers *min_khz (starting at UINT_MAX) to its derived SM clock. The
 * cold-L2 flush before a sample, with the probe's reading and none of its
 * GPU time. */
cudaError_t kt_launch_read_sweep_probe(const void *buf, size_t bytes,
                                       unsigned int *sink,
                                       unsigned int *min_khz,
                                       unsigned int spin_ns, int sm_count,
                                       cudaStream_t stream);

/* Writes zeros over bytes (a multiple of 16) of buf: a kernel, where a
 * cudaMemsetAsync may not be one (a profiler counts kernels as ranges). */
cudaError_t kt_launch_write_sweep(void *buf, size_t bytes, int sm_count,
                                  cudaStream_t stream);

/* Drops the L2 lines of bytes (a multiple of 128) of buf, 128-byte
 * aligned, without writing them back (sm_80+; a no-op kernel before). */
cudaError_t kt_launch_l2_discard(void *buf, size_t bytes, int sm_count,
                                 cudaStream_t stream);

/* An empty kernel, <<<1, 1>>>: the launch floor. */
cudaError_t kt_launch_empty(cudaStream_t stream);

/* Copies count16 16-byte elements between a and b `passes` times in one
 * launch, alternating direction (a->b, b->a, ...), so a working set that
 * sits in the L2 is read from the L2 and the launch is long enough not to be
 * launch-bound. Each thread keeps its elements across passes: no race. */
cudaError_t kt_launch_copy(void *a, void *b, size_t count16, int passes,
                           int sm_count, cudaStream_t stream);

/* Compares got[0..count) with the double reference want on the device
 * under the rule of core/check.h (bound tol[i] when tol is not NULL, else
 * atol + rtol * |want[i]|) and leaves the outcome in *rec (device memory,
 * initialised by this call). Enqueued on stream; read rec after it. */
cudaError_t kt_launch_check_f32(const float *got, const double *want,
                                const double *tol, size_t count, double rtol,
                                double atol, kt_check_record *rec, int sm_count,
                                cudaStream_t stream);

/* Fills dst[0..count) (device memory) with the values kt_rng_fill_f32
 * (core/rng.h) gives for the stream whose key is kt_rng_stream_key(seed,
 * stream), bit for bit, on the device. */
cudaError_t kt_launch_fill_f32(float *dst, size_t count, uint64_t key, float lo,
                               float hi, int sm_count, cudaStream_t s);

/* The compute ceiling: sm_count * KT_FMA_BLOCKS_PER_SM blocks of
 * KT_FMA_BLOCK threads (every warp slot of an sm_90 SM), each thread
 * running independent FMA chains of `iters` steps in FP32 (fp64 = 0) or
 * FP64, writing one value per thread to out (grid * block elements of the
 * type). kt_fma_flops is the launch's arithmetic, an FMA counting 2. */
#define KT_FMA_BLOCK 256
#define KT_FMA_BLOCKS_PER_SM 8
cudaError_t kt_launch_fma(int fp64, void *out, int iters, int sm_count,
                          cudaStream_t stream);
double kt_fma_flops(int sm_count, int iters);

#ifdef __cplusplus
}
#endif

#endif
