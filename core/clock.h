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

/* Sleeps s seconds (none when s <= 0), resumed across signals. */
void kt_clock_sleep(double s);

/* CPU seconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID). */
double kt_clock_thread_cpu_seconds(void);

/* Seconds this process has existed: from its start (exec, before the
 * dynamic loader ran) to now, from /proc/self/stat's start time against
 * CLOCK_BOOTTIME, so to the kernel's clock tick (10 ms); -1 when the
 * system does not say. */
double kt_clock_process_age(void);

/* The current UTC time as ISO 8601, "2026-12-01T08:00:00Z" (out holds at
 * least 21 bytes). Such stamps sort as text. */
void kt_clock_utc(char *out, size_t size);

#endif
