// SPDX-License-Identifier: Apache-2.0
#include "timeline/summary.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gaps shorter than this are back-to-back launches, not idle time worth
 * naming (they still count in idle). */
#define GAP_THRESHOLD_NS 10000u

void kt_tl_fmt_time(uint64_t ns, char *out, size_t out_size)
{
    double v = (double)ns;
    if (ns < 1000)
        snprintf(out, out_size, "%llu ns", (unsigned long long)ns);
    else if (ns < 1000000)
        snprintf(out, out_size, "%.*f us",
                 v < 1e4   ? 2
                 : v < 1e5 ? 1
                           : 0,
                 v / 1e3);
    else if (ns < 1000000000)
        snprintf(out, out_size, "%.*f ms",
                 v < 1e7   ? 2
                 : v < 1e8 ? 1
                           : 0,
                 v / 1e6);
    else
        snprintf(out, out_size, "%.2f s", v / 1e9);
}

uint64_t kt_tl_mono_to_cupti(const kt_tl_proc *p, uint64_t mono)
{
    int64_t delta = (int64_t)(mono - p->init_mono);
    return (uint64_t)((int64_t)p->init_cupti + delta);
}

/* --- tables ------------------------------------------------------------- */

typedef struct table {
    kt_tl_row *rows;
    size_t num, cap, last;
} table;

static kt_tl_row *table_row(table *t, const char *name, char domain,
                            uint32_t kind)
{
    kt_tl_row *r;
    if (t->last < t->num && t->rows[t->last].name == name &&
        t->rows[t->last].domain == domain && t->rows[t->last].kind == kind)
        return &t->rows[t->last];
    for (size_t i = 0; i < t->num; ++i)
        if (t->rows[i].name == name && t->rows[i].domain == domain &&
            t->rows[i].kind == kind)
            return &t->rows[t->last = i];
    if (t->num == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        kt_tl_row *rows = realloc(t->rows, cap * sizeof *rows);
        if (!rows)
            return NULL;
        t->rows = rows;
        t->cap = cap;
    }
    r = &t->rows[t->last = t->num++];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->domain = domain;
    r->kind = kind;
    r->min = UINT64_MAX;
    r->min_bytes = UINT64_MAX;
    return r;
}

static void row_add(kt_tl_row *r, uint64_t time, uint64_t bytes)
{
    r->count++;
    r->total += time;
    r->min = time < r->min ? time : r->min;
    r->max = time > r->max ? time : r->max;
    r->bytes += bytes;
    r->min_bytes = bytes < r->min_bytes ? bytes : r->min_bytes;
    r->max_bytes = bytes > r->max_bytes ? bytes : r->max_bytes;
}

