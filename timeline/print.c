// SPDX-License-Identifier: Apache-2.0
#include "timeline/print.h"

#include <string.h>

static void fmt_bytes(uint64_t b, char *out, size_t size)
{
    if (b < 1024)
        snprintf(out, size, "%llu B", (unsigned long long)b);
    else if (b < 1024 * 1024)
        snprintf(out, size, "%.1f KiB", (double)b / 1024);
    else if (b < 1024ull * 1024 * 1024)
        snprintf(out, size, "%.2f MiB", (double)b / (1024.0 * 1024));
    else
        snprintf(out, size, "%.2f GiB", (double)b / (1024.0 * 1024 * 1024));
}

static void time_cols(FILE *out, const kt_tl_row *r)
{
    char total[32], avg[32], mn[32], mx[32];
    kt_tl_fmt_time(r->total, total, sizeof total);
    kt_tl_fmt_time(r->count ? r->total / r->count : 0, avg, sizeof avg);
    kt_tl_fmt_time(r->min, mn, sizeof mn);
    kt_tl_fmt_time(r->max, mx, sizeof mx);
    fprintf(out, "  %5.1f%%  %10s  %8llu  %10s  %10s  %10s  ", 100 * r->share,
            total, (unsigned long long)r->count, avg, mn, mx);
}

static size_t rows_shown(size_t n, const kt_tl_print_opts *o)
{
    return o->max_rows && n > o->max_rows ? o->max_rows : n;
}

static void print_api(FILE *out, const kt_tl_summary *s,
                      const kt_tl_print_opts *o)
{
    static const char *const titles[] = {"runtime", "driver"};
    for (int d = 0; d < 2; ++d) {
        char dom = d ? 'D' : 'R';
        size_t shown = 0, n = 0;
        for (size_t i = 0; i < s->num_api; ++i)
            n += s->api[i].domain == dom;
        if (!n)
            continue;
        fprintf(out,
                "\nCUDA %s API summary (host time inside the calls; it "
                "overlaps GPU time: do not add the two)\n",
                titles[d]);
        fprintf(out, "  %6s  %10s  %8s  %10s  %10s  %10s  %s\n", "Time",
                "Total", "Calls", "Avg", "Min", "Max", "Name");
        for (size_t i = 0; i < s->num_api && shown < rows_shown(n, o); ++i) {
            if (s->api[i].domain != dom)
                continue;
            time_cols(out, &s->api[i]);
            fprintf(out, "%s\n", s->api[i].name);
            shown++;
        }
        if (shown < n)
            fprintf(out, "  (%zu more; --rows 0 lists all)\n", n - shown);
    }
}

static void print_kernels(FILE *out, const kt_tl_summary *s,
                          const kt_tl_print_opts *o)
{
    size_t n = rows_shown(s->num_kernels, o);
    if (!s->num_kernels)
        return;
    fprintf(out, "\nGPU kernel summary\n");
    fprintf(out, "  %6s  %10s  %8s  %10s  %10s  %10s  %s\n", "Time", "Total",
            "Launches", "Avg", "Min", "Max", "Kernel");
    for (size_t i = 0; i < n; ++i) {
        time_cols(out, &s->kernels[i]);
        fprintf(out, "%s\n", s->kernels[i].name);
    }
    if (n < s->num_kernels)
        fprintf(out, "  (%zu more; --rows 0 lists all)\n", s->num_kernels - n);
}

