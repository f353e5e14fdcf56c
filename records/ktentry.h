// SPDX-License-Identifier: Apache-2.0
/*
 * kt_ktentry: one Kernel Tuner cache entry read straight from its text,
 * without building a jansson tree, when it is plain: an object of
 * printable-ASCII keys without escapes, each written once; the timing
 * members (time, times, compile_time, verification_time, benchmark_time,
 * framework_time, strategy_time) valid as records/ktcache.c checks them;
 * the entry's own copy of an integer parameter agreeing with its key;
 * any other member a plain string, a non-negative number, true, false or
 * null. Anything else (a syntax error, a duplicate key, an escape, a
 * value out of range, a nested member, a negative number, a real
 * parameter's copy) is refused, and the caller parses the entry whole
 * with jansson, whose reading and messages stay the only ones a user sees:
 * the fast reading only ever takes an entry the whole parse would accept,
 * and gives the same record (tests/tuner/test_ktentry.c pins both).
 *
 * Numbers come out as jansson reads them, to the bit: an integer of up to
 * 18 digits as its int64 converted to double; a real of at most 15
 * significant digits whose decimal exponent is within 22 by one exact
 * IEEE multiplication or division (both operands exact, so the one
 * rounding is the correctly rounded value strtod gives); any other real
 * by strtod itself, as jansson calls it, when the locale's decimal point
 * is "." (else the entry is refused). A 1e6-point cache spent about half
 * of its replay's CPU in jansson's parse and strtod (issue 54).
 *
 * Not thread-safe: a reader holds one kt_ktentry per file.
 */
#ifndef KT_KTENTRY_H
#define KT_KTENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "records/extrec.h"

typedef struct kt_ktentry kt_ktentry;

/* A reader of rec's entries (rec's parameters declared; borrowed, must
 * outlive it), or NULL when none can serve them: out of memory, or a
 * parameter named like a timing member (the entry's one member is then
 * read twice). Free with kt_ktentry_free. */
kt_ktentry *kt_ktentry_new(const kt_extrec *rec);
void kt_ktentry_free(kt_ktentry *e);

typedef enum kt_ktentry_result {
    KT_KTENTRY_TAKEN = 0, /* *r filled */
    KT_KTENTRY_REFUSED,   /* *r untouched: parse it whole */
    KT_KTENTRY_NOMEM
} kt_ktentry_result;

/* Reads the entry text[0..len) (from its '{' to its '}', the last byte;
 * other text is refused) whose key names the positions pos. Taken: r's
 * verdict, times, runs (runs_ms owned by r) and, for an error name,
 * objective (a new reference) are set; rank, order and key are left to the
 * caller. */
kt_ktentry_result kt_ktentry_read(kt_ktentry *e, const char *text, size_t len,
                                  const uint32_t *pos, kt_extrec_record *r);

#endif
