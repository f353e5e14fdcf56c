// SPDX-License-Identifier: Apache-2.0
#include "timeline/json.h"

#include "core/version.h"

static json_int_t rel(const kt_tl_summary *s, uint64_t t)
{
    return (json_int_t)((int64_t)t - (int64_t)s->wall_start);
}

static json_t *row_json(const kt_tl_row *r, const char *key, int bytes)
{
    json_t *o = json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:I, s:f}", key, r->name, "count",
        (json_int_t)r->count, "total_ns", (json_int_t)r->total, "avg_ns",
        (json_int_t)(r->count ? r->total / r->count : 0), "min_ns",
        (json_int_t)r->min, "max_ns", (json_int_t)r->max, "share", r->share);
    if (o && r->domain)
        json_object_set_new(
            o, "domain", json_string(r->domain == 'D' ? "driver" : "runtime"));
    if (o && bytes) {
        json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
        json_object_set_new(o, "min_bytes",
                            json_integer((json_int_t)r->min_bytes));
        json_object_set_new(o, "max_bytes",
                            json_integer((json_int_t)r->max_bytes));
    }
    return o;
}

static json_t *rows_json(const kt_tl_row *rows, size_t n, const char *key,
                         int bytes)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; ++i)
        json_array_append_new(a, row_json(&rows[i], key, bytes));
    return a;
}

static json_t *op_json(const kt_tl_summary *s, const kt_tl_op *op)
{
    static const char *const kinds[] = {"kernel", "memcpy", "memset"};
    json_t *o = json_pack(
        "{s:s, s:I, s:i, s:i, s:I, s:I, s:i}", "kind", kinds[op->kind], "pid",
        (json_int_t)s->trace->procs[op->proc].pid, "device", (int)op->device,
        "stream", (int)op->stream, "start_ns", rel(s, op->start), "end_ns",
        rel(s, op->end), "correlation", (int)op->correlation);
    if (!o)
        return NULL;
    if (op->kind == KT_TL_KERNEL) {
        json_object_set_new(o, "name", json_string(op->demangled));
        if (op->demangled != op->name)
            json_object_set_new(o, "mangled", json_string(op->name));
        json_object_set_new(
            o, "grid",
            json_pack("[i,i,i]", op->grid[0], op->grid[1], op->grid[2]));
        json_object_set_new(
            o, "block",
            json_pack("[i,i,i]", op->block[0], op->block[1], op->block[2]));
        json_object_set_new(o, "registers", json_integer(op->registers));
        json_object_set_new(o, "static_shared", json_integer(op->static_smem));
        json_object_set_new(o, "dynamic_shared",
                            json_integer(op->dynamic_smem));
    } else {
        if (op->kind == KT_TL_MEMCPY)
            json_object_set_new(
                o, "copy", json_string(kt_tl_copy_kind_name(op->copy_kind)));
        json_object_set_new(o, "bytes", json_integer((json_int_t)op->bytes));
    }
    return o;
}

static json_t *procs_json(const kt_tl_trace *t)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < t->num_procs; ++i) {
        const kt_tl_proc *p = &t->procs[i];
        json_t *errs = json_array();
        for (size_t j = 0; errs && j < p->num_errors; ++j)
            json_array_append_new(errs, json_pack("{s:s, s:s, s:i, s:s}",
                                                  "call", p->errors[j].call,
                                                  "result", p->errors[j].result,
                                                  "code", p->errors[j].code,
                                                  "tools", p->errors[j].tools));
        json_array_append_new(
            a, json_pack("{s:I, s:I, s:s, s:o, s:I, s:o}", "pid",
                         (json_int_t)p->pid, "ppid", (json_int_t)p->ppid, "exe",
                         p->exe, "ended",
                         p->ended ? json_string(p->end_how) : json_null(),
                         "dropped", (json_int_t)p->dropped, "errors",
                         errs ? errs : json_array()));
    }
    return a;
}

static json_t *gpu_json(const kt_tl_summary *s)
{
    json_t *gaps = json_array();
    for (size_t i = 0; gaps && i < s->num_top_gaps; ++i)
        json_array_append_new(
            gaps, json_pack("{s:I, s:I, s:s, s:s}", "start_ns",
                            rel(s, s->gaps[i].start), "length_ns",
                            (json_int_t)(s->gaps[i].end - s->gaps[i].start),
                            "before", s->gaps[i].before->demangled, "after",
                            s->gaps[i].after->demangled));
    return json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
        "span_start_ns", s->num_ops ? rel(s, s->span_start) : 0, "span_end_ns",
        s->num_ops ? rel(s, s->span_end) : 0, "busy_ns", (json_int_t)s->busy,
        "idle_ns", (json_int_t)s->idle, "kernel_ns", (json_int_t)s->kernel_time,
        "copy_ns", (json_int_t)s->copy_time, "memset_ns",
        (json_int_t)s->memset_time, "copy_under_kernels_ns",
        (json_int_t)s->copy_overlap, "sync_ns", (json_int_t)s->sync_time,
        "gaps_over_10us", (json_int_t)s->num_gaps, "largest_gaps",
        gaps ? gaps : json_array());
}

json_t *kt_tl_to_json(const kt_tl_summary *s, const kt_tl_json_info *info)
{
    char reading[4096], version[128];
    json_t *root, *program = json_array(), *ops = json_array();
    for (int i = 0; program && i < info->argc; ++i)
        json_array_append_new(program, json_string(info->argv[i]));
    for (size_t i = 0; ops && i < s->num_ops; ++i)
        json_array_append_new(ops, op_json(s, s->by_start[i]));
    if (info->untraced)
        snprintf(reading, sizeof reading, "untraced run: wall time only");
    else
        kt_tl_reading(s, reading, sizeof reading);
    snprintf(version, sizeof version, "%s (%s)", KT_VERSION, KT_GIT_COMMIT);
    root = json_pack(
        "{s:s, s:i, s:s, s:o, s:{s:i, s:i}, s:I, s:b, s:b, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:s}",
        "format", "ktune-timeline", "version", KT_TL_JSON_VERSION, "ktune",
        version, "program", program ? program : json_array(), "exit", "code",
        info->exit_code, "signal", info->signal, "wall_ns", (json_int_t)s->wall,
        "wall_measured", info->measured, "traced", !info->untraced, "processes",
        procs_json(s->trace), "gpu", gpu_json(s), "api",
        rows_json(s->api, s->num_api, "name", 0), "kernels",
        rows_json(s->kernels, s->num_kernels, "name", 0), "memory",
        rows_json(s->memops, s->num_memops, "operation", 1), "sync",
        rows_json(s->syncs, s->num_syncs, "kind", 0), "ops",
        ops ? ops : json_array(), "reading", reading);
    return root;
}
