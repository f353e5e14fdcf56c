// SPDX-License-Identifier: Apache-2.0
/* libktune-select: the exact entry when there is one; else the nearest by
 * the documented rule (same device, then same compute capability; log-space
 * distance; the larger problem on a tie) on a table of cases; "no wisdom"
 * for other architectures, operators and dimensions; bad arguments are
 * codes; damaged and hostile files (truncated, wrong types, huge numbers,
 * duplicates, long lines, deep nesting) are refused whole with their line,
 * never a crash; a million entries read and answer in bounded time; many
 * threads select from one handle at once. */
#include "tests/kt_test.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ktune/select.h"

static const char table[] =
    "{\"ktune_wisdom\":1,\"entries\":7}\n"
    "{\"operator\":\"a:add\",\"device\":\"NVIDIA H200\",\"cc\":\"9.0\","
    "\"sizes\":{\"n\":1048576},\"variant\":\"vec4\","
    "\"params\":{\"block\":64,\"items\":2},\"time_us\":7.5,"
    "\"ci_us\":[7.4,7.6],\"plugin_version\":\"1.0\",\"ktune\":\"0.1.0\","
    "\"date\":\"2026-12-01T08:00:00Z\"}\n"
    "{\"operator\":\"a:add\",\"device\":\"NVIDIA H200\",\"cc\":\"9.0\","
    "\"sizes\":{\"n\":16777216},\"variant\":\"vec4\","
    "\"params\":{\"block\":256,\"items\":1}}\n"
    "{\"operator\":\"a:add\",\"device\":\"NVIDIA H100 80GB HBM3\","
    "\"cc\":\"9.0\",\"sizes\":{\"n\":4194304},\"variant\":\"coalesced\","
    "\"params\":{\"block\":128}}\n"
    "{\"operator\":\"a:add\",\"device\":\"NVIDIA A100-SXM4-80GB\","
    "\"cc\":\"8.0\",\"sizes\":{\"n\":4194304},\"variant\":\"coalesced\","
    "\"params\":{\"block\":512}}\n"
    "{\"operator\":\"g:ax\",\"device\":\"NVIDIA H200\",\"cc\":\"9.0\","
    "\"sizes\":{\"m\":1024,\"n\":1024},\"variant\":\"warp\","
    "\"params\":{\"block\":128}}\n"
    "{\"operator\":\"g:ax\",\"device\":\"NVIDIA H200\",\"cc\":\"9.0\","
    "\"sizes\":{\"m\":16384,\"n\":16384},\"variant\":\"warp\","
    "\"params\":{\"block\":256}}\n"
    "\n"
    "{\"operator\":\"g:ax\",\"device\":\"NVIDIA H200\",\"cc\":\"9.0\","
    "\"sizes\":{\"m\":65536,\"n\":4096},\"variant\":\"block\","
    "\"params\":{\"block\":512}}\n";

static kt_select_wisdom *open_table(void)
{
    kt_select_wisdom *w = NULL;
    kt_select_error e;
    int rc = kt_select_open_buffer(table, sizeof table - 1, "t.jsonl", &w, &e);
    if (rc)
        fail_msg("%s", e.msg);
    return w;
}

static void every_field_is_read(void **state)
{
    kt_select_wisdom *w = open_table();
    const kt_select_entry *e = kt_select_entry_at(w, 0);
    (void)state;
    assert_int_equal(kt_select_count(w), 7);
    assert_string_equal(e->op, "a:add");
    assert_string_equal(e->device, "NVIDIA H200");
    assert_int_equal(e->cc_major, 9);
    assert_int_equal(e->cc_minor, 0);
    assert_int_equal(e->num_sizes, 1);
    assert_string_equal(e->size_names[0], "n");
    assert_int_equal(e->sizes[0], 1048576);
    assert_string_equal(e->variant, "vec4");
    assert_int_equal(e->num_params, 2);
    assert_string_equal(e->params[1].name, "items");
    assert_int_equal(e->params[1].value, 2);
    assert_true(e->time_us == 7.5 && e->ci_lo_us == 7.4 && e->ci_hi_us == 7.6);
    assert_string_equal(e->plugin_version, "1.0");
    assert_string_equal(e->ktune_version, "0.1.0");
    assert_string_equal(e->date, "2026-12-01T08:00:00Z");
    assert_int_equal(e->line, 2);
    /* Optional fields: NaN and "". */
    e = kt_select_entry_at(w, 1);
    assert_true(isnan(e->time_us) && isnan(e->ci_lo_us));
    assert_string_equal(e->plugin_version, "");
    assert_null(kt_select_entry_at(w, 7));
    /* The blank line is skipped; lines are counted. */
    assert_int_equal(kt_select_entry_at(w, 6)->line, 9);
    kt_select_close(w);
}

