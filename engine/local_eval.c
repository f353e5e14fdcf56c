// SPDX-License-Identifier: Apache-2.0
#include "core/evaluator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/envrec.h"
#include "core/feasible.h"
#include "core/msg.h"
#include "engine/calibrate.h"
#include "engine/compile_hints.h"
#include "engine/compile_pool.h"
#include "engine/cuda_check.h"
#include "engine/declared_run.h"
#include "engine/energy_meter.h"
#include "engine/gpu.h"
#include "engine/instance.h"
#include "engine/nvrtc.h"
#include "engine/nvrtc_code.h"
#include "engine/verify.h"

/* A point's verification outcome, kept for the evaluator's lifetime. */
typedef struct verdict {
    kt_point point;
    kt_eval_status status;
    char reason[1024];
    kt_shape shape;
    kt_nvrtc_stats compile; /* what verifying it compiled */
    double compile_wait_s;  /* of which waited for, with nothing to measure */
    uint32_t taken, took_queued, unhinted; /* its takes from the pool */
    int reported; /* its compile costs went out (once: a point measured
                     again compiled nothing) */
} verdict;

typedef struct local_eval {
    kt_evaluator base;
    kt_eval_spec spec;
    kt_gpu gpu;
    kt_meter meter;
    kt_instance inst;
    kt_verifier verifier; /* boundary problems, set up once */
    int lost;             /* a kernel faulted: the context is unusable */
    char helper[4096];    /* the NVRTC helper the pool runs; "": threads */
    verdict *verdicts;
    size_t num_verdicts;
    /* Where opening went: CUDA's start and the context (device_s), the
     * meter (meter_s), the problem's set-up (problem_s). */
    double device_s, meter_s, problem_s;
    /* Run-time compiles (engine/compile_pool.h): the pool, the hints it
     * was given (each point's keys) and its busy time at the last call. */
    kt_cpool *pool;
    kt_chints hints;
    double busy_reported, work_reported;
    /* NVML for the energy window; nvml_note says why not when absent. */
    kt_nvml nvml;
    int nvml_ok;
    char nvml_note[512];
    /* In force when the evaluator opened (0: not read): the device's
     * settings, reported, never changed. */
    double nvml_limit_w, nvml_sm_mhz, nvml_mem_mhz;
    /* What undoes the settings a job asked for, and the one in force
     * (core/nvml_set.h). */
    char restore_path[4096];
    kt_nvml_keeper keeper;
} local_eval;

/* One point's launches: its configuration and shape prepared once
 * (launch_prepare), not for each timed launch. Not copied once prepared
 * (cfg points into bc). */
typedef struct launch_ctx {
    local_eval *le;
    const kt_point *point;
    int clean_flush; /* profile_flush's kind, read once per profile */
    kt_bound_config bc;
    const kt_config *cfg;
    kt_shape shape; /* the verified shape at the evaluator's problem */
} launch_ctx;

static local_eval *self(kt_evaluator *ev)
{
    return (local_eval *)ev;
}

/* c's configuration bound and its verified shape kept, in place. */
static void launch_prepare(launch_ctx *c, const kt_shape *shape)
{
    c->cfg = kt_point_bind(c->le->spec.op, c->point, &c->bc);
    c->shape = *shape;
}

static kt_status ctx_launch(void *ctx, cudaStream_t stream, kt_err *err)
{
    launch_ctx *c = ctx;
    return kt_instance_launch(&c->le->inst, c->point->variant, c->cfg,
                              &c->shape, stream, err);
}

static kt_status ctx_reset(void *ctx, kt_err *err)
{
    launch_ctx *c = ctx;
    return kt_instance_reset(&c->le->inst, err);
}

/* End-to-end scope: inputs restored from the host (reset() uploads them),
 * outputs copied back to host memory. */
static kt_status ctx_transfer(void *ctx, int to_device, kt_err *err)
{
    launch_ctx *c = ctx;
    kt_services *svc = &c->le->inst.svc;
    kt_status rc = KT_S_OK;

    if (to_device)
        return kt_instance_reset(&c->le->inst, err);
    for (size_t i = 0; i < svc->num_allocs && !rc; ++i) {
        void *host;
        if (svc->allocs[i].role != KT_MEM_OUTPUT)
            continue;
        host = malloc(svc->allocs[i].bytes);
        if (!host)
            return kt_err_set(err, KT_S_NOMEM, "out of host memory");
        rc = KT_CUDA_TRY(cudaMemcpy(host, svc->allocs[i].ptr,
                                    svc->allocs[i].bytes,
                                    cudaMemcpyDeviceToHost),
                         err);
        free(host);
    }
    return rc;
}

