// SPDX-License-Identifier: Apache-2.0
/*
 * kt_job: a tuning job as written in an INI file (docs/configs.md), with
 * `--set section.key=value` overrides, checked against the plugin it names.
 *
 * Sections: [job] what to tune (operator, problem sizes, input seed),
 * [space] the values to consider, [strategy] how to search and the budgets,
 * [measure] the measurement protocol, [output] where results go, [metrics]
 * which hardware counters to collect for which points. Every
 * mistake (unknown section or key, a value of the wrong type or out of
 * range, a value the plugin does not declare) is KT_S_INPUT with
 * `file:line: [section] key: ...` (or the --set that wrote it), what is
 * allowed, and close matches.
 */
#ifndef KT_JOB_H
#define KT_JOB_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/loader.h"
#include "core/protocol.h"
#include "records/objective.h"
#include "records/profiling.h"
#include "records/space.h"
#include "tuner/strategy.h"
#include "tuner/strategy_names.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef enum kt_job_journal {
    KT_JOB_JOURNAL_NONE = 0, /* journal = none */
    KT_JOB_JOURNAL_PATH = 1, /* a path the user gave */
    KT_JOB_JOURNAL_AUTO = 2  /* not given: <config name>.journal.jsonl */
} kt_job_journal;

#define KT_JOB_MAX_DEVICES 64

typedef struct kt_job {
    char path[PATH_MAX]; /* the config file */
    /* [job] */
    char spec[256]; /* "plugin:operator" */
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    int64_t sizes[KT_MAX_SIZES];
    /* The problems to tune, one search each: num_sweep of them (1 without
     * a sweep), sweep[i][0..op->num_sizes); sizes is sweep[0]. A size key
     * written as a list or range sweeps it (records/sizespec.h); several
     * swept keys multiply, the first key written varying slowest. Owned. */
    int64_t (*sweep)[KT_MAX_SIZES];
    size_t num_sweep;
    uint64_t input_seed;
    int device;
    /* [job] devices: one worker per GPU (kt_job_devices); num_devices 0:
     * `device` alone; all_devices: every GPU of the host. */
    int devices[KT_JOB_MAX_DEVICES];
    size_t num_devices;
    int all_devices;
    int boundaries;
    /* [space], not yet bound to a device */
    kt_space space;
    /* [strategy] */
    const kt_strategy *strategy;
    /* The Kernel Tuner name the job wrote (strategy.name = brute_force),
     * which strategy runs; NULL when it wrote ktune's own. */
    const kt_strategy_alias *strategy_alias;
    double options[KT_STRATEGY_MAX_OPTIONS];
    uint64_t seed;
    size_t max_evals;
    double max_seconds;
    size_t finalists;
    double min_gain;
    kt_objective objective; /* default time */
    /* [measure] */
    kt_protocol protocol;
    /* Limit per point evaluated in a worker, on top of the protocol's
     * max_time; 0: the worker's default (60 s). */
    double eval_timeout_s;
    int verify_host; /* [measure] verify = host: plugins verify on the host */
    /* [measure] compile_threads: threads compiling run-time kernels on the
     * evaluating host (engine/compile_pool.h); 0: one per CPU there. */
    int compile_threads;
    /* [output]; empty: not written */
    kt_job_journal journal_mode;
    char journal[PATH_MAX];
    char json[PATH_MAX], csv[PATH_MAX], t4[PATH_MAX];
    int top;
    /* [metrics]; metrics.points is KT_PROFILING_OFF without the section.
     * metrics_where names the counters key ("job.ini:12: [metrics]
     * counters"), for names found unknown once the device is open. */
    kt_profiling_spec metrics;
    char metrics_where[PATH_MAX + 64];
} kt_job;

/* The protocol defaults of a tuning run: fewer samples and a shorter cap
 * than `ktune bench`, so a whole space is measured in minutes. */
void kt_job_protocol_defaults(kt_protocol *p);

/* Reads and checks the job at path; sets[0..num_sets) are "section.key=
 * value" overrides applied on top. Plugins are resolved in reg, which must
 * outlive the job. Free with kt_job_free(). */
/* Parses a device list, "0,1,3" (distinct ordinals 0..1023, at most
 * KT_JOB_MAX_DEVICES) or "all", into job->devices; `what` names the
 * source in messages ("--devices", "[job] devices"). KT_S_INPUT. */
kt_status kt_job_devices(kt_job *job, const char *text, const char *what,
                         kt_err *err);

kt_status kt_job_load(const char *path, char *const *sets, size_t num_sets,
                      const kt_registry *reg, kt_job *job, kt_err *err);

/* A job without a file: the defaults of every section, [job] operator =
 * spec (plugin and op, which must outlive the job), then the overrides.
 * name stands for the file in messages and output names (a recording
 * replayed without a job: records/extrec.h). An override of job.operator
 * naming anything else is KT_S_INPUT. Free with kt_job_free(). */
kt_status kt_job_load_for(const char *name, const char *spec,
                          const kt_loaded_plugin *plugin, const kt_operator *op,
                          char *const *sets, size_t num_sets, kt_job *job,
                          kt_err *err);

void kt_job_free(kt_job *job);

#endif
