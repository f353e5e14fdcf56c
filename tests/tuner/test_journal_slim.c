// SPDX-License-Identifier: Apache-2.0
/* A reader (the report) reads a journal record's kept values from its text
 * (kt_journal_slim_text) instead of jansson's whole parse: the two agree on
 * every record the pass takes (its figures as kt_journal_kernel_of and
 * kt_journal_energy_of read them, its statistics as kt_journal_check_point
 * takes them), the recorded journals' plain records are taken, and
 * whatever jansson or the checks would refuse or read otherwise is left to
 * them. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "records/journal_check.h"
#include "records/journal_slim.h"

#define DATA KT_SOURCE_DIR "/tests/data/"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long size;
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size = ftell(f);
    rewind(f);
    text = malloc((size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
    *len = (size_t)size;
    return text;
}

/* What the whole parse keeps of the line: NULL when jansson refuses it or
 * it is no eval or check record. */
static json_t *whole(const char *line, size_t len)
{
    json_error_t jerr;
    json_t *rec = json_loadb(line, len, 0, &jerr), *out = NULL;
    const char *kind = json_string_value(json_object_get(rec, "kind"));
    if (kind && (strcmp(kind, "eval") == 0 || strcmp(kind, "check") == 0))
        out = kt_journal_slim_record(rec);
    json_decref(rec);
    return out;
}

static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* The statistics as records/ reads them from the whole parse, and whether
 * they pass its check (kt_journal_check_point; the point itself is no
 * business of the pass, which a reader checks after it: one put in). */
static int whole_kernel(const json_t *rec, kt_journal_kernel *k)
{
    json_t *copy = json_copy((json_t *)rec);
    kt_err err;
    int good;
    assert_non_null(copy);
    json_object_set_new(copy, "point",
                        json_pack("{s:s,s:{}}", "variant", "v", "params"));
    *k = kt_journal_kernel_of(
        json_object_get(json_object_get(rec, "timing"), "kernel"));
    good = kt_journal_check_point(copy, &err) == KT_S_OK;
    json_decref(copy);
    return good;
}

/* 1 when the pass took the line, after checking it gave what the whole
 * parse gives, for a record the whole parse's checks pass. */
static int agrees(const char *line, size_t len)
{
    json_t *fast = NULL, *slow;
    kt_journal_kernel a, b;
    kt_journal_energy ea, eb;
    int good;
    if (kt_journal_slim_text(line, len, &fast, &a, &ea) !=
        KT_JOURNAL_SLIM_DONE) {
        assert_null(fast);
        return 0;
    }
    slow = whole(line, len);
    good = slow && whole_kernel(slow, &b);
    eb = kt_journal_energy_of(json_object_get(slow, "energy"));
    json_object_del(slow, "timing");
    json_object_del(slow, "energy");
    if (!good || !json_equal(fast, slow) || ea.measured != eb.measured ||
        !same(ea.joules_per_launch, eb.joules_per_launch) ||
        !same(ea.ci_lo_j, eb.ci_lo_j) || !same(ea.ci_hi_j, eb.ci_hi_j) ||
        !same(ea.power_w, eb.power_w) ||
        !same(ea.power_limit_w, eb.power_limit_w) ||
        !same(a.median, b.median) || !same(a.q1, b.q1) || !same(a.q3, b.q3) ||
        !same(a.ci_lo, b.ci_lo) || !same(a.ci_hi, b.ci_hi) ||
        !same(a.min, b.min) || !same(a.noise, b.noise) ||
        a.samples != b.samples)
        fail_msg("the pass took %.*s\ninto %s, median %g n %ld; the whole "
                 "parse %s",
                 (int)len, line, json_dumps(fast, JSON_COMPACT), a.median,
                 a.samples,
                 !slow   ? "refuses it or drops it"
                 : !good ? "refuses its statistics"
                         : "differs");
    json_decref(fast);
    json_decref(slow);
    return 1;
}

/* The pass's reading of a line it must take (and agree on). */
static json_t *taken(const char *line, kt_journal_kernel *k,
                     kt_journal_energy *e)
{
    json_t *out = NULL;
    assert_true(agrees(line, strlen(line)));
    assert_int_equal(kt_journal_slim_text(line, strlen(line), &out, k, e),
                     KT_JOURNAL_SLIM_DONE);
    return out;
}

static void recorded_journals_plain_records_are_taken_alike(void **state)
{
    static const char *const files[] = {
        DATA "vector_add-h200-n1048576.jsonl",
        DATA "vector_add-h200-counters-n16777216.jsonl",
        DATA "good-synthetic-counters.jsonl",
        KT_SOURCE_DIR "/tests/report/data/vector_add-energy-synthetic.jsonl"};
    (void)state;
    for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
        size_t len, taken = 0, ok = 0;
        char *text = slurp(files[f], &len), *at = text, *nl;
        for (; (nl = memchr(at, '\n', len - (size_t)(at - text)));
             at = nl + 1) {
            json_t *slow = whole(at, (size_t)(nl - at + 1));
            int plain = slow && json_object_get(json_object_get(slow, "timing"),
                                                "kernel") != NULL;
            json_decref(slow);
            taken += (size_t)agrees(at, (size_t)(nl - at + 1));
            ok += (size_t)plain;
        }
        /* Every record with timing.kernel: none of them needs jansson. */
        assert_true(ok > 0);
        assert_int_equal(taken, ok);
        free(text);
    }
}

