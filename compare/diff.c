// SPDX-License-Identifier: Apache-2.0
#include "compare/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"

/* ------------------------------------------------------------ reading */

/* A results file is a few megabytes at most (a bench record of 10000
 * samples is about 400 kB); anything past this is not one. */
#define DIFF_MAX_FILE_BYTES (256u << 20)

static kt_status bad(kt_err *err, const char *path, const char *where,
                     const char *what)
{
    return kt_err_set(err, KT_S_INPUT, "%s: %s: %s", path, where, what);
}

/* "variant name=value ..." of an object with "variant" and "params". */
static kt_status config_key(const char *path, const char *where,
                            const json_t *obj, char *key, size_t size,
                            kt_err *err)
{
    const char *variant = json_string_value(json_object_get(obj, "variant"));
    json_t *params = json_object_get(obj, "params"), *v;
    const char *name;
    size_t used;

    if (!variant || !*variant)
        return bad(err, path, where, "expected a \"variant\" string");
    if (params && !json_is_object(params))
        return bad(err, path, where, "\"params\" is not an object");
    used = (size_t)snprintf(key, size, "%s", variant);
    json_object_foreach (params, name, v) {
        if (used >= size)
            break;
        if (json_is_integer(v))
            used += (size_t)snprintf(key + used, size - used, " %s=%lld", name,
                                     (long long)json_integer_value(v));
        else if (json_is_string(v))
            used += (size_t)snprintf(key + used, size - used, " %s=%s", name,
                                     json_string_value(v));
        else if (json_is_number(v))
            used += (size_t)snprintf(key + used, size - used, " %s=%g", name,
                                     json_number_value(v));
        else
            return bad(err, path, where,
                       "a parameter value is neither a number nor a string");
    }
    if (used >= size)
        return bad(err, path, where, "the configuration is too long");
    return KT_S_OK;
}

/* A time field: a finite number > 0. */
static kt_status time_field(const char *path, const char *where,
                            const json_t *obj, const char *name, double *out,
                            kt_err *err)
{
    json_t *v = json_object_get(obj, name);
    char what[96];
    if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
        json_number_value(v) <= 0) {
        snprintf(what, sizeof what, "\"%s\": expected a time > 0 (us)", name);
        return bad(err, path, where, what);
    }
    *out = json_number_value(v);
    return KT_S_OK;
}

/* The kept samples of a samples_us array (nulls are discarded samples). */
static kt_status read_samples(const char *path, const char *where,
                              const json_t *list, kt_diff_config *c,
                              kt_err *err)
{
    size_t i;
    json_t *v;

    if (!list)
        return KT_S_OK;
    if (!json_is_array(list))
        return bad(err, path, where, "\"samples_us\" is not an array");
    if (!json_array_size(list))
        return KT_S_OK;
    if (!(c->samples_us = malloc(json_array_size(list) * sizeof(double))))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    json_array_foreach (list, i, v) {
        if (json_is_null(v))
            continue;
        if (!json_is_number(v) || !(json_number_value(v) > 0) ||
            !isfinite(json_number_value(v)))
            return bad(err, path, where,
                       "\"samples_us\" holds something that is not a time > 0");
        c->samples_us[c->num_samples++] = json_number_value(v);
    }
    return KT_S_OK;
}

static kt_diff_config *find(kt_diff_file *f, const char *key)
{
    for (size_t i = 0; i < f->num_configs; ++i)
        if (strcmp(f->configs[i].key, key) == 0)
            return &f->configs[i];
    return NULL;
}

/* Adds the configuration of point (variant, params) with the statistics
 * in stats (names: median[_us], ci_lo[_us], ci_hi[_us]) and the samples;
 * a configuration the file already holds is kept as first read. */
static kt_status add_config(kt_diff_file *f, const char *where,
                            const json_t *point, const json_t *stats,
                            const char *suffix, const json_t *samples,
                            const char *source, kt_err *err)
{
    kt_diff_config c, *grown;
    char names[3][16];
    kt_status rc;

    memset(&c, 0, sizeof c);
    c.source = source;
    snprintf(names[0], sizeof names[0], "median%s", suffix);
    snprintf(names[1], sizeof names[1], "ci_lo%s", suffix);
    snprintf(names[2], sizeof names[2], "ci_hi%s", suffix);
    if ((rc = config_key(f->path, where, point, c.key, sizeof c.key, err)) ||
        (rc = time_field(f->path, where, stats, names[0], &c.median_us, err)) ||
        (rc = time_field(f->path, where, stats, names[1], &c.ci_lo_us, err)) ||
        (rc = time_field(f->path, where, stats, names[2], &c.ci_hi_us, err)))
        return rc;
    if (c.ci_lo_us > c.ci_hi_us || c.median_us < c.ci_lo_us ||
        c.median_us > c.ci_hi_us)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s: the interval [%s %g, %s %g] does not hold "
                          "the median %g (expected low <= median <= high)",
                          f->path, where, names[1], c.ci_lo_us, names[2],
                          c.ci_hi_us, c.median_us);
    if (find(f, c.key))
        return KT_S_OK;
    if ((rc = read_samples(f->path, where, samples, &c, err))) {
        free(c.samples_us);
        return rc;
    }
    grown = realloc(f->configs, (f->num_configs + 1) * sizeof *grown);
    if (!grown) {
        free(c.samples_us);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    f->configs = grown;
    f->configs[f->num_configs++] = c;
    return KT_S_OK;
}

