// SPDX-License-Identifier: Apache-2.0
#include "core/expr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reverse Polish code: parsed once, evaluated on a small stack. */
typedef enum op_code {
    OP_CONST,
    OP_NAME,
    OP_NEG,
    OP_NOT,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_AND,
    OP_OR,
    OP_MIN, /* arg: operand count */
    OP_MAX,
    OP_CEIL_DIV
} op_code;

typedef struct op {
    op_code code;
    int64_t arg;
} op;

struct kt_expr {
    char *text;
    op *ops;
    size_t num_ops, cap_ops;
    size_t max_depth;
    uint64_t uses;
};

typedef struct parser {
    kt_expr *e;
    const char *p;
    const char *const *names;
    size_t num_names;
    size_t depth; /* stack depth the code emitted so far reaches */
    kt_err *err;
    kt_status rc;
} parser;

static kt_status fail(parser *ps, const char *what)
{
    if (ps->rc)
        return ps->rc;
    ps->rc = kt_err_set(ps->err, KT_S_INPUT, "'%s': %s at column %d",
                        ps->e->text, what, (int)(ps->p - ps->e->text) + 1);
    return ps->rc;
}

/* pops: operands consumed; the result is pushed. */
static kt_status emit(parser *ps, op_code code, int64_t arg, size_t pops)
{
    kt_expr *e = ps->e;
    if (e->num_ops == e->cap_ops) {
        size_t cap = e->cap_ops ? 2 * e->cap_ops : 16;
        op *grown = realloc(e->ops, cap * sizeof *grown);
        if (!grown)
            return ps->rc = kt_err_set(ps->err, KT_S_NOMEM, "out of memory");
        e->ops = grown;
        e->cap_ops = cap;
    }
    e->ops[e->num_ops++] = (op){code, arg};
    ps->depth = ps->depth - pops + 1;
    if (ps->depth > e->max_depth)
        e->max_depth = ps->depth;
    return KT_S_OK;
}

static void skip_space(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ++ps->p;
}

static int accept(parser *ps, const char *tok)
{
    size_t n = strlen(tok);
    skip_space(ps);
    if (strncmp(ps->p, tok, n) != 0)
        return 0;
    /* "<" must not take the first half of "<=", "!" not of "!=". */
    if (n == 1 && strchr("<>!=", tok[0]) && ps->p[1] == '=')
        return 0;
    ps->p += n;
    return 1;
}

static kt_status parse_or(parser *ps);

static kt_status parse_number(parser *ps)
{
    char *end;
    unsigned long long v;
    int hex = ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X');

    v = strtoull(ps->p, &end, hex ? 16 : 10);
    if (isalnum((unsigned char)*end) || *end == '_')
        return fail(ps, "a malformed number");
    if (v > (unsigned long long)INT64_MAX)
        return fail(ps, "a number larger than 2^63 - 1");
    ps->p = end;
    return emit(ps, OP_CONST, (int64_t)v, 0);
}

static kt_status parse_call(parser *ps, const char *name, size_t len)
{
    op_code code;
    size_t argc = 0;

    if (len == 3 && strncmp(name, "min", 3) == 0)
        code = OP_MIN;
    else if (len == 3 && strncmp(name, "max", 3) == 0)
        code = OP_MAX;
    else if (len == 8 && strncmp(name, "ceil_div", 8) == 0)
        code = OP_CEIL_DIV;
    else {
        ps->p = name;
        return fail(ps, "an unknown function (expected min, max or "
                        "ceil_div)");
    }
    do {
        if (parse_or(ps))
            return ps->rc;
        ++argc;
    } while (accept(ps, ","));
    if (!accept(ps, ")"))
        return fail(ps, "a missing ')'");
    if (code == OP_CEIL_DIV && argc != 2)
        return fail(ps, "ceil_div with other than 2 arguments");
    if (code != OP_CEIL_DIV && argc < 2)
        return fail(ps, "min/max with fewer than 2 arguments");
    return emit(ps, code, (int64_t)argc, argc);
}

