// SPDX-License-Identifier: Apache-2.0
/* The fast reading of a Kernel Tuner cache's plain entries
 * (records/ktentry.h) against jansson's whole parse of every entry
 * (kt_ktcache_load_whole): on a generated cache of varied entries (number
 * forms with one rounding, with strtod's, integers, exponents, error names,
 * members in any order, absent and empty runs, and entries the fast
 * reading must refuse: escapes, non-ASCII text, nested members, real or
 * negative copies, -0.0 among the runs) both give the same records to the
 * bit, the fast one taking the plain ones (about 40%) and refusing the
 * rest; on damaged entries both
 * give the same message, and on 3,000 mutations of a plain entry the same
 * records or the same message. */
#include "tests/tuner/tuner_test.h"

#include <stdarg.h>
#include <string.h>

#include "records/extrec.h"
#include "records/ktcache.h"

/* A growing text. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    while (t->len + (size_t)n + 1 > t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1 << 16;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static uint64_t lcg = 12345;
static unsigned pick(unsigned n)
{
    lcg = lcg * 6364136223846793005u + 1442695040888963407u;
    return (unsigned)(lcg >> 33) % n;
}

/* A time in one of the forms a file may hold. */
static void a_time(text *t, double base)
{
    switch (pick(7)) {
    case 0: add(t, "%.6f", base); break;           /* short: one rounding */
    case 1: add(t, "%.17g", base / 3); break;      /* 17 digits: strtod */
    case 2: add(t, "%.3e", base * 1e-3); break;    /* an exponent */
    case 3: add(t, "%d", (int)(base * 10)); break; /* an integer */
    case 4: add(t, "%.4E", base * 1e-25); break;   /* beyond 10^22 */
    case 5: add(t, "0.%06d", (int)(base * 1000)); break;
    default: add(t, "%.12f", base); break; /* 12 or more digits */
    }
}

/* The timing members and other members of one entry, in an order picked
 * at random; x, y, s the key's values. */
static void an_entry(text *t, int x, int y, const char *s)
{
    unsigned order[12];
    size_t n = 0;
    for (unsigned i = 0; i < 12; ++i)
        order[i] = i;
    for (unsigned i = 11; i > 0; --i) {
        unsigned j = pick(i + 1), k = order[i];
        order[i] = order[j];
        order[j] = k;
    }
    add(t, "{");
    for (unsigned i = 0; i < 12; ++i) {
        size_t at = t->len;
        size_t body;
        add(t, "%s", n ? (pick(5) ? ", " : ",\n\t") : "");
        body = t->len;
        switch (order[i]) {
        case 0:
            if (pick(12) == 0)
                add(t, "\"time\": \"%s\"",
                    (const char *[]){"InvalidConfig", "CompilationFailedConfig",
                                     "RuntimeFailedConfig",
                                     "Invalid\\u0043onfig"}[pick(4)]);
            else
                add(t, "\"time\": "), a_time(t, 0.5 + x * 0.37 + y * 0.011);
            break;
        case 1:
            if (pick(8) == 0)
                break;
            add(t, "\"times\": [");
            for (int k = 0, m = pick(6) ? 32 : (int)pick(3); k < m; ++k) {
                add(t, "%s", k ? ", " : "");
                if (pick(200) == 0)
                    add(t, "-0.0");
                else
                    a_time(t, 1 + 0.01 * k + x * 0.1);
            }
            add(t, "]");
            break;
        case 2: add(t, "\"compile_time\": "), a_time(t, 1200.5); break;
        case 3: add(t, "\"verification_time\": %d", (int)pick(2)); break;
        case 4: add(t, "\"benchmark_time\": "), a_time(t, 33.3 + y); break;
        case 5:
            if (pick(4))
                add(t, "\"framework_time\": "), a_time(t, 0.5);
            break;
        case 6:
            if (pick(4))
                add(t, "\"strategy_time\": 0.1");
            break;
        case 7:
            if (pick(3)) /* a real copy, 2.0 for 2: refused */
                add(t, pick(10) ? "\"x\": %d" : "\"x\": %d.0", x);
            break;
        case 8:
            if (pick(2))
                add(t, "\"y\": %d", y);
            break;
        case 9:
            if (pick(6) == 0) /* a string parameter's copy: refused */
                add(t, "\"s\": \"%s\"", s);
            else if (pick(2))
                add(t, "\"s_other\": -%d.25", x);
            break;
        case 10: {
            unsigned k;
            add(t, "\"timestamp\": \"%s\"",
                (const char *[]){"2026-12-07 00:00:00.000000",
                                 "with \\\" an escape", "caf\xc3\xa9",
                                 "plain"}[(k = pick(8)) < 5 ? 0 : k - 4]);
            break;
        }
        default:
            switch (pick(6)) {
            case 0: add(t, "\"nested\": {\"a\": [1, 2]}"); break;
            case 1: add(t, "\"flag\": %s", pick(2) ? "true" : "null"); break;
            case 2: add(t, "\"big\": 1e300"); break;
            case 3: add(t, "\"many\": 12345678901234567890123.5"); break;
            default: break;
            }
        }
        if (t->len > body)
            ++n;
        else
            t->len = at, t->s[at] = '\0';
    }
    add(t, "}");
}

