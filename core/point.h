// SPDX-License-Identifier: Apache-2.0
/*
 * kt_point: one configuration of an operator: a variant and a value for
 * each of its parameters. Fixed-size and comparable with memcmp-free
 * equality, so strategies, journals and workers can pass points by value.
 */
#ifndef KT_POINT_H
#define KT_POINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/param.h"
#include "ktune/plugin.h"

/* A device setting (Kernel Tuner's nvml_gr_clock, nvml_mem_clock,
 * nvml_pwr_limit; core/nvml_set.h); 0 leaves a setting as the device has
 * it. */
typedef struct kt_nvml_setting {
    unsigned gr_mhz;  /* nvml_gr_clock: SM clock locked at this */
    unsigned mem_mhz; /* nvml_mem_clock: memory clock locked at this */
    unsigned limit_w; /* nvml_pwr_limit: power limit, watts */
} kt_nvml_setting;

typedef struct kt_point {
    uint32_t variant; /* index into op->variants */
    uint32_t count;   /* == variants[variant].num_params */
    int64_t values[KT_MAX_PARAMS];
    /* The device setting the point is measured under: ktune's dimensions
     * of the space, never the plugin's (kt_point_bind leaves it out); all
     * 0 where the job sets nothing. */
    kt_nvml_setting nvml;
} kt_point;

/* A kt_config view of a point, with storage for the names array. */
typedef struct kt_bound_config {
    kt_config config;
    const char *names[KT_MAX_PARAMS];
} kt_bound_config;

/* The variant's defaults. */
void kt_point_default(const kt_operator *op, uint32_t variant, kt_point *pt);

/* Builds the config the plugin callbacks receive. bc must outlive its use. */
const kt_config *kt_point_bind(const kt_operator *op, const kt_point *pt,
                               kt_bound_config *bc);

/* 1 when s sets anything. */
int kt_nvml_setting_any(const kt_nvml_setting *s);

/* "nvml_gr_clock=1410 nvml_pwr_limit=450" (the job's names), "" for none. */
void kt_nvml_setting_text(const kt_nvml_setting *s, char *out, size_t size);

/* Same variant, values and device setting. */
int kt_point_equal(const kt_point *a, const kt_point *b);

/* FNV-1a over what kt_point_equal compares: equal points hash alike. For
 * maps keyed by point (core/u64map.h), which compare in full. */
uint64_t kt_point_hash(const kt_point *pt);

/* 1 when a and b ask for the same device setting. */
int kt_nvml_setting_equal(const kt_nvml_setting *a, const kt_nvml_setting *b);

/* Sets parameter `name` to the value `text`; KT_S_INPUT names what is
 * allowed, or which parameters the variant has. */
kt_status kt_point_set(const kt_operator *op, kt_point *pt, const char *name,
                       const char *text, kt_err *err);

/* "coalesced block=256" — the variant id, then name=value pairs, then the
 * device setting where the point has one ("nvml_gr_clock=1410"). */
void kt_point_format(const kt_operator *op, const kt_point *pt, char *out,
                     size_t out_size);

/* Every value valid for the declared sets (checks a point read from a file
 * against the plugin loaded now). */
kt_status kt_point_validate(const kt_operator *op, const kt_point *pt,
                            kt_err *err);

#endif
