// SPDX-License-Identifier: Apache-2.0
/*
 * "Did you mean": close matches for a misspelt name among the known ones.
 */
#ifndef KT_SUGGEST_H
#define KT_SUGGEST_H

#include <stddef.h>

/* Writes "; did you mean 'a' or 'b'?" into out when some candidate is within
 * a small edit distance of name, else "; known: a, b, c" (truncated), else
 * an empty string. Always NUL-terminates out. */
void kt_suggest(const char *name, const char *const *candidates, size_t count,
                char *out, size_t out_size);

/* Levenshtein distance, case-insensitive; exposed for tests. */
size_t kt_edit_distance(const char *a, const char *b);

#endif
