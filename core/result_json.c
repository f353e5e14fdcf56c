// SPDX-License-Identifier: Apache-2.0
#include "core/result_json.h"

#include "core/energy_json.h"
#include "core/envrec.h"
#include "core/protocol.h"
#include "core/stop_rule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *kt_point_to_json(const kt_operator *op, const kt_point *pt)
{
    const kt_variant *v = &op->variants[pt->variant];
    json_t *params = json_object();

    for (uint32_t i = 0; i < pt->count; ++i) {
        const kt_param_desc *pd = &v->params[i];
        json_object_set_new(params, pd->name,
                            pd->kind == KT_PARAM_ENUM
                                ? json_string(pd->labels[pt->values[i]])
                                : json_integer(pt->values[i]));
    }
    json_t *j = json_pack("{s:s,s:o}", "variant", v->id, "params", params);
    /* ktune's dimensions, apart from the plugin's parameters; written only
     * when set, so points without read as before. */
    if (j && kt_nvml_setting_any(&pt->nvml))
        json_object_set_new(j, "nvml", kt_env_nvml_setting(&pt->nvml));
    return j;
}

kt_status kt_point_from_json(const kt_operator *op, const json_t *j,
                             kt_point *pt, kt_err *err)
{
    const char *variant = NULL;
    json_t *params = NULL;
    json_error_t jerr;
    size_t index;
    const char *key;
    json_t *value;
    kt_status rc;

    if (json_unpack_ex((json_t *)j, &jerr, 0, "{s:s,s:o}", "variant", &variant,
                       "params", &params))
        return kt_err_set(err, KT_S_INPUT, "point: %s", jerr.text);
    if ((rc = kt_operator_find_variant(op, variant, &index, err)))
        return rc;
    kt_point_default(op, (uint32_t)index, pt);
    json_object_foreach (params, key, value) {
        char text[64];
        if (json_is_integer(value))
            snprintf(text, sizeof text, "%lld",
                     (long long)json_integer_value(value));
        else if (json_is_string(value))
            snprintf(text, sizeof text, "%s", json_string_value(value));
        else
            return kt_err_set(err, KT_S_INPUT,
                              "point: parameter '%s' is "
                              "neither an integer nor a label",
                              key);
        if ((rc = kt_point_set(op, pt, key, text, err)))
            return rc;
    }
    if (json_object_size(params) != pt->count)
        return kt_err_set(err, KT_S_INPUT,
                          "point: variant '%s' has %u "
                          "parameters, the record gives %zu",
                          variant, pt->count, json_object_size(params));
    if ((rc = kt_env_nvml_setting_from(json_object_get(j, "nvml"), &pt->nvml,
                                       err)))
        return kt_err_prefix(err, "point: ");
    return KT_S_OK;
}

json_t *kt_stats_to_json(const kt_stats *s)
{
    return json_pack("{s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}",
                     "n", (json_int_t)s->n, "median", s->median, "min", s->min,
                     "max", s->max, "mean", s->mean, "stddev", s->stddev, "q1",
                     s->q1, "q3", s->q3, "rel_spread", s->rel_spread,
                     "rel_stddev", s->rel_stddev, "noise", s->noise, "ci_lo",
                     s->ci_lo, "ci_hi", s->ci_hi);
}

