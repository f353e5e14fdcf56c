// SPDX-License-Identifier: Apache-2.0
/*
 * The one host clock ktune reads: monotonic, in seconds. Wall-clock caps,
 * set-up costs and end-to-end times all come from here.
 */
#ifndef KT_CLOCK_H
#define KT_CLOCK_H

#include <stddef.h>

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double kt_clock_seconds(void);

/* The current UTC time as ISO 8601, "2026-12-01T08:00:00Z" (out holds at
 * least 21 bytes). Such stamps sort as text. */
void kt_clock_utc(char *out, size_t size);

#endif
