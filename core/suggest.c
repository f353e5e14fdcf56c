// SPDX-License-Identifier: Apache-2.0
#include "core/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t kt_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = calloc(lb + 1, sizeof *row);
    size_t result;

    if (!row)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; ++j)
        row[j] = j;
    for (size_t i = 1; i <= la; ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; ++j) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) !=
                          tolower((unsigned char)b[j - 1]);
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    result = row[lb];
    free(row);
    return result;
}

static void append(char *out, size_t out_size, const char *text)
{
    size_t used = strlen(out);
    if (used + 1 < out_size)
        snprintf(out + used, out_size - used, "%s", text);
}

void kt_suggest(const char *name, const char *const *candidates, size_t count,
                char *out, size_t out_size)
{
    /* A match is close when at most a third of the name differs, or the name
     * is a prefix of the candidate: 'coal' -> 'coalesced'. */
    size_t limit = strlen(name) / 3 + 1;
    size_t matches = 0;

    if (!out_size)
        return;
    out[0] = '\0';
    for (size_t i = 0; i < count; ++i) {
        const char *c = candidates[i];
        int prefix =
            strlen(name) >= 2 && strncasecmp(c, name, strlen(name)) == 0;
        if (!prefix && kt_edit_distance(name, c) > limit)
            continue;
        append(out, out_size, matches ? " or '" : "; did you mean '");
        append(out, out_size, c);
        append(out, out_size, "'");
        ++matches;
    }
    if (matches) {
        append(out, out_size, "?");
        return;
    }
    for (size_t i = 0; i < count; ++i) {
        append(out, out_size, i ? ", " : "; known: ");
        append(out, out_size, candidates[i]);
    }
}
