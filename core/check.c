// SPDX-License-Identifier: Apache-2.0
#include "core/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktune/plugin.h"

/* Examples shown in a message, lowest indices first. */
#define SHOWN 3

void kt_check_record_init(kt_check_record *r)
{
    memset(r, 0, sizeof *r);
    r->first = UINT64_MAX;
}

static uint64_t bits_of(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static double double_of(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

void kt_check_host_f32(const float *got, const double *want, const double *tol,
                       size_t count, uint64_t index_base, double rtol,
                       double atol, kt_check_record *r)
{
    for (size_t i = 0; i < count; ++i) {
        double g = (double)got[i], w = want[i];
        double bound = tol ? tol[i] : kt_check_bound(w, rtol, atol);
        double err = kt_check_error(g, w);
        uint64_t eb, rb;
        if (!kt_check_fails(err, bound))
            continue;
        eb = bits_of(err) & ~(UINT64_C(1) << 63);
        rb = bits_of(err / bound) & ~(UINT64_C(1) << 63);
        if (r->bad++ == 0 || index_base + i < r->first)
            r->first = index_base + i;
        r->max_err_bits = eb > r->max_err_bits ? eb : r->max_err_bits;
        r->max_ratio_bits = rb > r->max_ratio_bits ? rb : r->max_ratio_bits;
        if (r->slots < KT_CHECK_SLOTS) {
            kt_check_fail *f = &r->fail[r->slots];
            f->index = index_base + i;
            f->got = g;
            f->want = w;
            f->bound = bound;
        }
        if (r->slots < UINT32_MAX)
            ++r->slots;
    }
}

static int by_index(const void *a, const void *b)
{
    const kt_check_fail *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

int kt_check_has_first(const kt_check_record *r)
{
    size_t n = r->slots < KT_CHECK_SLOTS ? r->slots : KT_CHECK_SLOTS;
    for (size_t i = 0; i < n; ++i)
        if (r->fail[i].index == r->first)
            return 1;
    return r->bad == 0;
}

static void format_value(double v, char *out, size_t size)
{
    /* Poisoned (never written) elements read as NaN. */
    if (v != v)
        snprintf(out, size, "NaN");
    else
        snprintf(out, size, "%.9g", v);
}

/* NaN without a sign, whichever bits the device left. */
static void format_largest(double v, char *out, size_t size)
{
    if (v != v)
        snprintf(out, size, "nan");
    else
        snprintf(out, size, "%.3g", v);
}

int kt_check_describe(const kt_check_record *r, const char *name, size_t count,
                      int per_element, double rtol, double atol, char *msg,
                      size_t msg_size)
{
    kt_check_fail shown[KT_CHECK_SLOTS];
    size_t n = r->slots < KT_CHECK_SLOTS ? r->slots : KT_CHECK_SLOTS, used = 0;
    char detail[640] = "", largest[32];

    if (r->bad == 0)
        return KT_OK;
    memcpy(shown, r->fail, n * sizeof *shown);
    qsort(shown, n, sizeof *shown, by_index);
    for (size_t i = 0; i < n && i < SHOWN && used + 1 < sizeof detail; ++i) {
        char g[32];
        format_value(shown[i].got, g, sizeof g);
        used += (size_t)snprintf(detail + used, sizeof detail - used,
                                 "%s[%llu] got %s want %.9g", i ? "; " : "",
                                 (unsigned long long)shown[i].index, g,
                                 shown[i].want);
        if (per_element && used + 1 < sizeof detail)
            used += (size_t)snprintf(detail + used, sizeof detail - used,
                                     " tolerance %.3g", shown[i].bound);
    }
    format_largest(double_of(per_element ? r->max_ratio_bits : r->max_err_bits),
                   largest, sizeof largest);
    if (per_element)
        snprintf(msg, msg_size,
                 "%s: %llu of %zu elements outside their tolerance (first at "
                 "%llu; worst error %s x its tolerance): %s",
                 name, (unsigned long long)r->bad, count,
                 (unsigned long long)r->first, largest, detail);
    else
        snprintf(msg, msg_size,
                 "%s: %llu of %zu elements outside |got - want| <= "
                 "%g + %g*|want| (first at %llu; max |error| %s): %s",
                 name, (unsigned long long)r->bad, count, atol, rtol,
                 (unsigned long long)r->first, largest, detail);
    return KT_MISMATCH;
}
