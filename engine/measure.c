// SPDX-License-Identifier: Apache-2.0
#include "engine/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/stop_rule.h"
#include "engine/cuda_check.h"
#include "engine/kernels.h"

/* Batch mode runs this many batches and keeps the median batch mean. */
#define BATCH_REPS 3
/* End-to-end samples are long (copies): a fixed, small count. */
#define E2E_SAMPLES 10

kt_status kt_meter_open(kt_meter *meter, const kt_gpu *gpu, kt_err *err)
{
    kt_status rc;

    memset(meter, 0, sizeof *meter);
    meter->gpu = gpu;
    /* Twice the L2: with its hashed sets, reading just the L2's size can
     * leave lines of the previous sample resident. */
    meter->flush_bytes =
        (size_t)(gpu->dev.l2_bytes > 0 ? gpu->dev.l2_bytes : (1 << 20)) * 2;
    if ((rc = KT_CUDA_TRY(
             cudaStreamCreateWithFlags(&meter->stream, cudaStreamNonBlocking),
             err)) ||
        (rc = KT_CUDA_TRY(cudaMalloc(&meter->flush_buf, meter->flush_bytes),
                          err)) ||
        (rc = KT_CUDA_TRY(
             cudaMalloc((void **)&meter->flush_sink, sizeof *meter->flush_sink),
             err)) ||
        /* Initialised once (only the cold-dirty and the clean flush write
         * it again): the read sweep reads defined data. */
        (rc = KT_CUDA_TRY(cudaMemset(meter->flush_buf, 0, meter->flush_bytes),
                          err)) ||
        (rc = KT_CUDA_TRY(cudaDeviceSynchronize(), err)))
        kt_meter_close(meter);
    return rc;
}

void kt_meter_close(kt_meter *meter)
{
    for (size_t i = 0; i < meter->event_cap; ++i)
        cudaEventDestroy(meter->events[i]);
    free(meter->events);
    if (meter->probe_dev)
        cudaFree(meter->probe_dev);
    if (meter->probe_host)
        cudaFreeHost(meter->probe_host);
    if (meter->flush_buf)
        cudaFree(meter->flush_buf);
    if (meter->flush_sink)
        cudaFree(meter->flush_sink);
    if (meter->stream)
        cudaStreamDestroy(meter->stream);
    memset(meter, 0, sizeof *meter);
}

kt_status kt_meter_flush_l2(kt_meter *meter, kt_err *err)
{
    return kt_cuda_status(
        kt_launch_read_sweep(meter->flush_buf, meter->flush_bytes,
                             meter->flush_sink, meter->gpu->dev.sm_count,
                             meter->stream),
        "L2 flush", err);
}

kt_status kt_meter_flush_l2_dirty(kt_meter *meter, kt_err *err)
{
    return KT_CUDA_TRY(
        cudaMemsetAsync(meter->flush_buf, 0, meter->flush_bytes, meter->stream),
        err);
}

kt_status kt_meter_flush_l2_clean(kt_meter *meter, kt_err *err)
{
    kt_status rc =
        kt_cuda_status(kt_launch_write_sweep(
                           meter->flush_buf, meter->flush_bytes & ~(size_t)15,
                           meter->gpu->dev.sm_count, meter->stream),
                       "L2 fill", err);
    if (rc)
        return rc;
    return kt_cuda_status(
        kt_launch_l2_discard(meter->flush_buf,
                             meter->flush_bytes & ~(size_t)127,
                             meter->gpu->dev.sm_count, meter->stream),
        "L2 discard", err);
}

/* Enough events and probe slots for one round of n targets. */
static kt_status reserve_round(kt_meter *meter, size_t n, kt_err *err)
{
    kt_status rc;

    if (2 * n > meter->event_cap) {
        cudaEvent_t *grown = realloc(meter->events, 2 * n * sizeof *grown);
        if (!grown)
            return kt_err_set(err, KT_S_NOMEM, "out of memory for events");
        meter->events = grown;
        while (meter->event_cap < 2 * n) {
            rc = KT_CUDA_TRY(cudaEventCreate(&grown[meter->event_cap]), err);
            if (rc)
                return rc;
            ++meter->event_cap;
        }
    }
    if (n > meter->probe_cap) {
        if (meter->probe_dev)
            cudaFree(meter->probe_dev);
        if (meter->probe_host)
            cudaFreeHost(meter->probe_host);
        meter->probe_dev = NULL;
        meter->probe_host = NULL;
        meter->probe_cap = 0;
        if ((rc = KT_CUDA_TRY(cudaMalloc((void **)&meter->probe_dev,
                                         n * sizeof(unsigned int)),
                              err)) ||
            (rc = KT_CUDA_TRY(cudaMallocHost((void **)&meter->probe_host,
                                             n * sizeof(unsigned int)),
                              err)))
            return rc;
        meter->probe_cap = n;
    }
    return KT_S_OK;
}

