// SPDX-License-Identifier: Apache-2.0
#include "compare/compare_results.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/result_json.h"
#include "records/journal.h"

const char *kt_results_kind_name(kt_results_kind kind)
{
    switch (kind) {
    case KT_RESULTS_JOURNAL: return "journal";
    case KT_RESULTS_SUMMARY: return "summary";
    case KT_RESULTS_COMPARE: return "compare record";
    }
    return "?";
}

void kt_results_free(kt_results *r)
{
    free(r->path);
    free(r->picks);
    memset(r, 0, sizeof *r);
}

/* The file must record plugin_name:op; KT_S_INPUT naming both otherwise. */
static kt_status check_operator(const char *path, const char *rec_plugin,
                                const char *rec_op, const char *plugin_name,
                                const kt_operator *op, kt_err *err)
{
    if (rec_plugin && rec_op && strcmp(rec_plugin, plugin_name) == 0 &&
        strcmp(rec_op, op->id) == 0)
        return KT_S_OK;
    return kt_err_set(err, KT_S_INPUT,
                      "%s records %s:%s, not %s:%s; give a results file of "
                      "%s:%s",
                      path, rec_plugin ? rec_plugin : "?",
                      rec_op ? rec_op : "?", plugin_name, op->id, plugin_name,
                      op->id);
}

static kt_status read_sizes(const char *path, const json_t *sizes,
                            const kt_operator *op, int64_t *out, kt_err *err)
{
    for (uint32_t i = 0; i < op->num_sizes; ++i) {
        const json_t *v = json_object_get(sizes, op->sizes[i].name);
        if (!json_is_integer(v))
            return kt_err_set(err, KT_S_INPUT,
                              "%s: 'sizes' gives no integer '%s' (operator "
                              "'%s' has that size)",
                              path, op->sizes[i].name, op->id);
        out[i] = json_integer_value(v);
    }
    return KT_S_OK;
}

/* Offers pt (recorded median us, NaN unknown) as variant's pick with a
 * rank: a lower rank always wins, then the lower median. */
static void offer(kt_pick *picks, int *ranks, const kt_point *pt, int rank,
                  double median_us, const char *detail, size_t file)
{
    kt_pick *p = &picks[pt->variant];
    int better = !p->found || rank < ranks[pt->variant] ||
                 (rank == ranks[pt->variant] && isfinite(median_us) &&
                  (!isfinite(p->recorded_us) || median_us < p->recorded_us));
    if (!better)
        return;
    p->found = 1;
    p->point = *pt;
    p->kind = KT_PICK_RESULTS;
    p->file = file;
    p->recorded_us = median_us;
    snprintf(p->detail, sizeof p->detail, "%s", detail);
    ranks[pt->variant] = rank;
}

static kt_status load_journal(kt_results *out, const char *plugin_name,
                              const kt_operator *op, json_t *header,
                              kt_err *err)
{
    const char *path = out->path;
    json_t *env_dev;
    kt_journal_log log;
    size_t *ok = NULL;
    int *ranks = NULL;
    kt_status rc;

    if ((rc = check_operator(
             path,
             json_string_value(
                 json_object_get(json_object_get(header, "plugin"), "name")),
             json_string_value(json_object_get(header, "operator")),
             plugin_name, op, err)) ||
        (rc = read_sizes(path, json_object_get(header, "sizes"), op, out->sizes,
                         err)))
        return rc;
    if (json_is_integer(json_object_get(header, "seed"))) {
        out->has_seed = 1;
        out->seed =
            (uint64_t)json_integer_value(json_object_get(header, "seed"));
    }
    env_dev = json_object_get(json_object_get(header, "environment"), "device");
    snprintf(out->device, sizeof out->device, "%s",
             json_string_value(json_object_get(env_dev, "name"))
                 ? json_string_value(json_object_get(env_dev, "name"))
                 : "");
    if ((rc = kt_journal_read(path, op, &log, err)))
        return rc;
    snprintf(out->note, sizeof out->note, "%s", log.note);
    out->records = log.count;
    ok = calloc(op->num_variants, sizeof *ok);
    ranks = calloc(op->num_variants, sizeof *ranks);
    if (!ok || !ranks) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < log.count; ++i) {
        const kt_journal_entry *e = &log.entries[i];
        if (e->result.status != KT_EVAL_OK)
            continue;
        ++ok[e->point.variant];
        offer(out->picks, ranks, &e->point, 0, e->result.timing.kernel.median,
              "", 0);
    }
    for (uint32_t v = 0; v < op->num_variants; ++v)
        if (out->picks[v].found)
            snprintf(out->picks[v].detail, sizeof out->picks[v].detail,
                     "fastest of %zu ok record%s", ok[v],
                     ok[v] == 1 ? "" : "s");
    rc = KT_S_OK;
