// SPDX-License-Identifier: Apache-2.0
#include "records/ktentry.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "records/ktcache.h"

/* The members records/ktcache.c's cache_entry reads. */
enum {
    M_TIME,
    M_TIMES,
    M_COMPILE,
    M_VERIFY,
    M_BENCH,
    M_FRAMEWORK,
    M_STRATEGY,
    M_N
};
static const char *const member_names[M_N] = {
    "time",           "times",          "compile_time", "verification_time",
    "benchmark_time", "framework_time", "strategy_time"};
/* time, compile_time, verification_time and benchmark_time */
#define M_REQUIRED                                                             \
    ((1u << M_TIME) | (1u << M_COMPILE) | (1u << M_VERIFY) | (1u << M_BENCH))

/* Other members, each kept to check that none is written twice; an entry
 * with more is parsed whole. */
#define KT_KTENTRY_MAX_OTHERS 32

struct kt_ktentry {
    const kt_extrec *rec;
    size_t name_len[KT_MAX_PARAMS];
    int strtod_ok;   /* the locale's decimal point is "." */
    double *runs;    /* the entry's runs being read; reused */
    size_t runs_cap; /* of them */
};

typedef struct cur {
    const char *p, *end;
} cur;

typedef struct span {
    const char *at;
    size_t len;
} span;

/* What an entry's members said. */
typedef struct found {
    unsigned seen; /* 1 << M_* */
    unsigned char param_seen[KT_MAX_PARAMS];
    double value[M_N]; /* the timing members' numbers, as written */
    kt_extrec_verdict verdict;
    span error_name; /* time's, when it is one */
    size_t num_runs; /* in e->runs */
    span others[KT_KTENTRY_MAX_OTHERS];
    size_t num_others;
} found;

kt_ktentry *kt_ktentry_new(const kt_extrec *rec)
{
    kt_ktentry *e = calloc(1, sizeof *e);
    const char *point = localeconv()->decimal_point;

    if (!e)
        return NULL;
    e->rec = rec;
    e->strtod_ok = point && strcmp(point, ".") == 0;
    for (size_t p = 0; p < rec->num_params; ++p) {
        e->name_len[p] = strlen(rec->params[p].name);
        for (size_t m = 0; m < M_N; ++m)
            if (strcmp(rec->params[p].name, member_names[m]) == 0) {
                free(e);
                return NULL;
            }
    }
    return e;
}

void kt_ktentry_free(kt_ktentry *e)
{
    if (e)
        free(e->runs);
    free(e);
}

/* ------------------------------------------------------------- syntax */

