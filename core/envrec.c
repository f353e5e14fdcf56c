// SPDX-License-Identifier: Apache-2.0
#include "core/envrec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/energy.h"
#include "core/version.h"

json_t *kt_env_device(const kt_gpu *gpu)
{
    const kt_device *d = &gpu->dev;
    char cc[16];

    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    return json_pack(
        "{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:I,s:I,s:f,s:f,s:i,s:f,s:i,s:i,s:i,"
        "s:i,s:{s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:I,s:I,s:[i,i,i],s:[i,i,i]}}",
        "name", gpu->name, "uuid", gpu->uuid, "pci_bus_id", gpu->pci_bus_id,
        "compute_capability", cc, "cc_major", d->cc_major, "cc_minor",
        d->cc_minor, "sm_count", d->sm_count, "l2_bytes",
        (json_int_t)d->l2_bytes, "global_mem_bytes",
        (json_int_t)d->global_mem_bytes, "sm_clock_mhz",
        gpu->sm_clock_khz / 1e3, "mem_clock_mhz", gpu->mem_clock_khz / 1e3,
        "bus_width_bits", gpu->bus_width_bits, "peak_bw_gbs", gpu->peak_bw_gbs,
        "driver_version", gpu->driver_version, "runtime_version",
        gpu->runtime_version, "ecc", gpu->ecc_enabled, "compute_mode",
        gpu->compute_mode, "limits", "warp_size", d->warp_size,
        "max_threads_per_block", d->max_threads_per_block, "max_threads_per_sm",
        d->max_threads_per_sm, "max_blocks_per_sm", d->max_blocks_per_sm,
        "regs_per_sm", d->regs_per_sm, "regs_per_block", d->regs_per_block,
        "shared_mem_per_block", (json_int_t)d->shared_mem_per_block,
        "shared_mem_per_block_optin", (json_int_t)d->shared_mem_per_block_optin,
        "shared_mem_per_sm", (json_int_t)d->shared_mem_per_sm, "max_grid",
        d->max_grid[0], d->max_grid[1], d->max_grid[2], "max_block",
        d->max_block[0], d->max_block[1], d->max_block[2]);
}

/* A device has at least one of each: SMs, threads in a warp and in a
 * block, blocks per SM, grid and block extents. A record with 0 (or less)
 * is damage, and would divide by zero in occupancy and feasibility. */
static kt_status device_counts_positive(const kt_device *d, kt_err *err)
{
    const struct {
        const char *name;
        int value;
    } counts[] = {
        {"sm_count", d->sm_count},
        {"limits.warp_size", d->warp_size},
        {"limits.max_threads_per_block", d->max_threads_per_block},
        {"limits.max_threads_per_sm", d->max_threads_per_sm},
        {"limits.max_blocks_per_sm", d->max_blocks_per_sm},
        {"limits.max_grid[0]", d->max_grid[0]},
        {"limits.max_grid[1]", d->max_grid[1]},
        {"limits.max_grid[2]", d->max_grid[2]},
        {"limits.max_block[0]", d->max_block[0]},
        {"limits.max_block[1]", d->max_block[1]},
        {"limits.max_block[2]", d->max_block[2]},
    };
    for (size_t i = 0; i < sizeof counts / sizeof *counts; ++i)
        if (counts[i].value < 1)
            return kt_err_set(err, KT_S_INPUT,
                              "device record: %s is %d; a GPU has at least 1",
                              counts[i].name, counts[i].value);
    return KT_S_OK;
}

