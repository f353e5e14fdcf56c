// SPDX-License-Identifier: Apache-2.0
#include "report/scale.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Relative slack for comparisons of computed values with the domain. */
#define KT_SCALE_EPS 1e-9

double kt_scale_map(const kt_scale *s, double v)
{
    double t;
    if (!isfinite(v))
        return NAN;
    if (s->kind == KT_SCALE_LOG) {
        if (v <= 0 || s->d0 <= 0 || s->d1 <= 0)
            return NAN;
        t = log(v / s->d0) / log(s->d1 / s->d0);
    } else {
        t = (v - s->d0) / (s->d1 - s->d0);
    }
    return s->r0 + t * (s->r1 - s->r0);
}

int kt_scale_contains(const kt_scale *s, double v)
{
    if (!isfinite(v))
        return 0;
    if (s->kind == KT_SCALE_LOG) {
        double e = log(s->d1 / s->d0) * KT_SCALE_EPS;
        return v > 0 && log(v / s->d0) >= -e && log(s->d1 / v) >= -e;
    }
    double e = (s->d1 - s->d0) * KT_SCALE_EPS;
    return v >= s->d0 - e && v <= s->d1 + e;
}

double kt_scale_nice_step(double span, int target)
{
    double raw, mag, f;
    if (!(span > 0) || !isfinite(span))
        return 1;
    if (target < 1)
        target = 1;
    raw = span / target;
    mag = pow(10, floor(log10(raw)));
    f = raw / mag;
    if (f < 1.5)
        return mag;
    if (f < 3.5)
        return 2 * mag;
    if (f < 7.5)
        return 5 * mag;
    return 10 * mag;
}

/* The largest 1-2-5 value <= v (v > 0), or with up the smallest >= v. */
static double snap125(double v, int up)
{
    static const double m[] = {1, 2, 5, 10};
    double e = floor(log10(v) + KT_SCALE_EPS), mag = pow(10, e), f = v / mag;
    if (up) {
        for (size_t i = 0; i < 4; ++i)
            if (m[i] >= f * (1 - KT_SCALE_EPS))
                return m[i] * mag;
        return 10 * mag;
    }
    for (size_t i = 4; i-- > 0;)
        if (m[i] <= f * (1 + KT_SCALE_EPS))
            return m[i] * mag;
    return mag;
}

int kt_scale_nice_domain(kt_scale *s, double lo, double hi, int target)
{
    if (!isfinite(lo) || !isfinite(hi))
        return -1;
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    if (s->kind == KT_SCALE_LOG) {
        if (!(lo > 0))
            return -1;
        if (lo == hi) {
            lo /= 2;
            hi *= 2;
        }
        if (log10(hi / lo) > 2) {
            s->d0 = pow(10, floor(log10(lo) + KT_SCALE_EPS));
            s->d1 = pow(10, ceil(log10(hi) - KT_SCALE_EPS));
        } else {
            s->d0 = snap125(lo, 0);
            s->d1 = snap125(hi, 1);
        }
        return 0;
    }
    if (lo == hi) {
        double pad = lo == 0 ? 1 : fabs(lo) * 0.1;
        lo -= pad;
        hi += pad;
    }
    double step = kt_scale_nice_step(hi - lo, target);
    s->d0 = floor(lo / step + KT_SCALE_EPS) * step;
    s->d1 = ceil(hi / step - KT_SCALE_EPS) * step;
    return 0;
}

static size_t linear_ticks(const kt_scale *s, int target, double *out,
                           size_t max)
{
    double step = kt_scale_nice_step(s->d1 - s->d0, target);
    double first = ceil(s->d0 / step - KT_SCALE_EPS);
    size_t n = 0;
    for (double k = first; n < max; k += 1) {
        double v = k * step;
        if (fabs(v) < step * KT_SCALE_EPS)
            v = 0; /* no "-0" or 1e-17 */
        if (v > s->d1 + (s->d1 - s->d0) * KT_SCALE_EPS)
            break;
        out[n++] = v;
    }
    return n;
}

