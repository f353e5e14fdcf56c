// SPDX-License-Identifier: Apache-2.0
/* ktune timeline: a CUDA program's timeline without Nsight Systems — the
 * program runs unchanged with ktune's tracer injected, and ktune prints
 * where its time went (docs/timeline.md). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/options.h"
#include "core/childenv.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/parse.h"
#include "timeline/json.h"
#include "timeline/launch.h"
#include "timeline/print.h"

static const char help[] =
    "usage: ktune timeline [options] [--] PROGRAM [ARGS...]\n"
    "       ktune timeline [options] --records DIR\n\n"
    "Runs PROGRAM unchanged with ktune's CUPTI tracer injected\n"
    "(CUDA_INJECTION64_PATH; child processes that use CUDA are traced too)\n"
    "and prints, after the program's own output, where its time went:\n"
    "CUDA API, GPU kernel and memory-operation summaries, the kernels in\n"
    "launch order, the GPU's idle gaps, copy against kernel time, and a\n"
    "reading in words (docs/timeline.md).\n\n"
    "  --json FILE      the timeline as JSON (for 'ktune report FILE')\n"
    "  --csv FILE       every GPU operation and API call as CSV\n"
    "  -o, --output FILE  the summary to FILE instead of stdout\n"
    "  --top N          kernels listed in launch order (default 20; 0: none)\n"
    "  --rows N         rows per summary table (default 15; 0: all)\n"
    "  --keep DIR       keep the tracer's record files in DIR (a new or\n"
    "                   empty folder)\n"
    "  --records DIR    summarise the record files of an earlier --keep\n"
    "                   run instead of running a program\n"
    "  --no-driver      leave driver API calls out (less overhead)\n"
    "  --no-trace       run PROGRAM untraced and report its wall time only\n"
    "                   (the baseline the tracing overhead is measured on)\n\n"
    "Environment: KTUNE_TRACER names the tracer library (default: the one\n"
    "next to ktune); KTUNE_TIMELINE_FLUSH_MS how often records reach the\n"
    "files (default 200: a crash loses at most that much).\n\n"
    "Exit status: PROGRAM's own (128 + N when signal N ended it); 2 for a\n"
    "bad option or a program that cannot be run; 1 when ktune fails.\n";

typedef struct tl_args {
    kt_cli_options o; /* --json, --csv; the operands: PROGRAM [ARGS...] */
    const char *json, *csv, *output, *keep, *records;
    long top, rows;
    int no_driver, no_trace;
    char **program; /* NULL-terminated */
    int program_argc;
} tl_args;

static kt_status parse_count(const char *arg, const char *name, long *out,
                             kt_err *err)
{
    int64_t v;
    kt_status s = kt_parse_i64(arg, name, &v, err);
    if (s)
        return s;
    if (v < 0 || v > 1000000)
        return kt_err_set(err, KT_S_INPUT, "%s: %s, expected 0 to 1000000",
                          name, arg);
    *out = (long)v;
    return KT_S_OK;
}

static kt_status own_option(void *ctx, int opt, char *arg, kt_err *err)
{
    tl_args *a = ctx;
    switch (opt) {
    case 'o': a->output = arg; break;
    case 't': return parse_count(arg, "--top", &a->top, err);
    case 'r': return parse_count(arg, "--rows", &a->rows, err);
    case 'k': a->keep = arg; break;
    case 'R': a->records = arg; break;
    case 'D': a->no_driver = 1; break;
    default: a->no_trace = 1; break; /* 'U' */
    }
    return KT_S_OK;
}