kt_status kt_env_device_from_json(const json_t *j, kt_device *dev,
                                  char *name_buf, size_t name_size, kt_err *err)
{
    const char *name = NULL;
    kt_status rc;
    json_int_t l2 = 0, mem = 0, smem = 0, smem_optin = 0, smem_sm = 0;
    json_error_t jerr;

    memset(dev, 0, sizeof *dev);
    if (json_unpack_ex(
            (json_t *)j, &jerr, 0,
            "{s:s,s:i,s:i,s:i,s:I,s:I,s:{s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:I,s:I,"
            "s:[i,i,i],s:[i,i,i]}}",
            "name", &name, "cc_major", &dev->cc_major, "cc_minor",
            &dev->cc_minor, "sm_count", &dev->sm_count, "l2_bytes", &l2,
            "global_mem_bytes", &mem, "limits", "warp_size", &dev->warp_size,
            "max_threads_per_block", &dev->max_threads_per_block,
            "max_threads_per_sm", &dev->max_threads_per_sm, "max_blocks_per_sm",
            &dev->max_blocks_per_sm, "regs_per_sm", &dev->regs_per_sm,
            "regs_per_block", &dev->regs_per_block, "shared_mem_per_block",
            &smem, "shared_mem_per_block_optin", &smem_optin,
            "shared_mem_per_sm", &smem_sm, "max_grid", &dev->max_grid[0],
            &dev->max_grid[1], &dev->max_grid[2], "max_block",
            &dev->max_block[0], &dev->max_block[1], &dev->max_block[2]))
        return kt_err_set(err, KT_S_INPUT, "device record: %s", jerr.text);
    if ((rc = device_counts_positive(dev, err)))
        return rc;
    dev->struct_size = sizeof *dev;
    dev->l2_bytes = l2;
    dev->global_mem_bytes = mem;
    dev->shared_mem_per_block = smem;
    dev->shared_mem_per_block_optin = smem_optin;
    dev->shared_mem_per_sm = smem_sm;
    snprintf(name_buf, name_size, "%s", name);
    dev->name = name_buf;
    return KT_S_OK;
}

json_t *kt_env_plugin(const kt_loaded_plugin *plugin)
{
    const kt_plugin *d = &plugin->desc;
    char abi[32];

    snprintf(abi, sizeof abi, "%u.%u", d->abi_major, d->abi_minor);
    return json_pack("{s:s,s:s,s:s,s:s,s:i,s:s,s:s,s:s}", "name", d->name,
                     "version", d->version ? d->version : "", "path",
                     plugin->path, "abi", abi, "cuda_runtime_version",
                     d->cuda_runtime_version, "cuda_archs",
                     d->cuda_archs ? d->cuda_archs : "", "compiler",
                     d->compiler ? d->compiler : "", "build_date",
                     d->build_date ? d->build_date : "");
}

json_t *kt_env_protocol(const kt_protocol *p)
{
    json_t *j = json_pack(
        "{s:s,s:s,s:i,s:I,s:I,s:f,s:f,s:f,s:s,s:i,s:b,s:i,s:f,s:s}",
        "timing_scope",
        "kernel interval: CUDA events recorded in the launch stream, a clock "
        "probe kernel queued before each sample",
        "statistic", "per-sample median (min, mean, stddev, quartiles kept)",
        "warmups", p->warmups, "min_samples", (json_int_t)p->min_samples,
        "max_samples", (json_int_t)p->max_samples, "min_time_s", p->min_time_s,
        "max_time_s", p->max_time_s, "target_noise", p->target_noise, "cache",
        kt_cache_mode_name(p->cache), "batch", p->batch, "end_to_end",
        p->end_to_end, "probe_ns", (int)p->probe_ns, "throttle_ratio",
        p->throttle_ratio, "noise_estimate", "1.4826 * MAD / median");
    /* Written only when on, so records made without them read the same. */
    if (p->race > 0)
        json_object_set_new(j, "race", json_real(p->race));
    if (p->screen_samples > 0)
        json_object_set_new(j, "screen_samples",
                            json_integer((json_int_t)p->screen_samples));
    if (p->race_bar_us > 0)
        json_object_set_new(j, "race_bar_us", json_real(p->race_bar_us));
    if (p->race_bar_us_per_work > 0)
        json_object_set_new(
            j, "race_bar_per_work",
            json_pack("{s:f,s:s}", "us", p->race_bar_us_per_work, "per",
                      p->race_bar_work == KT_BAR_FLOPS ? "flop" : "byte"));
    if (p->race_pairs)
        json_object_set_new(j, "race_pairs", json_true());
    if (p->energy)
        json_object_set_new(j, "energy",
                            json_pack("{s:I,s:f,s:s}", "rounds",
                                      (json_int_t)p->energy_rounds, "window_s",
                                      p->energy_window_s, "protocol",
                                      KT_ENERGY_PROTOCOL));
    if (p->round_sync)
        json_object_set_new(j, "round_sync", json_true());
    if (p->profile_flush_sweep)
        json_object_set_new(j, "profile_flush", json_string("sweep"));
    return j;
}

