// SPDX-License-Identifier: Apache-2.0
#include "records/profiling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/result_json.h"
#include "metrics/record.h"

const char *kt_profiling_points_name(kt_profiling_points p)
{
    switch (p) {
    case KT_PROFILING_OFF: return "off";
    case KT_PROFILING_EVERY: return "every";
    case KT_PROFILING_TOP: return "top";
    }
    return "?";
}

int kt_profiling_wants_counters(const kt_profiling_spec *spec)
{
    return spec && spec->counters && spec->set.num_raw > 0 &&
           spec->points != KT_PROFILING_OFF;
}

json_t *kt_profiling_spec_json(const kt_profiling_spec *spec)
{
    json_t *items = json_array(), *raw = json_array();

    for (size_t i = 0; i < spec->set.num_items; ++i)
        json_array_append_new(items, json_string(spec->set.items[i].name));
    for (size_t i = 0; spec->counters && i < spec->set.num_raw; ++i)
        json_array_append_new(raw, json_string(spec->set.raw[i]));
    return json_pack("{s:o,s:o,s:s,s:o,s:b}", "counters", items, "raw", raw,
                     "points", kt_profiling_points_name(spec->points), "top",
                     spec->points == KT_PROFILING_TOP
                         ? json_integer((json_int_t)spec->top)
                         : json_null(),
                     "collect_counters", spec->counters);
}

kt_status kt_profiling_check(kt_evaluator *ev, const kt_profiling_spec *spec,
                             const kt_point *pt, int *available, char *note,
                             size_t note_size, kt_err *err)
{
    const char *raw[KT_METRICS_RAW_MAX];
    kt_profile_request req;
    kt_profile_result res;
    kt_status rc;

    *available = 0;
    if (note_size)
        note[0] = '\0';
    if (!kt_profiling_wants_counters(spec))
        return KT_S_OK;
    if (!ev->ops->profile) {
        snprintf(note, note_size, "the %s evaluator cannot profile",
                 ev->ops->kind);
        return KT_S_OK;
    }
    memset(&req, 0, sizeof req);
    req.num_metrics = kt_metric_set_raw_names(&spec->set, raw);
    req.metrics = raw;
    req.check_only = 1;
    memset(&res, 0, sizeof res);
    if ((rc = ev->ops->profile(ev, pt, &req, &res, err)))
        return rc;
    if (res.counters == KT_S_OK)
        *available = 1;
    else if (res.counters == KT_S_UNSUPPORTED)
        snprintf(note, note_size, "%s", res.note);
    else
        rc = kt_err_set(err, res.counters,
                        "checking the counter names failed: %s", res.note);
    kt_profile_result_free(&res);
    return rc;
}

/* ------------------------------------------------------------ records */

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static const char *counters_word(const kt_profile_result *r, size_t requested)
{
    if (!requested)
        return "none";
    if (r->counters == KT_S_OK)
        return "ok";
    return r->counters == KT_S_UNSUPPORTED ? "unavailable" : "failed";
}

static int int_of(const json_t *obj, const char *key)
{
    return (int)json_integer_value(json_object_get(obj, key));
}

static size_t size_of(const json_t *obj, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(obj, key));
    return v > 0 ? (size_t)v : 0;
}

static void kernel_from_json(const json_t *j, kt_kernel_info *k)
{
    memset(k, 0, sizeof *k);
    if (!json_is_object(j))
        return;
    k->available = json_is_true(json_object_get(j, "available"));
    k->num_regs = int_of(j, "num_regs");
    k->block_threads = int_of(j, "block_threads");
    k->max_threads_per_block = int_of(j, "max_threads_per_block");
    k->ptx_version = int_of(j, "ptx_version");
    k->binary_version = int_of(j, "binary_version");
    k->api_blocks_per_sm = int_of(j, "api_blocks_per_sm");
    k->reserved_smem_per_block = int_of(j, "reserved_smem_per_block");
    k->static_smem_bytes = size_of(j, "static_smem_bytes");
    k->dynamic_smem_bytes = size_of(j, "dynamic_smem_bytes");
    k->max_dynamic_smem_bytes = size_of(j, "max_dynamic_smem_bytes");
    k->local_bytes_per_thread = size_of(j, "local_bytes_per_thread");
    k->const_bytes = size_of(j, "const_bytes");
}

