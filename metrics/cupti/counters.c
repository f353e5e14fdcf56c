// SPDX-License-Identifier: Apache-2.0
#include "metrics/cupti/counters.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/settings.h"
#include "engine/cuda_check.h"
#include "metrics/cupti/chip.h"
#include "metrics/cupti/cupti_status.h"
#include "metrics/cupti/nvperf_load.h"
#include "metrics/ranges.h"

/* The driver ABI these entry points are requested at: both calls are
 * unchanged since long before CUDA 12. */
#define DRIVER_ABI 12000

typedef struct session {
    int profiler_initialized;
    CUcontext ctx;
    char chip_name[64];
    uint8_t *availability;
    kt_chip *chip;
    CUpti_RangeProfiler_Object *range_profiler;
} session;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static kt_status driver_entry(const char *symbol, void **fn, kt_err *err)
{
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSuccess;
    char what[96];
    kt_status rc;

    snprintf(what, sizeof what, "cudaGetDriverEntryPointByVersion(%s)", symbol);
    *fn = NULL;
    if ((rc = kt_cuda_status(
             cudaGetDriverEntryPointByVersion(symbol, fn, DRIVER_ABI,
                                              cudaEnableDefault, &found),
             what, err)))
        return rc;
    if (found != cudaDriverEntryPointSuccess || !*fn)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "no hardware counters: the driver does not provide "
                          "%s (%s)",
                          symbol,
                          found == cudaDriverEntryPointVersionNotSufficent
                              ? "driver too old"
                              : "symbol not found");
    return KT_S_OK;
}

static kt_status device_idle(const char *when, kt_err *err)
{
    char what[96];
    snprintf(what, sizeof what, "cudaDeviceSynchronize (%s)", when);
    return kt_cuda_status(cudaDeviceSynchronize(), what, err);
}

static const char *support_name(CUpti_Profiler_Support_Level level)
{
    switch (level) {
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    default: return "unknown";
    }
}

/* The first reason cuptiProfilerDeviceSupported gives, in words. */
static kt_status device_supported(CUdevice dev, kt_err *err)
{
    CUpti_Profiler_DeviceSupported_Params p;
    const struct {
        const char *what;
        size_t offset;
    } fields[] = {
        {"the GPU architecture",
         offsetof(CUpti_Profiler_DeviceSupported_Params, architecture)},
        {"SLI", offsetof(CUpti_Profiler_DeviceSupported_Params, sli)},
        {"this virtual GPU",
         offsetof(CUpti_Profiler_DeviceSupported_Params, vGpu)},
        {"confidential computing",
         offsetof(CUpti_Profiler_DeviceSupported_Params, confidentialCompute)},
        {"a CMP device", offsetof(CUpti_Profiler_DeviceSupported_Params, cmp)},
        {"WSL", offsetof(CUpti_Profiler_DeviceSupported_Params, wsl)},
    };
    kt_status rc;

    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    p.cuDevice = dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    if ((rc = KT_CUPTI_TRY(cuptiProfilerDeviceSupported(&p), err)))
        return rc;
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return KT_S_OK;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        CUpti_Profiler_Support_Level level;
        memcpy(&level, (const char *)&p + fields[i].offset, sizeof level);
        if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
            return kt_err_set(err, KT_S_UNSUPPORTED,
                              "no hardware counters: profiling is %s for %s "
                              "(cuptiProfilerDeviceSupported)",
                              support_name(level), fields[i].what);
    }
    return kt_err_set(err, KT_S_UNSUPPORTED,
                      "no hardware counters: cuptiProfilerDeviceSupported "
                      "reports the device as %s (a MIG instance?)",
                      support_name(p.isSupported));
}

