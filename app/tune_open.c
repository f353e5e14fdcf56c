// SPDX-License-Identifier: Apache-2.0
/* ktune tune: what measures a run — the evaluator (a worker process, this
 * process, or a recording), a worker per further GPU, MPI ranks — and the
 * files of each size of a sweep. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/tune_impl.h"
#ifdef KT_HAVE_MPI
#include "app/mpi.h"
#endif
#include "core/clock.h"
#include "core/envrec.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/runctx.h"
#include "core/sizes.h"
#include "isolation/worker.h"
#include "metrics/cupti/counters.h"
#include "records/recording.h"
#include "tuner/job_print.h"
#include "tuner/sweep.h"
#include "tuner/tune_journal.h"

/* dst: base, or base with the current size's tag in a sweep. */
void kt_tune_app_size_path(const tune_run *t, const char *base, char *dst)
{
    /* "-" stays stdout: every size's document goes there in turn. */
    if (!base[0] || t->num_sizes == 1 || kt_out_is_stdout(base))
        snprintf(dst, PATH_MAX, "%s", base);
    else
        kt_sweep_path(base, t->job.op, t->job.sizes, dst, PATH_MAX);
}

/* The file names of the job's current size (a recording's sizes are known
 * once it is open). */
static void name_outputs(tune_run *t)
{
    kt_tune_app_size_path(t, t->base_journal, t->job.journal);
    kt_tune_app_size_path(t, t->base_json, t->job.json);
    kt_tune_app_size_path(t, t->base_csv, t->job.csv);
    kt_tune_app_size_path(t, t->base_t4, t->job.t4);
    if (t->number_journals)
        kt_job_next_free_journal(&t->job);
}

/* A resumed sweep continues each size's journal; a size the stopped run
 * never reached has none yet and starts one. */
static int resumes(const tune_args *a, const tune_run *t)
{
    if (!a->resume)
        return 0;
    if (t->num_sizes > 1 && access(t->job.journal, F_OK) != 0) {
        kt_msg("--resume: no journal %s yet: starting it\n", t->job.journal);
        return 0;
    }
    return 1;
}

/* Adds to a no-device error one command that shows a tuning run without a
 * GPU: this job replayed from a recording shipped with ktune. */
static void no_device_hint(const tune_args *a, const kt_job *job, kt_err *err)
{
    char msg[sizeof err->msg], prefer[32], rec[PATH_MAX + 64];
    char qrec[2 * sizeof rec], qcfg[2 * PATH_MAX];
    const char *name = job->plugin->desc.name;

    snprintf(msg, sizeof msg, "%s", err->msg);
    snprintf(prefer, sizeof prefer, "-n%lld.", (long long)job->sizes[0]);
    if (!kt_cli_recording(name, prefer, rec, sizeof rec)) {
        kt_err_set(err, KT_S_NO_DEVICE,
                   "%s; no recording of %s ships with ktune to replay (record "
                   "one on a GPU host: ktune tune CONFIG --journal FILE)",
                   msg, name);
        return;
    }
    kt_cli_shell_quote(rec, qrec, sizeof qrec);
    kt_cli_shell_quote(kt_tune_app_named(a), qcfg, sizeof qcfg);
    kt_err_set(err, KT_S_NO_DEVICE,
               "%s; to watch a recorded tuning run instead: ktune tune %s "
               "--replay %s",
               msg, qcfg, qrec);
}

