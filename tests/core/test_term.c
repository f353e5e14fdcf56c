// SPDX-License-Identifier: Apache-2.0
/* Text that fits the terminal (core/term.h): wrapped lines keep every word,
 * a table leaves out its low-priority columns and says which, and the wide
 * form is the table unchanged. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/term.h"

/* What f(mem) wrote, NUL-terminated (the caller frees). */
static char *captured(FILE *mem, char **buf)
{
    assert_int_equal(fclose(mem), 0);
    return *buf;
}

static size_t widest(const char *text)
{
    size_t w = 0, n;
    while (*text) {
        n = strcspn(text, "\n");
        w = n > w ? n : w;
        text += n + (text[n] == '\n');
    }
    return w;
}

/* text without its spaces and line breaks: a wrap changes nothing else. */
static void squeezed(const char *text, char *out, size_t size)
{
    size_t k = 0;
    for (; *text && k + 1 < size; ++text)
        if (*text != ' ' && *text != '\n')
            out[k++] = *text;
    out[k] = '\0';
}

static void wrapping_keeps_every_word_within_the_width(void **state)
{
    const char *line =
        "strategy one_at_a_time, seed 1; stopped: converged: 3 variant(s) "
        "walked, the 1 within 10% of the best to a point no single change "
        "improves after 0.0 s (replay of "
        "/a/very/long/path/to/a/recording/that/cannot/be/broken.jsonl)\n"
        "short line\n";
    char *buf = NULL, a[1024], b[1024];
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    (void)state;

    kt_term_wrap(mem, line, strlen(line), 40);
    captured(mem, &buf);
    assert_true(widest(buf) <= 40);
    assert_contains(buf, "\n    "); /* continuations hang */
    assert_contains(buf, "\nshort line\n");
    /* Nothing but line breaks and indents added, the long word split. */
    squeezed(line, a, sizeof a);
    squeezed(buf, b, sizeof b);
    assert_string_equal(a, b);
    assert_contains(buf, "\n    /a/very/long/path/to/a/recording/tha\n");
    free(buf);
    /* No limit: as is. */
    buf = NULL;
    mem = open_memstream(&buf, &len);
    kt_term_wrap(mem, line, strlen(line), 0);
    captured(mem, &buf);
    assert_string_equal(buf, line);
    free(buf);
}

static const kt_term_col cols[] = {{"rank", 1, 0},
                                   {"median us", 1, 0},
                                   {"95% CI", 1, 2},
                                   {"bandwidth", 0, 3},
                                   {"configuration", 0, 0}};

static char *table_at(int width)
{
    kt_term_table t;
    const char *r1[] = {"1", "728.864", "[728.512, 729.312]",
                        "4419.5 GB/s, 103.2% of copy",
                        "vec4 block=1024 items=1"};
    const char *r2[] = {"10", "876.096", "[875.648, 876.896]",
                        "3676.8 GB/s, 85.9% of copy",
                        "grid_stride block=512 blocks_per_sm=4 "
                        "and=a long tail of parameters"};
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);

    kt_term_table_init(&t, cols, 5);
    kt_term_table_add(&t, r1);
    kt_term_table_add(&t, r2);
    kt_term_table_print(mem, &t, 2, width);
    kt_term_table_free(&t);
    return captured(mem, &buf);
}

static void a_narrow_table_leaves_out_columns_and_says_so(void **state)
{
    char *wide = table_at(200), *narrow = table_at(80), *tiny = table_at(50);
    (void)state;

    /* Wide: every column, one line a row, no note. */
    assert_contains(wide, "  rank  median us              95% CI  bandwidth");
    assert_contains(wide, "4419.5 GB/s, 103.2% of copy  vec4 block=1024");
    assert_null(strstr(wide, "left out"));
    /* 80: the bandwidth goes first, and the note names it. */
    assert_true(widest(narrow) <= 80);
    assert_null(strstr(narrow, "GB/s"));
    assert_contains(narrow, "[875.648, 876.896]");
    assert_contains(narrow, "left out to fit 80 columns: bandwidth;");
    /* 50: the interval too; the long configuration wraps under itself. */
    assert_true(widest(tiny) <= 50);
    assert_null(strstr(tiny, "[728.512"));
    assert_contains(tiny, "95% CI, bandwidth");
    assert_contains(tiny, "\n                   ");
    assert_contains(tiny, "876.096");
    free(wide);
    free(narrow);
    free(tiny);
}

static void columns_comes_from_the_environment_when_not_a_terminal(void **state)
{
    FILE *f = tmpfile();
    (void)state;
    assert_non_null(f);
    setenv("COLUMNS", "132", 1);
    assert_int_equal(kt_term_width(f), 132);
    setenv("COLUMNS", "10", 1); /* fitted to the narrowest */
    assert_int_equal(kt_term_width(f), KT_TERM_MIN_WIDTH);
    setenv("COLUMNS", "12x", 1);
    assert_int_equal(kt_term_width(f), 80);
    setenv("COLUMNS", "-5", 1);
    assert_int_equal(kt_term_width(f), 80);
    unsetenv("COLUMNS");
    assert_int_equal(kt_term_width(f), 80);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wrapping_keeps_every_word_within_the_width),
        cmocka_unit_test(a_narrow_table_leaves_out_columns_and_says_so),
        cmocka_unit_test(
            columns_comes_from_the_environment_when_not_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
