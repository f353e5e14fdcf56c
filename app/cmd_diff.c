// SPDX-License-Identifier: Apache-2.0
/* ktune diff: two results files, configuration by configuration, with an
 * exit status for CI (compare/diff.h). Needs no GPU and no plugin. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "compare/diff.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/protocol.h"
#include "core/term.h"

static const char help[] =
    "usage: ktune diff A B [--threshold T] [--json FILE] [--markdown FILE]\n\n"
    "Compares two results files of one operator, each a `ktune bench\n"
    "--json` record, a `ktune tune --json` summary (its top entries and\n"
    "its answer) or a `ktune compare --json` record: per configuration in\n"
    "both, change = time(B) / time(A) with its 95% interval from the raw\n"
    "samples (Hodges-Lehmann, distribution-free; from the medians'\n"
    "intervals where a file kept no samples). A change counts when its\n"
    "interval excludes no change and it is larger than the threshold.\n"
    "When the files' environments differ (device, driver, clocks,\n"
    "protocol, machine, sizes) a warning lists each field on stderr: the\n"
    "comparison then crosses sessions.\n\n"
    "  --threshold T       smallest change that counts, a percentage (2%)\n"
    "                      or a fraction (0.02); default 2%\n"
    "  --json FILE         the comparison as JSON ('-': stdout)\n"
    "  --markdown FILE     the comparison as Markdown ('-': stdout)\n\n"
    "Exit codes: 0 no regression beyond the threshold, 1 at least one\n"
    "regression, 2 a bad option or a file that is not a results file (or\n"
    "two files with no configuration in common).\n";

typedef struct diff_args {
    kt_cli_options o; /* --json; the operands A B */
    const char *markdown;
    double threshold;
} diff_args;

static kt_status own_option(void *ctx, int opt, char *arg, kt_err *err)
{
    diff_args *a = ctx;
    int suspect;
    if (opt == 'M') {
        a->markdown = arg;
        return kt_cli_output(arg, "--markdown", err);
    }
    return kt_noise_parse(arg, "--threshold", &a->threshold, &suspect, err);
}

static int parse_args(int argc, char **argv, diff_args *a, kt_err *err)
{
    static const struct option own[] = {
        {"threshold", required_argument, NULL, 'T'},
        {"markdown", required_argument, NULL, 'M'},
        {NULL, 0, NULL, 0}};
    const kt_cli_command cmd = {.name = "diff",
                                .help = help,
                                .shared = KT_OPT_JSON,
                                .own = own,
                                .apply = own_option,
                                .ctx = a};
    int rc;

    a->threshold = 0.02;
    if ((rc = kt_cli_parse(argc, argv, &cmd, &a->o, err)))
        return rc;
    if (a->o.num_operands != 2) {
        kt_err_set(err, KT_S_INPUT,
                   "diff: expected two results files A B, found %d operand(s); "
                   "see 'ktune diff --help'",
                   a->o.num_operands);
        return KT_EXIT_USAGE;
    }
    return KT_EXIT_OK;
}

/* --json and --markdown. KT_EXIT_OK or KT_EXIT_FAILURE (cannot write). */
static int write_outputs(const diff_args *a, const kt_diff *d)
{
    json_t *j;
    FILE *out;
    int bad = 0;

    if (a->o.json) {
        j = kt_diff_json(d);
        bad = !j || kt_out_json(j, a->o.json) != 0;
        json_decref(j);
        if (bad)
            kt_msg("--json %s: cannot write: %s\n", a->o.json, strerror(errno));
    }
    if (!bad && a->markdown) {
        out = kt_out_open(a->markdown);
        if (out)
            kt_diff_markdown(out, d);
        if (!out || kt_out_close(out) != 0) {
            kt_msg("--markdown %s: cannot write: %s\n", a->markdown,
                   strerror(errno));
            bad = 1;
        }
    }
    return bad ? KT_EXIT_FAILURE : KT_EXIT_OK;
}

/* text escaped (kt_cli_put_escaped), its lines wrapped to width (0: as
 * they are). */
static void put_fitted(FILE *to, const char *text, size_t len, int width)
{
    char *escaped = NULL;
    size_t n = 0;
    FILE *mem = width > 0 ? open_memstream(&escaped, &n) : NULL;

    if (!mem) {
        kt_cli_put_escaped(to, text, len);
        return;
    }
    kt_cli_put_escaped(mem, text, len);
    if (fclose(mem) == 0)
        kt_term_wrap(to, escaped, n, width);
    else
        kt_cli_put_escaped(to, text, len);
    free(escaped);
}

/* render's text, with control characters from either file (names, labels,
 * environment fields) shown escaped on the terminal. */
static void put_escaped(FILE *to, void (*render)(FILE *, const kt_diff *),
                        const kt_diff *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    if (!mem) {
        kt_msg("cannot print: %s\n", strerror(errno));
        return;
    }
    render(mem, d);
    if (fclose(mem) == 0)
        put_fitted(to, text, len, d->width);
    free(text);
}

int kt_cmd_diff(int argc, char **argv)
{
    diff_args a;
    kt_diff_file fa, fb;
    kt_diff d;
    kt_err err;
    int rc;

    memset(&a, 0, sizeof a);
    memset(&fa, 0, sizeof fa);
    memset(&fb, 0, sizeof fb);
    memset(&d, 0, sizeof d);
    kt_err_clear(&err);
    if ((rc = parse_args(argc, argv, &a, &err))) {
        rc = rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
        goto done;
    }
    /* Whatever stops the comparison is the input's fault here: exit 2. */
    if (kt_diff_load(a.o.operands[0], &fa, &err) ||
        kt_diff_load(a.o.operands[1], &fb, &err) ||
        kt_diff_run(&fa, &fb, a.threshold, &d, &err)) {
        rc = kt_cli_fail(&err);
        rc = err.status == KT_S_NOMEM ? rc : KT_EXIT_USAGE;
        goto done;
    }
    put_escaped(stderr, kt_diff_warn_env, &d);
    d.width = kt_term_width(stdout);
    put_escaped(stdout, kt_diff_print, &d);
    rc = write_outputs(&a, &d);
    if (!rc && d.count[KT_DIFF_REGRESSION])
        rc = KT_EXIT_FAILURE;
done:
    kt_diff_free(&d);
    kt_diff_file_free(&fa);
    kt_diff_file_free(&fb);
    kt_cli_options_free(&a.o);
    return rc;
}
