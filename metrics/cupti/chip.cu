// SPDX-License-Identifier: Apache-2.0
// kt_chip over the CUPTI Profiler Host API. This translation unit is C++
// only because cupti_profiler_host.h includes <string>; it is written as C
// (no exceptions, no STL) and exports C functions. nvcc compiles it as host
// code: the project's languages are C and CUDA.
// core's headers are C without linkage blocks of their own.
extern "C" {
#include "core/error.h"
#include "core/msg.h"
#include "core/suggest.h"
}
#include "metrics/cupti/chip.h"
#include "metrics/cupti/cupti_status.h"
#include "metrics/cupti/nvperf_load.h"

#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kt_chip {
    char name[64];
    CUpti_Profiler_Host_Object *host;
    // Base metric names of all three types, borrowed from the host object;
    // loaded on the first unknown name.
    const char **bases;
    size_t num_bases;
    int bases_loaded;
};

extern "C" kt_status kt_chip_open(const char *name, const uint8_t *availability,
                                  kt_chip **out, kt_err *err)
{
    CUpti_Profiler_Host_Initialize_Params init;
    kt_chip *chip = (kt_chip *)calloc(1, sizeof *chip);
    CUptiResult code;
    kt_status rc;

    *out = NULL;
    if (!chip)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    snprintf(chip->name, sizeof chip->name, "%s", name);
    kt_nvperf_load(); /* the host API works through nvperf_host */
    memset(&init, 0, sizeof init);
    init.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    init.pChipName = chip->name;
    init.pCounterAvailabilityImage = availability;
    code = cuptiProfilerHostInitialize(&init);
    if (code != CUPTI_SUCCESS) {
        CUpti_Profiler_Host_GetSupportedChips_Params sc;
        char known[512] = "";
        memset(&sc, 0, sizeof sc);
        sc.structSize =
            CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE;
        if (cuptiProfilerHostGetSupportedChips(&sc) == CUPTI_SUCCESS)
            for (size_t i = 0; i < sc.numChips; ++i) {
                size_t used = strlen(known);
                snprintf(known + used, sizeof known - used, "%s%s",
                         i ? " " : "", sc.ppChipNames[i]);
            }
        rc = kt_cupti_status(code, "cuptiProfilerHostInitialize", err);
        kt_err_prefix(err, "chip '%s' (CUPTI knows: %s): ", name,
                      known[0] ? known : "?");
        free(chip);
        /* Whatever the reason, no host object means no counters: the run
         * goes on without them. */
        if (rc != KT_S_NOMEM) {
            rc = KT_S_UNSUPPORTED;
            if (err)
                err->status = rc;
        }
        return rc;
    }
    chip->host = init.pHostObject;
    *out = chip;
    return KT_S_OK;
}

extern "C" void kt_chip_close(kt_chip *chip)
{
    if (!chip)
        return;
    if (chip->host) {
        CUpti_Profiler_Host_Deinitialize_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
        p.pHostObject = chip->host;
        if (cuptiProfilerHostDeinitialize(&p) != CUPTI_SUCCESS)
            kt_msg("warning: cuptiProfilerHostDeinitialize "
                   "failed; continuing\n");
    }
    free(chip->bases);
    free(chip);
}

extern "C" const char *kt_chip_name(const kt_chip *chip)
{
    return chip->name;
}

static CUptiResult properties(kt_chip *chip, const char *name,
                              CUpti_Profiler_Host_GetMetricProperties_Params *p)
{
    memset(p, 0, sizeof *p);
    p->structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
    p->pHostObject = chip->host;
    p->pMetricName = name;
    return cuptiProfilerHostGetMetricProperties(p);
}

static int known(kt_chip *chip, const char *name)
{
    CUpti_Profiler_Host_GetMetricProperties_Params p;
    return properties(chip, name, &p) == CUPTI_SUCCESS;
}

// Internal names ("TPC.TriageCompute.sm__...") carry upper case and dots;
// users never type them, so they make poor suggestions.
static int public_name(const char *name)
{
    for (const char *c = name; *c; ++c)
        if (isupper((unsigned char)*c) || *c == '.')
            return 0;
    return 1;
}

