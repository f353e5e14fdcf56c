// SPDX-License-Identifier: Apache-2.0
/* The lookup: exact match, else the documented nearest-size rule
 * (include/ktune/select.h), over the immutable table read.c built. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "select/internal.h"

int kt_sel_compare(const kt_select_entry *a, const kt_select_entry *b)
{
    int c = strcmp(a->op, b->op);
    if (c)
        return c;
    if ((c = strcasecmp(a->device, b->device)))
        return c;
    if (a->num_sizes != b->num_sizes)
        return a->num_sizes < b->num_sizes ? -1 : 1;
    for (size_t i = 0; i < a->num_sizes; ++i)
        if (a->sizes[i] != b->sizes[i])
            return a->sizes[i] < b->sizes[i] ? -1 : 1;
    return 0;
}

/* "9.0", "9", "sm_90", "sm_90a", "compute_90", "90": 1 and the
 * capability, else 0 (a device name). */
static int parse_cc(const char *s, int *major, int *minor)
{
    int used = 0, v;
    if (sscanf(s, "%2d.%2d%n", major, minor, &used) == 2 && !s[used])
        return 1;
    if (strncmp(s, "sm_", 3) == 0)
        s += 3;
    else if (strncmp(s, "compute_", 8) == 0)
        s += 8;
    used = 0;
    if (sscanf(s, "%3d%n", &v, &used) != 1 || used < 2 || v < 10)
        return 0;
    if (s[used] && !(isalpha((unsigned char)s[used]) && !s[used + 1]))
        return 0;
    *major = v / 10;
    *minor = v % 10;
    return 1;
}

/* The first index of by_op whose entry sorts at or after (op, device);
 * device NULL: the first of op. */