static kt_status open_evaluator(const tune_args *a, kt_job *job,
                                const kt_profiling_spec *prof,
                                kt_evaluator **ev, kt_err *err)
{
    kt_worker_options wopt = {kt_run_program(), 0, 0};
    kt_eval_spec spec;
    kt_status rc;

    if (a->o.replay) {
        kt_replay_options opt = {.delay_s = a->replay_delay};
        /* Simulated workers wait what the recording took (scaled). */
        opt.simulate = a->time_scale >= 0 ? a->time_scale : a->workers ? 1 : 0;
        return kt_recording_open(a->o.replay, job->plugin, job->op, &opt, ev,
                                 err);
    }
    memset(&spec, 0, sizeof spec);
    spec.plugin = job->plugin;
    spec.op = job->op;
    memcpy(spec.sizes, job->sizes, sizeof spec.sizes);
    spec.seed = job->input_seed;
    spec.device = job->device;
    spec.check_boundaries = job->boundaries;
    spec.log_level = KT_LOG_WARN;
    spec.verify_host = job->verify_host;
    spec.compile_threads = job->compile_threads;
    spec.nvml = job->space.nvml; /* checked at open (core/nvml_set.h) */
    spec.settings = a->settings;
    /* CUPTI only when [metrics] asks for counters. */
    spec.counters =
        kt_profiling_wants_counters(prof) ? kt_metrics_cupti_source() : NULL;
    wopt.eval_timeout_s = job->eval_timeout_s;
    rc = a->o.in_process ? kt_local_open(&spec, ev, err)
                         : kt_worker_open(&spec, &wopt, ev, err);
    if (rc == KT_S_NO_DEVICE)
        no_device_hint(a, job, err);
    return rc;
}

/* In replay the problem is the recording's: say so when the job's differs.
 */
static void take_recorded_problem(kt_job *job, kt_evaluator *ev,
                                  const char *recording)
{
    const int64_t *rec;
    char want[256], got[256];
    int differ = 0;

    /* Another tool's recording is its own operator at its own problem. */
    if (!(rec = kt_recording_sizes(ev)))
        return;

    for (uint32_t i = 0; i < job->op->num_sizes; ++i)
        differ |= rec[i] != job->sizes[i];
    if (differ) {
        kt_format_sizes(job->op, job->sizes, want, sizeof want);
        kt_format_sizes(job->op, rec, got, sizeof got);
        kt_msg("replay: %s is recorded at %s; the job's %s does not "
               "apply\n",
               recording, got, want);
    }
    memcpy(job->sizes, rec, job->op->num_sizes * sizeof *rec);
    job->input_seed = kt_recording_seed(ev);
}

/* --check --replay: the points feasible on the recording's device, at
 * its problem, as the run will count them (no GPU: the device record is
 * the recording's). */
int kt_tune_app_print_recorded_device_check(const tune_args *a, kt_job *job)
{
    kt_evaluator *ev = NULL;
    const kt_device *dev;
    char sizes[256];
    uint64_t n = 0;
    kt_err err;

    if (open_evaluator(a, job, &job->metrics, &ev, &err))
        return kt_cli_fail(&err);
    take_recorded_problem(job, ev, a->o.replay);
    dev = ev->ops->device(ev);
    kt_space_bind(&job->space, job->sizes, job->input_seed, dev);
    kt_format_sizes(job->op, job->sizes, sizes, sizeof sizes);
    if (kt_space_count_feasible(&job->space, UINT64_C(1) << 24, &n, &err))
        fprintf(kt_stdout(),
                "feasible on %s (the recording's device record) at %s: not "
                "counted: %s\n",
                dev->name ? dev->name : "?", sizes, err.msg);
    else
        fprintf(kt_stdout(),
                "feasible on %s (the recording's device record) at %s: %llu "
                "point(s)\n",
                dev->name ? dev->name : "?", sizes, (unsigned long long)n);
    ev->ops->close(ev);
    return KT_EXIT_OK;
}

/* Checks the counter names against the device before anything is
 * measured; counters that cannot be had here are one line, and the run
 * goes on without them (*unavailable says why). */
static kt_status check_counters(kt_evaluator *ev, const kt_job *job,
                                const kt_profiling_spec *prof, char *why,
                                size_t why_size, const char **unavailable,
                                kt_err *err)
{
    int available;
    kt_point any;
    kt_status rc;

    *unavailable = NULL;
    if (!kt_profiling_wants_counters(prof))
        return KT_S_OK;
    kt_space_start(&job->space, &any);
    rc = kt_profiling_check(ev, prof, &any, &available, why, why_size, err);
    if (rc == KT_S_INPUT)
        return kt_err_prefix(err, "%s: ", job->metrics_where);
    if (rc)
        return rc;
    if (!available) {
        kt_msg("no hardware counters: %s; continuing without "
               "counters\n",
               why);
        *unavailable = why;
    }
    return KT_S_OK;
}

/* The environment record of a worker: its device and plugin, the host,
 * the protocol and its calibration (NULL: none). */
