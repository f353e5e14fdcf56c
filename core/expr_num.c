// SPDX-License-Identifier: Apache-2.0
#include "core/expr_num.h"

#include <math.h>

/* 2^53: integers below it in magnitude are exact in a double. */
#define EXACT_IN_DOUBLE (INT64_C(1) << 53)

static double as_double(const kt_expr_value *v)
{
    return v->is_float ? v->f : (double)v->i;
}

static kt_num_rc set_float(kt_expr_value *r, double f)
{
    if (!isfinite(f))
        return KT_NUM_FLOAT_OVERFLOW;
    r->is_float = 1;
    r->f = f;
    r->i = 0;
    return KT_NUM_OK;
}

static kt_num_rc set_int(kt_expr_value *r, int64_t i)
{
    r->is_float = 0;
    r->i = i;
    r->f = 0;
    return KT_NUM_OK;
}

/* -1, 0, 1, or 2 when unordered (nan), exactly as Python compares an int
 * with a float: no rounding of the int. */
static int compare(const kt_expr_value *a, const kt_expr_value *b)
{
    if (!a->is_float && !b->is_float)
        return (a->i > b->i) - (a->i < b->i);
    if (a->is_float && b->is_float) {
        if (isnan(a->f) || isnan(b->f))
            return 2;
        return (a->f > b->f) - (a->f < b->f);
    }
    if (a->is_float) {
        int c = compare(b, a);
        return c == 2 ? 2 : -c;
    }
    /* a an int, b a float. */
    if (isnan(b->f))
        return 2;
    if (b->f >= 9223372036854775808.0)
        return -1;
    if (b->f < -9223372036854775808.0)
        return 1;
    {
        double t = trunc(b->f);
        int64_t ti = (int64_t)t;
        double frac = b->f - t;
        if (a->i != ti)
            return a->i < ti ? -1 : 1;
        return frac > 0 ? -1 : frac < 0 ? 1 : 0;
    }
}

static int64_t floor_div_int(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        --q;
    return q;
}

/* CPython's float divmod: the remainder takes the divisor's sign and the
 * quotient is rounded to the nearest integer it is close to. */
static void float_divmod(double vx, double wx, double *floordiv, double *mod)
{
    double m = fmod(vx, wx), div = (vx - m) / wx;
    if (m != 0) {
        if ((wx < 0) != (m < 0)) {
            m += wx;
            div -= 1.0;
        }
    } else {
        m = copysign(0.0, wx);
    }
    if (div != 0) {
        double fd = floor(div);
        if (div - fd > 0.5)
            fd += 1.0;
        *floordiv = fd;
    } else {
        *floordiv = copysign(0.0, vx / wx);
    }
    *mod = m;
}

static kt_num_rc int_pow(int64_t base, int64_t exp, kt_expr_value *r)
{
    int64_t acc = 1;
    while (exp > 0) {
        if ((exp & 1) && __builtin_mul_overflow(acc, base, &acc))
            return KT_NUM_OVERFLOW;
        exp >>= 1;
        if (exp && __builtin_mul_overflow(base, base, &base))
            return KT_NUM_OVERFLOW;
    }
    return set_int(r, acc);
}

/* Python's float ** float on finite operands. */
static kt_num_rc float_pow(double x, double y, kt_expr_value *r)
{
    if (y == 0)
        return set_float(r, 1.0);
    if (x == 0 && y < 0)
        return KT_NUM_DIV_ZERO;
    if (x < 0 && y != floor(y))
        return KT_NUM_COMPLEX;
    return set_float(r, pow(x, y));
}

static kt_num_rc pow_values(const kt_expr_value *a, const kt_expr_value *b,
                            kt_expr_value *r, int c_syntax)
{
    if (!a->is_float && !b->is_float) {
        if (b->i >= 0)
            return int_pow(a->i, b->i, r);
        if (c_syntax)
            return KT_NUM_NEG_POW;
        if (a->i == 0)
            return KT_NUM_DIV_ZERO;
    }
    return float_pow(as_double(a), as_double(b), r);
}

/* Python's int / int, correctly rounded where both are below 2^53 (every
 * T1 file's case); a long double division beyond. */
static kt_num_rc true_div(const kt_expr_value *a, const kt_expr_value *b,
                          kt_expr_value *r)
{
    if (a->is_float || b->is_float) {
        if (as_double(b) == 0)
            return KT_NUM_DIV_ZERO;
        return set_float(r, as_double(a) / as_double(b));
    }
    if (b->i == 0)
        return KT_NUM_DIV_ZERO;
    if (a->i > -EXACT_IN_DOUBLE && a->i < EXACT_IN_DOUBLE &&
        b->i > -EXACT_IN_DOUBLE && b->i < EXACT_IN_DOUBLE)
        return set_float(r, (double)a->i / (double)b->i);
    return set_float(r, (double)((long double)a->i / (long double)b->i));
}

