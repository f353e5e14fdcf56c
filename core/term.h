// SPDX-License-Identifier: Apache-2.0
/*
 * Text that fits the terminal: the width to fit, lines wrapped at spaces,
 * and tables whose low-priority columns are left out (and said to be) when
 * the width cannot hold them. Nothing is cut: a wrapped line goes on, a
 * column left out is named.
 */
#ifndef KT_TERM_H
#define KT_TERM_H

#include <stddef.h>
#include <stdio.h>

/* The narrowest width fitted to; a terminal or COLUMNS below it is
 * fitted to this. */
#define KT_TERM_MIN_WIDTH 40

/* The width text written to out should fit: the terminal's (TIOCGWINSZ)
 * when out is a terminal, else COLUMNS when it is a whole number of at
 * least 1 (at most 100000), else 80; never below KT_TERM_MIN_WIDTH. */
int kt_term_width(FILE *out);

/* s (may be NULL) made safe to print: every control character but newline
 * and tab, DEL and the C1 controls (UTF-8 0xc2 0x80..0x9f) written '?', so
 * text read from a file cannot move the cursor, retitle the terminal or
 * hide what precedes it. */
void kt_term_sanitize(char *s);

/* Writes text (len bytes; lines end in '\n') to out with each line longer
 * than width wrapped at its spaces: a continuation line is indented by the
 * line's own indent plus 4 (at most half the width). A word longer than
 * the room left (a path) is split where the room ends and goes on in the
 * next line; nothing is left out. width <= 0 writes text as is. */
void kt_term_wrap(FILE *out, const char *text, size_t len, int width);

/* A table: columns of cells, each column as wide as its widest cell or
 * heading. Built row by row, printed to a width: while the columns do not
 * fit (the last with at least KT_TERM_ROOM columns), the column of the
 * highest drop rank is left out, and a line under the table names those
 * left out. A column with nothing in it is not shown. The last column is
 * written left-aligned and wrapped at its spaces under itself, or on a
 * line of its own (indent + 4) when less than KT_TERM_ROOM / 2 columns are
 * left for it; a right-aligned last column (a count) is never wrapped. */
#define KT_TERM_ROOM 20
#define KT_TERM_MAX_COLS 16

typedef struct kt_term_col {
    const char *head;
    int right; /* right-aligned (numbers) */
    int drop;  /* 0: never left out; higher ranks are left out first */
} kt_term_col;

typedef struct kt_term_table {
    const kt_term_col *cols;
    size_t ncols;
    char **cells; /* nrows * ncols, owned */
    size_t nrows, cap;
    int failed; /* out of memory: the table prints what it holds */
} kt_term_table;

/* cols (ncols <= KT_TERM_MAX_COLS) must outlive the table. */
void kt_term_table_init(kt_term_table *t, const kt_term_col *cols,
                        size_t ncols);

/* Appends a row of ncols cells (copied). */
void kt_term_table_add(kt_term_table *t, const char *const *cells);

/* Prints heading and rows, each line starting with indent spaces, to fit
 * width (<= 0: no limit). */
void kt_term_table_print(FILE *out, const kt_term_table *t, int indent,
                         int width);

void kt_term_table_free(kt_term_table *t);

#endif