/* Runs a target's launch and the runtime's own launch check. */
static kt_status launch_checked(const kt_target *t, cudaStream_t stream,
                                kt_err *err)
{
    kt_status rc = t->launch(t->ctx, stream, err);
    cudaError_t code = cudaGetLastError();

    if (rc)
        return rc;
    return kt_cuda_status(code, "launch", err);
}

/* Runs a target's reset() with nothing of the meter's stream in flight. A
 * reset copies outside the timed stream (a plugin cannot know the
 * meter's), so beside a launch still running it would slow that launch
 * and write buffers the launch still uses: on the H200, restoring GEMM's
 * 64 MiB in-out matrix while the previous finalist of a round ran made
 * that finalist's samples bimodal, 9% slower in 12 of 17. */
static kt_status reset_idle(kt_meter *meter, const kt_target *t, kt_err *err)
{
    kt_status rc;

    if (!t->reset)
        return KT_S_OK;
    if ((rc = kt_cuda_status(cudaStreamSynchronize(meter->stream),
                             "synchronising before a restore of the inputs",
                             err)))
        return rc;
    return t->reset(t->ctx, err);
}

/* One target's sampling: its stopping rule (which keeps its kept
 * samples and says why it may stop) and what the loop adds. */
typedef struct sampling {
    kt_stop_rule rule;
    double *clocks; /* probed MHz of kept samples */
    int stopped;    /* no longer sampled */
} sampling;

static void sampling_free(sampling *s, size_t n)
{
    for (size_t i = 0; s && i < n; ++i) {
        kt_stop_rule_free(&s[i].rule);
        free(s[i].clocks);
    }
    free(s);
}

static kt_status grow(double **array, size_t need, kt_err *err)
{
    double *grown = realloc(*array, need * sizeof *grown);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory for samples");
    *array = grown;
    return KT_S_OK;
}

/* A round in flight: the targets it samples (indices into targets, in
 * sampling order), its number, and which half of the meter's events and
 * probe slots it uses. Two rounds can be in flight at once: the next is
 * enqueued while the host waits for this one, when this one's results
 * cannot stop anything (kt_stop_rule_may_stop). */
typedef struct round_slot {
    size_t *active;
    size_t n, index;
    int half;
} round_slot;

/* What runs before a sample's start event: the mode's L2 flush and the
 * clock probe. In cold mode they are one launch (the probe timing the
 * flush's read sweep), so the probe adds no GPU time to the sample's
 * round; a hot sample has the probe alone. */
static kt_status enqueue_prelude(kt_meter *meter, const kt_protocol *p,
                                 unsigned int *probe_slot, kt_err *err)
{
    int sms = meter->gpu->dev.sm_count;
    kt_status rc = KT_S_OK;

    if (p->cache == KT_CACHE_COLD && p->probe_ns)
        return kt_cuda_status(
            kt_launch_read_sweep_probe(meter->flush_buf, meter->flush_bytes,
                                       meter->flush_sink, probe_slot,
                                       p->probe_ns, sms, meter->stream),
            "L2 flush with clock probe", err);
    if (p->cache == KT_CACHE_COLD)
        rc = kt_meter_flush_l2(meter, err);
    else if (p->cache == KT_CACHE_COLD_DIRTY)
        rc = kt_meter_flush_l2_dirty(meter, err);
    if (!rc && p->probe_ns)
        rc = kt_cuda_status(
            kt_launch_clock_probe(probe_slot, sms, p->probe_ns, meter->stream),
            "clock probe", err);
    return rc;
}

/* Enqueues one round: one sample of every target in r, then the copy of
 * its clock probes and its end event; nothing waits. stride is the
 * number of targets a half holds. */