done:
    free(ok);
    free(ranks);
    kt_journal_log_free(&log);
    return rc;
}

/* Reads one {"variant", "params", ...} entry of a JSON results file. */
static kt_status entry_point(const char *path, const char *where,
                             const kt_operator *op, const json_t *j,
                             kt_point *pt, kt_err *err)
{
    kt_status rc;
    if ((rc = kt_point_from_json(op, j, pt, err)) ||
        (rc = kt_point_validate(op, pt, err)))
        return kt_err_prefix(err, "%s: %s: ", path, where);
    return KT_S_OK;
}

static double median_of(const json_t *j)
{
    const json_t *m = json_object_get(j, "median_us");
    return json_is_number(m) ? json_number_value(m) : NAN;
}

static kt_status load_summary(kt_results *out, const char *plugin_name,
                              const kt_operator *op, const json_t *root,
                              kt_err *err)
{
    const char *path = out->path;
    const json_t *best = json_object_get(root, "best");
    const json_t *x;
    json_t *format = json_object_get(root, "format");
    int *ranks = calloc(op->num_variants, sizeof *ranks);
    char where[64];
    size_t i;
    kt_point pt;
    kt_status rc;

    if (!ranks)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (format && json_integer_value(format) != 1) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: summary format %lld; this ktune reads format 1",
                        path, (long long)json_integer_value(format));
        goto done;
    }
    if ((rc = check_operator(
             path, json_string_value(json_object_get(root, "plugin")),
             json_string_value(json_object_get(root, "operator")), plugin_name,
             op, err)) ||
        (rc = read_sizes(path, json_object_get(root, "sizes"), op, out->sizes,
                         err)))
        goto done;
    snprintf(out->device, sizeof out->device, "%s",
             json_string_value(json_object_get(root, "device"))
                 ? json_string_value(json_object_get(root, "device"))
                 : "");
    if (json_is_object(best)) {
        if ((rc = entry_point(path, "best", op, best, &pt, err)))
            goto done;
        offer(out->picks, ranks, &pt, 0, median_of(best), "best", 0);
        ++out->records;
    }
    json_array_foreach (json_object_get(root, "finalists"), i, x) {
        snprintf(where, sizeof where, "finalists[%zu]", i);
        if ((rc = entry_point(path, where, op, x, &pt, err)))
            goto done;
        offer(out->picks, ranks, &pt, 1, median_of(x), "finalist", 0);
        ++out->records;
    }
    json_array_foreach (json_object_get(root, "top"), i, x) {
        char detail[32];
        snprintf(where, sizeof where, "top[%zu]", i);
        if ((rc = entry_point(path, where, op, x, &pt, err)))
            goto done;
        snprintf(detail, sizeof detail, "top #%zu", i + 1);
        offer(out->picks, ranks, &pt, 2, median_of(x), detail, 0);
        ++out->records;
    }
    rc = KT_S_OK;
done:
    free(ranks);
    return rc;
}

