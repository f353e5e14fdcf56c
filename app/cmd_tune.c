/* ktune tune: search an operator's space for the fastest verified
 * configuration, as a tuning job (INI) describes it. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "core/envrec.h"
#include "core/evaluator.h"
#include "core/instance.h"
#include "core/parse.h"
#include "core/worker.h"
#include "metrics/cupti/counters.h"
#include "metrics/diagnose.h"
#include "tuner/export.h"
#include "tuner/job.h"
#include "tuner/journal.h"
#include "tuner/replay.h"
#include "tuner/summary.h"
#include "tuner/sweep.h"
#include "tuner/tune.h"
#include "tuner/wisdom.h"

static const char help[] =
    "usage: ktune tune CONFIG [--replay FILE] [--resume] [--journal FILE]\n"
    "                  [--json FILE] [--csv FILE] [--t4 FILE]\n"
    "                  [--set SECTION.KEY=VALUE]... [options]\n\n"
    "Searches the space a tuning job (INI, docs/configs.md) describes for\n"
    "the fastest configuration that verifies: every point verified before\n"
    "its time counts, changes compared with the incumbent in interleaved\n"
    "rounds, the best few re-measured together at the end. Prints the\n"
    "answer with its confidence interval (or the configurations it is\n"
    "statistically tied with), the top configurations and the search path.\n"
    "Every evaluation is appended to a journal as it happens.\n\n"
    "  --replay FILE       answer from a recorded journal instead of a GPU\n"
    "                      (any strategy; the problem is the recording's;\n"
    "                      repeated: a sweep over the recordings' sizes)\n"
    "  --wisdom FILE       merge the answer of each size into a wisdom file\n"
    "                      for applications (docs/wisdom.md)\n"
    "  --resume            continue the journal of a stopped run; finished\n"
    "                      evaluations are not measured again\n"
    "  --journal FILE      the journal ([output] journal; 'none': none)\n"
    "  --json FILE         summary: best (params, median_us), evaluations,\n"
    "                      ties, top, path, trace; in replay also the\n"
    "                      recorded optimum and the fraction evaluated\n"
    "  --csv FILE          one row per point visited\n"
    "  --t4 FILE           Kernel Tuner's T4 results format\n"
    "  --set S.K=VALUE     override a key of the job, e.g.\n"
    "                      --set strategy.name=exhaustive (repeatable)\n"
    "  --plugin FILE       load FILE too (repeatable)\n"
    "  --in-process        measure in this process, not in a worker process\n"
    "                      (a faulting kernel then ends the run)\n"
    "  --replay-delay S    replay: wait S seconds in every evaluation\n"
    "  --check             check the job and describe its space; measure\n"
    "                      nothing (no GPU needed)\n"
    "  --quiet             no summary table on stdout\n\n"
    "A size written as a list or range in [job] (n = 2^20..2^28 step x4;\n"
    "m, n = 1024x1024, 4096x4096) is a sweep: one search per size, each\n"
    "with its own journal (NAME.n1048576.jsonl), then a table per size.\n"
    "--resume continues every size's journal.\n\n"
    "Strategies ([strategy] name): one_at_a_time (default), exhaustive,\n"
    "random, annealing, genetic, guided (one_at_a_time ordered by the\n"
    "incumbent's hardware counters). A [metrics] section adds counters\n"
    "(CUPTI, on launches of their own) for every point or the best few to\n"
    "the journal and the summary. Exit 0 with an answer, 1 when nothing\n"
    "valid was found or the run failed, 2 for a bad job or option.\n";

typedef struct tune_args {
    const char *config;
    const char *replay, *journal, *json, *csv, *t4;
    char **sets, **plugins;
    size_t num_sets, num_plugins;
    int resume, in_process, quiet, check;
    double replay_delay;
    /* Sweeps and wisdom (tuner/sweep.h, tuner/wisdom.h): every --replay
     * (replay: the current one), and --wisdom FILE. */
    char **replays;
    size_t num_replays;
    const char *wisdom;
} tune_args;

