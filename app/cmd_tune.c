// SPDX-License-Identifier: Apache-2.0
/* ktune tune: search an operator's space for the fastest verified
 * configuration, as a tuning job (INI) describes it. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/envcheck.h"
#include "app/tune_impl.h"
#include "app/workers.h"
#ifdef KT_HAVE_MPI
#include "app/mpi.h"
#endif
#include "core/clock.h"
#include "core/envrec.h"
#include "core/evaluator.h"
#include "core/fileio.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "core/runctx.h"
#include "core/term.h"
#include "engine/instance.h"
#include "isolation/worker.h"
#include "metrics/cupti/counters.h"
#include "metrics/diagnose.h"
#include "records/journal.h"
#include "records/ktcache.h"
#include "records/ktcache_write.h"
#include "records/recording.h"
#include "records/wisdom.h"
#include "tuner/export.h"
#include "tuner/job.h"
#include "tuner/job_print.h"
#include "tuner/strategy.h"
#include "tuner/strategy_names.h"
#include "tuner/summary.h"
#include "tuner/sweep.h"
#include "tuner/tune.h"
#include "tuner/tune_job.h"

static const char help[] =
    "usage: ktune tune CONFIG [--replay FILE] [--resume] [--journal FILE]\n"
    "                  [--json FILE] [--csv FILE] [--t4 FILE]\n"
    "                  [--markdown FILE] [--kt-cache FILE]\n"
    "                  [--set SECTION.KEY=VALUE]... [options]\n"
    "       ktune tune --replay RECORDING [--set SECTION.KEY=VALUE]...\n"
    "                  [--json FILE] [--csv FILE] [--t4 FILE]\n\n"
    "Searches the space a tuning job (INI, docs/configs.md) describes for\n"
    "the fastest configuration that verifies: every point verified before\n"
    "its time counts, changes compared with the incumbent in interleaved\n"
    "rounds, the best few re-measured together at the end. Prints the\n"
    "answer with its confidence interval (or the configurations it is\n"
    "statistically tied with), the top configurations and the search path.\n"
    "Every evaluation is appended to a journal as it happens. CONFIG may\n"
    "be a T1 file, run as kernel_tuner runs it (docs/kernel-tuner.md).\n\n"
    "  --replay FILE       answer from a recorded journal instead of a GPU\n"
    "                      (any strategy; the problem is the recording's;\n"
    "                      repeated: a sweep over the recordings' sizes),\n"
    "                      or, without CONFIG, another tool's recording:\n"
    "                      a Kernel Tuner cache file or T4 results, plain\n"
    "                      or .gz (docs/replay.md)\n"
    "  --wisdom FILE       merge the answer of each size into a wisdom file\n"
    "                      for applications (docs/wisdom.md)\n"
    "  --resume            continue the journal of a stopped run; finished\n"
    "                      evaluations are not measured again\n"
    "  --journal FILE      the journal ([output] journal; 'none': none)\n"
    "  --json FILE         summary: best (params, median_us), evaluations,\n"
    "                      ties, top, path, trace; in replay also the\n"
    "                      recorded optimum and the fraction evaluated\n"
    "  --csv FILE          one row per point visited\n"
    "  --t4 FILE           Kernel Tuner's T4 results format, with its\n"
    "                      metadata file next to it (NAME-metadata.json)\n"
    "  --markdown FILE     the answer, finalists and top as Markdown\n"
    "  --kt-cache FILE     a Kernel Tuner 1.5 cache file, appended to as\n"
    "                      points are evaluated (live or replay); one of\n"
    "                      the same kernel is continued (kernel-tuner.md)\n"
    "  --set S.K=VALUE     override a key of the job, e.g.\n"
    "                      --set strategy.name=exhaustive (repeatable)\n"
    "  --plugin FILE       load FILE too (repeatable)\n"
    "  --in-process        measure in this process, not in a worker process\n"
    "                      (a faulting kernel then ends the run)\n"
    "  --verify MODE       device (default: references kept and outputs\n"
    "                      compared on the GPU) or host (outputs copied to\n"
    "                      host memory and compared there); [measure] verify\n"
    "  --energy            the finalists' energy too under a time objective\n"
    "                      (NVML windows; [measure] energy; docs/energy.md)\n"
    "  --replay-delay S    replay: wait S seconds in every evaluation\n"
    "  --devices LIST      one worker per GPU, evaluations in parallel:\n"
    "                      0,1 or all ([job] devices; docs/multigpu.md)\n"
    "  --workers N         replay: N simulated workers, each waiting the\n"
    "                      recorded durations\n"
    "  --time-scale F      the simulated workers' waits times F (default 1;\n"
    "                      0: none)\n"
    "  --mpi               under mpirun: rank 0 searches and journals, every\n"
    "                      rank evaluates on its GPU\n"
    "  --check             check the job and describe its space; measure\n"
    "                      nothing (no GPU needed); with --json FILE its\n"
    "                      counts also as a document\n"
    "  --quiet             no summary table on stdout, no progress on "
    "stderr\n\n"
    "A size written as a list or range in [job] (n = 2^20..2^28 step x4;\n"
    "m, n = 1024x1024, 4096x4096) is a sweep: one search per size, each\n"
    "with its own journal (NAME.n1048576.jsonl), then a table per size.\n"
    "--resume continues every size's journal.\n\n"
    "A [metrics] section adds counters (CUPTI, on launches of their own)\n"
    "for every point or the best few to the journal and the summary. Exit\n"
    "0 with an answer, 1 when nothing valid was found or the run failed, 2\n"
    "for a bad job or option.\n";

/* The strategies from the registry (tuner/strategies/list.h), so the help
 * never lists fewer than exist; the first is the default. */
