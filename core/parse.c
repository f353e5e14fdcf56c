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

kt_status kt_parse_i64(const char *text, const char *what, int64_t *out,
                       kt_err *err)
{
    const char *caret;
    char *end = NULL;
    long long value;

    if (!text || !*text)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: expected an integer, found "
                          "nothing",
                          what);
    caret = strchr(text, '^');
    if (caret) {
        int64_t base, exponent, result = 1;
        char head[32];
        size_t len = (size_t)(caret - text);
        if (len == 0 || len >= sizeof head)
            goto bad;
        memcpy(head, text, len);
        head[len] = '\0';
        if (kt_parse_i64(head, what, &base, NULL) ||
            kt_parse_i64(caret + 1, what, &exponent, NULL) || exponent < 0)
            goto bad;
        for (int64_t i = 0; i < exponent; ++i) {
            if (base != 0 && llabs(result) > INT64_MAX / llabs(base))
                return kt_err_set(err, KT_S_INPUT,
                                  "%s: '%s' does not fit in "
                                  "64 bits",
                                  what, text);
            result *= base;
        }
        *out = result;
        return KT_S_OK;
    }
    errno = 0;
    value = strtoll(text, &end, 0);
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