static void blanks(cur *c)
{
    while (c->p < c->end &&
           (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        ++c->p;
}

/* The next byte past blanks is ch: consumed, 1. */
static int eat(cur *c, char ch)
{
    blanks(c);
    if (c->p < c->end && *c->p == ch) {
        ++c->p;
        return 1;
    }
    return 0;
}

/* A string of printable ASCII without escapes, its quotes consumed: what
 * jansson would decode to the same bytes. 1 with its text, 0 refused. */
static int plain_string(cur *c, span *s)
{
    const char *q;
    if (!eat(c, '"'))
        return 0;
    for (q = c->p; q < c->end && *q != '"'; ++q)
        if (*q < 0x20 || *q > 0x7e || *q == '\\')
            return 0;
    if (q == c->end)
        return 0;
    s->at = c->p;
    s->len = (size_t)(q - c->p);
    c->p = q + 1;
    return 1;
}

static int is_digit(const cur *c, const char *p)
{
    return p < c->end && *p >= '0' && *p <= '9';
}

/* A number's digits: the significand w (its first 19 significant digits),
 * how many significant digits there were, and the count of those after
 * the point. */
typedef struct digits {
    uint64_t w;
    int sig, whole, frac, exp, real, neg;
} digits;

static void add_digit(digits *d, char ch)
{
    if (!d->w && ch == '0')
        return; /* a leading zero: not significant */
    if (++d->sig <= 19)
        d->w = d->w * 10 + (uint64_t)(ch - '0');
}

/* The exponent after 'e' or 'E': at most 4 digits, else 0. */
static int exponent(cur *c, const char **p, digits *d)
{
    int sign = 1, n = 0;
    ++*p;
    if (*p < c->end && (**p == '+' || **p == '-'))
        sign = *(*p)++ == '-' ? -1 : 1;
    if (!is_digit(c, *p))
        return 0;
    for (; is_digit(c, *p); ++*p) {
        if (++n > 4)
            return 0;
        d->exp = d->exp * 10 + (**p - '0');
    }
    d->exp *= sign;
    d->real = 1;
    return 1;
}

/* A JSON number's grammar, as jansson's lexer takes it (no leading zero,
 * digits after a point and in an exponent); c moved past it. 0: not a
 * number jansson reads. */
static int scan_number(cur *c, digits *d)
{
    const char *p = c->p;

    memset(d, 0, sizeof *d);
    if (p < c->end && *p == '-')
        d->neg = 1, ++p;
    if (!is_digit(c, p))
        return 0;
    if (*p == '0') {
        if (is_digit(c, ++p))
            return 0;
        d->whole = 1;
    }
    for (; is_digit(c, p); ++p, ++d->whole)
        add_digit(d, *p);
    if (p < c->end && *p == '.') {
        d->real = 1;
        if (!is_digit(c, ++p))
            return 0;
        for (; is_digit(c, p); ++p, ++d->frac)
            add_digit(d, *p);
    }
    if (p < c->end && (*p == 'e' || *p == 'E') && !exponent(c, &p, d))
        return 0;
    c->p = p;
    return 1;
}

/* 10^0 .. 10^22: the powers of ten a double holds exactly. */
static const double exact_pow10[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A number's value as jansson gives it (json_number_value), to the bit:
 * 1 and *v, 0 refused (jansson could refuse it, or only strtod in another
 * locale could say). */
static int number(const kt_ktentry *e, cur *c, double *v)
{
    const char *start = c->p;
    char *end;
    digits d;
    int e10;

    if (!scan_number(c, &d))
        return 0;
    if (!d.real) { /* jansson: an integer, strtoll's; json_integer */
        if (d.whole > 18)
            return 0;
        *v = (double)(d.neg ? -(int64_t)d.w : (int64_t)d.w);
        return 1;
    }
    e10 = d.exp - d.frac;
#if FLT_EVAL_METHOD == 0 /* each operation rounded once, to double */
    /* Clinger's exact case: w < 10^15 < 2^53 and 10^|e10| are both exact,
     * so the one rounding of w * 10^e10 or w / 10^-e10 is the correctly
     * rounded value, strtod's. */
    if (d.sig <= 15 && e10 >= -22 && e10 <= 22) {
        double w = (double)d.w;
        w = e10 < 0 ? w / exact_pow10[-e10] : w * exact_pow10[e10];
        *v = d.neg ? -w : w;
        return 1;
    }
#endif
    if (!e->strtod_ok)
        return 0;
    errno = 0;
    *v = strtod(start, &end); /* jansson's own call, on the same text */
    return end == c->p && errno != ERANGE;
}

/* Any other member's value: a plain string, a number, true, false, null. */
static int other_value(const kt_ktentry *e, cur *c)
{
    static const char *const words[] = {"true", "false", "null"};
    span s;
    double v;

    blanks(c);
    if (c->p < c->end && *c->p == '"')
        return plain_string(c, &s);
    for (size_t i = 0; i < 3; ++i) {
        size_t n = strlen(words[i]);
        if ((size_t)(c->end - c->p) >= n && memcmp(c->p, words[i], n) == 0) {
            c->p += n;
            return 1;
        }
    }
    return number(e, c, &v);
}

/* ------------------------------------------------------------- values */

/* A time as cache_entry takes it: a number >= 0 whose milliseconds are at
 * most KT_KTCACHE_MAX_MS (> 0 for time itself). */
static int time_value(const kt_ktentry *e, cur *c, int positive, double *v)
{
    blanks(c);
    if (c->p == c->end || *c->p == '-' || !number(e, c, v))
        return 0;
    return (!positive || *v > 0) && *v * e->rec->unit_ms <= KT_KTCACHE_MAX_MS;
}

static int error_name(const span *s, kt_extrec_verdict *v)
{
    static const struct {
        const char *name;
        kt_extrec_verdict verdict;
    } names[] = {{"InvalidConfig", KT_EXTREC_CONSTRAINTS},
                 {"CompilationFailedConfig", KT_EXTREC_COMPILE},
                 {"RuntimeFailedConfig", KT_EXTREC_RUNTIME}};
    for (size_t i = 0; i < 3; ++i)
        if (s->len == strlen(names[i].name) &&
            memcmp(s->at, names[i].name, s->len) == 0) {
            *v = names[i].verdict;
            return 1;
        }
    return 0;
}

/* time: a positive time, or one of Kernel Tuner's error names. */
static int objective(const kt_ktentry *e, cur *c, found *f)
{
    blanks(c);
    if (c->p < c->end && *c->p == '"')
        return plain_string(c, &f->error_name) &&
               error_name(&f->error_name, &f->verdict);
    f->verdict = KT_EXTREC_CORRECT;
    return time_value(e, c, 1, &f->value[M_TIME]);
}

/* times: a list of numbers >= 0, into e->runs. -1 out of memory. */
static int runs(kt_ktentry *e, cur *c, found *f)
{
    double v;
    f->num_runs = 0;
    if (!eat(c, '['))
        return 0;
    if (eat(c, ']'))
        return 1;
    do {
        blanks(c);
        if (c->p == c->end || *c->p == '-' || !number(e, c, &v))
            return 0;
        if (f->num_runs == e->runs_cap) {
            size_t cap = e->runs_cap ? 2 * e->runs_cap : 64;
            double *grown = realloc(e->runs, cap * sizeof *grown);
            if (!grown)
                return -1;
            e->runs = grown;
            e->runs_cap = cap;
        }
        e->runs[f->num_runs++] = v;
    } while (eat(c, ','));
    return eat(c, ']') && f->num_runs <= UINT32_MAX;
}

/* The entry's own copy of parameter p: an integer that is the key's. */
static int param_value(const kt_ktentry *e, cur *c, size_t p, uint32_t pos)
{
    const kt_extrec_param *par = &e->rec->params[p];
    uint64_t at;
    digits d;

    blanks(c);
    if (!par->integer || !scan_number(c, &d) || d.real || d.whole > 18)
        return 0;
    return kt_u64map_get(&par->by_key,
                         (uint64_t)(d.neg ? -(int64_t)d.w : (int64_t)d.w),
                         &at) &&
           at == pos;
}

/* A member whose key is none of the above: its key not seen before. */
static int other_member(kt_ktentry *e, cur *c, const span *key, found *f)
{
    for (size_t i = 0; i < f->num_others; ++i)
        if (f->others[i].len == key->len &&
            memcmp(f->others[i].at, key->at, key->len) == 0)
            return 0;
    if (f->num_others == KT_KTENTRY_MAX_OTHERS)
        return 0;
    f->others[f->num_others++] = *key;
    return other_value(e, c);
}

/* One member, key and value; 1 taken, 0 refused, -1 out of memory. */
static int member(kt_ktentry *e, cur *c, const uint32_t *pos, found *f)
{
    span key;
    if (!plain_string(c, &key) || !eat(c, ':'))
        return 0;
    for (unsigned m = 0; m < M_N; ++m) {
        if (key.len != strlen(member_names[m]) ||
            memcmp(key.at, member_names[m], key.len) != 0)
            continue;
        if (f->seen & (1u << m))
            return 0; /* jansson's duplicate key */
        f->seen |= 1u << m;
        if (m == M_TIME)
            return objective(e, c, f);
        if (m == M_TIMES)
            return runs(e, c, f);
        return time_value(e, c, 0, &f->value[m]);
    }
    for (size_t p = 0; p < e->rec->num_params; ++p) {
        if (key.len != e->name_len[p] ||
            memcmp(key.at, e->rec->params[p].name, key.len) != 0)
            continue;
        if (f->param_seen[p])
            return 0;
        f->param_seen[p] = 1;
        return param_value(e, c, p, pos[p]);
    }
    return other_member(e, c, &key, f);
}

/* The record of what was found. -1 out of memory. */
static int fill(kt_ktentry *e, const found *f, kt_extrec_record *r)
{
    double unit = e->rec->unit_ms;
    json_t *name = NULL;
    double *copy = NULL;

    if (f->error_name.at &&
        !(name = json_stringn(f->error_name.at, f->error_name.len)))
        return -1;
    if (f->num_runs && !(copy = malloc(f->num_runs * sizeof *copy))) {
        json_decref(name);
        return -1;
    }
    for (size_t i = 0; i < f->num_runs; ++i)
        copy[i] = e->runs[i] * unit;
    r->verdict = f->verdict;
    r->objective = name;
    r->time_ms = name ? 0 : f->value[M_TIME] * unit;
    r->compile_ms = f->value[M_COMPILE] * unit;
    r->verify_ms = f->value[M_VERIFY] * unit;
    r->bench_ms = f->value[M_BENCH] * unit;
    r->framework_ms = f->value[M_FRAMEWORK] * unit;
    r->strategy_ms = f->value[M_STRATEGY] * unit;
    r->runs_ms = copy;
    r->num_runs = (uint32_t)f->num_runs;
    return 0;
}

kt_ktentry_result kt_ktentry_read(kt_ktentry *e, const char *text, size_t len,
                                  const uint32_t *pos, kt_extrec_record *r)
{
    cur c = {text, text + len};
    found f;
    int got = 1;

    memset(&f, 0, sizeof f);
    /* Its last byte its '}': strtod, which reads to the first byte that is
     * not a number's, stops inside the text. */
    if (!len || text[len - 1] != '}' || !eat(&c, '{'))
        return KT_KTENTRY_REFUSED;
    if (!eat(&c, '}')) {
        do
            got = member(e, &c, pos, &f);
        while (got == 1 && eat(&c, ','));
        if (got == 1)
            got = eat(&c, '}');
    }
    if (got < 0)
        return KT_KTENTRY_NOMEM;
    blanks(&c);
    if (!got || c.p != c.end || (f.seen & M_REQUIRED) != M_REQUIRED)
        return KT_KTENTRY_REFUSED;
    return fill(e, &f, r) ? KT_KTENTRY_NOMEM : KT_KTENTRY_TAKEN;
}