static void print_strategies(FILE *out)
{
    size_t col = 0;

    fputs("\nStrategies ([strategy] name):", out);
    col = 29;
    for (size_t i = 0; i < kt_strategy_count(); ++i) {
        const char *name = kt_strategy_at(i)->name;
        size_t len = strlen(name) + (i ? 0 : 10) + 2;
        if (col + len > 72) {
            fputs("\n ", out);
            col = 1;
        }
        fprintf(out, " %s%s%s", name, i ? "" : " (default)",
                i + 1 < kt_strategy_count() ? "," : ".\n");
        col += len;
    }
    kt_tune_app_print_aliases(out);
}

static kt_status workers_option(tune_args *a, const char *arg, kt_err *err)
{
    int64_t v;
    kt_status rc = kt_parse_i64(arg, "--workers", &v, err);
    if (rc)
        return rc;
    if (v < 1 || v > KT_JOB_MAX_DEVICES)
        return kt_err_set(err, KT_S_INPUT, "--workers: %s, expected 1 to %d",
                          arg, KT_JOB_MAX_DEVICES);
    a->workers = (size_t)v;
    return KT_S_OK;
}

static kt_status own_option(void *ctx, int opt, char *arg, kt_err *err)
{
    tune_args *a = ctx;
    kt_status rc;

    switch (opt) {
    case 'R': a->resume = 1; break;
    case 'J': a->journal = arg; break;
    case 't': a->t4 = arg; break;
    case 'K':
        a->kt_cache = arg;
        if (strcmp(arg, "-") == 0)
            return kt_err_set(err, KT_S_INPUT,
                              "--kt-cache: '-': a cache is appended to as "
                              "the run goes; name a file");
        return kt_cli_output(arg, "--kt-cache", err);
    case 'M': a->markdown = arg; return kt_cli_output(arg, "--markdown", err);
    case 'q': a->quiet = 1; break;
    case 'C': a->check = 1; break;
    case 'E': a->energy = 1; break;
    case 'V':
        if (strcmp(arg, "host") != 0 && strcmp(arg, "device") != 0)
            return kt_err_set(err, KT_S_INPUT,
                              "--verify: '%s', expected host or device", arg);
        a->verify = arg;
        break;
    case 'W': a->wisdom = arg; break;
    case 'G': a->devices = arg; break;
    case 'P': a->mpi = 1; break;
    case 'N': return workers_option(a, arg, err);
    case 'T':
        if ((rc = kt_parse_double(arg, "--time-scale", &a->time_scale, err)))
            return rc;
        if (a->time_scale < 0 || a->time_scale > 1000)
            return kt_err_set(err, KT_S_INPUT,
                              "--time-scale: %s, expected 0 to 1000", arg);
        break;
    case 'r':
        a->o.replay = a->o.replay ? a->o.replay : arg;
        return kt_cli_list_push(&a->replays, arg, err);
    default: /* 'D' */
        if ((rc =
                 kt_parse_double(arg, "--replay-delay", &a->replay_delay, err)))
            return rc;
        if (a->replay_delay < 0 || a->replay_delay > 60)
            return kt_err_set(err, KT_S_INPUT,
                              "--replay-delay: %s, expected 0 to 60 seconds",
                              arg);
    }
    return KT_S_OK;
}

