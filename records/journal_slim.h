// SPDX-License-Identifier: Apache-2.0
/*
 * kt_journal_slim: a journal's eval or check record as a reader that draws
 * it keeps it (`ktune report`): its kind, point, status, reason, purpose,
 * counters and config, its timing.kernel statistics and its energy
 * figures, and nothing else (the raw samples, the shape and clocks are let
 * go). The journal's format has one owner, this floor: the statistics a
 * record gives and what they must be are records/journal_check.h's (one
 * list, one rule), read here from the record's text or from its parse.
 *
 * Two ways to the same values. kt_journal_slim_record cuts a record
 * jansson parsed whole, and kt_journal_kernel_of / kt_journal_energy_of
 * read its figures. kt_journal_slim_text reads the record's text instead:
 * one pass over the line checks its syntax without building anything, the
 * kernel statistics and energy figures are read as numbers, and jansson
 * parses only the other values kept; a journal of 100,000 points spent
 * most of its report in building and freeing the trees of values it never
 * read. The pass takes the plain cases only: whatever it does not take (a
 * syntax error, a \u escape or a byte beyond ASCII in a string, a number
 * near the limits of a double or an int64, deep nesting, a record without
 * timing.kernel, another kind) it leaves to jansson's whole parse, so every
 * error message and every value is the whole parse's
 * (tests/tuner/test_journal_slim.c holds the two to it).
 *
 * Thread-safe: no state; jansson's parsing is thread-safe once its hash
 * seed is set (report/sources.c parses the header first).
 */
#ifndef KT_JOURNAL_SLIM_H
#define KT_JOURNAL_SLIM_H

#include <jansson.h>
#include <stddef.h>

/* The kept part of rec (an eval or check record), sharing rec's values: a
 * new reference; rec itself (a new reference) when it has no
 * timing.kernel object (a failed point: small, and kept whole); NULL
 * without memory. */
json_t *kt_journal_slim_record(const json_t *rec);

typedef enum kt_journal_slim_outcome {
    KT_JOURNAL_SLIM_DONE, /* *out and *kernel hold the kept part */
    KT_JOURNAL_SLIM_WHOLE /* not taken, or out of memory: parse it whole */
} kt_journal_slim_outcome;

/* timing.kernel's statistics as a reader draws them: microseconds, NaN
 * where the record has none (or, for a point not ok, not a number). */
typedef struct kt_journal_kernel {
    double median, q1, q3, ci_lo, ci_hi, min, noise;
    long samples; /* "n" when an integer, else -1 */
} kt_journal_kernel;

/* A record's energy figures: measured 1 when "energy.measured" is true;
 * the others NaN where absent or not numbers. */
typedef struct kt_journal_energy {
    int measured;
    double joules_per_launch, ci_lo_j, ci_hi_j, power_w, power_limit_w;
} kt_journal_energy;

/* The statistics of a "kernel" object parsed whole (NULL or not an
 * object: every figure NaN, samples -1), as kt_journal_slim_text reads
 * them from the text. */
kt_journal_kernel kt_journal_kernel_of(const json_t *kernel);

/* The figures of an "energy" object (NULL or not an object: not measured,
 * every figure NaN). */
kt_journal_energy kt_journal_energy_of(const json_t *energy);

/* The kept part of the record in text[0..len) (one journal line, its line
 * end included or not) when the text is an eval or check record the pass
 * takes: *out as kt_journal_slim_record gives it less "timing" and
 * "energy", a new reference; the kernel statistics in *kernel and the
 * energy figures in *energy instead, read without building them. The pass
 * takes a point recorded ok only when its statistics hold by
 * kt_journal_stat_holds (a median; records/journal_check.h), so that
 * kt_journal_check_point, over the whole parse, gives every message.
 * *out is NULL unless KT_JOURNAL_SLIM_DONE. */
kt_journal_slim_outcome kt_journal_slim_text(const char *text, size_t len,
                                             json_t **out,
                                             kt_journal_kernel *kernel,
                                             kt_journal_energy *energy);

/* The text of the value of member name (plain ASCII, no escapes) of the
 * JSON object that is all of text[0..len), found by the same pass without
 * building anything: 1 with *at and *n set, 0 when the object has no such
 * member, -1 when the pass does not take the text (then parse it whole). */
int kt_journal_slim_member(const char *text, size_t len, const char *name,
                           const char **at, size_t *n);

/* The length of the JSON object at the start of text[0..len) (leading
 * blanks included) as the pass reads it; 0 when the pass does not take it
 * (one cut short by len included). */
size_t kt_journal_slim_object_length(const char *text, size_t len);

#endif