json_t *kt_env_nvml_setting(const kt_nvml_setting *s)
{
    return json_pack("{s:i,s:i,s:i}", "gr_clock_mhz", (int)s->gr_mhz,
                     "mem_clock_mhz", (int)s->mem_mhz, "power_limit_w",
                     (int)s->limit_w);
}

kt_status kt_env_nvml_setting_from(const json_t *j, kt_nvml_setting *s,
                                   kt_err *err)
{
    int gr = 0, mem = 0, limit = 0;
    json_error_t jerr;

    memset(s, 0, sizeof *s);
    if (!j)
        return KT_S_OK;
    if (json_unpack_ex((json_t *)j, &jerr, 0, "{s:i,s:i,s:i}", "gr_clock_mhz",
                       &gr, "mem_clock_mhz", &mem, "power_limit_w", &limit) ||
        gr < 0 || mem < 0 || limit < 0)
        return kt_err_set(err, KT_S_INPUT, "nvml settings: %s",
                          gr < 0 || mem < 0 || limit < 0 ? "a negative value"
                                                         : jerr.text);
    *s = (kt_nvml_setting){(unsigned)gr, (unsigned)mem, (unsigned)limit};
    return KT_S_OK;
}

json_t *kt_env_nvml_choices(const kt_nvml_choices *c)
{
    json_t *j = json_object();

    for (size_t w = 0; w < 3; ++w) {
        json_t *values;
        if (!c->count[w])
            continue;
        values = json_array();
        for (uint32_t i = 0; i < c->count[w]; ++i)
            json_array_append_new(values, json_integer(c->values[w][i]));
        json_object_set_new(j, kt_nvml_key(w), values);
    }
    return j;
}

kt_status kt_env_nvml_choices_from(const json_t *j, kt_nvml_choices *c,
                                   kt_err *err)
{
    memset(c, 0, sizeof *c);
    for (size_t w = 0; j && w < 3; ++w) {
        const json_t *values = json_object_get(j, kt_nvml_key(w));
        size_t n = json_array_size(values);
        if (n > KT_NVML_MAX_VALUES)
            return kt_err_set(err, KT_S_INPUT,
                              "nvml: %s: %zu values, at most %d",
                              kt_nvml_key(w), n, KT_NVML_MAX_VALUES);
        for (size_t i = 0; i < n; ++i) {
            json_int_t v = json_integer_value(json_array_get(values, i));
            if (v < 1 || v > 100000)
                return kt_err_set(err, KT_S_INPUT,
                                  "nvml: %s: value %zu is not 1 to 100000",
                                  kt_nvml_key(w), i);
            c->values[w][i] = (unsigned)v;
        }
        c->count[w] = (uint32_t)n;
    }
    return KT_S_OK;
}

/* The energy protocol of a record; absent: off (records made before). */
static kt_status energy_from_json(const json_t *j, kt_protocol *p, kt_err *err)
{
    json_int_t rounds = 0;
    json_error_t jerr;

    if (!j)
        return KT_S_OK;
    if (json_unpack_ex((json_t *)j, &jerr, 0, "{s:I,s:F}", "rounds", &rounds,
                       "window_s", &p->energy_window_s) ||
        rounds < 1)
        return kt_err_set(err, KT_S_INPUT, "protocol: energy: %s",
                          rounds < 1 ? "rounds < 1" : jerr.text);
    p->energy = 1;
    p->energy_rounds = (size_t)rounds;
    return KT_S_OK;
}

