// SPDX-License-Identifier: Apache-2.0
#include "core/term.h"
#include "core/settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int kt_term_width(FILE *out)
{
    struct winsize ws;
    kt_settings set;
    const char *env = (kt_settings_read(&set), set.columns);
    int fd = out ? fileno(out) : -1, width = 80;
    char *end;
    long v;

    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 &&
        ws.ws_col > 0)
        width = ws.ws_col;
    else if (env && *env) {
        errno = 0;
        v = strtol(env, &end, 10);
        if (!errno && *end == '\0' && v >= 1 && v <= 100000)
            width = (int)v;
    }
    return width < KT_TERM_MIN_WIDTH ? KT_TERM_MIN_WIDTH : width;
}

void kt_term_sanitize(char *s)
{
    for (unsigned char *p = (unsigned char *)s; p && *p; ++p) {
        if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
            *p = '?';
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            p[0] = '?';
            p[1] = '?';
            ++p;
        }
    }
}

static size_t leading_spaces(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        ++i;
    return i;
}

/* The columns s[0..n) takes on a terminal: a UTF-8 sequence takes one. */
static size_t text_cols(const char *s, size_t n)
{
    size_t cols = 0;
    for (size_t i = 0; i < n; ++i)
        cols += ((unsigned char)s[i] & 0xC0) != 0x80;
    return cols;
}

static int starts_char(char c)
{
    return ((unsigned char)c & 0xC0) != 0x80;
}

/* Where a piece of s[0..n) that starts at column `at` should end to fit
 * width: after its last word that ends by the width; when none does, the
 * first word is split where the width ends (a path; a number is never that
 * long), at one character at least. */
static size_t piece_end(const char *s, size_t n, size_t at, int width)
{
    size_t room = (size_t)width > at ? (size_t)width - at : 0, col = 0;
    size_t end = 0, i;

    if (text_cols(s, n) <= room)
        return n;
    for (i = 0; i < n; ++i) {
        if (!starts_char(s[i]))
            continue;
        if (s[i] == ' ' && i > 0 && s[i - 1] != ' ')
            end = i;
        if (col++ == room)
            break;
    }
    if (end)
        return end;
    if (i == 0) /* no room at all: one character */
        for (i = 1; i < n && !starts_char(s[i]); ++i)
            ;
    return i;
}

/* One line (no newline) wrapped to width, continuations indented by
 * `cont`; the first piece starts at column `at` (its text already there). */
static void wrap_from(FILE *out, const char *s, size_t n, size_t at,
                      size_t cont, int width)
{
    for (;;) {
        size_t end = piece_end(s, n, at, width);
        fwrite(s, 1, end, out);
        fputc('\n', out);
        while (end < n && s[end] == ' ')
            ++end;
        s += end;
        n -= end;
        if (!n)
            return;
        fprintf(out, "%*s", (int)cont, "");
        at = cont;
    }
}

void kt_term_wrap(FILE *out, const char *text, size_t len, int width)
{
    while (len) {
        const char *nl = memchr(text, '\n', len);
        size_t n = nl ? (size_t)(nl - text) : len, ind, cont;

        if (width <= 0 || text_cols(text, n) <= (size_t)width) {
            fwrite(text, 1, n, out);
            fputc('\n', out);
        } else {
            ind = leading_spaces(text, n);
            cont = ind + 4 < (size_t)width / 2 ? ind + 4 : (size_t)width / 2;
            fwrite(text, 1, ind, out);
            wrap_from(out, text + ind, n - ind, ind, cont, width);
        }
        if (!nl)
            return;
        text += n + 1;
        len -= n + 1;
    }
}

void kt_term_table_init(kt_term_table *t, const kt_term_col *cols, size_t ncols)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->ncols = ncols < KT_TERM_MAX_COLS ? ncols : KT_TERM_MAX_COLS;
}

void kt_term_table_add(kt_term_table *t, const char *const *cells)
{
    if (t->failed)
        return;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **grown = realloc(t->cells, cap * t->ncols * sizeof *grown);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->cells = grown;
        t->cap = cap;
    }
    for (size_t c = 0; c < t->ncols; ++c) {
        char *copy = strdup(cells[c] ? cells[c] : "");
        t->cells[t->nrows * t->ncols + c] = copy;
        t->failed |= copy == NULL;
    }
    ++t->nrows;
}

/* The columns' widths, and which are shown at width: on[c] 1 shown, 0
 * empty (nothing in it: not shown, not said), -1 left out to fit. */