static kt_status load_bases(kt_chip *chip, kt_err *err)
{
    const CUpti_MetricType types[] = {CUPTI_METRIC_TYPE_COUNTER,
                                      CUPTI_METRIC_TYPE_RATIO,
                                      CUPTI_METRIC_TYPE_THROUGHPUT};
    if (chip->bases_loaded)
        return KT_S_OK;
    for (size_t t = 0; t < 3; ++t) {
        CUpti_Profiler_Host_GetBaseMetrics_Params p;
        const char **grown;
        kt_status rc;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
        p.pHostObject = chip->host;
        p.metricType = types[t];
        if ((rc = kt_cupti_status(cuptiProfilerHostGetBaseMetrics(&p),
                                  "cuptiProfilerHostGetBaseMetrics", err)))
            return rc;
        grown = (const char **)realloc(
            chip->bases, (chip->num_bases + p.numMetrics) * sizeof *grown);
        if (!grown && p.numMetrics)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        chip->bases = grown;
        for (size_t i = 0; i < p.numMetrics; ++i)
            if (public_name(p.ppMetricNames[i]))
                chip->bases[chip->num_bases++] = p.ppMetricNames[i];
    }
    chip->bases_loaded = 1;
    return KT_S_OK;
}

// The few candidates closest to `name`, within a third of its length.
#define NEAREST 3
typedef struct nearest {
    char text[NEAREST][160];
    size_t dist[NEAREST];
    size_t count;
} nearest;

static void consider(nearest *n, const char *target, const char *candidate,
                     const char *suffix)
{
    char full[160];
    size_t d, limit = strlen(target) / 3 + 1;

    snprintf(full, sizeof full, "%s%s", candidate, suffix);
    d = kt_edit_distance(target, full);
    if (d > limit)
        return;
    for (size_t i = 0; i < n->count; ++i)
        if (strcmp(n->text[i], full) == 0)
            return;
    if (n->count == NEAREST && d >= n->dist[NEAREST - 1])
        return;
    size_t at = n->count < NEAREST ? n->count++ : NEAREST - 1;
    while (at > 0 && n->dist[at - 1] > d) {
        memcpy(n->text[at], n->text[at - 1], sizeof n->text[at]);
        n->dist[at] = n->dist[at - 1];
        --at;
    }
    snprintf(n->text[at], sizeof n->text[at], "%s", full);
    n->dist[at] = d;
}

static kt_status unknown_metric(kt_chip *chip, const char *name, kt_err *err)
{
    char base[160], hint[600] = "";
    const char *dot = strchr(name, '.');
    const char *suffix = dot ? dot : "";
    nearest n;
    kt_status rc;

    memset(&n, 0, sizeof n);
    snprintf(base, sizeof base, "%.*s", (int)(dot ? dot - name : strlen(name)),
             name);
    if ((rc = load_bases(chip, err)))
        return rc;
    if (known(chip, base)) {
        // The counter exists: the suffix is wrong. Offer its sub-metrics.
        CUpti_Profiler_Host_GetMetricProperties_Params props;
        CUpti_Profiler_Host_GetSubMetrics_Params p;
        properties(chip, base, &props);
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE;
        p.pHostObject = chip->host;
        p.metricType = props.metricType;
        p.pMetricName = base;
        if ((rc = kt_cupti_status(cuptiProfilerHostGetSubMetrics(&p),
                                  "cuptiProfilerHostGetSubMetrics", err)))
            return rc;
        for (size_t i = 0; i < p.numOfSubmetrics; ++i)
            consider(&n, name, base, p.ppSubMetrics[i]);
    } else {
        for (size_t i = 0; i < chip->num_bases; ++i) {
            consider(&n, name, chip->bases[i], suffix);
            if (!dot)
                consider(&n, name, chip->bases[i], "");
        }
        // A close base with a suffix it does not have is no help.
        for (size_t i = 0; i < n.count; ++i)
            if (!known(chip, n.text[i])) {
                char *d = strchr(n.text[i], '.');
                if (d)
                    *d = '\0';
            }
    }
    for (size_t i = 0; i < n.count; ++i) {
        size_t used = strlen(hint);
        snprintf(hint + used, sizeof hint - used, "%s'%s'",
                 i == 0 ? "; did you mean " : " or ", n.text[i]);
    }
    if (n.count) {
        size_t used = strlen(hint);
        snprintf(hint + used, sizeof hint - used, "?");
    }
    return kt_err_set(err, KT_S_INPUT, "unknown metric '%s' for chip %s%s",
                      name, chip->name, hint);
}

