/*
 * The one host clock ktune reads: monotonic, in seconds. Wall-clock caps,
 * set-up costs and end-to-end times all come from here.
 */
#ifndef KT_CLOCK_H
#define KT_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double kt_clock_seconds(void);

#endif
