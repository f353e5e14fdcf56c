/*
 * kt_progress: the one-line progress display of a tuning run — done/budget,
 * the best so far, time left — redrawn in place on a terminal and never
 * written anywhere else (logs and pipes get the summary only).
 */
#ifndef KT_PROGRESS_H
#define KT_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct kt_progress {
    FILE *out;    /* NULL: disabled */
    size_t width; /* of the last line drawn, to blank it */
} kt_progress;

/* Enables the display when `out` is a terminal and enabled is set. */
void kt_progress_init(kt_progress *p, FILE *out, int enabled);

/* Redraws: done of budget (0: unknown), the best time and configuration
 * (best_us <= 0: none yet), seconds left (< 0: unknown). */
void kt_progress_update(kt_progress *p, size_t done, size_t budget,
                        double best_us, const char *best, double left_s);

/* Blanks the line so the summary starts clean. */
void kt_progress_end(kt_progress *p);

#endif