static kt_status load_bench(kt_diff_file *f, const json_t *root, kt_err *err)
{
    json_t *r = json_object_get(root, "result");
    json_t *timing = json_object_get(r, "timing");
    const char *status = json_string_value(json_object_get(r, "status"));

    if (!json_is_object(r))
        return bad(err, f->path, "result", "expected an object");
    if (!status || strcmp(status, "ok") != 0 || !json_is_object(timing))
        return bad(err, f->path, "result",
                   "the configuration was not measured (status is not ok)");
    return add_config(f, "result", json_object_get(r, "point"),
                      json_object_get(timing, "kernel"), "",
                      json_object_get(timing, "samples_us"), "result", err);
}

static kt_status load_tune(kt_diff_file *f, const json_t *root, kt_err *err)
{
    json_t *top = json_object_get(root, "top"), *best, *x;
    char where[32];
    size_t i;
    kt_status rc;

    if (!json_is_array(top))
        return bad(err, f->path, "top", "expected an array");
    json_array_foreach (top, i, x) {
        snprintf(where, sizeof where, "top[%zu]", i);
        if ((rc = add_config(f, where, x, x, "_us",
                             json_object_get(x, "samples_us"), "top", err)))
            return rc;
    }
    /* The answer, when it is not among the top entries (a summary written
     * with top = 0): its closing measurement keeps no samples. */
    best = json_object_get(root, "best");
    if (!json_is_object(best))
        return KT_S_OK;
    if ((rc = config_key(f->path, "best", best, f->answer, sizeof f->answer,
                         err)))
        return rc;
    return add_config(f, "best", best, best, "_us", NULL, "best", err);
}

static kt_status load_compare(kt_diff_file *f, const json_t *root, kt_err *err)
{
    json_t *list = json_object_get(root, "variants"), *x;
    char where[32];
    size_t i;
    kt_status rc;

    if (!json_is_array(list))
        return bad(err, f->path, "variants", "expected an array");
    json_array_foreach (list, i, x) {
        const char *status = json_string_value(json_object_get(x, "status"));
        if (!status || strcmp(status, "ok") != 0)
            continue;
        snprintf(where, sizeof where, "variants[%zu]", i);
        if ((rc = add_config(
                 f, where, x, json_object_get(x, "stats"), "_us",
                 json_object_get(json_object_get(x, "timing"), "samples_us"),
                 "variants", err)))
            return rc;
    }
    return KT_S_OK;
}

/* spec, sizes, device and the environment record (with the protocol,
 * which tune and compare keep at the top level). */
static void read_header(kt_diff_file *f, const json_t *root)
{
    const char *spec = json_string_value(json_object_get(root, "spec"));
    const char *dev = json_string_value(json_object_get(root, "device"));
    json_t *env = json_object_get(root, "environment"), *sizes, *v;
    const char *name;
    size_t used = 0;

    if (!spec) /* bench keeps "plugin:operator" in "plugin" */
        spec = json_string_value(json_object_get(root, "plugin"));
    snprintf(f->spec, sizeof f->spec, "%s", spec ? spec : "");
    f->environment = json_is_object(env) ? json_deep_copy(env) : json_object();
    if (!json_object_get(f->environment, "protocol") &&
        json_object_get(root, "protocol"))
        json_object_set(f->environment, "protocol",
                        json_object_get(root, "protocol"));
    if (!dev)
        dev = json_string_value(
            json_object_get(json_object_get(f->environment, "device"), "name"));
    snprintf(f->device, sizeof f->device, "%s", dev ? dev : "?");
    sizes = json_object_get(root, "sizes");
    json_object_foreach (sizes, name, v)
        if (used < sizeof f->sizes)
            used += (size_t)snprintf(f->sizes + used, sizeof f->sizes - used,
                                     "%s%s=%lld", used ? " " : "", name,
                                     (long long)json_integer_value(v));
}