typedef struct rule_case {
    const char *op, *device; /* device NULL: kt_select_device with cc */
    const char *name;
    int major, minor;
    int64_t sizes[2];
    size_t n;
    int rc;
    size_t line; /* 0: no entry */
    kt_select_match match;
    double distance;
} rule_case;

static void the_nearest_size_rule_on_a_table(void **state)
{
    /* clang-format off */
    static const rule_case cases[] = {
        /* exact; device names compare without case */
        {"a:add", "NVIDIA H200", 0, 0, 0, {1048576}, 1, KT_SELECT_OK, 2, KT_SELECT_MATCH_EXACT, 0},
        {"a:add", "nvidia h200", 0, 0, 0, {1048576}, 1, KT_SELECT_OK, 2, KT_SELECT_MATCH_EXACT, 0},
        /* nearest on the same device: 2^21 is 1 from 2^20, 3 from 2^24 */
        {"a:add", "NVIDIA H200", 0, 0, 0, {2097152}, 1, KT_SELECT_NEAREST, 2, KT_SELECT_MATCH_DEVICE, 1},
        /* 2^22: 2 from both; the tie goes to the larger problem */
        {"a:add", "NVIDIA H200", 0, 0, 0, {4194304}, 1, KT_SELECT_NEAREST, 3, KT_SELECT_MATCH_DEVICE, 2},
        /* 3e6: 1.52 from 2^20, 2.48 from 2^24 */
        {"a:add", "NVIDIA H200", 0, 0, 0, {3000000}, 1, KT_SELECT_NEAREST, 2, KT_SELECT_MATCH_DEVICE, 1.5165},
        {"a:add", "NVIDIA H200", 0, 0, 0, {1}, 1, KT_SELECT_NEAREST, 2, KT_SELECT_MATCH_DEVICE, 20},
        /* the same device beats an exact size on another device */
        {"a:add", "NVIDIA H100 80GB HBM3", 0, 0, 0, {16777216}, 1, KT_SELECT_NEAREST, 4, KT_SELECT_MATCH_DEVICE, 2},
        /* a compute capability: every device of it */
        {"a:add", "sm_90", 0, 0, 0, {16777216}, 1, KT_SELECT_NEAREST, 3, KT_SELECT_MATCH_CC, 0},
        {"a:add", "9.0", 0, 0, 0, {4194304}, 1, KT_SELECT_NEAREST, 4, KT_SELECT_MATCH_CC, 0},
        {"a:add", "8.0", 0, 0, 0, {1024}, 1, KT_SELECT_NEAREST, 5, KT_SELECT_MATCH_CC, 12},
        {"a:add", "compute_80", 0, 0, 0, {1024}, 1, KT_SELECT_NEAREST, 5, KT_SELECT_MATCH_CC, 12},
        /* another architecture, an unknown name: no wisdom */
        {"a:add", "7.0", 0, 0, 0, {1024}, 1, KT_SELECT_NO_WISDOM, 0, KT_SELECT_MATCH_NONE, 0},
        {"a:add", "NVIDIA L4", 0, 0, 0, {1024}, 1, KT_SELECT_NO_WISDOM, 0, KT_SELECT_MATCH_NONE, 0},
        /* an unknown name with its compute capability; a known name first */
        {"a:add", NULL, "NVIDIA GH200 480GB", 9, 0, {4194304}, 1, KT_SELECT_NEAREST, 4, KT_SELECT_MATCH_CC, 0},
        {"a:add", NULL, "NVIDIA H200", 8, 0, {4194304}, 1, KT_SELECT_NEAREST, 3, KT_SELECT_MATCH_DEVICE, 2},
        {"a:add", NULL, NULL, 8, 0, {4194304}, 1, KT_SELECT_NEAREST, 5, KT_SELECT_MATCH_CC, 0},
        /* two dimensions, each counted in factors of two */
        {"g:ax", "NVIDIA H200", 0, 0, 0, {2048, 2048}, 2, KT_SELECT_NEAREST, 6, KT_SELECT_MATCH_DEVICE, 2},
        {"g:ax", "NVIDIA H200", 0, 0, 0, {65536, 2048}, 2, KT_SELECT_NEAREST, 9, KT_SELECT_MATCH_DEVICE, 1},
        {"g:ax", "NVIDIA H200", 0, 0, 0, {16384, 16384}, 2, KT_SELECT_OK, 7, KT_SELECT_MATCH_EXACT, 0},
        /* other dimensions, another operator: no wisdom */
        {"g:ax", "NVIDIA H200", 0, 0, 0, {1024}, 1, KT_SELECT_NO_WISDOM, 0, KT_SELECT_MATCH_NONE, 0},
        {"a:ad", "NVIDIA H200", 0, 0, 0, {1024}, 1, KT_SELECT_NO_WISDOM, 0, KT_SELECT_MATCH_NONE, 0},
        {"z:z", "NVIDIA H200", 0, 0, 0, {1024}, 1, KT_SELECT_NO_WISDOM, 0, KT_SELECT_MATCH_NONE, 0},
    };
    /* clang-format on */
    kt_select_wisdom *w = open_table();
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const rule_case *k = &cases[i];
        kt_select_config c;
        int rc = k->device ? kt_select(w, k->op, k->device, k->sizes, k->n, &c)
                           : kt_select_device(w, k->op, k->name, k->major,
                                              k->minor, k->sizes, k->n, &c);
        size_t line = c.entry ? c.entry->line : 0;
        if (rc != k->rc || line != k->line || c.match != k->match ||
            fabs(c.distance - (k->distance ? k->distance : c.distance)) >
                1e-4 ||
            (k->distance == 0 && k->line && k->rc == KT_SELECT_OK &&
             c.distance != 0))
            fail_msg("case %zu (%s on %s): rc %d line %zu match %d distance "
                     "%g; expected rc %d line %zu match %d distance %g",
                     i, k->op, k->device ? k->device : k->name, rc, line,
                     (int)c.match, c.distance, k->rc, k->line, (int)k->match,
                     k->distance);
        if (c.entry) {
            assert_ptr_equal(c.variant, c.entry->variant);
            assert_int_equal(c.num_params, c.entry->num_params);
        }
    }
    kt_select_close(w);
}

