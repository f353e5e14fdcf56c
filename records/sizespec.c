// SPDX-License-Identifier: Apache-2.0
#include "records/sizespec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"

/* UTF-8 of U+00D7 MULTIPLICATION SIGN. */
#define TIMES_UTF8 "\xc3\x97"

/* Length of a "times" sign at s (x, X, *, ×), else 0. */
static size_t times_sign(const char *s)
{
    if (*s == 'x' || *s == 'X' || *s == '*')
        return 1;
    if (strncmp(s, TIMES_UTF8, 2) == 0)
        return 2;
    return 0;
}

/* s past its leading blanks (kt_parse_i64 allows blanks around numbers). */
static char *skip_blanks(char *s)
{
    while (isspace((unsigned char)*s))
        ++s;
    return s;
}

/* Appends v to the growing array; KT_S_INPUT past KT_SIZESPEC_MAX values. */
static kt_status push(int64_t **values, size_t *n, size_t *cap, int64_t v,
                      size_t dims, kt_err *err)
{
    if (*n >= (size_t)KT_SIZESPEC_MAX * dims)
        return kt_err_set(err, KT_S_INPUT, "more than %d sizes",
                          KT_SIZESPEC_MAX);
    if (*n == *cap) {
        size_t cap2 = *cap ? 2 * *cap : 16;
        int64_t *grown = realloc(*values, cap2 * sizeof *grown);
        if (!grown)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        *values = grown;
        *cap = cap2;
    }
    (*values)[(*n)++] = v;
    return KT_S_OK;
}

/* "A..B step ×K" or "A..B step +K" (or "step K"); text holds "..". */
static kt_status parse_range(char *text, int64_t **values, size_t *n,
                             size_t *cap, kt_err *err)
{
    char *dots = strstr(text, ".."), *step = strstr(dots + 2, "step"), *k;
    int64_t lo, hi, by;
    int times = 0;

    if (!step)
        return kt_err_set(err, KT_S_INPUT,
                          "'%s': a range needs a step, e.g. 2^20..2^28 step "
                          "x4 (times 4) or 1000..5000 step +1000",
                          text);
    *dots = '\0';
    *step = '\0';
    k = skip_blanks(step + 4);
    if (times_sign(k)) {
        times = 1;
        k += times_sign(k);
    } else if (*k == '+') {
        ++k;
    }
    if (kt_parse_i64(text, "range start", &lo, err) ||
        kt_parse_i64(dots + 2, "range end", &hi, err) ||
        kt_parse_i64(k, "step", &by, err))
        return KT_S_INPUT;
    if (lo > hi)
        return kt_err_set(err, KT_S_INPUT,
                          "range start %lld is above its end %lld",
                          (long long)lo, (long long)hi);
    if ((times && by < 2) || (!times && by < 1))
        return kt_err_set(err, KT_S_INPUT, "step %s%lld: expected %s",
                          times ? "x" : "+", (long long)by,
                          times ? "a factor of 2 or more" : "1 or more");
    if (times && lo <= 0)
        return kt_err_set(err, KT_S_INPUT,
                          "a geometric range starts above 0, found %lld",
                          (long long)lo);
    for (int64_t v = lo;;) {
        kt_status rc = push(values, n, cap, v, 1, err);
        if (rc)
            return rc;
        if (times ? v > hi / by : v > hi - by)
            break;
        v = times ? v * by : v + by;
    }
    return KT_S_OK;
}

/* One tuple "AxBxC" of dims values. An x right after a leading 0 is a hex
 * prefix (0x400), not a separator. */
static kt_status parse_tuple(char *item, size_t dims, int64_t **values,
                             size_t *n, size_t *cap, kt_err *err)
{
    char *start = item, *lead = item;
    size_t got = 0;

    while (isspace((unsigned char)*lead))
        ++lead;
    for (char *c = item;; ++c) {
        size_t sign = *c ? times_sign(c) : 0;
        int hex = sign == 1 && *c != '*' && c == lead + 1 && *lead == '0';
        int64_t v;
        kt_status rc;
        if (*c && (!sign || hex))
            continue;
        if (got == dims)
            return kt_err_set(err, KT_S_INPUT,
                              "'%s': more than %zu values in a tuple", item,
                              dims);
        {
            char keep = *c;
            *c = '\0';
            rc = kt_parse_i64(start, "size", &v, err);
            *c = keep;
        }
        if (rc || (rc = push(values, n, cap, v, dims, err)))
            return rc;
        ++got;
        if (!*c)
            break;
        c += sign - 1;
        start = lead = c + 1;
        while (isspace((unsigned char)*lead))
            ++lead;
    }
    if (got != dims)
        return kt_err_set(err, KT_S_INPUT,
                          "'%s': expected %zu values joined by x, found %zu",
                          item, dims, got);
    return KT_S_OK;
}

kt_status kt_sizespec_parse(const char *text, size_t dims, int64_t **values,
                            size_t *count, kt_err *err)
{
    char **items = NULL;
    size_t num_items = 0, n = 0, cap = 0;
    kt_status rc = KT_S_OK;

    *values = NULL;
    *count = 0;
    if (!text || !*text)
        return kt_err_set(err, KT_S_INPUT, "expected a size, found nothing");
    if ((rc = kt_parse_list(text, &items, &num_items, err)))
        return rc;
    for (size_t i = 0; i < num_items && !rc; ++i) {
        if (!*items[i])
            rc = kt_err_set(err, KT_S_INPUT, "'%s': an empty item", text);
        else if (strstr(items[i], "..") && dims == 1)
            rc = parse_range(items[i], values, &n, &cap, err);
        else if (strstr(items[i], ".."))
            rc = kt_err_set(err, KT_S_INPUT,
                            "'%s': a joint key takes a list of tuples "
                            "(1024x4096, ...), not a range; give each "
                            "size its own key to sweep a range",
                            items[i]);
        else if (dims == 1) {
            int64_t v;
            if (!(rc = kt_parse_i64(items[i], "size", &v, err)))
                rc = push(values, &n, &cap, v, 1, err);
        } else
            rc = parse_tuple(items[i], dims, values, &n, &cap, err);
    }
    free(items);
    if (rc) {
        free(*values);
        *values = NULL;
        return rc;
    }
    *count = n / dims;
    return KT_S_OK;
}