/* A static catalog value from the kernel facts; NaN when not known. */
static double static_value(kt_metric_id id, const kt_kernel_info *k,
                           const kt_occupancy *occ)
{
    if (!k->available)
        return NAN;
    switch (id) {
    case KT_M_REGISTERS: return k->num_regs;
    case KT_M_SHARED_PER_BLOCK:
        return (double)(k->static_smem_bytes + k->dynamic_smem_bytes);
    case KT_M_LOCAL_PER_THREAD: return (double)k->local_bytes_per_thread;
    case KT_M_THEORETICAL_OCCUPANCY: return occ ? occ->theoretical : NAN;
    default: return NAN;
    }
}

json_t *kt_profiling_record(const kt_operator *op, const kt_point *pt,
                            const kt_metric_set *set, size_t requested,
                            const kt_device *dev, const kt_profile_result *r)
{
    const double *values =
        requested && r->counters == KT_S_OK ? r->values : NULL;
    json_t *raw = json_object(), *metrics, *rec, *occupancy = json_null();
    kt_occupancy occ;
    int have_occ = 0;
    char config[512];

    kt_point_format(op, pt, config, sizeof config);
    for (size_t i = 0; i < requested && i < set->num_raw; ++i)
        json_object_set_new(
            raw, set->raw[i],
            number(values && i < r->num_values ? values[i] : NAN));
    if (dev && r->kernel.available &&
        kt_occupancy_of_kernel(dev, &r->kernel, &occ, NULL) == KT_S_OK) {
        char limiters[96];
        have_occ = 1;
        kt_occ_format_limiters(occ.limiters, limiters, sizeof limiters);
        json_decref(occupancy);
        occupancy =
            json_pack("{s:f,s:i,s:i,s:s}", "theoretical_pct", occ.theoretical,
                      "blocks_per_sm", occ.blocks_per_sm, "warps_per_block",
                      occ.warps_per_block, "limited_by", limiters);
    }
    /* Readable values with units; static items from the kernel facts. */
    metrics = kt_metrics_json(set, values);
    for (size_t k = 0; k < set->num_items; ++k) {
        const kt_metric_def *def = set->items[k].def;
        if (def && def->kind == KT_MK_STATIC)
            json_object_set_new(json_array_get(metrics, k), "value",
                                number(static_value(def->id, &r->kernel,
                                                    have_occ ? &occ : NULL)));
    }
    rec = json_pack(
        "{s:o,s:s,s:s,s:s,s:{s:[i,i,i],s:[i,i,i],s:i},s:s,s:s,s:o,s:o,s:o,"
        "s:o,s:o}",
        "point", kt_point_to_json(op, pt), "config", config, "status",
        kt_eval_status_name(r->status), "reason", r->reason, "shape", "grid",
        r->shape.grid[0], r->shape.grid[1], r->shape.grid[2], "block",
        r->shape.block[0], r->shape.block[1], r->shape.block[2],
        "dynamic_smem_bytes", r->shape.dynamic_smem_bytes, "counters",
        counters_word(r, requested), "note", r->note, "raw", raw, "metrics",
        metrics, "kernel", kt_kernel_info_to_json(&r->kernel), "occupancy",
        occupancy, "cost", kt_counter_stats_json(&r->stats));
    return rec;
}

int kt_profiling_covers(const json_t *rec, const char *const *names, size_t n)
{
    const json_t *raw = json_object_get(rec, "raw");
    const char *word = json_string_value(json_object_get(rec, "counters"));

    if (n == 0)
        return 1;
    if (!word || strcmp(word, "ok") != 0)
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!json_is_number(json_object_get(raw, names[i])))
            return 0;
    return 1;
}