static int parse_args(int argc, char **argv, tune_args *a, kt_err *err)
{
    static const struct option options[] = {
        {"replay", required_argument, NULL, 'r'},
        {"resume", no_argument, NULL, 'R'},
        {"journal", required_argument, NULL, 'J'},
        {"json", required_argument, NULL, 'j'},
        {"csv", required_argument, NULL, 'c'},
        {"t4", required_argument, NULL, 't'},
        {"set", required_argument, NULL, 's'},
        {"plugin", required_argument, NULL, 'p'},
        {"in-process", no_argument, NULL, 'I'},
        {"replay-delay", required_argument, NULL, 'D'},
        {"quiet", no_argument, NULL, 'q'},
        {"check", no_argument, NULL, 'C'},
        {"wisdom", required_argument, NULL, 'W'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'r':
            a->replay = a->replay ? a->replay : optarg;
            a->replays[a->num_replays++] = optarg;
            break;
        case 'W': a->wisdom = optarg; break;
        case 'R': a->resume = 1; break;
        case 'J': a->journal = optarg; break;
        case 'j': a->json = optarg; break;
        case 'c': a->csv = optarg; break;
        case 't': a->t4 = optarg; break;
        case 's': a->sets[a->num_sets++] = optarg; break;
        case 'p': a->plugins[a->num_plugins++] = optarg; break;
        case 'I': a->in_process = 1; break;
        case 'q': a->quiet = 1; break;
        case 'C': a->check = 1; break;
        case 'D':
            if (kt_parse_double(optarg, "--replay-delay", &a->replay_delay,
                                err))
                return KT_EXIT_USAGE;
            if (a->replay_delay < 0 || a->replay_delay > 60) {
                kt_err_set(err, KT_S_INPUT,
                           "--replay-delay: %s, expected 0 to 60 seconds",
                           optarg);
                return KT_EXIT_USAGE;
            }
            break;
        case 'h': fputs(help, stdout); return -1;
        default:
            kt_err_set(err, KT_S_INPUT,
                       "tune: bad option; see 'ktune tune "
                       "--help'");
            return KT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        kt_err_set(err, KT_S_INPUT,
                   optind >= argc ? "tune: CONFIG is missing; see 'ktune "
                                    "tune --help'"
                                  : "tune: one CONFIG expected");
        return KT_EXIT_USAGE;
    }
    a->config = argv[optind];
    if (a->replay_delay > 0 && !a->replay) {
        kt_err_set(err, KT_S_INPUT, "tune: --replay-delay needs --replay");
        return KT_EXIT_USAGE;
    }
    return KT_EXIT_OK;
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
            fprintf(stderr,
                    "ktune: journal %s exists (an earlier run; "
                    "--resume continues it): this run writes %s\n",
                    job->journal, candidate);
            snprintf(job->journal, sizeof job->journal, "%s", candidate);
            return;
        }
    }
}

/* The job's [output] paths, then the command line's. */
static void apply_output_options(const tune_args *a, kt_job *job)
{
    if (a->journal) {
        int none = strcmp(a->journal, "none") == 0;
        snprintf(job->journal, sizeof job->journal, "%s",
                 none ? "" : a->journal);
        job->journal_mode = none ? KT_JOB_JOURNAL_NONE : KT_JOB_JOURNAL_PATH;
    } else if (a->replay && job->journal_mode == KT_JOB_JOURNAL_AUTO) {
        /* A replay measures nothing new: no journal unless asked. */
        job->journal[0] = '\0';
        job->journal_mode = KT_JOB_JOURNAL_NONE;
    }
    if (a->json)
        snprintf(job->json, sizeof job->json, "%s", a->json);
    if (a->csv)
        snprintf(job->csv, sizeof job->csv, "%s", a->csv);
    if (a->t4)
        snprintf(job->t4, sizeof job->t4, "%s", a->t4);
}

static kt_status open_evaluator(const tune_args *a, kt_job *job,
                                const kt_profiling_spec *prof,
                                kt_evaluator **ev, kt_err *err)
{
    kt_worker_options wopt = {NULL, 0, 0};
    kt_eval_spec spec;
    kt_status rc;

    if (a->replay) {
        kt_replay_options opt = {.delay_s = a->replay_delay};
        return kt_replay_open(a->replay, job->plugin, job->op, &opt, ev, err);
    }
    memset(&spec, 0, sizeof spec);
    spec.plugin = job->plugin;
    spec.op = job->op;
    memcpy(spec.sizes, job->sizes, sizeof spec.sizes);
    spec.seed = job->input_seed;
    spec.device = job->device;
    spec.check_boundaries = job->boundaries;
    spec.log_level = KT_LOG_WARN;
    /* CUPTI only when counters are asked for: [metrics], or a strategy
     * guided by them. */
    spec.counters =
        kt_profiling_wants_counters(prof) ? kt_metrics_cupti_source() : NULL;
    wopt.eval_timeout_s = job->eval_timeout_s;
    rc = a->in_process ? kt_local_open(&spec, ev, err)
                       : kt_worker_open(&spec, &wopt, ev, err);
    if (rc == KT_S_NO_DEVICE) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        kt_err_set(err, KT_S_NO_DEVICE,
                   "%s; to watch a tuning run without a GPU, replay a "
                   "recorded one: ktune tune %s --replay JOURNAL (e.g. "
                   "tests/data/%s-*.jsonl)",
                   msg, a->config, job->plugin->desc.name);
    }
    return rc;
}

