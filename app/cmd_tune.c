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
#include "engine/instance.h"
#include "isolation/worker.h"
#include "metrics/cupti/counters.h"
#include "metrics/diagnose.h"
#include "tuner/export.h"
#include "tuner/job.h"
#include "tuner/journal.h"
#include "tuner/ktcache.h"
#include "tuner/replay.h"
#include "tuner/replay_ext.h"
#include "tuner/strategy.h"
#include "tuner/summary.h"
#include "tuner/sweep.h"
#include "tuner/tune.h"
#include "tuner/wisdom.h"

static const char help[] =
    "usage: ktune tune CONFIG [--replay FILE] [--resume] [--journal FILE]\n"
    "                  [--json FILE] [--csv FILE] [--t4 FILE]\n"
    "                  [--markdown FILE]\n"
    "                  [--set SECTION.KEY=VALUE]... [options]\n"
    "       ktune tune --replay RECORDING [--set SECTION.KEY=VALUE]...\n"
    "                  [--json FILE] [--csv FILE] [--t4 FILE]\n\n"
    "Searches the space a tuning job (INI, docs/configs.md) describes for\n"
    "the fastest configuration that verifies: every point verified before\n"
    "its time counts, changes compared with the incumbent in interleaved\n"
    "rounds, the best few re-measured together at the end. Prints the\n"
    "answer with its confidence interval (or the configurations it is\n"
    "statistically tied with), the top configurations and the search path.\n"
    "Every evaluation is appended to a journal as it happens.\n\n"
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
    "  --set S.K=VALUE     override a key of the job, e.g.\n"
    "                      --set strategy.name=exhaustive (repeatable)\n"
    "  --plugin FILE       load FILE too (repeatable)\n"
    "  --in-process        measure in this process, not in a worker process\n"
    "                      (a faulting kernel then ends the run)\n"
    "  --verify MODE       device (default: references kept and outputs\n"
    "                      compared on the GPU) or host (outputs copied to\n"
    "                      host memory and compared there); [measure] verify\n"
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
    "                      nothing (no GPU needed)\n"
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
}

typedef struct tune_args {
    kt_cli_options o; /* o.sets: --set S.K=VALUE overrides of the job */
    const char *config;
    const char *journal, *t4, *markdown;
    int resume, quiet, check;
    const char *verify; /* --verify: NULL, "host" or "device" */
    double replay_delay;
    const char *devices;         /* --devices LIST */
    size_t workers;              /* --workers N (replay) */
    double time_scale;           /* --time-scale F; < 0: not given */
    int mpi;                     /* --mpi */
    int rank, ranks, local_rank; /* under --mpi */
    double started; /* monotonic seconds at the start of the command */
    double exec_s;  /* the process's age then: exec and dynamic loading */
    /* Sweeps and wisdom (tuner/sweep.h, tuner/wisdom.h): every --replay
     * (o.replay: the current size's), and --wisdom FILE. */
    kt_cli_list replays;
    const char *wisdom;
    /* --replay of another tool's recording, without CONFIG: the recording
     * is the job's operator (tuner/extrec.h). NULL otherwise. */
    kt_extrec *ext;
} tune_args;

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
    case 'M': a->markdown = arg; return kt_cli_output(arg, "--markdown", err);
    case 'q': a->quiet = 1; break;
    case 'C': a->check = 1; break;
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
        {"markdown", required_argument, NULL, 'M'},
        {"replay-delay", required_argument, NULL, 'D'},
        {"quiet", no_argument, NULL, 'q'},
        {"check", no_argument, NULL, 'C'},
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
    return check_worker_options(a, err);
}

/* A journal named by the job file (not by --journal) that exists already
 * belongs to an earlier run: a new run writes the next free name
 * (vector_add.journal.2.jsonl, ...) and says so, so that running the same job
 * twice works and loses nothing. A journal named on the command line is
 * the user's explicit choice: there, an existing file is refused. */
