// SPDX-License-Identifier: Apache-2.0
#include "core/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

char *kt_parse_trim(char *s)
{
    char *end;
    while (isspace((unsigned char)*s))
        ++s;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* base^exponent with every multiplication checked; bases 0, 1 and -1 are
 * answered directly so a huge exponent costs nothing. 1 on overflow. */
static int power(int64_t base, int64_t exponent, int64_t *out)
{
    int64_t result = 1;

    if (base == 0 || base == 1) {
        *out = exponent == 0 ? 1 : base;
        return 0;
    }
    if (base == -1) {
        *out = exponent % 2 ? -1 : 1;
        return 0;
    }
    /* |base| >= 2: at most 63 multiplications before overflow. */
    for (int64_t i = 0; i < exponent; ++i)
        if (__builtin_mul_overflow(result, base, &result))
            return 1;
    *out = result;
    return 0;
}

kt_status kt_parse_i64(const char *text, const char *what, int64_t *out,
                       kt_err *err)
{
    const char *caret;
    char *end = NULL;
    long long value;
    int base;

    if (!text || !*text)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: expected an integer, found "
                          "nothing",
                          what);
    caret = strchr(text, '^');
    if (caret) {
        int64_t radix, exponent;
        char head[32];
        size_t len = (size_t)(caret - text);
        if (len == 0 || len >= sizeof head)
            goto bad;
        memcpy(head, text, len);
        head[len] = '\0';
        if (kt_parse_i64(head, what, &radix, NULL) ||
            kt_parse_i64(caret + 1, what, &exponent, NULL) || exponent < 0)
            goto bad;
        if (power(radix, exponent, out))
            return kt_err_set(err, KT_S_INPUT,
                              "%s: '%s' does not fit in 64 bits", what, text);
        return KT_S_OK;
    }
    /* Decimal unless 0x: strtoll's base 0 would read "010" as octal 8. */
    {
        const char *digits = text;
        while (isspace((unsigned char)*digits))
            ++digits;
        if (*digits == '+' || *digits == '-')
            ++digits;
        base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16
                                                                          : 10;
    }
    errno = 0;
    value = strtoll(text, &end, base);
    if (errno == ERANGE)
        return kt_err_set(err, KT_S_INPUT, "%s: '%s' does not fit in 64 bits",
                          what, text);
    while (end && isspace((unsigned char)*end))
        ++end;
    if (end == text || !end || *end)
        goto bad;
    *out = value;
    return KT_S_OK;
bad:
    return kt_err_set(err, KT_S_INPUT,
                      "%s: expected an integer (e.g. 256, "
                      "0x100 or 2^8), found '%s'",
                      what, text);
}

kt_status kt_parse_double(const char *text, const char *what, double *out,
                          kt_err *err)
{
    char *end = NULL;
    double value;

    errno = 0;
    value = text ? strtod(text, &end) : 0.0;
    while (end && isspace((unsigned char)*end))
        ++end;
    if (!text || end == text || !end || *end || errno == ERANGE ||
        !isfinite(value))
        return kt_err_set(err, KT_S_INPUT, "%s: expected a number, found '%s'",
                          what, text ? text : "");
    *out = value;
    return KT_S_OK;
}

kt_status kt_parse_list(const char *text, char ***items, size_t *count,
                        kt_err *err)
{
    size_t n = 1, len;
    char **ptrs;
    char *copy, *cursor;

    /* On failure the caller has nothing to free. */
    *items = NULL;
    *count = 0;
    if (!text || !*text)
        return kt_err_set(err, KT_S_INPUT,
                          "expected a list (a, b, ...), "
                          "found nothing");
    len = strlen(text);
    for (const char *p = text; *p; ++p)
        n += *p == ',';
    ptrs = malloc(n * sizeof *ptrs + len + 1);
    if (!ptrs)
        return kt_err_set(err, KT_S_NOMEM, "out of memory parsing a list");
    copy = (char *)(ptrs + n);
    memcpy(copy, text, len + 1);
    cursor = copy;
    for (size_t i = 0; i < n; ++i) {
        char *comma = strchr(cursor, ',');
        if (comma)
            *comma = '\0';
        ptrs[i] = kt_parse_trim(cursor);
        if (!*ptrs[i]) {
            free(ptrs);
            return kt_err_set(err, KT_S_INPUT, "empty item %zu in list '%s'",
                              i + 1, text);
        }
        cursor = comma ? comma + 1 : cursor + strlen(cursor);
    }
    *items = ptrs;
    *count = n;
    return KT_S_OK;
}

kt_status kt_parse_assignment(char *buf, char **name, char **value, kt_err *err)
{
    char *eq = strchr(buf, '=');
    if (!eq)
        return kt_err_set(err, KT_S_INPUT, "expected name=value, found '%s'",
                          buf);
    *eq = '\0';
    *name = kt_parse_trim(buf);
    *value = kt_parse_trim(eq + 1);
    if (!**name)
        return kt_err_set(err, KT_S_INPUT,
                          "expected name=value, found an "
                          "empty name in '=%s'",
                          *value);
    return KT_S_OK;
}