static void layout(const kt_term_table *t, int indent, int width, size_t *w,
                   int *on)
{
    size_t last = t->ncols - 1;

    for (size_t c = 0; c < t->ncols; ++c) {
        w[c] = text_cols(t->cols[c].head, strlen(t->cols[c].head));
        on[c] = c == last; /* a column with nothing in it is not shown */
        for (size_t r = 0; r < t->nrows; ++r) {
            const char *s = t->cells[r * t->ncols + c];
            if (s && text_cols(s, strlen(s)) > w[c])
                w[c] = text_cols(s, strlen(s));
            on[c] |= s && *s;
        }
    }
    for (;;) {
        size_t used = (size_t)indent, worst = 0;
        int rank = 0;
        for (size_t c = 0; c < last; ++c)
            used += on[c] > 0 ? w[c] + 2 : 0;
        used += w[last] < KT_TERM_ROOM ? w[last] : KT_TERM_ROOM;
        if (width <= 0 || used <= (size_t)width)
            return;
        for (size_t c = 0; c < t->ncols; ++c)
            if (on[c] > 0 && t->cols[c].drop > rank) {
                rank = t->cols[c].drop;
                worst = c;
            }
        if (!rank)
            return; /* nothing left to leave out: the last column wraps */
        on[worst] = -1;
    }
}

static void print_row(FILE *out, const kt_term_table *t, const char *const *row,
                      const size_t *w, const int *on, int indent, int width)
{
    size_t last = t->ncols - 1, at = (size_t)indent, n, pad = 0;
    const char *tail = row[last] ? row[last] : "";
    int first = 1;

    /* A left-aligned cell's padding is written only when another cell
     * follows it on the line: no line ends in spaces. */
    fprintf(out, "%*s", indent, "");
    for (size_t c = 0; c < last; ++c) {
        const char *cell = row[c] ? row[c] : "";
        size_t cols = text_cols(cell, strlen(cell));
        if (on[c] <= 0)
            continue;
        pad += first ? 0 : 2;
        if (t->cols[c].right)
            pad += w[c] > cols ? w[c] - cols : 0;
        fprintf(out, "%*s%s", (int)pad, "", cell);
        pad = t->cols[c].right || w[c] <= cols ? 0 : w[c] - cols;
        at += (first ? 0 : 2) + w[c];
        first = 0;
    }
    pad += first ? 0 : 2;
    at += first ? 0 : 2;
    n = strlen(tail);
    if (!n) {
        fputc('\n', out);
        return;
    }
    if (t->cols[last].right) {
        size_t cols = text_cols(tail, n);
        fprintf(out, "%*s%s\n",
                (int)(pad + (w[last] > cols ? w[last] - cols : 0)), "", tail);
        return;
    }
    if (width <= 0 || at + text_cols(tail, n) <= (size_t)width) {
        fprintf(out, "%*s%s\n", (int)pad, "", tail);
        return;
    }
    if (at + KT_TERM_ROOM / 2 > (size_t)width) {
        /* Too little room left: the last column on a line of its own. */
        at = (size_t)indent + 4;
        fprintf(out, "\n%*s", (int)at, "");
    } else {
        fprintf(out, "%*s", (int)pad, "");
    }
    wrap_from(out, tail, n, at, at, width);
}

void kt_term_table_print(FILE *out, const kt_term_table *t, int indent,
                         int width)
{
    size_t w[KT_TERM_MAX_COLS];
    int on[KT_TERM_MAX_COLS];
    const char *heads[KT_TERM_MAX_COLS];
    char note[512] = "";
    size_t used = 0;

    if (!t->ncols)
        return;
    layout(t, indent, width, w, on);
    for (size_t c = 0; c < t->ncols; ++c) {
        heads[c] = t->cols[c].head;
        if (on[c] < 0 && used < sizeof note)
            used += (size_t)snprintf(note + used, sizeof note - used, "%s%s",
                                     used ? ", " : "", t->cols[c].head);
    }
    print_row(out, t, heads, w, on, indent, width);
    for (size_t r = 0; r < t->nrows; ++r)
        print_row(out, t, (const char *const *)&t->cells[r * t->ncols], w, on,
                  indent, width);
    if (note[0]) {
        char line[700];
        int n = snprintf(line, sizeof line,
                         "%*s(left out to fit %d columns: %s; a wider "
                         "terminal or COLUMNS=N shows them)\n",
                         indent, "", width, note);
        kt_term_wrap(out, line, n < (int)sizeof line ? (size_t)n : sizeof line,
                     width);
    }
}

void kt_term_table_free(kt_term_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; ++i)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