static kt_status stats_from_json(const json_t *j, kt_stats *s, kt_err *err)
{
    json_int_t n = 0;
    json_error_t jerr;

    memset(s, 0, sizeof *s);
    if (json_unpack_ex((json_t *)j, &jerr, 0,
                       "{s:I,s:F,s:F,s:F,s:F,s:F,s:F,s:F,s:F,s:F,s:F,s:F,s:F}",
                       "n", &n, "median", &s->median, "min", &s->min, "max",
                       &s->max, "mean", &s->mean, "stddev", &s->stddev, "q1",
                       &s->q1, "q3", &s->q3, "rel_spread", &s->rel_spread,
                       "rel_stddev", &s->rel_stddev, "noise", &s->noise,
                       "ci_lo", &s->ci_lo, "ci_hi", &s->ci_hi))
        return kt_err_set(err, KT_S_INPUT, "statistics: %s", jerr.text);
    /* Read as strictly as written: times are finite and positive, spreads
     * are not negative, and the order statistics are in order. */
    {
        const struct {
            const char *name;
            double v, lo;
        } f[] = {{"median", s->median, 0},
                 {"min", s->min, 0},
                 {"max", s->max, 0},
                 {"mean", s->mean, 0},
                 {"q1", s->q1, 0},
                 {"q3", s->q3, 0},
                 {"ci_lo", s->ci_lo, 0},
                 {"ci_hi", s->ci_hi, 0},
                 {"stddev", s->stddev, -1},
                 {"rel_spread", s->rel_spread, -1},
                 {"rel_stddev", s->rel_stddev, -1},
                 {"noise", s->noise, -1}};
        if (n < 1)
            return kt_err_set(err, KT_S_INPUT,
                              "statistics: n is %lld, expected at least 1",
                              (long long)n);
        for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i)
            if (!isfinite(f[i].v) || (f[i].lo == 0 ? f[i].v <= 0 : f[i].v < 0))
                return kt_err_set(
                    err, KT_S_INPUT, "statistics: %s is %g, expected %s",
                    f[i].name, f[i].v,
                    f[i].lo == 0 ? "a time > 0" : "a finite value >= 0");
        if (!(s->min <= s->median && s->median <= s->max))
            return kt_err_set(err, KT_S_INPUT,
                              "statistics: min %g, median %g, max %g are not "
                              "in order",
                              s->min, s->median, s->max);
    }
    s->n = (size_t)n;
    return KT_S_OK;
}

json_t *kt_timing_to_json(const kt_timing *t, int with_samples)
{
    json_t *j = json_pack(
        "{s:s,s:o,s:I,s:I,s:f,s:f,s:s,s:f,s:f}", "unit", "us", "kernel",
        kt_stats_to_json(&t->kernel), "rounds", (json_int_t)t->num_rounds,
        "discarded", (json_int_t)t->discarded, "min_clock_mhz",
        t->min_clock_mhz, "median_clock_mhz", t->median_clock_mhz,
        "stop_reason", t->stop_reason ? t->stop_reason : "", "gpu_time_s",
        t->gpu_time_s, "wall_time_s", t->wall_time_s);

    if (t->batch_k > 0)
        json_object_set_new(j, "batch",
                            json_pack("{s:i,s:f}", "launches", t->batch_k,
                                      "mean_us", t->batch_us));
    if (t->end_to_end.n > 0)
        json_object_set_new(j, "end_to_end", kt_stats_to_json(&t->end_to_end));
    if (with_samples && t->samples_us) {
        json_t *samples = json_array();
        for (size_t i = 0; i < t->num_rounds; ++i)
            json_array_append_new(samples, isnan(t->samples_us[i])
                                               ? json_null()
                                               : json_real(t->samples_us[i]));
        json_object_set_new(j, "samples_us", samples);
    }
    return j;
}

/* Stop reasons are static text in live timings; map recorded ones back so
 * replayed timings look the same. */
static const char *intern_reason(const char *text)
{
    static const char *const known[] = {
        "noise target",      "noise stable", "max samples",
        "time cap",          "pairs done",   "race: slower than the best",
        KT_STOP_SCREEN_FIRST};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
        if (strcmp(text, known[i]) == 0)
            return known[i];
    return "recorded";
}

