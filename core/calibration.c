// SPDX-License-Identifier: Apache-2.0
#include "core/calibration.h"

#include <stdio.h>
#include <string.h>

void kt_calib_cache_name(const char *uuid, char *out, size_t out_size)
{
    snprintf(out, out_size, "calibration-%s.json", uuid);
    for (char *p = out; *p; ++p)
        if (*p == '/')
            *p = '_';
}

json_t *kt_calib_to_json(const kt_calibration *c)
{
    json_t *sweep = json_array();
    for (size_t i = 0; i < c->sweep_count; ++i)
        json_array_append_new(sweep, json_pack("{s:f,s:f}", "working_set_bytes",
                                               c->sweep_bytes[i], "gbs",
                                               c->sweep_gbs[i]));
    json_t *j = json_pack(
        "{s:i,s:s,s:s,s:i,s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:o}", "version",
        c->version, "uuid", c->uuid, "gpu", c->gpu_name, "driver_version",
        c->driver_version, "date", c->date, "copy_bytes", c->copy_bytes,
        "copy_gbs", c->copy_gbs, "peak_bw_gbs", c->peak_bw_gbs,
        "launch_floor_us", c->launch_floor_us, "launch_sync_us",
        c->launch_sync_us, "l2_bytes", c->l2_bytes, "sweep", sweep);
    /* Only when measured: a reader takes a missing key as "not measured". */
    if (j && c->fp32_gflops > 0)
        json_object_set_new(j, "compute_gflops", json_real(c->fp32_gflops));
    if (j && c->fp64_gflops > 0)
        json_object_set_new(j, "compute_fp64_gflops",
                            json_real(c->fp64_gflops));
    if (j && c->copy_j_per_byte > 0)
        json_object_set_new(j, "copy_pj_per_byte",
                            json_real(1e12 * c->copy_j_per_byte));
    if (j && c->fma_j_per_flop > 0)
        json_object_set_new(j, "compute_pj_per_flop",
                            json_real(1e12 * c->fma_j_per_flop));
    return j;
}

kt_status kt_calib_from_json(const json_t *j, kt_calibration *out, kt_err *err)
{
    const char *uuid = NULL, *gpu = NULL, *date = NULL;
    json_t *sweep = NULL;
    json_error_t jerr;
    size_t i;
    json_t *item;

    memset(out, 0, sizeof *out);
    if (json_unpack_ex(
            (json_t *)j, &jerr, 0,
            "{s:i,s:s,s:s,s:i,s:s,s:F,s:F,s:F,s:F,s:F,s:F,s:o}", "version",
            &out->version, "uuid", &uuid, "gpu", &gpu, "driver_version",
            &out->driver_version, "date", &date, "copy_bytes", &out->copy_bytes,
            "copy_gbs", &out->copy_gbs, "peak_bw_gbs", &out->peak_bw_gbs,
            "launch_floor_us", &out->launch_floor_us, "launch_sync_us",
            &out->launch_sync_us, "l2_bytes", &out->l2_bytes, "sweep", &sweep))
        return kt_err_set(err, KT_S_INPUT, "calibration record: %s", jerr.text);
    /* Optional: older records have no compute ceiling. */
    if (json_is_number(json_object_get(j, "compute_gflops")))
        out->fp32_gflops =
            json_number_value(json_object_get(j, "compute_gflops"));
    if (json_is_number(json_object_get(j, "compute_fp64_gflops")))
        out->fp64_gflops =
            json_number_value(json_object_get(j, "compute_fp64_gflops"));
    if (json_number_value(json_object_get(j, "copy_pj_per_byte")) > 0)
        out->copy_j_per_byte =
            1e-12 * json_number_value(json_object_get(j, "copy_pj_per_byte"));
    if (json_number_value(json_object_get(j, "compute_pj_per_flop")) > 0)
        out->fma_j_per_flop =
            1e-12 *
            json_number_value(json_object_get(j, "compute_pj_per_flop"));
    snprintf(out->uuid, sizeof out->uuid, "%s", uuid);
    snprintf(out->gpu_name, sizeof out->gpu_name, "%s", gpu);
    snprintf(out->date, sizeof out->date, "%s", date);
    json_array_foreach (sweep, i, item) {
        if (i >= KT_CALIB_SWEEP_MAX)
            break;
        if (json_unpack_ex(item, &jerr, 0, "{s:F,s:F}", "working_set_bytes",
                           &out->sweep_bytes[i], "gbs", &out->sweep_gbs[i]))
            return kt_err_set(err, KT_S_INPUT, "calibration sweep[%zu]: %s", i,
                              jerr.text);
        out->sweep_count = i + 1;
    }
    return KT_S_OK;
}