static verdict *find_verdict(local_eval *le, const kt_point *pt)
{
    for (size_t i = 0; i < le->num_verdicts; ++i)
        if (kt_point_equal(&le->verdicts[i].point, pt))
            return &le->verdicts[i];
    return NULL;
}

/* The pool's wall time with a compile running and its compiles' summed
 * wall time since the last call reported them, and its peak, into r. */
static void pool_since_last(local_eval *le, kt_eval_result *r)
{
    kt_cpool_stats st;
    kt_cpool_stats_get(le->pool, &st);
    r->compile_busy_s = st.busy_s - le->busy_reported;
    r->compile_work_s = st.compile_s - le->work_reported;
    r->compile_peak = (uint32_t)st.peak_running;
    le->busy_reported = st.busy_s;
    le->work_reported = st.compile_s;
}

/* Hands the pool the kernels of pts (in order) that no verdict covers:
 * declared operators only (kt_declared_compile_request), at the requested
 * sizes. A point hinted before goes again, so the pool moves its kernel
 * forward when it is still queued (the newest hint is the soonest need). */
static void hint_points(local_eval *le, const kt_point *pts, size_t n)
{
    kt_point *open = malloc((n ? n : 1) * sizeof *open);
    size_t m = 0;

    for (size_t i = 0; open && i < n; ++i)
        if (!find_verdict(le, &pts[i]) &&
            pts[i].variant < le->spec.op->num_variants)
            open[m++] = pts[i];
    kt_chints_give(&le->hints, le->pool, open, m);
    free(open);
}

static void local_prefetch(kt_evaluator *ev, const kt_point *pts, size_t n)
{
    hint_points(self(ev), pts, n);
}

static kt_status verify_cached(local_eval *le, const kt_point *pt,
                               verdict **out, kt_eval_phases *ph, kt_err *err)
{
    verdict *v = find_verdict(le, pt), *grown;
    double t0 = kt_clock_seconds(), setup0 = le->verifier.setup_s;
    kt_nvrtc_stats before, after;
    kt_cpool_stats pool0, pool1;
    kt_err verr;
    kt_status rc;

    if (v) {
        *out = v;
        return KT_S_OK;
    }
    grown = realloc(le->verdicts, (le->num_verdicts + 1) * sizeof *grown);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    le->verdicts = grown;
    v = &grown[le->num_verdicts++];
    memset(v, 0, sizeof *v);
    v->point = *pt;
    kt_err_clear(&verr);
    kt_nvrtc_stats_get(&before);
    kt_cpool_stats_get(le->pool, &pool0);
    if ((rc = kt_point_validate(le->spec.op, pt, &verr)) == KT_S_OK &&
        (rc = kt_point_feasible(le->spec.plugin, le->spec.op, &le->inst.problem,
                                pt, &v->shape, &verr)) == KT_S_OK)
        rc =
            kt_verify_point(&le->verifier, &le->inst, pt, &v->shape,
                            le->meter.stream, le->spec.check_boundaries, &verr);
    if (ph) {
        ph->setup_s = le->verifier.setup_s - setup0;
        ph->verify_s = kt_clock_seconds() - t0 - ph->setup_s;
    }
    kt_nvrtc_stats_get(&after);
    v->compile.compiled = after.compiled - before.compiled;
    v->compile.cache_hits = after.cache_hits - before.cache_hits;
    v->compile.seconds = after.seconds - before.seconds;
    v->compile.cpu_seconds = after.cpu_seconds - before.cpu_seconds;
    kt_cpool_stats_get(le->pool, &pool1);
    v->compile_wait_s = pool1.wait_s - pool0.wait_s;
    v->taken = (uint32_t)(pool1.taken - pool0.taken);
    v->took_queued = (uint32_t)(pool1.took_queued - pool0.took_queued);
    v->unhinted = (uint32_t)(pool1.unhinted - pool0.unhinted);
    v->status = kt_eval_status_from(rc);
    snprintf(v->reason, sizeof v->reason, "%s", rc ? verr.msg : "");
    *out = v;
    if (rc == KT_S_EXEC) {
        le->lost = 1;
        return kt_err_set(err, KT_S_EXEC, "%s", verr.msg);
    }
    return KT_S_OK;
}

/* The call's measurement phases, kept in its first result. */
static void add_costs(const kt_meter_costs *c, kt_eval_phases *ph)
{
    ph->warmup_s += c->warmup_s;
    ph->sampling_s += c->sampling_s;
    ph->flush_s += 1e-6 * c->flush_us * (double)c->flushes;
    ph->probe_s += 1e-6 * c->probe_us * (double)c->probes;
}

/* The point's work: its variant's (ABI 1.2) when it has one, else the
 * problem's. */