static int parse_args(int argc, char **argv, tl_args *a, kt_err *err)
{
    static const struct option own[] = {
        {"output", required_argument, NULL, 'o'},
        {"top", required_argument, NULL, 't'},
        {"rows", required_argument, NULL, 'r'},
        {"keep", required_argument, NULL, 'k'},
        {"records", required_argument, NULL, 'R'},
        {"no-driver", no_argument, NULL, 'D'},
        {"no-trace", no_argument, NULL, 'U'},
        {NULL, 0, NULL, 0}};
    /* '+': options end at PROGRAM, whose own options are its business. */
    const kt_cli_command cmd = {.name = "timeline",
                                .help = help,
                                .shared = KT_OPT_JSON | KT_OPT_CSV,
                                .own = own,
                                .short_opts = "+o:",
                                .apply = own_option,
                                .ctx = a};
    int rc = kt_cli_parse(argc, argv, &cmd, &a->o, err);

    if (rc)
        return rc;
    a->json = a->o.json;
    a->csv = a->o.csv;
    a->program = a->o.operands;
    a->program_argc = a->o.num_operands;
    if (a->records && a->program_argc > 0)
        kt_err_set(err, KT_S_INPUT,
                   "timeline: --records summarises earlier records; it "
                   "takes no PROGRAM");
    else if (!a->records && a->program_argc == 0)
        kt_err_set(err, KT_S_INPUT,
                   "timeline: PROGRAM is missing; see 'ktune timeline "
                   "--help'");
    else if (a->records && a->no_trace)
        kt_err_set(err, KT_S_INPUT,
                   "timeline: --no-trace runs a PROGRAM, --records none");
    else
        return KT_EXIT_OK;
    return KT_EXIT_USAGE;
}

/* libktune_trace.so next to the plugin folder: build/ in the build tree,
 * <libdir>/ktune when installed; KTUNE_TRACER overrides. */
static kt_status find_tracer(char *out, size_t size, kt_err *err)
{
    const char *env = getenv("KTUNE_TRACER");
    char dir[PATH_MAX];
    if (env && *env) {
        snprintf(out, size, "%s", env);
    } else {
        kt_cli_builtin_dir(dir, sizeof dir);
        snprintf(out, size, "%s/../libktune_trace.so", dir);
    }
    if (access(out, R_OK) != 0)
        return kt_err_set(err, KT_S_IO,
                          "the tracer %s is missing (%s): rebuild ktune, or "
                          "name it with KTUNE_TRACER",
                          out, strerror(errno));
    /* The driver loads it by this path from the program's folder. */
    if (out[0] != '/' && realpath(out, dir))
        snprintf(out, size, "%s", dir);
    return KT_S_OK;
}

/* The folder the tracer writes into: --keep DIR (made, or empty), else a
 * fresh temporary one that is removed afterwards. */