static kt_num_rc int_arith(kt_num_op op, int64_t a, int64_t b, int64_t *r)
{
    switch (op) {
    case KT_NUM_ADD:
        return __builtin_add_overflow(a, b, r) ? KT_NUM_OVERFLOW : 0;
    case KT_NUM_SUB:
        return __builtin_sub_overflow(a, b, r) ? KT_NUM_OVERFLOW : 0;
    case KT_NUM_MUL:
        return __builtin_mul_overflow(a, b, r) ? KT_NUM_OVERFLOW : 0;
    default: break;
    }
    if (b == 0)
        return KT_NUM_DIV_ZERO;
    if (b == -1) {
        /* INT64_MIN / -1 is the one quotient outside int64; every
         * remainder by -1 is 0. */
        if (op == KT_NUM_CMOD || op == KT_NUM_PYMOD) {
            *r = 0;
            return KT_NUM_OK;
        }
        if (a == INT64_MIN)
            return KT_NUM_OVERFLOW;
    }
    switch (op) {
    case KT_NUM_CDIV: *r = a / b; break;
    case KT_NUM_CMOD: *r = a % b; break;
    case KT_NUM_FLOORDIV: *r = floor_div_int(a, b); break;
    case KT_NUM_PYMOD: *r = a - floor_div_int(a, b) * b; break;
    default: /* KT_NUM_CEIL_DIV: rounds up where / truncates */
        *r = a / b + (a % b != 0 && (a < 0) == (b < 0));
    }
    return KT_NUM_OK;
}

static kt_num_rc float_arith(kt_num_op op, double x, double y, kt_expr_value *r)
{
    double q, m;
    switch (op) {
    case KT_NUM_ADD: return set_float(r, x + y);
    case KT_NUM_SUB: return set_float(r, x - y);
    case KT_NUM_MUL: return set_float(r, x * y);
    default: break;
    }
    if (y == 0)
        return KT_NUM_DIV_ZERO;
    float_divmod(x, y, &q, &m);
    switch (op) {
    case KT_NUM_FLOORDIV: return set_float(r, q);
    case KT_NUM_PYMOD: return set_float(r, m);
    case KT_NUM_CDIV: return set_float(r, trunc(x / y));
    case KT_NUM_CMOD: return set_float(r, fmod(x, y));
    default: return set_float(r, ceil(x / y));
    }
}

static kt_num_rc compare_op(kt_num_op op, const kt_expr_value *a,
                            const kt_expr_value *b, kt_expr_value *r)
{
    int c = compare(a, b), yes;
    switch (op) {
    case KT_NUM_EQ: yes = c == 0; break;
    case KT_NUM_NE: yes = c != 0; break;
    case KT_NUM_LT: yes = c == -1; break;
    case KT_NUM_LE: yes = c == -1 || c == 0; break;
    case KT_NUM_GT: yes = c == 1; break;
    default: yes = c == 1 || c == 0; break;
    }
    return set_int(r, yes);
}

kt_num_rc kt_num_binary(kt_num_op op, const kt_expr_value *a,
                        const kt_expr_value *b, kt_expr_value *r)
{
    switch (op) {
    case KT_NUM_POW: return pow_values(a, b, r, 0);
    case KT_NUM_CPOW: return pow_values(a, b, r, 1);
    case KT_NUM_TRUEDIV: return true_div(a, b, r);
    case KT_NUM_MIN:
        /* Python keeps the first of equals, and its type. */
        *r = compare(b, a) == -1 ? *b : *a;
        return KT_NUM_OK;
    case KT_NUM_MAX: *r = compare(b, a) == 1 ? *b : *a; return KT_NUM_OK;
    case KT_NUM_EQ:
    case KT_NUM_NE:
    case KT_NUM_LT:
    case KT_NUM_LE:
    case KT_NUM_GT:
    case KT_NUM_GE: return compare_op(op, a, b, r);
    default: break;
    }
    if (a->is_float || b->is_float)
        return float_arith(op, as_double(a), as_double(b), r);
    {
        int64_t x;
        kt_num_rc rc = int_arith(op, a->i, b->i, &x);
        return rc ? rc : set_int(r, x);
    }
}

int kt_num_truth(const kt_expr_value *a)
{
    return a->is_float ? a->f != 0 : a->i != 0;
}

kt_num_rc kt_num_neg(kt_expr_value *a)
{
    if (a->is_float)
        return set_float(a, -a->f);
    if (a->i == INT64_MIN)
        return KT_NUM_OVERFLOW;
    return set_int(a, -a->i);
}

kt_num_rc kt_num_abs(kt_expr_value *a)
{
    if (a->is_float)
        return set_float(a, fabs(a->f));
    return a->i < 0 ? kt_num_neg(a) : KT_NUM_OK;
}

kt_num_rc kt_num_int(kt_expr_value *a)
{
    double t;
    if (!a->is_float)
        return KT_NUM_OK;
    if (!isfinite(a->f))
        return KT_NUM_NOT_WHOLE;
    t = trunc(a->f);
    if (t >= 9223372036854775808.0 || t < -9223372036854775808.0)
        return KT_NUM_OVERFLOW;
    return set_int(a, (int64_t)t);
}
