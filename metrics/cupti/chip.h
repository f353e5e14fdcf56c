// SPDX-License-Identifier: Apache-2.0
/*
 * kt_chip: one GPU chip's metric list and counter configuration, through
 * the CUPTI Profiler Host API. It needs no GPU: the host API knows every
 * chip CUPTI supports by name ("GH100"), so names can be checked and the
 * number of replay passes of a metric set computed anywhere; on a device,
 * pass the counter availability image so that the configuration matches
 * what that device can count.
 *
 * (Implemented in chip.cu: cupti_profiler_host.h is C++ only.)
 */
#ifndef KT_METRICS_CHIP_H
#define KT_METRICS_CHIP_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kt_chip kt_chip;

typedef struct kt_chip_metric {
    char description[256];
    char hw_unit[32];
    char dim_unit[64];
    int type; /* 0 counter, 1 ratio, 2 throughput */
} kt_chip_metric;

/* Opens chip `name` for the range profiler. availability may be NULL (then
 * every counter of the chip is assumed available). KT_S_UNSUPPORTED when
 * CUPTI does not know the chip; the message lists the chips it knows.
 * Close with kt_chip_close. */
kt_status kt_chip_open(const char *name, const uint8_t *availability,
                       kt_chip **out, kt_err *err);
void kt_chip_close(kt_chip *chip);

const char *kt_chip_name(const kt_chip *chip);

/* KT_S_OK when the chip knows every names[i]; else KT_S_INPUT naming the
 * first unknown one with its closest known names ("did you mean"). */
kt_status kt_chip_check(kt_chip *chip, const char *const *names, size_t n,
                        kt_err *err);

/* Description and units of one metric; KT_S_INPUT if unknown. */
kt_status kt_chip_describe(kt_chip *chip, const char *name, kt_chip_metric *out,
                           kt_err *err);

/* The configuration image that collects names[0..n), and how many replay
 * passes it needs. Once per chip object (the host API accumulates metrics
 * into it). *image is malloc'ed; the caller frees it. */
kt_status kt_chip_config(kt_chip *chip, const char *const *names, size_t n,
                         uint8_t **image, size_t *image_size, size_t *passes,
                         kt_err *err);

/* Evaluates names[0..n) for range `range` of a decoded counter data image
 * into values[0..n). */
kt_status kt_chip_evaluate(kt_chip *chip, const uint8_t *counter_data,
                           size_t counter_data_size, size_t range,
                           const char *const *names, size_t n, double *values,
                           kt_err *err);

#ifdef __cplusplus
}
#endif

#endif