static void print_memops(FILE *out, const kt_tl_summary *s)
{
    if (!s->num_memops)
        return;
    fprintf(out, "\nGPU memory operations by time\n");
    fprintf(out, "  %6s  %10s  %8s  %10s  %10s  %10s  %s\n", "Time", "Total",
            "Count", "Avg", "Min", "Max", "Operation");
    for (size_t i = 0; i < s->num_memops; ++i) {
        time_cols(out, &s->memops[i]);
        fprintf(out, "%s\n", s->memops[i].name);
    }
    fprintf(out, "\nGPU memory operations by size\n");
    fprintf(out, "  %10s  %8s  %10s  %10s  %10s  %10s  %s\n", "Total", "Count",
            "Avg", "Min", "Max", "Rate", "Operation");
    for (size_t i = 0; i < s->num_memops; ++i) {
        const kt_tl_row *r = &s->memops[i];
        char total[32], avg[32], mn[32], mx[32];
        fmt_bytes(r->bytes, total, sizeof total);
        fmt_bytes(r->count ? r->bytes / r->count : 0, avg, sizeof avg);
        fmt_bytes(r->min_bytes, mn, sizeof mn);
        fmt_bytes(r->max_bytes, mx, sizeof mx);
        fprintf(out, "  %10s  %8llu  %10s  %10s  %10s  %5.1f GB/s  %s\n", total,
                (unsigned long long)r->count, avg, mn, mx,
                r->total ? (double)r->bytes / (double)r->total : 0.0, r->name);
    }
}

static void print_syncs(FILE *out, const kt_tl_summary *s)
{
    if (!s->num_syncs)
        return;
    fprintf(out, "\nSynchronisation (host waiting for the GPU)\n");
    fprintf(out, "  %6s  %10s  %8s  %10s  %10s  %10s  %s\n", "Time", "Total",
            "Count", "Avg", "Min", "Max", "Kind");
    for (size_t i = 0; i < s->num_syncs; ++i) {
        time_cols(out, &s->syncs[i]);
        fprintf(out, "%s\n", s->syncs[i].name);
    }
}

static double rel_ms(const kt_tl_summary *s, uint64_t t)
{
    return ((double)t - (double)s->wall_start) / 1e6;
}

static void print_launches(FILE *out, const kt_tl_summary *s,
                           const kt_tl_print_opts *o)
{
    size_t n = o->top < s->num_launches ? o->top : s->num_launches;
    if (!n)
        return;
    fprintf(out,
            "\nKernels in launch order (first %zu of %zu; start from the "
            "program's start)\n",
            n, s->num_launches);
    fprintf(out, "  %5s  %10s  %10s  %-16s %-12s %4s  %8s  %6s  %s\n", "#",
            "Start", "Duration", "Grid", "Block", "Regs", "Shared", "Stream",
            "Kernel");
    for (size_t i = 0; i < n; ++i) {
        const kt_tl_op *k = s->launch_order[i];
        char grid[48], block[48], dur[32], shared[32];
        snprintf(grid, sizeof grid, "%dx%dx%d", k->grid[0], k->grid[1],
                 k->grid[2]);
        snprintf(block, sizeof block, "%dx%dx%d", k->block[0], k->block[1],
                 k->block[2]);
        kt_tl_fmt_time(k->end - k->start, dur, sizeof dur);
        fmt_bytes((uint64_t)k->static_smem + (uint64_t)k->dynamic_smem, shared,
                  sizeof shared);
        fprintf(out, "  %5zu  %7.3f ms  %10s  %-16s %-12s %4u  %8s  %6u  %s\n",
                i + 1, rel_ms(s, k->start), dur, grid, block, k->registers,
                shared, k->stream, k->demangled);
    }
}

static void print_gaps(FILE *out, const kt_tl_summary *s)
{
    char span[32], busy[32], idle[32];
    if (!s->num_ops)
        return;
    kt_tl_fmt_time(s->span_end - s->span_start, span, sizeof span);
    kt_tl_fmt_time(s->busy, busy, sizeof busy);
    kt_tl_fmt_time(s->idle, idle, sizeof idle);
    fprintf(out,
            "\nGPU idle time: from its first operation to its last, %s: busy "
            "%s, idle %s (%llu gaps of 10 us or more)\n",
            span, busy, idle, (unsigned long long)s->num_gaps);
    for (size_t i = 0; i < s->num_top_gaps; ++i) {
        const kt_tl_gap *g = &s->gaps[i];
        char len[32];
        if (g->end - g->start < s->gap_threshold)
            break;
        kt_tl_fmt_time(g->end - g->start, len, sizeof len);
        fprintf(out, "  %10s at %9.3f ms  after %s, before %s\n", len,
                rel_ms(s, g->start), g->before->demangled, g->after->demangled);
    }
}

