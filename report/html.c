// SPDX-License-Identifier: Apache-2.0
#include "report/html.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/scale.h"

/* Arrays of scalars longer than this are shortened in tables. */
#define KT_HTML_ARRAY_MAX 16

void kt_html_escf(FILE *out, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    kt_esc_write(out, buf);
}

void kt_html_group(double v, int decimals, char *out, size_t out_size)
{
    char digits[128], *dot;
    size_t int_len, pos = 0;
    const char *p;

    if (!isfinite(v)) {
        snprintf(out, out_size, "\xE2\x80\x93");
        return;
    }
    if (decimals < 0)
        decimals = 0;
    snprintf(digits, sizeof digits, "%.*f", decimals, fabs(v));
    dot = strchr(digits, '.');
    int_len = dot ? (size_t)(dot - digits) : strlen(digits);
    /* "-0.00" is printed as "0.00". */
    if (v < 0 && strspn(digits, "0.") != strlen(digits) && pos + 1 < out_size)
        out[pos++] = '-';
    for (p = digits; *p && pos + 1 < out_size; ++p) {
        size_t i = (size_t)(p - digits);
        if (i > 0 && i < int_len && (int_len - i) % 3 == 0) {
            out[pos++] = ',';
            if (pos + 1 >= out_size)
                break;
        }
        out[pos++] = *p;
    }
    if (out_size)
        out[pos < out_size ? pos : out_size - 1] = '\0';
}

void kt_html_sig(double v, int digits, char *out, size_t out_size)
{
    int decimals = 0;
    if (isfinite(v) && v != 0) {
        decimals = digits - 1 - (int)floor(log10(fabs(v)));
        if (decimals < 0)
            decimals = 0;
        if (decimals > 8)
            decimals = 8;
    }
    kt_html_group(v, decimals, out, out_size);
}

void kt_html_change(double ratio, char *out, size_t out_size)
{
    char num[64];
    double pct = (ratio - 1) * 100;
    if (!isfinite(pct)) {
        snprintf(out, out_size, "\xE2\x80\x93");
        return;
    }
    kt_html_sig(fabs(pct), fabs(pct) >= 1 ? 3 : 2, num, sizeof num);
    /* U+2212 MINUS SIGN reads better than a hyphen in tables. */
    snprintf(out, out_size, "%s%s%%",
             pct < 0 && strspn(num, "0.") != strlen(num) ? "\xE2\x88\x92" : "+",
             num);
}

/* ------------------------------------------------------------ kv tables */

static int skipped(const char *key, const char *const *skip)
{
    for (; skip && *skip; ++skip)
        if (strcmp(key, *skip) == 0)
            return 1;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void scalar(FILE *out, const char *key, const json_t *v)
{
    char num[64];
    if (json_is_string(v)) {
        kt_esc_write(out, json_string_value(v));
        return;
    }
    if (json_is_true(v)) {
        fputs("yes", out);
        return;
    }
    if (json_is_false(v)) {
        fputs("no", out);
        return;
    }
    if (!json_is_number(v)) {
        fputs("\xE2\x80\x93", out);
        return;
    }
    /* A number never breaks inside, even in a cell that breaks anywhere
     * (span.num: nowrap); a list of them breaks after its commas. */
    fputs("<span class=\"num\">", out);
    if (json_is_integer(v))
        fprintf(out, "%lld", (long long)json_integer_value(v));
    else if (fabs(json_real_value(v)) < 1e15 &&
             json_real_value(v) == floor(json_real_value(v)))
        fprintf(out, "%.0f", json_real_value(v)); /* 1073741824, not 1.07e+09 */
    else
        fprintf(out, "%.6g", json_real_value(v));
    if (key && ends_with(key, "_bytes") && json_number_value(v) >= 1024) {
        kt_scale_fmt_bytes(json_number_value(v), num, sizeof num);
        fprintf(out, " (%s)", num);
    }
    fputs("</span>", out);
}

static int all_of(const json_t *arr, int objects)
{
    size_t i;
    const json_t *x;
    json_array_foreach ((json_t *)arr, i, x)
        if (objects ? !json_is_object(x)
                    : json_is_object(x) || json_is_array(x))
            return 0;
    return 1;
}

static void value(FILE *out, const char *key, const json_t *v);

/* An array of objects: one column per key any of them has. */
static void object_rows(FILE *out, const json_t *arr)
{
    json_t *cols = json_object();
    size_t i;
    const json_t *x, *c;
    const char *k;

    json_array_foreach ((json_t *)arr, i, x)
        json_object_foreach ((json_t *)x, k, c)
            json_object_set_new(cols, k, json_true());
    fputs("<table class=\"rows\"><thead><tr>", out);
    json_object_foreach (cols, k, c) {
        fputs("<th>", out);
        kt_esc_write(out, k);
        fputs("</th>", out);
    }
    fputs("</tr></thead><tbody>", out);
    json_array_foreach ((json_t *)arr, i, x) {
        fputs("<tr>", out);
        json_object_foreach (cols, k, c) {
            fputs(json_is_number(json_object_get(x, k)) ? "<td class=\"num\">"
                                                        : "<td>",
                  out);
            if (json_object_get(x, k))
                value(out, k, json_object_get(x, k));
            fputs("</td>", out);
        }
        fputs("</tr>", out);
    }
    fputs("</tbody></table>", out);
    json_decref(cols);
}

static void value(FILE *out, const char *key, const json_t *v)
{
    size_t i, n;
    const json_t *x;
    if (json_is_object(v)) {
        kt_html_kv_table(out, v, NULL);
    } else if (json_is_array(v) && json_array_size(v) && all_of(v, 1)) {
        object_rows(out, v);
    } else if (json_is_array(v)) {
        n = json_array_size(v);
        /* span.list: broken after its commas only. */
        fputs("<span class=\"list\">", out);
        json_array_foreach ((json_t *)v, i, x) {
            if (i == KT_HTML_ARRAY_MAX) {
                fprintf(out, ", \xE2\x80\xA6 (%zu values)", n);
                break;
            }
            if (i)
                fputs(", ", out);
            if (json_is_object(x) || json_is_array(x))
                fputs("[\xE2\x80\xA6]", out);
            else
                scalar(out, NULL, x);
        }
        if (!n)
            fputs("(none)", out);
        fputs("</span>", out);
    } else {
        scalar(out, key, v);
    }
}

void kt_html_kv_table(FILE *out, const json_t *obj, const char *const *skip)
{
    const char *k;
    const json_t *v;
    fputs("<table class=\"kv\"><tbody>\n", out);
    json_object_foreach ((json_t *)obj, k, v) {
        if (skipped(k, skip))
            continue;
        fputs("<tr><th>", out);
        kt_esc_write(out, k);
        fputs(json_is_number(v) ? "</th><td class=\"num\">" : "</th><td>", out);
        value(out, k, v);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}
