// SPDX-License-Identifier: Apache-2.0
#include "core/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/expr_num.h"

/* Reverse Polish code: parsed once, evaluated on a small stack. The
 * short-circuit operators jump forward (arg: the target). */
typedef enum op_code {
    OP_CONST, /* arg */
    OP_FCONST,
    OP_NAME, /* arg: index into names */
    OP_NEG,
    OP_NOT,
    OP_BOOL,
    OP_ABS,
    OP_INT,
    OP_BIN,  /* sub: a kt_num_op */
    OP_CALL, /* sub: KT_NUM_MIN or KT_NUM_MAX, arg: operand count */
    OP_AND,  /* top false: jump, keeping it; else pop it */
    OP_OR,   /* top true: jump, keeping it; else pop it */
    OP_CHAIN /* a b: a sub b ? b : (False, jump) */
} op_code;

typedef struct op {
    op_code code;
    int sub;
    int64_t arg;
    double f;
} op;

struct kt_expr {
    char *text;
    size_t text_len, text_cap; /* grown by conjoin: appends, never copies
                                  the whole text again */
    int conjoined;             /* text is "(a) && (b)..." */
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
    size_t nest;  /* parentheses, calls and unary operators open */
    int py;       /* KT_EXPR_PYTHON */
    kt_err *err;
    kt_status rc;
} parser;

static kt_status fail(parser *ps, const char *what)
{
    if (ps->rc)
        return ps->rc;
    /* A long text is quoted by its start: the message must show what. */
    size_t len = strlen(ps->e->text);
    ps->rc = kt_err_set(ps->err, KT_S_INPUT, "'%.*s%s': %s at column %d",
                        len > 120 ? 100 : (int)len, ps->e->text,
                        len > 120 ? "..." : "", what,
                        (int)(ps->p - ps->e->text) + 1);
    return ps->rc;
}

