// SPDX-License-Identifier: Apache-2.0
/* What `ktune diff` writes: the table, Markdown and JSON of a kt_diff. */
#include <math.h>
#include <string.h>

#include "compare/diff.h"
#include "core/msg.h"
#include "core/term.h"
#include "tuner/summary.h"

static void file_line(FILE *out, const char *label, const kt_diff_file *f)
{
    fprintf(out, "%s %s (%s, %s%s%s, %s)\n", label, f->path, f->kind, f->spec,
            f->sizes[0] ? " " : "", f->sizes, f->device);
}

static void change_text(const kt_diff_row *r, char *out, size_t size)
{
    if (r->a && r->b)
        kt_summary_change(&r->change, out, size);
    else
        snprintf(out, size, "-");
}

static void median_text(const kt_diff_config *c, char *out, size_t size)
{
    if (c)
        snprintf(out, size, "%.3f", c->median_us);
    else
        snprintf(out, size, "-");
}

static void totals(FILE *out, const kt_diff *d, const char *bold)
{
    fprintf(out,
            "%s%zu regression(s)%s, %zu improvement(s), %zu within %.1f%% or "
            "not distinguishable; %zu only in A, %zu only in B\n",
            bold, d->count[KT_DIFF_REGRESSION], bold,
            d->count[KT_DIFF_IMPROVEMENT], d->count[KT_DIFF_SAME],
            100.0 * d->threshold, d->count[KT_DIFF_ONLY_A],
            d->count[KT_DIFF_ONLY_B]);
}

/* Whether the tuned answer moved, when both files are tune summaries;
 * markdown: as a sentence with the configurations as code. */
static void answer_line(FILE *out, const kt_diff *d, int markdown)
{
    const char *code = markdown ? "`" : "";
    if (!d->a.answer[0] || !d->b.answer[0])
        return;
    if (strcmp(d->a.answer, d->b.answer) == 0)
        fprintf(out, "%cnswer unchanged: %s%s%s\n", markdown ? 'A' : 'a', code,
                d->a.answer, code);
    else
        fprintf(out, "%cnswer changed: %s%s%s (A) -> %s%s%s (B)\n",
                markdown ? 'A' : 'a', code, d->a.answer, code, code,
                d->b.answer, code);
}

void kt_diff_print(FILE *out, const kt_diff *d)
{
    char ma[32], mb[32], change[96];
    size_t w = 13;
    /* Fitted to a width: the configuration last, where it can wrap. */
    static const kt_term_col cols[] = {
        {"A median us", 1, 0}, {"B median us", 1, 0}, {"change", 0, 0},
        {"verdict", 0, 0},     {"basis", 0, 1},       {"configuration", 0, 0}};
    kt_term_table t;
    int wide;

    file_line(out, "A", &d->a);
    file_line(out, "B", &d->b);
    fprintf(out,
            "change = time(B) / time(A) with its 95%% interval; threshold "
            "%.1f%%\n\n",
            100.0 * d->threshold);
    for (size_t i = 0; i < d->num_rows; ++i) {
        const kt_diff_row *r = &d->rows[i];
        size_t n = strlen(r->a ? r->a->key : r->b->key);
        w = n > w ? n : w;
    }
    /* The wide form, the configuration first, where it fits: a row is 2 +
     * w + 55 columns and a verdict ("improvement (from the medians' CIs)"
     * at most, 35). */
    wide = d->width <= 0 || w + 2 + 55 + 35 <= (size_t)d->width;
    if (wide) {
        fprintf(out, "  %-*s %12s %12s  %-26s %s\n", (int)w, "configuration",
                "A median us", "B median us", "change", "verdict");
    } else {
        kt_term_table_init(&t, cols, sizeof cols / sizeof cols[0]);
    }
    for (size_t i = 0; i < d->num_rows; ++i) {
        const kt_diff_row *r = &d->rows[i];
        const char *key = r->a ? r->a->key : r->b->key;
        const char *verdict = kt_diff_verdict_name(r->verdict);
        const char *basis =
            r->a && r->b && !r->from_samples ? "(from the medians' CIs)" : "";
        const char *row[] = {ma, mb, change, verdict, basis, key};
        median_text(r->a, ma, sizeof ma);
        median_text(r->b, mb, sizeof mb);
        change_text(r, change, sizeof change);
        if (!wide)
            kt_term_table_add(&t, row);
        else
            fprintf(out, "  %-*s %12s %12s  %-26s %s%s%s\n", (int)w, key, ma,
                    mb, change, verdict, basis[0] ? " " : "", basis);
    }
    if (!wide) {
        kt_term_table_print(out, &t, 2, d->width);
        kt_term_table_free(&t);
    }
    fputc('\n', out);
    totals(out, d, "");
    answer_line(out, d, 0);
    if (d->num_env)
        fprintf(out,
                "WARNING: A and B come from different environments (%zu "
                "field(s) differ, listed on stderr): the changes include "
                "the environment's\n",
                d->num_env);
}