static void no_handle_means_defaults_and_bad_arguments_are_codes(void **state)
{
    kt_select_wisdom *w = open_table();
    kt_select_config c;
    int64_t n = 1024, zero = 0;
    (void)state;
    assert_int_equal(kt_select(NULL, "a:add", "NVIDIA H200", &n, 1, &c),
                     KT_SELECT_NO_WISDOM);
    assert_null(c.entry);
    assert_int_equal(kt_select_get(&c, "block", 256), 256);
    assert_int_equal(kt_select(w, NULL, "x", &n, 1, &c), KT_SELECT_EARG);
    assert_int_equal(kt_select(w, "a:add", NULL, &n, 1, &c), KT_SELECT_EARG);
    assert_int_equal(kt_select(w, "a:add", "", &n, 1, &c), KT_SELECT_EARG);
    assert_int_equal(kt_select(w, "a:add", "x", NULL, 1, &c), KT_SELECT_EARG);
    assert_int_equal(kt_select(w, "a:add", "x", &n, 0, &c), KT_SELECT_EARG);
    assert_int_equal(kt_select(w, "a:add", "x", &zero, 1, &c), KT_SELECT_EARG);
    assert_int_equal(kt_select(w, "a:add", "x", &n, 99, &c), KT_SELECT_EARG);
    assert_int_equal(kt_select(w, "a:add", "x", &n, 1, NULL), KT_SELECT_EARG);
    assert_int_equal(kt_select(w, "a:add", "NVIDIA H200", &n, 1, &c),
                     KT_SELECT_NEAREST);
    assert_int_equal(kt_select_get(&c, "block", 1), 64);
    assert_int_equal(kt_select_get(&c, "nope", 7), 7);
    assert_int_equal(kt_select_get(NULL, "block", 7), 7);
    assert_string_equal(kt_select_strerror(KT_SELECT_EFORMAT),
                        "not a valid wisdom file");
    kt_select_close(w);
    kt_select_close(NULL);
}