kt_status kt_timing_from_json(const json_t *j, kt_timing *t, kt_err *err)
{
    json_t *kernel = NULL, *samples, *e2e, *batch;
    json_int_t rounds = 0, discarded = 0;
    const char *reason = "";
    json_error_t jerr;
    kt_status rc;

    memset(t, 0, sizeof *t);
    if (json_unpack_ex(
            (json_t *)j, &jerr, 0, "{s:o,s:I,s:I,s:F,s:F,s?s,s?F,s?F}",
            "kernel", &kernel, "rounds", &rounds, "discarded", &discarded,
            "min_clock_mhz", &t->min_clock_mhz, "median_clock_mhz",
            &t->median_clock_mhz, "stop_reason", &reason, "gpu_time_s",
            &t->gpu_time_s, "wall_time_s", &t->wall_time_s))
        return kt_err_set(err, KT_S_INPUT, "timing: %s", jerr.text);
    if (rounds < 0 || discarded < 0 || rounds > KT_PROTOCOL_MAX_SAMPLES ||
        discarded > rounds)
        return kt_err_set(err, KT_S_INPUT,
                          "timing: rounds %lld, discarded %lld; expected "
                          "0 <= discarded <= rounds <= %d",
                          (long long)rounds, (long long)discarded,
                          KT_PROTOCOL_MAX_SAMPLES);
    if ((rc = stats_from_json(kernel, &t->kernel, err)))
        return rc;
    t->discarded = (size_t)discarded;
    t->stop_reason = intern_reason(reason);
    if ((e2e = json_object_get(j, "end_to_end")) &&
        (rc = stats_from_json(e2e, &t->end_to_end, err)))
        return rc;
    if ((batch = json_object_get(j, "batch")) &&
        json_unpack_ex(batch, &jerr, 0, "{s:i,s:F}", "launches", &t->batch_k,
                       "mean_us", &t->batch_us))
        return kt_err_set(err, KT_S_INPUT, "timing.batch: %s", jerr.text);
    samples = json_object_get(j, "samples_us");
    if (json_is_array(samples) && json_array_size(samples) > 0) {
        size_t n = json_array_size(samples);
        t->samples_us = malloc(n * sizeof *t->samples_us);
        if (!t->samples_us)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        for (size_t i = 0; i < n; ++i) {
            json_t *s = json_array_get(samples, i);
            /* null: a sample discarded for a throttled clock (NaN in
             * memory, kt_timing_to_json writes it so). */
            t->samples_us[i] = json_is_number(s) ? json_number_value(s) : NAN;
            if (json_is_null(s))
                continue;
            if (!(t->samples_us[i] > 0) || !isfinite(t->samples_us[i]))
                return kt_err_set(err, KT_S_INPUT,
                                  "timing: samples_us[%zu] is not a time > 0 "
                                  "or null (discarded)",
                                  i);
        }
        if ((size_t)rounds != n)
            return kt_err_set(err, KT_S_INPUT,
                              "timing: rounds %lld, but samples_us holds %zu "
                              "(one per round)",
                              (long long)rounds, n);
        t->num_rounds = n;
    } else {
        t->num_rounds = (size_t)rounds;
    }
    return KT_S_OK;
}

/* A result's compile costs and how the pool served it (only the pool's
 * counts that are not zero, so results without a pool read as before). */
static json_t *compilation_json(const kt_eval_result *r)
{
    json_t *c =
        json_pack("{s:f,s:i,s:i,s:f,s:f,s:f}", "seconds", r->compile_s,
                  "compiled", (int)r->compiled, "cache_hits",
                  (int)r->compile_cache_hits, "cpu_s", r->compile_cpu_s,
                  "wait_s", r->compile_wait_s, "busy_s", r->compile_busy_s);
    const struct {
        const char *key;
        uint32_t n;
    } counts[] = {{"taken", r->compile_taken},
                  {"took_queued", r->compile_took_queued},
                  {"unhinted", r->compile_unhinted},
                  {"peak", r->compile_peak}};
    for (size_t i = 0; c && i < sizeof counts / sizeof counts[0]; ++i)
        if (counts[i].n)
            json_object_set_new(c, counts[i].key, json_integer(counts[i].n));
    if (c && r->compile_work_s > 0)
        json_object_set_new(c, "work_s", json_real(r->compile_work_s));
    return c;
}