void kt_diff_warn_env(FILE *out, const kt_diff *d)
{
    if (!d->num_env)
        return;
    kt_fmsg(out, "WARNING: A and B were measured in different "
                 "environments; the comparison crosses sessions and every "
                 "change below includes what changed here:\n");
    for (size_t i = 0; i < d->num_env; ++i)
        kt_fmsg(out, "WARNING:   %s: %s (A) vs %s (B)\n", d->env[i].field,
                d->env[i].a, d->env[i].b);
}

/* ----------------------------------------------------------- Markdown */

static void md_code(FILE *out, const char *text)
{
    fputc('`', out);
    for (const char *p = text; *p; ++p)
        fputc(*p == '`' || *p == '|' ? '\'' : *p, out);
    fputc('`', out);
}

void kt_diff_markdown(FILE *out, const kt_diff *d)
{
    char ma[32], mb[32], change[96];

    fprintf(out, "## ktune diff: %s\n\n", d->a.spec);
    fprintf(out, "- A: `%s` (%s, %s, %s)\n- B: `%s` (%s, %s, %s)\n\n",
            d->a.path, d->a.kind, d->a.sizes, d->a.device, d->b.path, d->b.kind,
            d->b.sizes, d->b.device);
    if (d->num_env) {
        fprintf(out, "> **Warning**: A and B were measured in different "
                     "environments; the comparison crosses sessions.\n>\n");
        for (size_t i = 0; i < d->num_env; ++i)
            fprintf(out, "> - `%s`: %s (A) vs %s (B)\n", d->env[i].field,
                    d->env[i].a, d->env[i].b);
        fputc('\n', out);
    }
    fprintf(out, "| Configuration | A median (us) | B median (us) | Change "
                 "(95%% CI) | Verdict |\n|---|---:|---:|---|---|\n");
    for (size_t i = 0; i < d->num_rows; ++i) {
        const kt_diff_row *r = &d->rows[i];
        median_text(r->a, ma, sizeof ma);
        median_text(r->b, mb, sizeof mb);
        change_text(r, change, sizeof change);
        fputs("| ", out);
        md_code(out, r->a ? r->a->key : r->b->key);
        fprintf(out, " | %s | %s | %s | %s |\n", ma, mb, change,
                r->verdict == KT_DIFF_REGRESSION
                    ? "**regression**"
                    : kt_diff_verdict_name(r->verdict));
    }
    fprintf(out, "\nChange = time(B) / time(A); threshold %.1f%%.\n\n",
            100.0 * d->threshold);
    totals(out, d, "**");
    answer_line(out, d, 1);
}

/* --------------------------------------------------------------- JSON */

static json_t *file_json(const kt_diff_file *f)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:o}", "path", f->path, "kind",
                     f->kind, "spec", f->spec, "sizes", f->sizes, "device",
                     f->device, "configurations", (json_int_t)f->num_configs,
                     "answer",
                     f->answer[0] ? json_string(f->answer) : json_null());
}

static json_t *side_json(const kt_diff_config *c)
{
    if (!c)
        return json_null();
    return json_pack("{s:f,s:f,s:f,s:I,s:s}", "median_us", c->median_us,
                     "ci_lo_us", c->ci_lo_us, "ci_hi_us", c->ci_hi_us,
                     "samples", (json_int_t)c->num_samples, "source",
                     c->source);
}

static json_t *row_json(const kt_diff_row *r)
{
    json_t *j =
        json_pack("{s:s,s:o,s:o,s:s}", "config", r->a ? r->a->key : r->b->key,
                  "a", side_json(r->a), "b", side_json(r->b), "verdict",
                  kt_diff_verdict_name(r->verdict));
    json_object_set_new(j, "change",
                        r->a && r->b
                            ? json_pack("{s:f,s:f,s:f,s:s}", "ratio",
                                        r->change.ratio, "lo", r->change.lo,
                                        "hi", r->change.hi, "interval",
                                        r->from_samples ? "samples" : "medians")
                            : json_null());
    return j;
}

json_t *kt_diff_json(const kt_diff *d)
{
    json_t *rows = json_array(), *env = json_array();

    for (size_t i = 0; i < d->num_rows; ++i)
        json_array_append_new(rows, row_json(&d->rows[i]));
    for (size_t i = 0; i < d->num_env; ++i)
        json_array_append_new(env, json_pack("{s:s,s:s,s:s}", "field",
                                             d->env[i].field, "a", d->env[i].a,
                                             "b", d->env[i].b));
    return json_pack("{s:s,s:i,s:o,s:o,s:f,s:o,s:o,s:{s:I,s:I,s:I,s:I,s:I}}",
                     "kind", "ktune.diff", "format", 1, "a", file_json(&d->a),
                     "b", file_json(&d->b), "threshold", d->threshold,
                     "environment_differences", env, "configurations", rows,
                     "counts", "regressions",
                     (json_int_t)d->count[KT_DIFF_REGRESSION], "improvements",
                     (json_int_t)d->count[KT_DIFF_IMPROVEMENT], "same",
                     (json_int_t)d->count[KT_DIFF_SAME], "only_a",
                     (json_int_t)d->count[KT_DIFF_ONLY_A], "only_b",
                     (json_int_t)d->count[KT_DIFF_ONLY_B]);
}