/* --workers simulates GPUs from a recording; --devices names real ones. */
static int check_worker_options(const tune_args *a, kt_err *err)
{
    const char *bad = NULL;
    if (a->workers && !a->o.replay)
        bad = "tune: --workers needs --replay (on GPUs: --devices)";
    else if (a->time_scale >= 0 && !a->workers && !a->mpi)
        bad = "tune: --time-scale needs --workers or --mpi";
    else if (a->workers && a->mpi)
        bad = "tune: --mpi: every rank is a worker; drop --workers";
    else if (a->devices && a->o.replay)
        bad = "tune: --devices measures on GPUs; with --replay use --workers";
    else if (a->devices && a->o.in_process)
        bad = "tune: --devices runs a worker process per GPU; drop "
              "--in-process";
#ifndef KT_HAVE_MPI
    else if (a->mpi)
        bad = "tune: --mpi: this ktune was built without MPI (configure with "
              "MPI installed, KT_WITH_MPI=ON)";
#endif
    if (!bad)
        return KT_EXIT_OK;
    kt_err_set(err, KT_S_INPUT, "%s", bad);
    return KT_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, tune_args *a, kt_err *err)
{
    static const struct option own[] = {
        {"resume", no_argument, NULL, 'R'},
        {"journal", required_argument, NULL, 'J'},
        {"t4", required_argument, NULL, 't'},
        {"kt-cache", required_argument, NULL, 'K'},
        {"markdown", required_argument, NULL, 'M'},
        {"replay-delay", required_argument, NULL, 'D'},
        {"quiet", no_argument, NULL, 'q'},
        {"check", no_argument, NULL, 'C'},
        {"energy", no_argument, NULL, 'E'},
        {"verify", required_argument, NULL, 'V'},
        {"wisdom", required_argument, NULL, 'W'},
        {"replay", required_argument, NULL, 'r'}, /* repeatable: a sweep */
        {"devices", required_argument, NULL, 'G'},
        {"workers", required_argument, NULL, 'N'},
        {"time-scale", required_argument, NULL, 'T'},
        {"mpi", no_argument, NULL, 'P'},
        {NULL, 0, NULL, 0}};
    const kt_cli_command cmd = {.name = "tune",
                                .help = help,
                                .shared = KT_OPT_SET | KT_OPT_PLUGIN |
                                          KT_OPT_JSON | KT_OPT_CSV |
                                          KT_OPT_IN_PROCESS,
                                .own = own,
                                .apply = own_option,
                                .ctx = a,
                                .help_more = print_strategies};
    int rc;

    if ((rc = kt_cli_parse(argc, argv, &cmd, &a->o, err)))
        return rc;
    /* Another tool's recording needs no job: it is the job. */
    if (!(a->o.num_operands == 0 && a->o.replay) &&
        kt_cli_one_operand("tune", "CONFIG", &a->o, &a->config, err))
        return KT_EXIT_USAGE;
    for (size_t i = 0; a->config && i < a->replays.count; ++i)
        if (kt_ktcache_is_external(a->replays.items[i])) {
            kt_err_set(err, KT_S_INPUT,
                       "tune: %s is another tool's recording; it replays "
                       "without a job: ktune tune --replay %s [--set ...]",
                       a->replays.items[i], a->replays.items[i]);
            return KT_EXIT_USAGE;
        }
    if (a->replay_delay > 0 && !a->o.replay) {
        kt_err_set(err, KT_S_INPUT, "tune: --replay-delay needs --replay");
        return KT_EXIT_USAGE;
    }
    /* A T1 file is a whole job: from here on, the declaration made of it. */
    if (kt_tune_app_t1_open(a, err))
        return KT_EXIT_USAGE;
    return check_worker_options(a, err);
}

