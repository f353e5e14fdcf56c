// SPDX-License-Identifier: Apache-2.0
/* ktune report: one self-contained HTML file (inline SVG, no script, no
 * network) drawn from tuning or compare results (docs/report.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "core/envrec.h"
#include "core/fileio.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/param.h"
#include "core/parse.h"
#include "core/version.h"
#include "report/document.h"
#include "report/fig_timeline.h"
#include "report/sources.h"

static const char help[] =
    "usage: ktune report RESULTS [-o FILE] [--journal FILE] [options]\n\n"
    "Writes one self-contained HTML report (inline SVG charts; no script,\n"
    "nothing fetched) from RESULTS: a tune summary (ktune tune --json), a\n"
    "tuner journal, or a compare record (ktune compare --json). It shows\n"
    "the answer, time against each parameter, the search path, a roofline,\n"
    "the calibration's bandwidth against working set, variants side by\n"
    "side, what could not run, and the environment record and protocol.\n\n"
    "  -o, --output FILE   the report (default report.html; '-': stdout)\n"
    "  --journal FILE      the run's journal, for every evaluated point (a\n"
    "                      summary keeps only its top N); by default the\n"
    "                      journal the summary names, when it is readable\n"
    "  --no-journal        do not look for the summary's journal\n"
    "  --plugin FILE       load FILE too (repeatable): the roofline needs\n"
    "                      the operator's work when the results lack it\n"
    "  --no-plugins        load no plugin (the roofline is then left out\n"
    "                      unless the results record the work)\n"
    "  --title TEXT        the report's title\n"
    "  --top N             rows of the top table (default 30)\n\n"
    "A timeline (ktune timeline --json) is drawn as one SVG chart instead\n"
    "(default -o timeline.svg): a lane per stream, kernels and copies as\n"
    "bars, the largest idle gaps shaded.\n\n"
    "No GPU needed. Exit 0 when written, 1 when it cannot be written, 2 for\n"
    "a bad option or results file.\n";

typedef struct report_args {
    kt_cli_options o; /* --plugin */
    const char *results, *output, *journal, *title;
    int no_journal, no_plugins;
    long top;
} report_args;

static kt_status own_option(void *ctx, int opt, char *arg, kt_err *err)
{
    report_args *a = ctx;
    int64_t top;
    kt_status rc;

    switch (opt) {
    case 'o': a->output = arg; break;
    case 'J': a->journal = arg; break;
    case 'N': a->no_journal = 1; break;
    case 'P': a->no_plugins = 1; break;
    case 't': a->title = arg; break;
    default: /* 'T' */
        if ((rc = kt_parse_i64(arg, "--top", &top, err)))
            return rc;
        if (top < 1 || top > 100000)
            return kt_err_set(err, KT_S_INPUT,
                              "--top: %s, expected 1 to 100000", arg);
        a->top = (long)top;
    }
    return KT_S_OK;
}

static int parse_args(int argc, char **argv, report_args *a, kt_err *err)
{
    static const struct option own[] = {
        {"output", required_argument, NULL, 'o'},
        {"journal", required_argument, NULL, 'J'},
        {"no-journal", no_argument, NULL, 'N'},
        {"no-plugins", no_argument, NULL, 'P'},
        {"title", required_argument, NULL, 't'},
        {"top", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0}};
    const kt_cli_command cmd = {.name = "report",
                                .help = help,
                                .shared = KT_OPT_PLUGIN,
                                .own = own,
                                .short_opts = "o:",
                                .apply = own_option,
                                .ctx = a};
    int rc;

    if ((rc = kt_cli_parse(argc, argv, &cmd, &a->o, err)))
        return rc;
    if (kt_cli_one_operand("report", "RESULTS", &a->o, &a->results, err))
        return KT_EXIT_USAGE;
    if (a->journal && a->no_journal) {
        kt_err_set(err, KT_S_INPUT,
                   "report: --journal and --no-journal exclude each other");
        return KT_EXIT_USAGE;
    }
    return KT_EXIT_OK;
}

/* The journal a summary names, when this machine can read it. */
static void take_named_journal(kt_sources *s)
{
    const char *named = kt_src_text(s->summary, "journal", NULL);
    kt_err err;
    if (!named || access(named, R_OK) != 0)
        return;
    if (kt_sources_add_journal(s, named, &err))
        kt_sources_note(s, "the journal the summary names was not used: %s",
                        err.msg);
}

/* The work of the recorded problem from the operator's plugin, loaded
 * here (work() is pure: no GPU). */