extern "C" kt_status kt_chip_check(kt_chip *chip, const char *const *names,
                                   size_t n, kt_err *err)
{
    for (size_t i = 0; i < n; ++i)
        if (!known(chip, names[i]))
            return unknown_metric(chip, names[i], err);
    return KT_S_OK;
}

extern "C" kt_status kt_chip_describe(kt_chip *chip, const char *name,
                                      kt_chip_metric *out, kt_err *err)
{
    CUpti_Profiler_Host_GetMetricProperties_Params p;

    memset(out, 0, sizeof *out);
    if (properties(chip, name, &p) != CUPTI_SUCCESS)
        return unknown_metric(chip, name, err);
    snprintf(out->description, sizeof out->description, "%s",
             p.pDescription ? p.pDescription : "");
    snprintf(out->hw_unit, sizeof out->hw_unit, "%s",
             p.pHwUnit ? p.pHwUnit : "");
    snprintf(out->dim_unit, sizeof out->dim_unit, "%s",
             p.pDimUnit ? p.pDimUnit : "");
    out->type = (int)p.metricType;
    return KT_S_OK;
}

extern "C" kt_status kt_chip_config(kt_chip *chip, const char *const *names,
                                    size_t n, uint8_t **image,
                                    size_t *image_size, size_t *passes,
                                    kt_err *err)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params add;
    CUpti_Profiler_Host_GetConfigImageSize_Params size;
    CUpti_Profiler_Host_GetConfigImage_Params get;
    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    uint8_t *buf = NULL;
    kt_status rc;

    *image = NULL;
    *image_size = 0;
    *passes = 0;
    if ((rc = kt_chip_check(chip, names, n, err)))
        return rc;
    memset(&add, 0, sizeof add);
    add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    add.pHostObject = chip->host;
    add.ppMetricNames = (const char **)names;
    add.numMetrics = n;
    memset(&size, 0, sizeof size);
    size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    size.pHostObject = chip->host;
    if ((rc = kt_cupti_status(cuptiProfilerHostConfigAddMetrics(&add),
                              "cuptiProfilerHostConfigAddMetrics", err)) ||
        (rc = kt_cupti_status(cuptiProfilerHostGetConfigImageSize(&size),
                              "cuptiProfilerHostGetConfigImageSize", err)))
        return rc;
    buf = (uint8_t *)calloc(size.configImageSize ? size.configImageSize : 1, 1);
    if (!buf)
        return kt_err_set(err, KT_S_NOMEM,
                          "out of memory for a %zu-byte "
                          "config image",
                          size.configImageSize);
    memset(&get, 0, sizeof get);
    get.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    get.pHostObject = chip->host;
    get.configImageSize = size.configImageSize;
    get.pConfigImage = buf;
    memset(&np, 0, sizeof np);
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = size.configImageSize;
    np.pConfigImage = buf;
    if ((rc = kt_cupti_status(cuptiProfilerHostGetConfigImage(&get),
                              "cuptiProfilerHostGetConfigImage", err)) ||
        (rc = kt_cupti_status(cuptiProfilerHostGetNumOfPasses(&np),
                              "cuptiProfilerHostGetNumOfPasses", err))) {
        free(buf);
        return rc;
    }
    *image = buf;
    *image_size = size.configImageSize;
    *passes = np.numOfPasses;
    return KT_S_OK;
}

extern "C" kt_status kt_chip_evaluate(kt_chip *chip,
                                      const uint8_t *counter_data,
                                      size_t counter_data_size, size_t range,
                                      const char *const *names, size_t n,
                                      double *values, kt_err *err)
{
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p;

    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    p.pHostObject = chip->host;
    p.pCounterDataImage = counter_data;
    p.counterDataImageSize = counter_data_size;
    p.rangeIndex = range;
    p.ppMetricNames = (const char **)names;
    p.numMetrics = n;
    p.pMetricValues = values;
    return kt_cupti_status(cuptiProfilerHostEvaluateToGpuValues(&p),
                           "cuptiProfilerHostEvaluateToGpuValues", err);
}