static kt_status session_close(session *s, kt_err *err)
{
    kt_status rc = KT_S_OK, r;
    kt_err cerr;

    if (s->range_profiler) {
        CUpti_RangeProfiler_Disable_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        p.pRangeProfilerObject = s->range_profiler;
        if ((r = KT_CUPTI_TRY(cuptiRangeProfilerDisable(&p), &cerr)) && !rc) {
            rc = r;
            if (err)
                *err = cerr;
        }
        s->range_profiler = NULL;
    }
    kt_chip_close(s->chip);
    s->chip = NULL;
    free(s->availability);
    s->availability = NULL;
    if (s->profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        if ((r = KT_CUPTI_TRY(cuptiProfilerDeInitialize(&p), &cerr)) && !rc) {
            rc = r;
            if (err)
                *err = cerr;
        }
        s->profiler_initialized = 0;
    }
    return rc;
}

/* Steps 1-3 of cupti.md up to the host object: the context the runtime
 * made current, profiler initialisation, device support, chip name and
 * counter availability. */
static kt_status session_open(int device, session *s, kt_err *err)
{
    PFN_cuCtxGetCurrent_v4000 get_current;
    PFN_cuCtxGetDevice_v2000 get_device;
    CUpti_Profiler_Initialize_Params init;
    CUpti_Device_GetChipName_Params chip;
    CUpti_Profiler_GetCounterAvailability_Params avail;
    CUdevice dev = 0;
    CUresult cu;
    kt_status rc;

    memset(s, 0, sizeof *s);
    if ((rc = driver_entry("cuCtxGetCurrent", (void **)&get_current, err)) ||
        (rc = driver_entry("cuCtxGetDevice", (void **)&get_device, err)) ||
        (rc = KT_CUDA_TRY(cudaSetDevice(device), err)))
        return rc;
    if ((cu = get_current(&s->ctx)) != CUDA_SUCCESS || !s->ctx)
        return kt_err_set(err, KT_S_CUDA,
                          "cuCtxGetCurrent: no current CUDA context on device "
                          "%d (CUresult %d)",
                          device, (int)cu);
    if ((cu = get_device(&dev)) != CUDA_SUCCESS)
        return kt_err_set(err, KT_S_CUDA, "cuCtxGetDevice failed (CUresult %d)",
                          (int)cu);
    kt_nvperf_load();
    memset(&init, 0, sizeof init);
    init.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    if ((rc = KT_CUPTI_TRY(cuptiProfilerInitialize(&init), err)))
        return rc;
    s->profiler_initialized = 1;
    if ((rc = device_supported(dev, err)))
        goto fail;
    memset(&chip, 0, sizeof chip);
    chip.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    chip.deviceIndex = (size_t)device;
    if ((rc = KT_CUPTI_TRY(cuptiDeviceGetChipName(&chip), err)))
        goto fail;
    snprintf(s->chip_name, sizeof s->chip_name, "%s", chip.pChipName);
    memset(&avail, 0, sizeof avail);
    avail.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    avail.ctx = s->ctx;
    if ((rc = KT_CUPTI_TRY(cuptiProfilerGetCounterAvailability(&avail), err)))
        goto fail;
    s->availability = calloc(avail.counterAvailabilityImageSize + 1, 1);
    if (!s->availability) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto fail;
    }
    avail.pCounterAvailabilityImage = s->availability;
    if ((rc = KT_CUPTI_TRY(cuptiProfilerGetCounterAvailability(&avail), err)) ||
        (rc = kt_chip_open(s->chip_name, s->availability, &s->chip, err)))
        goto fail;
    return KT_S_OK;
fail:
    session_close(s, NULL);
    return rc;
}

static kt_status cupti_check(const kt_counter_source *src, int device,
                             const char *const *names, size_t n, kt_err *err)
{
    session s;
    kt_status rc, rc_close;
    kt_err cerr;
    (void)src;

    if ((rc = session_open(device, &s, err)))
        return rc;
    rc = kt_chip_check(s.chip, names, n, err);
    rc_close = session_close(&s, &cerr);
    if (!rc && rc_close && err)
        *err = cerr;
    return rc ? rc : rc_close;
}