static kt_status load_compare(kt_results *out, const char *plugin_name,
                              const kt_operator *op, const json_t *root,
                              kt_err *err)
{
    const char *path = out->path;
    const json_t *x;
    json_t *format = json_object_get(root, "format");
    int *ranks = calloc(op->num_variants, sizeof *ranks);
    size_t i;
    kt_status rc;

    if (!ranks)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (format && json_integer_value(format) != 1) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: compare record format %lld; this ktune reads "
                        "format 1",
                        path, (long long)json_integer_value(format));
        goto done;
    }
    if ((rc = check_operator(
             path, json_string_value(json_object_get(root, "plugin")),
             json_string_value(json_object_get(root, "operator")), plugin_name,
             op, err)) ||
        (rc = read_sizes(path, json_object_get(root, "sizes"), op, out->sizes,
                         err)))
        goto done;
    if (json_is_integer(json_object_get(root, "seed"))) {
        out->has_seed = 1;
        out->seed = (uint64_t)json_integer_value(json_object_get(root, "seed"));
    }
    snprintf(out->device, sizeof out->device, "%s",
             json_string_value(json_object_get(root, "device"))
                 ? json_string_value(json_object_get(root, "device"))
                 : "");
    json_array_foreach (json_object_get(root, "variants"), i, x) {
        const char *status = json_string_value(json_object_get(x, "status"));
        char where[64];
        kt_point pt;
        if (!status || strcmp(status, "ok") != 0)
            continue;
        snprintf(where, sizeof where, "variants[%zu]", i);
        if ((rc = entry_point(path, where, op, x, &pt, err)))
            goto done;
        offer(out->picks, ranks, &pt, 0, median_of(json_object_get(x, "stats")),
              "compared", 0);
        ++out->records;
    }
    rc = KT_S_OK;
done:
    free(ranks);
    return rc;
}

kt_status kt_results_load(const char *path, const char *plugin_name,
                          const kt_operator *op, kt_results *out, kt_err *err)
{
    json_t *header = NULL, *root = NULL;
    json_error_t jerr;
    const char *kind;
    FILE *f;
    kt_err ignored;
    kt_status rc;

    memset(out, 0, sizeof *out);
    /* A FIFO or a device would block or never end. */
    if ((rc = kt_file_check_regular(path, "results", err)))
        return rc;
    f = fopen(path, "r");
    if (!f)
        return kt_err_set(err, errno == ENOENT ? KT_S_INPUT : KT_S_IO,
                          "%s: cannot open: %s", path, strerror(errno));
    fclose(f);
    out->path = strdup(path);
    out->picks =
        calloc(op->num_variants ? op->num_variants : 1, sizeof *out->picks);
    out->num_variants = op->num_variants;
    if (!out->path || !out->picks) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t v = 0; v < op->num_variants; ++v)
        out->picks[v].recorded_us = NAN;
    /* A journal is JSON lines; the other two are one JSON document. */
    if (kt_journal_read_header(path, &header, &ignored) == KT_S_OK) {
        out->kind = KT_RESULTS_JOURNAL;
        rc = load_journal(out, plugin_name, op, header, err);
        goto done;
    }
    root = json_load_file(path, 0, &jerr);
    if (!root) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: not a results file: neither a tuner journal "
                        "(JSON lines, the first of kind \"ktune.journal\") "
                        "nor a JSON document (line %d: %s)",
                        path, jerr.line, jerr.text);
        goto done;
    }
    kind = json_string_value(json_object_get(root, "kind"));
    if (kind && strcmp(kind, "ktune.tune") == 0) {
        out->kind = KT_RESULTS_SUMMARY;
        rc = load_summary(out, plugin_name, op, root, err);
    } else if (kind && strcmp(kind, "ktune.compare") == 0) {
        out->kind = KT_RESULTS_COMPARE;
        rc = load_compare(out, plugin_name, op, root, err);
    } else {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: not a results file: its kind is %s%s%s; "
                        "expected a tuner journal, a `ktune tune --json` "
                        "summary (\"ktune.tune\") or a `ktune compare "
                        "--json` record (\"ktune.compare\")",
                        path, kind ? "\"" : "", kind ? kind : "missing",
                        kind ? "\"" : "");
    }
done:
    json_decref(header);
    json_decref(root);
    if (rc)
        kt_results_free(out);
    return rc;
}

int kt_results_best(const kt_results *files, size_t n, uint32_t variant,
                    kt_pick *out)
{
    int found = 0;
    for (size_t i = 0; i < n; ++i) {
        const kt_pick *p;
        if (variant >= files[i].num_variants)
            continue;
        p = &files[i].picks[variant];
        if (!p->found)
            continue;
        if (!found ||
            (isfinite(p->recorded_us) && (!isfinite(out->recorded_us) ||
                                          p->recorded_us < out->recorded_us))) {
            *out = *p;
            out->file = i;
            found = 1;
        }
    }
    return found;
}