json_t *kt_eval_result_to_json(const kt_operator *op, const kt_point *pt,
                               const kt_eval_result *r, int with_samples)
{
    json_t *j = json_pack("{s:o,s:s,s:s,s:{s:[i,i,i],s:[i,i,i],s:i}}", "point",
                          kt_point_to_json(op, pt), "status",
                          kt_eval_status_name(r->status), "reason", r->reason,
                          "shape", "grid", r->shape.grid[0], r->shape.grid[1],
                          r->shape.grid[2], "block", r->shape.block[0],
                          r->shape.block[1], r->shape.block[2],
                          "dynamic_smem_bytes", r->shape.dynamic_smem_bytes);
    if (r->status == KT_EVAL_OK)
        json_object_set_new(j, "timing",
                            kt_timing_to_json(&r->timing, with_samples));
    if (kt_eval_phases_any(&r->phases))
        json_object_set_new(j, "phases", kt_eval_phases_to_json(&r->phases));
    if (r->compiled || r->compile_cache_hits || r->compile_wait_s > 0 ||
        r->compile_busy_s > 0 || r->compile_taken || r->compile_work_s > 0)
        json_object_set_new(j, "compilation", compilation_json(r));
    if (r->has_work)
        json_object_set_new(j, "work",
                            json_pack("{s:f,s:f,s:f}", "bytes_read",
                                      r->work.bytes_read, "bytes_written",
                                      r->work.bytes_written, "flops",
                                      r->work.flops));
    if (r->status == KT_EVAL_OK && (r->energy.measured || r->energy.note[0]))
        json_object_set_new(j, "energy", kt_energy_to_json(&r->energy));
    return j;
}

int kt_eval_phases_any(const kt_eval_phases *p)
{
    return p->setup_s != 0 || p->verify_s != 0 || p->warmup_s != 0 ||
           p->sampling_s != 0 || p->flush_s != 0 || p->probe_s != 0;
}

json_t *kt_eval_phases_to_json(const kt_eval_phases *p)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "setup_s", p->setup_s,
                     "verify_s", p->verify_s, "warmup_s", p->warmup_s,
                     "sampling_s", p->sampling_s, "flush_s", p->flush_s,
                     "probe_s", p->probe_s);
}

kt_status kt_eval_phases_from_json(const json_t *j, kt_eval_phases *p,
                                   kt_err *err)
{
    json_error_t jerr;
    memset(p, 0, sizeof *p);
    if (!j)
        return KT_S_OK; /* recorded before phases were */
    if (json_unpack_ex((json_t *)j, &jerr, 0, "{s?F,s?F,s?F,s?F,s?F,s?F}",
                       "setup_s", &p->setup_s, "verify_s", &p->verify_s,
                       "warmup_s", &p->warmup_s, "sampling_s", &p->sampling_s,
                       "flush_s", &p->flush_s, "probe_s", &p->probe_s))
        return kt_err_set(err, KT_S_INPUT, "phases: %s", jerr.text);
    return KT_S_OK;
}

static uint32_t count_of(int n)
{
    return (uint32_t)(n > 0 ? n : 0);
}

static void compilation_from_json(const json_t *c, kt_eval_result *r)
{
    int compiled = 0, hits = 0, taken = 0, queued = 0, unhinted = 0, peak = 0;
    json_unpack((json_t *)c, "{s?F,s?i,s?i,s?F,s?F,s?F,s?i,s?i,s?i,s?i,s?F}",
                "seconds", &r->compile_s, "compiled", &compiled, "cache_hits",
                &hits, "cpu_s", &r->compile_cpu_s, "wait_s", &r->compile_wait_s,
                "busy_s", &r->compile_busy_s, "taken", &taken, "took_queued",
                &queued, "unhinted", &unhinted, "peak", &peak, "work_s",
                &r->compile_work_s);
    r->compiled = count_of(compiled);
    r->compile_cache_hits = count_of(hits);
    r->compile_taken = count_of(taken);
    r->compile_took_queued = count_of(queued);
    r->compile_unhinted = count_of(unhinted);
    r->compile_peak = count_of(peak);
}

void kt_eval_work_from_json(const json_t *rec, kt_eval_result *r)
{
    const json_t *w = json_object_get(rec, "work");
    if (!w)
        return;
    r->work.struct_size = sizeof r->work;
    r->has_work =
        json_unpack((json_t *)w, "{s:F,s:F,s:F}", "bytes_read",
                    &r->work.bytes_read, "bytes_written",
                    &r->work.bytes_written, "flops", &r->work.flops) == 0;
}