static void next_free_journal(kt_job *job)
{
    char base[PATH_MAX], candidate[PATH_MAX + 16];
    const char *dot;
    size_t stem;

    if (access(job->journal, F_OK) != 0)
        return;
    snprintf(base, sizeof base, "%s", job->journal);
    dot = strrchr(base, '.');
    stem =
        dot && dot > strrchr(base, '/') ? (size_t)(dot - base) : strlen(base);
    for (int i = 2; i < 10000; ++i) {
        snprintf(candidate, sizeof candidate, "%.*s.%d%s", (int)stem, base, i,
                 base + stem);
        if (access(candidate, F_OK) != 0) {
            kt_msg("journal %s exists (an earlier run; "
                   "--resume continues it): this run writes %s\n",
                   job->journal, candidate);
            snprintf(job->journal, sizeof job->journal, "%s", candidate);
            return;
        }
    }
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

/* The job's [output] paths, then the command line's. */
static kt_status apply_output_options(const tune_args *a, kt_job *job,
                                      kt_err *err)
{
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
    kt_cli_shell_quote(a->config, qcfg, sizeof qcfg);
    kt_err_set(err, KT_S_NO_DEVICE,
               "%s; to watch a recorded tuning run instead: ktune tune %s "
               "--replay %s",
               msg, qcfg, qrec);
}

static kt_status open_evaluator(const tune_args *a, kt_job *job,
                                const kt_profiling_spec *prof,
                                kt_evaluator **ev, kt_err *err)
{
    kt_worker_options wopt = {NULL, 0, 0};
    kt_eval_spec spec;
    kt_status rc;

    if (a->ext)
        return kt_replay_ext_open(a->ext, ev, err);
    if (a->o.replay) {
        kt_replay_options opt = {.delay_s = a->replay_delay};
        /* Simulated workers wait what the recording took (scaled). */
        opt.simulate = a->time_scale >= 0 ? a->time_scale : a->workers ? 1 : 0;
        return kt_replay_open(a->o.replay, job->plugin, job->op, &opt, ev, err);
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
    spec.nvml = job->protocol.nvml; /* checked at open (core/nvml_set.h) */
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
    if (kt_replay_ext_is(ev))
        return;
    rec = kt_replay_sizes(ev);

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
    job->input_seed = kt_replay_seed(ev);
}

static json_t *strategy_json(const kt_job *job)
{
    json_t *opts = json_object();
    for (size_t i = 0; i < job->strategy->num_options; ++i)
        json_object_set_new(opts, job->strategy->options[i].name,
                            json_real(job->options[i]));
    return json_pack("{s:s,s:I,s:I,s:f,s:I,s:f,s:o}", "name",
                     job->strategy->name, "seed", (json_int_t)job->seed,
                     "max_evals", (json_int_t)job->max_evals, "max_seconds",
                     job->max_seconds, "finalists", (json_int_t)job->finalists,
                     "min_gain", job->min_gain, "options", opts);
}

/* Creates the journal, or continues it after checking it was written
 * under the same conditions. */
static kt_status open_journal(int resume, const kt_job *job,
                              const kt_profiling_spec *prof,
                              json_t *environment, kt_journal *journal,
                              kt_journal_log *log, int *have_log, kt_err *err)
{
    json_t *header =
        kt_journal_header(job->plugin, job->spec, job->op, job->sizes,
                          job->input_seed, &job->space, &job->protocol,
                          strategy_json(job), json_deep_copy(environment));
    json_t *recorded = NULL;
    char note[512];
    kt_status rc;

    *have_log = 0;
    if (prof->points != KT_PROFILING_OFF)
        kt_journal_header_metrics(header, kt_profiling_spec_json(prof));
    /* A journal a run left empty (stopped before its header) has nothing
     * to resume: it is written afresh. */
    if (resume && kt_journal_is_empty(job->journal))
        kt_msg("note: %s is empty (its run stopped before writing "
               "the header); starting afresh\n",
               job->journal);
    if (!resume || kt_journal_is_empty(job->journal)) {
        rc = kt_journal_create(journal, job->journal, header, err);
        json_decref(header);
        return rc;
    }
    /* The header decides first: a journal of another plugin is refused
     * for that, not for the first point it cannot read. */
    if ((rc = kt_journal_read_header(job->journal, &recorded, err))) {
        json_decref(header);
        return kt_err_prefix(err, "--resume: ");
    }
    rc = kt_journal_compatible(recorded, header, job->journal, note,
                               sizeof note, err);
    json_decref(recorded);
    json_decref(header);
    if (rc)
        return rc;
    if (note[0])
        kt_msg("note: %s\n", note);
    if ((rc = kt_journal_read(job->journal, job->op, log, err)))
        return rc;
    *have_log = 1;
    if (log->note[0])
        kt_msg("note: %s\n", log->note);
    return kt_journal_continue(journal, job->journal, log,
                               json_deep_copy(environment), err);
}

/* Sizes the operator fixes (min = max, e.g. a declaration's `pinned`). */
static void print_pinned(const kt_operator *op)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        if (op->sizes[i].min == op->sizes[i].max)
            printf("%s%s=%lld",
                   n++ ? ", "
                       : "pinned sizes (fixed by the operator; boundary-size "
                         "verification keeps them): ",
                   op->sizes[i].name, (long long)op->sizes[i].min);
    if (n)
        printf("\n");
}

/* --check's space: the Cartesian size, and for a declared operator the
 * points its require (and a space file's Conditions) allow, per variant
 * where it has one; no device is needed. */
static void print_space_check(const kt_job *job)
{
    uint64_t *allowed = calloc(job->space.num_slots + 1, sizeof *allowed);
    uint64_t total = 0;
    kt_err err;
    int counted =
        allowed && kt_space_count_required(&job->space, job->sizes, allowed,
                                           &total, &err) == KT_S_OK;

    printf("space %llu point(s) before device limits",
           (unsigned long long)job->space.size);
    if (counted)
        printf(", %llu after require", (unsigned long long)total);
    printf(":\n");
    for (size_t s = 0; s < job->space.num_slots; ++s) {
        const kt_space_variant *slot = &job->space.slots[s];
        const kt_variant *v = &job->op->variants[slot->variant];
        printf("  %-14s %llu point(s)", v->id, (unsigned long long)slot->size);
        for (uint32_t i = 0; i < slot->num_params; ++i) {
            printf("%s%s {", i ? ", " : ": ", v->params[i].name);
            for (uint32_t k = 0; k < slot->count[i]; ++k) {
                char value[64];
                kt_param_format(&v->params[i], slot->values[i][k], value,
                                sizeof value);
                printf("%s%s", k ? ", " : "", value);
            }
            printf("}");
        }
        if (counted && allowed[s] != slot->size)
            printf("; %llu after require", (unsigned long long)allowed[s]);
        printf("\n");
    }
    free(allowed);
}

/* --check: what the job would do. */
static void print_check(const kt_job *job)
{
    char sizes[256];
    kt_format_sizes(job->op, job->sizes, sizes, sizeof sizes);
    printf("%s: %s  %s, input seed %llu\n", job->path, job->spec, sizes,
           (unsigned long long)job->input_seed);
    print_pinned(job->op);
    if (job->num_sweep > 1) {
        printf("sweep of %zu sizes, one search each:", job->num_sweep);
        for (size_t i = 0; i < job->num_sweep; ++i) {
            kt_format_sizes(job->op, job->sweep[i], sizes, sizeof sizes);
            printf("%s %s", i ? "," : "", sizes);
        }
        printf("\n");
    }
    print_space_check(job);
    printf("strategy %s, seed %llu, max_evals %zu, max_seconds %g, "
           "finalists %zu, min_gain %g\n",
           job->strategy->name, (unsigned long long)job->seed, job->max_evals,
           job->max_seconds, job->finalists, job->min_gain);
    printf("measure warmups %d, samples %zu..%zu, time %g..%g s, noise %g, "
           "cache %s, race %g, verify on the %s\n",
           job->protocol.warmups, job->protocol.min_samples,
           job->protocol.max_samples, job->protocol.min_time_s,
           job->protocol.max_time_s, job->protocol.target_noise,
           kt_cache_mode_name(job->protocol.cache), job->protocol.race,
           job->verify_host ? "host" : "device");
    printf("journal %s\n", job->journal[0] ? job->journal : "none");
    if (job->metrics.points != KT_PROFILING_OFF) {
        printf("metrics %s", kt_profiling_points_name(job->metrics.points));
        if (job->metrics.points == KT_PROFILING_TOP)
            printf(" %zu", job->metrics.top);
        printf(", %zu metric(s), %zu raw counter(s)%s\n",
               job->metrics.set.num_items,
               job->metrics.counters ? job->metrics.set.num_raw : 0,
               job->metrics.counters ? "" : " (kernel facts only)");
    }
}

/* --check --replay: the points feasible on the recording's device, at
 * its problem, as the run will count them (no GPU: the device record is
 * the recording's). */
static int print_recorded_device_check(const tune_args *a, kt_job *job)
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
        printf("feasible on %s (the recording's device record) at %s: not "
               "counted: %s\n",
               dev->name ? dev->name : "?", sizes, err.msg);
    else
        printf("feasible on %s (the recording's device record) at %s: %llu "
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

static kt_status write_outputs(const kt_job *job, const kt_tune_facts *f,
                               const kt_tune_result *r, kt_err *err)
{
    kt_status rc = KT_S_OK;
    if (job->json[0])
        rc = kt_export_json(job->json, f, r, job->top, err);
    if (!rc && job->csv[0])
        rc = kt_export_csv(job->csv, f, r, err);
    if (!rc && job->t4[0])
        rc = kt_export_t4(job->t4, f, r, err);
    return rc;
}

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

/* dst: base, or base with the current size's tag in a sweep. */
static void size_path(const tune_run *t, const char *base, char *dst)
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
    size_path(t, t->base_journal, t->job.journal);
    size_path(t, t->base_json, t->job.json);
    size_path(t, t->base_csv, t->job.csv);
    size_path(t, t->base_t4, t->job.t4);
    if (t->number_journals)
        next_free_journal(&t->job);
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

static void close_size(tune_run *t);

/* Under --mpi: MPI is up, and a rank other than 0 has served (*done set,
 * the exit code returned). */
static int start_mpi(tune_args *a, tune_run *t, int *done)
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
        close_size(t);
        kt_mpi_finish(0, code);
        return code;
    }
#else
    (void)t;
    return KT_EXIT_USAGE;
#endif
}