static kt_status enqueue_round(kt_meter *meter, const kt_target *targets,
                               const round_slot *r, size_t stride,
                               const kt_protocol *p, kt_err *err)
{
    cudaStream_t s = meter->stream;
    cudaEvent_t *ev = meter->events + 2 * stride * (size_t)r->half;
    unsigned int *probe = meter->probe_dev + stride * (size_t)r->half;
    kt_status rc;

    if (p->probe_ns &&
        (rc = KT_CUDA_TRY(
             cudaMemsetAsync(probe, 0xFF, r->n * sizeof(unsigned int), s),
             err)))
        return rc;
    for (size_t k = 0; k < r->n; ++k) {
        const kt_target *t = &targets[r->active[k]];
        if ((rc = reset_idle(meter, t, err)))
            return rc;
        if ((rc = enqueue_prelude(meter, p, probe + k, err)))
            return rc;
        meter->costs.flushes += p->cache != KT_CACHE_HOT;
        meter->costs.probes += p->probe_ns != 0;
        if ((rc = KT_CUDA_TRY(cudaEventRecord(ev[2 * k], s), err)) ||
            (rc = launch_checked(t, s, err)) ||
            (rc = KT_CUDA_TRY(cudaEventRecord(ev[2 * k + 1], s), err)))
            return rc;
    }
    if (p->probe_ns &&
        (rc = KT_CUDA_TRY(
             cudaMemcpyAsync(meter->probe_host + stride * (size_t)r->half,
                             probe, r->n * sizeof(unsigned int),
                             cudaMemcpyDeviceToHost, s),
             err)))
        return rc;
    return KT_CUDA_TRY(
        cudaEventRecord(meter->events[4 * stride + (size_t)r->half], s), err);
}

/* Waits for round r and reads its samples: interval_us and clock_mhz per
 * position in r. */
static kt_status read_round(kt_meter *meter, const round_slot *r, size_t stride,
                            const kt_protocol *p, double *interval_us,
                            double *clock_mhz, kt_err *err)
{
    cudaEvent_t *ev = meter->events + 2 * stride * (size_t)r->half;
    const unsigned int *probe = meter->probe_host + stride * (size_t)r->half;
    kt_status rc;

    if ((rc = kt_cuda_status(
             cudaEventSynchronize(meter->events[4 * stride + (size_t)r->half]),
             "synchronising after the timed launches", err)))
        return rc;
    for (size_t i = 0; i < r->n; ++i) {
        float ms = 0;
        if ((rc = KT_CUDA_TRY(
                 cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]), err)))
            return rc;
        interval_us[i] = 1e3 * (double)ms;
        clock_mhz[i] = p->probe_ns ? probe[i] / 1e3 : 0.0;
    }
    return KT_S_OK;
}

static kt_status warm_up(kt_meter *meter, const kt_target *targets, size_t n,
                         const kt_protocol *p, kt_err *err)
{
    kt_status rc;
    for (size_t i = 0; i < n; ++i) {
        for (int w = targets[i].warm; w < p->warmups; ++w) {
            if ((rc = reset_idle(meter, &targets[i], err)))
                return rc;
            if ((rc = launch_checked(&targets[i], meter->stream, err)))
                return rc;
        }
    }
    return kt_cuda_status(cudaStreamSynchronize(meter->stream),
                          "synchronising after the warm-up launches", err);
}

static kt_status measure_batch(kt_meter *meter, const kt_target *t, int k,
                               const kt_protocol *p, double *per_launch_us,
                               kt_err *err)
{
    double means[BATCH_REPS];
    kt_status rc;

    if ((rc = reserve_round(meter, 1, err)))
        return rc;
    for (int r = 0; r < BATCH_REPS; ++r) {
        float ms = 0;
        if ((rc = reset_idle(meter, t, err)))
            return rc;
        if (p->probe_ns &&
            (rc = kt_cuda_status(kt_launch_clock_probe(
                                     meter->probe_dev, meter->gpu->dev.sm_count,
                                     p->probe_ns, meter->stream),
                                 "clock probe", err)))
            return rc;
        if ((rc = KT_CUDA_TRY(cudaEventRecord(meter->events[0], meter->stream),
                              err)))
            return rc;
        for (int i = 0; i < k; ++i)
            if ((rc = launch_checked(t, meter->stream, err)))
                return rc;
        if ((rc = KT_CUDA_TRY(cudaEventRecord(meter->events[1], meter->stream),
                              err)) ||
            (rc = kt_cuda_status(cudaStreamSynchronize(meter->stream),
                                 "synchronising after a batch", err)) ||
            (rc = KT_CUDA_TRY(
                 cudaEventElapsedTime(&ms, meter->events[0], meter->events[1]),
                 err)))
            return rc;
        means[r] = 1e3 * (double)ms / k;
    }
    kt_stats_sort(means, BATCH_REPS);
    *per_launch_us = means[BATCH_REPS / 2];
    return KT_S_OK;
}