/* Ranges the counter data holds in kernel mode: one per kernel the
 * point's launch enqueues. A launch of more kernels is refused (the
 * profiler would drop the rest). */
#define MAX_KERNEL_RANGES 64
/* Each range's duration: the weight of its percentages when a launch runs
 * several kernels (metrics/ranges.h). */
#define DURATION "gpu__time_duration.sum"

/* Kernel mode (the default) profiles every kernel of the launch as a range
 * of its own (CUPTI auto range), which is what Nsight Compute measures: the
 * percentages of peak are over the kernel's elapsed cycles. Launch mode
 * (KTUNE_CUPTI_RANGE=launch, for comparison only) wraps the launch and the
 * synchronisation around it in one user range, whose elapsed time is
 * longer than the kernel's: its percentages read low. */
static int launch_mode(void)
{
    kt_settings set;

    kt_settings_read(&set);
    return set.ktune_cupti_range &&
           strcmp(set.ktune_cupti_range, "launch") == 0;
}

typedef struct pass_plan {
    int launch_mode;
    size_t launches;     /* of the point per pass (kt_counter_target) */
    size_t flush_ranges; /* per launch, ahead of its own: the flush's */
    size_t max_ranges;   /* launches x (flush + kernels), or launches */
    const char **names;  /* the caller's names, then DURATION if missing */
    size_t n;            /* of names */
    size_t n_caller;
    size_t duration_at; /* index of DURATION in names */
} pass_plan;

/* In kernel mode the flush before each launch makes ranges too, one per
 * flush kernel (kt_counter_target.flush_kernels), ahead of the launch's:
 * dropped. */
static kt_status plan_names(const char *const *names, size_t n,
                            const kt_counter_target *t, pass_plan *p,
                            kt_err *err)
{
    memset(p, 0, sizeof *p);
    p->launch_mode = launch_mode();
    p->launches = t->launches > 1 ? (size_t)t->launches : 1;
    p->flush_ranges =
        p->launch_mode || t->flush_kernels < 0 ? 0 : (size_t)t->flush_kernels;
    p->max_ranges = p->launches *
                    (p->launch_mode ? 1 : p->flush_ranges + MAX_KERNEL_RANGES);
    p->n_caller = n;
    p->names = malloc((n + 1) * sizeof *p->names);
    if (!p->names)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    p->duration_at = n;
    for (size_t i = 0; i < n; ++i) {
        p->names[i] = names[i];
        if (strcmp(names[i], DURATION) == 0)
            p->duration_at = i;
    }
    p->n = n;
    if (p->duration_at == n)
        p->names[p->n++] = DURATION;
    return KT_S_OK;
}