/* --check of a job that sets device settings (nvml_gr_clock, ...): the
 * evaluator opens, which sets and restores them at once, so a refusal is
 * found here, exit 2, naming the NVML call. Nothing opens otherwise. */
static int check_device_settings(const tune_args *a, kt_job *job)
{
    kt_evaluator *ev = NULL;
    char what[128];
    kt_err err;

    if (!kt_nvml_setting_any(&job->protocol.nvml) || a->o.replay || a->ext)
        return KT_EXIT_OK;
    kt_nvml_setting_text(&job->protocol.nvml, what, sizeof what);
    kt_err_clear(&err);
    if (resolve_devices(job, &err) ||
        open_evaluator(a, job, &job->metrics, &ev, &err))
        return kt_cli_fail(&err);
    ev->ops->close(ev);
    printf("device settings %s: set and restored on device %d\n", what,
           job->device);
    return KT_EXIT_OK;
}

/* The evaluator, the counters check, the problem, the environment record
 * and the journal of the current size. */
static kt_status open_run(const tune_args *a, tune_run *t, kt_err *err)
{
    kt_job *job = &t->job;
    kt_status rc;

    if ((!a->o.replay && (rc = resolve_devices(job, err))) ||
        (rc = open_evaluator(a, job, &job->metrics, &t->ev, err)) ||
        (rc = check_counters(t->ev, job, &job->metrics, t->why, sizeof t->why,
                             &t->unavailable, err)))
        return rc;
    if (a->o.replay && !a->ext)
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
        (rc = open_journal(resumes(a, t), job, &job->metrics, t->env,
                           &t->journal, &t->log, &t->have_log, err)))
        return rc;
    return kt_cli_workers_journal(&t->workers,
                                  t->journal.fd >= 0 ? &t->journal : NULL, err);
}
/* The search's configuration from the job and the run. */
static void configure(const tune_args *a, tune_run *t)
{
    const kt_job *job = &t->job;
    kt_tune_config *cfg = &t->cfg;

    memset(cfg, 0, sizeof *cfg);
    cfg->op = job->op;
    cfg->space = &job->space;
    cfg->ev = t->ev;
    cfg->workers = t->workers.evs;
    cfg->num_workers = t->workers.n;
    cfg->worker_envs = t->workers.envs;
    cfg->strategy = job->strategy;
    memcpy(cfg->options, job->options, sizeof cfg->options);
    cfg->seed = job->seed;
    cfg->max_evals = job->max_evals;
    cfg->max_seconds = job->max_seconds;
    cfg->finalists = job->finalists;
    cfg->min_gain = job->min_gain;
    cfg->objective = job->objective;
    cfg->protocol = job->protocol;
    cfg->journal = t->journal.fd >= 0 ? &t->journal : NULL;
    cfg->resume = t->have_log ? &t->log : NULL;
    cfg->progress = !a->quiet;
    cfg->profiling = &job->metrics;
    cfg->counters_unavailable = t->unavailable;
    cfg->copy_gbs = t->have_calib ? t->calib.copy_gbs : 0;
    cfg->peak_bw_gbs = t->have_calib ? t->calib.peak_bw_gbs : 0;
    cfg->gflops_measured = t->have_calib && t->calib.fp32_gflops > 0;
    cfg->peak_gflops =
        cfg->gflops_measured
            ? t->calib.fp32_gflops
            : kt_peak_gflops_fp32(
                  t->ev->ops->device(t->ev),
                  json_number_value(json_object_get(
                      json_object_get(t->env, "device"), "sm_clock_mhz")));
    cfg->notes = stderr;
}