/* A cache of x in 1..40, y in 0..24, s in {a, b}: 2,000 entries, some
 * keyed with x or y written otherwise ("03", "+3", "3.0", "3e0"). */
static void write_cache(const char *path)
{
    text t = {0};
    int first = 1;
    add(&t, "{\"tune_params_keys\": [\"x\", \"y\", \"s\"], \"tune_params\": "
            "{\"x\": [");
    for (int x = 1; x <= 40; ++x)
        add(&t, "%s%d", x > 1 ? ", " : "", x);
    add(&t, "], \"y\": [");
    for (int y = 0; y < 25; ++y)
        add(&t, "%s%d", y ? ", " : "", y);
    add(&t, "], \"s\": [\"a\", \"b\"]}, \"objective\": \"time\", \"cache\": {");
    for (int x = 1; x <= 40; ++x)
        for (int y = 0; y < 25; ++y)
            for (int s = 0; s < 2; ++s) {
                unsigned form = pick(40); /* y as Python may not write it */
                add(&t, "%s\n\"%s%d,%d%s,%s\": ", first ? "" : ",",
                    form == 0   ? "0"
                    : form == 1 ? "+"
                                : "",
                    x, y,
                    form == 2   ? ".0"
                    : form == 3 ? "e0"
                                : "",
                    s ? "b" : "a");
                an_entry(&t, x, y, s ? "b" : "a");
                first = 0;
            }
    add(&t, "\n}}\n");
    tt_write(path, t.s);
    free(t.s);
}

static void same_double(double a, double b, const char *what, size_t i)
{
    if (memcmp(&a, &b, sizeof a) != 0)
        fail_msg("record %zu: %s %.17g (fast) and %.17g (whole)", i, what, a,
                 b);
}

static void same_record(const kt_extrec_record *a, const kt_extrec_record *b,
                        size_t i)
{
    assert_int_equal(a->rank, b->rank);
    assert_int_equal(a->verdict, b->verdict);
    assert_int_equal(a->order, b->order);
    assert_string_equal(a->key, b->key);
    assert_int_equal(!a->objective, !b->objective);
    if (a->objective)
        assert_string_equal(json_string_value(a->objective),
                            json_string_value(b->objective));
    same_double(a->time_ms, b->time_ms, "time", i);
    same_double(a->compile_ms, b->compile_ms, "compile", i);
    same_double(a->verify_ms, b->verify_ms, "verify", i);
    same_double(a->bench_ms, b->bench_ms, "bench", i);
    same_double(a->framework_ms, b->framework_ms, "framework", i);
    same_double(a->strategy_ms, b->strategy_ms, "strategy", i);
    assert_int_equal(a->num_runs, b->num_runs);
    assert_int_equal(!a->runs_ms, !b->runs_ms);
    for (uint32_t k = 0; k < a->num_runs; ++k)
        same_double(a->runs_ms[k], b->runs_ms[k], "a run", i);
}