/* Copies an output path given on the command line; refuses one that does
 * not fit instead of writing a different file. */
static kt_status copy_path(char *dst, size_t size, const char *flag,
                           const char *path, kt_err *err)
{
    if (strlen(path) >= size)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: the path is %zu characters, more than %zu", flag,
                          strlen(path), size - 1);
    memcpy(dst, path, strlen(path) + 1);
    return KT_S_OK;
}

/* Every output file can be written, checked before the run (exit 2). */
static kt_status check_outputs(const kt_job *job, kt_err *err)
{
    kt_status rc = KT_S_OK;

    if (job->json[0] && (rc = kt_cli_output(job->json, "--json", err)))
        return rc;
    if (job->csv[0] && (rc = kt_cli_output(job->csv, "--csv", err)))
        return rc;
    if (job->t4[0] && (rc = kt_cli_output(job->t4, "--t4", err)))
        return rc;
    if (job->journal_mode != KT_JOB_JOURNAL_NONE && job->journal[0])
        rc = kt_file_check_output(job->journal, "journal", err);
    return rc;
}

/* The job's [output] paths, then the command line's; a T1 file's job is
 * shown as the file named, not the declaration made of it. */
static kt_status apply_output_options(const tune_args *a, kt_job *job,
                                      kt_err *err)
{
    if (a->t1)
        snprintf(job->path, sizeof job->path, "%s", a->t1);
    if (a->journal) {
        int none = strcmp(a->journal, "none") == 0;
        if (copy_path(job->journal, sizeof job->journal, "--journal",
                      none ? "" : a->journal, err))
            return KT_S_INPUT;
        job->journal_mode = none ? KT_JOB_JOURNAL_NONE : KT_JOB_JOURNAL_PATH;
    } else if (a->o.replay) {
        /* A replay measures nothing new: no journal unless --journal asks
         * for one (the job's [output] journal is for real runs). */
        job->journal[0] = '\0';
        job->journal_mode = KT_JOB_JOURNAL_NONE;
    }
    if ((a->o.json &&
         copy_path(job->json, sizeof job->json, "--json", a->o.json, err)) ||
        (a->o.csv &&
         copy_path(job->csv, sizeof job->csv, "--csv", a->o.csv, err)) ||
        (a->t4 && copy_path(job->t4, sizeof job->t4, "--t4", a->t4, err)))
        return KT_S_INPUT;
    return check_outputs(job, err);
}

/* What the run opened, for the search and its report (tuner/tune_job.h). */
static kt_tune_setup setup_of(const tune_args *a, tune_run *t)
{
    kt_tune_setup s = {.ev = t->ev,
                       .workers = t->workers.evs,
                       .num_workers = t->workers.n,
                       .worker_envs = t->workers.envs,
                       .journal = t->journal.fd >= 0 ? &t->journal : NULL,
                       .resume = t->have_log ? &t->log : NULL,
                       .calib = t->have_calib ? &t->calib : NULL,
                       .environment = t->env,
                       .counters_unavailable = t->unavailable,
                       .progress = !a->quiet,
                       /* max_seconds counts from the process's start. */
                       .started = t->size_started - t->exec_s};
    return s;
}

/* The summary on stdout, the output files, the sweep's row, and the exit
 * code. */
static int report_run(const tune_args *a, tune_run *t, kt_sweep_row *row)
{
    const kt_job *job = &t->job;
    kt_tune_setup setup = setup_of(a, t);
    kt_tune_facts facts;
    char note[2048], markdown[PATH_MAX];
    kt_err err;

    kt_tune_facts_from_job(job, &setup, &t->cfg, &facts);
    if (kt_recording_note(t->ev, note, sizeof note))
        facts.replay_note = note;
    if (a->o.replay) {
        facts.replay = a->o.replay;
        facts.has_optimum = kt_recording_optimum(
            t->ev, &job->space, job->objective, &facts.optimum,
            &facts.optimum_stats, &facts.optimum_cost);
    }
    facts.width = kt_term_width(kt_stdout());
    if (!a->quiet)
        kt_summary_print(kt_stdout(), &facts, &t->result, job->top);
    if (a->markdown)
        kt_tune_app_size_path(t, a->markdown, markdown);
    if (kt_tune_write_outputs(job, &facts, &t->result,
                              a->markdown ? markdown : NULL, &err))
        return kt_cli_fail(&err);
    kt_sweep_row_fill(&facts, &t->result, row);
    if (!t->result.has_best) {
        kt_msg("no configuration of %s verified and timed (%zu "
               "evaluated)%s%s\n",
               job->spec, t->result.evaluations, t->result.note[0] ? ": " : "",
               t->result.note);
        return KT_EXIT_FAILURE;
    }
    return KT_EXIT_OK;
}

