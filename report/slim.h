// SPDX-License-Identifier: Apache-2.0
/*
 * kt_slim: what `ktune report` keeps of a journal's eval or check record:
 * its kind, point, status, reason, purpose, counters and config, its
 * timing.kernel statistics and six energy figures (report/fig_energy.c's),
 * and nothing else (the raw samples, the shape and clocks are let go).
 *
 * Two ways to the same values. kt_slim_record cuts a record jansson parsed
 * whole. kt_slim_text reads the record's text instead: one pass over the
 * line checks its syntax without building anything, the kernel statistics
 * and energy figures are read as numbers, and jansson parses only the
 * other values kept; a
 * journal of 100,000 points spent most of its
 * report in building and freeing the trees of values it never read. The
 * pass takes the plain cases only: whatever it does not take (a syntax
 * error, a \u escape or a byte beyond ASCII in a string, a number near the
 * limits of a double or an int64, deep nesting, a record without
 * timing.kernel, another kind) it leaves to jansson's whole parse, so
 * every error message and every value is the whole parse's
 * (tests/report/test_slim.c holds the two to it).
 *
 * Thread-safe: no state; jansson's parsing is thread-safe once its hash
 * seed is set (report/sources.c parses the header first).
 */
#ifndef KT_REPORT_SLIM_H
#define KT_REPORT_SLIM_H

#include <jansson.h>
#include <stddef.h>

/* The kept part of rec (an eval or check record), sharing rec's values: a
 * new reference; rec itself (a new reference) when it has no
 * timing.kernel object (a failed point: small, and kept whole); NULL
 * without memory. */
json_t *kt_slim_record(const json_t *rec);

typedef enum kt_slim_outcome {
    KT_SLIM_DONE, /* *out and *kernel hold the kept part */
    KT_SLIM_WHOLE /* not taken, or out of memory: parse the text whole */
} kt_slim_outcome;

/* timing.kernel's statistics as the report reads them: microseconds, NaN
 * where the record has none (or, for a point not ok, not a number). */
typedef struct kt_slim_kernel {
    double median, q1, q3, ci_lo, ci_hi, min, noise;
    long samples; /* "n" when an integer, else -1 */
} kt_slim_kernel;

/* A record's energy figures as report/fig_energy.c reads them: measured 1
 * when "energy.measured" is true; the others NaN where absent or not
 * numbers. */
typedef struct kt_slim_energy {
    int measured;
    double joules_per_launch, ci_lo_j, ci_hi_j, power_w, power_limit_w;
} kt_slim_energy;

/* The figures of an "energy" object (NULL or not an object: not measured,
 * every figure NaN). */
kt_slim_energy kt_slim_energy_of(const json_t *energy);

/* The kept part of the record in text[0..len) (one journal line, its line
 * end included or not) when the text is an eval or check record the pass
 * takes: *out as kt_slim_record gives it less "timing" and "energy", a new
 * reference; the kernel statistics in *kernel and the energy figures in
 * *energy instead, read without building them.
 * The pass takes a point recorded ok only when its statistics hold as
 * report/sources.c's check_record wants them (a median; every time a
 * number > 0 and finite, every spread a number >= 0), so that the whole
 * parse gives every message. *out is NULL unless KT_SLIM_DONE. */
kt_slim_outcome kt_slim_text(const char *text, size_t len, json_t **out,
                             kt_slim_kernel *kernel, kt_slim_energy *energy);

/* The text of the value of member name (plain ASCII, no escapes) of the
 * JSON object that is all of text[0..len), found by the same pass without
 * building anything: 1 with *at and *n set, 0 when the object has no such
 * member, -1 when the pass does not take the text (then parse it whole). */
int kt_slim_member(const char *text, size_t len, const char *name,
                   const char **at, size_t *n);

/* The length of the JSON object at the start of text[0..len) (leading
 * blanks included) as the pass reads it; 0 when the pass does not take it
 * (one cut short by len included). */
size_t kt_slim_object_length(const char *text, size_t len);

#endif