static void work_from_plugin(kt_sources *s, const report_args *a)
{
    kt_registry reg;
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    const json_t *sizes = kt_sources_sizes(s), *env;
    const char *spec = kt_sources_spec(s), *recorded, *base;
    int64_t values[KT_MAX_SIZES];
    kt_device dev;
    char name[256], src[512];
    kt_problem prob = {.struct_size = sizeof prob, .seed = 1};
    kt_work w = {.struct_size = sizeof w};
    kt_err err;
    int wrc = KT_OK;

    /* Another tool's recording has no plugin to load: nothing to ask. */
    if (!*spec || kt_sources_external(s))
        return;
    kt_registry_init(&reg);
    reg.isolated = 1;
    kt_cli_load_plugins(&reg, a->o.plugins.items, a->o.plugins.count, 1);
    if (kt_registry_resolve(&reg, spec, &plugin, &op, &err)) {
        kt_sources_note(s,
                        "the roofline needs the work of %s, and its plugin "
                        "is not loaded here (%s); name it with --plugin FILE",
                        spec, err.msg);
        goto done;
    }
    for (uint32_t i = 0; i < op->num_sizes && i < KT_MAX_SIZES; ++i) {
        const json_t *v = json_object_get(sizes, op->sizes[i].name);
        values[i] = json_is_integer(v) ? json_integer_value(v)
                                       : op->sizes[i].default_value;
    }
    prob.num_sizes = op->num_sizes;
    prob.sizes = values;
    env = kt_sources_environment(s);
    if (kt_env_device_from_json(json_object_get(env, "device"), &dev, name,
                                sizeof name, NULL) == KT_S_OK)
        prob.device = &dev;
    if (kt_call_work(plugin, op, &prob, &w, &wrc, &err) || wrc != KT_OK) {
        kt_sources_note(s, "the plugin %s could not compute the work of %s",
                        plugin->desc.name, spec);
        goto done;
    }
    /* The file name only: the report should not depend on where this
     * machine keeps its build. */
    base = strrchr(plugin->path, '/');
    snprintf(src, sizeof src, "computed by the plugin %s %s (%s)",
             plugin->desc.name, plugin->desc.version,
             base ? base + 1 : plugin->path);
    kt_sources_set_work(s, &w, src);
    recorded = kt_src_text(json_object_get(env, "plugin"), "version", NULL);
    if (recorded && strcmp(recorded, plugin->desc.version) != 0)
        kt_sources_note(s,
                        "the work comes from %s version %s; the results were "
                        "measured with version %s",
                        plugin->desc.name, plugin->desc.version, recorded);
done:
    kt_registry_free(&reg);
}

/* Writes the document to path ("-": stdout) through kt_out_open: an
 * existing report is replaced whole or left as it was, and SIGINT or
 * SIGTERM leave no temporary file behind. */
static kt_status write_report(const char *path, const kt_sources *s,
                              const kt_doc_options *opt, kt_err *err)
{
    FILE *f;
    kt_status rc;

    if (!*path)
        return kt_err_set(err, KT_S_INPUT,
                          "-o: expected a file name or '-', found nothing");
    if (!(f = kt_out_open(path)))
        return errno == EISDIR
                   ? kt_err_set(err, KT_S_INPUT, "-o %s: is a directory", path)
                   : kt_err_set(err, KT_S_IO, "-o %s: cannot write: %s", path,
                                strerror(errno));
    if ((rc = kt_doc_write(f, s, opt, err))) {
        kt_out_discard(f);
        return kt_err_prefix(err, "-o %s: ", path);
    }
    if (kt_out_close(f) != 0)
        return kt_err_set(err, KT_S_IO, "-o %s: cannot write: %s", path,
                          strerror(errno));
    return KT_S_OK;
}

static int render_timeline(const char *in, const char *out)
{
    kt_err err;
    if (kt_fig_timeline_write(in, out, &err))
        return kt_cli_fail(&err);
    if (strcmp(out, "-") != 0)
        kt_msg("timeline chart written to %s\n", out);
    return KT_EXIT_OK;
}

int kt_cmd_report(int argc, char **argv)
{
    report_args a = {0};
    kt_sources s;
    kt_err err = {0};
    char generator[256];
    kt_doc_options opt;
    int code;

    code = parse_args(argc, argv, &a, &err);
    if (code) {
        kt_cli_options_free(&a.o);
        return code < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
    }
    /* Checked before anything opens it: a FIFO or a device would block or
     * never end (exit 2, as a missing file). */
    if (kt_file_check_regular(a.results, "input", &err)) {
        kt_cli_options_free(&a.o);
        return kt_cli_fail(&err);
    }
    /* A `ktune timeline --json` file is drawn as one SVG chart. */
    if (kt_fig_timeline_detect(a.results)) {
        kt_cli_options_free(&a.o);
        return render_timeline(a.results, a.output ? a.output : "timeline.svg");
    }
    if (!a.output)
        a.output = "report.html";
    if (kt_sources_load(&s, a.results, &err)) {
        kt_cli_options_free(&a.o);
        return kt_cli_fail(&err);
    }
    if (a.journal) {
        if (kt_sources_add_journal(&s, a.journal, &err)) {
            code = kt_cli_fail(&err);
            goto done;
        }
    } else if (s.summary && !a.no_journal) {
        take_named_journal(&s);
    }
    if (!s.have_work && !a.no_plugins)
        work_from_plugin(&s, &a);
    for (size_t i = 0; i < s.num_notes; ++i)
        kt_msg("note: %s\n", s.notes[i]);
    snprintf(generator, sizeof generator, "ktune %s (%s)", KT_VERSION,
             KT_GIT_COMMIT);
    opt = (kt_doc_options){
        .title = a.title, .generator = generator, .top = (int)a.top};
    if (write_report(a.output, &s, &opt, &err)) {
        code = kt_cli_fail(&err);
        goto done;
    }
    if (strcmp(a.output, "-") != 0)
        kt_msg("report written to %s\n", a.output);
    code = KT_EXIT_OK;
done:
    kt_sources_free(&s);
    kt_cli_options_free(&a.o);
    return code;
}