/* The resume hint, for a run stopped by SIGINT or SIGTERM: written by the
 * handler with write(2) (async-signal-safe), then the signal is raised
 * again with its default action, so the exit status still says how the
 * run ended. */
static char resume_hint[3 * PATH_MAX + 256];

static void on_stop(int sig)
{
    ssize_t w = write(2, resume_hint, strlen(resume_hint));
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void hint_on_stop(const tune_args *a, const kt_job *job)
{
    struct sigaction sa;

    /* In a library run the signals are the caller's (core/runctx.h). */
    if (kt_run_ctx_get())
        return;
    snprintf(resume_hint, sizeof resume_hint,
             "\nktune: stopped; the journal %s holds every evaluation so "
             "far; continue with: ktune tune %s --resume --journal %s\n",
             job->journal, kt_tune_app_named(a), job->journal);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Opens, searches and reports the current size; an exit code. *fatal is
 * set when the sweep cannot go on (no evaluator, a journal or evaluator
 * failure); a search that found nothing valid lets the next size run. */
static int tune(const tune_args *a, tune_run *t, kt_sweep_row *row, int *fatal)
{
    kt_tune_setup setup;
    kt_ktcache_writer *cache = NULL;
    kt_err err;
    kt_status st;

    kt_err_clear(&err);
    *fatal = 1;
    if (kt_tune_app_open_run(a, t, &err))
        return kt_cli_fail(&err);
    setup = setup_of(a, t);
    kt_tune_config_from_job(&t->job, &setup, &t->cfg);
    if (kt_tune_check_energy(&t->job, t->env, &err))
        return kt_cli_fail(&err);
    if (t->cfg.journal)
        hint_on_stop(a, &t->job);
    if (kt_tune_app_open_kt_cache(a, t, &setup, &cache, &err))
        return kt_cli_fail(&err);
    st = kt_tune_run(&t->cfg, &t->result, &err);
    t->cfg.on_entry = NULL;
    st = kt_tune_app_close_kt_cache(cache, &t->result, st, &err);
    t->result.open_s = t->open_s;
    t->result.calibration_s = t->calib_s;
    t->result.exec_s = t->exec_s;
    t->result.close_s = kt_tune_app_release_device(t->ev);
    kt_tune_journal_run(t->cfg.journal, &t->result, st != KT_S_OK);
    if (st) {
        kt_msg("%s\n", err.msg);
        /* A sweep resumes every size's journal from the base name. */
        if (t->cfg.journal)
            kt_msg("the journal %s holds every evaluation so far; "
                   "continue with: ktune tune %s --resume --journal %s\n",
                   t->job.journal, kt_tune_app_named(a),
                   t->num_sizes > 1 ? t->base_journal : t->job.journal);
        return kt_status_exit_code(st);
    }
    *fatal = 0;
    return report_run(a, t, row);
}

/* What a sweep collects: a row per size, an answer per size that has one
 * (its device's name copied: the evaluator closes after each size). */
typedef struct sweep_out {
    kt_sweep_row *rows;
    kt_wisdom_answer *answers;
    char (*devices)[256];
    size_t num_rows, num_answers;
    size_t added, replaced; /* by --wisdom */
    int failed;             /* a merge failed: no more are tried */
} sweep_out;

/* --wisdom: each size's answer merged as soon as it is found, so a sweep
 * cut short keeps the answers it had; a failure here fails the run. */
static int merge_wisdom(const tune_args *a, sweep_out *s)
{
    size_t added = 0, replaced = 0;
    kt_err err;

    if (!a->wisdom)
        return KT_EXIT_OK;
    kt_err_clear(&err);
    if (kt_wisdom_merge(a->wisdom, &s->answers[s->num_answers - 1], 1, &added,
                        &replaced, &err))
        return kt_cli_fail(&err);
    s->added += added;
    s->replaced += replaced;
    return KT_EXIT_OK;
}

/* Every size in turn (its sizes, or its recording), then the table and
 * the wisdom. */
static int run_sweep(tune_args *a, tune_run *t, sweep_out *s)
{
    int rc = KT_EXIT_OK, fatal = 0;

    for (size_t i = 0; i < t->num_sizes && !fatal; ++i) {
        kt_sweep_row *row = &s->rows[s->num_rows];
        int one;
        /* A recording brings its sizes; the note compares the job's. */
        memcpy(t->job.sizes, t->job.sweep[a->replays.count ? 0 : i],
               sizeof t->job.sizes);
        if (a->replays.count)
            a->o.replay = a->replays.items[i];
        if (t->num_sizes > 1 && !a->quiet)
            fprintf(kt_stdout(), "%s=== size %zu of %zu ===\n", i ? "\n" : "",
                    i + 1, t->num_sizes);
        memset(row, 0, sizeof *row);
        t->size_started = i ? kt_clock_seconds() : a->started;
        t->exec_s = i ? 0 : a->exec_s;
        one = tune(a, t, row, &fatal);
        if (!fatal)
            ++s->num_rows;
        if (!fatal && row->has_best) {
            int w;
            kt_tune_wisdom_answer(&t->job, t->ev->ops->device(t->ev), row,
                                  s->devices[s->num_answers],
                                  sizeof s->devices[0],
                                  &s->answers[s->num_answers]);
            ++s->num_answers;
            w = s->failed ? KT_EXIT_OK : merge_wisdom(a, s);
            s->failed |= w != KT_EXIT_OK;
            one = w > one ? w : one;
        }
        kt_tune_app_close_size(t);
        rc = one > rc ? one : rc;
    }
    if (t->num_sizes > 1 && s->num_rows && !a->quiet)
        kt_sweep_print(kt_stdout(), t->job.spec, t->job.op,
                       s->num_answers ? s->devices[0] : NULL, s->rows,
                       s->num_rows, kt_term_width(kt_stdout()));
    if (a->wisdom && s->num_answers && !s->failed)
        fprintf(a->quiet ? kt_stderr() : kt_stdout(),
                "\nwisdom %s: %zu answer(s) added, %zu replaced\n", a->wisdom,
                s->added, s->replaced);
    return rc;
}

/* The sweep's sizes, base paths and buffers, from the loaded job. */
static kt_status start_sweep(const tune_args *a, tune_run *t, sweep_out *s,
                             kt_err *err)
{
    kt_job *job = &t->job;

    t->num_sizes = a->replays.count ? a->replays.count : job->num_sweep;
    memcpy(t->base_journal, job->journal, sizeof t->base_journal);
    memcpy(t->base_json, job->json, sizeof t->base_json);
    memcpy(t->base_csv, job->csv, sizeof t->base_csv);
    memcpy(t->base_t4, job->t4, sizeof t->base_t4);
    t->number_journals =
        !a->journal && !a->resume && job->journal_mode != KT_JOB_JOURNAL_NONE;
    s->rows = calloc(t->num_sizes, sizeof *s->rows);
    s->answers = calloc(t->num_sizes, sizeof *s->answers);
    s->devices = calloc(t->num_sizes, sizeof *s->devices);
    if (!s->rows || !s->answers || !s->devices)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    return KT_S_OK;
}

/* `ktune tune --replay RECORDING`: another tool's recording is the job
 * (its operator, space and results); --set gives the strategy and the
 * budgets. What needs a job of ktune's own, or several recordings, is
 * refused. */
static kt_status load_recording(tune_args *a, kt_job *job, kt_err *err)
{
    const char *bad = NULL;
    char spec[256];
    kt_status rc;

    if (a->replays.count > 1)
        bad = "one recording of another tool at a time";
    else if (a->resume || a->journal)
        bad = "a replay of another tool's recording writes no journal; "
              "--t4, --json and --csv keep the run";
    else if (a->wisdom)
        bad = "wisdom is for a plugin's operators; a recording has none";
    else if (a->workers || a->mpi || a->replay_delay > 0)
        bad = "another tool's recording replays on one simulated worker";
    else if (!kt_ktcache_is_external(a->o.replay))
        return kt_err_set(err, KT_S_INPUT,
                          "tune: %s is not another tool's recording (a Kernel "
                          "Tuner cache file or T4 results); a ktune journal "
                          "replays with its job: ktune tune CONFIG --replay "
                          "%s",
                          a->o.replay, a->o.replay);
    if (bad)
        return kt_err_set(err, KT_S_INPUT, "--replay %s: %s", a->o.replay, bad);
    if ((rc = kt_ktcache_load(a->o.replay, &a->ext, err)))
        return rc;
    snprintf(spec, sizeof spec, "%s:%s", a->ext->plugin.desc.name,
             a->ext->op.id);
    if ((rc = kt_job_load_for(a->o.replay, spec, &a->ext->plugin, &a->ext->op,
                              a->o.sets.items, a->o.sets.count, job, err)))
        return rc;
    /* A recording lists values, it declares no default: its first values
     * are only its order, so the search starts where it draws. */
    job->space.start_declared = 0;
    return KT_S_OK;
}

int kt_cmd_tune(int argc, char **argv)
{
    tune_args a;
    kt_registry reg;
    tune_run *t = calloc(1, sizeof *t);
    sweep_out s;
    int have_job = 0, rc, mpi_done = 0;
    kt_err err;

    memset(&a, 0, sizeof a);
    memset(&s, 0, sizeof s);
    a.time_scale = -1;
    /* The start phase: plugins, the job, the evaluator and its problem. */
    a.started = kt_clock_seconds();
    a.exec_s = kt_clock_process_age();
    /* A clock that disagrees (another time namespace, say) says nothing. */
    a.exec_s = a.exec_s >= 0 && a.exec_s < 60 ? a.exec_s : 0;
    kt_err_clear(&err);
    a.settings = (kt_registry_init(&reg), &reg.settings); /* for workers */
    if (!t) {
        kt_err_set(&err, KT_S_NOMEM, "out of memory");
        return kt_cli_fail(&err);
    }
    t->journal.fd = -1;
    if ((rc = parse_args(argc, argv, &a, &err))) {
        rc = rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
        goto done;
    }
    reg.isolated = !a.o.in_process; /* plugin code runs in workers */
    kt_cli_load_plugins(&reg, a.o.plugins.items, a.o.plugins.count, 0);
    if (a.config ? kt_cli_load_declared(&reg, a.config, &err) ||
                       kt_job_load(a.config, a.o.sets.items, a.o.sets.count,
                                   &reg, &t->job, &err)
                 : load_recording(&a, &t->job, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    have_job = 1;
    kt_env_protocol_choices(&t->job.protocol);
    if (apply_output_options(&a, &t->job, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (a.energy)
        t->job.protocol.energy = 1;
    if (a.verify)
        t->job.verify_host = strcmp(a.verify, "host") == 0;
    if (a.devices && kt_job_devices(&t->job, a.devices, "--devices", &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (a.check) {
        rc = kt_tune_app_check(&a, &t->job);
        goto done;
    }
    if (a.resume && t->job.journal_mode == KT_JOB_JOURNAL_NONE) {
        rc = kt_cli_usage_error("tune", "--resume needs a journal: give "
                                        "--journal FILE");
        goto done;
    }
    if ((rc = kt_tune_app_start_mpi(&a, t, &mpi_done)) || mpi_done)
        goto done;
    rc =
        start_sweep(&a, t, &s, &err) ? kt_cli_fail(&err) : run_sweep(&a, t, &s);
    kt_tune_app_finish_mpi(&a, t, rc);
done:
    kt_tune_app_t1_close(&a, rc);
    kt_tune_app_close_size(t);
    if (have_job)
        kt_job_free(&t->job);
    kt_registry_free(&reg);
    kt_cli_options_free(&a.o);
    kt_cli_list_free(&a.replays);
    kt_extrec_free(a.ext);
    free(s.rows);
    free(s.answers);
    free(s.devices);
    free(t);
    return rc;
}
