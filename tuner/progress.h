// SPDX-License-Identifier: Apache-2.0
/*
 * kt_progress: the progress display of a tuning run, on stderr so that
 * stdout stays the summary a pipe or file receives.
 *
 * On a terminal one line is redrawn in place (cut to the terminal's width
 * so a redraw never wraps). Anywhere else (a pipe, `| tee log`, a CI log)
 * plain lines are written: one at every change of phase and one at most
 * every `interval_s` seconds between, like nvbench's `Run: [i/N]` lines.
 *
 * Each line says the phase, how many points were measured of how many
 * (exact only when the run must visit them all; otherwise "<=N", an upper
 * bound, or no denominator), the best so far, the time left when it can be
 * told, and the configuration being measured, e.g.
 *   searching [12/<=62], best 53.92 us (vec4 block=256 items=2), <=4s left,
 *   now vec4 block=512 items=2
 */
#ifndef KT_PROGRESS_H
#define KT_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct kt_progress {
    FILE *out;         /* NULL: disabled */
    int tty;           /* redraw in place, else log lines */
    size_t width;      /* of the last line drawn on a terminal, to blank it */
    double interval_s; /* between log lines (not a terminal) */
    double last_s;     /* monotonic time of the last log line; < 0: none */
    char phase[64];    /* the current phase, to notice a change */
} kt_progress;

/* What one update shows. Strings are read during the call only. */
typedef struct kt_progress_state {
    const char *phase;   /* "searching", "re-measuring 3 finalists", ... */
    size_t done;         /* points measured */
    size_t budget;       /* 0: unknown (no denominator) */
    int exact;           /* budget is what the run will measure, not a bound */
    const char *current; /* configuration being measured; NULL or "": none */
    double best_us;      /* <= 0: no valid point yet */
    const char *best;    /* the best configuration */
    double left_s;       /* seconds left; < 0: unknown */
    int left_exact;      /* left_s is an estimate, not only a bound */
} kt_progress_state;

/* Enables the display on `out` (normally stderr) when enabled is set. */
void kt_progress_init(kt_progress *p, FILE *out, int enabled);

/* Shows s: redraws the terminal line, or writes a log line when the phase
 * changed or interval_s passed since the last one. */
void kt_progress_update(kt_progress *p, const kt_progress_state *s);

/* Formats s as one line into buf (always terminated; a longer line is cut,
 * which is what a display wants). Returns the length written. */
size_t kt_progress_format(const kt_progress_state *s, char *buf, size_t size);

/* Blanks the terminal line so the summary starts clean. */
void kt_progress_end(kt_progress *p);

#endif