static json_t *environment_of(const kt_job *job, kt_evaluator *ev,
                              const kt_calibration *calib)
{
    json_t *env = ev->ops->environment(ev);
    kt_cli_env_host(env);
    json_object_set_new(env, "protocol", kt_env_protocol(&job->protocol));
    if (calib)
        json_object_set_new(env, "calibration", kt_calib_to_json(calib));
    return env;
}

/* One worker process on GPU `device`, calibrated, its environment record
 * kept for the journal. */
static kt_status open_gpu_worker(const tune_args *a, tune_run *t, size_t k,
                                 int device, kt_err *err)
{
    kt_job *job = &t->job;
    kt_calibration calib;
    int own = job->device;
    kt_status rc;

    job->device = device;
    rc = open_evaluator(a, job, &job->metrics, &t->workers.evs[k], err);
    job->device = own;
    if (rc)
        return kt_err_prefix(err, "GPU %d: ", device);
    t->workers.owned[k] = 1;
    t->workers.records[k] = environment_of(
        job, t->workers.evs[k],
        kt_cli_calibration(t->workers.evs[k], &calib, 1) ? &calib : NULL);
    return KT_S_OK;
}

/* Under --mpi, rank 0's workers: its own evaluator, then every other
 * rank's, each with the environment record the rank made. */
static kt_status open_ranks(const tune_args *a, tune_run *t, kt_err *err)
{
#ifdef KT_HAVE_MPI
    const char *labels[KT_JOB_MAX_DEVICES];
    char names[KT_JOB_MAX_DEVICES][32];
    double eval_s = t->job.eval_timeout_s > 0 ? t->job.eval_timeout_s : 60;
    size_t n = (size_t)a->ranks;
    kt_status rc;

    if (n > KT_JOB_MAX_DEVICES)
        return kt_err_set(err, KT_S_INPUT, "--mpi: %zu ranks, at most %d", n,
                          KT_JOB_MAX_DEVICES);
    if ((rc = kt_cli_workers_init(&t->workers, t->ev, n, err)))
        return rc;
    for (size_t r = 0; r < n; ++r) {
        snprintf(names[r], sizeof names[r], "rank %zu", r);
        labels[r] = names[r];
        if (r && (rc = kt_mpi_remote_open((int)r, t->job.op, 600, eval_s,
                                          &t->workers.evs[r],
                                          &t->workers.records[r], err)))
            return rc;
        t->workers.owned[r] = r > 0;
    }
    return kt_cli_workers_same_model(&t->workers, labels, err);
#else
    (void)a;
    (void)t;
    return kt_err_set(err, KT_S_UNSUPPORTED, "--mpi: built without MPI");
#endif
}

/* The run's workers after its own evaluator: simulated ones sharing the
 * replay (--workers), or one worker process per further GPU of the job's
 * devices, all of the first one's model. */
static kt_status open_workers(const tune_args *a, tune_run *t, kt_err *err)
{
    kt_job *job = &t->job;
    size_t n = a->o.replay ? (a->workers ? a->workers : 1)
                           : (job->num_devices ? job->num_devices : 1);
    const char *labels[KT_JOB_MAX_DEVICES];
    char names[KT_JOB_MAX_DEVICES][32];
    kt_status rc;

    if (a->mpi)
        return open_ranks(a, t, err);
    if (n > 1 && !a->o.replay && a->o.in_process)
        return kt_err_set(err, KT_S_INPUT,
                          "[job] devices: %zu GPUs need a worker process "
                          "each; drop --in-process",
                          n);
    if ((rc = kt_cli_workers_init(&t->workers, t->ev, n, err)) || n == 1)
        return rc;
    for (size_t k = 0; k < n; ++k) {
        snprintf(names[k], sizeof names[k], "GPU %d",
                 job->num_devices ? job->devices[k] : job->device);
        labels[k] = names[k];
        if (k && a->o.replay)
            t->workers.evs[k] = t->ev; /* a replay serves threads at once */
        else if (k && (rc = open_gpu_worker(a, t, k, job->devices[k], err)))
            return rc;
    }
    return a->o.replay ? KT_S_OK
                       : kt_cli_workers_same_model(&t->workers, labels, err);
}

