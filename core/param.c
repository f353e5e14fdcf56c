// SPDX-License-Identifier: Apache-2.0
#include "core/param.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/parse.h"
#include "core/suggest.h"

static int is_pow2(int64_t v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

size_t kt_param_count(const kt_param_desc *param)
{
    switch (param->kind) {
    case KT_PARAM_LIST:
    case KT_PARAM_ENUM: return param->count;
    case KT_PARAM_POW2: {
        size_t n = 0;
        if (!is_pow2(param->min) || param->max < param->min)
            return 0;
        for (int64_t v = param->min; v <= param->max && v > 0; v *= 2) {
            ++n;
            if (v > INT64_MAX / 2)
                break;
        }
        return n;
    }
    case KT_PARAM_RANGE: {
        /* In unsigned arithmetic: max - min of INT64_MIN..INT64_MAX does
         * not fit in int64_t. The count saturates. */
        uint64_t steps;
        if (param->step <= 0 || param->max < param->min)
            return 0;
        steps = ((uint64_t)param->max - (uint64_t)param->min) /
                (uint64_t)param->step;
        return steps >= SIZE_MAX ? SIZE_MAX : (size_t)steps + 1;
    }
    }
    return 0;
}

int64_t kt_param_value_at(const kt_param_desc *param, size_t index)
{
    switch (param->kind) {
    case KT_PARAM_LIST: return param->values[index];
    case KT_PARAM_ENUM: return (int64_t)index;
    case KT_PARAM_POW2: return param->min << index;
    case KT_PARAM_RANGE:
        return (int64_t)((uint64_t)param->min +
                         (uint64_t)index * (uint64_t)param->step);
    }
    return 0;
}

long kt_param_index_of(const kt_param_desc *param, int64_t value)
{
    size_t n = kt_param_count(param);

    /* Ranges are answered by arithmetic: a walk would cost their count. */
    if (param->kind == KT_PARAM_RANGE) {
        uint64_t off;
        if (n == 0 || value < param->min || value > param->max)
            return -1;
        off = (uint64_t)value - (uint64_t)param->min;
        if (off % (uint64_t)param->step || off / (uint64_t)param->step >= n)
            return -1;
        return (long)(off / (uint64_t)param->step);
    }
    for (size_t i = 0; i < n; ++i)
        if (kt_param_value_at(param, i) == value)
            return (long)i;
    return -1;
}

kt_status kt_param_validate(const kt_param_desc *param, kt_err *err)
{
    const char *name = param->name ? param->name : "(unnamed)";
    size_t n;

    if (!param->name || !*param->name)
        return kt_err_set(err, KT_S_PLUGIN,
                          "parameter: field 'name' is NULL "
                          "or empty");
    switch (param->kind) {
    case KT_PARAM_LIST:
        if (!param->values || !param->count)
            return kt_err_set(err, KT_S_PLUGIN,
                              "parameter '%s': a list needs "
                              "'values' and 'count' > 0",
                              name);
        for (uint32_t i = 1; i < param->count; ++i)
            if (param->values[i] <= param->values[i - 1])
                return kt_err_set(err, KT_S_PLUGIN,
                                  "parameter '%s': 'values' "
                                  "must ascend without repeats; found %" PRId64
                                  " after %" PRId64,
                                  name, param->values[i], param->values[i - 1]);
        break;
    case KT_PARAM_ENUM:
        if (!param->labels || !param->count)
            return kt_err_set(err, KT_S_PLUGIN,
                              "parameter '%s': an enumeration "
                              "needs 'labels' and 'count' > 0",
                              name);
        for (uint32_t i = 0; i < param->count; ++i)
            if (!param->labels[i] || !*param->labels[i])
                return kt_err_set(err, KT_S_PLUGIN,
                                  "parameter '%s': label %u "
                                  "is NULL or empty",
                                  name, i);
        break;
    case KT_PARAM_POW2:
        if (!is_pow2(param->min) || !is_pow2(param->max) ||
            param->max < param->min)
            return kt_err_set(err, KT_S_PLUGIN,
                              "parameter '%s': powers of two "
                              "need 0 < min <= max, both powers of two; found "
                              "min %" PRId64 ", max %" PRId64,
                              name, param->min, param->max);
        break;
    case KT_PARAM_RANGE:
        if (param->step <= 0 || param->max < param->min)
            return kt_err_set(err, KT_S_PLUGIN,
                              "parameter '%s': a range needs "
                              "step > 0 and min <= max; found min %" PRId64
                              ", max %" PRId64 ", step %" PRId64,
                              name, param->min, param->max, param->step);
        break;
    default:
        return kt_err_set(err, KT_S_PLUGIN,
                          "parameter '%s': field 'kind' is "
                          "%u, expected 1 (list), 2 (pow2), 3 (range) or 4 "
                          "(enum)",
                          name, param->kind);
    }
    n = kt_param_count(param);
    if (n == 0 || n > KT_MAX_PARAM_VALUES)
        return kt_err_set(err, KT_S_PLUGIN,
                          "parameter '%s': %zu values, "
                          "expected 1 to %d",
                          name, n, KT_MAX_PARAM_VALUES);
    if (kt_param_index_of(param, param->default_value) < 0) {
        char allowed[256];
        kt_param_describe(param, allowed, sizeof allowed);
        return kt_err_set(err, KT_S_PLUGIN,
                          "parameter '%s': 'default_value' "
                          "%" PRId64 " is not one of %s",
                          name, param->default_value, allowed);
    }
    return KT_S_OK;
}

kt_status kt_param_parse(const kt_param_desc *param, const char *text,
                         int64_t *out, kt_err *err)
{
    char allowed[256];
    int64_t value;

    kt_param_describe(param, allowed, sizeof allowed);
    if (param->kind == KT_PARAM_ENUM) {
        char hint[256];
        for (uint32_t i = 0; i < param->count; ++i) {
            if (strcmp(param->labels[i], text) == 0) {
                *out = i;
                return KT_S_OK;
            }
        }
        kt_suggest(text, param->labels, param->count, hint, sizeof hint);
        return kt_err_set(err, KT_S_INPUT,
                          "parameter '%s': '%s' is not one of "
                          "%s%s",
                          param->name, text, allowed, hint);
    }
    if (kt_parse_i64(text, param->name, &value, err))
        return kt_err_prefix(err, "parameter ");
    if (kt_param_index_of(param, value) < 0)
        return kt_err_set(err, KT_S_INPUT,
                          "parameter '%s': %" PRId64 " is not one of %s",
                          param->name, value, allowed);
    *out = value;
    return KT_S_OK;
}

void kt_param_format(const kt_param_desc *param, int64_t value, char *out,
                     size_t out_size)
{
    if (param->kind == KT_PARAM_ENUM && value >= 0 &&
        value < (int64_t)param->count)
        snprintf(out, out_size, "%s", param->labels[value]);
    else
        snprintf(out, out_size, "%" PRId64, value);
}

void kt_param_describe(const kt_param_desc *param, char *out, size_t out_size)
{
    size_t n = kt_param_count(param), used = 0;

    if (param->kind == KT_PARAM_POW2) {
        snprintf(out, out_size, "%" PRId64 "..%" PRId64 " (powers of two)",
                 param->min, param->max);
        return;
    }
    if (param->kind == KT_PARAM_RANGE && n > 8) {
        snprintf(out, out_size, "%" PRId64 "..%" PRId64 " step %" PRId64,
                 param->min, param->max, param->step);
        return;
    }
    if (out_size == 0)
        return;
    out[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < out_size; ++i) {
        char item[128];
        kt_param_format(param, kt_param_value_at(param, i), item, sizeof item);
        used += (size_t)snprintf(out + used, out_size - used, "%s%s",
                                 i ? ", " : "{", item);
    }
    if (used + 1 < out_size)
        snprintf(out + used, out_size - used, "}");
}