static kt_status load_root(kt_diff_file *f, const json_t *root, kt_err *err)
{
    const char *kind = json_string_value(json_object_get(root, "kind"));
    kt_status (*load)(kt_diff_file *, const json_t *, kt_err *) = NULL;

    if (!json_is_object(root) || !kind)
        return bad(err, f->path, "kind",
                   "not a ktune results file (expected the JSON of ktune "
                   "bench, tune or compare)");
    if (strcmp(kind, "ktune.bench") == 0)
        load = load_bench;
    else if (strcmp(kind, "ktune.tune") == 0)
        load = load_tune;
    else if (strcmp(kind, "ktune.compare") == 0)
        load = load_compare;
    else
        return kt_err_set(err, KT_S_INPUT,
                          "%s: kind %s: expected a `ktune bench --json`, "
                          "`ktune tune --json` or `ktune compare --json` file",
                          f->path, kind);
    /* A file without "format" is read as format 1 (hand-written ones). */
    if (json_object_get(root, "format") &&
        (!json_is_integer(json_object_get(root, "format")) ||
         json_integer_value(json_object_get(root, "format")) != 1))
        return bad(err, f->path, "format",
                   "expected 1, the format this ktune reads");
    if (json_object_get(root, "operator") &&
        !json_is_string(json_object_get(root, "operator")))
        return bad(err, f->path, "operator", "expected a name");
    snprintf(f->kind, sizeof f->kind, "%s", kind);
    read_header(f, root);
    if (!f->spec[0])
        return bad(err, f->path, "spec", "names no operator");
    return load(f, root, err);
}