/* --devices all: every GPU of the host, counted without CUDA here. */
static kt_status resolve_devices(kt_job *job, kt_err *err)
{
    int count;
    kt_status rc;

    if (!job->all_devices)
        return KT_S_OK;
    if ((rc = kt_cli_gpu_count(&count, err)))
        return rc;
    job->all_devices = 0;
    job->num_devices =
        (size_t)count < KT_JOB_MAX_DEVICES ? (size_t)count : KT_JOB_MAX_DEVICES;
    for (size_t i = 0; i < job->num_devices; ++i)
        job->devices[i] = (int)i;
    job->device = 0;
    return KT_S_OK;
}

#ifdef KT_HAVE_MPI
/* Ranks > 0 of --mpi: the rank's own evaluator (its host's GPU number
 * local_rank among the job's devices, or the recording), calibrated, then
 * rank 0's requests until it closes. An exit code. */
static int serve_rank(tune_args *a, tune_run *t)
{
    kt_job *job = &t->job;
    kt_calibration calib;
    json_t *env = NULL;
    kt_err err;
    int count = 1, code;

    kt_err_clear(&err);
    if (!a->o.replay && !job->num_devices && !job->all_devices &&
        kt_cli_gpu_count(&count, &err) == KT_S_OK)
        job->device = a->local_rank % count;
    else if (!a->o.replay && !resolve_devices(job, &err) && job->num_devices)
        job->device = job->devices[(size_t)a->local_rank % job->num_devices];
    if (open_evaluator(a, job, &job->metrics, &t->ev, &err) == KT_S_OK) {
        if (a->o.replay)
            take_recorded_problem(job, t->ev, a->o.replay);
        env = environment_of(
            job, t->ev,
            kt_cli_calibration(t->ev, &calib, !a->o.replay) ? &calib : NULL);
    }
    code = kt_mpi_serve(t->ev, job->op, env, err.msg);
    if (!t->ev)
        kt_msg("rank %d: %s\n", a->rank, err.msg);
    return code;
}
#endif

/* Under --mpi: MPI is up, and a rank other than 0 has served (*done set,
 * the exit code returned). */
int kt_tune_app_start_mpi(tune_args *a, tune_run *t, int *done)
{
    *done = 0;
    if (!a->mpi)
        return KT_EXIT_OK;
#ifdef KT_HAVE_MPI
    {
        kt_err err;
        int code;
        if (kt_mpi_init(&a->rank, &a->ranks, &a->local_rank, &err))
            return kt_cli_fail(&err);
        if (t->job.num_sweep > 1 || a->replays.count > 1) {
            if (a->rank == 0)
                kt_cli_usage_error("tune", "--mpi tunes one size at a time");
            *done = 1;
            kt_mpi_finish(0, KT_EXIT_USAGE);
            return KT_EXIT_USAGE;
        }
        if (a->rank == 0)
            return KT_EXIT_OK;
        *done = 1;
        a->quiet = 1;
        code = serve_rank(a, t);
        kt_tune_app_close_size(t);
        kt_mpi_finish(0, code);
        return code;
    }
#else
    (void)t;
    return KT_EXIT_USAGE;
#endif
}

/* --check of a job that lists device settings (nvml_gr_clock, ...): the
 * evaluator opens, which checks every listed value (supported, then set
 * and restored at once), so a refusal is found here, exit 2, naming the
 * value and the NVML call. Nothing opens otherwise. */
int kt_tune_app_check_device_settings(const tune_args *a, kt_job *job)
{
    kt_evaluator *ev = NULL;
    char what[2048];
    kt_err err;

    if (!kt_nvml_choices_any(&job->space.nvml) || a->o.replay)
        return KT_EXIT_OK;
    kt_nvml_choices_text(&job->space.nvml, what, sizeof what);
    kt_err_clear(&err);
    if (resolve_devices(job, &err) ||
        open_evaluator(a, job, &job->metrics, &ev, &err))
        return kt_cli_fail(&err);
    ev->ops->close(ev);
    fprintf(kt_stdout(),
            "device settings %s: each value supported, set and restored on "
            "device %d\n",
            what, job->device);
    return KT_EXIT_OK;
}