static void point_work(local_eval *le, const kt_point *pt, kt_eval_result *r)
{
    const kt_operator *op = le->spec.op;
    kt_bound_config bc;
    kt_work w = {sizeof w, 0, 0, 0, 0};

    r->work = le->inst.work;
    r->has_work = 0;
    if (kt_call_work_of(le->spec.plugin, op, pt->variant, &le->inst.problem,
                        kt_point_bind(op, pt, &bc), &w)) {
        r->work = w;
        r->has_work = 1;
    }
}

/* The energy windows of the call's verified points, after their timing
 * (engine/energy_meter.h); where NVML is absent each result says so. */
static kt_status measure_energy(local_eval *le, const kt_target *targets,
                                const kt_timing *timings, const size_t *slot,
                                size_t m, const kt_protocol *p,
                                kt_eval_result *out, kt_err *err)
{
    double *median = calloc(m ? m : 1, sizeof *median);
    kt_energy *e = calloc(m ? m : 1, sizeof *e);
    kt_status rc = KT_S_OK;

    if (!median || !e) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < m; ++k)
        median[k] = timings[k].kernel.median;
    if (!le->nvml_ok)
        for (size_t k = 0; k < m; ++k)
            kt_energy_none(&e[k], "%s", le->nvml_note);
    else if ((rc = kt_energy_measure(&le->nvml, le->meter.stream, targets,
                                     median, m, p, e, err)) == KT_S_EXEC)
        le->lost = 1;
    else if (rc) {
        /* The timings stand; only the energy is lost. */
        for (size_t k = 0; k < m; ++k)
            kt_energy_none(&e[k], "the energy window failed: %s", err->msg);
        rc = KT_S_OK;
    }
    for (size_t k = 0; k < m && !rc; ++k)
        out[slot[k]].energy = e[k];
done:
    free(median);
    free(e);
    return rc;
}

/* The device setting a group of points is measured under, in force
 * before its first sample (nothing is called when it is in force
 * already). */
static kt_status setting_on(local_eval *le, const kt_nvml_setting *want,
                            kt_err *err)
{
    char what[128];

    if (kt_nvml_setting_equal(want, &le->keeper.in_force))
        return KT_S_OK;
    kt_nvml_setting_text(want, what, sizeof what);
    if (!le->nvml_ok)
        return kt_err_set(err, KT_S_INPUT,
                          "the job sets %s, and NVML does not answer here: %s",
                          what, le->nvml_note);
    return kt_nvml_apply(&le->keeper, want, err);
}

/* The call's time bar where the caller gave one per unit of work: the
 * largest its verified points' works give, so that no point is raced out
 * by another's bar; none when one of them has no such work. */
static double bar_of_work(const kt_protocol *p, const kt_eval_result *out,
                          const size_t *slot, size_t m)
{
    double bar = 0;

    for (size_t k = 0; k < m; ++k) {
        const kt_work *w = &out[slot[k]].work;
        double b = kt_protocol_bar_of_work(p, w->flops,
                                           w->bytes_read + w->bytes_written);
        if (!(b > 0))
            return 0;
        bar = b > bar ? b : bar;
    }
    return bar;
}

/* Measures the m verified targets, one group of device settings after
 * the other (kt_nvml_group); a group's timings and energy as one call's.
 * *refused = 1 when a group's setting could not be put in force. */
static kt_status measure_groups(local_eval *le, const kt_point *pts,
                                kt_target *targets, kt_timing *timings,
                                size_t *slot, const size_t *ends, size_t groups,
                                const kt_protocol *p, kt_eval_result *out,
                                int *refused, kt_err *err)
{
    kt_protocol q = *p;
    kt_status rc = KT_S_OK;

    if (q.race_bar_us_per_work > 0 && groups > 0)
        q.race_bar_us = bar_of_work(p, out, slot, ends[groups - 1]);
    /* Points under different settings cannot share a round: no race. */
    if (groups > 1)
        q.race = 0, q.race_pairs = 0;
    for (size_t g = 0, at = 0; g < groups && !rc; at = ends[g++]) {
        size_t len = ends[g] - at;
        if ((rc = setting_on(le, &pts[slot[at]].nvml, err))) {
            *refused = 1;
            break;
        }
        rc = kt_meter_measure(&le->meter, targets + at, len, &q, timings + at,
                              err);
        add_costs(&le->meter.costs, &out[0].phases);
        if (rc)
            break;
        for (size_t k = at; k < ends[g]; ++k)
            out[slot[k]].timing = timings[k];
        if (q.energy)
            rc = measure_energy(le, targets + at, timings + at, slot + at, len,
                                &q, out, err);
    }
    return rc;
}

/* v's compile costs into r, in the first result of its point only: a point
 * measured again compiled nothing, and sums over calls must hold. */
