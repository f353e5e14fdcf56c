// SPDX-License-Identifier: Apache-2.0
/*
 * kt_expr: small expressions written in declarations ("ceil_div(n,
 * tile)", "tile * (tile + pad) * 4") and in T1 space files' conditions
 * ("32 <= block_size_x * block_size_y <= 1024"). Parsed once against the
 * names a declaration knows, evaluated many times; overflow and division
 * by zero are errors, never wrapped values.
 *
 * Two syntaxes share one evaluator:
 *
 * KT_EXPR_C, the declarations' own: 64-bit signed integers only, with
 * || && (== != < <= > >=) (+ -) (* / // %) unary (- + !) ** and
 * primaries: decimal or 0x numbers, names, ( ), min(a, b, ...),
 * max(a, b, ...), ceil_div(a, b). / and % truncate toward zero as in C,
 * // is floor division, ** an integer power (a negative exponent is an
 * error). || and && short-circuit and give 0 or 1, as comparisons and !
 * do. Python spellings (or, and, not, a < b < c, True) are refused with
 * the C spelling in the message.
 *
 * KT_EXPR_PYTHON, for T1 conditions: Python 3's semantics on its int and
 * float: or and not (short-circuit, returning an operand as Python
 * does), chained comparisons (each operand evaluated once, later ones only
 * when needed), + - * / // % ** with / true division (a float), // and %
 * flooring (the remainder takes the divisor's sign), int ** negative int a
 * float, True and False, float literals, min, max, abs and int(). Ints are
 * 64-bit here (Python's are unbounded: a result outside int64 is an
 * error), and a float result outside the double range is an error where
 * Python would give inf. Comparisons between int and float are exact, as
 * in Python. Not supported, each refused by name: bitwise operators,
 * x if c else y, in, is, strings, lists.
 */
#ifndef KT_EXPR_H
#define KT_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct kt_expr kt_expr;

/* The deepest nesting parsed (parentheses, call arguments and unary
 * operators together; Python's own parser stops at 200 parentheses):
 * deeper is KT_S_INPUT naming the limit, never a stack overflow. */
#define KT_EXPR_MAX_NESTING 200

typedef enum kt_expr_syntax { KT_EXPR_C = 0, KT_EXPR_PYTHON } kt_expr_syntax;

/* A result: an integer, or (Python syntax only) a float. */
typedef struct kt_expr_value {
    int is_float;
    int64_t i;
    double f;
} kt_expr_value;

/* Parses text in the declarations' C syntax; every name must be one of
 * names[0..num_names) (at most 64). KT_S_INPUT with "'text': what is wrong
 * at column N" otherwise. The caller frees *out with kt_expr_free(). */
kt_status kt_expr_parse(const char *text, const char *const *names,
                        size_t num_names, kt_expr **out, kt_err *err);

/* The same in either syntax. */
kt_status kt_expr_parse_as(const char *text, kt_expr_syntax syntax,
                           const char *const *names, size_t num_names,
                           kt_expr **out, kt_err *err);

/* Evaluates with values[i] for names[i] of the parse. KT_S_INPUT on
 * overflow or division by zero, naming the expression, and for a float
 * result that is not a whole number in int64's range. */
kt_status kt_expr_eval(const kt_expr *e, const int64_t *values, int64_t *out,
                       kt_err *err);

/* The result as it is: an int or a float. */
kt_status kt_expr_eval_value(const kt_expr *e, const int64_t *values,
                             kt_expr_value *out, kt_err *err);

/* *acc becomes "bool(*acc) and bool(next)" (0 or 1; next is evaluated only
 * when *acc holds), or bool(next) when *acc is NULL. Both must have been
 * parsed against the same names; next is copied, *acc is changed in place
 * (or allocated: the caller frees it). */
kt_status kt_expr_conjoin(kt_expr **acc, const kt_expr *next, kt_err *err);

/* Bit i set when the expression reads names[i]. */
uint64_t kt_expr_uses(const kt_expr *e);

/* The text as written (owned by e). */
const char *kt_expr_text(const kt_expr *e);

void kt_expr_free(kt_expr *e);

#endif
