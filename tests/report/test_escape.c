// SPDX-License-Identifier: Apache-2.0
/* Every text a report writes goes through one escaping function: markup
 * characters become references, control characters go, malformed UTF-8
 * becomes U+FFFD, well-formed UTF-8 stays as it is. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "report/escape.h"

/* kt_esc_write's output as a string (caller frees). */
static char *written(const char *text)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    kt_esc_write(f, text);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void expect(const char *in, const char *want)
{
    char *got = written(in), small[512];
    assert_string_equal(got, want);
    /* Both entry points agree, and the string one reports the length. */
    assert_int_equal(kt_esc_string(in, small, sizeof small), strlen(want));
    assert_string_equal(small, want);
    free(got);
}

static void markup_characters_become_references(void **state)
{
    (void)state;
    expect("<script>alert('x')</script>",
           "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
    expect("a & b", "a &amp; b");
    expect("\"quoted\" attr", "&quot;quoted&quot; attr");
    expect("&amp;", "&amp;amp;"); /* text is never taken as markup */
    expect("plain text", "plain text");
    expect("", "");
}

static void controls_are_dropped_but_tabs_and_newlines_kept(void **state)
{
    (void)state;
    expect("a\x01"
           "b\x1b[31mc\x7f",
           "ab[31mc");
    expect("line\nnext\ttab", "line\nnext\ttab");
}

static void utf8_is_kept_and_malformed_bytes_replaced(void **state)
{
    (void)state;
    expect("\xC2\xB5s \xE2\x80\x93 \xF0\x9F\x99\x82", /* µs – 🙂 */
           "\xC2\xB5s \xE2\x80\x93 \xF0\x9F\x99\x82");
    expect("bad \xFF byte", "bad \xEF\xBF\xBD byte");
    expect("cut \xE2\x80", "cut \xEF\xBF\xBD\xEF\xBF\xBD");
    expect("overlong \xC0\xBC", "overlong \xEF\xBF\xBD\xEF\xBF\xBD");
    expect("surrogate \xED\xA0\x80",
           "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    expect("too high \xF4\x90\x80\x80",
           "too high \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

static void truncation_keeps_whole_characters(void **state)
{
    char out[8];
    (void)state;
    /* "a&lt;" fits in 8 bytes with its NUL; the next reference does not. */
    assert_int_equal(kt_esc_string("a<<", out, sizeof out), 9);
    assert_string_equal(out, "a&lt;");
    assert_int_equal(
        kt_esc_string("\xC2\xB5\xC2\xB5\xC2\xB5\xC2\xB5", out, sizeof out), 8);
    assert_string_equal(out, "\xC2\xB5\xC2\xB5\xC2\xB5"); /* 3 whole µ */
    assert_int_equal(kt_esc_string("x", out, 0), 1);
}

static void null_writes_nothing(void **state)
{
    char out[4] = "zzz";
    char *got = written(NULL);
    (void)state;
    assert_string_equal(got, "");
    free(got);
    assert_int_equal(kt_esc_string(NULL, out, sizeof out), 0);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(markup_characters_become_references),
        cmocka_unit_test(controls_are_dropped_but_tabs_and_newlines_kept),
        cmocka_unit_test(utf8_is_kept_and_malformed_bytes_replaced),
        cmocka_unit_test(truncation_keeps_whole_characters),
        cmocka_unit_test(null_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
