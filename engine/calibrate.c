// SPDX-License-Identifier: Apache-2.0
#include "engine/calibrate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cachedir.h"
#include "core/clock.h"
#include "core/fileio.h"
#include "core/msg.h"
#include "core/stats.h"
#include "engine/cuda_check.h"
#include "engine/energy_meter.h"
#include "engine/kernels.h"

#define COPY_BYTES ((size_t)1 << 30)
#define SWEEP_FIRST ((size_t)1 << 18) /* 256 KiB per buffer */
#define SWEEP_LAST ((size_t)1 << 30)  /* 1 GiB per buffer */
#define SYNC_REPS 200

typedef struct copy_job {
    void *dst;
    void *src;
    size_t bytes;
    int passes;
    int sm_count;
    int use_memcpy;
} copy_job;

/* Each sweep launch moves at least this much, so even a 256 KiB working set
 * runs long enough that launch overhead does not hide the L2's bandwidth. */
#define SWEEP_MIN_TRAFFIC ((size_t)1 << 30)

static kt_status launch_copy(void *ctx, cudaStream_t stream, kt_err *err)
{
    copy_job *job = ctx;
    if (job->use_memcpy)
        return KT_CUDA_TRY(cudaMemcpyAsync(job->dst, job->src, job->bytes,
                                           cudaMemcpyDeviceToDevice, stream),
                           err);
    return kt_cuda_status(kt_launch_copy(job->src, job->dst, job->bytes / 16,
                                         job->passes, job->sm_count, stream),
                          "copy kernel", err);
}

static kt_status launch_empty(void *ctx, cudaStream_t stream, kt_err *err)
{
    (void)ctx;
    return kt_cuda_status(kt_launch_empty(stream), "empty kernel", err);
}

static kt_status measure_sync_launch(kt_meter *meter, double *median_us,
                                     kt_err *err)
{
    double us[SYNC_REPS];
    kt_status rc;
    for (int i = 0; i < SYNC_REPS; ++i) {
        double t0 = kt_clock_seconds();
        if ((rc = launch_empty(NULL, meter->stream, err)) ||
            (rc = KT_CUDA_TRY(cudaStreamSynchronize(meter->stream), err)))
            return rc;
        us[i] = 1e6 * (kt_clock_seconds() - t0);
    }
    kt_stats_sort(us, SYNC_REPS);
    *median_us = us[SYNC_REPS / 2];
    return KT_S_OK;
}

static kt_status time_one(kt_meter *meter, kt_target *t, const kt_protocol *p,
                          double *median_us, kt_err *err)
{
    kt_timing timing;
    kt_status rc = kt_meter_measure(meter, t, 1, p, &timing, err);
    if (rc)
        return rc;
    *median_us = timing.kernel.median;
    kt_timing_free(&timing);
    return KT_S_OK;
}

typedef struct fma_job {
    void *out;
    int fp64;
    int iters;
    int sm_count;
} fma_job;

/* Enough FMA steps per chain that one launch runs about a millisecond on
 * an H200 (FP32), far above the launch floor. */
#define FMA_ITERS 8192

static kt_status launch_fma(void *ctx, cudaStream_t stream, kt_err *err)
{
    fma_job *job = ctx;
    return kt_cuda_status(
        kt_launch_fma(job->fp64, job->out, job->iters, job->sm_count, stream),
        "FMA kernel", err);
}

/* fp32_gflops and fp64_gflops: the FMA kernel's arithmetic over its
 * median time. */
static kt_status measure_compute(kt_meter *meter, kt_protocol p,
                                 kt_calibration *out, kt_err *err)
{
    int sms = meter->gpu->dev.sm_count;
    fma_job job = {NULL, 0, FMA_ITERS, sms};
    kt_target target = {launch_fma, NULL, NULL, &job};
    size_t bytes =
        (size_t)sms * KT_FMA_BLOCKS_PER_SM * KT_FMA_BLOCK * sizeof(double);
    double us;
    kt_status rc;

    p.min_samples = 10;
    p.min_time_s = 0.05;
    if ((rc = KT_CUDA_TRY(cudaMalloc(&job.out, bytes), err)))
        return rc;
    for (job.fp64 = 0; job.fp64 <= 1; ++job.fp64) {
        if ((rc = time_one(meter, &target, &p, &us, err)))
            break;
        *(job.fp64 ? &out->fp64_gflops : &out->fp32_gflops) =
            kt_fma_flops(sms, FMA_ITERS) / (us * 1e-6) / 1e9;
    }
    cudaFree(job.out);
    return rc;
}