kt_status kt_diff_load(const char *path, kt_diff_file *out, kt_err *err)
{
    json_error_t jerr;
    json_t *root = NULL;
    char *text = NULL;
    size_t len;
    kt_status rc;

    memset(out, 0, sizeof *out);
    if (!(out->path = strdup(path)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if ((rc = kt_file_read(path, "results file", DIFF_MAX_FILE_BYTES, &text,
                           &len, err)))
        goto done;
    if (!(root = json_loadb(text, len, 0, &jerr))) {
        rc = kt_err_set(err, KT_S_INPUT, "%s:%d: not JSON: %s", path, jerr.line,
                        jerr.text);
        goto done;
    }
    if ((rc = load_root(out, root, err)))
        goto done;
    if (!out->num_configs)
        rc = kt_err_set(err, KT_S_INPUT, "%s: holds no measured configuration",
                        path);
done:
    json_decref(root);
    free(text);
    if (rc)
        kt_diff_file_free(out);
    return rc;
}

void kt_diff_file_free(kt_diff_file *f)
{
    for (size_t i = 0; i < f->num_configs; ++i)
        free(f->configs[i].samples_us);
    free(f->configs);
    free(f->path);
    json_decref(f->environment);
    memset(f, 0, sizeof *f);
}

/* -------------------------------------------------------- environment */

/* What a value reads as in a message: strings bare, the rest as JSON;
 * a value too long for the field ends in "...". */
static void value_text(const json_t *v, char *out, size_t size)
{
    char *dumped = NULL;
    const char *text = "(none)";
    int used;

    if (json_is_string(v))
        text = json_string_value(v);
    else if (v && (dumped = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT)))
        text = dumped;
    used = snprintf(out, size, "%s", text);
    if (used >= 0 && (size_t)used >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
    free(dumped);
}

static kt_status add_env(kt_diff *d, const char *field, const json_t *a,
                         const json_t *b, kt_err *err)
{
    kt_diff_env *grown;
    if ((!a && !b) || (a && b && json_equal((json_t *)a, (json_t *)b)))
        return KT_S_OK;
    grown = realloc(d->env, (d->num_env + 1) * sizeof *grown);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    d->env = grown;
    grown = &d->env[d->num_env++];
    snprintf(grown->field, sizeof grown->field, "%s", field);
    value_text(a, grown->a, sizeof grown->a);
    value_text(b, grown->b, sizeof grown->b);
    return KT_S_OK;
}

/* The fields that make two measurements comparable: the GPU and its
 * clocks, the driver and runtime, ECC, the machine and ktune, the problem,
 * and every key of the measurement protocol. The plugin's version and
 * build are not among them: they are the code being compared. */
static kt_status compare_env(kt_diff *d, kt_err *err)
{
    static const char *const fields[][2] = {{"device", "name"},
                                            {"device", "uuid"},
                                            {"device", "driver_version"},
                                            {"device", "runtime_version"},
                                            {"device", "sm_clock_mhz"},
                                            {"device", "mem_clock_mhz"},
                                            {"device", "ecc"},
                                            {"host", "host"},
                                            {"host", "ktune_version"}};
    const json_t *ea = d->a.environment, *eb = d->b.environment;
    json_t *pa = json_object_get(ea, "protocol"),
           *pb = json_object_get(eb, "protocol"), *v;
    char field[64];
    const char *key;
    kt_status rc = KT_S_OK;

    if (strcmp(d->a.sizes, d->b.sizes) != 0) {
        json_t *sa = json_string(d->a.sizes), *sb = json_string(d->b.sizes);
        rc = add_env(d, "sizes", sa, sb, err);
        json_decref(sa);
        json_decref(sb);
    }
    for (size_t i = 0; !rc && i < sizeof fields / sizeof fields[0]; ++i) {
        snprintf(field, sizeof field, "%s.%s", fields[i][0], fields[i][1]);
        rc = add_env(
            d, field,
            json_object_get(json_object_get(ea, fields[i][0]), fields[i][1]),
            json_object_get(json_object_get(eb, fields[i][0]), fields[i][1]),
            err);
    }
    json_object_foreach (pa, key, v) {
        snprintf(field, sizeof field, "protocol.%s", key);
        if (!rc)
            rc = add_env(d, field, v, json_object_get(pb, key), err);
    }
    json_object_foreach (pb, key, v) {
        snprintf(field, sizeof field, "protocol.%s", key);
        if (!rc && !json_object_get(pa, key))
            rc = add_env(d, field, NULL, v, err);
    }
    return rc;
}

/* --------------------------------------------------------------- rows */

/* time(b) / time(a): from the samples when both sides have some, else
 * the ratio of medians between the ratios of the intervals' ends (both
 * ends at their worst: conservative). */
static void row_change(kt_diff_row *r, double threshold)
{
    const kt_diff_config *a = r->a, *b = r->b;
    int v;

    if (a->num_samples >= 2 && b->num_samples >= 2) {
        kt_stats_unpaired_ratio(a->samples_us, a->num_samples, b->samples_us,
                                b->num_samples, &r->change);
        r->from_samples = r->change.n > 0;
    }
    if (!r->from_samples) {
        r->change.n = 1;
        r->change.ratio = b->median_us / a->median_us;
        r->change.lo = b->ci_lo_us / a->ci_hi_us;
        r->change.hi = b->ci_hi_us / a->ci_lo_us;
    }
    v = kt_stats_verdict(&r->change, threshold);
    r->verdict = v > 0   ? KT_DIFF_REGRESSION
                 : v < 0 ? KT_DIFF_IMPROVEMENT
                         : KT_DIFF_SAME;
}

static kt_status build_rows(kt_diff *d, kt_err *err)
{
    size_t cap = d->a.num_configs + d->b.num_configs, matched = 0;

    if (!(d->rows = calloc(cap ? cap : 1, sizeof *d->rows)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < d->a.num_configs; ++i) {
        kt_diff_row *r = &d->rows[d->num_rows++];
        r->a = &d->a.configs[i];
        r->b = find(&d->b, r->a->key);
        if (r->b) {
            row_change(r, d->threshold);
            ++matched;
        } else {
            r->verdict = KT_DIFF_ONLY_A;
        }
    }
    for (size_t i = 0; i < d->b.num_configs; ++i)
        if (!find(&d->a, d->b.configs[i].key)) {
            kt_diff_row *r = &d->rows[d->num_rows++];
            r->b = &d->b.configs[i];
            r->verdict = KT_DIFF_ONLY_B;
        }
    for (size_t i = 0; i < d->num_rows; ++i)
        ++d->count[d->rows[i].verdict];
    if (!matched)
        return kt_err_set(err, KT_S_INPUT,
                          "%s and %s share no configuration: nothing to "
                          "compare",
                          d->a.path, d->b.path);
    return KT_S_OK;
}

kt_status kt_diff_run(kt_diff_file *a, kt_diff_file *b, double threshold,
                      kt_diff *out, kt_err *err)
{
    kt_status rc;

    memset(out, 0, sizeof *out);
    out->a = *a;
    out->b = *b;
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    out->threshold = threshold;
    if (strcmp(out->a.spec, out->b.spec) != 0)
        return kt_err_set(err, KT_S_INPUT,
                          "%s measures %s, %s measures %s: expected the same "
                          "operator",
                          out->a.path, out->a.spec, out->b.path, out->b.spec);
    if ((rc = compare_env(out, err)))
        return rc;
    return build_rows(out, err);
}

void kt_diff_free(kt_diff *d)
{
    kt_diff_file_free(&d->a);
    kt_diff_file_free(&d->b);
    free(d->rows);
    free(d->env);
    memset(d, 0, sizeof *d);
}

const char *kt_diff_verdict_name(kt_diff_verdict v)
{
    switch (v) {
    case KT_DIFF_SAME: return "same";
    case KT_DIFF_REGRESSION: return "regression";
    case KT_DIFF_IMPROVEMENT: return "improvement";
    case KT_DIFF_ONLY_A: return "only in A";
    case KT_DIFF_ONLY_B: return "only in B";
    }
    return "?";
}
