/*
 * Verification of a point before any of its time counts: at boundary sizes
 * (fewer elements than one block, an exact multiple of the block, a tail),
 * then at the requested size, each with poisoned outputs and every element
 * compared.
 */
#ifndef KT_VERIFY_H
#define KT_VERIFY_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "core/instance.h"

#define KT_MAX_BOUNDARIES 12

typedef struct kt_boundary {
    int64_t sizes[KT_MAX_SIZES];
    const char *label; /* "one element", "under one block", ... */
} kt_boundary;

/* The boundary problems for a point whose launch at the requested size has
 * `threads` threads per block. One dimension: one element, under one block,
 * one block, a multiple, a tail. Several: each dimension varies on its own
 * (1 x N and N x 1, different tails both ways round, different block
 * counts, small primes), so a kernel that confuses dimensions fails. Every
 * value is clamped to its dimension's bounds and never above the requested
 * size; duplicates and the requested size itself are left out. Pure. */
size_t kt_boundary_sizes(const kt_operator *op, const int64_t *requested,
                         uint64_t threads, kt_boundary *out, size_t max);

/* Verifies pt at every boundary size (when boundaries is set) and then on
 * `main`, the instance at the requested size. A boundary the point cannot
 * run at (a constraint) is skipped. The message of a failure names the
 * size it failed at. */
kt_status kt_verify_point(kt_instance *main, const kt_gpu *gpu,
                          const kt_point *pt, cudaStream_t stream,
                          int boundaries, int log_level, kt_err *err);

#endif