/* Step 4: enable, counter data image, configuration. *data is malloc'ed. */
static kt_status configure(session *s, const pass_plan *p,
                           const uint8_t *config, size_t config_size,
                           uint8_t **data, size_t *data_size, kt_err *err)
{
    CUpti_RangeProfiler_Enable_Params enable;
    CUpti_RangeProfiler_GetCounterDataSize_Params size;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params image_init;
    CUpti_RangeProfiler_SetConfig_Params set;
    kt_status rc;

    *data = NULL;
    memset(&enable, 0, sizeof enable);
    enable.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    enable.ctx = s->ctx;
    if ((rc = KT_CUPTI_TRY(cuptiRangeProfilerEnable(&enable), err)))
        return rc;
    s->range_profiler = enable.pRangeProfilerObject;
    memset(&size, 0, sizeof size);
    size.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    size.pRangeProfilerObject = s->range_profiler;
    size.pMetricNames = p->names;
    size.numMetrics = p->n;
    size.maxNumOfRanges = p->max_ranges;
    size.maxNumRangeTreeNodes = p->max_ranges;
    if ((rc = KT_CUPTI_TRY(cuptiRangeProfilerGetCounterDataSize(&size), err)))
        return rc;
    *data_size = size.counterDataSize;
    *data = calloc(size.counterDataSize ? size.counterDataSize : 1, 1);
    if (!*data)
        return kt_err_set(err, KT_S_NOMEM,
                          "out of memory for a %zu-byte counter data image",
                          size.counterDataSize);
    memset(&image_init, 0, sizeof image_init);
    image_init.structSize =
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    image_init.pRangeProfilerObject = s->range_profiler;
    image_init.counterDataSize = size.counterDataSize;
    image_init.pCounterData = *data;
    memset(&set, 0, sizeof set);
    set.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    set.pRangeProfilerObject = s->range_profiler;
    set.configSize = config_size;
    set.pConfig = config;
    set.counterDataImageSize = size.counterDataSize;
    set.pCounterDataImage = *data;
    set.range = p->launch_mode ? CUPTI_UserRange : CUPTI_AutoRange;
    set.replayMode = CUPTI_UserReplay;
    set.maxRangesPerPass = p->max_ranges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    if ((rc = KT_CUPTI_TRY(
             cuptiRangeProfilerCounterDataImageInitialize(&image_init), err)))
        return rc;
    return KT_CUPTI_TRY(cuptiRangeProfilerSetConfig(&set), err);
}

/* One profiled launch inside a started pass: the flush (its kernel a range
 * of its own in kernel mode, outside the user range in launch mode), then
 * the point's launch and its wait. The device is idle at each boundary
 * (the profiler's own markers need not share the launch's stream). */
static kt_status profiled_launch(session *s, const kt_counter_target *t,
                                 const pass_plan *p, kt_err *err)
{
    CUpti_RangeProfiler_PushRange_Params push;
    CUpti_RangeProfiler_PopRange_Params pop;
    kt_status rc;

    memset(&push, 0, sizeof push);
    push.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
    push.pRangeProfilerObject = s->range_profiler;
    push.pRangeName = "ktune";
    memset(&pop, 0, sizeof pop);
    pop.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
    pop.pRangeProfilerObject = s->range_profiler;
    if ((rc = t->flush(t->ctx, err)) ||
        (rc = device_idle("after flushing the L2", err)))
        return rc;
    if (p->launch_mode &&
        (rc = KT_CUPTI_TRY(cuptiRangeProfilerPushRange(&push), err)))
        return rc;
    if (!(rc = device_idle("before the profiled launch", err)) &&
        !(rc = t->launch(t->ctx, err)) && !(rc = t->wait(t->ctx, err)))
        rc = device_idle("after the profiled launch", err);
    if (p->launch_mode) {
        /* Closed even after an error, so that Stop finds no open range;
         * then the first error is the one the user needs. */
        kt_err ignored;
        kt_status rc_pop =
            KT_CUPTI_TRY(cuptiRangeProfilerPopRange(&pop), rc ? &ignored : err);
        if (!rc)
            rc = rc_pop;
    }
    return rc;
}

/* Step 5, one pass. Inputs restored before Start (prepare), then, after
 * Start, p->launches profiled launches, each after the flush: the
 * profiler's Start leaves dirty lines in the L2 (about 0.9 MB per range it
 * holds, measured on the H200: 28 MB at 32 ranges and more, 3 MB at one),
 * which the kernel's own traffic would otherwise write back inside its
 * range (docs/metrics.md). The kernels have finished before Stop. */