typedef struct bad_case {
    const char *text;
    int code;
    size_t line;
    const char *msg;
} bad_case;

#define H "{\"ktune_wisdom\":1}\n"
#define E(sizes, extra)                                                        \
    "{\"operator\":\"a:add\",\"device\":\"D\",\"cc\":\"9.0\",\"sizes\":" sizes \
    ",\"variant\":\"v\",\"params\":{}" extra "}"

static void damaged_files_are_refused_with_their_line(void **state)
{
    static const bad_case cases[] = {
        {"", KT_SELECT_EFORMAT, 0, "empty: no wisdom header"},
        {"\n\n", KT_SELECT_EFORMAT, 0, "empty"},
        {"hello\n", KT_SELECT_EFORMAT, 1, "not a ktune wisdom file"},
        {"[1,2]\n", KT_SELECT_EFORMAT, 1, "not a ktune wisdom file"},
        {"{\"ktune_wisdom\":2}\n", KT_SELECT_EVERSION, 1, "format 2"},
        {"{\"ktune_wisdom\":\"1\"}\n", KT_SELECT_EFORMAT, 1, "format number"},
        {"{\"ktune_wisdom\":1,\"entries\":-1}\n", KT_SELECT_EFORMAT, 1,
         "entries"},
        /* truncated: a torn line, a missing line */
        {H "{\"operator\":\"a:add\",\"dev", KT_SELECT_EFORMAT, 2, "not JSON"},
        {"{\"ktune_wisdom\":1,\"entries\":2}\n" E("{\"n\":1}", "") "\n",
         KT_SELECT_EFORMAT, 0, "counts 2 entries, the file holds 1"},
        /* wrong types */
        {H "[]\n", KT_SELECT_EFORMAT, 2, "expected an entry"},
        {H E("\"big\"", ""), KT_SELECT_EFORMAT, 2, "sizes: expected an object"},
        {H E("{\"n\":1.5}", ""), KT_SELECT_EFORMAT, 2,
         "sizes.n: expected an integer"},
        {H E("{\"n\":\"4\"}", ""), KT_SELECT_EFORMAT, 2,
         "sizes.n: expected an integer"},
        {H E("{}", ""), KT_SELECT_EFORMAT, 2, "sizes: empty"},
        {H E("{\"n\":0}", ""), KT_SELECT_EFORMAT, 2, "sizes.n: 0 is below 1"},
        {H E("{\"n\":-5}", ""), KT_SELECT_EFORMAT, 2, "below 1"},
        {H "{\"operator\":5,\"device\":\"D\"}", KT_SELECT_EFORMAT, 2,
         "operator: expected a string"},
        {H "{\"device\":\"D\"}", KT_SELECT_EFORMAT, 2, "operator: missing"},
        {H "{\"operator\":\"\",\"device\":\"D\"}", KT_SELECT_EFORMAT, 2,
         "operator: empty"},
        {H "{\"operator\":\"a\\u0000b\",\"device\":\"D\"}", KT_SELECT_EFORMAT,
         2, "NUL"},
        {H "{\"operator\":\"a:add\",\"device\":\"D\",\"cc\":\"nine\"}",
         KT_SELECT_EFORMAT, 2, "cc: expected a compute capability"},
        {H "{\"operator\":\"a:add\",\"device\":\"D\",\"cc\":9.0}",
         KT_SELECT_EFORMAT, 2, "cc:"},
        {H E("{\"n\":1}", ",\"time_us\":\"fast\""), KT_SELECT_EFORMAT, 2,
         "time_us"},
        {H E("{\"n\":1}", ",\"time_us\":-1"), KT_SELECT_EFORMAT, 2, "time_us"},
        {H E("{\"n\":1}", ",\"ci_us\":[1]"), KT_SELECT_EFORMAT, 2, "ci_us"},
        {H "{\"operator\":\"a:add\",\"device\":\"D\",\"cc\":\"9.0\","
           "\"sizes\":{\"n\":1},\"variant\":\"v\",\"params\":{\"b\":true}}",
         KT_SELECT_EFORMAT, 2, "params.b: expected an integer"},
        {H "{\"operator\":\"a:add\",\"device\":\"D\",\"cc\":\"9.0\","
           "\"sizes\":{\"n\":1},\"variant\":\"v\"}",
         KT_SELECT_EFORMAT, 2, "params: missing"},
        /* huge numbers */
        {H E("{\"n\":99999999999999999999999}", ""), KT_SELECT_EFORMAT, 2,
         "not JSON"},
        {H E("{\"n\":1e400}", ""), KT_SELECT_EFORMAT, 2, "not JSON"},
        {H E("{\"n\":1}", ",\"time_us\":1e999"), KT_SELECT_EFORMAT, 2,
         "not JSON"},
        /* duplicates: a key within a line, an entry within the file */
        {H E("{\"n\":1,\"n\":2}", ""), KT_SELECT_EFORMAT, 2, "not JSON"},
        {H E("{\"n\":1}", "") "\n" E("{\"n\":2}", "") "\n" E("{\"n\":1}",
                                                             "") "\n",
         KT_SELECT_EFORMAT, 4, "the same operator, device and sizes as line 2"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        kt_select_wisdom *w = (kt_select_wisdom *)1;
        kt_select_error e;
        int rc = kt_select_open_buffer(cases[i].text, strlen(cases[i].text),
                                       "bad.jsonl", &w, &e);
        if (rc != cases[i].code || e.code != rc || e.line != cases[i].line ||
            !strstr(e.msg, cases[i].msg) || w != NULL)
            fail_msg("case %zu: rc %d line %zu \"%s\"; expected rc %d line "
                     "%zu \"%s\"",
                     i, rc, e.line, e.msg, cases[i].code, cases[i].line,
                     cases[i].msg);
        if (cases[i].line && !strstr(e.msg, "bad.jsonl:"))
            fail_msg("case %zu: no file:line in \"%s\"", i, e.msg);
    }
}

/* A growing string for the hostile inputs. */
static char *repeat(const char *head, const char *unit, size_t n,
                    const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * n + tl + 1), *p = s;
    assert_non_null(s);
    memcpy(p, head, hl);
    p += hl;
    for (size_t i = 0; i < n; ++i, p += ul)
        memcpy(p, unit, ul);
    memcpy(p, tail, tl + 1);
    return s;
}