static size_t lower_bound(const kt_select_wisdom *w, const char *op,
                          const char *device)
{
    size_t lo = 0, hi = w->num_entries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const kt_select_entry *e = &w->entries[w->by_op[mid]];
        int c = strcmp(e->op, op);
        if (!c && device)
            c = strcasecmp(e->device, device);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The distance of entry i from the wanted sizes (logs of them). */
static double distance_of(const kt_select_wisdom *w, size_t i,
                          const double *want, size_t n)
{
    double d = 0;
    for (size_t k = 0; k < n; ++k)
        d += fabs(want[k] - w->logs[i].log2[k]);
    return d;
}

/* The best of a candidate and the best so far by the rule's order:
 * distance, then the larger problem, then file order. */
typedef struct best {
    size_t index; /* into entries */
    double distance;
    int found;
} best;

static void consider(const kt_select_wisdom *w, size_t i, const double *want,
                     size_t n, best *b)
{
    double d = distance_of(w, i, want, n);
    int better = !b->found || d < b->distance;
    if (b->found && d == b->distance) {
        double v = w->logs[i].volume, bv = w->logs[b->index].volume;
        better =
            v != bv ? v > bv : w->entries[i].line < w->entries[b->index].line;
    }
    if (better) {
        b->index = i;
        b->distance = d;
        b->found = 1;
    }
}

static void fill(kt_select_config *out, const kt_select_entry *e,
                 kt_select_match m, double d)
{
    out->entry = e;
    out->match = m;
    out->distance = d;
    out->variant = e->variant;
    out->num_params = e->num_params;
    out->params = e->params;
}

/* The nearest entry of op with n sizes on device name (tier 1: the entries
 * of that name are contiguous in the index) or, failing that, of compute
 * capability major.minor (tier 2, a scan of op's entries; major < 0:
 * none). */
static int choose(const kt_select_wisdom *w, const char *op, const char *name,
                  int major, int minor, const int64_t *sizes, size_t n,
                  kt_select_config *out)
{
    double want[KT_SELECT_MAX_SIZES];
    best b = {0, 0, 0};
    size_t k;

    for (size_t d = 0; d < n; ++d)
        want[d] = log2((double)sizes[d]);
    for (k = name ? lower_bound(w, op, name) : w->num_entries;
         k < w->num_entries; ++k) {
        const kt_select_entry *e = &w->entries[w->by_op[k]];
        if (strcmp(e->op, op) != 0 || strcasecmp(e->device, name) != 0)
            break;
        if (e->num_sizes == n)
            consider(w, w->by_op[k], want, n, &b);
    }
    if (b.found) {
        int exact = b.distance == 0;
        fill(out, &w->entries[b.index],
             exact ? KT_SELECT_MATCH_EXACT : KT_SELECT_MATCH_DEVICE,
             b.distance);
        return exact ? KT_SELECT_OK : KT_SELECT_NEAREST;
    }
    for (k = major >= 0 ? lower_bound(w, op, NULL) : w->num_entries;
         k < w->num_entries; ++k) {
        const kt_select_entry *e = &w->entries[w->by_op[k]];
        if (strcmp(e->op, op) != 0)
            break;
        if (e->num_sizes == n && e->cc_major == major && e->cc_minor == minor)
            consider(w, w->by_op[k], want, n, &b);
    }
    if (!b.found)
        return KT_SELECT_NO_WISDOM;
    fill(out, &w->entries[b.index], KT_SELECT_MATCH_CC, b.distance);
    return KT_SELECT_NEAREST;
}

static int check_query(const char *op, const int64_t *sizes, size_t n)
{
    if (!op || !*op || (!sizes && n) || n == 0 || n > KT_SELECT_MAX_SIZES)
        return KT_SELECT_EARG;
    for (size_t i = 0; i < n; ++i)
        if (sizes[i] < 1)
            return KT_SELECT_EARG;
    return KT_SELECT_OK;
}

int kt_select_device(const kt_select_wisdom *w, const char *op,
                     const char *name, int cc_major, int cc_minor,
                     const int64_t *sizes, size_t num_sizes,
                     kt_select_config *out)
{
    if (!out)
        return KT_SELECT_EARG;
    memset(out, 0, sizeof *out);
    if (check_query(op, sizes, num_sizes))
        return KT_SELECT_EARG;
    if (!w)
        return KT_SELECT_NO_WISDOM;
    return choose(w, op, name && *name ? name : NULL, cc_major, cc_minor, sizes,
                  num_sizes, out);
}

int kt_select(const kt_select_wisdom *w, const char *op, const char *device,
              const int64_t *sizes, size_t num_sizes, kt_select_config *out)
{
    int major = -1, minor = -1;

    if (!out)
        return KT_SELECT_EARG;
    memset(out, 0, sizeof *out);
    if (!device || !*device || check_query(op, sizes, num_sizes))
        return KT_SELECT_EARG;
    if (!w)
        return KT_SELECT_NO_WISDOM;
    if (parse_cc(device, &major, &minor))
        return choose(w, op, NULL, major, minor, sizes, num_sizes, out);
    /* A name: its compute capability is the one the file records for it. */
    for (size_t i = 0; i < w->num_entries; ++i)
        if (strcasecmp(w->entries[i].device, device) == 0) {
            major = w->entries[i].cc_major;
            minor = w->entries[i].cc_minor;
            break;
        }
    return choose(w, op, device, major, minor, sizes, num_sizes, out);
}

int64_t kt_select_get(const kt_select_config *c, const char *name,
                      int64_t fallback)
{
    if (!c || !name)
        return fallback;
    for (size_t i = 0; i < c->num_params; ++i)
        if (strcmp(c->params[i].name, name) == 0)
            return c->params[i].value;
    return fallback;
}

const char *kt_select_strerror(int code)
{
    switch (code) {
    case KT_SELECT_OK: return "ok";
    case KT_SELECT_NEAREST: return "nearest entry";
    case KT_SELECT_NO_WISDOM: return "no wisdom";
    case KT_SELECT_EARG: return "bad argument";
    case KT_SELECT_EIO: return "cannot read the file";
    case KT_SELECT_EFORMAT: return "not a valid wisdom file";
    case KT_SELECT_EVERSION: return "unsupported wisdom format";
    case KT_SELECT_ENOMEM: return "out of memory";
    case KT_SELECT_ELIMIT: return "beyond a limit of the reader";
    case -7: return "run-time compilation unavailable (no NVRTC)";
    case -8: return "the kernel does not compile";
    default: return "unknown code";
    }
}