size_t kt_scale_ticks(const kt_scale *s, int target, double *out, size_t max)
{
    size_t n = 0;
    if (!isfinite(s->d0) || !isfinite(s->d1))
        return 0;
    if (target < 2)
        target = 2;
    if (s->kind == KT_SCALE_LINEAR)
        return linear_ticks(s, target, out, max);
    if (!(s->d0 > 0) || !(s->d1 > s->d0))
        return 0;
    double e0 = ceil(log10(s->d0) - KT_SCALE_EPS);
    double e1 = floor(log10(s->d1) + KT_SCALE_EPS);
    double decades = e1 - e0 + 1;
    if (decades >= 3) {
        double k = ceil(decades / target);
        for (double e = e0; e <= e1 && n < max; e += 1)
            if (fmod(e - e0, k) == 0)
                out[n++] = pow(10, e);
        return n;
    }
    static const double m[] = {1, 2, 5};
    for (double e = floor(log10(s->d0) + KT_SCALE_EPS); e <= e1 + 1 && n < max;
         e += 1)
        for (size_t i = 0; i < 3 && n < max; ++i) {
            double v = m[i] * pow(10, e);
            if (kt_scale_contains(s, v))
                out[n++] = v;
        }
    if (n >= 2)
        return n;
    return linear_ticks(s, target, out, max);
}

size_t kt_scale_ticks_pow2(const kt_scale *s, int target, double *out,
                           size_t max)
{
    size_t n = 0;
    long k = 1;
    if (!(s->d0 > 0) || !(s->d1 > s->d0) || !isfinite(s->d1))
        return 0;
    if (target < 1)
        target = 1;
    long e0 = (long)ceil(log2(s->d0) - KT_SCALE_EPS);
    long e1 = (long)floor(log2(s->d1) + KT_SCALE_EPS);
    while ((e1 - e0) / k + 1 > target)
        k *= 2;
    for (long e = e0; e <= e1 && n < max; ++e)
        if (((e % k) + k) % k == 0)
            out[n++] = ldexp(1, (int)e);
    return n;
}

/* "%.*g" with the exponent unpadded: 2e-05 -> 2e-5, 1e+21 -> 1e21. */
static void print_g(double v, int digits, char *out, size_t out_size)
{
    char buf[64], *e;
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    e = strchr(buf, 'e');
    if (e) {
        char *d = e + 1, *src;
        if (*d == '+')
            memmove(d, d + 1, strlen(d));
        else if (*d == '-')
            ++d;
        src = d;
        while (*src == '0' && src[1])
            ++src;
        memmove(d, src, strlen(src) + 1);
    }
    snprintf(out, out_size, "%s", buf);
}

void kt_scale_fmt_number(double v, int digits, char *out, size_t out_size)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T", "P", "E"};
    size_t i = 0;
    char num[64];
    double limit;

    if (digits < 1)
        digits = 1;
    if (digits > 12)
        digits = 12;
    if (!isfinite(v)) {
        snprintf(out, out_size, "%s", "");
        return;
    }
    if (v == 0) {
        snprintf(out, out_size, "0");
        return;
    }
    /* The value at which rounding to `digits` digits reaches 1000. */
    limit = 1000 - 0.5 * pow(10, 3 - digits);
    while (fabs(v) >= limit && i < 6) {
        v /= 1000;
        ++i;
    }
    print_g(v, digits, num, sizeof num);
    snprintf(out, out_size, "%s%s", num, suffix[i]);
}

void kt_scale_fmt_bytes(double v, char *out, size_t out_size)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    size_t i = 0;
    char num[64];
    if (!isfinite(v)) {
        snprintf(out, out_size, "%s", "");
        return;
    }
    while (fabs(v) >= 1023.5 && i < 5) {
        v /= 1024;
        ++i;
    }
    print_g(v, 3, num, sizeof num);
    snprintf(out, out_size, "%s %s", num, unit[i]);
}