static kt_status measure_end_to_end(kt_meter *meter, const kt_target *t,
                                    kt_stats *out, kt_err *err)
{
    double us[E2E_SAMPLES];
    kt_status rc;

    for (int i = 0; i < E2E_SAMPLES; ++i) {
        double t0 = kt_clock_seconds();
        if ((rc = t->transfer(t->ctx, 1, err)) ||
            (rc = launch_checked(t, meter->stream, err)) ||
            (rc = kt_cuda_status(cudaStreamSynchronize(meter->stream),
                                 "synchronising (end to end)", err)) ||
            (rc = t->transfer(t->ctx, 0, err)))
            return rc;
        us[i] = 1e6 * (kt_clock_seconds() - t0);
    }
    kt_stats_compute(us, E2E_SAMPLES, out);
    return KT_S_OK;
}

/* Decides which targets go on. A target that lost the race stops at once.
 * In a comparison (race_pairs) a target that met its rule stops too, and
 * target 0 once every other has stopped; otherwise every target is sampled
 * until all have met their rule, as interleaving asks. Returns the number
 * of targets still sampled, their indices in active. */
static size_t next_active(const kt_protocol *p, sampling *st, size_t n,
                          size_t *active)
{
    size_t m = 0, waiting = 0, others = 0;

    for (size_t i = 0; i < n; ++i) {
        const char *reason = kt_stop_rule_reason(&st[i].rule);
        waiting += !reason;
        if (!st[i].stopped && reason &&
            (p->race_pairs || strncmp(reason, "race", 4) == 0))
            st[i].stopped = 1;
        others += i > 0 && !st[i].stopped;
    }
    if (p->race_pairs && n > 1 && !others && !st[0].stopped &&
        st[0].rule.num_kept >= p->min_samples) {
        st[0].stopped = 1;
        kt_stop_rule_stop(&st[0].rule, "pairs done");
    }
    if (!waiting && !p->race_pairs)
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!st[i].stopped)
            active[m++] = i;
    return m;
}

/* Whether round r's results could change which targets go on: then the
 * next round waits for them; otherwise it is enqueued first. Only the
 * wall-time cap cannot be foreseen (next_active's callers discard what a
 * round sampled after its target stopped). */
static int round_decides(const kt_protocol *p, const sampling *st, size_t n,
                         const round_slot *r)
{
    if (p->race_pairs && n > 1 && r->n == 1 && r->active[0] == 0)
        return 1; /* the incumbent alone: it stops at min_samples */
    for (size_t k = 0; k < r->n; ++k) {
        const sampling *s = &st[r->active[k]];
        /* The rule has taken rounds 0 .. r->index - 1: its next is r. */
        if (!s->stopped && kt_stop_rule_may_stop(&s->rule))
            return 1;
    }
    return 0;
}

/* Room for round `index` in every target's samples. */
static kt_status grow_rounds(kt_timing *out, sampling *st, size_t n,
                             size_t index, size_t *cap, kt_err *err)
{
    kt_status rc = KT_S_OK;

    if (index < *cap)
        return KT_S_OK;
    *cap = *cap ? 2 * *cap : 64;
    for (size_t i = 0; i < n && !rc; ++i)
        if ((rc = grow(&out[i].samples_us, *cap, err)) ||
            (rc = grow(&st[i].clocks, *cap, err)))
            break;
    return rc;
}

/* Takes round r's samples (interval, clock per position in r) into the
 * targets' statistics and applies the stopping rules. A target that
 * stopped before r ran (a speculative round, see round_decides) takes
 * nothing from it. */
static kt_status take_round(const kt_meter *meter, const kt_protocol *p,
                            sampling *st, kt_timing *out, const round_slot *r,
                            const double *interval, const double *clock,
                            double t_start, kt_err *err)
{
    double threshold = p->throttle_ratio * meter->gpu->sm_clock_khz / 1e3;
    kt_status rc = KT_S_OK;

    for (size_t k = 0; k < r->n && !rc; ++k) {
        size_t i = r->active[k];
        sampling *s = &st[i];
        int throttled = p->probe_ns && clock[k] < threshold;
        if (s->stopped)
            continue;
        /* A target takes part in rounds 0, 1, ... without a gap: the
         * sample of round r is its r-th, and pairs stay aligned. */
        out[i].samples_us[r->index] = throttled ? NAN : interval[k];
        out[i].num_rounds = r->index + 1;
        if (throttled)
            ++out[i].discarded;
        else
            s->clocks[s->rule.num_kept] = clock[k];
        rc = kt_stop_rule_add(&s->rule, out[i].samples_us[r->index],
                              kt_clock_seconds() - t_start, err);
        out[i].gpu_time_s = s->rule.gpu_time_s;
    }
    return rc;
}