/* In replay the problem is the recording's: say so when the job's differs.
 */
static void take_recorded_problem(kt_job *job, kt_evaluator *ev,
                                  const char *recording)
{
    const int64_t *rec = kt_replay_sizes(ev);
    char want[256], got[256];
    int differ = 0;

    for (uint32_t i = 0; i < job->op->num_sizes; ++i)
        differ |= rec[i] != job->sizes[i];
    if (differ) {
        kt_format_sizes(job->op, job->sizes, want, sizeof want);
        kt_format_sizes(job->op, rec, got, sizeof got);
        fprintf(stderr,
                "ktune: replay: %s is recorded at %s; the job's %s does not "
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
    if (prof->points != KT_PROFILING_OFF || prof->for_strategy)
        kt_journal_header_metrics(header, kt_profiling_spec_json(prof));
    if (!resume) {
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
        fprintf(stderr, "ktune: note: %s\n", note);
    if ((rc = kt_journal_read(job->journal, job->op, log, err)))
        return rc;
    *have_log = 1;
    if (log->note[0])
        fprintf(stderr, "ktune: note: %s\n", log->note);
    return kt_journal_continue(journal, job->journal, log,
                               json_deep_copy(environment), err);
}

/* --check: what the job would do. */
static void print_check(const kt_job *job)
{
    char sizes[256];
    kt_format_sizes(job->op, job->sizes, sizes, sizeof sizes);
    printf("%s: %s  %s, input seed %llu\n", job->path, job->spec, sizes,
           (unsigned long long)job->input_seed);
    if (job->num_sweep > 1) {
        printf("sweep of %zu sizes, one search each:", job->num_sweep);
        for (size_t i = 0; i < job->num_sweep; ++i) {
            kt_format_sizes(job->op, job->sweep[i], sizes, sizeof sizes);
            printf("%s %s", i ? "," : "", sizes);
        }
        printf("\n");
    }
    printf("space %llu point(s) before device limits:\n",
           (unsigned long long)job->space.size);
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
        printf("\n");
    }
    printf("strategy %s, seed %llu, max_evals %zu, max_seconds %g, "
           "finalists %zu, min_gain %g\n",
           job->strategy->name, (unsigned long long)job->seed, job->max_evals,
           job->max_seconds, job->finalists, job->min_gain);
    printf("measure warmups %d, samples %zu..%zu, time %g..%g s, noise %g, "
           "cache %s\n",
           job->protocol.warmups, job->protocol.min_samples,
           job->protocol.max_samples, job->protocol.min_time_s,
           job->protocol.max_time_s, job->protocol.target_noise,
           kt_cache_mode_name(job->protocol.cache));
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
        fprintf(stderr,
                "ktune: no hardware counters: %s; continuing without "
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

/* ------------------------------------------------------------- sweeps */

/* What the searches of one run share: the job, the profiling spec, the
 * calibration (measured once, for the first size), the paths each size
 * derives its own from, and the rows and answers collected. */
typedef struct sweep_ctx {
    const tune_args *a;
    kt_job *job;
    kt_profiling_spec prof;
    int have_calib, calib_tried;
    kt_calibration calib;
    size_t num_sizes; /* job->num_sweep, or one per --replay */
    char journal[PATH_MAX], json[PATH_MAX], csv[PATH_MAX], t4[PATH_MAX];
    int number_journals; /* an existing journal gets a numbered successor */
    kt_sweep_row *rows;
    kt_wisdom_answer *answers;
    char (*devices)[256];
    size_t num_rows, num_answers;
    char *invocation; /* for messages */
} sweep_ctx;

/* dst: base, or base with size i's tag in a sweep; "" stays "". */
static void size_path(const sweep_ctx *c, const char *base, char *dst)
{
    if (!base[0] || c->num_sizes == 1)
        snprintf(dst, PATH_MAX, "%s", base);
    else
        kt_sweep_path(base, c->job->op, c->job->sizes, dst, PATH_MAX);
}

/* Points the job at size i: its sizes, or its recording (whose sizes are
 * known once it is open). */
static void set_size(sweep_ctx *c, tune_args *a, size_t i)
{
    if (a->num_replays)
        a->replay = a->replays[i];
    else
        memcpy(c->job->sizes, c->job->sweep[i], sizeof c->job->sizes);
}

/* The file names of the job's current size. */
static void name_outputs(sweep_ctx *c)
{
    kt_job *job = c->job;

    size_path(c, c->journal, job->journal);
    size_path(c, c->json, job->json);
    size_path(c, c->csv, job->csv);
    size_path(c, c->t4, job->t4);
    if (c->number_journals)
        next_free_journal(job);
}

static void calibrate_once(sweep_ctx *c, kt_evaluator *ev)
{
    kt_err err;
    if (c->calib_tried)
        return;
    c->calib_tried = 1;
    kt_err_clear(&err);
    c->have_calib = ev->ops->calibration(ev, 0, &c->calib, &err) == KT_S_OK;
    if (!c->have_calib && !c->a->replay)
        fprintf(stderr,
                "ktune: warning: no calibration, so no %% of the copy "
                "ceiling: %s\n",
                err.msg);
}

static json_t *size_environment(sweep_ctx *c, kt_evaluator *ev, int argc,
                                char **argv)
{
    json_t *env = ev->ops->environment(ev);
    kt_cli_invocation(&argc, &argv);
    json_object_set_new(env, "host", kt_env_host(argc, argv));
    json_object_set_new(env, "protocol", kt_env_protocol(&c->job->protocol));
    if (c->have_calib)
        json_object_set_new(env, "calibration", kt_calib_to_json(&c->calib));
    return env;
}

static void fill_config(const sweep_ctx *c, kt_evaluator *ev, json_t *env,
                        kt_tune_config *cfg)
{
    const kt_job *job = c->job;
    memset(cfg, 0, sizeof *cfg);
    cfg->op = job->op;
    cfg->space = &job->space;
    cfg->ev = ev;
    cfg->strategy = job->strategy;
    memcpy(cfg->options, job->options, sizeof cfg->options);
    cfg->seed = job->seed;
    cfg->max_evals = job->max_evals;
    cfg->max_seconds = job->max_seconds;
    cfg->finalists = job->finalists;
    cfg->min_gain = job->min_gain;
    cfg->protocol = job->protocol;
    cfg->progress = !c->a->quiet;
    cfg->profiling = &c->prof;
    cfg->copy_gbs = c->have_calib ? c->calib.copy_gbs : 0;
    cfg->peak_bw_gbs = c->have_calib ? c->calib.peak_bw_gbs : 0;
    cfg->peak_gflops = kt_peak_gflops_fp32(
        ev->ops->device(ev),
        json_number_value(
            json_object_get(json_object_get(env, "device"), "sm_clock_mhz")));
    cfg->notes = stderr;
}

static void fill_facts(const sweep_ctx *c, kt_evaluator *ev, json_t *env,
                       const kt_tune_config *cfg, kt_tune_facts *f)
{
    const kt_job *job = c->job;
    memset(f, 0, sizeof *f);
    f->spec = job->spec;
    f->plugin = job->plugin;
    f->op = job->op;
    f->space = &job->space;
    f->sizes = job->sizes;
    f->cfg = cfg;
    f->device_name = ev->ops->device(ev)->name;
    f->work = ev->ops->work(ev);
    f->copy_gbs = c->have_calib ? c->calib.copy_gbs : 0;
    f->peak_gbs = c->have_calib ? c->calib.peak_bw_gbs : 0;
    f->environment = env;
    f->journal = cfg->journal ? job->journal : NULL;
    if (c->a->replay) {
        f->replay = c->a->replay;
        f->has_optimum = kt_replay_optimum(ev, &job->space, &f->optimum,
                                           &f->optimum_stats, NULL) == KT_S_OK;
    }
}

/* The row of the table and, with an answer, the wisdom entry. */
static void record_size(sweep_ctx *c, kt_evaluator *ev, const kt_tune_facts *f,
                        const kt_tune_result *r)
{
    const kt_device *dev = ev->ops->device(ev);
    kt_sweep_row *row = &c->rows[c->num_rows++];
    kt_wisdom_answer *w;

    kt_sweep_row_fill(f, r, row);
    if (!row->has_best)
        return;
    w = &c->answers[c->num_answers];
    snprintf(c->devices[c->num_answers], sizeof c->devices[0], "%s",
             dev->name ? dev->name : "?");
    w->spec = c->job->spec;
    w->plugin = c->job->plugin;
    w->op = c->job->op;
    w->device_name = c->devices[c->num_answers++];
    w->cc_major = dev->cc_major;
    w->cc_minor = dev->cc_minor;
    w->sizes = row->sizes;
    w->point = row->best;
    w->time_us = row->stats.median;
    w->ci_lo_us = row->stats.ci_lo;
    w->ci_hi_us = row->stats.ci_hi;
}

/* A resumed sweep continues each size's journal; a size the stopped run
 * never reached has none yet and starts one. */
static int resumes(const sweep_ctx *c)
{
    if (!c->a->resume)
        return 0;
    if (c->num_sizes > 1 && access(c->job->journal, F_OK) != 0) {
        fprintf(stderr, "ktune: --resume: no journal %s yet: starting it\n",
                c->job->journal);
        return 0;
    }
    return 1;
}
/* KT_EXIT_OK when the search has an answer; else says so. */
static int answered(const kt_job *job, const kt_tune_result *r)
{
    if (r->has_best)
        return KT_EXIT_OK;
    fprintf(stderr,
            "ktune: no configuration of %s verified and timed (%zu "
            "evaluated)%s%s\n",
            job->spec, r->evaluations, r->note[0] ? ": " : "", r->note);
    return KT_EXIT_FAILURE;
}

/* One search: the job at its current size. *fatal is set when the sweep
 * cannot go on (no evaluator, a journal or evaluator failure); a search
 * that found nothing valid lets the next size run. */
static int tune_size(sweep_ctx *c, int argc, char **argv, int *fatal)
{
    const tune_args *a = c->a;
    kt_job *job = c->job;
    kt_evaluator *ev = NULL;
    kt_journal journal = {.fd = -1};
    kt_journal_log log;
    kt_tune_config cfg;
    kt_tune_result result;
    kt_tune_facts facts;
    const char *unavailable = NULL;
    char why[1024] = "";
    json_t *env = NULL;
    int have_log = 0, rc = KT_EXIT_FAILURE;
    kt_err err;
    kt_status st;

    memset(&log, 0, sizeof log);
    memset(&result, 0, sizeof result);
    kt_err_clear(&err);
    *fatal = 1;
    if (open_evaluator(a, job, &c->prof, &ev, &err) ||
        check_counters(ev, job, &c->prof, why, sizeof why, &unavailable,
                       &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (a->replay)
        take_recorded_problem(job, ev, a->replay);
    name_outputs(c);
    kt_space_bind(&job->space, job->sizes, job->input_seed,
                  ev->ops->device(ev));
    calibrate_once(c, ev);
    env = size_environment(c, ev, argc, argv);
    if (job->journal_mode != KT_JOB_JOURNAL_NONE &&
        open_journal(resumes(c), job, &c->prof, env, &journal, &log, &have_log,
                     &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    fill_config(c, ev, env, &cfg);
    cfg.journal = journal.fd >= 0 ? &journal : NULL;
    cfg.resume = have_log ? &log : NULL;
    cfg.counters_unavailable = unavailable;
    if ((st = kt_tune_run(&cfg, &result, &err))) {
        fprintf(stderr, "ktune: %s\n", err.msg);
        /* A sweep resumes every size's journal from the base name. */
        if (cfg.journal)
            fprintf(stderr,
                    "ktune: the journal %s holds every evaluation so far; "
                    "continue with: ktune tune %s --resume --journal %s\n",
                    job->journal, a->config,
                    c->num_sizes > 1 ? c->journal : job->journal);
        rc = kt_status_exit_code(st);
        goto done;
    }
    fill_facts(c, ev, env, &cfg, &facts);
    if (!a->quiet)
        kt_summary_print(stdout, &facts, &result, job->top);
    if (write_outputs(job, &facts, &result, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    record_size(c, ev, &facts, &result);
    *fatal = 0;
    rc = answered(job, &result);
done:
    kt_tune_result_free(&result);
    if (journal.fd >= 0)
        kt_journal_close(&journal);
    if (have_log)
        kt_journal_log_free(&log);
    json_decref(env);
    if (ev)
        ev->ops->close(ev);
    return rc;
}

/* --wisdom: the answers found, merged; a failure here fails the run. */
static int merge_wisdom(const sweep_ctx *c)
{
    size_t added = 0, replaced = 0;
    kt_err err;

    if (!c->a->wisdom)
        return KT_EXIT_OK;
    kt_err_clear(&err);
    if (kt_wisdom_merge(c->a->wisdom, c->answers, c->num_answers, &added,
                        &replaced, &err))
        return kt_cli_fail(&err);
    fprintf(c->a->quiet ? stderr : stdout,
            "\nwisdom %s: %zu answer(s) added, %zu replaced\n", c->a->wisdom,
            added, replaced);
    return KT_EXIT_OK;
}

/* Every size in turn; the table and the wisdom at the end. */
static int run_sweep(sweep_ctx *c, tune_args *a, int argc, char **argv)
{
    int rc = KT_EXIT_OK, fatal = 0;

    c->rows = calloc(c->num_sizes, sizeof *c->rows);
    c->answers = calloc(c->num_sizes, sizeof *c->answers);
    c->devices = calloc(c->num_sizes, sizeof *c->devices);
    if (!c->rows || !c->answers || !c->devices) {
        fprintf(stderr, "ktune: out of memory\n");
        return KT_EXIT_FAILURE;
    }
    for (size_t i = 0; i < c->num_sizes && !fatal; ++i) {
        int one;
        set_size(c, a, i);
        if (c->num_sizes > 1 && !a->quiet)
            printf("%s=== size %zu of %zu ===\n", i ? "\n" : "", i + 1,
                   c->num_sizes);
        one = tune_size(c, argc, argv, &fatal);
        rc = one > rc ? one : rc;
    }
    if (c->num_sizes > 1 && c->num_rows && !a->quiet)
        kt_sweep_print(stdout, c->job->spec, c->job->op,
                       c->num_answers ? c->devices[0] : NULL, c->rows,
                       c->num_rows);
    if (c->num_answers) {
        int w = merge_wisdom(c);
        rc = w > rc ? w : rc;
    }
    return rc;
}

static void sweep_free(sweep_ctx *c)
{
    free(c->rows);
    free(c->answers);
    free(c->devices);
}

int kt_cmd_tune(int argc, char **argv)
{
    tune_args a;
    kt_registry reg;
    kt_job job;
    sweep_ctx c;
    int have_job = 0, rc;
    kt_err err;

    memset(&a, 0, sizeof a);
    memset(&c, 0, sizeof c);
    kt_err_clear(&err);
    kt_registry_init(&reg);
    a.sets = calloc((size_t)argc + 1, sizeof *a.sets);
    a.plugins = calloc((size_t)argc + 1, sizeof *a.plugins);
    a.replays = calloc((size_t)argc + 1, sizeof *a.replays);
    if (!a.sets || !a.plugins || !a.replays) {
        kt_err_set(&err, KT_S_NOMEM, "out of memory");
        rc = kt_cli_fail(&err);
        goto done;
    }
    rc = parse_args(argc, argv, &a, &err);
    if (rc) {
        rc = rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
        goto done;
    }
    kt_cli_load_plugins(&reg, a.plugins, a.num_plugins, 0);
    if (kt_job_load(a.config, a.sets, a.num_sets, &reg, &job, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    have_job = 1;
    apply_output_options(&a, &job);
    if (a.check) {
        print_check(&job);
        rc = KT_EXIT_OK;
        goto done;
    }
    if (a.resume && job.journal_mode == KT_JOB_JOURNAL_NONE) {
        rc = kt_cli_usage_error("tune", "--resume needs a journal: give "
                                        "--journal FILE");
        goto done;
    }
    if (kt_profiling_effective(&job.metrics, job.strategy->uses_counters,
                               &c.prof, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    c.a = &a;
    c.job = &job;
    c.num_sizes = a.num_replays ? a.num_replays : job.num_sweep;
    memcpy(c.journal, job.journal, sizeof c.journal);
    memcpy(c.json, job.json, sizeof c.json);
    memcpy(c.csv, job.csv, sizeof c.csv);
    memcpy(c.t4, job.t4, sizeof c.t4);
    c.number_journals =
        !a.journal && !a.resume && job.journal_mode != KT_JOB_JOURNAL_NONE;
    rc = run_sweep(&c, &a, argc, argv);
done:
    sweep_free(&c);
    if (have_job)
        kt_job_free(&job);
    kt_registry_free(&reg);
    free(a.sets);
    free(a.plugins);
    free(a.replays);
    return rc;
}