static kt_status one_pass(session *s, const kt_counter_target *t,
                          const pass_plan *p, int *all_submitted, kt_err *err)
{
    CUpti_RangeProfiler_Start_Params start;
    CUpti_RangeProfiler_Stop_Params stop;
    kt_status rc;

    memset(&start, 0, sizeof start);
    start.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    start.pRangeProfilerObject = s->range_profiler;
    memset(&stop, 0, sizeof stop);
    stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    stop.pRangeProfilerObject = s->range_profiler;
    if ((rc = t->prepare(t->ctx, err)) ||
        (rc = device_idle("after restoring the inputs", err)) ||
        (rc = KT_CUPTI_TRY(cuptiRangeProfilerStart(&start), err)))
        return rc;
    for (size_t r = 0; !rc && r < p->launches; ++r)
        rc = profiled_launch(s, t, p, err);
    if (rc) {
        /* Stopped so that Disable finds a stopped profiler; its own result
         * is dropped on purpose: the first error is the one to show. */
        kt_err ignored;
        KT_CUPTI_TRY(cuptiRangeProfilerStop(&stop), &ignored);
        return rc;
    }
    if ((rc = KT_CUPTI_TRY(cuptiRangeProfilerStop(&stop), err)) ||
        (rc = device_idle("after stopping the profiler", err)))
        return rc;
    *all_submitted = stop.isAllPassSubmitted;
    return KT_S_OK;
}

/* Whether the counter data's ranges are what the passes made: in kernel
 * mode, per launch of the point flush_ranges of the flush and then one per
 * kernel; in launch mode one per launch. */
static kt_status check_ranges(const pass_plan *p, size_t total, kt_err *err)
{
    size_t skip = p->flush_ranges;

    if (!p->launch_mode && total == p->launches * skip)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "no hardware counters for this launch: it ran no "
                          "kernel (a copy-engine transfer, for one), so no "
                          "range was profiled");
    if (total == 0 || total > p->max_ranges || total % p->launches != 0 ||
        total / p->launches <= skip)
        return kt_err_set(err, KT_S_CUDA,
                          "cuptiRangeProfilerGetCounterDataInfo: %zu ranges in "
                          "the counter data; expected %zu launch(es) of %zu "
                          "flush range(s) and 1 to %d kernels each (did the "
                          "launch run a kernel?)",
                          total, p->launches, skip, MAX_KERNEL_RANGES);
    return KT_S_OK;
}

/* Every range's values: per_range[r * p->n + i]. */
static kt_status evaluate_all(session *s, const pass_plan *p,
                              const uint8_t *data, size_t data_size,
                              size_t total, double *per_range, kt_err *err)
{
    kt_status rc = KT_S_OK;
    for (size_t r = 0; !rc && r < total; ++r)
        rc = kt_chip_evaluate(s->chip, data, data_size, r, p->names, p->n,
                              per_range + r * p->n, err);
    return rc;
}

/* Step 6: decode, evaluate every range, take each kernel's median over
 * the launches, and combine the kernels into one value per caller name
 * (metrics/ranges.h). */
static kt_status evaluate_ranges(session *s, const pass_plan *p,
                                 const uint8_t *data, size_t data_size,
                                 double *values, size_t *kernels, kt_err *err)
{
    CUpti_RangeProfiler_DecodeData_Params decode;
    CUpti_RangeProfiler_GetCounterDataInfo_Params info;
    double *per_range = NULL, *per_kernel = NULL, *durations = NULL,
           *combined = NULL;
    size_t total, count = 0;
    kt_status rc;

    memset(&decode, 0, sizeof decode);
    decode.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    decode.pRangeProfilerObject = s->range_profiler;
    if ((rc = KT_CUPTI_TRY(cuptiRangeProfilerDecodeData(&decode), err)))
        return rc;
    if (decode.numOfRangeDropped != 0)
        return kt_err_set(err, KT_S_CUDA,
                          "cuptiRangeProfilerDecodeData dropped %zu range(s); "
                          "expected none (a launch of more than %d kernels?)",
                          decode.numOfRangeDropped, MAX_KERNEL_RANGES);
    memset(&info, 0, sizeof info);
    info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    info.pCounterDataImage = data;
    info.counterDataImageSize = data_size;
    if ((rc = KT_CUPTI_TRY(cuptiRangeProfilerGetCounterDataInfo(&info), err)) ||
        (rc = check_ranges(p, info.numTotalRanges, err)))
        return rc;
    total = info.numTotalRanges;
    per_range = calloc(total * p->n, sizeof *per_range);
    per_kernel = calloc(total * p->n, sizeof *per_kernel);
    durations = calloc(total, sizeof *durations);
    combined = calloc(p->n, sizeof *combined);
    if (!per_range || !per_kernel || !durations || !combined) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = evaluate_all(s, p, data, data_size, total, per_range, err)))
        goto done;
    /* check_ranges made sure the ranges are whole launches: only memory
     * can fail here. */
    if (kt_ranges_median_launches(p->n, total, p->launches, p->flush_ranges,
                                  per_range, per_kernel, &count) != 0) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < count; ++k)
        durations[k] = per_kernel[k * p->n + p->duration_at];
    kt_ranges_combine(p->names, p->n, count, per_kernel, durations, combined);
    memcpy(values, combined, p->n_caller * sizeof *values);
    *kernels = p->launch_mode ? 0 : count;
