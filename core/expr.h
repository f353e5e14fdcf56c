// SPDX-License-Identifier: Apache-2.0
/*
 * kt_expr: small integer expressions written in declarations ("ceil_div(n,
 * tile)", "tile * (tile + pad) * 4"). Parsed once against the names a
 * declaration knows, evaluated many times with 64-bit signed arithmetic in
 * which overflow and division by zero are errors, never wrapped values.
 *
 * Grammar: || && (== != < <= > >=) (+ -) (* / %) unary (- !) and primaries:
 * decimal or 0x numbers, names, ( ), min(a, b, ...), max(a, b, ...),
 * ceil_div(a, b). Comparisons and logic give 0 or 1.
 */
#ifndef KT_EXPR_H
#define KT_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct kt_expr kt_expr;

/* Parses text; every name must be one of names[0..num_names) (at most 64).
 * KT_S_INPUT with "'text': what is wrong at column N" otherwise. The caller
 * frees *out with kt_expr_free(). */
kt_status kt_expr_parse(const char *text, const char *const *names,
                        size_t num_names, kt_expr **out, kt_err *err);

/* Evaluates with values[i] for names[i] of the parse. KT_S_INPUT on
 * overflow or division by zero, naming the expression. */
kt_status kt_expr_eval(const kt_expr *e, const int64_t *values, int64_t *out,
                       kt_err *err);

/* Bit i set when the expression reads names[i]. */
uint64_t kt_expr_uses(const kt_expr *e);

/* The text as written (owned by e). */
const char *kt_expr_text(const kt_expr *e);

void kt_expr_free(kt_expr *e);

#endif