static void report_compile(verdict *v, kt_eval_result *r)
{
    if (v->reported)
        return;
    r->compile_s = v->compile.seconds;
    r->compiled = (uint32_t)v->compile.compiled;
    r->compile_cache_hits = (uint32_t)v->compile.cache_hits;
    r->compile_cpu_s = v->compile.cpu_seconds;
    r->compile_wait_s = v->compile_wait_s;
    r->compile_taken = v->taken;
    r->compile_took_queued = v->took_queued;
    r->compile_unhinted = v->unhinted;
    v->reported = 1;
}

/* The launch targets of the verified points pts[slot[0..m)], in the
 * groups' order. A point verified in this call (fresh, by index into pts)
 * has had its verification launch at the measured size; where the call
 * measures under the setting in force (one group, no change) that launch
 * was its first warm-up. */
static void set_targets(local_eval *le, const kt_point *pts,
                        const kt_eval_result *out, const size_t *slot, size_t m,
                        const int *fresh, size_t groups, launch_ctx *ctxs,
                        kt_target *targets)
{
    int unchanged =
        groups == 1 && m > 0 &&
        kt_nvml_setting_equal(&pts[slot[0]].nvml, &le->keeper.in_force);

    for (size_t k = 0; k < m; ++k) {
        ctxs[k] = (launch_ctx){.le = le, .point = &pts[slot[k]]};
        launch_prepare(&ctxs[k], &out[slot[k]].shape);
        targets[k].launch = ctx_launch;
        targets[k].reset =
            (le->spec.op->flags & KT_OP_MODIFIES_INPUTS) ? ctx_reset : NULL;
        targets[k].transfer = ctx_transfer;
        targets[k].ctx = &ctxs[k];
        targets[k].warm = fresh[slot[k]] && unchanged;
    }
}

static kt_status local_evaluate(kt_evaluator *ev, const kt_point *pts, size_t n,
                                const kt_protocol *p, kt_eval_result *out,
                                kt_err *err)
{
    local_eval *le = self(ev);
    kt_target *targets = calloc(n ? n : 1, sizeof *targets);
    launch_ctx *ctxs = calloc(n ? n : 1, sizeof *ctxs);
    kt_timing *timings = calloc(n ? n : 1, sizeof *timings);
    size_t *slot = calloc(n ? n : 1, sizeof *slot);
    size_t *ends = calloc(n ? n : 1, sizeof *ends);
    int *fresh = calloc(n ? n : 1, sizeof *fresh); /* pts[i] verified now */
    size_t m = 0, groups;
    int refused = 0;
    kt_status rc = KT_S_OK;

    memset(out, 0, n * sizeof *out);
    if (!targets || !ctxs || !timings || !slot || !ends || !fresh) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    if (le->lost) {
        rc = kt_err_set(err, KT_S_EXEC,
                        "the CUDA context was lost to an "
                        "earlier kernel fault; start a new process");
        goto done;
    }
    /* The whole call's kernels compile at once; each verification below
     * takes its own. */
    hint_points(le, pts, n);
    for (size_t i = 0; i < n; ++i) {
        size_t known = le->num_verdicts;
        verdict *v;
        if ((rc = verify_cached(le, &pts[i], &v, &out[i].phases, err))) {
            out[i].status = v ? v->status : KT_EVAL_ERROR;
            snprintf(out[i].reason, sizeof out[i].reason, "%s", err->msg);
            goto done;
        }
        out[i].status = v->status;
        out[i].shape = v->shape;
        report_compile(v, &out[i]);
        point_work(le, &pts[i], &out[i]);
        snprintf(out[i].reason, sizeof out[i].reason, "%s", v->reason);
        fresh[i] = le->num_verdicts > known;
        if (v->status == KT_EVAL_OK)
            slot[m++] = i;
    }
    /* Verified under whatever is in force; measured under each point's
     * own setting, one group after the other. */
    groups = kt_nvml_group(pts, slot, m, &le->keeper.in_force, ends);
    set_targets(le, pts, out, slot, m, fresh, groups, ctxs, targets);
    if (m == 0)
        goto done;
    rc = measure_groups(le, pts, targets, timings, slot, ends, groups, p, out,
                        &refused, err);
    if (rc == KT_S_EXEC)
        le->lost = 1;
    if (refused)
        goto done; /* NVML refused a setting: the job's error */
    if (rc) {
        /* A launch that verified cannot be refused later; any failure here
         * concerns the whole measurement. */
        for (size_t k = 0; k < m; ++k) {
            out[slot[k]].status = kt_eval_status_from(rc);
            snprintf(out[slot[k]].reason, sizeof out[slot[k]].reason,
                     "measuring: %s", err ? err->msg : "failed");
        }
        if (rc != KT_S_EXEC)
            rc = KT_S_OK;
        goto done;
    }
done:
    if (n)
        pool_since_last(le, &out[0]);
    free(targets);
    free(ctxs);
    free(timings);
    free(slot);
    free(ends);
    free(fresh);
    return rc;
}

