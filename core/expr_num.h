// SPDX-License-Identifier: Apache-2.0
/*
 * The arithmetic of kt_expr (core/expr.h): one operation on two values
 * that are each an int64 or a double, with C's integer semantics for the
 * declarations' syntax and Python 3's for T1 conditions. Private to
 * core/expr.c.
 */
#ifndef KT_EXPR_NUM_H
#define KT_EXPR_NUM_H

#include "core/expr.h"

typedef enum kt_num_op {
    KT_NUM_ADD,
    KT_NUM_SUB,
    KT_NUM_MUL,
    KT_NUM_CDIV,     /* C: truncates toward zero */
    KT_NUM_CMOD,     /* C: the dividend's sign */
    KT_NUM_TRUEDIV,  /* Python /: always a float */
    KT_NUM_FLOORDIV, /* // in both */
    KT_NUM_PYMOD,    /* Python %: the divisor's sign */
    KT_NUM_POW,      /* Python **: int ** negative int is a float */
    KT_NUM_CPOW,     /* C **: integers, no negative exponent */
    KT_NUM_CEIL_DIV,
    KT_NUM_MIN,
    KT_NUM_MAX,
    KT_NUM_EQ,
    KT_NUM_NE,
    KT_NUM_LT,
    KT_NUM_LE,
    KT_NUM_GT,
    KT_NUM_GE
} kt_num_op;

typedef enum kt_num_rc {
    KT_NUM_OK = 0,
    KT_NUM_OVERFLOW, /* an integer result outside int64 */
    KT_NUM_DIV_ZERO,
    KT_NUM_NEG_POW,       /* an integer power with a negative exponent (C) */
    KT_NUM_COMPLEX,       /* a negative float to a fractional power */
    KT_NUM_NOT_WHOLE,     /* int() of nan or inf */
    KT_NUM_FLOAT_OVERFLOW /* a float result outside the double range */
} kt_num_rc;

/* *r = a op b. Comparisons give the int 0 or 1. */
kt_num_rc kt_num_binary(kt_num_op op, const kt_expr_value *a,
                        const kt_expr_value *b, kt_expr_value *r);

/* Python's truth of a value: non-zero (nan is true). */
int kt_num_truth(const kt_expr_value *a);

/* -a, abs(a), int(a) (truncating a float toward zero). */
kt_num_rc kt_num_neg(kt_expr_value *a);
kt_num_rc kt_num_abs(kt_expr_value *a);
kt_num_rc kt_num_int(kt_expr_value *a);

#endif
