// SPDX-License-Identifier: Apache-2.0
#include "metrics/record.h"

#include <math.h>

static json_t *number(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

json_t *kt_metrics_json(const kt_metric_set *set, const double *raw)
{
    json_t *list = json_array();
    double values[KT_METRICS_MAX];

    kt_metric_set_values(set, raw, values, NULL);
    for (size_t k = 0; k < set->num_items; ++k) {
        const kt_metric_item *item = &set->items[k];
        json_t *names = json_array();
        for (size_t j = 0; j < item->num_raw; ++j)
            json_array_append_new(names, json_string(set->raw[item->raw[j]]));
        json_array_append_new(
            list,
            json_pack("{s:s,s:o,s:s,s:o,s:s}", "name", item->name, "value",
                      number(values[k]), "unit",
                      item->def ? item->def->unit : "", "raw", names, "kind",
                      !item->def                        ? "raw"
                      : item->def->kind == KT_MK_STATIC ? "static"
                                                        : "catalog"));
    }
    return list;
}

json_t *kt_metrics_raw_json(const kt_metric_set *set, const double *raw)
{
    json_t *obj = json_object();
    for (size_t i = 0; i < set->num_raw; ++i)
        json_object_set_new(obj, set->raw[i], number(raw ? raw[i] : NAN));
    return obj;
}

json_t *kt_kernel_info_json(const kt_kernel_info *k, const kt_occupancy *occ)
{
    json_t *j;
    char limiters[96];

    if (!k->available)
        return json_pack("{s:b,s:i,s:I}", "available", 0, "block_threads",
                         k->block_threads, "dynamic_smem_bytes",
                         (json_int_t)k->dynamic_smem_bytes);
    j = json_pack(
        "{s:b,s:i,s:i,s:I,s:I,s:I,s:I,s:i,s:i,s:i,s:i,s:i}", "available", 1,
        "registers_per_thread", k->num_regs, "block_threads", k->block_threads,
        "static_smem_bytes", (json_int_t)k->static_smem_bytes,
        "dynamic_smem_bytes", (json_int_t)k->dynamic_smem_bytes,
        "local_bytes_per_thread", (json_int_t)k->local_bytes_per_thread,
        "const_bytes", (json_int_t)k->const_bytes, "max_threads_per_block",
        k->max_threads_per_block, "ptx_version", k->ptx_version,
        "binary_version", k->binary_version, "reserved_smem_per_block",
        k->reserved_smem_per_block, "api_blocks_per_sm", k->api_blocks_per_sm);
    if (occ && occ->max_warps_per_sm) {
        kt_occ_format_limiters(occ->limiters, limiters, sizeof limiters);
        json_object_set_new(
            j, "occupancy",
            json_pack("{s:f,s:i,s:i,s:i,s:i,s:s,s:{s:i,s:i,s:i,s:i},s:i,s:I}",
                      "theoretical_pct", occ->theoretical, "blocks_per_sm",
                      occ->blocks_per_sm, "warps_per_block",
                      occ->warps_per_block, "active_warps", occ->active_warps,
                      "max_warps_per_sm", occ->max_warps_per_sm, "limited_by",
                      limiters, "blocks_allowed_by", "warps", occ->by_warps,
                      "registers", occ->by_registers, "shared_memory",
                      occ->by_shared, "blocks_per_sm", occ->by_blocks,
                      "regs_per_warp", occ->regs_per_warp,
                      "smem_per_block_allocated",
                      (json_int_t)occ->smem_per_block));
    }
    return j;
}

json_t *kt_counter_stats_json(const kt_counter_stats *s)
{
    return json_pack(
        "{s:I,s:f,s:f,s:f,s:f,s:o,s:o,s:o}", "passes", (json_int_t)s->passes,
        "setup_s", s->setup_s, "passes_s", s->passes_s, "evaluate_s",
        s->evaluate_s, "total_s", s->total_s, "per_pass_s",
        number(s->passes ? s->passes_s / (double)s->passes : NAN), "kernels",
        s->kernels ? json_integer((json_int_t)s->kernels) : json_null(),
        "launches",
        s->launches ? json_integer((json_int_t)s->launches) : json_null());
}

static json_t *coalescing_json(const kt_coalescing *c)
{
    if (!c->have)
        return json_null();
    return json_pack(
        "{s:f,s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:b}", "requests", c->requests,
        "sectors", c->sectors, "sectors_per_request",
        number(c->requests > 0 ? c->measured : NAN), "bytes_requested",
        number(c->bytes), "bytes_per_request", number(c->bytes_per_request),
        "efficiency_pct", number(c->efficiency), "ideal",
        number(c->ideal > 0 ? c->ideal : NAN), "excess",
        number(c->ideal > 0 ? c->excess : NAN), "uncoalesced", c->uncoalesced);
}

json_t *kt_diagnosis_json(const kt_diagnosis *d)
{
    json_t *j = json_pack(
        "{s:{s:f,s:o,s:o,s:f,s:f},s:o,s:b,s:s,s:s,s:o,s:s,s:o,s:{s:o,s:o,s:o,"
        "s:b,s:s}}",
        "derived", "bandwidth_gbs", d->derived.bandwidth_gbs, "pct_of_copy",
        number(d->derived.pct_of_copy > 0 ? d->derived.pct_of_copy : NAN),
        "pct_of_peak",
        number(d->derived.pct_of_peak > 0 ? d->derived.pct_of_peak : NAN),
        "gflops", d->derived.gflops, "intensity", d->derived.intensity,
        "balance", number(d->balance > 0 ? d->balance : NAN),
        "balance_measured", d->balance_measured, "roofline", d->roofline,
        "bound", kt_bound_name(d->bound), "unit",
        d->unit ? json_string(d->unit) : json_null(), "why", d->why, "dram_pct",
        number(d->dram_pct), "coalescing", "access_bytes",
        d->access_bytes ? json_integer(d->access_bytes) : json_null(), "loads",
        coalescing_json(&d->load), "stores", coalescing_json(&d->store),
        "cause_uncoalesced", d->cause_uncoalesced, "text", d->coalescing);

    if (j && d->profiled[0])
        json_object_set_new(j, "profiled",
                            json_pack("{s:f,s:f,s:s}", "us", d->profiled_us,
                                      "vs_timed", d->profiled_ratio, "text",
                                      d->profiled));
    if (j && d->l2_hit_note[0])
        json_object_set_new(j, "l2_hit_rate_note", json_string(d->l2_hit_note));
    return j;
}
