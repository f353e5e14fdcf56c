// SPDX-License-Identifier: Apache-2.0
/*
 * The value lists of T1 space files written as Python (core/t1.h):
 * "[16, 32]", "list(range(32, 1024+1, 32))", "[1, 2] + list(range(4, 9))",
 * "[2**i for i in range(0, 6)]", "[2*i for i in range(1, 11) if i % 2]".
 * Elements and range() bounds are kt_expr Python expressions; nothing is
 * executed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/param.h"
#include "core/t1.h"

typedef struct seq {
    int64_t *v;
    size_t n, cap;
} seq;

typedef struct vparser {
    const char *text, *p;
    kt_err *err;
    kt_status rc;
    int nest; /* lists open: the parser recurses once per level */
} vparser;

static kt_status vfail(vparser *vp, const char *what)
{
    if (vp->rc)
        return vp->rc;
    /* A long text is quoted by its start: the message must show what. */
    size_t len = strlen(vp->text);
    vp->rc =
        kt_err_set(vp->err, KT_S_INPUT, "'%.*s%s': %s at column %d",
                   len > 120 ? 100 : (int)len, vp->text, len > 120 ? "..." : "",
                   what, (int)(vp->p - vp->text) + 1);
    return vp->rc;
}

static kt_status push(vparser *vp, seq *s, int64_t x)
{
    if (s->n == KT_MAX_PARAM_VALUES) {
        char what[64];
        snprintf(what, sizeof what, "more than %d values", KT_MAX_PARAM_VALUES);
        return vfail(vp, what);
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        int64_t *grown = realloc(s->v, cap * sizeof *grown);
        if (!grown)
            return vp->rc = kt_err_set(vp->err, KT_S_NOMEM, "out of memory");
        s->v = grown;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return KT_S_OK;
}

static void vskip(vparser *vp)
{
    while (isspace((unsigned char)*vp->p))
        ++vp->p;
}

static int vaccept(vparser *vp, char c)
{
    vskip(vp);
    if (*vp->p != c)
        return 0;
    ++vp->p;
    return 1;
}

static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int word_at(const char *p, const char *w)
{
    size_t n = strlen(w);
    return strncmp(p, w, n) == 0 && !is_ident(p[n]);
}

static int vword(vparser *vp, const char *w)
{
    vskip(vp);
    if (!word_at(vp->p, w))
        return 0;
    vp->p += strlen(w);
    return 1;
}

/* The end of an element starting at p: the first ',', ')' or ']' outside
 * brackets, or a 'for' / 'if' word there. */
static const char *element_end(const char *start)
{
    int depth = 0;
    for (const char *p = start; *p; ++p) {
        if (*p == '(' || *p == '[' || *p == '{')
            ++depth;
        else if ((*p == ')' || *p == ']' || *p == '}') && depth-- == 0)
            return p;
        else if (*p == ',' && depth == 0)
            return p;
        else if (depth == 0 && (p == start || !is_ident(p[-1])) &&
                 (word_at(p, "for") || word_at(p, "if")))
            return p;
    }
    return start + strlen(start);
}

/* Evaluates the element text [p, end) as a Python integer, with the loop
 * variable var = x when var is given. */
static kt_status element(vparser *vp, const char *end, const char *var,
                         int64_t x, int64_t *out)
{
    size_t len = (size_t)(end - vp->p);
    char *text = malloc(len + 1), what[700];
    kt_expr *e = NULL;
    kt_expr_value v;
    kt_err err;
    const char *names[1] = {var};

    if (!text)
        return vp->rc = kt_err_set(vp->err, KT_S_NOMEM, "out of memory");
    memcpy(text, vp->p, len);
    text[len] = '\0';
    if (kt_expr_parse_as(text, KT_EXPR_PYTHON, names, var ? 1 : 0, &e, &err) ||
        kt_expr_eval_value(e, &x, &v, &err)) {
        snprintf(what, sizeof what, "in '%s': %s", text, err.msg);
        vfail(vp, what);
    } else if (v.is_float) {
        snprintf(what, sizeof what, "'%s' is %g; parameters are integers", text,
                 v.f);
        vfail(vp, what);
    } else {
        *out = v.i;
    }
    kt_expr_free(e);
    free(text);
    return vp->rc;
}

static kt_status iterable(vparser *vp, seq *s);
static kt_status concat(vparser *vp, seq *s);

/* range(stop), range(start, stop), range(start, stop, step). */
static kt_status range_args(vparser *vp, seq *s)
{
    int64_t a[3] = {0, 0, 1};
    size_t n = 0;

    do {
        if (n == 3)
            return vfail(vp, "range() with more than 3 arguments");
        vskip(vp);
        if (element(vp, element_end(vp->p), NULL, 0, &a[n++]))
            return vp->rc;
        vp->p = element_end(vp->p);
    } while (vaccept(vp, ','));
    if (!vaccept(vp, ')'))
        return vfail(vp, "a missing ')' after range(");
    if (n == 1) {
        a[1] = a[0];
        a[0] = 0;
    }
    if (a[2] == 0)
        return vfail(vp, "range() with step 0");
    for (int64_t x = a[0]; a[2] > 0 ? x < a[1] : x > a[1];) {
        if (push(vp, s, x))
            return vp->rc;
        if (__builtin_add_overflow(x, a[2], &x))
            break;
    }
    return KT_S_OK;
}

/* [EXPR for NAME in ITERABLE] or [EXPR for NAME in ITERABLE if COND], at
 * 'for'; first is where EXPR starts. */
static kt_status comprehension(vparser *vp, const char *first, seq *s)
{
    char var[64];
    size_t len = 0;
    seq over = {0};
    const char *body_end = vp->p, *cond = NULL, *after;

    vword(vp, "for");
    vskip(vp);
    while (is_ident(vp->p[len]) && len + 1 < sizeof var)
        ++len;
    if (len == 0 || isdigit((unsigned char)vp->p[0]))
        return vfail(vp, "a missing loop variable after 'for'");
    memcpy(var, vp->p, len);
    var[len] = '\0';
    vp->p += len;
    if (!vword(vp, "in"))
        return vfail(vp, "a missing 'in'");
    if (!iterable(vp, &over) && vword(vp, "if")) {
        vskip(vp);
        cond = vp->p;
        vp->p = element_end(vp->p);
    }
    after = vp->p;
    for (size_t i = 0; i < over.n && !vp->rc; ++i) {
        int64_t x, keep = 1;
        if (cond) {
            vp->p = cond;
            if (element(vp, element_end(cond), var, over.v[i], &keep))
                break;
        }
        vp->p = first;
        if (keep && !element(vp, body_end, var, over.v[i], &x))
            push(vp, s, x);
    }
    free(over.v);
    if (!vp->rc)
        vp->p = after;
    return vp->rc;
}

/* After '[': elements, or a comprehension, then ']'. */
static kt_status list_items(vparser *vp, seq *s)
{
    size_t before = s->n;

    vskip(vp);
    while (*vp->p != ']') {
        const char *start = vp->p, *end = element_end(start);
        int64_t x;
        if (end == start)
            return vfail(vp, *end ? "a missing value" : "a missing ']'");
        if (word_at(end, "for")) {
            vp->p = end;
            if (s->n > before || comprehension(vp, start, s))
                return vp->rc ? vp->rc
                              : vfail(vp, "a comprehension after values");
            break;
        }
        if (word_at(end, "if"))
            return vfail(vp, "'if' outside a comprehension");
        if (element(vp, end, NULL, 0, &x) || push(vp, s, x))
            return vp->rc;
        vp->p = end;
        if (!vaccept(vp, ','))
            break;
        vskip(vp);
    }
    if (!vaccept(vp, ']'))
        return vfail(vp, "a missing ']'");
    return KT_S_OK;
}

static kt_status iterable_here(vparser *vp, seq *s);

/* One list, one level deeper; too deep is refused naming the limit. */
static kt_status iterable(vparser *vp, seq *s)
{
    char what[80];
    kt_status rc;

    if (vp->nest >= KT_T1_MAX_NESTING) {
        snprintf(what, sizeof what,
                 "lists nested deeper than %d levels (the limit)",
                 KT_T1_MAX_NESTING);
        return vfail(vp, what);
    }
    ++vp->nest;
    rc = iterable_here(vp, s);
    --vp->nest;
    return rc;
}

static kt_status iterable_here(vparser *vp, seq *s)
{
    vskip(vp);
    if (vaccept(vp, '['))
        return list_items(vp, s);
    if (word_at(vp->p, "range") || word_at(vp->p, "list") ||
        word_at(vp->p, "tuple")) {
        int is_range = word_at(vp->p, "range");
        vp->p += is_range ? 5 : word_at(vp->p, "list") ? 4 : 5;
        if (!vaccept(vp, '('))
            return vfail(vp, "a missing '('");
        if (is_range)
            return range_args(vp, s);
        if (iterable(vp, s))
            return vp->rc;
        return vaccept(vp, ')') ? KT_S_OK : vfail(vp, "a missing ')'");
    }
    if (vaccept(vp, '(')) {
        if (concat(vp, s))
            return vp->rc;
        return vaccept(vp, ')') ? KT_S_OK : vfail(vp, "a missing ')'");
    }
    return vfail(vp, "expected a list: '[1, 2]', 'list(range(a, b))', "
                     "'[2**i for i in range(n)]', or such lists joined by +");
}

/* ITERABLE + ITERABLE + ...: Python's list concatenation. */
static kt_status concat(vparser *vp, seq *s)
{
    do {
        if (iterable(vp, s))
            return vp->rc;
    } while (vaccept(vp, '+'));
    return KT_S_OK;
}

kt_status kt_t1_parse_values(const char *text, int64_t **values, size_t *count,
                             kt_err *err)
{
    vparser vp = {text, text, err, KT_S_OK, 0};
    seq s = {0};

    *values = NULL;
    *count = 0;
    if (!concat(&vp, &s)) {
        vskip(&vp);
        if (*vp.p)
            vfail(&vp, "unexpected text after the list");
        else if (s.n == 0)
            vfail(&vp, "no values");
    }
    if (vp.rc) {
        free(s.v);
        return vp.rc;
    }
    *values = s.v;
    *count = s.n;
    return KT_S_OK;
}