static kt_status parse_name(parser *ps)
{
    const char *start = ps->p;
    size_t len;

    while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
        ++ps->p;
    len = (size_t)(ps->p - start);
    if (accept(ps, "("))
        return parse_call(ps, start, len);
    for (size_t i = 0; i < ps->num_names; ++i) {
        if (strlen(ps->names[i]) == len &&
            strncmp(ps->names[i], start, len) == 0) {
            ps->e->uses |= UINT64_C(1) << i;
            return emit(ps, OP_NAME, (int64_t)i, 0);
        }
    }
    ps->p = start;
    {
        char what[200];
        snprintf(what, sizeof what,
                 "'%.*s' is not declared (not a size or "
                 "parameter)",
                 (int)(len < 64 ? len : 64), start);
        return fail(ps, what);
    }
}

static kt_status parse_primary(parser *ps)
{
    skip_space(ps);
    if (isdigit((unsigned char)*ps->p))
        return parse_number(ps);
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_')
        return parse_name(ps);
    if (accept(ps, "(")) {
        if (parse_or(ps))
            return ps->rc;
        if (!accept(ps, ")"))
            return fail(ps, "a missing ')'");
        return KT_S_OK;
    }
    return fail(ps, *ps->p ? "an unexpected character" : "a missing operand");
}

static kt_status parse_unary(parser *ps)
{
    if (accept(ps, "-")) {
        if (parse_unary(ps))
            return ps->rc;
        return emit(ps, OP_NEG, 0, 1);
    }
    if (accept(ps, "!")) {
        if (parse_unary(ps))
            return ps->rc;
        return emit(ps, OP_NOT, 0, 1);
    }
    return parse_primary(ps);
}

/* One precedence level: operands of `next` joined by the tokens in ops. */
typedef kt_status (*level_fn)(parser *ps);

static kt_status parse_level(parser *ps, level_fn next, const char *const *toks,
                             const op_code *codes, size_t n, int chain)
{
    if (next(ps))
        return ps->rc;
    for (;;) {
        size_t k = 0;
        while (k < n && !accept(ps, toks[k]))
            ++k;
        if (k == n)
            return KT_S_OK;
        if (next(ps) || emit(ps, codes[k], 0, 2))
            return ps->rc;
        if (!chain)
            return KT_S_OK;
    }
}

static kt_status parse_mul(parser *ps)
{
    static const char *const t[] = {"*", "/", "%"};
    static const op_code c[] = {OP_MUL, OP_DIV, OP_MOD};
    return parse_level(ps, parse_unary, t, c, 3, 1);
}

static kt_status parse_add(parser *ps)
{
    static const char *const t[] = {"+", "-"};
    static const op_code c[] = {OP_ADD, OP_SUB};
    return parse_level(ps, parse_mul, t, c, 2, 1);
}

static kt_status parse_cmp(parser *ps)
{
    static const char *const t[] = {"==", "!=", "<=", ">=", "<", ">"};
    static const op_code c[] = {OP_EQ, OP_NE, OP_LE, OP_GE, OP_LT, OP_GT};
    return parse_level(ps, parse_add, t, c, 6, 0);
}

static kt_status parse_and(parser *ps)
{
    static const char *const t[] = {"&&"};
    static const op_code c[] = {OP_AND};
    return parse_level(ps, parse_cmp, t, c, 1, 1);
}

static kt_status parse_or(parser *ps)
{
    static const char *const t[] = {"||"};
    static const op_code c[] = {OP_OR};
    return parse_level(ps, parse_and, t, c, 1, 1);
}

