// SPDX-License-Identifier: Apache-2.0
/* ktune diff: two results files, configuration by configuration, with an
 * exit status for CI (compare/diff.h). Needs no GPU and no plugin. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "compare/diff.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "core/protocol.h"
#include "core/term.h"

static const char help[] =
    "usage: ktune diff A B [--threshold T] [--json FILE] [--markdown FILE]\n\n"
    "A and B may be two folders of results files: the files named alike\n"
    "(*.json, *.json.gz) are paired and each pair compared, and the files\n"
    "found on one side only are listed (as nvbench's compare does).\n\n"
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
    "two files with no configuration in common; two folders with no file\n"
    "in common, or a pair that cannot be compared).\n";

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

/* ---- two folders ------------------------------------------------------- */

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), k = strlen(end);
    return n > k && strcmp(s + n - k, end) == 0;
}

/* A results file's name: *.json or *.json.gz, not hidden. */
static int results_name(const struct dirent *e)
{
    return e->d_name[0] != '.' &&
           (ends_with(e->d_name, ".json") || ends_with(e->d_name, ".json.gz"));
}

/* prefix, then a file's name scrubbed of terminal controls, a newline. */
static void put_name(const char *prefix, const char *name)
{
    char *copy = strdup(name);
    if (copy)
        kt_term_scrub(copy);
    printf("%s%s\n", prefix, copy ? copy : "?");
    free(copy);
}

/* What a folder comparison gathers for --json and --markdown. */
typedef struct folders {
    json_t *pairs, *only_a, *only_b;
    char *md;
    size_t md_len;
    FILE *md_out;
    size_t regressions, failed;
} folders;

/* One pair of files named name: compared and printed under its name.
 * A pair that cannot be compared is said (and counted) and the others go
 * on. */
static void diff_pair(const diff_args *a, const char *name, folders *f)
{
    char pa[4200], pb[4200];
    kt_diff_file fa = {0}, fb = {0};
    kt_diff d;
    kt_err err;
    json_t *j;

    memset(&d, 0, sizeof d);
    snprintf(pa, sizeof pa, "%s/%s", a->o.operands[0], name);
    snprintf(pb, sizeof pb, "%s/%s", a->o.operands[1], name);
    put_name("== ", name);
    if (kt_diff_load(pa, &fa, &err) || kt_diff_load(pb, &fb, &err) ||
        kt_diff_run(&fa, &fb, a->threshold, &d, &err)) {
        kt_cli_fail(&err);
        ++f->failed;
    } else {
        put_escaped(stderr, kt_diff_warn_env, &d);
        d.width = kt_term_width(stdout);
        put_escaped(stdout, kt_diff_print, &d);
        f->regressions += d.count[KT_DIFF_REGRESSION];
        if ((j = kt_diff_json(&d)))
            json_array_append_new(
                f->pairs, json_pack("{s:s,s:o}", "name", name, "diff", j));
        if (f->md_out) {
            fprintf(f->md_out, "## %s\n\n", name);
            kt_diff_markdown(f->md_out, &d);
            fputc('\n', f->md_out);
        }
    }
    kt_diff_free(&d);
    kt_diff_file_free(&fa);
    kt_diff_file_free(&fb);
}

/* The folders' outputs: the JSON record of every pair, the Markdown. */
static int folder_outputs(const diff_args *a, folders *f)
{
    json_t *j =
        json_pack("{s:s,s:O,s:O,s:O}", "kind", "ktune.diff_folders", "pairs",
                  f->pairs, "only_in_a", f->only_a, "only_in_b", f->only_b);
    FILE *out;
    int bad = 0;

    if (a->o.json && (!j || kt_out_json(j, a->o.json) != 0)) {
        kt_msg("--json %s: cannot write: %s\n", a->o.json, strerror(errno));
        bad = 1;
    }
    json_decref(j);
    if (!bad && a->markdown) {
        out = kt_out_open(a->markdown);
        if (out && f->md)
            fwrite(f->md, 1, f->md_len, out);
        if (!out || kt_out_close(out) != 0) {
            kt_msg("--markdown %s: cannot write: %s\n", a->markdown,
                   strerror(errno));
            bad = 1;
        }
    }
    return bad ? KT_EXIT_FAILURE : KT_EXIT_OK;
}

/* Files of a not in b, named under "only in LABEL" and into list. */
static size_t only_in(struct dirent **a, int na, struct dirent **b, int nb,
                      const char *label, json_t *list)
{
    size_t n = 0;
    for (int i = 0; i < na; ++i) {
        int found = 0;
        for (int k = 0; k < nb && !found; ++k)
            found = strcmp(a[i]->d_name, b[k]->d_name) == 0;
        if (!found) {
            fputs("only in ", stdout);
            put_name(label, a[i]->d_name);
            json_array_append_new(list, json_string(a[i]->d_name));
            ++n;
        }
    }
    return n;
}

static void free_list(struct dirent **l, int n)
{
    for (int i = 0; i < n; ++i)
        free(l[i]);
    free(l);
}

/* diff A B of two folders: the files named alike, pair by pair. */
static int diff_folders(const diff_args *a)
{
    struct dirent **la = NULL, **lb = NULL;
    int na = scandir(a->o.operands[0], &la, results_name, alphasort);
    int nb = scandir(a->o.operands[1], &lb, results_name, alphasort);
    folders f = {json_array(), json_array(), json_array(), NULL, 0, NULL, 0, 0};
    size_t paired = 0;
    int rc;

    if (na < 0 || nb < 0) {
        kt_msg("cannot read the folder %s: %s\n", a->o.operands[na < 0 ? 0 : 1],
               strerror(errno));
        rc = KT_EXIT_USAGE;
        goto done;
    }
    if (a->markdown)
        f.md_out = open_memstream(&f.md, &f.md_len);
    for (int i = 0; i < na; ++i)
        for (int k = 0; k < nb; ++k)
            if (strcmp(la[i]->d_name, lb[k]->d_name) == 0) {
                diff_pair(a, la[i]->d_name, &f);
                ++paired;
            }
    only_in(la, na, lb, nb, "A: ", f.only_a);
    only_in(lb, nb, la, na, "B: ", f.only_b);
    if (f.md_out)
        fclose(f.md_out);
    printf("%zu pair(s) compared, %zu not comparable, %zu regression(s)\n",
           paired - f.failed, f.failed, f.regressions);
    if (paired == 0)
        kt_msg("%s and %s hold no results file of the same name\n",
               a->o.operands[0], a->o.operands[1]);
    rc = folder_outputs(a, &f);
    if (!rc)
        rc = paired == 0 || f.failed ? KT_EXIT_USAGE
             : f.regressions         ? KT_EXIT_FAILURE
                                     : KT_EXIT_OK;
done:
    free_list(la, na);
    free_list(lb, nb);
    json_decref(f.pairs);
    json_decref(f.only_a);
    json_decref(f.only_b);
    free(f.md);
    return rc;
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
    if (is_dir(a.o.operands[0]) || is_dir(a.o.operands[1])) {
        if (is_dir(a.o.operands[0]) && is_dir(a.o.operands[1]))
            rc = diff_folders(&a);
        else {
            kt_err_set(&err, KT_S_INPUT,
                       "diff: one of A and B is a folder, the other a file: "
                       "give two files or two folders");
            rc = kt_cli_fail(&err);
        }
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
