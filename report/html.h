// SPDX-License-Identifier: Apache-2.0
/*
 * Small pieces of HTML writing shared by the report's sections: escaped
 * formatted text, grouped numbers, and a generic view of a JSON object as
 * a key/value table (so fields a newer ktune adds to a record still show).
 */
#ifndef KT_SUMMARY_HTML_H
#define KT_SUMMARY_HTML_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* printf into a buffer, then escaped to out. */
void kt_html_escf(FILE *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* v with `decimals` decimals and thousands grouped by commas ("4,225.7");
 * "–" (an en dash) when v is not finite. */
void kt_html_group(double v, int decimals, char *out, size_t out_size);

/* v with about `digits` significant digits, grouped: 733.18, 5,042.9,
 * 0.0833; "–" when not finite. */
void kt_html_sig(double v, int digits, char *out, size_t out_size);

/* Percent change of a time ratio: 0.78 -> "−22.0%", 1.0017 -> "+0.17%". */
void kt_html_change(double ratio, char *out, size_t out_size);

/* A JSON object as <table class="kv">: one row per field, nested objects
 * as nested tables, arrays of scalars joined, arrays of objects as a table
 * with one column per key. Fields named in skip (NULL-terminated, may be
 * NULL) are left out. Byte counts (keys ending in "_bytes") also show in
 * binary units. */
void kt_html_kv_table(FILE *out, const json_t *obj, const char *const *skip);

#endif