done:
    free(per_range);
    free(per_kernel);
    free(durations);
    free(combined);
    return rc;
}

/* Steps 4-6 for one metric set. */
static kt_status run_passes(session *s, const kt_counter_target *t,
                            const pass_plan *p, const uint8_t *config,
                            size_t config_size, size_t expected_passes,
                            double *values, kt_counter_stats *stats,
                            kt_err *err)
{
    uint8_t *data = NULL;
    size_t data_size = 0;
    double t0;
    int all_submitted = 0;
    kt_status rc;

    if ((rc = configure(s, p, config, config_size, &data, &data_size, err)))
        goto done;
    stats->launches = p->launches;
    t0 = now_seconds();
    while (!all_submitted) {
        /* A set that never reports completion would replay forever. */
        if (stats->passes > expected_passes) {
            rc = kt_err_set(err, KT_S_CUDA,
                            "the range profiler asked for more than the %zu "
                            "passes cuptiProfilerHostGetNumOfPasses announced",
                            expected_passes);
            goto done;
        }
        if ((rc = one_pass(s, t, p, &all_submitted, err)))
            goto done;
        ++stats->passes;
    }
    stats->passes_s = now_seconds() - t0;
    t0 = now_seconds();
    rc = evaluate_ranges(s, p, data, data_size, values, &stats->kernels, err);
    stats->evaluate_s = now_seconds() - t0;
done:
    free(data);
    return rc;
}

static kt_status cupti_collect(const kt_counter_source *src,
                               const kt_counter_target *t,
                               const char *const *names, size_t n,
                               double *values, kt_counter_stats *stats,
                               kt_err *err)
{
    session s;
    pass_plan plan;
    uint8_t *config = NULL;
    size_t config_size = 0, passes = 0;
    double t0 = now_seconds();
    kt_status rc, rc_close;
    kt_err cerr;
    (void)src;

    memset(stats, 0, sizeof *stats);
    if ((rc = plan_names(names, n, t, &plan, err)))
        return rc;
    if ((rc = session_open(t->device, &s, err))) {
        free(plan.names);
        return rc;
    }
    rc = kt_chip_config(s.chip, plan.names, plan.n, &config, &config_size,
                        &passes, err);
    stats->setup_s = now_seconds() - t0;
    if (!rc)
        rc = run_passes(&s, t, &plan, config, config_size, passes, values,
                        stats, err);
    free(config);
    free(plan.names);
    rc_close = session_close(&s, &cerr);
    if (!rc && rc_close && err)
        *err = cerr;
    stats->total_s = now_seconds() - t0;
    return rc ? rc : rc_close;
}

static const kt_counter_source cupti_source = {"cupti", cupti_check,
                                               cupti_collect, NULL};

const kt_counter_source *kt_metrics_cupti_source(void)
{
    return &cupti_source;
}
