// SPDX-License-Identifier: Apache-2.0
#include "core/point.h"

#include <stdio.h>
#include <string.h>

#include "core/hash.h"
#include "core/suggest.h"

void kt_point_default(const kt_operator *op, uint32_t variant, kt_point *pt)
{
    const kt_variant *v = &op->variants[variant];
    memset(pt, 0, sizeof *pt);
    pt->variant = variant;
    pt->count = v->num_params;
    for (uint32_t i = 0; i < v->num_params; ++i)
        pt->values[i] = v->params[i].default_value;
}

const kt_config *kt_point_bind(const kt_operator *op, const kt_point *pt,
                               kt_bound_config *bc)
{
    const kt_variant *v = &op->variants[pt->variant];
    for (uint32_t i = 0; i < pt->count; ++i)
        bc->names[i] = v->params[i].name;
    bc->config.struct_size = sizeof bc->config;
    bc->config.count = pt->count;
    bc->config.values = pt->values;
    bc->config.names = bc->names;
    bc->config.data = v->data; /* ABI 1.3: the variant's context */
    return &bc->config;
}

int kt_nvml_setting_any(const kt_nvml_setting *s)
{
    return s->gr_mhz || s->mem_mhz || s->limit_w;
}

void kt_nvml_setting_text(const kt_nvml_setting *s, char *out, size_t size)
{
    const char *names[] = {"nvml_gr_clock", "nvml_mem_clock", "nvml_pwr_limit"};
    unsigned values[] = {s->gr_mhz, s->mem_mhz, s->limit_w};
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < 3 && used < size; ++i) {
        int w;
        if (!values[i])
            continue;
        w = snprintf(out + used, size - used, "%s%s=%u", used ? " " : "",
                     names[i], values[i]);
        used += w > 0 ? (size_t)w : 0;
    }
}

int kt_nvml_setting_equal(const kt_nvml_setting *a, const kt_nvml_setting *b)
{
    return a->gr_mhz == b->gr_mhz && a->mem_mhz == b->mem_mhz &&
           a->limit_w == b->limit_w;
}

int kt_point_equal(const kt_point *a, const kt_point *b)
{
    if (a->variant != b->variant || a->count != b->count ||
        !kt_nvml_setting_equal(&a->nvml, &b->nvml))
        return 0;
    for (uint32_t i = 0; i < a->count; ++i)
        if (a->values[i] != b->values[i])
            return 0;
    return 1;
}

uint64_t kt_point_hash(const kt_point *pt)
{
    uint64_t words[KT_MAX_PARAMS + 3];

    words[0] = ((uint64_t)pt->variant << 32) | pt->count;
    for (uint32_t i = 0; i < pt->count; ++i)
        words[i + 1] = (uint64_t)pt->values[i];
    words[pt->count + 1] = ((uint64_t)pt->nvml.gr_mhz << 32) | pt->nvml.mem_mhz;
    words[pt->count + 2] = pt->nvml.limit_w;
    return kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, words,
                         (pt->count + 3) * sizeof words[0]);
}

kt_status kt_point_set(const kt_operator *op, kt_point *pt, const char *name,
                       const char *text, kt_err *err)
{
    const kt_variant *v = &op->variants[pt->variant];
    const char *names[KT_MAX_PARAMS];
    char hint[256];

    for (uint32_t i = 0; i < v->num_params; ++i) {
        names[i] = v->params[i].name;
        if (strcmp(v->params[i].name, name) == 0)
            return kt_param_parse(&v->params[i], text, &pt->values[i], err);
    }
    kt_suggest(name, names, v->num_params, hint, sizeof hint);
    if (v->num_params == 0)
        snprintf(hint, sizeof hint, "; it has no parameters");
    return kt_err_set(err, KT_S_INPUT, "variant '%s' has no parameter '%s'%s",
                      v->id, name, hint);
}

void kt_point_format(const kt_operator *op, const kt_point *pt, char *out,
                     size_t out_size)
{
    const kt_variant *v = &op->variants[pt->variant];
    size_t used;

    if (!out_size)
        return;
    used = (size_t)snprintf(out, out_size, "%s", v->id);
    for (uint32_t i = 0; i < pt->count && used + 1 < out_size; ++i) {
        char value[64];
        kt_param_format(&v->params[i], pt->values[i], value, sizeof value);
        used += (size_t)snprintf(out + used, out_size - used, " %s=%s",
                                 v->params[i].name, value);
    }
    if (used + 1 < out_size && kt_nvml_setting_any(&pt->nvml)) {
        out[used++] = ' ';
        kt_nvml_setting_text(&pt->nvml, out + used, out_size - used);
    }
}

kt_status kt_point_validate(const kt_operator *op, const kt_point *pt,
                            kt_err *err)
{
    const kt_variant *v;

    if (pt->variant >= op->num_variants)
        return kt_err_set(err, KT_S_INPUT,
                          "variant index %u, operator '%s' "
                          "has %u variants",
                          pt->variant, op->id, op->num_variants);
    v = &op->variants[pt->variant];
    if (pt->count != v->num_params)
        return kt_err_set(err, KT_S_INPUT,
                          "variant '%s': %u values, expected "
                          "%u",
                          v->id, pt->count, v->num_params);
    for (uint32_t i = 0; i < pt->count; ++i) {
        if (kt_param_index_of(&v->params[i], pt->values[i]) < 0) {
            char allowed[256];
            kt_param_describe(&v->params[i], allowed, sizeof allowed);
            return kt_err_set(err, KT_S_INPUT,
                              "variant '%s': parameter '%s' "
                              "is %lld, expected one of %s",
                              v->id, v->params[i].name,
                              (long long)pt->values[i], allowed);
        }
    }
    return KT_S_OK;
}