static kt_status grow(kt_expr *e, size_t need, kt_err *err)
{
    size_t cap = e->cap_ops ? e->cap_ops : 16;
    op *grown;
    if (need <= e->cap_ops)
        return KT_S_OK;
    while (cap < need)
        cap *= 2;
    if (!(grown = realloc(e->ops, cap * sizeof *grown)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    e->ops = grown;
    e->cap_ops = cap;
    return KT_S_OK;
}

/* pops: operands consumed; the result is pushed, except by the jumps of
 * and/or, which leave their operand only when they jump. */
static kt_status emit(parser *ps, op_code code, int sub, int64_t arg,
                      size_t pops)
{
    kt_expr *e = ps->e;
    int pushes = code != OP_AND && code != OP_OR;
    if (grow(e, e->num_ops + 1, ps->err))
        return ps->rc = KT_S_NOMEM;
    e->ops[e->num_ops++] = (op){code, sub, arg, 0};
    ps->depth = ps->depth - pops + (size_t)pushes;
    if (ps->depth > e->max_depth)
        e->max_depth = ps->depth;
    return KT_S_OK;
}

/* Points the jumps linked through their args (from `link`, -1 ends) at
 * the next op. */
static void patch(parser *ps, int64_t link)
{
    while (link >= 0) {
        int64_t next = ps->e->ops[link].arg;
        ps->e->ops[link].arg = (int64_t)ps->e->num_ops;
        link = next;
    }
}

static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static void skip_space(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ++ps->p;
}

/* Whether p starts an operator longer than its first character. */
static int longer_symbol(const char *p)
{
    static const char *const two[] = {
        "**", "//", "<=", ">=", "==", "!=", "<<", ">>", "&&", "||"};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; ++i)
        if (p[0] == two[i][0] && p[1] == two[i][1])
            return 1;
    return 0;
}

static int accept(parser *ps, const char *tok)
{
    size_t n;
    skip_space(ps);
    /* the first character first: most tries fail there */
    if (*ps->p != tok[0] || strncmp(ps->p, tok, n = strlen(tok)) != 0)
        return 0;
    /* "<" must not take the first half of "<=", "*" not of "**". */
    if (n == 1 && longer_symbol(ps->p))
        return 0;
    ps->p += n;
    return 1;
}

static int word_at(const char *p, const char *word)
{
    size_t n;
    if (*p != word[0])
        return 0;
    n = strlen(word);
    return strncmp(p, word, n) == 0 && !is_ident(p[n]);
}

static int accept_word(parser *ps, const char *word)
{
    skip_space(ps);
    if (!word_at(ps->p, word))
        return 0;
    ps->p += strlen(word);
    return 1;
}

/* What the text at p would be in the other syntax, or why it is not
 * supported; NULL when nothing is known about it. */
static const char *hint_at(const parser *ps, char *buf, size_t size)
{
    static const char c_side[] = " here (a declaration's expressions are "
                                 "C; a T1 file's conditions are Python)";
    const char *p = ps->p;
    static const struct {
        const char *word, *c;
    } words[] = {{"or", "||"}, {"and", "&&"}, {"not", "!"}};

    for (size_t i = 0; !ps->py && i < 3; ++i)
        if (word_at(p, words[i].word)) {
            snprintf(buf, size, "'%s' is written '%s'%s", words[i].word,
                     words[i].c, c_side);
            return buf;
        }
    if (ps->py && (strncmp(p, "&&", 2) == 0 || strncmp(p, "||", 2) == 0))
        return p[0] == '&' ? "'&&' is written 'and' in Python syntax"
                           : "'||' is written 'or' in Python syntax";
    if (ps->py && p[0] == '!' && p[1] != '=')
        return "'!' is written 'not' in Python syntax";
    if (word_at(p, "if") || word_at(p, "else"))
        return "conditional expressions (x if c else y) are not supported";
    if (word_at(p, "in") || word_at(p, "is"))
        return "'in' and 'is' are not supported";
    if (strchr("&|^~", *p) && *p)
        return "bitwise operators are not supported";
    if (strncmp(p, "<<", 2) == 0 || strncmp(p, ">>", 2) == 0)
        return "bitwise shifts are not supported";
    if (*p == '=' && p[1] != '=')
        return "'=' assigns; compare with '=='";
    if (*p == '"' || *p == '\'')
        return "strings are not supported";
    if (*p == '[' || *p == '{')
        return "lists, sets and dicts are not supported";
    return NULL;
}

/* fail() with the hint for the text at the parser's position. */
static kt_status fail_at(parser *ps, const char *what)
{
    char msg[400], buf[160];
    const char *hint;
    skip_space(ps);
    hint = hint_at(ps, buf, sizeof buf);
    if (!hint)
        return fail(ps, what);
    snprintf(msg, sizeof msg, "%s: %s", what, hint);
    return fail(ps, msg);
}

static kt_status parse_or(parser *ps);
static kt_status parse_unary(parser *ps);

/* One more level of nesting: the parser recurses once per level, so a
 * limit keeps a hostile condition from overflowing the stack. */
static int nest_in(parser *ps)
{
    char what[96];
    if (++ps->nest <= KT_EXPR_MAX_NESTING)
        return 0;
    snprintf(what, sizeof what,
             "nesting deeper than %d levels (parentheses, calls and unary "
             "operators; the limit)",
             KT_EXPR_MAX_NESTING);
    fail(ps, what);
    return 1;
}

/* fn(ps) one level deeper. */
static kt_status nested(parser *ps, kt_status (*fn)(parser *ps))
{
    kt_status rc = nest_in(ps) ? ps->rc : fn(ps);
    --ps->nest;
    return rc;
}

/* A Python literal: 1_000, 0x1f, 0o17, 0b101, 2.5, .5, 1e-3. */
static kt_status parse_py_number(parser *ps)
{
    char buf[80];
    size_t n = 0;
    const char *p = ps->p;
    int is_float = 0, based = p[0] == '0' && p[1] && strchr("xXoObB", p[1]);
    char *end;

    while (is_ident(*p) || *p == '.' ||
           ((*p == '+' || *p == '-') && !based && strchr("eE", p[-1]))) {
        if (*p != '_' && n + 1 < sizeof buf)
            buf[n++] = *p;
        is_float |= !based && (*p == '.' || *p == 'e' || *p == 'E');
        ++p;
    }
    buf[n] = '\0';
    if (n + 1 >= sizeof buf)
        return fail(ps, "a number longer than 78 characters");
    if (is_float) {
        double f = strtod(buf, &end);
        if (*end || !isfinite(f))
            return fail(ps, "a malformed number");
        ps->p = p;
        if (emit(ps, OP_FCONST, 0, 0, 0))
            return ps->rc;
        ps->e->ops[ps->e->num_ops - 1].f = f;
        return KT_S_OK;
    }
    {
        int base = !based                 ? 10
                   : strchr("xX", buf[1]) ? 16
                   : strchr("oO", buf[1]) ? 8
                                          : 2;
        unsigned long long v = strtoull(based ? buf + 2 : buf, &end, base);
        if (*end || (based && !buf[2]))
            return fail(ps, "a malformed number");
        if (v > (unsigned long long)INT64_MAX)
            return fail(ps, "a number larger than 2^63 - 1");
        ps->p = p;
        return emit(ps, OP_CONST, 0, (int64_t)v, 0);
    }
}

static kt_status parse_number(parser *ps)
{
    char *end;
    unsigned long long v;
    int hex = ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X');

    if (ps->py)
        return parse_py_number(ps);
    v = strtoull(ps->p, &end, hex ? 16 : 10);
    if (*end == '.')
        return fail(ps, "a fractional number (a declaration's expressions "
                        "are integers)");
    if (is_ident(*end))
        return fail(ps, "a malformed number");
    if (v > (unsigned long long)INT64_MAX)
        return fail(ps, "a number larger than 2^63 - 1");
    ps->p = end;
    return emit(ps, OP_CONST, 0, (int64_t)v, 0);
}

/* The functions of each syntax: Python's builtins, C's ceil_div. */
static int find_function(const parser *ps, const char *name, size_t len,
                         op_code *code, int *sub, size_t *min_args,
                         size_t *max_args)
{
    static const struct {
        const char *name;
        int py, c;
        op_code code;
        int sub;
        size_t min_args, max_args;
    } fns[] = {
        {"min", 1, 1, OP_CALL, KT_NUM_MIN, 2, 64},
        {"max", 1, 1, OP_CALL, KT_NUM_MAX, 2, 64},
        {"ceil_div", 0, 1, OP_BIN, KT_NUM_CEIL_DIV, 2, 2},
        {"abs", 1, 0, OP_ABS, 0, 1, 1},
        {"int", 1, 0, OP_INT, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; ++i)
        if (strlen(fns[i].name) == len &&
            strncmp(name, fns[i].name, len) == 0 &&
            (ps->py ? fns[i].py : fns[i].c)) {
            *code = fns[i].code;
            *sub = fns[i].sub;
            *min_args = fns[i].min_args;
            *max_args = fns[i].max_args;
            return 1;
        }
    return 0;
}

static kt_status parse_call(parser *ps, const char *name, size_t len)
{
    op_code code;
    int sub;
    size_t argc = 0, min_args, max_args;
    char what[160];

    if (!find_function(ps, name, len, &code, &sub, &min_args, &max_args)) {
        ps->p = name;
        return fail(ps, ps->py ? "an unknown function (expected min, max, "
                                 "abs or int)"
                               : "an unknown function (expected min, max or "
                                 "ceil_div)");
    }
    do {
        skip_space(ps);
        if (ps->py && argc > 0 && *ps->p == ')')
            break; /* Python's trailing comma */
        if (parse_or(ps))
            return ps->rc;
        ++argc;
    } while (accept(ps, ","));
    if (!accept(ps, ")"))
        return fail_at(ps, "a missing ')'");
    if (argc < min_args || argc > max_args) {
        snprintf(what, sizeof what, "%.*s with %zu argument(s), expected %zu%s",
                 (int)len, name, argc, min_args,
                 max_args > min_args ? " or more" : "");
        return fail(ps, what);
    }
    return emit(ps, code, sub, (int64_t)argc, argc);
}

/* A name declared in another case: INI keys (param.TILE) are read in lower
 * case, so the user's TILE is the declared tile. Appended to what. */
static void case_hint(const parser *ps, const char *start, size_t len,
                      char *what, size_t size)
{
    size_t used = strlen(what);

    for (size_t i = 0; i < ps->num_names; ++i)
        if (strlen(ps->names[i]) == len &&
            strncasecmp(ps->names[i], start, len) == 0) {
            snprintf(what + used, size - used,
                     "; did you mean '%s'? (names are read in lower case)",
                     ps->names[i]);
            return;
        }
}

static kt_status parse_name(parser *ps)
{
    const char *start = ps->p;
    size_t len;
    char what[512], buf[160];

    while (is_ident(*ps->p))
        ++ps->p;
    len = (size_t)(ps->p - start);
    if (accept(ps, "("))
        return parse_call(ps, start, len);
    if (ps->py && (word_at(start, "True") || word_at(start, "False")))
        return emit(ps, OP_CONST, 0, start[0] == 'T', 0);
    for (size_t i = 0; i < ps->num_names; ++i) {
        if (strlen(ps->names[i]) == len &&
            strncmp(ps->names[i], start, len) == 0) {
            ps->e->uses |= UINT64_C(1) << i;
            return emit(ps, OP_NAME, 0, (int64_t)i, 0);
        }
    }
    ps->p = start;
    if (hint_at(ps, buf, sizeof buf))
        return fail_at(ps, "a missing operand");
    snprintf(what, sizeof what,
             "'%.*s' is not declared (not a size or parameter)%s",
             (int)(len < 64 ? len : 64), start,
             !ps->py && (word_at(start, "True") || word_at(start, "False") ||
                         word_at(start, "true") || word_at(start, "false"))
                 ? "; write 1 or 0 here"
                 : "");
    case_hint(ps, start, len, what, sizeof what);
    return fail(ps, what);
}

static kt_status parse_primary(parser *ps)
{
    skip_space(ps);
    if (isdigit((unsigned char)*ps->p) ||
        (ps->py && ps->p[0] == '.' && isdigit((unsigned char)ps->p[1])))
        return parse_number(ps);
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_')
        return parse_name(ps);
    if (accept(ps, "(")) {
        if (parse_or(ps))
            return ps->rc;
        if (!accept(ps, ")"))
            return fail_at(ps, "a missing ')'");
        return KT_S_OK;
    }
    return fail_at(ps,
                   *ps->p ? "an unexpected character" : "a missing operand");
}

/* primary ** unary: right-associative, tighter than a unary minus on its
 * left (-2 ** 2 is -4) and looser on its right (2 ** -1). */
static kt_status parse_power(parser *ps)
{
    if (parse_primary(ps))
        return ps->rc;
    if (!accept(ps, "**"))
        return KT_S_OK;
    if (nested(ps, parse_unary))
        return ps->rc;
    return emit(ps, OP_BIN, ps->py ? KT_NUM_POW : KT_NUM_CPOW, 0, 2);
}

static kt_status parse_unary(parser *ps)
{
    if (accept(ps, "-")) {
        if (nested(ps, parse_unary))
            return ps->rc;
        return emit(ps, OP_NEG, 0, 0, 1);
    }
    if (accept(ps, "+"))
        return nested(ps, parse_unary);
    if (!ps->py && accept(ps, "!")) {
        if (nested(ps, parse_unary))
            return ps->rc;
        return emit(ps, OP_NOT, 0, 0, 1);
    }
    skip_space(ps);
    if (ps->py && word_at(ps->p, "not"))
        return fail(ps, "'not' inside arithmetic; parenthesize it: (not x)");
    return parse_power(ps);
}

/* Operands of `next` joined by the tokens in toks (left-associative). */
typedef kt_status (*level_fn)(parser *ps);

static kt_status parse_level(parser *ps, level_fn next, const char *const *toks,
                             const int *subs, size_t n)
{
    if (next(ps))
        return ps->rc;
    for (;;) {
        size_t k = 0;
        while (k < n && !accept(ps, toks[k]))
            ++k;
        if (k == n)
            return KT_S_OK;
        if (next(ps) || emit(ps, OP_BIN, subs[k], 0, 2))
            return ps->rc;
    }
}

static kt_status parse_mul(parser *ps)
{
    static const char *const t[] = {"*", "//", "/", "%"};
    static const int c[] = {KT_NUM_MUL, KT_NUM_FLOORDIV, KT_NUM_CDIV,
                            KT_NUM_CMOD};
    static const int py[] = {KT_NUM_MUL, KT_NUM_FLOORDIV, KT_NUM_TRUEDIV,
                             KT_NUM_PYMOD};
    return parse_level(ps, parse_unary, t, ps->py ? py : c, 4);
}

static kt_status parse_add(parser *ps)
{
    static const char *const t[] = {"+", "-"};
    static const int c[] = {KT_NUM_ADD, KT_NUM_SUB};
    return parse_level(ps, parse_mul, t, c, 2);
}

/* The comparison operator at the parser's position (consumed), or -1. */
static int accept_compare(parser *ps)
{
    static const char *const t[] = {"==", "!=", "<=", ">=", "<", ">"};
    static const int c[] = {KT_NUM_EQ, KT_NUM_NE, KT_NUM_LE,
                            KT_NUM_GE, KT_NUM_LT, KT_NUM_GT};
    for (size_t k = 0; k < 6; ++k)
        if (accept(ps, t[k]))
            return c[k];
    return -1;
}

/* a < b < c is Python's a < b and b < c with b evaluated once; C syntax
 * takes one comparison and says how to write more. */
static kt_status parse_cmp(parser *ps)
{
    int64_t link = -1;
    int code, count = 0;

    if (parse_add(ps))
        return ps->rc;
    while ((code = accept_compare(ps)) >= 0) {
        const char *after;
        if (count++ && !ps->py)
            return fail(ps, "chained comparisons (a < b < c) are Python "
                            "syntax; write a < b && b < c here");
        if (parse_add(ps))
            return ps->rc;
        after = ps->p;
        if (ps->py && accept_compare(ps) >= 0) {
            ps->p = after;
            if (emit(ps, OP_CHAIN, code, link, 2))
                return ps->rc;
            link = (int64_t)ps->e->num_ops - 1;
        } else {
            ps->p = after;
            if (emit(ps, OP_BIN, code, 0, 2))
                return ps->rc;
        }
    }
    patch(ps, link);
    return KT_S_OK;
}

/* Python's not binds looser than comparisons: not a == b is not (a == b). */
static kt_status parse_not(parser *ps)
{
    if (!accept_word(ps, "not"))
        return parse_cmp(ps);
    if (nested(ps, parse_not))
        return ps->rc;
    return emit(ps, OP_NOT, 0, 0, 1);
}

/* Short-circuit joins: C's give 0 or 1, Python's the deciding operand. */
static kt_status parse_logic(parser *ps, level_fn next, const char *c_tok,
                             const char *py_word, op_code code)
{
    int64_t link = -1;
    int joined = 0;

    if (next(ps))
        return ps->rc;
    while (ps->py ? accept_word(ps, py_word) : accept(ps, c_tok)) {
        if (emit(ps, code, 0, link, 1))
            return ps->rc;
        link = (int64_t)ps->e->num_ops - 1;
        if (next(ps))
            return ps->rc;
        joined = 1;
    }
    patch(ps, link);
    if (joined && !ps->py)
        return emit(ps, OP_BOOL, 0, 0, 1);
    return KT_S_OK;
}

static kt_status parse_and(parser *ps)
{
    return parse_logic(ps, ps->py ? parse_not : parse_cmp, "&&", "and", OP_AND);
}

static kt_status or_level(parser *ps)
{
    return parse_logic(ps, parse_and, "||", "or", OP_OR);
}

/* Entered at the top and once per parenthesis or call argument. */
static kt_status parse_or(parser *ps)
{
    return nested(ps, or_level);
}

kt_status kt_expr_parse_as(const char *text, kt_expr_syntax syntax,
                           const char *const *names, size_t num_names,
                           kt_expr **out, kt_err *err)
{
    parser ps = {0};
    kt_expr *e = calloc(1, sizeof *e);

    *out = NULL;
    if (!e || !(e->text = strdup(text ? text : ""))) {
        free(e);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    e->text_len = strlen(e->text);
    e->text_cap = e->text_len + 1;
    ps.e = e;
    ps.p = e->text;
    ps.names = names;
    ps.num_names = num_names > 64 ? 64 : num_names;
    ps.py = syntax == KT_EXPR_PYTHON;
    ps.err = err;
    if (parse_or(&ps) == KT_S_OK) {
        skip_space(&ps);
        if (*ps.p)
            fail_at(&ps, "unexpected text after the expression");
    }
    if (ps.rc) {
        kt_expr_free(e);
        return ps.rc;
    }
    /* The code at its size: a space of a million conditions keeps a
     * million of these. */
    if (e->num_ops && e->num_ops < e->cap_ops) {
        op *fit = realloc(e->ops, e->num_ops * sizeof *fit);
        if (fit) {
            e->ops = fit;
            e->cap_ops = e->num_ops;
        }
    }
    *out = e;
    return KT_S_OK;
}

kt_status kt_expr_parse(const char *text, const char *const *names,
                        size_t num_names, kt_expr **out, kt_err *err)
{
    return kt_expr_parse_as(text, KT_EXPR_C, names, num_names, out, err);
}

static kt_status num_error(const kt_expr *e, kt_num_rc rc, kt_err *err)
{
    static const char *const what[] = {
        "",
        "overflows 64-bit integers",
        "division by zero",
        "a negative exponent (integer powers only here)",
        "a negative number to a fractional power (complex in Python)",
        "int() of a value that is not finite",
        "a float result outside the range of a double",
    };
    return kt_err_set(err, KT_S_INPUT, "'%.*s%s': %s",
                      e->text_len > 120 ? 100 : (int)e->text_len, e->text,
                      e->text_len > 120 ? "..." : "", what[rc]);
}

/* One op on the stack st of sp values; *next the following op. */
static kt_num_rc step(const op *o, kt_expr_value *st, size_t *sp,
                      const int64_t *values, size_t *next)
{
    kt_expr_value *top = *sp ? &st[*sp - 1] : st;
    kt_num_rc rc = KT_NUM_OK;
    switch (o->code) {
    case OP_CONST: st[(*sp)++] = (kt_expr_value){0, o->arg, 0}; break;
    case OP_FCONST: st[(*sp)++] = (kt_expr_value){1, 0, o->f}; break;
    case OP_NAME: st[(*sp)++] = (kt_expr_value){0, values[o->arg], 0}; break;
    case OP_NEG: rc = kt_num_neg(top); break;
    case OP_NOT: *top = (kt_expr_value){0, !kt_num_truth(top), 0}; break;
    case OP_BOOL: *top = (kt_expr_value){0, kt_num_truth(top), 0}; break;
    case OP_ABS: rc = kt_num_abs(top); break;
    case OP_INT: rc = kt_num_int(top); break;
    case OP_BIN:
        rc = kt_num_binary((kt_num_op)o->sub, top - 1, top, top - 1);
        --*sp;
        break;
    case OP_CALL:
        for (int64_t k = 1; k < o->arg && !rc; ++k, --*sp)
            rc = kt_num_binary((kt_num_op)o->sub, &st[*sp - 2], &st[*sp - 1],
                               &st[*sp - 2]);
        break;
    case OP_AND:
    case OP_OR:
        if (kt_num_truth(top) == (o->code == OP_OR))
            *next = (size_t)o->arg;
        else
            --*sp;
        break;
    case OP_CHAIN:
        rc = kt_num_binary((kt_num_op)o->sub, top - 1, top, top - 1);
        if (!rc && top[-1].i)
            top[-1] = *top;
        else
            *next = (size_t)o->arg;
        --*sp;
        break;
    }
    return rc;
}

kt_status kt_expr_eval_value(const kt_expr *e, const int64_t *values,
                             kt_expr_value *out, kt_err *err)
{
    kt_expr_value small[32], *st = small;
    size_t sp = 0, i = 0;
    kt_num_rc rc = KT_NUM_OK;

    if (e->max_depth > 32 && !(st = malloc(e->max_depth * sizeof *st)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    st[0] = (kt_expr_value){0, 0, 0};
    while (i < e->num_ops && !rc) {
        const op *o = &e->ops[i++];
        rc = step(o, st, &sp, values, &i);
    }
    if (!rc)
        *out = st[0];
    if (st != small)
        free(st);
    return rc ? num_error(e, rc, err) : KT_S_OK;
}

kt_status kt_expr_eval(const kt_expr *e, const int64_t *values, int64_t *out,
                       kt_err *err)
{
    kt_expr_value v;
    kt_status rc = kt_expr_eval_value(e, values, &v, err);

    if (rc)
        return rc;
    if (!v.is_float) {
        *out = v.i;
        return KT_S_OK;
    }
    if (v.f != floor(v.f) || v.f >= 9223372036854775808.0 ||
        v.f < -9223372036854775808.0)
        return kt_err_set(err, KT_S_INPUT, "'%.*s%s' is %.17g, not an integer",
                          e->text_len > 120 ? 100 : (int)e->text_len, e->text,
                          e->text_len > 120 ? "..." : "", v.f);
    *out = (int64_t)v.f;
    return KT_S_OK;
}

/* Appends src's code to dst, its jump targets moved along. */
static void append_code(kt_expr *dst, const kt_expr *src)
{
    size_t base = dst->num_ops;
    for (size_t i = 0; i < src->num_ops; ++i) {
        op o = src->ops[i];
        if (o.code == OP_AND || o.code == OP_OR || o.code == OP_CHAIN)
            o.arg += (int64_t)base;
        dst->ops[dst->num_ops++] = o;
    }
}

/* Appends n bytes of more to e's text, the capacity doubled as needed:
 * conjoining a million conditions is linear in their text. */
static int text_append(kt_expr *e, const char *more, size_t n)
{
    if (e->text_len + n + 1 > e->text_cap) {
        size_t cap = e->text_cap * 2 > e->text_len + n + 1
                         ? e->text_cap * 2
                         : e->text_len + n + 1;
        char *grown = realloc(e->text, cap);
        if (!grown)
            return -1;
        e->text = grown;
        e->text_cap = cap;
    }
    memcpy(e->text + e->text_len, more, n);
    e->text_len += n;
    e->text[e->text_len] = '\0';
    return 0;
}

/* "(first) && (second) && (third)": the first parenthesized when the
 * second comes. */
static int text_conjoin(kt_expr *a, const kt_expr *next)
{
    if (!a->conjoined) {
        size_t len = a->text_len;
        if (text_append(a, "()", 2))
            return -1;
        memmove(a->text + 1, a->text, len);
        a->text[0] = '(';
        a->text[len + 1] = ')';
        a->conjoined = 1;
    }
    return text_append(a, " && (", 5) ||
                   text_append(a, next->text, next->text_len) ||
                   text_append(a, ")", 1)
               ? -1
               : 0;
}

kt_status kt_expr_conjoin(kt_expr **acc, const kt_expr *next, kt_err *err)
{
    kt_expr *a = *acc;
    size_t jump;

    if (!a) {
        if (!(a = calloc(1, sizeof *a)) || !(a->text = strdup(next->text))) {
            free(a);
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        }
        a->text_len = next->text_len;
        a->text_cap = a->text_len + 1;
        if (grow(a, next->num_ops + 1, err)) {
            kt_expr_free(a);
            return KT_S_NOMEM;
        }
        append_code(a, next);
        a->ops[a->num_ops++] = (op){OP_BOOL, 0, 0, 0};
        a->max_depth = next->max_depth;
        a->uses = next->uses;
        *acc = a;
        return KT_S_OK;
    }
    if (grow(a, a->num_ops + next->num_ops + 3, err) || text_conjoin(a, next))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    a->ops[a->num_ops++] = (op){OP_BOOL, 0, 0, 0};
    jump = a->num_ops;
    a->ops[a->num_ops++] = (op){OP_AND, 0, 0, 0};
    append_code(a, next);
    a->ops[a->num_ops++] = (op){OP_BOOL, 0, 0, 0};
    a->ops[jump].arg = (int64_t)a->num_ops;
    if (next->max_depth > a->max_depth)
        a->max_depth = next->max_depth;
    a->uses |= next->uses;
    return KT_S_OK;
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
