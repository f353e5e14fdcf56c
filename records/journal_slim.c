// SPDX-License-Identifier: Apache-2.0
#include "records/journal_slim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "records/journal_check.h"

/* The top-level members kept, in the order kt_journal_slim_record sets
 * them. */
static const char *const kept[] = {"kind",   "point",   "status",
                                   "reason", "purpose", "counters",
                                   "config", "timing",  "energy"};
enum { KEPT_PLAIN = 7, KEPT_TIMING = 7, KEPT_ENERGY = 8, KEPT_N = 9 };

/* A record's energy figures (kt_journal_energy's, in its order). */
static const char *const energy_kept[] = {"measured", "joules_per_launch",
                                          "ci_lo_j",  "ci_hi_j",
                                          "power_w",  "power_limit_w"};
enum { ENERGY_N = 6 };

json_t *kt_journal_slim_record(const json_t *rec)
{
    const json_t *k = json_object_get(json_object_get(rec, "timing"), "kernel");
    json_t *e = json_object_get(rec, "energy"), *out;
    int bad;

    if (!json_is_object(k)) /* a failed point: small, and read whole */
        return json_incref((json_t *)rec);
    out = json_object();
    bad = !out;
    for (size_t i = 0; !bad && i < KEPT_PLAIN; ++i) {
        json_t *v = json_object_get(rec, kept[i]);
        bad = v && json_object_set(out, kept[i], v);
    }
    if (!bad)
        bad =
            json_object_set_new(out, "timing", json_pack("{s:O}", "kernel", k));
    if (!bad && json_is_object(e)) {
        json_t *copy = json_object();
        bad = !copy || json_object_set_new(out, "energy", copy);
        for (size_t i = 0; !bad && i < ENERGY_N; ++i) {
            json_t *v = json_object_get(e, energy_kept[i]);
            bad = v && json_object_set(copy, energy_kept[i], v);
        }
    }
    if (bad) {
        json_decref(out);
        return NULL;
    }
    return out;
}

/* ------------------------------------------------------------- the pass */

/* Deeper values are left to jansson (whose own limit is 2048). */
#define KT_JOURNAL_SLIM_MAX_DEPTH 32

typedef struct span {
    const char *at; /* NULL: not found */
    size_t len;
} span;

typedef struct cursor {
    const char *p, *end;
} cursor;

static int more(const cursor *c)
{
    return c->p < c->end;
}