kt_status kt_expr_parse(const char *text, const char *const *names,
                        size_t num_names, kt_expr **out, kt_err *err)
{
    parser ps = {0};
    kt_expr *e = calloc(1, sizeof *e);

    *out = NULL;
    if (!e || !(e->text = strdup(text ? text : ""))) {
        free(e);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    ps.e = e;
    ps.p = e->text;
    ps.names = names;
    ps.num_names = num_names > 64 ? 64 : num_names;
    ps.err = err;
    if (parse_or(&ps) == KT_S_OK) {
        skip_space(&ps);
        if (*ps.p)
            fail(&ps, "unexpected text after the expression");
    }
    if (ps.rc) {
        kt_expr_free(e);
        return ps.rc;
    }
    *out = e;
    return KT_S_OK;
}

static kt_status overflow(const kt_expr *e, kt_err *err)
{
    return kt_err_set(err, KT_S_INPUT, "'%s': overflows 64-bit integers",
                      e->text);
}

static kt_status div_zero(const kt_expr *e, kt_err *err)
{
    return kt_err_set(err, KT_S_INPUT, "'%s': division by zero", e->text);
}

static kt_status apply_binary(const kt_expr *e, op_code code, int64_t a,
                              int64_t b, int64_t *r, kt_err *err)
{
    switch (code) {
    case OP_ADD: return __builtin_add_overflow(a, b, r) ? overflow(e, err) : 0;
    case OP_SUB: return __builtin_sub_overflow(a, b, r) ? overflow(e, err) : 0;
    case OP_MUL: return __builtin_mul_overflow(a, b, r) ? overflow(e, err) : 0;
    case OP_DIV:
    case OP_MOD:
    case OP_CEIL_DIV:
        if (b == 0)
            return div_zero(e, err);
        if (a == INT64_MIN && b == -1)
            return overflow(e, err);
        if (code == OP_MOD)
            *r = a % b;
        else
            /* ceil_div rounds up where / truncates toward zero. */
            *r = a / b +
                 (code == OP_CEIL_DIV && a % b != 0 && (a < 0) == (b < 0));
        return KT_S_OK;
    case OP_EQ: *r = a == b; return KT_S_OK;
    case OP_NE: *r = a != b; return KT_S_OK;
    case OP_LT: *r = a < b; return KT_S_OK;
    case OP_LE: *r = a <= b; return KT_S_OK;
    case OP_GT: *r = a > b; return KT_S_OK;
    case OP_GE: *r = a >= b; return KT_S_OK;
    case OP_AND: *r = a && b; return KT_S_OK;
    case OP_OR: *r = a || b; return KT_S_OK;
    case OP_MIN: *r = a < b ? a : b; return KT_S_OK;
    case OP_MAX: *r = a > b ? a : b; return KT_S_OK;
    default: return kt_err_set(err, KT_S_INPUT, "'%s': bad code", e->text);
    }
}

kt_status kt_expr_eval(const kt_expr *e, const int64_t *values, int64_t *out,
                       kt_err *err)
{
    int64_t small[32], *st = small;
    size_t sp = 0;
    kt_status rc = KT_S_OK;

    if (e->max_depth > 32 && !(st = malloc(e->max_depth * sizeof *st)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < e->num_ops && !rc; ++i) {
        const op *o = &e->ops[i];
        switch (o->code) {
        case OP_CONST: st[sp++] = o->arg; break;
        case OP_NAME: st[sp++] = values[o->arg]; break;
        case OP_NEG:
            if (st[sp - 1] == INT64_MIN)
                rc = overflow(e, err);
            else
                st[sp - 1] = -st[sp - 1];
            break;
        case OP_NOT: st[sp - 1] = !st[sp - 1]; break;
        case OP_MIN:
        case OP_MAX:
            for (int64_t k = 1; k < o->arg && !rc; ++k, --sp)
                rc = apply_binary(e, o->code, st[sp - 2], st[sp - 1],
                                  &st[sp - 2], err);
            break;
        default:
            rc = apply_binary(e, o->code, st[sp - 2], st[sp - 1], &st[sp - 2],
                              err);
            --sp;
        }
    }
    if (!rc)
        *out = st[0];
    if (st != small)
        free(st);
    return rc;
}

uint64_t kt_expr_uses(const kt_expr *e)
{
    return e->uses;
}

const char *kt_expr_text(const kt_expr *e)
{
    return e->text;
}

void kt_expr_free(kt_expr *e)
{
    if (!e)
        return;
    free(e->text);
    free(e->ops);
    free(e);
}
