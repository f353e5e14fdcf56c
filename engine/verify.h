// SPDX-License-Identifier: Apache-2.0
/*
 * Verification of a point before any of its time counts: at boundary sizes
 * (fewer elements than one block, an exact multiple of the block, a tail),
 * then at the requested size, each with poisoned outputs and every element
 * compared. The problems are set up once and reused by every point.
 */
#ifndef KT_VERIFY_H
#define KT_VERIFY_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "engine/instance.h"

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

/* Boundary problems are set up once and kept for every later point (the
 * sizes depend only on the block size, so a session needs a handful),
 * up to this many or this many bytes of device memory. */
#define KT_VERIFY_KEEP 128
#define KT_VERIFY_KEEP_BYTES ((size_t)8 << 30)

/* What verification keeps between points: the set-up boundary instances. */
typedef struct kt_verifier {
    const kt_gpu *gpu;
    uint64_t seed;
    int log_level;
    int host_only;       /* plugins verify on the host (kt_services_init) */
    kt_instance **items; /* set up, oldest first; owned */
    size_t count;
    size_t bytes;   /* device memory the kept instances hold */
    size_t setups;  /* boundary problems set up so far */
    size_t evicted; /* of which given up again for room */
    double setup_s; /* wall time of those setups */
} kt_verifier;

/* gpu must outlive the verifier. */
void kt_verifier_init(kt_verifier *v, const kt_gpu *gpu, uint64_t seed,
                      int log_level, int host_only);

/* Tears the kept instances down; after a fault (lost) only host memory is
 * freed, the context being unusable. */
void kt_verifier_close(kt_verifier *v, int lost);

/* Verifies pt at every boundary size (when boundaries is set; each
 * boundary problem set up once in v) and then on `main`, the instance at
 * the requested size, where pt is feasible with shape (the caller's
 * kt_point_feasible at main's problem: not asked again). shape() is asked
 * once per boundary size; a boundary the point cannot run at (a
 * constraint) is skipped. The message of a failure names the size it
 * failed at. */
kt_status kt_verify_point(kt_verifier *v, kt_instance *main, const kt_point *pt,
                          const kt_shape *shape, cudaStream_t stream,
                          int boundaries, kt_err *err);

#endif
