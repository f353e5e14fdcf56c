// SPDX-License-Identifier: Apache-2.0
#include "engine/energy_meter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "engine/cuda_check.h"

/* What the device samples of one point add up to over its windows. */
typedef struct dev_acc {
    double power_sum, sm_sum, sm_min, mem_sum, temp_max, limit;
    size_t power_n, clock_n;
} dev_acc;

/* One window of one point. */
typedef struct window {
    const kt_nvml *nvml;
    cudaStream_t stream;
    const kt_target *target;
    unsigned batch;
    cudaEvent_t start, stop, done[KT_ENERGY_IN_FLIGHT];
    uint64_t launches;
    kt_energy_change *c;
    size_t nc, cap;
} window;

static kt_status enqueue_batch(window *w, size_t slot, kt_err *err)
{
    kt_status rc;

    for (unsigned i = 0; i < w->batch; ++i)
        if ((rc = w->target->launch(w->target->ctx, w->stream, err)))
            return rc;
    w->launches += w->batch;
    return KT_CUDA_TRY(cudaEventRecord(w->done[slot], w->stream), err);
}

static kt_status add_change(window *w, double t, double t_before, uint64_t mj,
                            kt_err *err)
{
    if (w->nc == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        kt_energy_change *grown = realloc(w->c, cap * sizeof *grown);
        if (!grown)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        w->c = grown;
        w->cap = cap;
    }
    w->c[w->nc++] = (kt_energy_change){t, t_before, mj};
    return KT_S_OK;
}

/* Power, SM and memory clocks, temperature: one sample. Each read is
 * optional (a device may refuse one): what it refuses is left out of the
 * figures, and the energy, from the counter alone, stands. */
static void sample_device(const kt_nvml *n, dev_acc *a)
{
    double w, sm, mem, temp;
    kt_err err;

    if (!kt_nvml_power_w(n, &w, &err)) {
        a->power_sum += w;
        ++a->power_n;
    }
    if (!kt_nvml_clock_mhz(n, KT_NVML_CLOCK_SM, &sm, &err) &&
        !kt_nvml_clock_mhz(n, KT_NVML_CLOCK_MEM, &mem, &err)) {
        a->sm_sum += sm;
        a->sm_min = a->clock_n == 0 || sm < a->sm_min ? sm : a->sm_min;
        a->mem_sum += mem;
        ++a->clock_n;
    }
    if (!kt_nvml_temp_c(n, &temp, &err))
        a->temp_max = temp > a->temp_max ? temp : a->temp_max;
}

/* Keeps the batches flowing: refills every slot whose batch finished. */
static kt_status refill(window *w, kt_err *err)
{
    kt_status rc;

    for (size_t k = 0; k < KT_ENERGY_IN_FLIGHT; ++k) {
        cudaError_t q = cudaEventQuery(w->done[k]);
        if (q == cudaErrorNotReady)
            continue;
        if ((rc = kt_cuda_status(q, "running the energy window", err)) ||
            (rc = enqueue_batch(w, k, err)))
            return rc;
    }
    return KT_S_OK;
}

/* Polls the counter while the point runs, until the window is long enough
 * or plainly cannot be (the counter too slow): nvml_rc receives a refused
 * read (the window then ends), the return value CUDA's failures. */
static kt_status poll(window *w, dev_acc *a, double window_s,
                      kt_status *nvml_rc, kt_err *nerr, kt_err *err)
{
    double t0 = kt_clock_seconds(), t_prev = t0, next_sample = t0;
    double give_up = t0 + 4 * window_s + 2.0;
    uint64_t last = 0;
    kt_status rc;

    for (;;) {
        double t = kt_clock_seconds();
        uint64_t mj;
        if ((*nvml_rc = kt_nvml_energy_mj(w->nvml, &mj, nerr)))
            return KT_S_OK;
        if (w->nc == 0 || mj != last) {
            if ((rc = add_change(w, t, w->nc ? t_prev : t, mj, err)))
                return rc;
            last = mj;
            if (w->nc >= 1 + KT_ENERGY_MIN_CHANGES &&
                w->c[w->nc - 1].t_s - w->c[1 + KT_ENERGY_LEAD_IN].t_s >=
                    window_s)
                return KT_S_OK;
        }
        t_prev = t;
        if (t >= give_up)
            return KT_S_OK;
        if (t >= next_sample) {
            sample_device(w->nvml, a);
            next_sample = t + KT_ENERGY_SAMPLE_S;
        }
        if ((rc = refill(w, err)))
            return rc;
    }
}

/* One window of target tg: adds a round to e, or a note when the window
 * said nothing. */