static const kt_device *local_device(kt_evaluator *ev)
{
    return &self(ev)->gpu.dev;
}

static kt_status local_calibration(kt_evaluator *ev, int refresh,
                                   kt_calibration *out, kt_err *err)
{
    local_eval *le = self(ev);
    int from_cache;
    kt_err eerr;
    kt_status rc = kt_calib_get(&le->meter, refresh, out, &from_cache, err);

    /* The device's best energy per byte and per flop, once per cache
     * file, where NVML answers; without it the ceilings stand alone. */
    if (rc || !le->nvml_ok || kt_nvml_choices_any(&le->spec.nvml) ||
        (out->copy_j_per_byte > 0 && out->fma_j_per_flop > 0))
        return rc;
    kt_err_clear(&eerr);
    if ((rc = kt_calib_energy(&le->meter, &le->nvml, out, &eerr)) == KT_S_EXEC)
        le->lost = 1;
    if (rc == KT_S_EXEC || rc == KT_S_NOMEM)
        return kt_err_set(err, rc, "%s", eerr.msg);
    if (rc)
        kt_msg("note: the device's energy per byte and per flop were not "
               "measured: %s\n",
               eerr.msg);
    return KT_S_OK;
}

/* The compile settings: the pool's threads, whether the operator's
 * kernels compile at run time (a declaration's, through the pool; a
 * compiled plugin's never do), the cache folder ("" off), the NVRTC helper
 * its compiles run in ("": the threads themselves) and whether NVRTC's own
 * cache was switched off (engine/nvrtc_code.h). */
static json_t *compile_record(local_eval *le)
{
    kt_cpool_stats st;
    char dir[4096];
    kt_cpool_stats_get(le->pool, &st);
    kt_nvrtc_cache_dir(dir, sizeof dir);
    return json_pack("{s:i,s:i,s:b,s:s,s:s,s:b}", "threads", st.threads,
                     "requested", le->spec.compile_threads, "run_time",
                     kt_declared_of_plugin(le->spec.plugin) != NULL, "cache",
                     dir, "helper", le->helper, "nvrtc_cache_off",
                     kt_nvrtc_no_cache_option() != NULL);
}

static json_t *local_environment(kt_evaluator *ev)
{
    local_eval *le = self(ev);
    /* The power limit and clocks in force when the evaluator opened (0
     * where NVML refused the read): what the energy figures ran under. */
    return json_pack(
        "{s:o,s:o,s:{s:f,s:f,s:f},s:o,s:{s:b,s:s,s:s,s:f,s:f,s:f}}", "device",
        kt_env_device(&le->gpu), "plugin", kt_env_plugin(le->spec.plugin),
        "start", "device_s", le->device_s, "meter_s", le->meter_s, "problem_s",
        le->problem_s, "compile", compile_record(le), "energy", "available",
        le->nvml_ok, "library", kt_nvml_library(), "note", le->nvml_note,
        "power_limit_w", le->nvml_limit_w, "sm_clock_mhz", le->nvml_sm_mhz,
        "mem_clock_mhz", le->nvml_mem_mhz);
}

/* NVML for the energy window, when it answers here; the note otherwise
 * (printed once per process). */
static void open_nvml(local_eval *le)
{
    kt_err nerr;

    kt_err_clear(&nerr);
    le->nvml_ok = kt_nvml_open(le->gpu.pci_bus_id, &le->nvml, &nerr) == KT_S_OK;
    if (!le->nvml_ok) {
        snprintf(le->nvml_note, sizeof le->nvml_note, "%s", nerr.msg);
        kt_nvml_note_once(nerr.msg);
        return;
    }
    /* Reported figures; a refused read leaves 0. */
    if (kt_nvml_power_limit_w(&le->nvml, &le->nvml_limit_w, &nerr))
        le->nvml_limit_w = 0;
    if (kt_nvml_clock_mhz(&le->nvml, KT_NVML_CLOCK_SM, &le->nvml_sm_mhz, &nerr))
        le->nvml_sm_mhz = 0;
    if (kt_nvml_clock_mhz(&le->nvml, KT_NVML_CLOCK_MEM, &le->nvml_mem_mhz,
                          &nerr))
        le->nvml_mem_mhz = 0;
}

/* The device settings at open: what a killed earlier run left changed is
 * put back first; a job that sets some has them set and restored at once,
 * so a refusal stops it before anything is measured. Reads only, and
 * changes nothing, when neither applies (the default). */
