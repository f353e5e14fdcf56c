// SPDX-License-Identifier: Apache-2.0
#include "core/energy_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A figure the meter could not form (0/0) is written 0: JSON has no NaN,
 * and json_pack would drop the whole record. */
static double fin(double v)
{
    return isfinite(v) ? v : 0;
}

json_t *kt_energy_to_json(const kt_energy *e)
{
    json_t *j, *samples;

    if (!e->measured)
        return json_pack("{s:b,s:s}", "measured", 0, "note", e->note);
    samples = json_array();
    for (size_t i = 0; i < e->rounds; ++i)
        json_array_append_new(samples, json_real(fin(e->samples_j[i])));
    j = json_pack(
        "{s:b,s:s,s:f,s:f,s:f,s:f,s:o,s:f,s:f,s:I,s:I,s:f}", "measured", 1,
        "note", e->note, "joules_per_launch", fin(e->joules.median), "ci_lo_j",
        fin(e->joules.ci_lo), "ci_hi_j", fin(e->joules.ci_hi), "noise",
        fin(e->joules.noise), "samples_j", samples, "power_w", fin(e->power_w),
        "window_s", fin(e->window_s), "window_mj", (json_int_t)e->window_mj,
        "launches", (json_int_t)e->launches, "launch_us", fin(e->launch_us));
    json_object_update_new(
        j,
        json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:f,s:f,s:f,s:f,s:f}",
                  "counter_step_s", fin(e->step_s), "counter_step_mj",
                  fin(e->step_mj), "counter_jitter_s", fin(e->jitter_s),
                  "resolution", fin(e->resolution), "sampled_power_w",
                  fin(e->dev.sampled_power_w), "crosscheck", fin(e->crosscheck),
                  "power_samples", (json_int_t)e->dev.power_samples, "sm_mhz",
                  fin(e->dev.sm_mhz), "sm_mhz_min", fin(e->dev.sm_mhz_min),
                  "mem_mhz", fin(e->dev.mem_mhz), "temp_c", fin(e->dev.temp_c),
                  "power_limit_w", fin(e->dev.power_limit_w)));
    return j;
}

/* The samples of a measured record, each a finite energy > 0. */
static kt_status samples_from_json(const json_t *a, kt_energy *e, kt_err *err)
{
    size_t n = json_array_size(a);

    if (n < 1 || n > KT_ENERGY_MAX_ROUNDS)
        return kt_err_set(err, KT_S_INPUT,
                          "energy: samples_j has %zu values, expected 1 to %d",
                          n, KT_ENERGY_MAX_ROUNDS);
    for (size_t i = 0; i < n; ++i) {
        double v = json_number_value(json_array_get(a, i));
        if (!(v > 0) || !isfinite(v))
            return kt_err_set(err, KT_S_INPUT,
                              "energy: samples_j[%zu] is not an energy > 0", i);
        e->samples_j[i] = v;
    }
    e->rounds = n;
    return KT_S_OK;
}

kt_status kt_energy_from_json(const json_t *j, kt_energy *e, kt_err *err)
{
    json_int_t mj = 0, launches = 0, psamples = 0;
    const char *note = "";
    json_t *samples = NULL;
    json_error_t jerr;
    int measured = 0;
    kt_status rc;

    memset(e, 0, sizeof *e);
    if (!j)
        return KT_S_OK;
    if (json_unpack_ex((json_t *)j, &jerr, 0, "{s:b,s?s}", "measured",
                       &measured, "note", &note))
        return kt_err_set(err, KT_S_INPUT, "energy: %s", jerr.text);
    snprintf(e->note, sizeof e->note, "%s", note);
    if (!measured)
        return KT_S_OK;
    if (json_unpack_ex(
            (json_t *)j, &jerr, 0, "{s:o,s:F,s:F,s:I,s:I,s:F,s?F,s?F,s?F}",
            "samples_j", &samples, "power_w", &e->power_w, "window_s",
            &e->window_s, "window_mj", &mj, "launches", &launches, "launch_us",
            &e->launch_us, "counter_step_s", &e->step_s, "counter_step_mj",
            &e->step_mj, "resolution", &e->resolution) ||
        json_unpack_ex((json_t *)j, &jerr, 0,
                       "{s?F,s?F,s?I,s?F,s?F,s?F,s?F,s?F}", "counter_jitter_s",
                       &e->jitter_s, "sampled_power_w", &e->dev.sampled_power_w,
                       "power_samples", &psamples, "sm_mhz", &e->dev.sm_mhz,
                       "sm_mhz_min", &e->dev.sm_mhz_min, "mem_mhz",
                       &e->dev.mem_mhz, "temp_c", &e->dev.temp_c,
                       "power_limit_w", &e->dev.power_limit_w))
        return kt_err_set(err, KT_S_INPUT, "energy: %s", jerr.text);
    if ((rc = samples_from_json(samples, e, err)))
        return rc;
    e->window_mj = (uint64_t)(mj > 0 ? mj : 0);
    e->launches = (uint64_t)(launches > 0 ? launches : 0);
    e->dev.power_samples = (size_t)(psamples > 0 ? psamples : 0);
    kt_stats_compute(e->samples_j, e->rounds, &e->joules);
    e->crosscheck = e->power_w > 0 && e->dev.power_samples
                        ? e->dev.sampled_power_w / e->power_w - 1
                        : 0;
    e->measured = 1;
    return KT_S_OK;
}
