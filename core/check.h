// SPDX-License-Identifier: Apache-2.0
/*
 * The verification rule and the record the device comparison leaves.
 *
 * Element i of an output passes when |got - want| <= bound, where bound is
 * the element's own tolerance when the plugin gives one per element, else
 * atol + rtol * |want|. Written so that NaN fails (!(err <= bound)), so an
 * infinity never equals an infinity either (inf - inf is NaN). The one
 * definition is used by the host comparison and the device kernel, with
 * the products and sums rounded one by one on both, so the two decide
 * every element alike.
 *
 * The device comparison (kt_launch_check_f32, engine/kernels.h) counts every
 * failure exactly and leaves only a kt_check_record: the count, the lowest
 * failing index, the largest error, and up to KT_CHECK_SLOTS failures with
 * their index, value and reference.
 */
#ifndef KT_CHECK_H
#define KT_CHECK_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define KT_CHECK_FN static __host__ __device__ __forceinline__
#else
#define KT_CHECK_FN static inline
#endif

#if defined(__CUDA_ARCH__)
#define KT_CHECK_MUL(a, b) __dmul_rn((a), (b))
#define KT_CHECK_ADD(a, b) __dadd_rn((a), (b))
#define KT_CHECK_SUB(a, b) __dsub_rn((a), (b))
#else
#define KT_CHECK_MUL(a, b) ((a) * (b))
#define KT_CHECK_ADD(a, b) ((a) + (b))
#define KT_CHECK_SUB(a, b) ((a) - (b))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Failures recorded with their values; the rest are only counted. */
#define KT_CHECK_SLOTS 8

typedef struct kt_check_fail {
    uint64_t index;
    double got;   /* the float as found (NaN when never written) */
    double want;  /* the reference */
    double bound; /* the tolerance it failed */
} kt_check_fail;

typedef struct kt_check_record {
    uint64_t bad;   /* failures, counted exactly */
    uint64_t first; /* lowest failing index; UINT64_MAX when none */
    /* Largest |got - want| and largest |got - want| / bound over the
     * failures, as the bits of non-negative doubles (which order as
     * integers; NaN above infinity). */
    uint64_t max_err_bits;
    uint64_t max_ratio_bits;
    uint32_t slots; /* failures that claimed a slot (may exceed the slots) */
    uint32_t reserved;
    kt_check_fail fail[KT_CHECK_SLOTS];
} kt_check_record;

/* The bound of one element. */
KT_CHECK_FN double kt_check_bound(double want, double rtol, double atol)
{
    return KT_CHECK_ADD(atol, KT_CHECK_MUL(rtol, fabs(want)));
}

/* |got - want|. */
KT_CHECK_FN double kt_check_error(double got, double want)
{
    return fabs(KT_CHECK_SUB(got, want)); /* NaN stays NaN */
}

/* 1 when the element fails: !(err <= bound), so NaN fails. */
KT_CHECK_FN int kt_check_fails(double err, double bound)
{
    return !(err <= bound);
}

#if !defined(__CUDACC__)
/* Host side (core/check.c), usable without a GPU. */

/* An empty record: no failures, first = UINT64_MAX. */
void kt_check_record_init(kt_check_record *r);

/* Adds got[0..count) against want (and tol, when not NULL) to r: element
 * i counts as index_base + i. Chunks of one array may be added in any
 * order. The host path of check_f32 and the tests' model of the kernel. */
void kt_check_host_f32(const float *got, const double *want, const double *tol,
                       size_t count, uint64_t index_base, double rtol,
                       double atol, kt_check_record *r);

/* 1 when the lowest failing index is among the recorded slots (or nothing
 * failed); else its values must be fetched before describing. */
int kt_check_has_first(const kt_check_record *r);

/* KT_OK when nothing failed; else KT_MISMATCH and msg says how many of
 * count failed, where the first is, the largest error (per_element: the
 * worst error over its tolerance) and the lowest recorded failures. */
int kt_check_describe(const kt_check_record *r, const char *name, size_t count,
                      int per_element, double rtol, double atol, char *msg,
                      size_t msg_size);
#endif

#ifdef __cplusplus
}
#endif

#endif
