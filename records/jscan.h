// SPDX-License-Identifier: Apache-2.0
/*
 * kt_jscan: a JSON document read member by member from a file (plain or
 * gzip), so that a large object (a Kernel Tuner cache's "cache", one entry
 * per configuration) is parsed one member at a time and never held whole:
 * the scanner finds each member's key and the extent of its value, and
 * jansson parses that value alone (json_loadb). Memory is one value's
 * text at a time. Positions in messages are the file's (path:line:column).
 *
 * An object that an interrupted Kernel Tuner run left open (its last
 * member followed by ",", or "{" with none, then the end of the file) is
 * closed as Kernel Tuner closes it (util.correct_open_cache): with it,
 * every enclosing object ends there too.
 *
 * Not thread-safe; one scanner per file.
 */
#ifndef KT_JSCAN_H
#define KT_JSCAN_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"

typedef struct kt_jscan kt_jscan;

/* Opens path for reading; refuses more than max_bytes of (decompressed)
 * text. Close with kt_jscan_close. */
kt_status kt_jscan_open(const char *path, size_t max_bytes, kt_jscan **out,
                        kt_err *err);
void kt_jscan_close(kt_jscan *s);

/* The next byte that is not a blank, not consumed; -1 at the end. */
int kt_jscan_peek(kt_jscan *s);

/* Consumes the '{' that opens an object (KT_S_INPUT naming the position
 * when something else comes). */
kt_status kt_jscan_begin(kt_jscan *s, kt_err *err);

/* The next member of the object being read: 1 with its key (owned by s,
 * valid until the next call), 0 at the object's end (its '}' consumed, or
 * the end of an object left open), KT_S_INPUT in *rc with err set for a
 * syntax error. */
int kt_jscan_next(kt_jscan *s, const char **key, kt_status *rc, kt_err *err);

/* The current member's value, parsed: a new reference. */
kt_status kt_jscan_value(kt_jscan *s, json_t **out, kt_err *err);

/* The current member's value as text, not parsed (*text owned by s, valid
 * until the next call; its extent found as for kt_jscan_value, strings
 * skipped and brackets counted, its syntax not checked): for a reader with
 * a faster way to plain values (records/ktentry.h), which can still have
 * jansson parse that text with kt_jscan_parse, its messages placed in the
 * file as kt_jscan_value's. */
kt_status kt_jscan_text(kt_jscan *s, const char **text, size_t *len,
                        kt_err *err);
kt_status kt_jscan_parse(kt_jscan *s, json_t **out, kt_err *err);

/* After the top-level object: only blanks may follow. */
kt_status kt_jscan_end(kt_jscan *s, kt_err *err);

#endif