static kt_status open_settings(local_eval *le, kt_err *err)
{
    char what[2048];

    kt_nvml_restore_path(le->spec.device, le->restore_path,
                         sizeof le->restore_path);
    kt_nvml_keeper_init(&le->keeper, &le->nvml, &le->spec.nvml,
                        le->restore_path);
    kt_nvml_recover(le->restore_path, "an earlier ktune run (killed)");
    if (!kt_nvml_choices_any(&le->spec.nvml))
        return KT_S_OK;
    kt_nvml_choices_text(&le->spec.nvml, what, sizeof what);
    if (!le->nvml_ok)
        return kt_err_set(err, KT_S_INPUT,
                          "the job sets %s, and NVML does not answer here: %s",
                          what, le->nvml_note);
    return kt_nvml_check_choices(&le->nvml, &le->spec.nvml, le->restore_path,
                                 err);
}

static const kt_work *local_work(kt_evaluator *ev)
{
    return &self(ev)->inst.work;
}

static void local_close(kt_evaluator *ev)
{
    local_eval *le = self(ev);
    kt_err rerr;

    if (!le)
        return;
    /* The device's own settings back after the last point; a file left
     * after that is one that could not be restored (said so here). */
    kt_err_clear(&rerr);
    if (kt_nvml_keeper_end(&le->keeper, &rerr))
        kt_msg("warning: %s\n", rerr.msg);
    kt_nvml_recover(le->restore_path, "a measurement");
    kt_verifier_close(&le->verifier, le->lost);
    if (!le->lost)
        kt_instance_teardown(&le->inst);
    kt_meter_close(&le->meter);
    kt_cpool_close(le->pool); /* drops compilations nobody will take */
    kt_chints_free(&le->hints);
    free(le->verdicts);
    free(le);
}

/* A profiled pass: the same state before every launch (inputs restored
 * when the kernels write them, L2 empty and clean as Nsight Compute leaves
 * it), nothing else inside the range. */
static kt_status profile_prepare(void *ctx, kt_err *err)
{
    launch_ctx *c = ctx;
    kt_status rc;

    if (((c->le->spec.op->flags & KT_OP_MODIFIES_INPUTS) &&
         (rc = kt_instance_reset(&c->le->inst, err))) ||
        (rc = kt_meter_flush_l2_clean(&c->le->meter, err)))
        return rc;
    return kt_cuda_status(cudaStreamSynchronize(c->le->meter.stream),
                          "synchronising before a profiled launch", err);
}

/* The flush after the profiler's start (kt_counter_target.flush): clean
 * (the default), the write of the flush buffer and the discard of its
 * lines (two kernels), leaving the L2 empty as Nsight Compute's cache
 * control does; or, with req->sweep_flush, a read of twice the L2 (one
 * kernel), which leaves it full of clean lines of the flush buffer and,
 * with the L2's hashed sets, a few lines of earlier work. */
/* What profile_flush launches (kt_counter_target.flush_kernels). */
static int profile_flush_kernels(const launch_ctx *c)
{
    return c->clean_flush ? KT_METER_FLUSH_L2_CLEAN_KERNELS
                          : KT_METER_FLUSH_L2_KERNELS;
}

static kt_status profile_flush(void *ctx, kt_err *err)
{
    launch_ctx *c = ctx;
    kt_status rc = c->clean_flush ? kt_meter_flush_l2_clean(&c->le->meter, err)
                                  : kt_meter_flush_l2(&c->le->meter, err);

    if (rc)
        return rc;
    return kt_cuda_status(cudaStreamSynchronize(c->le->meter.stream),
                          "synchronising after the profiled flush", err);
}

static kt_status profile_launch(void *ctx, kt_err *err)
{
    launch_ctx *c = ctx;
    return kt_instance_launch(&c->le->inst, c->point->variant, c->cfg,
                              &c->shape, c->le->meter.stream, err);
}

static kt_status profile_wait(void *ctx, kt_err *err)
{
    launch_ctx *c = ctx;
    kt_status rc = kt_cuda_status(cudaStreamSynchronize(c->le->meter.stream),
                                  "running the profiled launch", err);
    if (rc == KT_S_EXEC)
        c->le->lost = 1;
    return rc;
}

