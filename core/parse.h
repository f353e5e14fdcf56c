// SPDX-License-Identifier: Apache-2.0
/*
 * Parsing numbers and lists the way users type them on command lines and in
 * INI files.
 */
#ifndef KT_PARSE_H
#define KT_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Parses a signed 64-bit integer: decimal, 0x hex, or a power written 2^k.
 * Rejects trailing garbage and overflow. `what` names the value in the
 * message ("size n", "--set block"). */
kt_status kt_parse_i64(const char *text, const char *what, int64_t *out,
                       kt_err *err);

/* Parses a finite double; same conventions. */
kt_status kt_parse_double(const char *text, const char *what, double *out,
                          kt_err *err);

/* Strips leading and trailing white space in place; returns the first
 * character that is not space (inside s). */
char *kt_parse_trim(char *s);

/* Splits "a, b ,c" into trimmed items. *items is one allocation holding the
 * pointers and the strings; the caller frees it with free(). On failure
 * *items is NULL. */
kt_status kt_parse_list(const char *text, char ***items, size_t *count,
                        kt_err *err);

/* Splits "name=value" at the first '='; trims both. Returns KT_S_INPUT when
 * there is no '=' or the name is empty. name and value point into buf. */
kt_status kt_parse_assignment(char *buf, char **name, char **value,
                              kt_err *err);

#endif