static kt_status run_window(window *w, dev_acc *a, const kt_protocol *p,
                            kt_energy *e, kt_err *err)
{
    kt_energy_span span;
    kt_status nrc = KT_S_OK, rc;
    kt_err nerr;
    float ms = 0;

    kt_err_clear(&nerr);
    w->nc = 0;
    w->launches = 0;
    if ((rc = KT_CUDA_TRY(cudaEventRecord(w->start, w->stream), err)))
        return rc;
    for (size_t k = 0; k < KT_ENERGY_IN_FLIGHT; ++k)
        if ((rc = enqueue_batch(w, k, err)))
            return rc;
    rc = poll(w, a, p->energy_window_s, &nrc, &nerr, err);
    if (rc || (rc = KT_CUDA_TRY(cudaEventRecord(w->stop, w->stream), err)) ||
        (rc = kt_cuda_status(cudaStreamSynchronize(w->stream),
                             "running the energy window", err)) ||
        (rc = KT_CUDA_TRY(cudaEventElapsedTime(&ms, w->start, w->stop), err)))
        return rc;
    if (nrc || (nrc = kt_energy_span_of(w->c, w->nc, p->energy_window_s, &span,
                                        &nerr))) {
        snprintf(e->note, sizeof e->note, "%s", nerr.msg);
        return KT_S_OK;
    }
    return kt_energy_add_round(e, &span, 1e-3 * ms / (double)w->launches,
                               w->launches, err);
}

static unsigned batch_of(double median_us)
{
    double b = median_us > 0 ? ceil(1e6 * KT_ENERGY_BATCH_S / median_us) : 1;
    return b < 1                     ? 1
           : b > KT_ENERGY_MAX_BATCH ? KT_ENERGY_MAX_BATCH
                                     : (unsigned)b;
}

static void finish_point(const kt_nvml *n, const dev_acc *a, kt_energy *e)
{
    kt_energy_device d = {0};
    char note[sizeof e->note];

    if (a->power_n) {
        d.sampled_power_w = a->power_sum / (double)a->power_n;
        d.power_samples = a->power_n;
    }
    if (a->clock_n) {
        d.sm_mhz = a->sm_sum / (double)a->clock_n;
        d.sm_mhz_min = a->sm_min;
        d.mem_mhz = a->mem_sum / (double)a->clock_n;
    }
    d.temp_c = a->temp_max;
    d.power_limit_w = a->limit;
    (void)n;
    snprintf(note, sizeof note, "%s", e->note);
    kt_energy_finish(e, &d);
    if (!e->measured)
        snprintf(e->note, sizeof e->note, "%s", note[0] ? note : "no window");
}

kt_status kt_energy_measure(const kt_nvml *nvml, cudaStream_t stream,
                            const kt_target *targets, const double *median_us,
                            size_t n, const kt_protocol *p, kt_energy *out,
                            kt_err *err)
{
    window w = {nvml, stream, NULL, 1, NULL, NULL, {NULL}, 0, NULL, 0, 0};
    dev_acc *acc = calloc(n ? n : 1, sizeof *acc);
    double limit = 0;
    kt_err lerr;
    kt_status rc = KT_S_OK;

    memset(out, 0, n * sizeof *out);
    if (!acc)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (kt_nvml_power_limit_w(nvml, &limit, &lerr))
        limit = 0;
    if ((rc = KT_CUDA_TRY(cudaEventCreate(&w.start), err)) ||
        (rc = KT_CUDA_TRY(cudaEventCreate(&w.stop), err)))
        goto done;
    for (size_t k = 0; k < KT_ENERGY_IN_FLIGHT && !rc; ++k)
        rc = KT_CUDA_TRY(
            cudaEventCreateWithFlags(&w.done[k], cudaEventDisableTiming), err);
    for (size_t r = 0; r < p->energy_rounds && !rc; ++r)
        for (size_t k = 0; k < n && !rc; ++k) {
            w.target = &targets[k];
            w.batch = batch_of(median_us[k]);
            acc[k].limit = limit;
            rc = run_window(&w, &acc[k], p, &out[k], err);
        }
    for (size_t k = 0; k < n && !rc; ++k)
        finish_point(nvml, &acc[k], &out[k]);
done:
    if (w.start)
        cudaEventDestroy(w.start);
    if (w.stop)
        cudaEventDestroy(w.stop);
    for (size_t k = 0; k < KT_ENERGY_IN_FLIGHT; ++k)
        if (w.done[k])
            cudaEventDestroy(w.done[k]);
    free(w.c);
    free(acc);
    return rc;
}