static kt_status kernel_info(local_eval *le, const kt_shape *shape,
                             kt_kernel_info *out, kt_err *err)
{
    struct cudaFuncAttributes fa;
    kt_status rc;

    memset(out, 0, sizeof *out);
    out->block_threads =
        (int)(shape->block[0] * shape->block[1] * shape->block[2]);
    out->dynamic_smem_bytes = shape->dynamic_smem_bytes;
    if (!shape->kernel)
        return KT_S_OK;
    memset(&fa, 0, sizeof fa);
    if ((rc = KT_CUDA_TRY(cudaFuncGetAttributes(&fa, shape->kernel), err)) ||
        (rc = KT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                              &out->api_blocks_per_sm, shape->kernel,
                              out->block_threads, shape->dynamic_smem_bytes),
                          err)) ||
        (rc = KT_CUDA_TRY(
             cudaDeviceGetAttribute(&out->reserved_smem_per_block,
                                    cudaDevAttrReservedSharedMemoryPerBlock,
                                    le->gpu.ordinal),
             err)))
        return rc;
    out->available = 1;
    out->num_regs = fa.numRegs;
    out->max_threads_per_block = fa.maxThreadsPerBlock;
    out->ptx_version = fa.ptxVersion;
    out->binary_version = fa.binaryVersion;
    out->static_smem_bytes = fa.sharedSizeBytes;
    out->max_dynamic_smem_bytes = (size_t)fa.maxDynamicSharedSizeBytes;
    out->local_bytes_per_thread = fa.localSizeBytes;
    out->const_bytes = fa.constSizeBytes;
    return KT_S_OK;
}

/* The verified shape, with the kernel the variant names once it ran when
 * shape() could not (a kernel compiled at run time). */
static const kt_shape *profiled_shape(local_eval *le, const kt_point *pt,
                                      const kt_shape *verified, kt_shape *out)
{
    const kt_variant *v = &le->spec.op->variants[pt->variant];
    kt_bound_config bc;

    *out = *verified;
    if (!out->kernel && v->kernel_of)
        out->kernel =
            v->kernel_of(le->inst.state, kt_point_bind(le->spec.op, pt, &bc));
    return out;
}

/* Launches per pass: as asked, but one for an operator that modifies its
 * inputs (their restore would run inside the pass). */
static int profile_launches(const local_eval *le, const kt_profile_request *req)
{
    if (le->spec.op->flags & KT_OP_MODIFIES_INPUTS)
        return 1;
    if (req->launches < 1)
        return KT_PROFILE_DEFAULT_LAUNCHES;
    return req->launches < KT_PROFILE_MAX_LAUNCHES ? req->launches
                                                   : KT_PROFILE_MAX_LAUNCHES;
}

static kt_status local_profile(kt_evaluator *ev, const kt_point *pt,
                               const kt_profile_request *req,
                               kt_profile_result *out, kt_err *err)
{
    local_eval *le = self(ev);
    const kt_counter_source *src = le->spec.counters;
    launch_ctx ctx = {.le = le, .point = pt, .clean_flush = !req->sweep_flush};
    kt_counter_target target = {le->gpu.ordinal,
                                profile_prepare,
                                profile_flush,
                                profile_launch,
                                profile_wait,
                                &ctx,
                                profile_launches(le, req),
                                profile_flush_kernels(&ctx)};
    verdict *v = NULL;
    kt_shape shape;
    kt_err cerr;
    kt_status rc;

    memset(out, 0, sizeof *out);
    out->counters = KT_S_UNSUPPORTED;
    kt_err_clear(&cerr);
    if (le->lost)
        return kt_err_set(err, KT_S_EXEC,
                          "the CUDA context was lost to an "
                          "earlier kernel fault; start a new process");
    if (req->num_metrics && !src)
        snprintf(out->note, sizeof out->note,
                 "no counter source in this evaluator");
    if (req->check_only) {
        if (!src || !req->num_metrics)
            return KT_S_OK;
        rc = src->check(src, le->gpu.ordinal, req->metrics, req->num_metrics,
                        &cerr);
        if (rc == KT_S_INPUT)
            return kt_err_set(err, rc, "%s", cerr.msg);
        out->counters = rc;
        snprintf(out->note, sizeof out->note, "%s", rc ? cerr.msg : "");
        return KT_S_OK;
    }
    if ((rc = verify_cached(le, pt, &v, NULL, err)))
        return rc;
    out->status = v->status;
    out->shape = v->shape;
    snprintf(out->reason, sizeof out->reason, "%s", v->reason);
    if (v->status != KT_EVAL_OK)
        return KT_S_OK;
    launch_prepare(&ctx, &v->shape);
    /* Attributes are a report's extra: a kernel pointer the runtime does not
     * know leaves them out (and its error must not be taken for the next
     * launch's), only a lost context stops the profile. */
    if ((rc = kernel_info(le, profiled_shape(le, pt, &v->shape, &shape),
                          &out->kernel, &cerr))) {
        if (rc == KT_S_EXEC) {
            le->lost = 1;
            return kt_err_set(err, rc, "%s", cerr.msg);
        }
        (void)cudaGetLastError();
        memset(&out->kernel, 0, sizeof out->kernel);
        kt_msg("warning: no kernel attributes: %s\n", cerr.msg);
    }
    if (!src || !req->num_metrics)
        return KT_S_OK;
    out->values = calloc(req->num_metrics, sizeof *out->values);
    if (!out->values)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    out->num_values = req->num_metrics;
    /* One unprofiled launch first: a freshly loaded module does extra work
     * on its first launch, which must not land in a counted range. */
    if (!(rc = profile_prepare(&ctx, &cerr)) &&
        !(rc = profile_launch(&ctx, &cerr)) &&
        !(rc = profile_wait(&ctx, &cerr)))
        rc = src->collect(src, &target, req->metrics, req->num_metrics,
                          out->values, &out->stats, &cerr);
    out->counters = rc;
    snprintf(out->note, sizeof out->note, "%s", rc ? cerr.msg : "");
    if (rc)
        kt_profile_result_free(out);
    if (rc == KT_S_EXEC)
        le->lost = 1;
    if (rc == KT_S_EXEC || rc == KT_S_INPUT)
        return kt_err_set(err, rc, "%s", cerr.msg);
    return KT_S_OK;
}