static void blanks(cursor *c)
{
    while (more(c) &&
           (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        ++c->p;
}

/* A string, from its opening quote to past its closing one. Taken:
 * printable ASCII, and the escapes of one such character; a \u escape
 * (jansson checks its surrogates) and any byte beyond ASCII (jansson
 * checks the UTF-8) are not. 0 taken, -1 not. */
static int skip_string(cursor *c)
{
    ++c->p;
    while (more(c)) {
        unsigned char b = (unsigned char)*c->p++;
        if (b == '"')
            return 0;
        if (b < 0x20 || b >= 0x80)
            return -1;
        if (b == '\\') {
            if (!more(c) || !*c->p || !strchr("\"\\/bfnrt", *c->p))
                return -1;
            ++c->p;
        }
    }
    return -1;
}

static int digits(cursor *c)
{
    int n = 0;
    for (; more(c) && *c->p >= '0' && *c->p <= '9'; ++c->p)
        ++n;
    return n;
}

/* A number as JSON writes it. Not taken where jansson could refuse a
 * well-formed one: an integer beyond 18 digits (int64), an exponent of
 * three digits or a text over 24 characters (a double's range). */
static int skip_number(cursor *c)
{
    const char *start = c->p;
    int whole, real = 0;

    if (*c->p == '-')
        ++c->p;
    if (more(c) && *c->p == '0') {
        ++c->p;
        whole = 1;
    } else if (!(whole = digits(c))) {
        return -1;
    }
    if (more(c) && *c->p == '.') {
        ++c->p;
        real = 1;
        if (!digits(c))
            return -1;
    }
    if (more(c) && (*c->p == 'e' || *c->p == 'E')) {
        int exp;
        ++c->p;
        real = 1;
        if (more(c) && (*c->p == '+' || *c->p == '-'))
            ++c->p;
        if ((exp = digits(c)) < 1 || exp > 2)
            return -1;
    }
    return c->p - start > 24 || (!real && whole > 18) ? -1 : 0;
}

static int skip_word(cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return -1;
    c->p += n;
    return 0;
}

static int read_object(cursor *c, int depth, const char *const *names, size_t n,
                       span *found);
static int skip_value(cursor *c, int depth);

static int skip_array(cursor *c, int depth)
{
    if (depth > KT_JOURNAL_SLIM_MAX_DEPTH)
        return -1;
    ++c->p;
    blanks(c);
    if (more(c) && *c->p == ']') {
        ++c->p;
        return 0;
    }
    for (;;) {
        if (skip_value(c, depth))
            return -1;
        blanks(c);
        if (!more(c) || (*c->p != ',' && *c->p != ']'))
            return -1;
        if (*c->p++ == ']')
            return 0;
        blanks(c);
    }
}

/* One value at c->p, skipped; depth: of the container holding it. */
static int skip_value(cursor *c, int depth)
{
    if (!more(c))
        return -1;
    switch (*c->p) {
    case '{': return read_object(c, depth + 1, NULL, 0, NULL);
    case '[': return skip_array(c, depth + 1);
    case '"': return skip_string(c);
    case 't': return skip_word(c, "true");
    case 'f': return skip_word(c, "false");
    case 'n': return skip_word(c, "null");
    default:
        return *c->p == '-' || (*c->p >= '0' && *c->p <= '9') ? skip_number(c)
                                                              : -1;
    }
}

/* The object at c->p (its '{'), every value skipped; found[i] the span of
 * the value of the last member named names[i] (as jansson keeps the last
 * of duplicate keys). A key with an escape names none of them. */
static int read_object(cursor *c, int depth, const char *const *names, size_t n,
                       span *found)
{
    if (depth > KT_JOURNAL_SLIM_MAX_DEPTH)
        return -1;
    ++c->p;
    blanks(c);
    if (more(c) && *c->p == '}') {
        ++c->p;
        return 0;
    }
    for (;;) {
        const char *key = c->p, *value;
        size_t key_len;
        if (!more(c) || *c->p != '"' || skip_string(c))
            return -1;
        key_len = (size_t)(c->p - key) - 2;
        blanks(c);
        if (!more(c) || *c->p != ':')
            return -1;
        ++c->p;
        blanks(c);
        value = c->p;
        if (skip_value(c, depth))
            return -1;
        for (size_t i = 0; i < n; ++i) /* stops at the first difference */
            if (strncmp(names[i], key + 1, key_len) == 0 && !names[i][key_len])
                found[i] = (span){value, (size_t)(c->p - value)};
        blanks(c);
        if (!more(c) || (*c->p != ',' && *c->p != '}'))
            return -1;
        if (*c->p++ == '}')
            return 0;
        blanks(c);
    }
}

/* The members of the object spanned by s (taken already). */
static int read_span(span s, const char *const *names, size_t n, span *found)
{
    cursor c = {s.at, s.at + s.len};
    return read_object(&c, 1, names, n, found);
}

static int span_is(span s, const char *text)
{
    return s.at && s.len == strlen(text) && memcmp(s.at, text, s.len) == 0;
}

/* Appends "name":value (and a comma unless first) at *at. */
static void put_member(char **at, const char *name, span value, int first)
{
    size_t n = strlen(name);
    if (!first)
        *(*at)++ = ',';
    *(*at)++ = '"';
    memcpy(*at, name, n);
    *at += n;
    *(*at)++ = '"';
    *(*at)++ = ':';
    memcpy(*at, value.at, value.len);
    *at += value.len;
}

/* kt_journal_slim_record's object less "timing" and "energy" from the spans,
 * parsed in one json_loadb of their text put together (one parse per record,
 * not one per value); NULL without memory (the spans were taken). */
static json_t *build(size_t len, const span *top)
{
    /* At most the record's own text, plus the braces. */
    char stack[4096],
        *text = len + 256 <= sizeof stack ? stack : malloc(len + 256);
    char *at = text;
    json_error_t jerr;
    json_t *out;
    int first = 1;

    if (!text)
        return NULL;
    *at++ = '{';
    for (size_t i = 0; i < KEPT_PLAIN; ++i)
        if (top[i].at) {
            put_member(&at, kept[i], top[i], first);
            first = 0;
        }
    *at++ = '}';
    out = json_loadb(text, (size_t)(at - text), 0, &jerr);
    if (text != stack)
        free(text);
    return out;
}

/* timing.kernel's members read: records/journal_check.h's statistics,
 * then the sample count. */
enum { KERNEL_N = KT_JOURNAL_NUM_STATS + 1 };
enum {
    STAT_MEDIAN,
    STAT_MIN,
    STAT_MAX,
    STAT_MEAN,
    STAT_Q1,
    STAT_Q3,
    STAT_CI_LO,
    STAT_CI_HI,
    STAT_NOISE = 11,
    STAT_N = 12
};

static void kernel_names(const char **names)
{
    for (size_t i = 0; i < KT_JOURNAL_NUM_STATS; ++i)
        names[i] = kt_journal_kernel_stats[i];
    names[STAT_N] = "n";
}

/* The figures read from v (statistics in kt_journal_kernel_stats' order),
 * samples as given. */
static kt_journal_kernel kernel_from(const double *v, long samples)
{
    return (kt_journal_kernel){.median = v[STAT_MEDIAN],
                               .min = v[STAT_MIN],
                               .q1 = v[STAT_Q1],
                               .q3 = v[STAT_Q3],
                               .ci_lo = v[STAT_CI_LO],
                               .ci_hi = v[STAT_CI_HI],
                               .noise = v[STAT_NOISE],
                               .samples = samples};
}

kt_journal_kernel kt_journal_kernel_of(const json_t *kernel)
{
    const char *names[KERNEL_N];
    double v[KERNEL_N];
    const json_t *n = json_object_get(kernel, "n");

    kernel_names(names);
    for (size_t i = 0; i < KT_JOURNAL_NUM_STATS; ++i) {
        const json_t *x = json_object_get(kernel, names[i]);
        v[i] = json_is_number(x) ? json_number_value(x) : NAN;
    }
    return kernel_from(v,
                       json_is_integer(n) ? (long)json_integer_value(n) : -1);
}

static int is_number(span s)
{
    return s.at && (*s.at == '-' || (*s.at >= '0' && *s.at <= '9'));
}

/* A number span's value (it ends at a delimiter: strtod stops there);
 * NaN for any other value or none. */
static double number(span s)
{
    return is_number(s) ? strtod(s.at, NULL) : NAN;
}

kt_journal_energy kt_journal_energy_of(const json_t *energy)
{
    kt_journal_energy e = {json_is_true(json_object_get(energy, "measured")),
                           NAN,
                           NAN,
                           NAN,
                           NAN,
                           NAN};
    double *figure[] = {&e.joules_per_launch, &e.ci_lo_j, &e.ci_hi_j,
                        &e.power_w, &e.power_limit_w};
    for (size_t i = 1; i < ENERGY_N; ++i) {
        const json_t *v = json_object_get(energy, energy_kept[i]);
        if (json_is_number(v))
            *figure[i - 1] = json_number_value(v);
    }
    return e;
}

/* The kernel object spanned by ks into *k; ok: the point was recorded
 * ok, and its statistics must hold (else -1: the whole parse says why). */
static int read_kernel(span ks, int ok, kt_journal_kernel *k)
{
    const char *names[KERNEL_N];
    span f[KERNEL_N] = {{0}};
    double v[KERNEL_N];
    span n;

    kernel_names(names);
    if (read_span(ks, names, KERNEL_N, f))
        return -1;
    for (size_t i = 0; i < KT_JOURNAL_NUM_STATS; ++i) {
        v[i] = number(f[i]);
        if (ok && f[i].at &&
            (!is_number(f[i]) || !kt_journal_stat_holds(i, v[i])))
            return -1;
    }
    if (ok && !f[STAT_MEDIAN].at)
        return -1;
    /* An integer: no fraction, no exponent (jansson's json_is_integer). */
    n = f[STAT_N];
    *k = kernel_from(v, is_number(n) && !memchr(n.at, '.', n.len) &&
                                !memchr(n.at, 'e', n.len) &&
                                !memchr(n.at, 'E', n.len)
                            ? strtol(n.at, NULL, 10)
                            : -1);
    return 0;
}

/* Whether the string spanned by s is the ok status. */
static int status_ok(span s)
{
    const char *ok = kt_eval_status_name(KT_EVAL_OK);
    size_t n = strlen(ok);
    return s.at && s.len == n + 2 && s.at[0] == '"' &&
           memcmp(s.at + 1, ok, n) == 0;
}

kt_journal_slim_outcome kt_journal_slim_text(const char *text, size_t len,
                                             json_t **out,
                                             kt_journal_kernel *kernel,
                                             kt_journal_energy *energy)
{
    static const char *const kernel_name[] = {"kernel"};
    span top[KEPT_N] = {{0}}, ks = {0}, figures[ENERGY_N] = {{0}};
    span status;
    cursor c = {text, text + len};

    *out = NULL;
    blanks(&c);
    if (!more(&c) || *c.p != '{' || read_object(&c, 1, kept, KEPT_N, top))
        return KT_JOURNAL_SLIM_WHOLE;
    blanks(&c);
    status = top[2];
    if (more(&c) ||
        (!span_is(top[0], "\"eval\"") && !span_is(top[0], "\"check\"")) ||
        !status.at || *status.at != '"' || !top[KEPT_TIMING].at ||
        *top[KEPT_TIMING].at != '{' ||
        read_span(top[KEPT_TIMING], kernel_name, 1, &ks) || !ks.at ||
        *ks.at != '{' || read_kernel(ks, status_ok(status), kernel))
        return KT_JOURNAL_SLIM_WHOLE;
    if (top[KEPT_ENERGY].at && *top[KEPT_ENERGY].at == '{' &&
        read_span(top[KEPT_ENERGY], energy_kept, ENERGY_N, figures))
        return KT_JOURNAL_SLIM_WHOLE;
    *energy = (kt_journal_energy){
        span_is(figures[0], "true"), number(figures[1]), number(figures[2]),
        number(figures[3]),          number(figures[4]), number(figures[5])};
    *out = build(len, top);
    return *out ? KT_JOURNAL_SLIM_DONE : KT_JOURNAL_SLIM_WHOLE;
}

int kt_journal_slim_member(const char *text, size_t len, const char *name,
                           const char **at, size_t *n)
{
    const char *const names[] = {name};
    span found = {0};
    cursor c = {text, text + len};

    blanks(&c);
    if (!more(&c) || *c.p != '{' || read_object(&c, 1, names, 1, &found))
        return -1;
    blanks(&c);
    if (more(&c))
        return -1;
    if (!found.at)
        return 0;
    *at = found.at;
    *n = found.len;
    return 1;
}

size_t kt_journal_slim_object_length(const char *text, size_t len)
{
    cursor c = {text, text + len};

    blanks(&c);
    if (!more(&c) || *c.p != '{' || read_object(&c, 1, NULL, 0, NULL))
        return 0;
    return (size_t)(c.p - text);
}