kt_status kt_profiling_result(const json_t *rec, const char *const *names,
                              size_t n, kt_profile_result *out, kt_err *err)
{
    const json_t *raw = json_object_get(rec, "raw");
    const json_t *shape = json_object_get(rec, "shape");
    const json_t *cost = json_object_get(rec, "cost");
    const char *word = json_string_value(json_object_get(rec, "counters"));
    const char *status = json_string_value(json_object_get(rec, "status"));
    const char *reason = json_string_value(json_object_get(rec, "reason"));
    const char *note = json_string_value(json_object_get(rec, "note"));
    char missing[512] = "";
    size_t absent = 0;
    kt_status rc;

    memset(out, 0, sizeof *out);
    if (!status || !word)
        return kt_err_set(err, KT_S_INPUT,
                          "profile record: 'status' and 'counters' are "
                          "required");
    if ((rc = kt_eval_status_parse(status, &out->status, err)))
        return rc;
    snprintf(out->reason, sizeof out->reason, "%s", reason ? reason : "");
    if (json_is_object(shape)) {
        const json_t *g = json_object_get(shape, "grid");
        const json_t *b = json_object_get(shape, "block");
        for (size_t i = 0; i < 3; ++i) {
            out->shape.grid[i] =
                (uint32_t)json_integer_value(json_array_get(g, i));
            out->shape.block[i] =
                (uint32_t)json_integer_value(json_array_get(b, i));
        }
        out->shape.dynamic_smem_bytes = (uint32_t)json_integer_value(
            json_object_get(shape, "dynamic_smem_bytes"));
    }
    out->shape.struct_size = sizeof out->shape;
    kernel_from_json(json_object_get(rec, "kernel"), &out->kernel);
    out->stats.passes = size_of(cost, "passes");
    out->stats.setup_s = json_number_value(json_object_get(cost, "setup_s"));
    out->stats.passes_s = json_number_value(json_object_get(cost, "passes_s"));
    out->stats.evaluate_s =
        json_number_value(json_object_get(cost, "evaluate_s"));
    out->stats.total_s = json_number_value(json_object_get(cost, "total_s"));
    out->counters = KT_S_UNSUPPORTED;
    if (n == 0)
        return KT_S_OK;
    if (strcmp(word, "ok") != 0) {
        if (strcmp(word, "failed") == 0) {
            out->counters = KT_S_CUDA;
            snprintf(out->note, sizeof out->note,
                     "the recorded collection failed: %s", note ? note : "");
        } else if (strcmp(word, "unavailable") == 0) {
            snprintf(out->note, sizeof out->note,
                     "not recorded: counters were unavailable when this "
                     "point was profiled (%s)",
                     note ? note : "");
        } else {
            snprintf(out->note, sizeof out->note,
                     "not recorded: this point was profiled without "
                     "counters");
        }
        return KT_S_OK;
    }
    out->values = calloc(n, sizeof *out->values);
    if (!out->values)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    out->num_values = n;
    for (size_t i = 0; i < n; ++i) {
        const json_t *v = json_object_get(raw, names[i]);
        out->values[i] = json_is_number(v) ? json_number_value(v) : NAN;
        if (!json_is_number(v)) {
            size_t used = strlen(missing);
            if (absent < 4)
                snprintf(missing + used, sizeof missing - used, "%s%s",
                         absent ? ", " : "", names[i]);
            ++absent;
        }
    }
    if (absent == n) {
        kt_profile_result_free(out);
        out->counters = KT_S_UNSUPPORTED;
        snprintf(out->note, sizeof out->note,
                 "not recorded: the recorded profile holds none of the %zu "
                 "requested counters (%s%s)",
                 n, missing, absent > 4 ? ", ..." : "");
        return KT_S_OK;
    }
    out->counters = KT_S_OK;
    if (absent)
        snprintf(out->note, sizeof out->note, "not recorded: %zu of %zu (%s%s)",
                 absent, n, missing, absent > 4 ? ", ..." : "");
    return KT_S_OK;
}

void kt_profiling_from_result(const kt_metric_set *set, size_t requested,
                              const kt_profile_result *r,
                              kt_profiling_point *out)
{
    int have = requested && r->counters == KT_S_OK && r->values;

    memset(out, 0, sizeof *out);
    out->status = r->status;
    out->counters = requested ? r->counters : KT_S_UNSUPPORTED;
    snprintf(out->note, sizeof out->note, "%s", r->note);
    for (size_t i = 0; i < KT_METRICS_RAW_MAX; ++i)
        out->raw[i] = NAN;
    for (size_t i = 0; have && i < set->num_raw && i < r->num_values; ++i)
        out->raw[i] = r->values[i];
    kt_metric_set_values(set, have ? out->raw : NULL, NULL, out->by_id);
    out->kernel = r->kernel;
    out->cost = r->stats;
    for (int id = KT_M_REGISTERS; id < KT_M_THEORETICAL_OCCUPANCY; ++id)
        out->by_id[id] = static_value((kt_metric_id)id, &r->kernel, NULL);
}

int kt_profiling_diagnose(const kt_diag_facts *f, double median_us,
                          const kt_profiling_point *p, kt_diagnosis *out,
                          kt_occupancy *occ)
{
    kt_diag_point pt;
    pt.median_us = median_us;
    pt.kernel = p && p->kernel.available ? &p->kernel : NULL;
    pt.by_id = p && p->counters == KT_S_OK ? p->by_id : NULL;
    return kt_diagnose_point(f, &pt, out, occ, NULL);
}