/* Whether rounds may overlap. Not when a target restores its inputs
 * before each sample: the restore (an upload outside the timed stream)
 * would then run beside the round still in flight and disturb its
 * samples. protocol.round_sync: never, the earlier behaviour, for
 * measuring what the overlap gains. */
static int rounds_overlap(const kt_target *targets, size_t n,
                          const kt_protocol *p)
{
    for (size_t i = 0; i < n; ++i)
        if (targets[i].reset)
            return 0;
    return !p->round_sync;
}

/* Rounds until every target has stopped. While the host reads one round,
 * the next is already on the GPU whenever the one being read cannot stop
 * anything, so the GPU does not idle for the host between rounds. */
static kt_status sample_rounds(kt_meter *meter, const kt_target *targets,
                               size_t n, const kt_protocol *p, kt_timing *out,
                               sampling *st, double t_start, kt_err *err)
{
    double *interval = calloc(2 * n + 1, sizeof *interval);
    double *clock = interval ? interval + n : NULL;
    size_t *lists = calloc(3 * n + 1, sizeof *lists);
    size_t *fresh = lists ? lists + 2 * n : NULL;
    size_t cap = 0, m;
    round_slot cur = {lists, n, 0, 0},
               next = {lists ? lists + n : NULL, 0, 0, 1};
    round_slot swap;
    int overlap = rounds_overlap(targets, n, p), queued = 0, stale = !overlap;
    kt_status rc = KT_S_OK;

    if (!interval || !lists) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory for samples");
        goto done;
    }
    for (size_t i = 0; i < n; ++i)
        cur.active[i] = i;
    rc = enqueue_round(meter, targets, &cur, n, p, err);
    while (!rc) {
        if (!stale && !round_decides(p, st, n, &cur)) {
            next.n = cur.n;
            next.index = cur.index + 1;
            next.half = !cur.half;
            memcpy(next.active, cur.active, cur.n * sizeof *cur.active);
            if ((rc = enqueue_round(meter, targets, &next, n, p, err)))
                break;
            queued = 1;
        }
        if ((rc = read_round(meter, &cur, n, p, interval, clock, err)) ||
            (rc = grow_rounds(out, st, n, cur.index, &cap, err)) ||
            (rc = take_round(meter, p, st, out, &cur, interval, clock, t_start,
                             err)))
            break;
        m = next_active(p, st, n, fresh);
        if (queued) {
            swap = cur;
            cur = next;
            next = swap;
            queued = 0;
            if (m == 0) {
                /* A cap stopped everything while a round was in flight:
                 * it ran for nothing; wait for it, keep none of it. */
                rc = read_round(meter, &cur, n, p, interval, clock, err);
                break;
            }
            /* The round in flight samples a target that stopped (a cap):
             * the one after it takes the new set. */
            stale =
                m != cur.n || memcmp(fresh, cur.active, m * sizeof *fresh) != 0;
            continue;
        }
        stale = !overlap;
        if (m == 0)
            break;
        cur.n = m;
        cur.index += 1;
        cur.half = !cur.half;
        memcpy(cur.active, fresh, m * sizeof *fresh);
        rc = enqueue_round(meter, targets, &cur, n, p, err);
    }
done:
    free(interval);
    free(lists);
    return rc;
}

/* GPU time of four launches of what enqueue does, in us each. */
static kt_status time_four(kt_meter *meter,
                           kt_status (*enqueue)(kt_meter *, const kt_protocol *,
                                                kt_err *),
                           const kt_protocol *p, double *us, kt_err *err)
{
    cudaStream_t s = meter->stream;
    cudaEvent_t *e = meter->events;
    float ms = 0;
    kt_status rc;

    if ((rc = KT_CUDA_TRY(cudaEventRecord(e[0], s), err)))
        return rc;
    for (int i = 0; i < 4 && !rc; ++i)
        rc = enqueue(meter, p, err);
    if (rc || (rc = KT_CUDA_TRY(cudaEventRecord(e[1], s), err)) ||
        (rc = KT_CUDA_TRY(cudaStreamSynchronize(s), err)) ||
        (rc = KT_CUDA_TRY(cudaEventElapsedTime(&ms, e[0], e[1]), err)))
        return rc;
    *us = 1e3 * (double)ms / 4;
    return KT_S_OK;
}

