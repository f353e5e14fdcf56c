// SPDX-License-Identifier: Apache-2.0
/*
 * kt_scale: the mapping of a chart axis from data values to pixels, linear
 * or logarithmic, with "nice" domains and ticks (1, 2, 5 x 10^k steps on
 * linear axes; decades, or 1-2-5 within them, on log axes; powers of two
 * for sizes), and the compact tick labels charts use. Pure arithmetic.
 */
#ifndef KT_REPORT_SCALE_H
#define KT_REPORT_SCALE_H

#include <stddef.h>

typedef enum kt_scale_kind {
    KT_SCALE_LINEAR = 0,
    KT_SCALE_LOG /* base-independent: log2 and log10 map alike */
} kt_scale_kind;

typedef struct kt_scale {
    kt_scale_kind kind;
    double d0, d1; /* domain, d0 < d1; both > 0 on a log scale */
    double r0, r1; /* the pixels d0 and d1 map to (r1 < r0 for y) */
} kt_scale;

/* Maps v into the range, extrapolating outside the domain. NaN when v is
 * not finite, or not positive on a log scale. */
double kt_scale_map(const kt_scale *s, double v);

/* Whether v lies in the domain, with a relative tolerance of 1e-9 of the
 * domain's extent (so computed ticks at its ends count). */
int kt_scale_contains(const kt_scale *s, double v);

/* The domain for data in [lo, hi] (finite; > 0 on a log scale), widened
 * outward to nice bounds: multiples of the linear tick step, or on a log
 * scale the 1-2-5 values around it (whole decades when it spans more than
 * two). A single value gets a domain around it. Sets d0 and d1. Returns
 * -1 when no finite (positive, for log) domain exists, else 0. */
int kt_scale_nice_domain(kt_scale *s, double lo, double hi, int target);

/* 1, 2 or 5 x 10^k: the step of about `target` ticks over span > 0. */
double kt_scale_nice_step(double span, int target);

/* Ticks inside the domain, ascending; returns how many were written (at
 * most max). Linear: multiples of the nice step. Log: whole decades (every
 * k-th when more than target), or 1-2-5 values when the domain spans less
 * than about two decades, or linear steps when it spans less than one
 * 1-2-5 interval. */
size_t kt_scale_ticks(const kt_scale *s, int target, double *out, size_t max);

/* Powers of two inside a positive domain, every k-th so that there are at
 * most target (k itself a power of two, aligned to even exponents). */
size_t kt_scale_ticks_pow2(const kt_scale *s, int target, double *out,
                           size_t max);

/* A compact label with at most `digits` significant digits (1 to 12; 3
 * suits ticks): SI suffixes from a thousand up (1.5k, 20M, 1G), plain
 * decimals down to 1e-4, then exponent form without padding ("2e-5").
 * Writes "" for a non-finite value. */
void kt_scale_fmt_number(double v, int digits, char *out, size_t out_size);

/* Bytes in binary units: "512 B", "512 KiB", "60 MiB", "1.5 GiB". */
void kt_scale_fmt_bytes(double v, char *out, size_t out_size);

#endif