static const kt_evaluator_ops local_ops = {
    "local",           local_evaluate,    local_device,
    local_calibration, local_environment, local_work,
    local_close,       local_profile,     NULL,
    local_prefetch,
};

/* The compile pool of this evaluator's kernels, threads as the spec says;
 * every instance's services find it through the device (kt_gpu). */
static kt_status open_pool(local_eval *le, kt_err *err)
{
    kt_cpool_options opt = {
        le->spec.compile_threads, NULL, NULL, NULL, NULL, NULL};
    kt_status rc = KT_S_OK;
    char arch[32];

    /* NVRTC in helper processes where the helper is installed: in threads
     * of this one it does not scale (engine/nvrtc_procs.h). */
    if (kt_nvrtc_procs_helper(le->helper, sizeof le->helper))
        rc = kt_nvrtc_procs_open(kt_cpool_threads_for(opt.threads), le->helper,
                                 &opt.procs, err);
    else
        le->helper[0] = '\0';
    if (!rc && (rc = kt_cpool_open(&opt, &le->pool, err)))
        kt_nvrtc_procs_close(opt.procs);
    le->gpu.compile_pool = le->pool;
    kt_nvrtc_arch(le->gpu.dev.cc_major, le->gpu.dev.cc_minor, arch,
                  sizeof arch);
    kt_chints_init(&le->hints, le->spec.plugin, le->spec.sizes, arch);
    return rc;
}

kt_status kt_local_open(const kt_eval_spec *spec, kt_evaluator **out,
                        kt_err *err)
{
    local_eval *le = calloc(1, sizeof *le);
    double t0;
    kt_status rc;

    *out = NULL;
    if (!le)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    le->base.ops = &local_ops;
    le->spec = *spec;
    t0 = kt_clock_seconds();
    if ((rc = kt_gpu_open(spec->device, &le->gpu, err)) ||
        (rc = kt_plugin_check_arch(
             spec->plugin->path, spec->plugin->desc.cuda_archs,
             le->gpu.dev.cc_major, le->gpu.dev.cc_minor, err)))
        goto fail;
    if (spec->plugin->desc.cuda_runtime_version / 1000 >
        le->gpu.runtime_version / 1000)
        kt_msg("warning: %s was built with CUDA runtime %d, "
               "newer than the loaded runtime %d\n",
               spec->plugin->path, spec->plugin->desc.cuda_runtime_version,
               le->gpu.runtime_version);
    kt_verifier_init(&le->verifier, &le->gpu, spec->seed, spec->log_level,
                     spec->verify_host);
    open_nvml(le);
    if ((rc = open_settings(le, err)))
        goto fail;
    le->device_s = kt_clock_seconds() - t0;
    if ((rc = open_pool(le, err)))
        goto fail;
    t0 = kt_clock_seconds();
    if ((rc = kt_meter_open(&le->meter, &le->gpu, err)))
        goto fail;
    le->meter_s = kt_clock_seconds() - t0;
    t0 = kt_clock_seconds();
    if ((rc = kt_instance_setup(&le->inst, spec->plugin, spec->op, &le->gpu,
                                spec->sizes, spec->seed, spec->log_level,
                                spec->verify_host, err)))
        goto fail;
    le->problem_s = kt_clock_seconds() - t0;
    *out = &le->base;
    return KT_S_OK;
fail:
    kt_meter_close(&le->meter);
    kt_cpool_close(le->pool);
    kt_chints_free(&le->hints);
    free(le);
    return rc;
}
