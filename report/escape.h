// SPDX-License-Identifier: Apache-2.0
/*
 * Escaping for HTML and SVG: every piece of text a report writes that did
 * not come from ktune's own string literals (operator and variant names,
 * reasons, command lines, file names, environment fields) goes through
 * here, in element content and in attribute values alike.
 */
#ifndef KT_REPORT_ESCAPE_H
#define KT_REPORT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Writes text with & < > " ' as character references, control characters
 * other than tab and line feed dropped, and every byte that is not part of
 * well-formed UTF-8 replaced by U+FFFD, so the result is safe both as
 * element content and inside a quoted attribute. NULL writes nothing. */
void kt_esc_write(FILE *out, const char *text);

/* The same into out (always NUL-terminated; truncated at a character
 * boundary when out_size is too small). Returns the length the full
 * escaped text needs, excluding the NUL, like snprintf. */
size_t kt_esc_string(const char *text, char *out, size_t out_size);

#endif