static kt_status make_record_dir(const tl_args *a, char *out, size_t size,
                                 kt_err *err)
{
    const char *tmp = getenv("TMPDIR");
    char abs[PATH_MAX];
    if (a->keep) {
        if (mkdir(a->keep, 0700) != 0 && errno != EEXIST)
            return kt_err_set(err, KT_S_INPUT, "--keep %s: %s", a->keep,
                              strerror(errno));
        if (!realpath(a->keep, abs))
            return kt_err_set(err, KT_S_INPUT, "--keep %s: %s", a->keep,
                              strerror(errno));
        snprintf(out, size, "%s", abs);
        return KT_S_OK;
    }
    snprintf(out, size, "%s/ktune-timeline-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(out))
        return kt_err_set(err, KT_S_IO,
                          "cannot make a folder for the "
                          "records (%s): %s",
                          out, strerror(errno));
    return KT_S_OK;
}

static void remove_record_dir(const char *dir)
{
    kt_tl_trace t;
    kt_err err;
    kt_tl_trace_init(&t);
    /* Only the files the tracer writes are there. */
    if (kt_tl_read_dir(&t, dir, &err) == KT_S_OK)
        for (size_t i = 0; i < t.num_procs; ++i)
            unlink(t.procs[i].file);
    kt_tl_trace_free(&t);
    if (rmdir(dir) != 0)
        kt_msg("left %s behind: %s\n", dir, strerror(errno));
}

/* The JSON and CSV files asked for. */
static kt_status write_files(const tl_args *a, const kt_tl_summary *s,
                             const kt_tl_json_info *info, kt_err *err)
{
    FILE *f;
    /* "-" is the kept stdout (core/outfile.h): the traced program's own
     * output went to stderr. */
    if (a->json) {
        json_t *j = kt_tl_to_json(s, info);
        int bad = !j || !(f = kt_out_open(a->json));
        if (!bad) {
            bad =
                json_dumpf(j, f, JSON_INDENT(1)) != 0 || fputc('\n', f) == EOF;
            if (bad)
                kt_out_discard(f);
            else
                bad = kt_out_close(f) != 0;
        }
        json_decref(j);
        if (bad)
            return kt_err_set(err, KT_S_IO, "--json %s: cannot be written",
                              a->json);
    }
    if (a->csv) {
        if (!(f = kt_out_open(a->csv)))
            return kt_err_set(err, KT_S_IO, "--csv %s: %s", a->csv,
                              strerror(errno));
        if (kt_tl_write_csv(f, s) != 0) {
            kt_out_discard(f);
            return kt_err_set(err, KT_S_IO, "--csv %s: cannot be written",
                              a->csv);
        }
        if (kt_out_close(f) != 0)
            return kt_err_set(err, KT_S_IO, "--csv %s: cannot be written: %s",
                              a->csv, strerror(errno));
    }
    return KT_S_OK;
}

static void print_head(FILE *out, const tl_args *a, const kt_tl_run *run,
                       const kt_tl_summary *s)
{
    char wall[32];
    fprintf(out, "\n== ktune timeline:");
    for (int i = 0; i < a->program_argc; ++i)
        fprintf(out, " %s", a->program[i]);
    if (a->records)
        fprintf(out, " records in %s", a->records);
    fprintf(out, " ==\n");
    kt_tl_fmt_time(s->wall, wall, sizeof wall);
    if (run && run->signal)
        fprintf(out, "program wall time %s (traced); ended by signal %d (%s)\n",
                wall, run->signal, strsignal(run->signal));
    else if (run)
        fprintf(out, "program wall time %s (traced); exit code %d\n", wall,
                run->exit_code);
    else
        fprintf(out,
                "wall time %s (from the records: CUDA start-up to the "
                "last record)\n",
                wall);
    kt_tl_print_processes(out, s);
}

/* Reads dir, prints the summary to out and writes the files. Returns 0,
 * or the exit code of a failure. */
static int summarise(const tl_args *a, const char *dir, const kt_tl_run *run,
                     FILE *out)
{
    kt_tl_trace t;
    kt_tl_summary s;
    kt_tl_print_opts po = {.top = (size_t)a->top, .max_rows = (size_t)a->rows};
    kt_tl_json_info info = {.argc = a->program_argc, .argv = a->program};
    kt_err err;
    int rc = KT_EXIT_OK;

    kt_tl_trace_init(&t);
    memset(&s, 0, sizeof s);
    if (kt_tl_read_dir(&t, dir, &err) ||
        kt_tl_summarise(&s, &t, run ? run->wall : 0, run ? run->start_mono : 0,
                        &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    if (run) {
        info.exit_code = run->exit_code;
        info.signal = run->signal;
        info.measured = 1;
    }
    if (t.num_procs == 0) {
        kt_msg("%s made no CUDA call: no process "
               "initialised the CUDA driver (the tracer starts there), so "
               "there is nothing on the GPU to show\n",
               a->records ? a->records : a->program[0]);
        goto files;
    }
    print_head(out, a, run, &s);
    if (kt_tl_print_problems(out, &t) == t.num_procs && t.num_ops == 0)
        fprintf(out, "  nothing was traced: see above\n");
    else
        kt_tl_print(out, &s, &po);
files:
    if (write_files(a, &s, &info, &err))
        rc = kt_cli_fail(&err);
done:
    kt_tl_summary_free(&s);
    kt_tl_trace_free(&t);
    return rc;
}

/* The program under tracer (NULL: untraced), its environment naming the
 * tracer, the record folder and --no-driver's choice. */
static kt_status launch_traced(const tl_args *a, const char *tracer,
                               const char *dir, kt_tl_run *run, kt_err *err)
{
    kt_childenv_changes vars = {.n = 0};
    kt_status s;

    if (tracer) {
        kt_childenv_change(&vars, "CUDA_INJECTION64_PATH", tracer);
        kt_childenv_change(&vars, "KTUNE_TIMELINE_DIR", dir);
    }
    if (a->no_driver)
        kt_childenv_change(&vars, "KTUNE_TIMELINE_DRIVER", "0");
    if (!(s = kt_childenv_changes_check(&vars, err)))
        s = kt_tl_launch_env(a->program, kt_childenv_changes_list(&vars), run,
                             err);
    kt_childenv_changes_free(&vars);
    return s;
}

/* Runs PROGRAM (found the way a shell finds it) with tracer (NULL:
 * untraced) and says how it ended. */
static kt_status launch(const tl_args *a, const char *tracer, const char *dir,
                        kt_tl_run *run, kt_err *err)
{
    char program[PATH_MAX], *saved = a->program[0];
    kt_status s = kt_tl_find_program(saved, program, sizeof program, err);
    if (s)
        return s;
    a->program[0] = program;
    s = launch_traced(a, tracer, dir, run, err);
    a->program[0] = saved;
    if (!s && run->signal)
        kt_msg("%s was ended by signal %d (%s)%s%s\n", saved, run->signal,
               strsignal(run->signal), run->core_dumped ? ", core dumped" : "",
               tracer ? "; what was recorded up to then follows" : "");
    return s;
}

/* --no-trace: the program's wall time, measured as a traced run's is. */
static int run_untraced(const tl_args *a, FILE *out)
{
    kt_tl_trace t;
    kt_tl_summary s;
    kt_tl_json_info info = {.argc = a->program_argc, .argv = a->program};
    kt_tl_run run;
    kt_err err;
    char wall[32];
    int rc;

    if (launch(a, NULL, NULL, &run, &err))
        return kt_cli_fail(&err);
    kt_tl_trace_init(&t);
    if (kt_tl_summarise(&s, &t, run.wall, run.start_mono, &err))
        return kt_cli_fail(&err);
    kt_tl_fmt_time(run.wall, wall, sizeof wall);
    fprintf(out,
            "\n== ktune timeline --no-trace: %s ==\nprogram wall time %s "
            "(untraced: nothing recorded); exit status %d\n",
            a->program[0], wall, kt_tl_run_status(&run));
    info.exit_code = run.exit_code;
    info.signal = run.signal;
    info.measured = 1;
    info.untraced = 1;
    rc = write_files(a, &s, &info, &err) ? kt_cli_fail(&err)
                                         : kt_tl_run_status(&run);
    kt_tl_summary_free(&s);
    return rc;
}

static int run_traced(const tl_args *a, FILE *out)
{
    char program[PATH_MAX], tracer[PATH_MAX], dir[PATH_MAX];
    const char *injected = getenv("CUDA_INJECTION64_PATH");
    kt_tl_run run;
    kt_err err;
    int rc;

    /* A missing program is the user's mistake (2), found before ktune's. */
    if (kt_tl_find_program(a->program[0], program, sizeof program, &err))
        return kt_cli_fail(&err);
    if (find_tracer(tracer, sizeof tracer, &err) ||
        make_record_dir(a, dir, sizeof dir, &err))
        return kt_cli_fail(&err);
    if (injected && *injected && strcmp(injected, tracer) != 0)
        kt_msg("CUDA_INJECTION64_PATH was %s: another tool "
               "(Nsight Systems or Compute, compute-sanitizer) injects into "
               "CUDA programs; it sees nothing of this run\n",
               injected);
    if (launch(a, tracer, dir, &run, &err)) {
        rc = kt_cli_fail(&err);
        goto done;
    }
    rc = summarise(a, dir, &run, out);
    if (rc == KT_EXIT_OK)
        rc = kt_tl_run_status(&run);
done:
    if (!a->keep)
        remove_record_dir(dir);
    return rc;
}

int kt_cmd_timeline(int argc, char **argv)
{
    tl_args a = {.top = 20, .rows = 15};
    kt_err err;
    FILE *out = stdout;
    int rc = parse_args(argc, argv, &a, &err);

    if (rc) {
        kt_cli_options_free(&a.o);
        return rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
    }
    if (a.output && strcmp(a.output, "-") != 0 &&
        !(out = kt_out_open(a.output)))
        return kt_cli_usage_error("timeline", "-o %s: %s", a.output,
                                  strerror(errno));
    rc = a.records    ? summarise(&a, a.records, NULL, out)
         : a.no_trace ? run_untraced(&a, out)
                      : run_traced(&a, out);
    /* Kept even when the program failed: its summary says how. */
    if (out != stdout && kt_out_close(out) != 0) {
        kt_msg("-o %s: cannot write: %s\n", a.output, strerror(errno));
        rc = KT_EXIT_FAILURE;
    }
    kt_cli_options_free(&a.o);
    return rc;
}