static void print_split(FILE *out, const kt_tl_summary *s)
{
    char k[32], c[32], m[32], ov[32], h[32], d[32], hb[32], db[32];
    if (!s->num_ops)
        return;
    kt_tl_fmt_time(s->kernel_time, k, sizeof k);
    kt_tl_fmt_time(s->copy_time, c, sizeof c);
    kt_tl_fmt_time(s->memset_time, m, sizeof m);
    kt_tl_fmt_time(s->copy_overlap, ov, sizeof ov);
    kt_tl_fmt_time(s->time_htod, h, sizeof h);
    kt_tl_fmt_time(s->time_dtoh, d, sizeof d);
    fmt_bytes(s->bytes_htod, hb, sizeof hb);
    fmt_bytes(s->bytes_dtoh, db, sizeof db);
    fprintf(out,
            "\nCopy time against kernel time\n"
            "  kernels %s, copies %s (Host-to-Device %s for %s, "
            "Device-to-Host %s for %s), memsets %s\n"
            "  copies running under kernels: %s\n",
            k, c, h, hb, d, db, m, ov);
}

void kt_tl_print(FILE *out, const kt_tl_summary *s, const kt_tl_print_opts *o)
{
    char reading[4096];
    print_api(out, s, o);
    print_kernels(out, s, o);
    print_memops(out, s);
    print_syncs(out, s);
    print_launches(out, s, o);
    print_gaps(out, s);
    print_split(out, s);
    kt_tl_reading(s, reading, sizeof reading);
    fprintf(out, "\nReading\n  %s\n", reading);
}

void kt_tl_print_processes(FILE *out, const kt_tl_summary *s)
{
    const kt_tl_trace *t = s->trace;
    for (size_t i = 0; i < t->num_procs; ++i) {
        const kt_tl_proc *p = &t->procs[i];
        size_t kernels = 0, copies = 0;
        for (size_t j = 0; j < t->num_ops; ++j)
            if (t->ops[j].proc == i) {
                kernels += t->ops[j].kind == KT_TL_KERNEL;
                copies += t->ops[j].kind != KT_TL_KERNEL;
            }
        fprintf(out, "  process %ld (%s): %zu kernels, %zu memory operations; ",
                p->pid, *p->exe ? p->exe : "?", kernels, copies);
        if (!p->ended)
            fprintf(out, "ended without its exit handlers: records up to the "
                         "last flush are kept");
        else if (strcmp(p->end_how, "exit") == 0)
            fprintf(out, "exited");
        else
            fprintf(out, "ended by %s: records up to then are kept",
                    p->end_how);
        if (p->dropped)
            fprintf(out, "; CUPTI dropped %llu records",
                    (unsigned long long)p->dropped);
        fputc('\n', out);
    }
}