/* race_bar_per_work {us, per}, written where it is on. */
static void read_work_bar(const json_t *b, kt_protocol *p)
{
    const char *per = json_string_value(json_object_get(b, "per"));

    p->race_bar_us_per_work = json_number_value(json_object_get(b, "us"));
    p->race_bar_work = per && strcmp(per, "flop") == 0   ? KT_BAR_FLOPS
                       : per && strcmp(per, "byte") == 0 ? KT_BAR_BYTES
                                                         : KT_BAR_NONE;
}

kt_status kt_protocol_from_json(const json_t *j, kt_protocol *p, kt_err *err)
{
    kt_status rc;
    json_int_t min_samples = 0, max_samples = 0;
    const char *cache = NULL;
    int probe = 0, e2e = 0;
    json_error_t jerr;

    kt_protocol_defaults(p);
    if (json_unpack_ex((json_t *)j, &jerr, 0,
                       "{s:i,s:I,s:I,s:F,s:F,s:F,s:s,s:i,s:b,s:i,s:F}",
                       "warmups", &p->warmups, "min_samples", &min_samples,
                       "max_samples", &max_samples, "min_time_s",
                       &p->min_time_s, "max_time_s", &p->max_time_s,
                       "target_noise", &p->target_noise, "cache", &cache,
                       "batch", &p->batch, "end_to_end", &e2e, "probe_ns",
                       &probe, "throttle_ratio", &p->throttle_ratio))
        return kt_err_set(err, KT_S_INPUT, "protocol: %s", jerr.text);
    if (kt_cache_mode_parse(cache, &p->cache, err))
        return kt_err_prefix(err, "protocol: ");
    p->min_samples = (size_t)min_samples;
    p->max_samples = (size_t)max_samples;
    p->end_to_end = e2e;
    p->probe_ns = (unsigned)probe;
    p->race = json_number_value(json_object_get(j, "race"));
    p->race_bar_us = json_number_value(json_object_get(j, "race_bar_us"));
    read_work_bar(json_object_get(j, "race_bar_per_work"), p);
    p->screen_samples =
        (size_t)json_integer_value(json_object_get(j, "screen_samples"));
    p->race_pairs = json_is_true(json_object_get(j, "race_pairs"));
    p->round_sync = json_is_true(json_object_get(j, "round_sync"));
    p->profile_flush_sweep =
        json_is_string(json_object_get(j, "profile_flush")) &&
        strcmp(json_string_value(json_object_get(j, "profile_flush")),
               "sweep") == 0;
    /* A record's "nvml" (one setting per run, before each point carried
     * its own) is left out: the points say what was in force. */
    if ((rc = energy_from_json(json_object_get(j, "energy"), p, err)))
        return rc;
    return kt_protocol_validate(p, err);
}

/* The command line joined by spaces, whole: a record must name the run it
 * came from, so nothing is cut. NULL when out of memory. */
static char *joined_command_line(int argc, char *const *argv)
{
    size_t size = 1;
    char *cmd, *at;

    for (int i = 0; i < argc; ++i)
        size += strlen(argv[i]) + 1;
    if (!(cmd = malloc(size)))
        return NULL;
    at = cmd;
    *at = '\0';
    for (int i = 0; i < argc; ++i)
        at += sprintf(at, "%s%s", i ? " " : "", argv[i]);
    return cmd;
}

json_t *kt_env_host(int argc, char *const *argv)
{
    char host[256] = "", date[32];
    char *cmd = joined_command_line(argc, argv);
    json_t *out = NULL;

    if (!cmd)
        return NULL;
    gethostname(host, sizeof host - 1);
    kt_clock_utc(date, sizeof date);
    out = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "ktune_version", KT_VERSION,
                    "git_commit", KT_GIT_COMMIT, "build_flags", KT_BUILD_FLAGS,
                    "date", date, "host", host, "command_line", cmd);
    free(cmd);
    return out;
}