/* The fixture's first eval record with its samples cut to three (every
 * edit of it is tried: the test stays short), as JSON text; owned. */
static char *short_record(size_t *n)
{
    size_t len;
    char *text = slurp(KT_SOURCE_DIR
                       "/tests/report/data/vector_add-energy-synthetic.jsonl",
                       &len);
    char *line = strchr(text, '\n') + 1, *out;
    json_error_t jerr;
    json_t *rec =
        json_loadb(line, (size_t)(strchr(line, '\n') - line), 0, &jerr);
    json_t *t = json_object_get(rec, "timing");
    json_t *e = json_object_get(rec, "energy");
    assert_non_null(rec);
    json_array_clear(json_object_get(e, "samples_j"));
    json_object_set_new(t, "samples_us", json_pack("[f,f,f]", 1.5, 2e-7, 3.));
    out = json_dumps(rec, JSON_COMPACT);
    assert_non_null(out);
    json_decref(rec);
    free(text);
    *n = strlen(out);
    return out;
}

/* Every line one edit away from a recorded record: each one the pass
 * takes, the whole parse takes too, with the same values. */
static void one_edit_away_the_pass_agrees_or_leaves_it(void **state)
{
    static const char inserts[] = "\"\\{}[],:0-.eE tn\x01\x80";
    size_t n, taken = 0;
    char *line = short_record(&n), *edit = malloc(n + 2);
    (void)state;
    assert_non_null(edit);
    assert_true(agrees(line, n));
    for (size_t i = 0; i <= n; ++i) {
        /* deleted */
        memcpy(edit, line, i);
        memcpy(edit + i, line + i + 1, n - (i < n ? i + 1 : n));
        taken += (size_t)agrees(edit, i < n ? n - 1 : n);
        /* inserted */
        for (size_t k = 0; k < sizeof inserts - 1; ++k) {
            memcpy(edit, line, i);
            edit[i] = inserts[k];
            memcpy(edit + i + 1, line + i, n - i);
            taken += (size_t)agrees(edit, n + 1);
        }
    }
    /* Some edits keep a valid record (a digit more in a number). */
    assert_true(taken > 0);
    free(edit);
    free(line);
}

/* A record the pass takes but for the text before it. */
#define HEAD "{\"kind\":\"eval\",\"status\":\"ok\","
#define KERNEL "\"timing\":{\"kernel\":{\"median\":1}}"

/* Records jansson refuses, reads otherwise than a plain scan would, or
 * kt_journal_check_point refuses: each left to the whole parse (and its
 * message). */