kt_status kt_eval_result_from_json(const kt_operator *op, const json_t *j,
                                   kt_point *pt, kt_eval_result *r, kt_err *err)
{
    const char *status = NULL, *reason = "";
    json_t *point = NULL, *timing;
    json_error_t jerr;
    int dsmem = 0;
    int g[3], b[3];
    kt_status rc;

    memset(r, 0, sizeof *r);
    if (json_unpack_ex((json_t *)j, &jerr, 0,
                       "{s:o,s:s,s?s,s:{s:[i,i,i],s:[i,i,i],s:i}}", "point",
                       &point, "status", &status, "reason", &reason, "shape",
                       "grid", &g[0], &g[1], &g[2], "block", &b[0], &b[1],
                       &b[2], "dynamic_smem_bytes", &dsmem))
        return kt_err_set(err, KT_S_INPUT, "result: %s", jerr.text);
    if ((rc = kt_point_from_json(op, point, pt, err)) ||
        (rc = kt_eval_status_parse(status, &r->status, err)))
        return rc;
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    r->shape.struct_size = sizeof r->shape;
    for (int i = 0; i < 3; ++i) {
        r->shape.grid[i] = (uint32_t)g[i];
        r->shape.block[i] = (uint32_t)b[i];
    }
    r->shape.dynamic_smem_bytes = (uint32_t)dsmem;
    if ((rc = kt_eval_phases_from_json(json_object_get(j, "phases"), &r->phases,
                                       err)) ||
        (rc = kt_energy_from_json(json_object_get(j, "energy"), &r->energy,
                                  err)))
        return rc;
    if ((timing = json_object_get(j, "compilation")))
        compilation_from_json(timing, r);
    kt_eval_work_from_json(j, r);
    timing = json_object_get(j, "timing");
    if (r->status == KT_EVAL_OK) {
        if (!timing)
            return kt_err_set(err, KT_S_INPUT,
                              "result: status ok without "
                              "\"timing\"");
        return kt_timing_from_json(timing, &r->timing, err);
    }
    return KT_S_OK;
}

json_t *kt_kernel_info_to_json(const kt_kernel_info *k)
{
    return json_pack(
        "{s:b,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:I,s:I,s:I,s:I}", "available",
        k->available, "num_regs", k->num_regs, "block_threads",
        k->block_threads, "max_threads_per_block", k->max_threads_per_block,
        "ptx_version", k->ptx_version, "binary_version", k->binary_version,
        "api_blocks_per_sm", k->api_blocks_per_sm, "reserved_smem_per_block",
        k->reserved_smem_per_block, "static_smem_bytes",
        (json_int_t)k->static_smem_bytes, "dynamic_smem_bytes",
        (json_int_t)k->dynamic_smem_bytes, "max_dynamic_smem_bytes",
        (json_int_t)k->max_dynamic_smem_bytes, "local_bytes_per_thread",
        (json_int_t)k->local_bytes_per_thread, "const_bytes",
        (json_int_t)k->const_bytes);
}

json_t *kt_profile_result_to_json(const kt_profile_result *r)
{
    json_t *values = json_array();

    for (size_t i = 0; i < r->num_values; ++i)
        json_array_append_new(values, isnan(r->values[i])
                                          ? json_null()
                                          : json_real(r->values[i]));
    return json_pack(
        "{s:s,s:s,s:{s:[i,i,i],s:[i,i,i],s:i},s:o,s:i,s:s,s:o,"
        "s:{s:I,s:f,s:f,s:f,s:f,s:I,s:I}}",
        "status", kt_eval_status_name(r->status), "reason", r->reason, "shape",
        "grid", r->shape.grid[0], r->shape.grid[1], r->shape.grid[2], "block",
        r->shape.block[0], r->shape.block[1], r->shape.block[2],
        "dynamic_smem_bytes", r->shape.dynamic_smem_bytes, "kernel",
        kt_kernel_info_to_json(&r->kernel), "counters", (int)r->counters,
        "note", r->note, "values", values, "stats", "passes",
        (json_int_t)r->stats.passes, "setup_s", r->stats.setup_s, "passes_s",
        r->stats.passes_s, "evaluate_s", r->stats.evaluate_s, "total_s",
        r->stats.total_s, "kernels", (json_int_t)r->stats.kernels, "launches",
        (json_int_t)r->stats.launches);
}