static kt_status flush_only(kt_meter *meter, const kt_protocol *p, kt_err *err)
{
    return p->cache == KT_CACHE_COLD_DIRTY ? kt_meter_flush_l2_dirty(meter, err)
                                           : kt_meter_flush_l2(meter, err);
}

static kt_status prelude(kt_meter *meter, const kt_protocol *p, kt_err *err)
{
    return enqueue_prelude(meter, p, meter->probe_dev, err);
}

/* The GPU time of one L2 flush (none in hot mode) and of what the clock
 * probe adds to it, timed once per meter and cache mode, for the phases of
 * every measurement. In cold mode the probe rides on the flush, and its
 * cost is the difference. */
static kt_status time_costs(kt_meter *meter, const kt_protocol *p, kt_err *err)
{
    kt_meter_costs *c = &meter->costs;
    double flush_us = 0, prelude_us = 0;
    kt_status rc;

    if ((c->timed && c->timed_cache == p->cache &&
         c->timed_probe_ns == p->probe_ns) ||
        meter->event_cap < 2)
        return KT_S_OK;
    if ((p->cache != KT_CACHE_HOT &&
         (rc = time_four(meter, flush_only, p, &flush_us, err))) ||
        (rc = time_four(meter, prelude, p, &prelude_us, err)))
        return rc;
    c->timed = 1;
    c->timed_cache = p->cache;
    c->timed_probe_ns = p->probe_ns;
    c->flush_us = flush_us;
    c->probe_us =
        p->probe_ns && prelude_us > flush_us ? prelude_us - flush_us : 0;
    return KT_S_OK;
}

kt_status kt_meter_measure(kt_meter *meter, const kt_target *targets, size_t n,
                           const kt_protocol *p, kt_timing *out, kt_err *err)
{
    double t_start = kt_clock_seconds(), t_warm;
    sampling *st = calloc(n ? n : 1, sizeof *st);
    kt_status rc;

    memset(out, 0, n * sizeof *out);
    meter->costs.warmup_s = meter->costs.sampling_s = 0;
    meter->costs.flushes = meter->costs.probes = 0;
    if (!st) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory for samples");
        goto done;
    }
    for (size_t i = 0; i < n; ++i)
        kt_stop_rule_init(&st[i].rule, p);
    if ((rc = kt_protocol_validate(p, err)) ||
        /* Two rounds in flight: two halves of events and probe slots,
         * and one end event per half. */
        (rc = reserve_round(meter, 2 * n + 1, err)) ||
        (rc = time_costs(meter, p, err)))
        goto done;
    t_warm = kt_clock_seconds();
    if ((rc = warm_up(meter, targets, n, p, err)))
        goto done;
    meter->costs.warmup_s = kt_clock_seconds() - t_warm;
    t_warm = kt_clock_seconds();
    rc = sample_rounds(meter, targets, n, p, out, st, t_start, err);
    meter->costs.sampling_s = kt_clock_seconds() - t_warm;
    if (rc)
        goto done;
    for (size_t i = 0; i < n; ++i) {
        kt_stats clocks;
        kt_stats_compute(st[i].rule.kept, st[i].rule.num_kept, &out[i].kernel);
        kt_stats_compute(st[i].clocks, st[i].rule.num_kept, &clocks);
        out[i].min_clock_mhz = clocks.min;
        out[i].median_clock_mhz = clocks.median;
        out[i].stop_reason = kt_stop_rule_reason(&st[i].rule);
        if (p->batch > 0) {
            out[i].batch_k = p->batch;
            if ((rc = measure_batch(meter, &targets[i], p->batch, p,
                                    &out[i].batch_us, err)))
                goto done;
        }
        if (p->end_to_end && targets[i].transfer &&
            (rc = measure_end_to_end(meter, &targets[i], &out[i].end_to_end,
                                     err)))
            goto done;
    }
    for (size_t i = 0; i < n; ++i)
        out[i].wall_time_s = kt_clock_seconds() - t_start;
done:
    sampling_free(st, n);
    if (rc)
        for (size_t i = 0; i < n; ++i)
            kt_timing_free(&out[i]);
    return rc;
}