kt_status kt_calib_run(kt_meter *meter, kt_calibration *out, kt_err *err)
{
    const kt_gpu *gpu = meter->gpu;
    size_t free_bytes = 0, total = 0, copy_bytes = COPY_BYTES;
    void *src = NULL, *dst = NULL;
    kt_protocol p;
    copy_job job;
    kt_target target = {launch_copy, NULL, NULL, &job};
    kt_target empty = {launch_empty, NULL, NULL, NULL};
    double us;
    kt_status rc;

    memset(out, 0, sizeof *out);
    out->version = KT_CALIB_VERSION;
    snprintf(out->uuid, sizeof out->uuid, "%s", gpu->uuid);
    snprintf(out->gpu_name, sizeof out->gpu_name, "%s", gpu->name);
    out->driver_version = gpu->driver_version;
    kt_clock_utc(out->date, sizeof out->date);
    out->peak_bw_gbs = gpu->peak_bw_gbs;
    out->l2_bytes = (double)gpu->dev.l2_bytes;

    /* Two buffers of 1 GiB, or what fits while staying far beyond the L2. */
    if ((rc = KT_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total), err)))
        goto done;
    while (2 * copy_bytes > free_bytes / 2 &&
           copy_bytes > 8 * (size_t)gpu->dev.l2_bytes)
        copy_bytes /= 2;
    if ((rc = KT_CUDA_TRY(cudaMalloc(&src, copy_bytes), err)) ||
        (rc = KT_CUDA_TRY(cudaMalloc(&dst, copy_bytes), err)) ||
        (rc = KT_CUDA_TRY(cudaMemset(src, 0x3c, copy_bytes), err)))
        goto done;

    kt_protocol_defaults(&p);
    p.min_samples = 20;
    p.min_time_s = 0.2;
    p.max_time_s = 5.0;
    job = (copy_job){dst, src, copy_bytes, 1, gpu->dev.sm_count, 1};
    if ((rc = time_one(meter, &target, &p, &us, err)))
        goto done;
    out->copy_bytes = (double)copy_bytes;
    out->copy_gbs = 2.0 * (double)copy_bytes / (us * 1e-6) / 1e9;

    p.min_samples = 50;
    p.min_time_s = 0.0;
    p.cache = KT_CACHE_HOT;
    if ((rc = time_one(meter, &empty, &p, &out->launch_floor_us, err)) ||
        (rc = measure_sync_launch(meter, &out->launch_sync_us, err)))
        goto done;

    if ((rc = measure_compute(meter, p, out, err)))
        goto done;

    /* Hot cache on purpose: the sweep shows where the L2 stops helping. */
    p.min_samples = 10;
    p.min_time_s = 0.02;
    p.max_time_s = 2.0;
    job.use_memcpy = 0;
    for (size_t bytes = SWEEP_FIRST;
         bytes <= SWEEP_LAST && bytes <= copy_bytes &&
         out->sweep_count < KT_CALIB_SWEEP_MAX;
         bytes *= 2) {
        job.bytes = bytes;
        job.passes = (int)(SWEEP_MIN_TRAFFIC / (2 * bytes));
        if (job.passes < 1)
            job.passes = 1;
        if ((rc = time_one(meter, &target, &p, &us, err)))
            goto done;
        out->sweep_bytes[out->sweep_count] = 2.0 * (double)bytes;
        out->sweep_gbs[out->sweep_count] =
            2.0 * (double)bytes * job.passes / (us * 1e-6) / 1e9;
        ++out->sweep_count;
    }
done:
    if (src)
        cudaFree(src);
    if (dst)
        cudaFree(dst);
    if (rc)
        kt_err_prefix(err, "calibration: ");
    return rc;
}

