// SPDX-License-Identifier: Apache-2.0
#include "report/escape.h"

#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (1 to 4), or 0 when the
 * bytes there are not one (overlong forms, surrogates and code points above
 * U+10FFFF included). */
static size_t utf8_length(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n;
    unsigned long cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; ++i) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return 0;
    return n;
}

/* The replacement of the character at s: a reference, "" (dropped), or
 * NULL when it is copied as is; *len receives how many bytes it covers. */
static const char *replacement(const unsigned char *s, size_t *len)
{
    *len = utf8_length(s);
    if (*len == 0) {
        *len = 1;
        return "\xEF\xBF\xBD"; /* U+FFFD */
    }
    switch (s[0]) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    case '\t':
    case '\n': return NULL;
    }
    if (s[0] < 0x20 || s[0] == 0x7F)
        return "";
    return NULL;
}

void kt_esc_write(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)text, *run = s;
    size_t len;

    if (!text)
        return;
    /* Characters copied as they are go out as one run, not one fwrite
     * (and one lock of the stream) each. */
    while (*s) {
        const char *r = replacement(s, &len);
        if (r) {
            fwrite(run, 1, (size_t)(s - run), out);
            fputs(r, out);
            run = s + len;
        }
        s += len;
    }
    fwrite(run, 1, (size_t)(s - run), out);
}

size_t kt_esc_string(const char *text, char *out, size_t out_size)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t need = 0, len, piece_len;
    int full = 0;

    if (out_size)
        out[0] = '\0';
    if (!text)
        return 0;
    while (*s) {
        const char *r = replacement(s, &len);
        const char *piece = r ? r : (const char *)s;
        piece_len = r ? strlen(r) : len;
        /* Whole characters only: a truncated result stays well formed. */
        if (!full && need + piece_len < out_size) {
            memcpy(out + need, piece, piece_len);
            out[need + piece_len] = '\0';
        } else {
            full = 1;
        }
        need += piece_len;
        s += len;
    }
    return need;
}