static void what_jansson_or_the_checks_refuse_is_left_to_them(void **state)
{
    static const char *const lines[] = {
        /* numbers beyond a double, an int64 */
        HEAD "\"shape\":1e999," KERNEL "}",
        HEAD "\"shape\":12345678901234567890," KERNEL "}",
        HEAD "\"shape\":0.1234567890123456789012345678901234567890e10," KERNEL
             "}",
        /* a NUL, a lone surrogate, malformed UTF-8, a raw control */
        HEAD "\"note\":\"\\u0000\"," KERNEL "}",
        HEAD "\"note\":\"\\ud800\"," KERNEL "}",
        HEAD "\"note\":\"\xc3\"," KERNEL "}",
        HEAD "\"note\":\"\t\"," KERNEL "}",
        /* an escaped key that decodes to a kept one */
        HEAD KERNEL ",\"st\\u0061tus\":\"x\"}",
        "{\"kin\\u0064\":\"eval\",\"status\":\"ok\"," KERNEL "}",
        /* leading zeros, a bare word, trailing text, a second value */
        HEAD "\"shape\":01," KERNEL "}",
        HEAD "\"shape\":nan," KERNEL "}",
        HEAD KERNEL "} x",
        HEAD KERNEL "}{}",
        /* the last "timing" has no kernel: a failed point, kept whole */
        HEAD KERNEL ",\"timing\":{}}",
        HEAD "\"timing\":{\"kernel\":[]}}",
        /* another kind, no status, a status that is no string */
        "{\"kind\":\"profile\",\"status\":\"ok\"," KERNEL "}",
        "{\"kind\":\"eval \",\"status\":\"ok\"," KERNEL "}",
        "{\"kind\":\"eval\"," KERNEL "}",
        "{\"kind\":\"eval\",\"status\":1," KERNEL "}",
        /* ok without a median, times not > 0 or not numbers, a negative
         * spread (kt_journal_check_point's messages) */
        HEAD "\"timing\":{\"kernel\":{\"min\":1}}}",
        HEAD "\"timing\":{\"kernel\":{\"median\":-1}}}",
        HEAD "\"timing\":{\"kernel\":{\"median\":0}}}",
        HEAD "\"timing\":{\"kernel\":{\"median\":\"1\"}}}",
        HEAD "\"timing\":{\"kernel\":{\"median\":1,\"max\":null}}}",
        HEAD "\"timing\":{\"kernel\":{\"median\":1,\"noise\":-0.5}}}",
        HEAD "\"timing\":{\"kernel\":{\"median\":1,\"stddev\":true}}}",
        /* a torn line */
        HEAD KERNEL,
    };
    char deep[256];
    json_t *out = NULL;
    kt_journal_kernel k;
    kt_journal_energy e;
    (void)state;
    /* The frame itself is taken (the cases fail for what they add). */
    assert_true(agrees(HEAD KERNEL "}", strlen(HEAD KERNEL "}")));
    for (size_t i = 0; i < sizeof lines / sizeof *lines; ++i) {
        if (kt_journal_slim_text(lines[i], strlen(lines[i]), &out, &k, &e) !=
            KT_JOURNAL_SLIM_WHOLE)
            fail_msg("the pass took %s", lines[i]);
        assert_null(out);
    }
    /* Nesting deeper than the pass follows. */
    snprintf(deep, sizeof deep, HEAD KERNEL ",\"x\":%.*s1%.*s}", 40,
             "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", 40,
             "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
    assert_int_equal(kt_journal_slim_text(deep, strlen(deep), &out, &k, &e),
                     KT_JOURNAL_SLIM_WHOLE);
}

/* A point not ok is read whatever its statistics, as kt_journal_kernel_of
 * reads them: a non-number is NaN. */
static void a_failed_points_statistics_are_read_as_they_are(void **state)
{
    static const char line[] =
        "{\"kind\":\"eval\",\"status\":\"mismatch\",\"timing\":{\"kernel\":"
        "{\"median\":\"x\",\"q1\":-2,\"n\":2.0,\"noise\":-1}}}";
    kt_journal_kernel k;
    kt_journal_energy e;
    json_t *out = taken(line, &k, &e);
    (void)state;
    assert_true(isnan(k.median));
    assert_true(!e.measured && isnan(e.power_w));
    assert_true(k.q1 == -2 && k.noise == -1 && k.samples == -1);
    json_decref(out);
}

/* Duplicate keys: the last one counts, as in jansson. */
static void the_last_of_duplicate_keys_counts(void **state)
{
    static const char line[] =
        "{\"kind\":\"eval\",\"status\":\"invalid\",\"timing\":{\"kernel\":"
        "{\"median\":1}},\"status\":\"ok\",\"timing\":{\"kernel\":"
        "{\"median\":2},\"kernel\":{\"median\":3,\"n\":7}},\"energy\":"
        "{\"power_w\":1,\"samples_j\":[1,2],\"power_w\":5,\"measured\":"
        "true,\"ci_lo_j\":\"x\"}}\r\n";
    kt_journal_kernel k;
    kt_journal_energy e;
    json_t *out = taken(line, &k, &e);
    (void)state;
    assert_string_equal(json_string_value(json_object_get(out, "status")),
                        "ok");
    assert_true(k.median == 3 && k.samples == 7);
    assert_true(e.measured && e.power_w == 5 && isnan(e.ci_lo_j));
    assert_null(json_object_get(out, "energy"));
    json_decref(out);
}

/* One top-level member found without building the document (how report
 * tells a timeline from results): found, absent, or left to jansson; and
 * where the first object ends. */
static void a_top_level_member_is_found_by_the_pass(void **state)
{
    static const char doc[] =
        " {\"a\":{\"format\":1},\"format\":\"x\",\"b\":[]}\n";
    static const char *const whole_parse[] = {"{\"format\":\"x\"} {}",
                                              "{\"format\":\"\\u0078\"}", "[]",
                                              "", "{\"format\":\"x\""};
    const char *at = NULL;
    size_t n = 0;
    (void)state;
    assert_int_equal(
        kt_journal_slim_member(doc, strlen(doc), "format", &at, &n), 1);
    assert_int_equal(n, 3);
    assert_memory_equal(at, "\"x\"", 3);
    assert_int_equal(kt_journal_slim_member(doc, strlen(doc), "c", &at, &n), 0);
    for (size_t i = 0; i < sizeof whole_parse / sizeof *whole_parse; ++i)
        assert_int_equal(kt_journal_slim_member(whole_parse[i],
                                                strlen(whole_parse[i]),
                                                "format", &at, &n),
                         -1);
    /* The first object's extent: a journal's header line, one cut short. */
    assert_int_equal(kt_journal_slim_object_length(" {\"a\":[1]}\n{}", 13), 10);
    assert_int_equal(kt_journal_slim_object_length("{\"a\":[1", 7), 0);
    assert_int_equal(kt_journal_slim_object_length("[]", 2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recorded_journals_plain_records_are_taken_alike),
        cmocka_unit_test(one_edit_away_the_pass_agrees_or_leaves_it),
        cmocka_unit_test(what_jansson_or_the_checks_refuse_is_left_to_them),
        cmocka_unit_test(a_failed_points_statistics_are_read_as_they_are),
        cmocka_unit_test(the_last_of_duplicate_keys_counts),
        cmocka_unit_test(a_top_level_member_is_found_by_the_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