static void expect_refused(const char *text, int code, const char *msg)
{
    kt_select_wisdom *w = NULL;
    kt_select_error e;
    int rc = kt_select_open_buffer(text, strlen(text), "x", &w, &e);
    if (rc != code || !strstr(e.msg, msg))
        fail_msg("rc %d \"%s\"; expected %d \"%s\"", rc, e.msg, code, msg);
    assert_null(w);
}

static void hostile_files_are_refused_not_crashed_on(void **state)
{
    char *s;
    (void)state;
    /* a line past the limit */
    s = repeat(H "{\"operator\":\"", "a", KT_SELECT_MAX_LINE, "\"}\n");
    expect_refused(s, KT_SELECT_ELIMIT, "a line longer than");
    free(s);
    /* a name past the limit */
    s = repeat(H "{\"operator\":\"", "a", KT_SELECT_MAX_TEXT + 1,
               "\",\"device\":\"D\"}\n");
    expect_refused(s, KT_SELECT_ELIMIT, "operator: longer than");
    free(s);
    /* too many parameters */
    {
        char params[2048] = "", line[4096];
        for (int i = 0; i <= KT_SELECT_MAX_PARAMS; ++i)
            snprintf(params + strlen(params), sizeof params - strlen(params),
                     "%s\"p%d\":1", i ? "," : "", i);
        snprintf(line, sizeof line,
                 H "{\"operator\":\"a:add\",\"device\":\"D\",\"cc\":\"9.0\","
                   "\"sizes\":{\"n\":1},\"variant\":\"v\",\"params\":{%s}}\n",
                 params);
        expect_refused(line, KT_SELECT_ELIMIT, "params: more than");
    }
    /* deep nesting inside an entry */
    s = repeat(H "{\"operator\":\"a:add\",\"x\":", "[", 30000, "\n");
    expect_refused(s, KT_SELECT_EFORMAT, "not JSON");
    free(s);
    /* binary garbage */
    {
        char junk[4096];
        for (size_t i = 0; i < sizeof junk; ++i)
            junk[i] = (char)(i * 131 + 7);
        kt_select_wisdom *w = NULL;
        kt_select_error e;
        assert_true(kt_select_open_buffer(junk, sizeof junk, "junk", &w, &e) <
                    0);
        assert_null(w);
        assert_true(e.msg[0] != '\0');
    }
    /* not a file */
    {
        kt_select_wisdom *w = NULL;
        kt_select_error e;
        assert_int_equal(kt_select_open("/nonexistent/w.jsonl", &w, &e),
                         KT_SELECT_EIO);
        assert_contains(e.msg, "/nonexistent/w.jsonl: cannot open");
        assert_int_equal(kt_select_open(".", &w, &e), KT_SELECT_EIO);
        assert_contains(e.msg, "not a regular file");
        assert_int_equal(kt_select_open(NULL, &w, &e), KT_SELECT_EARG);
        assert_int_equal(kt_select_open_buffer("", 0, "x", NULL, &e),
                         KT_SELECT_EARG);
        assert_null(w);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One million entries: read, indexed and answered within a bound (30 s
 * even under sanitizers; about 2 s unsanitized). */
static void a_million_entries_in_bounded_time(void **state)
{
    enum { N = 1000000 };
    size_t cap = (size_t)N * 120 + 64, used = 0;
    char *buf = malloc(cap);
    kt_select_wisdom *w = NULL;
    kt_select_error e;
    kt_select_config c;
    double t0 = now_s();
    (void)state;
    assert_non_null(buf);
    used +=
        (size_t)snprintf(buf, cap, "{\"ktune_wisdom\":1,\"entries\":%d}\n", N);
    for (int i = 0; i < N; ++i)
        used += (size_t)snprintf(
            buf + used, cap - used,
            "{\"operator\":\"op%d:x\",\"device\":\"D%d\",\"cc\":\"9.0\","
            "\"sizes\":{\"n\":%d},\"variant\":\"v\",\"params\":{\"b\":%d}}\n",
            i % 7, i % 3, i + 1, i % 1024);
    assert_int_equal(kt_select_open_buffer(buf, used, "big", &w, &e),
                     KT_SELECT_OK);
    assert_int_equal(kt_select_count(w), N);
    for (int q = 0; q < 100; ++q) {
        int64_t n = 1 + q * 9973;
        assert_true(kt_select(w, "op3:x", "D1", &n, 1, &c) >= 0);
        assert_non_null(c.entry);
    }
    {
        int64_t n = 700001;
        assert_int_equal(kt_select(w, "op0:x", "D1", &n, 1, &c), KT_SELECT_OK);
        assert_int_equal(c.entry->sizes[0], 700001);
    }
    kt_select_close(w);
    free(buf);
    if (now_s() - t0 > 30)
        fail_msg("a million entries took %.1f s", now_s() - t0);
}

typedef struct worker {
    const kt_select_wisdom *w;
    int bad;
} worker;

static void *select_many(void *arg)
{
    worker *k = arg;
    for (int i = 0; i < 20000; ++i) {
        kt_select_config c;
        int64_t mn[2] = {1024 << (i % 7), 1024 << (i % 5)};
        int64_t n = (int64_t)1 << (i % 30);
        if (kt_select(k->w, "g:ax", "NVIDIA H200", mn, 2, &c) < 0 || !c.entry)
            k->bad = 1;
        if (kt_select(k->w, "a:add", "9.0", &n, 1, &c) < 0 || !c.entry)
            k->bad = 1;
    }
    return NULL;
}

static void threads_select_from_one_handle_at_once(void **state)
{
    kt_select_wisdom *w = open_table();
    pthread_t t[8];
    worker k[8];
    (void)state;
    for (int i = 0; i < 8; ++i) {
        k[i].w = w;
        k[i].bad = 0;
        assert_int_equal(pthread_create(&t[i], NULL, select_many, &k[i]), 0);
    }
    for (int i = 0; i < 8; ++i) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_false(k[i].bad);
    }
    kt_select_close(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_field_is_read),
        cmocka_unit_test(the_nearest_size_rule_on_a_table),
        cmocka_unit_test(no_handle_means_defaults_and_bad_arguments_are_codes),
        cmocka_unit_test(damaged_files_are_refused_with_their_line),
        cmocka_unit_test(hostile_files_are_refused_not_crashed_on),
        cmocka_unit_test(a_million_entries_in_bounded_time),
        cmocka_unit_test(threads_select_from_one_handle_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