/* The evaluator lets go of the device once the run is done (a worker
 * ends), timed: the summary's time then holds all of it. */
double kt_tune_app_release_device(kt_evaluator *ev)
{
    double t0 = kt_clock_seconds();

    if (ev && ev->ops->release)
        ev->ops->release(ev);
    return kt_clock_seconds() - t0;
}

/* Frees what belongs to one size; the job and the calibration stay. */
void kt_tune_app_close_size(tune_run *t)
{
    for (size_t i = 0; i < t->result.num_workers; ++i)
        t->retired |= t->result.worker_stats[i].retired;
    kt_tune_result_free(&t->result);
    memset(&t->result, 0, sizeof t->result);
    if (t->journal.fd >= 0)
        kt_journal_close(&t->journal);
    t->journal.fd = -1;
    if (t->have_log)
        kt_journal_log_free(&t->log);
    t->have_log = 0;
    json_decref(t->env);
    t->env = NULL;
    kt_cli_workers_free(&t->workers);
    if (t->ev)
        t->ev->ops->close(t->ev);
    t->ev = NULL;
}

/* Rank 0 of --mpi, after the run: the other ranks were closed and MPI is
 * finalised, or, when a rank was retired or the run failed, the job is
 * ended with the run's exit code (MPI cannot wait for a silent rank). */
void kt_tune_app_finish_mpi(const tune_args *a, const tune_run *t, int rc)
{
    if (!a->mpi)
        return;
#ifdef KT_HAVE_MPI
    kt_mpi_finish(rc != KT_EXIT_OK || t->retired, rc);
#else
    (void)t;
    (void)rc;
#endif
}

/* The evaluator, the counters check, the problem, the environment record
 * and the journal of the current size. */
kt_status kt_tune_app_open_run(const tune_args *a, tune_run *t, kt_err *err)
{
    kt_job *job = &t->job;
    kt_status rc;

    if ((!a->o.replay && (rc = resolve_devices(job, err))) ||
        (rc = open_evaluator(a, job, &job->metrics, &t->ev, err)) ||
        (rc = check_counters(t->ev, job, &job->metrics, t->why, sizeof t->why,
                             &t->unavailable, err)))
        return rc;
    if (a->o.replay)
        take_recorded_problem(job, t->ev, a->o.replay);
    name_outputs(t);
    kt_space_bind(&job->space, job->sizes, job->input_seed,
                  t->ev->ops->device(t->ev));
    t->open_s = kt_clock_seconds() - t->size_started;
    t->calib_s = 0;
    if (!t->calib_tried) {
        double t_calib = kt_clock_seconds();
        t->have_calib = kt_cli_calibration(t->ev, &t->calib, !a->o.replay);
        t->calib_s = kt_clock_seconds() - t_calib;
    }
    t->calib_tried = 1;
    t->env = environment_of(job, t->ev, t->have_calib ? &t->calib : NULL);
    if ((rc = open_workers(a, t, err)))
        return rc;
    if (job->journal_mode != KT_JOB_JOURNAL_NONE &&
        (rc = kt_tune_journal_open(resumes(a, t), job, t->env, &t->journal,
                                   &t->log, &t->have_log, err)))
        return rc;
    return kt_cli_workers_journal(&t->workers,
                                  t->journal.fd >= 0 ? &t->journal : NULL, err);
}

/* --check: the job described on stdout; with --json FILE the counts also
 * as a document (tuner/job_print.h), for programs (libktune's
 * ktune_check) that would otherwise read the text. */
int kt_tune_app_check(const tune_args *a, kt_job *job)
{
    json_t *doc = NULL;
    kt_err err;

    kt_job_print_check(kt_stdout(), job, a->o.json ? &doc : NULL);
    if (a->o.json && (!doc || kt_out_json(doc, a->o.json) != 0)) {
        kt_err_set(&err, doc ? KT_S_IO : KT_S_NOMEM, "--json %s: %s", a->o.json,
                   doc ? strerror(errno) : "out of memory");
        json_decref(doc);
        return kt_cli_fail(&err);
    }
    json_decref(doc);
    return a->o.replay ? kt_tune_app_print_recorded_device_check(a, job)
                       : kt_tune_app_check_device_settings(a, job);
}