/* --markdown: the file, or in a sweep one file per size (tagged like the
 * journal); "-" stays stdout. */
static kt_status write_markdown(const tune_args *a, const tune_run *t,
                                const kt_tune_facts *f, kt_err *err)
{
    char path[PATH_MAX];
    FILE *out;

    size_path(t, a->markdown, path);
    if (!(out = kt_out_open(path)))
        return kt_err_set(err, KT_S_IO, "--markdown %s: cannot write: %s", path,
                          strerror(errno));
    kt_summary_markdown(out, f, &t->result, t->job.top);
    if (kt_out_close(out) != 0)
        return kt_err_set(err, KT_S_IO, "--markdown %s: cannot write: %s", path,
                          strerror(errno));
    return KT_S_OK;
}

/* The summary on stdout, the output files, the sweep's row, and the exit
 * code. */
static int report_run(const tune_args *a, tune_run *t, kt_sweep_row *row)
{
    const kt_job *job = &t->job;
    kt_tune_facts facts;
    char note[1024];
    kt_err err;

    memset(&facts, 0, sizeof facts);
    facts.spec = job->spec;
    facts.plugin = job->plugin;
    facts.op = job->op;
    facts.space = &job->space;
    facts.sizes = job->sizes;
    facts.cfg = &t->cfg;
    facts.device_name = t->ev->ops->device(t->ev)->name;
    facts.work = t->ev->ops->work(t->ev);
    facts.copy_gbs = t->have_calib ? t->calib.copy_gbs : 0;
    facts.peak_gbs = t->have_calib ? t->calib.peak_bw_gbs : 0;
    facts.environment = t->env;
    facts.journal = t->cfg.journal ? job->journal : NULL;
    if (a->ext) {
        kt_replay_ext_note(t->ev, note, sizeof note);
        facts.replay_note = note;
    }
    if (a->o.replay) {
        facts.replay = a->o.replay;
        facts.has_optimum =
            a->ext ? kt_replay_ext_optimum(t->ev, &facts.optimum,
                                           &facts.optimum_stats)
                   : kt_replay_optimum(t->ev, &job->space, &facts.optimum,
                                       &facts.optimum_stats, NULL) == KT_S_OK;
    }
    if (!a->quiet)
        kt_summary_print(stdout, &facts, &t->result, job->top);
    if (write_outputs(job, &facts, &t->result, &err) ||
        (a->markdown && write_markdown(a, t, &facts, &err)))
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

    snprintf(resume_hint, sizeof resume_hint,
             "\nktune: stopped; the journal %s holds every evaluation so "
             "far; continue with: ktune tune %s --resume --journal %s\n",
             job->journal, a->config, job->journal);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Where this session's time went, after its evaluations in the journal.
 * quiet: the run failed and says why itself (a journal that cannot be
 * written then fails here too: one message, not two). */
static void journal_run(tune_run *t, int quiet)
{
    json_t *run;
    kt_err jerr;

    if (!t->cfg.journal)
        return;
    run = json_pack("{s:o,s:I,s:I,s:s}", "phases", kt_export_phases(&t->result),
                    "evaluations", (json_int_t)t->result.evaluations,
                    "measured", (json_int_t)t->result.measured, "stop_reason",
                    t->result.stop_reason ? t->result.stop_reason : "");
    if (kt_journal_record(t->cfg.journal, "run", run, &jerr) && !quiet)
        kt_msg("warning: %s\n", jerr.msg);
}

/* The evaluator lets go of the device once the run is done (a worker
 * ends), timed: the summary's time then holds all of it. */
static double release_device(kt_evaluator *ev)
{
    double t0 = kt_clock_seconds();

    if (ev && ev->ops->release)
        ev->ops->release(ev);
    return kt_clock_seconds() - t0;
}

/* An objective that needs energy where none is measured (NVML absent, a
 * replay of a recording without energy) is the job's mistake, found
 * before anything is measured: 0 and KT_S_INPUT saying why. */
static int energy_answers(const tune_run *t, kt_err *err)
{
    json_t *e = json_object_get(t->env, "energy");
    const char *note = json_string_value(json_object_get(e, "note"));

    if (!kt_objective_needs_energy(t->job.objective) ||
        json_is_true(json_object_get(e, "available")))
        return 1;
    kt_err_set(err, KT_S_INPUT,
               "[strategy] objective = %s needs energy measurements, and "
               "there are none here: %s",
               kt_objective_name(t->job.objective),
               note && note[0] ? note
                               : "this evaluator measures no energy (a "
                                 "replay of a recording made without it)");
    return 0;
}

/* Opens, searches and reports the current size; an exit code. *fatal is
 * set when the sweep cannot go on (no evaluator, a journal or evaluator
 * failure); a search that found nothing valid lets the next size run. */
static int tune(const tune_args *a, tune_run *t, kt_sweep_row *row, int *fatal)
{
    kt_err err;
    kt_status st;

    kt_err_clear(&err);
    *fatal = 1;
    if (open_run(a, t, &err))
        return kt_cli_fail(&err);
    configure(a, t);
    if (!energy_answers(t, &err))
        return kt_cli_fail(&err);
    if (t->cfg.journal)
        hint_on_stop(a, &t->job);
    st = kt_tune_run(&t->cfg, &t->result, &err);
    t->result.open_s = t->open_s;
    t->result.calibration_s = t->calib_s;
    t->result.exec_s = t->exec_s;
    t->result.close_s = release_device(t->ev);
    journal_run(t, st != KT_S_OK);
    if (st) {
        kt_msg("%s\n", err.msg);
        /* A sweep resumes every size's journal from the base name. */
        if (t->cfg.journal)
            kt_msg("the journal %s holds every evaluation so far; "
                   "continue with: ktune tune %s --resume --journal %s\n",
                   t->job.journal, a->config,
                   t->num_sizes > 1 ? t->base_journal : t->job.journal);
        return kt_status_exit_code(st);
    }
    *fatal = 0;
    return report_run(a, t, row);
}

/* Frees what belongs to one size; the job and the calibration stay. */
static void close_size(tune_run *t)
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

static void add_answer(const tune_run *t, sweep_out *s, const kt_sweep_row *r)
{
    const kt_device *dev = t->ev->ops->device(t->ev);
    kt_wisdom_answer *w = &s->answers[s->num_answers];

    snprintf(s->devices[s->num_answers], sizeof s->devices[0], "%s",
             dev->name ? dev->name : "?");
    w->spec = t->job.spec;
    w->plugin = t->job.plugin;
    w->op = t->job.op;
    w->device_name = s->devices[s->num_answers++];
    w->cc_major = dev->cc_major;
    w->cc_minor = dev->cc_minor;
    w->sizes = r->sizes;
    w->point = r->best;
    w->time_us = r->stats.median;
    w->ci_lo_us = r->stats.ci_lo;
    w->ci_hi_us = r->stats.ci_hi;
}

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
            printf("%s=== size %zu of %zu ===\n", i ? "\n" : "", i + 1,
                   t->num_sizes);
        memset(row, 0, sizeof *row);
        t->size_started = i ? kt_clock_seconds() : a->started;
        t->exec_s = i ? 0 : a->exec_s;
        one = tune(a, t, row, &fatal);
        if (!fatal)
            ++s->num_rows;
        if (!fatal && row->has_best) {
            int w;
            add_answer(t, s, row);
            w = s->failed ? KT_EXIT_OK : merge_wisdom(a, s);
            s->failed |= w != KT_EXIT_OK;
            one = w > one ? w : one;
        }
        close_size(t);
        rc = one > rc ? one : rc;
    }
    if (t->num_sizes > 1 && s->num_rows && !a->quiet)
        kt_sweep_print(stdout, t->job.spec, t->job.op,
                       s->num_answers ? s->devices[0] : NULL, s->rows,
                       s->num_rows);
    if (a->wisdom && s->num_answers && !s->failed)
        fprintf(a->quiet ? stderr : stdout,
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

/* Rank 0 of --mpi, after the run: the other ranks were closed and MPI is
 * finalised, or, when a rank was retired or the run failed, the job is
 * ended with the run's exit code (MPI cannot wait for a silent rank). */
static void finish_mpi(const tune_args *a, const tune_run *t, int rc)
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
    return kt_job_load_for(a->o.replay, spec, &a->ext->plugin, &a->ext->op,
                           a->o.sets.items, a->o.sets.count, job, err);
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
    kt_registry_init(&reg);
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
    if (apply_output_options(&a, &t->job, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (a.verify)
        t->job.verify_host = strcmp(a.verify, "host") == 0;
    if (a.devices && kt_job_devices(&t->job, a.devices, "--devices", &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (a.check) {
        print_check(&t->job);
        rc = a.o.replay ? print_recorded_device_check(&a, &t->job)
                        : check_device_settings(&a, &t->job);
        goto done;
    }
    if (a.resume && t->job.journal_mode == KT_JOB_JOURNAL_NONE) {
        rc = kt_cli_usage_error("tune", "--resume needs a journal: give "
                                        "--journal FILE");
        goto done;
    }
    if ((rc = start_mpi(&a, t, &mpi_done)) || mpi_done)
        goto done;
    rc =
        start_sweep(&a, t, &s, &err) ? kt_cli_fail(&err) : run_sweep(&a, t, &s);
    finish_mpi(&a, t, rc);
done:
    close_size(t);
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
