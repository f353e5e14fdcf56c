// SPDX-License-Identifier: Apache-2.0
/*
 * Internal to ktune tune (app/cmd_tune.c parses, calls and prints;
 * app/tune_open.c opens what measures: evaluators, worker processes per
 * GPU, MPI ranks; the use case around the search is tuner/tune_job.h).
 */
#ifndef KT_APP_TUNE_IMPL_H
#define KT_APP_TUNE_IMPL_H

#include <jansson.h>
#include <limits.h>

#include "app/cli.h"
#include "app/workers.h"
#include "records/extrec.h"
#include "records/journal.h"
#include "records/ktcache_write.h"
#include "tuner/job.h"
#include "tuner/tune.h"
#include "tuner/tune_job.h"

typedef struct tune_args {
    kt_cli_options o; /* o.sets: --set S.K=VALUE overrides of the job */
    const char *config;
    const char *journal, *t4, *markdown;
    const char *kt_cache; /* --kt-cache FILE (records/ktcache_write.h) */
    /* CONFIG was a T1 file (core/t1_job.h): t1 names it, config is then
     * the declaration made of it, t1_ini, in the folder t1_dir. */
    const char *t1;
    char t1_dir[PATH_MAX], t1_ini[PATH_MAX];
    int resume, quiet, check;
    int energy;         /* --energy: the finalists' energy measured whatever the
                         * objective ([measure] energy) */
    const char *verify; /* --verify: NULL, "host" or "device" */
    double replay_delay;
    const char *devices;         /* --devices LIST */
    size_t workers;              /* --workers N (replay) */
    double time_scale;           /* --time-scale F; < 0: not given */
    int mpi;                     /* --mpi */
    int rank, ranks, local_rank; /* under --mpi */
    double started; /* monotonic seconds at the start of the command */
    double exec_s;  /* the process's age then: exec and dynamic loading */
    /* The registry's settings record, which evaluators and their workers
     * run under (kt_eval_spec.settings). */
    const kt_settings *settings;
    /* Sweeps and wisdom (tuner/sweep.h, records/wisdom.h): every --replay
     * (o.replay: the current size's), and --wisdom FILE. */
    kt_cli_list replays;
    const char *wisdom;
    /* --replay of another tool's recording, without CONFIG: the recording
     * is the job's operator (records/extrec.h). NULL otherwise. */
    kt_extrec *ext;
} tune_args;

/* One tuning run: the job, what measures it, where it is recorded. In a
 * sweep the job (with its profiling spec) and the calibration (measured
 * once, for the first size) serve every size; the rest is one size's
 * (close_size). */
typedef struct tune_run {
    kt_job job;
    kt_evaluator *ev;
    kt_journal journal;
    kt_journal_log log;
    int have_log, have_calib, calib_tried;
    kt_calibration calib;
    const char *unavailable; /* why counters cannot be had, or NULL */
    char why[1024];
    json_t *env;
    kt_tune_config cfg;
    kt_tune_result result;
    kt_cli_workers workers; /* the pool's evaluators; workers.evs[0] = ev */
    int retired;            /* a worker of some size was retired */
    /* The start phase of the current size (from the command's start for
     * the first, from the size's for the others) and the calibration. */
    double size_started, open_s, calib_s;
    /* The process's own start before the command (the first size's). */
    double exec_s;
    /* The sweep: how many sizes (job.num_sweep, or one per --replay), the
     * paths each size derives its own from, whether an existing journal
     * gets a numbered successor. */
    size_t num_sizes;
    char base_journal[PATH_MAX], base_json[PATH_MAX], base_csv[PATH_MAX],
        base_t4[PATH_MAX];
    int number_journals;
} tune_run;

/* The evaluator, the counters check, the problem, the output names, the
 * calibration (once per command), the environment record, the workers
 * and the journal of the current size. */
kt_status kt_tune_app_open_run(const tune_args *a, tune_run *t, kt_err *err);

/* Frees what belongs to one size; the job and the calibration stay. */
void kt_tune_app_close_size(tune_run *t);

/* dst (PATH_MAX bytes): base, or base with the current size's tag in a
 * sweep; "-" stays stdout. */
void kt_tune_app_size_path(const tune_run *t, const char *base, char *dst);

/* Under --mpi: MPI is up, and a rank other than 0 has served (*done set,
 * the exit code returned). */
int kt_tune_app_start_mpi(tune_args *a, tune_run *t, int *done);

/* Rank 0 of --mpi, after the run (nothing without --mpi). */
void kt_tune_app_finish_mpi(const tune_args *a, const tune_run *t, int rc);

/* --check of a job that sets device settings: opened, set and restored,
 * or refused with exit 2 naming the NVML call. An exit code. */
int kt_tune_app_check_device_settings(const tune_args *a, kt_job *job);

/* --check --replay: the points feasible on the recording's device. An
 * exit code. */
int kt_tune_app_print_recorded_device_check(const tune_args *a, kt_job *job);

/* --check: the job described on stdout (tuner/job_print.h), with --json
 * FILE its counts as a document too, then the device checks above. The
 * exit code. */
int kt_tune_app_check(const tune_args *a, kt_job *job);

/* Kernel Tuner's strategy names and the ktune strategy each runs, for the
 * help (app/tune_interop.c). */
void kt_tune_app_print_aliases(FILE *out);

/* --kt-cache: the current size's file, started before the search, and
 * t->cfg's on_entry set to append to it; *out NULL without --kt-cache. */
kt_status kt_tune_app_open_kt_cache(const tune_args *a, tune_run *t,
                                    const kt_tune_setup *setup,
                                    kt_ktcache_writer **out, kt_err *err);

/* A CONFIG that is a T1 file becomes the declaration made of it (with
 * --check, its own count printed first); nothing for any other CONFIG. */
kt_status kt_tune_app_t1_open(tune_args *a, kt_err *err);

/* Removes the declaration made of a T1 file; after a failure (rc not 0)
 * it is kept and named, so its lines in a message can be read. */
void kt_tune_app_t1_close(const tune_args *a, int rc);

/* The CONFIG the user named (the T1 file, not the declaration made of
 * it), for messages. */
/* --kt-cache after the run: the finalists' closing figures written in
 * (when the run, status st, succeeded) and the file closed (left open for
 * readers when st is a failure). st, or the writer's failure into err. */
kt_status kt_tune_app_close_kt_cache(kt_ktcache_writer *cache,
                                     const kt_tune_result *r, kt_status st,
                                     kt_err *err);

const char *kt_tune_app_named(const tune_args *a);

/* The evaluator lets go of the device (a worker ends); seconds it took. */
double kt_tune_app_release_device(kt_evaluator *ev);

#endif
