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

/* The first index of by_op whose entry has operator op. */
static size_t first_of(const kt_select_wisdom *w, const char *op)
{
    size_t lo = 0, hi = w->num_entries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(w->entries[w->by_op[mid]].op, op) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static double distance_of(const kt_select_entry *e, const int64_t *sizes)
{
    double d = 0;
    for (size_t i = 0; i < e->num_sizes; ++i)
        d += fabs(log2((double)sizes[i]) - log2((double)e->sizes[i]));
    return d;
}

static double log_volume(const kt_select_entry *e)
{
    double v = 0;
    for (size_t i = 0; i < e->num_sizes; ++i)
        v += log2((double)e->sizes[i]);
    return v;
}

/* 1 when e beats best for the rule's order (distance, then the larger
 * problem, then file order). */
static int better(const kt_select_entry *e, double d,
                  const kt_select_entry *best, double best_d)
{
    if (!best || d < best_d)
        return 1;
    if (d > best_d)
        return 0;
    if (log_volume(e) != log_volume(best))
        return log_volume(e) > log_volume(best);
    return e->line < best->line;
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

/* The nearest entry of op with num_sizes sizes on device name (tier 1) or,
 * failing that, of compute capability major.minor (tier 2; major < 0:
 * none). */
static int choose(const kt_select_wisdom *w, const char *op, const char *name,
                  int major, int minor, const int64_t *sizes, size_t n,
                  kt_select_config *out)
{
    const kt_select_entry *best[2] = {NULL, NULL};
    double best_d[2] = {0, 0};

    for (size_t k = first_of(w, op); k < w->num_entries; ++k) {
        const kt_select_entry *e = &w->entries[w->by_op[k]];
        int tier;
        double d;
        if (strcmp(e->op, op) != 0)
            break;
        if (e->num_sizes != n)
            continue;
        if (name && strcasecmp(e->device, name) == 0)
            tier = 0;
        else if (major >= 0 && e->cc_major == major && e->cc_minor == minor)
            tier = 1;
        else
            continue;
        d = distance_of(e, sizes);
        if (better(e, d, best[tier], best_d[tier])) {
            best[tier] = e;
            best_d[tier] = d;
        }
    }
    if (best[0]) {
        int exact = best_d[0] == 0;
        fill(out, best[0],
             exact ? KT_SELECT_MATCH_EXACT : KT_SELECT_MATCH_DEVICE, best_d[0]);
        return exact ? KT_SELECT_OK : KT_SELECT_NEAREST;
    }
    if (best[1]) {
        fill(out, best[1], KT_SELECT_MATCH_CC, best_d[1]);
        return KT_SELECT_NEAREST;
    }
    return KT_SELECT_NO_WISDOM;
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
    default: return "unknown code";
    }
}