static void fast_and_whole_readings_give_the_same_records(void **state)
{
    kt_extrec *fast = NULL, *whole = NULL;
    kt_err err;

    (void)state;
    write_cache("varied.json");
    if (kt_ktcache_load("varied.json", &fast, &err) ||
        kt_ktcache_load_whole("varied.json", &whole, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(fast->num_records, 2000);
    assert_int_equal(whole->num_records, 2000);
    for (size_t i = 0; i < fast->num_records; ++i)
        same_record(&fast->records[i], &whole->records[i], i);
    /* Most taken fast, some refused and parsed whole; none with it off. */
    printf("fast reading took %zu of %zu entries\n", fast->plain_entries,
           fast->num_records);
    assert_true(fast->plain_entries > fast->num_records / 4);
    assert_true(fast->plain_entries < fast->num_records * 9 / 10);
    assert_int_equal(whole->plain_entries, 0);
    kt_extrec_free(fast);
    kt_extrec_free(whole);
}

#define HEAD                                                                   \
    "{\"tune_params_keys\": [\"x\"], \"tune_params\": {\"x\": [1, 2]}, "       \
    "\"cache\": {\"1\": {\"time\": 1, \"compile_time\": 0, "                   \
    "\"verification_time\": 0, \"benchmark_time\": 1}, \"2\": "
#define OK_TIMES                                                               \
    "\"compile_time\": 0, \"verification_time\": 0, \"benchmark_time\": 1"

/* The second entry of each, damaged; the message is jansson's or
 * cache_entry's, the same with the fast reading on or off. */
static const char *const damaged[] = {
    HEAD "{\"time\": 1, \"time\": 2, " OK_TIMES "}}}",
    HEAD "{\"time\": -1, " OK_TIMES "}}}",
    HEAD "{\"time\": 0, " OK_TIMES "}}}",
    HEAD "{\"time\": \"bogus\", " OK_TIMES "}}}",
    HEAD "{\"time\": 1e400, " OK_TIMES "}}}",
    HEAD "{\"time\": 1e13, " OK_TIMES "}}}",
    HEAD "{\"time\": 01, " OK_TIMES "}}}",
    HEAD "{\"time\": 1., " OK_TIMES "}}}",
    HEAD "{\"time\": 1 " OK_TIMES "}}}",
    HEAD "{\"time\": 1, " OK_TIMES ",}}}",
    HEAD "{\"time\": 1, \"compile_time\": 0, \"benchmark_time\": 1}}}",
    HEAD "{\"time\": 1, " OK_TIMES ", \"times\": [1, -2]}}}",
    HEAD "{\"time\": 1, " OK_TIMES ", \"times\": \"x\"}}}",
    HEAD "{\"time\": 1, " OK_TIMES ", \"times\": [1, 2,]}}}",
    HEAD "{\"time\": 1, " OK_TIMES ", \"x\": 1}}}",
    HEAD "{\"time\": 1, " OK_TIMES ", \"n\": 12345678901234567890}}}",
    HEAD "{\"time\": 1, " OK_TIMES ", \"s\": \"a\x01\"}}}",
    HEAD "{\"time\": 1, " OK_TIMES ", \"s\": tru}}}",
    HEAD "{\"time\": 1, " OK_TIMES ", \"s\": 1, \"s\": 2}}}",
    HEAD "{\"time\": 1, " OK_TIMES "}, \"1\": {\"time\": 1, " OK_TIMES "}}}",
    HEAD "{\"time\": 1, " OK_TIMES "}, \"1.0\": {\"time\": 1, " OK_TIMES "}}}",
    HEAD "{\"time\": 1, " OK_TIMES "}, \"3\": {\"time\": 1, " OK_TIMES "}}}",
    HEAD "[1, 2]}}",
    HEAD "{\"time\": 1, " OK_TIMES "}}} x",
};

static void damaged_entries_give_the_same_message_both_ways(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof damaged / sizeof *damaged; ++i) {
        kt_extrec *rec = NULL;
        kt_err fast, whole;
        kt_status a, b;
        tt_write("damaged.json", damaged[i]);
        kt_err_clear(&fast);
        kt_err_clear(&whole);
        a = kt_ktcache_load("damaged.json", &rec, &fast);
        kt_extrec_free(rec);
        b = kt_ktcache_load_whole("damaged.json", &rec, &whole);
        kt_extrec_free(rec);
        if (a != KT_S_INPUT || b != KT_S_INPUT ||
            strcmp(fast.msg, whole.msg) != 0)
            fail_msg("case %zu: %d '%s' (fast), %d '%s' (whole)", i, a,
                     fast.msg, b, whole.msg);
    }
}

/* A plain entry with one byte changed, inserted or deleted, 3,000 times:
 * the fast reading and the whole parse agree on each, the same records or
 * the same message. */
static void mutated_entries_read_the_same_both_ways(void **state)
{
    static const char entry[] =
        "{\"x\": 2, \"time\": 1.25, \"times\": [1.5, 2.25e-1, 3], "
        "\"compile_time\": 0.5, \"verification_time\": 0, "
        "\"benchmark_time\": 7, \"note\": \"ok\", \"flag\": false}";
    static const char bytes[] = "\"{}[],:-+.0123456789eE \\\tx\x01\xc3";
    char doc[1024], mutated[sizeof entry + 1];
    int taken = 0, refused = 0, failed = 0;

    (void)state;
    for (int i = 0; i < 3000; ++i) {
        size_t at = pick(sizeof entry - 1), n = sizeof entry - 1;
        char b = bytes[pick(sizeof bytes - 1)];
        kt_extrec *a = NULL, *w = NULL;
        kt_err ea, ew;
        kt_status ra, rw;

        memcpy(mutated, entry, sizeof entry);
        if (i % 3 == 0) {
            mutated[at] = b;
        } else if (i % 3 == 1) {
            memmove(mutated + at + 1, mutated + at, n - at + 1);
            mutated[at] = b;
        } else {
            memmove(mutated + at, mutated + at + 1, n - at);
        }
        snprintf(doc, sizeof doc, HEAD "%s}}", mutated);
        tt_write("mutated.json", doc);
        kt_err_clear(&ea);
        kt_err_clear(&ew);
        ra = kt_ktcache_load("mutated.json", &a, &ea);
        rw = kt_ktcache_load_whole("mutated.json", &w, &ew);
        if (ra != rw || strcmp(ea.msg, ew.msg) != 0)
            fail_msg("%s: %d '%s' (fast), %d '%s' (whole)", mutated, ra, ea.msg,
                     rw, ew.msg);
        for (size_t k = 0; !ra && k < a->num_records; ++k)
            same_record(&a->records[k], &w->records[k], k);
        taken += !ra && a->plain_entries == 2;
        refused += !ra && a->plain_entries < 2;
        failed += ra != KT_S_OK;
        kt_extrec_free(a);
        kt_extrec_free(w);
    }
    printf("mutated: %d taken fast, %d parsed whole, %d refused with a "
           "message\n",
           taken, refused, failed);
    assert_true(taken > 100 && refused > 30 && failed > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_and_whole_readings_give_the_same_records),
        cmocka_unit_test(damaged_entries_give_the_same_message_both_ways),
        cmocka_unit_test(mutated_entries_read_the_same_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