/* A CSV field: quoted, quotes doubled (kernel names hold commas). */
static void csv_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int kt_tl_write_csv(FILE *out, const kt_tl_summary *s)
{
    static const char *const kinds[] = {"kernel", "memcpy", "memset"};
    const kt_tl_trace *t = s->trace;
    fprintf(out, "kind,pid,device,stream,start_ns,duration_ns,bytes,grid,"
                 "block,registers,shared_bytes,name\n");
    for (size_t i = 0; i < s->num_ops; ++i) {
        const kt_tl_op *op = s->by_start[i];
        fprintf(out, "%s,%ld,%u,%u,%lld,%llu,%llu,", kinds[op->kind],
                t->procs[op->proc].pid, op->device, op->stream,
                (long long)(op->start - s->wall_start),
                (unsigned long long)(op->end - op->start),
                (unsigned long long)op->bytes);
        if (op->kind == KT_TL_KERNEL)
            fprintf(out, "%dx%dx%d,%dx%dx%d,%u,%d,", op->grid[0], op->grid[1],
                    op->grid[2], op->block[0], op->block[1], op->block[2],
                    op->registers, op->static_smem + op->dynamic_smem);
        else
            fputs(",,,,", out);
        csv_text(out, op->demangled);
        fputc('\n', out);
    }
    for (size_t i = 0; i < t->num_apis; ++i) {
        const kt_tl_api *a = &t->apis[i];
        fprintf(out, "%s,%ld,,,%lld,%llu,,,,,,",
                a->domain == 'D' ? "driver" : "runtime", t->procs[a->proc].pid,
                (long long)(a->start - s->wall_start),
                (unsigned long long)(a->end - a->start));
        csv_text(out, a->name);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

const char *kt_tl_tool_of_library(const char *lib)
{
    static const struct {
        const char *mark, *tool;
    } tools[] = {{"ToolsInjection", "Nsight Systems (nsys)"},
                 {"nsys", "Nsight Systems (nsys)"},
                 {"InterceptorInjection", "Nsight Compute (ncu)"},
                 {"Nsight", "Nsight Compute (ncu)"},
                 {"sanitizer", "compute-sanitizer"},
                 {"cudbg", "cuda-gdb"}};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; ++i)
        if (strstr(lib, tools[i].mark))
            return tools[i].tool;
    return NULL;
}

/* "Nsight Systems (nsys) (libToolsInjection64.so)" for each tool library
 * in the space-separated list; "" when none is known. */
static void name_tools(const char *libs, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    while (*libs && len < size) {
        char lib[256];
        size_t n = strcspn(libs, " ");
        const char *tool;
        snprintf(lib, sizeof lib, "%.*s", (int)n, libs);
        libs += n + (libs[n] == ' ');
        if (!*lib || !(tool = kt_tl_tool_of_library(lib)))
            continue;
        len += (size_t)snprintf(out + len, size - len, "%s%s (%s)",
                                len ? ", " : "", tool, lib);
    }
}

static void explain(FILE *out, const kt_tl_proc *p, const kt_tl_error *e)
{
    char tools[512];
    if (strstr(e->result, "MULTIPLE_SUBSCRIBERS") ||
        strstr(e->result, "HARDWARE_BUSY")) {
        name_tools(e->tools, tools, sizeof tools);
        fprintf(out,
                "  process %ld: another profiler holds CUPTI (%s: %s): %s; "
                "close it, or run the program without it, and trace again\n",
                p->pid, e->call, e->result,
                *tools ? tools
                       : "Nsight Systems, Nsight Compute, compute-sanitizer, "
                         "cuda-gdb or the program's own CUPTI code");
    } else if (strstr(e->result, "INSUFFICIENT_PRIVILEGES")) {
        fprintf(out,
                "  process %ld: not allowed to trace (%s: %s): the driver "
                "restricts profiling to admin users "
                "(NVreg_RestrictProfilingToAdminUsers=1); run as root or "
                "lift the restriction\n",
                p->pid, e->call, e->result);
    } else {
        fprintf(out, "  process %ld: %s failed: %s (%d)\n", p->pid, e->call,
                e->result, e->code);
    }
}

size_t kt_tl_print_problems(FILE *out, const kt_tl_trace *t)
{
    size_t blind = 0;
    for (size_t i = 0; i < t->num_procs; ++i) {
        const kt_tl_proc *p = &t->procs[i];
        int kernels_off = 0;
        for (size_t j = 0; j < p->num_errors; ++j) {
            const kt_tl_error *e = &p->errors[j];
            explain(out, p, e);
            kernels_off |=
                strstr(e->call, "CONCURRENT_KERNEL") != NULL ||
                strcmp(e->call, "cuptiSubscribe") == 0 ||
                strcmp(e->call, "cuptiActivityRegisterCallbacks") == 0;
        }
        if (p->truncated)
            fprintf(out,
                    "  process %ld: its last record was cut short and is "
                    "left out\n",
                    p->pid);
        blind += kernels_off;
    }
    return blind;
}