kt_status kt_profile_result_from_json(const json_t *j, kt_profile_result *r,
                                      kt_err *err)
{
    const char *status = NULL, *reason = "", *note = "";
    json_int_t smem_static = 0, smem_dyn = 0, smem_max = 0, local = 0,
               cbytes = 0, passes = 0;
    int g[3], b[3], dsmem = 0, counters = 0;
    kt_kernel_info *k = &r->kernel;
    json_t *values = NULL;
    json_error_t jerr;
    kt_status rc;

    memset(r, 0, sizeof *r);
    if (json_unpack_ex(
            (json_t *)j, &jerr, 0,
            "{s:s,s:s,s:{s:[i,i,i],s:[i,i,i],s:i},s:{s:b,s:i,s:i,s:i,s:i,s:i,"
            "s:i,s:i,s:I,s:I,s:I,s:I,s:I},s:i,s:s,s:o,s:{s:I,s:F,s:F,s:F,s:F}}",
            "status", &status, "reason", &reason, "shape", "grid", &g[0], &g[1],
            &g[2], "block", &b[0], &b[1], &b[2], "dynamic_smem_bytes", &dsmem,
            "kernel", "available", &k->available, "num_regs", &k->num_regs,
            "block_threads", &k->block_threads, "max_threads_per_block",
            &k->max_threads_per_block, "ptx_version", &k->ptx_version,
            "binary_version", &k->binary_version, "api_blocks_per_sm",
            &k->api_blocks_per_sm, "reserved_smem_per_block",
            &k->reserved_smem_per_block, "static_smem_bytes", &smem_static,
            "dynamic_smem_bytes", &smem_dyn, "max_dynamic_smem_bytes",
            &smem_max, "local_bytes_per_thread", &local, "const_bytes", &cbytes,
            "counters", &counters, "note", &note, "values", &values, "stats",
            "passes", &passes, "setup_s", &r->stats.setup_s, "passes_s",
            &r->stats.passes_s, "evaluate_s", &r->stats.evaluate_s, "total_s",
            &r->stats.total_s))
        return kt_err_set(err, KT_S_INPUT, "profile result: %s", jerr.text);
    if ((rc = kt_eval_status_parse(status, &r->status, err)))
        return rc;
    /* Optional: a worker of an older build does not send them. */
    {
        json_t *st = json_object_get(j, "stats");
        json_t *kernels = json_object_get(st, "kernels");
        json_t *launches = json_object_get(st, "launches");
        if (json_is_integer(kernels) && json_integer_value(kernels) > 0)
            r->stats.kernels = (size_t)json_integer_value(kernels);
        if (json_is_integer(launches) && json_integer_value(launches) > 0)
            r->stats.launches = (size_t)json_integer_value(launches);
    }
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    snprintf(r->note, sizeof r->note, "%s", note);
    r->shape.struct_size = sizeof r->shape;
    for (int i = 0; i < 3; ++i) {
        r->shape.grid[i] = (uint32_t)g[i];
        r->shape.block[i] = (uint32_t)b[i];
    }
    r->shape.dynamic_smem_bytes = (uint32_t)dsmem;
    k->static_smem_bytes = (size_t)smem_static;
    k->dynamic_smem_bytes = (size_t)smem_dyn;
    k->max_dynamic_smem_bytes = (size_t)smem_max;
    k->local_bytes_per_thread = (size_t)local;
    k->const_bytes = (size_t)cbytes;
    r->counters = (kt_status)counters;
    r->stats.passes = (size_t)passes;
    r->num_values = json_array_size(values);
    if (r->num_values) {
        r->values = malloc(r->num_values * sizeof *r->values);
        if (!r->values)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        for (size_t i = 0; i < r->num_values; ++i) {
            json_t *v = json_array_get(values, i);
            r->values[i] = json_is_number(v) ? json_number_value(v) : NAN;
        }
    }
    return KT_S_OK;
}

kt_status kt_eval_status_parse(const char *name, kt_eval_status *out,
                               kt_err *err)
{
    for (int s = KT_EVAL_OK; s <= KT_EVAL_TIMEOUT; ++s) {
        if (strcmp(name, kt_eval_status_name((kt_eval_status)s)) == 0) {
            *out = (kt_eval_status)s;
            return KT_S_OK;
        }
    }
    return kt_err_set(err, KT_S_INPUT, "unknown status '%s'", name);
}