/* Writes the cache entry; one that cannot be written is a warning. */
static void store(const kt_calibration *c)
{
    json_t *j = kt_calib_to_json(c);
    char dir[4096], name[256], *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
    kt_err e;

    kt_err_clear(&e);
    kt_calib_cache_name(c->uuid, name, sizeof name);
    if (!text)
        kt_msg("warning: could not write the calibration cache: out of "
               "memory\n");
    else if (kt_cache_dir(NULL, dir, sizeof dir, &e) ||
             kt_cache_put(dir, name, text, strlen(text), &e))
        kt_msg("warning: could not write the calibration cache: %s\n", e.msg);
    free(text);
    json_decref(j);
}

/* The cached calibration of uuid, or NULL (none, or one not to be used:
 * said in a note). */
static json_t *load(const char *uuid)
{
    char dir[4096], name[256], *text = NULL;
    json_t *j = NULL;
    size_t len;
    kt_err e;

    kt_err_clear(&e);
    kt_calib_cache_name(uuid, name, sizeof name);
    if (kt_cache_dir(NULL, dir, sizeof dir, &e) ||
        kt_cache_get(dir, name, (size_t)1 << 20, &text, &len, &e))
        kt_msg("note: %s; calibrating again\n", e.msg);
    else if (text)
        j = json_loadb(text, len, 0, NULL);
    free(text);
    return j;
}

kt_status kt_calib_get(kt_meter *meter, int refresh, kt_calibration *out,
                       int *from_cache, kt_err *err)
{
    const kt_gpu *gpu = meter->gpu;
    json_t *j;
    kt_status rc;

    *from_cache = 0;
    if (!refresh && (j = load(gpu->uuid))) {
        rc = kt_calib_from_json(j, out, NULL);
        json_decref(j);
        if (!rc && out->version == KT_CALIB_VERSION &&
            strcmp(out->uuid, gpu->uuid) == 0 &&
            out->driver_version == gpu->driver_version) {
            *from_cache = 1;
            return KT_S_OK;
        }
    }
    if ((rc = kt_calib_run(meter, out, err)))
        return rc;
    store(out);
    return KT_S_OK;
}

/* The energy windows of the copy and of the FP32 FMA kernel, each sized by
 * its median time (measured again here: the calibration may come from the
 * cache). */
kt_status kt_calib_energy(kt_meter *meter, const struct kt_nvml *nvml,
                          kt_calibration *out, kt_err *err)
{
    int sms = meter->gpu->dev.sm_count;
    copy_job copy = {NULL, NULL, COPY_BYTES, 1, sms, 1};
    fma_job fma = {NULL, 0, FMA_ITERS, sms};
    kt_target t[2] = {{launch_copy, NULL, NULL, &copy},
                      {launch_fma, NULL, NULL, &fma}};
    double us[2];
    kt_energy e[2];
    kt_protocol p;
    kt_status rc;

    kt_protocol_defaults(&p);
    p.min_samples = 10;
    p.min_time_s = 0.05;
    p.energy_window_s = KT_ENERGY_SEARCH_WINDOW_S * 2;
    if ((rc = KT_CUDA_TRY(cudaMalloc(&copy.src, COPY_BYTES), err)) ||
        (rc = KT_CUDA_TRY(cudaMalloc(&copy.dst, COPY_BYTES), err)) ||
        (rc = KT_CUDA_TRY(
             cudaMalloc(&fma.out, (size_t)sms * KT_FMA_BLOCKS_PER_SM *
                                      KT_FMA_BLOCK * sizeof(double)),
             err)) ||
        (rc = time_one(meter, &t[0], &p, &us[0], err)) ||
        (rc = time_one(meter, &t[1], &p, &us[1], err)) ||
        (rc = kt_energy_measure(nvml, meter->stream, t, us, 2, &p, e, err)))
        goto done;
    if (!e[0].measured || !e[1].measured) {
        rc = kt_err_set(err, KT_S_UNSUPPORTED, "%s",
                        e[0].measured ? e[1].note : e[0].note);
        goto done;
    }
    out->copy_j_per_byte = e[0].joules.median / (2.0 * (double)COPY_BYTES);
    out->fma_j_per_flop = e[1].joules.median / kt_fma_flops(sms, FMA_ITERS);
    store(out);
done:
    cudaFree(copy.src);
    cudaFree(copy.dst);
    cudaFree(fma.out);
    return rc;
}
