// SPDX-License-Identifier: Apache-2.0
#include "core/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/energy.h"
#include "core/msg.h"
#include "core/parse.h"

void kt_protocol_defaults(kt_protocol *p)
{
    p->warmups = 3;
    p->min_samples = 10;
    p->max_samples = 10000;
    p->min_time_s = 0.5;
    p->max_time_s = 15.0;
    p->target_noise = 0.005;
    p->cache = KT_CACHE_COLD;
    p->batch = 0;
    p->end_to_end = 0;
    p->probe_ns = 20000;
    p->throttle_ratio = 0.75;
    p->round_sync = 0;
    p->profile_flush_sweep = 0;
    p->race = 0;
    p->race_bar_us = 0;
    p->race_bar_us_per_work = 0;
    p->race_bar_work = KT_BAR_NONE;
    p->race_pairs = 0;
    p->screen_samples = 0;
    p->energy = 0;
    p->energy_rounds = 3;
    p->energy_window_s = KT_ENERGY_WINDOW_S;
}

kt_status kt_noise_parse(const char *text, const char *what, double *out,
                         int *suspect, kt_err *err)
{
    size_t n = text ? strlen(text) : 0;
    int percent = n > 1 && text[n - 1] == '%';
    char *num = NULL;
    double v;
    kt_status rc;

    *suspect = 0;
    if (percent && !(num = strndup(text, n - 1)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    rc = kt_parse_double(percent ? num : text, what, &v, err);
    free(num);
    if (rc)
        return rc;
    if (percent)
        v /= 100;
    if (!(v >= 0) || v >= 1)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s, expected a fraction 0 to 1 (exclusive) or "
                          "a percentage such as 0.5%%",
                          what, text);
    *suspect = !percent && v >= KT_NOISE_PERCENT_LOOKALIKE;
    *out = v;
    return KT_S_OK;
}

void kt_noise_warn(const char *what, double value)
{
    kt_msg("WARNING: %s %g is a fraction: %g%% noise, a very loose "
           "stop; nvbench's --max-noise counts in percent, so if you meant "
           "%g%%, write %g%% (or %g)\n",
           what, value, value * 100, value, value, value / 100);
}

static kt_status validate_energy(const kt_protocol *p, kt_err *err)
{
    if (p->energy_rounds < 1 || p->energy_rounds > KT_ENERGY_MAX_ROUNDS)
        return kt_err_set(err, KT_S_INPUT,
                          "energy rounds: %zu, expected 1 to %d",
                          p->energy_rounds, KT_ENERGY_MAX_ROUNDS);
    if (!(p->energy_window_s >= 0.001) || p->energy_window_s > 60)
        return kt_err_set(err, KT_S_INPUT,
                          "energy window: %g s, expected 0.001 to 60",
                          p->energy_window_s);
    return KT_S_OK;
}

kt_status kt_protocol_validate(const kt_protocol *p, kt_err *err)
{
    if (p->warmups < 0 || p->warmups > 1000)
        return kt_err_set(err, KT_S_INPUT, "warmups: %d, expected 0 to 1000",
                          p->warmups);
    if (p->min_samples < 1 || p->max_samples < p->min_samples ||
        p->max_samples > KT_PROTOCOL_MAX_SAMPLES)
        return kt_err_set(err, KT_S_INPUT,
                          "samples: min %zu, max %zu; "
                          "expected 1 <= min <= max <= %d",
                          p->min_samples, p->max_samples,
                          KT_PROTOCOL_MAX_SAMPLES);
    if (!(p->min_time_s >= 0) || !(p->max_time_s > 0) || p->max_time_s > 86400)
        return kt_err_set(err, KT_S_INPUT,
                          "time: min %g s, max %g s; "
                          "expected min >= 0 and 0 < max <= 86400",
                          p->min_time_s, p->max_time_s);
    if (!(p->target_noise >= 0) || p->target_noise >= 1)
        return kt_err_set(err, KT_S_INPUT,
                          "noise target: %g, expected a "
                          "fraction in [0, 1), e.g. 0.005",
                          p->target_noise);
    if (p->cache != KT_CACHE_COLD && p->cache != KT_CACHE_HOT &&
        p->cache != KT_CACHE_COLD_DIRTY)
        return kt_err_set(err, KT_S_INPUT,
                          "cache: %d, expected cold, hot or cold-dirty",
                          (int)p->cache);
    if (p->batch < 0 || p->batch > 100000)
        return kt_err_set(err, KT_S_INPUT,
                          "batch: %d, expected 0 (off) to "
                          "100000",
                          p->batch);
    if (p->probe_ns > 1000000)
        return kt_err_set(err, KT_S_INPUT,
                          "probe: %u ns, expected 0 (off) "
                          "to 1000000",
                          p->probe_ns);
    if (!(p->race >= 0) || p->race >= 1 || !(p->race_bar_us >= 0) ||
        !(p->race_bar_us_per_work >= 0))
        return kt_err_set(err, KT_S_INPUT,
                          "race: %g (bar %g us), expected a margin in [0, 1), "
                          "e.g. 0.005, and a bar >= 0",
                          p->race, p->race_bar_us);
    if (p->screen_samples > p->min_samples ||
        (p->screen_samples > 0 && !(p->race > 0)))
        return kt_err_set(err, KT_S_INPUT,
                          "screen: %zu samples (min_samples %zu, race %g), "
                          "expected 0 or at most min_samples, with race > 0",
                          p->screen_samples, p->min_samples, p->race);
    if (!(p->throttle_ratio >= 0) || p->throttle_ratio > 1)
        return kt_err_set(err, KT_S_INPUT,
                          "throttle ratio: %g, expected 0 to "
                          "1",
                          p->throttle_ratio);
    return validate_energy(p, err);
}

const char *kt_cache_mode_name(kt_cache_mode mode)
{
    switch (mode) {
    case KT_CACHE_COLD: return "cold";
    case KT_CACHE_HOT: return "hot";
    case KT_CACHE_COLD_DIRTY: return "cold-dirty";
    }
    return "unknown";
}

kt_status kt_cache_mode_parse(const char *name, kt_cache_mode *mode,
                              kt_err *err)
{
    static const kt_cache_mode modes[] = {KT_CACHE_COLD, KT_CACHE_HOT,
                                          KT_CACHE_COLD_DIRTY};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
        if (strcmp(name, kt_cache_mode_name(modes[i])) == 0) {
            *mode = modes[i];
            return KT_S_OK;
        }
    }
    return kt_err_set(err, KT_S_INPUT,
                      "cache: expected cold, hot or cold-dirty, found '%s'",
                      name);
}

double kt_protocol_bar_of_work(const kt_protocol *p, double flops, double bytes)
{
    double w = p->race_bar_work == KT_BAR_FLOPS   ? flops
               : p->race_bar_work == KT_BAR_BYTES ? bytes
                                                  : 0;
    return p->race_bar_us_per_work > 0 && w > 0 ? p->race_bar_us_per_work * w
                                                : 0;
}