static int by_total_desc(const void *a, const void *b)
{
    const kt_tl_row *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Sorts the table and sets each row's share of the total of the rows in
 * its domain. */
static void table_finish(table *t, kt_tl_row **rows, size_t *num)
{
    uint64_t total[256] = {0};
    if (t->num)
        qsort(t->rows, t->num, sizeof *t->rows, by_total_desc);
    for (size_t i = 0; i < t->num; ++i)
        total[(unsigned char)t->rows[i].domain] += t->rows[i].total;
    for (size_t i = 0; i < t->num; ++i) {
        uint64_t d = total[(unsigned char)t->rows[i].domain];
        t->rows[i].share = d ? (double)t->rows[i].total / (double)d : 0;
    }
    *rows = t->rows;
    *num = t->num;
}

static kt_status api_table(kt_tl_summary *s, kt_err *err)
{
    const kt_tl_trace *t = s->trace;
    table tb = {0};
    for (size_t i = 0; i < t->num_apis; ++i) {
        const kt_tl_api *a = &t->apis[i];
        kt_tl_row *r = table_row(&tb, a->name, a->domain, 0);
        if (!r)
            goto nomem;
        row_add(r, a->end - a->start, 0);
        s->api_total[a->domain == 'D'] += a->end - a->start;
    }
    table_finish(&tb, &s->api, &s->num_api);
    return KT_S_OK;
nomem:
    free(tb.rows);
    return kt_err_set(err, KT_S_NOMEM, "timeline summary: out of memory");
}

static kt_status op_tables(kt_tl_summary *s, kt_err *err)
{
    const kt_tl_trace *t = s->trace;
    table kt = {0}, mt = {0};
    for (size_t i = 0; i < t->num_ops; ++i) {
        const kt_tl_op *op = &t->ops[i];
        uint64_t d = op->end - op->start;
        kt_tl_row *r;
        if (op->kind == KT_TL_KERNEL) {
            if (!(r = table_row(&kt, op->demangled, 0, 0)))
                goto nomem;
            row_add(r, d, 0);
            s->kernel_time += d;
            continue;
        }
        r = op->kind == KT_TL_MEMSET
                ? table_row(&mt, "memset", 0, UINT32_MAX)
                : table_row(&mt, kt_tl_copy_kind_name(op->copy_kind), 0,
                            op->copy_kind);
        if (!r)
            goto nomem;
        row_add(r, d, op->bytes);
        if (op->kind == KT_TL_MEMSET) {
            s->memset_time += d;
            continue;
        }
        s->copy_time += d;
        if (op->copy_kind == KT_TL_COPY_HTOD) {
            s->bytes_htod += op->bytes;
            s->time_htod += d;
            s->num_htod++;
        } else if (op->copy_kind == KT_TL_COPY_DTOH) {
            s->bytes_dtoh += op->bytes;
            s->time_dtoh += d;
            s->num_dtoh++;
        }
    }
    table_finish(&kt, &s->kernels, &s->num_kernels);
    table_finish(&mt, &s->memops, &s->num_memops);
    return KT_S_OK;
nomem:
    free(kt.rows);
    free(mt.rows);
    return kt_err_set(err, KT_S_NOMEM, "timeline summary: out of memory");
}

static kt_status sync_table(kt_tl_summary *s, kt_err *err)
{
    const kt_tl_trace *t = s->trace;
    table tb = {0};
    for (size_t i = 0; i < t->num_syncs; ++i) {
        const kt_tl_sync *y = &t->syncs[i];
        kt_tl_row *r =
            table_row(&tb, kt_tl_sync_type_name(y->type), 0, y->type);
        if (!r) {
            free(tb.rows);
            return kt_err_set(err, KT_S_NOMEM,
                              "timeline summary: out of memory");
        }
        row_add(r, y->end - y->start, 0);
        s->sync_time += y->end - y->start;
    }
    table_finish(&tb, &s->syncs, &s->num_syncs);
    return KT_S_OK;
}

/* --- order, busy time and gaps -------------------------------------------- */

static int by_start(const void *a, const void *b)
{
    const kt_tl_op *x = *(const kt_tl_op *const *)a;
    const kt_tl_op *y = *(const kt_tl_op *const *)b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static int by_launch(const void *a, const void *b)
{
    const kt_tl_op *x = *(const kt_tl_op *const *)a;
    const kt_tl_op *y = *(const kt_tl_op *const *)b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    if (x->correlation != y->correlation)
        return x->correlation < y->correlation ? -1 : 1;
    return by_start(a, b);
}

/* Keeps the KT_TL_MAX_GAPS largest gaps, largest first. */
static void note_gap(kt_tl_summary *s, const kt_tl_gap *g)
{
    uint64_t len = g->end - g->start;
    size_t i;
    if (len >= s->gap_threshold)
        s->num_gaps++;
    if (s->num_top_gaps == KT_TL_MAX_GAPS &&
        len <=
            s->gaps[KT_TL_MAX_GAPS - 1].end - s->gaps[KT_TL_MAX_GAPS - 1].start)
        return;
    if (s->num_top_gaps < KT_TL_MAX_GAPS)
        s->num_top_gaps++;
    for (i = s->num_top_gaps - 1;
         i > 0 && s->gaps[i - 1].end - s->gaps[i - 1].start < len; --i)
        s->gaps[i] = s->gaps[i - 1];
    s->gaps[i] = *g;
}

/* The length of the union of the intervals of the ops that pass keep,
 * walked in start order; with gaps when gaps is set. */
static uint64_t union_time(kt_tl_summary *s, int (*keep)(const kt_tl_op *),
                           int gaps)
{
    uint64_t busy = 0, lo = 0, hi = 0;
    const kt_tl_op *last = NULL;
    for (size_t i = 0; i < s->num_ops; ++i) {
        const kt_tl_op *op = s->by_start[i];
        if (!keep(op))
            continue;
        if (!last) {
            lo = op->start;
            hi = op->end;
            last = op;
            continue;
        }
        if (op->start > hi) {
            kt_tl_gap g = {hi, op->start, last, op};
            busy += hi - lo;
            if (gaps)
                note_gap(s, &g);
            lo = op->start;
        }
        if (op->end > hi) {
            hi = op->end;
            last = op;
        }
    }
    return last ? busy + (hi - lo) : 0;
}

static int any_op(const kt_tl_op *op)
{
    (void)op;
    return 1;
}

static int kernel_op(const kt_tl_op *op)
{
    return op->kind == KT_TL_KERNEL;
}

static int copy_op(const kt_tl_op *op)
{
    return op->kind == KT_TL_MEMCPY;
}

static int kernel_or_copy_op(const kt_tl_op *op)
{
    return op->kind != KT_TL_MEMSET;
}

static kt_status order_ops(kt_tl_summary *s, kt_err *err)
{
    const kt_tl_trace *t = s->trace;
    size_t k = 0;
    s->num_ops = t->num_ops;
    s->by_start = malloc((t->num_ops + 1) * sizeof *s->by_start);
    s->launch_order = malloc((t->num_ops + 1) * sizeof *s->launch_order);
    if (!s->by_start || !s->launch_order)
        return kt_err_set(err, KT_S_NOMEM, "timeline summary: out of memory");
    for (size_t i = 0; i < t->num_ops; ++i) {
        s->by_start[i] = &t->ops[i];
        if (t->ops[i].kind == KT_TL_KERNEL)
            s->launch_order[k++] = &t->ops[i];
    }
    s->num_launches = k;
    qsort(s->by_start, s->num_ops, sizeof *s->by_start, by_start);
    qsort(s->launch_order, k, sizeof *s->launch_order, by_launch);
    return KT_S_OK;
}

static void busy_and_gaps(kt_tl_summary *s)
{
    if (s->num_ops == 0)
        return;
    s->span_start = s->by_start[0]->start;
    for (size_t i = 0; i < s->num_ops; ++i)
        if (s->by_start[i]->end > s->span_end)
            s->span_end = s->by_start[i]->end;
    s->busy = union_time(s, any_op, 1);
    s->idle = s->span_end - s->span_start - s->busy;
    s->kernel_busy = union_time(s, kernel_op, 0);
    s->copy_busy = union_time(s, copy_op, 0);
    /* |K u C| = |K| + |C| - |K n C| */
    s->copy_overlap =
        s->kernel_busy + s->copy_busy - union_time(s, kernel_or_copy_op, 0);
}

/* The program's wall time on the CUPTI clock; without ktune's timing, from
 * the earliest CUDA initialisation to the latest end the trace shows. */
static void place_wall(kt_tl_summary *s, uint64_t wall, uint64_t start_mono)
{
    const kt_tl_trace *t = s->trace;
    uint64_t lo = UINT64_MAX, hi = 0;
    if (wall > 0) {
        /* Without a trace (an untraced run) there is no clock to map to. */
        s->wall = wall;
        s->wall_start =
            t->num_procs ? kt_tl_mono_to_cupti(&t->procs[0], start_mono) : 0;
        return;
    }
    if (t->num_procs == 0)
        return;
    for (size_t i = 0; i < t->num_procs; ++i) {
        const kt_tl_proc *p = &t->procs[i];
        lo = p->init_cupti < lo ? p->init_cupti : lo;
        hi = p->ended && p->end_cupti > hi ? p->end_cupti : hi;
    }
    hi = s->span_end > hi ? s->span_end : hi;
    for (size_t i = 0; i < t->num_apis; ++i)
        hi = t->apis[i].end > hi ? t->apis[i].end : hi;
    s->wall_start = lo;
    s->wall = hi > lo ? hi - lo : 0;
}

kt_status kt_tl_summarise(kt_tl_summary *s, const kt_tl_trace *t, uint64_t wall,
                          uint64_t wall_start_mono, kt_err *err)
{
    kt_status st;
    memset(s, 0, sizeof *s);
    s->trace = t;
    s->gap_threshold = GAP_THRESHOLD_NS;
    if ((st = api_table(s, err)) || (st = op_tables(s, err)) ||
        (st = sync_table(s, err)) || (st = order_ops(s, err))) {
        kt_tl_summary_free(s);
        return st;
    }
    busy_and_gaps(s);
    place_wall(s, wall, wall_start_mono);
    for (size_t i = 0; i < t->num_procs; ++i) {
        s->dropped += t->procs[i].dropped;
        s->num_errors += t->procs[i].num_errors;
    }
    return KT_S_OK;
}

void kt_tl_summary_free(kt_tl_summary *s)
{
    free(s->api);
    free(s->kernels);
    free(s->memops);
    free(s->syncs);
    free(s->by_start);
    free(s->launch_order);
    memset(s, 0, sizeof *s);
}

/* --- the reading ------------------------------------------------------------
 */

typedef struct text {
    char *out;
    size_t size, len;
} text;

static void say(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(text *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(t->len < t->size ? t->out + t->len : NULL,
                  t->len < t->size ? t->size - t->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void say_wall(const kt_tl_summary *s, text *t)
{
    char w[32], b[32], before[32], idle[32], after[32];
    uint64_t wall_end = s->wall_start + s->wall;
    uint64_t pre =
        s->span_start > s->wall_start ? s->span_start - s->wall_start : 0;
    uint64_t post = wall_end > s->span_end ? wall_end - s->span_end : 0;
    uint64_t outside = s->wall > s->busy ? s->wall - s->busy : 0;
    kt_tl_fmt_time(s->wall, w, sizeof w);
    kt_tl_fmt_time(s->busy, b, sizeof b);
    kt_tl_fmt_time(pre, before, sizeof before);
    kt_tl_fmt_time(s->idle, idle, sizeof idle);
    kt_tl_fmt_time(post, after, sizeof after);
    say(t,
        "%.0f%% of the %s wall time is outside the GPU (it is busy %s): %s "
        "before its first operation (CUDA start-up, allocation, host "
        "set-up), %s idle between operations, %s after the last. ",
        pct(outside, s->wall), w, b, before, idle, after);
}

static void say_copies_or_kernels(const kt_tl_summary *s, text *t)
{
    char c[32], k[32], per[32];
    kt_tl_fmt_time(s->copy_time, c, sizeof c);
    kt_tl_fmt_time(s->kernel_time, k, sizeof k);
    if (s->copy_time > s->kernel_time) {
        int htod = s->time_htod >= s->time_dtoh;
        uint64_t n = htod ? s->num_htod : s->num_dtoh;
        uint64_t time = htod ? s->time_htod : s->time_dtoh;
        kt_tl_fmt_time(n ? time / n : 0, per, sizeof per);
        say(t,
            "Copies take more GPU time than kernels (%s against %s): %s of "
            "%s copies per call (%llu copies) dominate. ",
            c, k, per, htod ? "Host-to-Device" : "Device-to-Host",
            (unsigned long long)n);
    } else if (s->num_kernels > 0) {
        const kt_tl_row *top = &s->kernels[0];
        kt_tl_fmt_time(top->count ? top->total / top->count : 0, per,
                       sizeof per);
        say(t,
            "Kernels take most of the GPU time (%s against %s of copies); %s "
            "alone takes %.0f%% of it (%llu launch%s, %s each on average). ",
            k, c, top->name, 100.0 * top->share, (unsigned long long)top->count,
            top->count == 1 ? "" : "es", per);
    }
    if (s->copy_overlap > 0)
        say(t, "%.0f%% of the copy time runs under kernels. ",
            pct(s->copy_overlap, s->copy_busy));
}

static void say_gaps(const kt_tl_summary *s, text *t)
{
    char g[32], idle[32];
    const kt_tl_gap *gap = &s->gaps[0];
    uint64_t span = s->span_end - s->span_start;
    if (s->num_top_gaps == 0 ||
        (gap->end - gap->start < 1000000 && s->idle * 5 < span))
        return;
    kt_tl_fmt_time(gap->end - gap->start, g, sizeof g);
    kt_tl_fmt_time(s->idle, idle, sizeof idle);
    say(t,
        "The GPU idles %s (%.0f%% of the span from its first operation to "
        "its last) in %llu gaps of 10 us or more; the largest, %s, lies "
        "between %s and %s: host work or a synchronisation the GPU waits "
        "for. ",
        idle, pct(s->idle, span), (unsigned long long)s->num_gaps, g,
        gap->before->demangled, gap->after->demangled);
}

static void say_small_kernels(const kt_tl_summary *s, text *t)
{
    char avg[32];
    uint64_t avg_ns = s->num_launches ? s->kernel_time / s->num_launches : 0;
    if (s->num_launches < 100 || avg_ns >= 20000)
        return;
    kt_tl_fmt_time(avg_ns, avg, sizeof avg);
    say(t,
        "The %llu kernels average %s each: at that size launch overhead "
        "and the gaps between launches weigh as much as the kernels "
        "(fewer, larger kernels or a CUDA graph help). ",
        (unsigned long long)s->num_launches, avg);
}

size_t kt_tl_reading(const kt_tl_summary *s, char *out, size_t out_size)
{
    text t = {out, out_size, 0};
    char sync[32];
    if (out_size > 0)
        out[0] = '\0';
    if (s->num_ops == 0) {
        say(&t, "The program ran no kernel, copy or memset on the GPU%s. ",
            s->trace->num_apis ? " (it made CUDA calls only)" : "");
    } else {
        say_wall(s, &t);
        say_copies_or_kernels(s, &t);
        say_gaps(s, &t);
        say_small_kernels(s, &t);
    }
    if (s->sync_time * 10 > s->wall && s->wall > 0) {
        kt_tl_fmt_time(s->sync_time, sync, sizeof sync);
        say(&t, "The host waits %s in synchronisation calls. ", sync);
    }
    say(&t, "API time and GPU time overlap (launches return before the "
            "GPU runs them): do not add them.");
    return t.len;
}
