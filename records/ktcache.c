// SPDX-License-Identifier: Apache-2.0
#include "records/ktcache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/fileio.h"
#include "core/hash.h"
#include "core/msg.h"
#include "core/u64map.h"
#include "records/jscan.h"
#include "records/ktentry.h"

/* ------------------------------------------------------------- fields */

static const char *kind_of(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* A member that must be there, of a JSON type; "where" names its owner. */
static kt_status member(const kt_extrec *rec, const json_t *obj,
                        const char *where, const char *key, json_type type,
                        json_t **out, kt_err *err)
{
    json_t *v = json_object_get(obj, key);
    static const char *const names[] = {"an object",  "an array", "a string",
                                        "an integer", "a real",   "a boolean",
                                        "a boolean",  "null"};
    *out = v;
    if (!v)
        return kt_err_set(err, KT_S_INPUT, "%s: %s%s%s: missing", rec->path,
                          where, where[0] ? "." : "", key);
    if (json_typeof(v) != type)
        return kt_err_set(err, KT_S_INPUT, "%s: %s%s%s: %s, expected %s",
                          rec->path, where, where[0] ? "." : "", key,
                          kind_of(v), names[type]);
    return KT_S_OK;
}

/* raw * scale as milliseconds, refused past KT_KTCACHE_MAX_MS: a finite
 * number of seconds can still overflow once converted. */
static kt_status to_ms(const kt_extrec *rec, const char *where, double raw,
                       double scale, double *ms, kt_err *err)
{
    double v = raw * scale;
    if (!isfinite(v) || v > KT_KTCACHE_MAX_MS)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s: %g, %g ms in ktune's unit, expected at most "
                          "%g ms",
                          rec->path, where, raw, v, KT_KTCACHE_MAX_MS);
    *ms = v;
    return KT_S_OK;
}

/* A time: a finite number >= 0, in the file's unit, as milliseconds.
 * Absent: *ms = 0 and KT_S_OK when optional. */
static kt_status time_field(const kt_extrec *rec, const json_t *obj,
                            const char *where, const char *key, int required,
                            double *ms, kt_err *err)
{
    json_t *v = json_object_get(obj, key);
    char at[256];
    *ms = 0;
    if (!v && !required)
        return KT_S_OK;
    if (!v)
        return kt_err_set(err, KT_S_INPUT, "%s: %s.%s: missing", rec->path,
                          where, key);
    if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
        json_number_value(v) < 0)
        return kt_err_set(
            err, KT_S_INPUT, "%s: %s.%s: %s, expected a time >= 0 (ms)",
            rec->path, where, key,
            json_is_number(v) ? "negative or not finite" : kind_of(v));
    snprintf(at, sizeof at, "%s.%s", where, key);
    return to_ms(rec, at, json_number_value(v), rec->unit_ms, ms, err);
}

/* An optional list of run times (numbers >= 0), into *runs in ms (owned,
 * NULL when absent or empty) and its count. */
static kt_status runtimes_field(const kt_extrec *rec, const json_t *list,
                                const char *where, double **runs, uint32_t *n,
                                kt_err *err)
{
    size_t i;
    json_t *v;

    *runs = NULL;
    *n = 0;
    if (!list)
        return KT_S_OK;
    if (!json_is_array(list))
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s: %s, expected a list of "
                          "times",
                          rec->path, where, kind_of(list));
    json_array_foreach (list, i, v) {
        if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
            json_number_value(v) < 0)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: %s[%zu]: %s, expected a time >= 0",
                              rec->path, where, i, kind_of(v));
    }
    if (!json_array_size(list) || json_array_size(list) > UINT32_MAX)
        return KT_S_OK;
    if (!(*runs = malloc(json_array_size(list) * sizeof **runs)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    json_array_foreach (list, i, v)
        (*runs)[i] = json_number_value(v) * rec->unit_ms;
    *n = (uint32_t)json_array_size(list);
    return KT_S_OK;
}

/* Hands r to the recording: the objective kept only as an error name (a
 * reference of its own), the rest of the entry's JSON let go. On failure
 * what r owns is freed. */
static kt_status add_record(kt_extrec *rec, const uint32_t *pos,
                            kt_extrec_record *r, const char *where, kt_err *err)
{
    kt_status rc;
    r->objective =
        json_is_string(r->objective) ? json_incref(r->objective) : NULL;
    if ((rc = kt_extrec_add(rec, pos, r, where, err)))
        kt_extrec_record_clear(r);
    return rc;
}

static void optional_name(const json_t *doc, const char *key, char *out,
                          size_t size)
{
    const char *s = json_string_value(json_object_get(doc, key));
    if (s && *s)
        snprintf(out, size, "%s", s);
    kt_term_scrub(out); /* shown in the summary: no terminal escapes */
}

/* ---------------------------------------------------- the cache file */

/* Whether a key's text is Python's str() of the declared value v, the
 * way Kernel Tuner joins a configuration into its cache key. */
static int key_text_is(const char *text, const json_t *v)
{
    char *end;
    switch (json_typeof(v)) {
    case JSON_STRING: return strcmp(text, json_string_value(v)) == 0;
    case JSON_TRUE: return strcmp(text, "True") == 0;
    case JSON_FALSE: return strcmp(text, "False") == 0;
    case JSON_NULL: return strcmp(text, "None") == 0;
    case JSON_INTEGER: {
        /* Python writes 2 as "2"; "2.0" is read as the same number. */
        double x = strtod(text, &end);
        return *text && !*end && x == (double)json_integer_value(v);
    }
    case JSON_REAL: {
        double x = strtod(text, &end);
        return *text && !*end && x == json_real_value(v);
    }
    default: return 0;
    }
}

/* An integer parameter's field written as plain digits ("-" allowed),
 * below 2^53: found by its value in the parameter's index. What
 * key_text_is's strtod and comparison would find (the value is exact as a
 * double, no other declared integer has that double), without a strtod per
 * declared value: 9% of a 1e6-point cache's replay (issue 54). */
static int key_integer(const kt_extrec_param *par, const char *text,
                       uint32_t *pos)
{
    const char *c = text + (*text == '-');
    uint64_t v = 0, at;
    int n = 0;

    for (; *c >= '0' && *c <= '9' && n < 16; ++c, ++n)
        v = v * 10 + (uint64_t)(*c - '0');
    if (!par->integer || !n || *c || v >= (UINT64_C(1) << 53) ||
        !kt_u64map_get(&par->by_key, *text == '-' ? (uint64_t) - (int64_t)v : v,
                       &at))
        return 0;
    *pos = (uint32_t)at;
    return 1;
}

/* The declared position of a key's k-th field. */
static kt_status key_position(const kt_extrec *rec, const char *key, size_t p,
                              const char *text, uint32_t *pos, kt_err *err)
{
    const kt_extrec_param *par = &rec->params[p];
    if (key_integer(par, text, pos))
        return KT_S_OK;
    for (uint32_t k = 0; k < par->count; ++k)
        if (key_text_is(text, par->values[k])) {
            *pos = k;
            return KT_S_OK;
        }
    return kt_err_set(err, KT_S_INPUT,
                      "%s: cache key '%s': %s = %s is not one of the values "
                      "tune_params declares",
                      rec->path, key, par->name, text);
}

/* The positions a cache key names, one field per parameter. */
static kt_status key_positions(const kt_extrec *rec, const char *key,
                               uint32_t *pos, kt_err *err)
{
    char buf[4096];
    char *field = buf, *comma;
    size_t p = 0, len = strlen(key);

    if (len >= sizeof buf)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: a cache key of %zu characters; at most %zu",
                          rec->path, len, sizeof buf - 1);
    memcpy(buf, key, len + 1);
    for (;; ++p) {
        comma = strchr(field, ',');
        if (comma)
            *comma = '\0';
        if (p >= rec->num_params)
            break;
        if (key_position(rec, key, p, field, &pos[p], err))
            return KT_S_INPUT;
        if (!comma)
            break;
        field = comma + 1;
    }
    if (p + 1 != rec->num_params || comma)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: cache key '%s': expected %zu values joined "
                          "by commas (tune_params_keys)",
                          rec->path, key, rec->num_params);
    return KT_S_OK;
}

/* An entry's own copy of a parameter, when it holds one, must agree with
 * its key. */
static kt_status entry_agrees(const kt_extrec *rec, const char *key,
                              const json_t *entry, const uint32_t *pos,
                              kt_err *err)
{
    for (size_t p = 0; p < rec->num_params; ++p) {
        const kt_extrec_param *par = &rec->params[p];
        const json_t *v = json_object_get(entry, par->name);
        uint32_t at;
        if (!v)
            continue;
        if (!kt_extrec_value_pos(rec, p, v, &at) || at != pos[p])
            return kt_err_set(err, KT_S_INPUT,
                              "%s: cache['%s'].%s: the entry's value is not "
                              "the key's %s",
                              rec->path, key, par->name, par->labels[pos[p]]);
    }
    return KT_S_OK;
}

/* Kernel Tuner's error names and the verdicts they stand for. */
static int error_verdict(const char *name, kt_extrec_verdict *v)
{
    if (strcmp(name, "InvalidConfig") == 0)
        *v = KT_EXTREC_CONSTRAINTS;
    else if (strcmp(name, "CompilationFailedConfig") == 0)
        *v = KT_EXTREC_COMPILE;
    else if (strcmp(name, "RuntimeFailedConfig") == 0)
        *v = KT_EXTREC_RUNTIME;
    else
        return 0;
    return 1;
}

static kt_status objective_of(const kt_extrec *rec, const char *where,
                              json_t *t, kt_extrec_record *r, kt_err *err)
{
    char at[256];
    r->objective = t;
    if (json_is_string(t)) {
        if (error_verdict(json_string_value(t), &r->verdict))
            return KT_S_OK;
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s.time: '%s', expected a time (ms) or one of "
                          "InvalidConfig, CompilationFailedConfig, "
                          "RuntimeFailedConfig",
                          rec->path, where, json_string_value(t));
    }
    if (!json_is_number(t) || !isfinite(json_number_value(t)) ||
        json_number_value(t) <= 0)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s.time: %s, expected a time > 0 (ms) or an "
                          "error name",
                          rec->path, where,
                          json_is_number(t) ? "not a positive finite number"
                                            : kind_of(t));
    r->verdict = KT_EXTREC_CORRECT;
    snprintf(at, sizeof at, "%s.time", where);
    return to_ms(rec, at, json_number_value(t), rec->unit_ms, &r->time_ms, err);
}

static kt_status cache_entry(kt_extrec *rec, const char *key, json_t *entry,
                             size_t order, kt_err *err)
{
    char where[160];
    uint32_t pos[KT_MAX_PARAMS];
    kt_extrec_record r;
    json_t *t;
    kt_status rc;

    memset(&r, 0, sizeof r);
    snprintf(where, sizeof where, "cache['%.120s']", key);
    if (!json_is_object(entry))
        return kt_err_set(err, KT_S_INPUT, "%s: %s: %s, expected an object",
                          rec->path, where, kind_of(entry));
    if ((rc = key_positions(rec, key, pos, err)) ||
        (rc = entry_agrees(rec, key, entry, pos, err)))
        return rc;
    if (!(t = json_object_get(entry, "time")))
        return kt_err_set(err, KT_S_INPUT, "%s: %s.time: missing", rec->path,
                          where);
    if ((rc = objective_of(rec, where, t, &r, err)) ||
        (rc = time_field(rec, entry, where, "compile_time", 1, &r.compile_ms,
                         err)) ||
        (rc = time_field(rec, entry, where, "verification_time", 1,
                         &r.verify_ms, err)) ||
        (rc = time_field(rec, entry, where, "benchmark_time", 1, &r.bench_ms,
                         err)) ||
        (rc = time_field(rec, entry, where, "framework_time", 0,
                         &r.framework_ms, err)) ||
        (rc = time_field(rec, entry, where, "strategy_time", 0, &r.strategy_ms,
                         err)))
        return rc;
    snprintf(where, sizeof where, "cache['%.120s'].times", key);
    if ((rc = runtimes_field(rec, json_object_get(entry, "times"), where,
                             &r.runs_ms, &r.num_runs, err)))
        return rc;
    r.order = order;
    if (!(r.key = strdup(key))) {
        kt_extrec_record_clear(&r);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    snprintf(where, sizeof where, "cache key '%.120s'", key);
    return add_record(rec, pos, &r, where, err);
}

/* tune_params in the order of tune_params_keys, which must name each of
 * them once. */
static kt_status cache_params(kt_extrec *rec, kt_err *err)
{
    json_t *params, *keys, *k;
    size_t i;
    kt_status rc;

    if ((rc = member(rec, rec->doc, "", "tune_params", JSON_OBJECT, &params,
                     err)) ||
        (rc = member(rec, rec->doc, "", "tune_params_keys", JSON_ARRAY, &keys,
                     err)))
        return rc;
    if (json_array_size(keys) != json_object_size(params))
        return kt_err_set(err, KT_S_INPUT,
                          "%s: tune_params_keys names %zu parameters, "
                          "tune_params declares %zu",
                          rec->path, json_array_size(keys),
                          json_object_size(params));
    json_array_foreach (keys, i, k) {
        char where[160];
        json_t *values;
        if (!json_is_string(k))
            return kt_err_set(err, KT_S_INPUT,
                              "%s: tune_params_keys[%zu]: %s, expected a "
                              "parameter name",
                              rec->path, i, kind_of(k));
        snprintf(where, sizeof where, "tune_params.%.100s",
                 json_string_value(k));
        if (!(values = json_object_get(params, json_string_value(k))))
            return kt_err_set(err, KT_S_INPUT,
                              "%s: tune_params_keys[%zu]: '%s' is not in "
                              "tune_params",
                              rec->path, i, json_string_value(k));
        if ((rc = kt_extrec_add_param(rec, json_string_value(k), values, where,
                                      err)))
            return rc;
    }
    return KT_S_OK;
}

/* What a cache declares before its entries: the objective, the kernel's
 * and device's names, the parameters. */
static kt_status cache_head(kt_extrec *rec, kt_err *err)
{
    json_t *obj = json_object_get(rec->doc, "objective");

    rec->unit_ms = 1;
    optional_name(rec->doc, "kernel_name", rec->kernel, sizeof rec->kernel);
    optional_name(rec->doc, "device_name", rec->device, sizeof rec->device);
    if (obj &&
        (!json_is_string(obj) || strcmp(json_string_value(obj), "time") != 0))
        return kt_err_set(err, KT_S_INPUT,
                          "%s: objective: %s%s%s, expected \"time\" (ktune "
                          "minimises the recorded time)",
                          rec->path, json_is_string(obj) ? "'" : "",
                          json_is_string(obj) ? json_string_value(obj)
                                              : kind_of(obj),
                          json_is_string(obj) ? "'" : "");
    return cache_params(rec, err);
}

kt_status kt_ktcache_read_cache(kt_extrec *rec, kt_err *err)
{
    json_t *cache, *entry;
    const char *key;
    size_t order = 0;
    kt_status rc;

    if ((rc = cache_head(rec, err)) ||
        (rc = member(rec, rec->doc, "", "cache", JSON_OBJECT, &cache, err)))
        return rc;
    json_object_foreach (cache, key, entry) {
        if ((rc = cache_entry(rec, key, entry, order++, err)))
            return rc;
    }
    return kt_extrec_finish(rec, err);
}

/* ------------------------------------------------------ T4 results */

static kt_status t4_unit(kt_extrec *rec, kt_err *err)
{
    static const struct {
        const char *name;
        double ms;
    } units[] = {{"milliseconds", 1}, {"miliseconds", 1},
                 {"ms", 1},           {"seconds", 1e3},
                 {"s", 1e3},          {"microseconds", 1e-3},
                 {"us", 1e-3},        {"nanoseconds", 1e-6}};
    json_t *meta = json_object_get(rec->doc, "metadata");
    json_t *unit = json_object_get(meta, "timeunit");

    rec->unit_ms = 1; /* T4's own unit */
    if (!unit)
        return KT_S_OK;
    for (size_t i = 0; json_is_string(unit) && i < sizeof units / sizeof *units;
         ++i)
        if (strcmp(json_string_value(unit), units[i].name) == 0) {
            rec->unit_ms = units[i].ms;
            return KT_S_OK;
        }
    return kt_err_set(err, KT_S_INPUT,
                      "%s: metadata.timeunit: %s%s%s, expected milliseconds, "
                      "seconds or microseconds",
                      rec->path, json_is_string(unit) ? "'" : "",
                      json_is_string(unit) ? json_string_value(unit)
                                           : kind_of(unit),
                      json_is_string(unit) ? "'" : "");
}

/* Numbers first (by value), then strings, then booleans, then null. */
static int value_rank(const json_t *v)
{
    return json_is_number(v)   ? 0
           : json_is_string(v) ? 1
           : json_is_null(v)   ? 3
                               : 2;
}

static int compare_values(const void *pa, const void *pb)
{
    const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int ra = value_rank(a), rb = value_rank(b);
    if (ra != rb)
        return ra - rb;
    if (ra == 0)
        return (json_number_value(a) > json_number_value(b)) -
               (json_number_value(a) < json_number_value(b));
    if (ra == 1)
        return strcmp(json_string_value(a), json_string_value(b));
    return json_is_true(a) - json_is_true(b);
}

/* Where a value is looked for among those seen (equal values, by
 * compare_values, share a key; a collision costs a scan). */
static uint64_t value_key(const json_t *v)
{
    if (json_is_number(v)) {
        double d = json_number_value(v) + 0.0; /* -0 is 0 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return bits;
    }
    if (json_is_string(v))
        return kt_hash_fnv1a_str(KT_HASH_FNV1A_BASIS, json_string_value(v));
    return json_is_true(v) ? 1 : json_is_false(v) ? 2 : 3;
}

/* Adds v to uniq[0..*n) unless an equal value is there. */
static kt_status gather(kt_u64map *seen, json_t **uniq, size_t *n, json_t *v,
                        kt_err *err)
{
    uint64_t key = value_key(v), at;
    if (kt_u64map_get(seen, key, &at)) {
        if (compare_values(&uniq[at], &v) == 0)
            return KT_S_OK;
        for (size_t k = 0; k < *n; ++k)
            if (compare_values(&uniq[k], &v) == 0)
                return KT_S_OK;
    } else if (kt_u64map_put(seen, key, *n, err)) {
        return KT_S_NOMEM;
    }
    uniq[(*n)++] = v;
    return KT_S_OK;
}

/* The values of parameter name over every result, sorted, each once. */
static kt_status t4_values(kt_extrec *rec, json_t *results, const char *name,
                           kt_err *err)
{
    size_t n = json_array_size(results), kept = 0, i;
    json_t **uniq = calloc(n ? n : 1, sizeof *uniq), *list = NULL, *res;
    kt_u64map seen;
    char where[160];
    kt_status rc = KT_S_OK;

    kt_u64map_init(&seen);
    if (!uniq)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    json_array_foreach (results, i, res) {
        json_t *v =
            json_object_get(json_object_get(res, "configuration"), name);
        if (!v || json_is_object(v) || json_is_array(v)) {
            rc = kt_err_set(err, KT_S_INPUT,
                            "%s: results[%zu].configuration.%s: %s", rec->path,
                            i, name,
                            v ? "a list or an object, expected a number, a "
                                "string or a boolean"
                              : "missing (the first result has it)");
            goto done;
        }
        if ((rc = gather(&seen, uniq, &kept, v, err)))
            goto done;
    }
    qsort(uniq, kept, sizeof *uniq, compare_values);
    if (!(list = json_array())) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < kept; ++i)
        json_array_append(list, uniq[i]);
    snprintf(where, sizeof where, "results[].configuration.%.100s", name);
    /* The values stay the document's: the list only gathers them. */
    rc = kt_extrec_add_param(rec, name, list, where, err);
done:
    json_decref(list);
    kt_u64map_free(&seen);
    free(uniq);
    return rc;
}

static kt_status t4_verdict(const kt_extrec *rec, const char *where,
                            const json_t *res, kt_extrec_record *r, kt_err *err)
{
    static const char *const names[] = {"correct", "constraints", "compile",
                                        "runtime", "correctness", "timeout"};
    json_t *inv = NULL;
    kt_status rc;

    if ((rc = member(rec, res, where, "invalidity", JSON_STRING, &inv, err)))
        return rc;
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
        if (strcmp(json_string_value(inv), names[i]) == 0) {
            r->verdict = (kt_extrec_verdict)i;
            return KT_S_OK;
        }
    return kt_err_set(err, KT_S_INPUT,
                      "%s: %s.invalidity: '%s', expected correct, compile, "
                      "runtime, correctness, constraints or timeout",
                      rec->path, where, json_string_value(inv));
}

/* The "time" measurement: a number > 0 when the result is correct, in its
 * own unit ("" is the file's). */
static kt_status t4_objective(const kt_extrec *rec, const char *where,
                              const json_t *res, kt_extrec_record *r,
                              kt_err *err)
{
    json_t *meas = NULL, *m, *found = NULL;
    char at[256];
    const char *unit;
    double scale = rec->unit_ms;
    size_t i;
    kt_status rc;

    if ((rc = member(rec, res, where, "measurements", JSON_ARRAY, &meas, err)))
        return rc;
    json_array_foreach (meas, i, m) {
        const char *name = json_string_value(json_object_get(m, "name"));
        if (name && strcmp(name, "time") == 0) {
            if (found)
                return kt_err_set(err, KT_S_INPUT,
                                  "%s: %s.measurements[%zu]: a second "
                                  "\"time\"",
                                  rec->path, where, i);
            found = m;
        }
    }
    r->objective = found ? json_object_get(found, "value") : NULL;
    if (r->verdict != KT_EXTREC_CORRECT)
        return KT_S_OK;
    if (!r->objective)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s.measurements: no \"time\" with a value, "
                          "and the result is correct",
                          rec->path, where);
    unit = json_string_value(json_object_get(found, "unit"));
    if (unit && strcmp(unit, "ms") == 0)
        scale = 1;
    else if (unit && strcmp(unit, "s") == 0)
        scale = 1e3;
    else if (unit && strcmp(unit, "us") == 0)
        scale = 1e-3;
    else if (unit && *unit)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s.measurements: time's unit '%s', expected "
                          "ms, s, us or \"\" (metadata.timeunit)",
                          rec->path, where, unit);
    if (!json_is_number(r->objective) ||
        !isfinite(json_number_value(r->objective)) ||
        json_number_value(r->objective) <= 0)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s.measurements: time is %s, expected a time "
                          "> 0 (the result is correct)",
                          rec->path, where,
                          json_is_number(r->objective)
                              ? "not a positive finite number"
                              : kind_of(r->objective));
    snprintf(at, sizeof at, "%s.measurements: time", where);
    return to_ms(rec, at, json_number_value(r->objective), scale, &r->time_ms,
                 err);
}

/* The recorded runs' sum, refused past KT_KTCACHE_MAX_MS like any time. */
static kt_status sum_ms(const kt_extrec *rec, const char *where,
                        const kt_extrec_record *r, double *ms, kt_err *err)
{
    double s = 0;
    for (uint32_t i = 0; i < r->num_runs; ++i)
        s += r->runs_ms[i];
    return to_ms(rec, where, s, 1, ms, err);
}

static kt_status t4_times(kt_extrec *rec, const char *where, const json_t *res,
                          kt_extrec_record *r, kt_err *err)
{
    json_t *times = NULL;
    char at[160];
    const char *compile = "compilation";
    kt_status rc;

    snprintf(at, sizeof at, "%s.times", where);
    if ((rc = member(rec, res, where, "times", JSON_OBJECT, &times, err)))
        return rc;
    /* T4's schema names it compilation_time, Kernel Tuner compilation. */
    if (!json_object_get(times, compile) &&
        json_object_get(times, "compilation_time"))
        compile = "compilation_time";
    if ((rc = time_field(rec, times, at, compile, 1, &r->compile_ms, err)) ||
        (rc =
             time_field(rec, times, at, "validation", 1, &r->verify_ms, err)) ||
        (rc = time_field(rec, times, at, "framework", 0, &r->framework_ms,
                         err)) ||
        (rc = time_field(rec, times, at, "search_algorithm", 0, &r->strategy_ms,
                         err)))
        return rc;
    snprintf(at, sizeof at, "%s.times.runtimes", where);
    if ((rc = runtimes_field(rec, json_object_get(times, "runtimes"), at,
                             &r->runs_ms, &r->num_runs, err)))
        return rc;
    snprintf(at, sizeof at, "%s.times", where);
    if (json_object_get(times, "benchmark"))
        return time_field(rec, times, at, "benchmark", 1, &r->bench_ms, err);
    /* Without a benchmark time, the runs recorded stand for it. */
    rec->bench_from_runtimes = 1;
    snprintf(at, sizeof at, "%s.times.runtimes (their sum)", where);
    return sum_ms(rec, at, r, &r->bench_ms, err);
}

static kt_status t4_result(kt_extrec *rec, size_t i, json_t *res, kt_err *err)
{
    char where[64];
    uint32_t pos[KT_MAX_PARAMS];
    json_t *conf = NULL;
    kt_extrec_record r;
    kt_status rc;

    memset(&r, 0, sizeof r);
    snprintf(where, sizeof where, "results[%zu]", i);
    if (!json_is_object(res))
        return kt_err_set(err, KT_S_INPUT, "%s: %s: %s, expected an object",
                          rec->path, where, kind_of(res));
    if ((rc =
             member(rec, res, where, "configuration", JSON_OBJECT, &conf, err)))
        return rc;
    if (json_object_size(conf) != rec->num_params)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s.configuration: %zu parameters, the first "
                          "result has %zu",
                          rec->path, where, json_object_size(conf),
                          rec->num_params);
    for (size_t p = 0; p < rec->num_params; ++p)
        if (!kt_extrec_value_pos(
                rec, p, json_object_get(conf, rec->params[p].name), &pos[p]))
            return kt_err_set(err, KT_S_INPUT,
                              "%s: %s.configuration.%s: missing or of another "
                              "type than the first result's",
                              rec->path, where, rec->params[p].name);
    if ((rc = t4_verdict(rec, where, res, &r, err)) ||
        (rc = t4_objective(rec, where, res, &r, err)) ||
        (rc = t4_times(rec, where, res, &r, err))) {
        free(r.runs_ms); /* the objective is still the document's */
        return rc;
    }
    r.order = i;
    return add_record(rec, pos, &r, where, err);
}

kt_status kt_ktcache_read_t4(kt_extrec *rec, kt_err *err)
{
    json_t *results = NULL, *first, *version, *v, *res;
    const char *name;
    size_t i;
    kt_status rc;

    version = json_object_get(rec->doc, "schema_version");
    if (version && !json_is_string(version))
        return kt_err_set(err, KT_S_INPUT,
                          "%s: schema_version: %s, expected a string",
                          rec->path, kind_of(version));
    if ((rc = t4_unit(rec, err)) ||
        (rc = member(rec, rec->doc, "", "results", JSON_ARRAY, &results, err)))
        return rc;
    if (json_array_size(results) == 0)
        return kt_err_set(err, KT_S_INPUT, "%s: results: an empty list",
                          rec->path);
    first = json_array_get(results, 0);
    if (!json_is_object(first) ||
        (rc = member(rec, first, "results[0]", "configuration", JSON_OBJECT, &v,
                     err)))
        return rc ? rc
                  : kt_err_set(err, KT_S_INPUT,
                               "%s: results[0]: %s, expected an object",
                               rec->path, kind_of(first));
    json_object_foreach (v, name, res) {
        if ((rc = t4_values(rec, results, name, err)))
            return rc;
    }
    json_array_foreach (results, i, res) {
        if ((rc = t4_result(rec, i, res, err)))
            return rc;
    }
    return kt_extrec_finish(rec, err);
}

/* ------------------------------------------------------------ loading */

/* An entry read by the fast reading (records/ktentry.h), when it takes
 * it: *taken 1 and the record added (or the error of adding it, which the
 * whole parse would meet the same way). A key that names no point leaves
 * it to the whole parse, which says what is wrong in its own order. */
static kt_status plain_entry(kt_extrec *rec, kt_ktentry *fast, const char *key,
                             const char *text, size_t len, size_t order,
                             int *taken, kt_err *err)
{
    uint32_t pos[KT_MAX_PARAMS];
    char where[160];
    kt_extrec_record r;
    json_t *name;
    kt_status rc;

    *taken = 0;
    memset(&r, 0, sizeof r);
    if (key_positions(rec, key, pos, NULL))
        return KT_S_OK;
    switch (kt_ktentry_read(fast, text, len, pos, &r)) {
    case KT_KTENTRY_REFUSED: return KT_S_OK;
    case KT_KTENTRY_NOMEM: return kt_err_set(err, KT_S_NOMEM, "out of memory");
    case KT_KTENTRY_TAKEN: break;
    }
    *taken = 1;
    ++rec->plain_entries;
    r.order = order;
    name = r.objective; /* add_record takes a reference of its own */
    if (!(r.key = strdup(key))) {
        kt_extrec_record_clear(&r);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    snprintf(where, sizeof where, "cache key '%.120s'", key);
    rc = add_record(rec, pos, &r, where, err);
    json_decref(name);
    return rc;
}

/* The cache's entries from s (its '{' next), each read alone and let go
 * once its record is made: by the fast reading when it takes the entry
 * (unless whole), else parsed whole by jansson. */
static kt_status stream_cache(kt_extrec *rec, kt_jscan *s, int whole,
                              kt_err *err)
{
    const char *key, *text;
    size_t order = 0, len;
    kt_ktentry *fast = whole ? NULL : kt_ktentry_new(rec);
    json_t *entry;
    int taken = 0;
    kt_status rc;

    if ((rc = kt_jscan_begin(s, err)))
        goto done;
    while (kt_jscan_next(s, &key, &rc, err)) {
        if ((rc = kt_jscan_text(s, &text, &len, err)) ||
            (fast &&
             (rc = plain_entry(rec, fast, key, text, len, order, &taken, err))))
            goto done;
        if (!taken) {
            if ((rc = kt_jscan_parse(s, &entry, err)))
                goto done;
            rc = cache_entry(rec, key, entry, order, err);
            json_decref(entry);
            if (rc)
                goto done;
        }
        ++order;
    }
done:
    kt_ktentry_free(fast);
    return rc;
}

/* One top-level member: a Kernel Tuner cache's entries streamed into a
 * recording (*rec, begun here) when its parameters came before them, as
 * Kernel Tuner writes them; anything else parsed into head. */
static kt_status top_member(const char *path, kt_jscan *s, const char *key,
                            json_t *head, int whole, kt_extrec **rec,
                            kt_err *err)
{
    json_t *v;
    kt_status rc;

    if (!*rec && strcmp(key, "cache") == 0 && kt_jscan_peek(s) == '{' &&
        json_object_get(head, "tune_params") &&
        json_object_get(head, "tune_params_keys")) {
        if ((rc = kt_extrec_begin(path, KT_EXTREC_KT_CACHE, json_incref(head),
                                  rec, err)) ||
            (rc = cache_head(*rec, err)))
            return rc;
        return stream_cache(*rec, s, whole, err);
    }
    if (json_object_get(head, key) || (*rec && strcmp(key, "cache") == 0))
        return kt_err_set(err, KT_S_INPUT,
                          "%s: the top-level key '%s' is written twice "
                          "(duplicate object key)",
                          path, key);
    if ((rc = kt_jscan_value(s, &v, err)))
        return rc;
    return json_object_set_new(head, key, v)
               ? kt_err_set(err, KT_S_NOMEM, "out of memory")
               : KT_S_OK;
}

/* Reads path member by member (records/jscan.h): a Kernel Tuner cache
 * becomes *rec entry by entry, holding the points and not the text; any
 * other document comes back whole in *doc. whole: stream_cache's. */
static kt_status read_streamed(const char *path, int whole, kt_extrec **rec,
                               json_t **doc, kt_err *err)
{
    json_t *head = json_object();
    const char *key;
    kt_jscan *s = NULL;
    kt_status rc;

    *rec = NULL;
    *doc = NULL;
    if (!head)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if ((rc = kt_jscan_open(path, KT_KTCACHE_MAX_BYTES, &s, err)))
        goto done;
    if (kt_jscan_peek(s) != '{') {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: the top level is not a JSON object", path);
        goto done;
    }
    rc = kt_jscan_begin(s, err);
    while (!rc && kt_jscan_next(s, &key, &rc, err))
        rc = top_member(path, s, key, head, whole, rec, err);
    if (!rc)
        rc = kt_jscan_end(s, err);
    if (!rc && *rec)
        rc = kt_extrec_finish(*rec, err);
done:
    kt_jscan_close(s);
    if (rc || *rec) {
        json_decref(head);
        if (rc) {
            kt_extrec_free(*rec);
            *rec = NULL;
        }
        return rc;
    }
    *doc = head;
    return KT_S_OK;
}

/* Strips suffix from the end of s when it is there; 1 when it was. */
static int strip(char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n <= k || strcmp(s + n - k, suffix) != 0)
        return 0;
    s[n - k] = '\0';
    return 1;
}

/* The device of the cache file stem + ".cache.json[.gz]", if one is there
 * and names it. */
static int sibling_device(kt_extrec *rec, const char *stem)
{
    static const char *const ends[] = {".cache.json", ".cache.json.gz"};
    size_t size = strlen(stem) + sizeof ".cache.json.gz";
    char *name = malloc(size);
    kt_extrec *sib = NULL;
    int found = 0;

    for (size_t i = 0; name && i < 2 && !found; ++i) {
        snprintf(name, size, "%s%s", stem, ends[i]);
        if (access(name, F_OK) != 0 ||
            kt_ktcache_load(name, &sib, NULL) != KT_S_OK)
            continue;
        if (sib->format == KT_EXTREC_KT_CACHE && *sib->device &&
            strcmp(sib->device, "unknown") != 0) {
            snprintf(rec->device, sizeof rec->device, "%s", sib->device);
            kt_term_scrub(rec->device);
            found = 1;
        }
        kt_extrec_free(sib);
        sib = NULL;
    }
    free(name);
    return found;
}

/* T4 results name no device; Kernel Tuner's cache file of the same run,
 * beside them, does: STEM.cache.json (or .gz), STEM the T4 file's name
 * less .t4.json, _T4.json or _output.json (and .gz), then less one more
 * dotted part (NAME.kt150.t4.json beside NAME.cache.json). The device stays
 * "unknown" when no such file names one. */
static void t4_device_from_sibling(kt_extrec *rec)
{
    char *stem = strdup(rec->path), *dot, *slash;

    if (!stem)
        return;
    strip(stem, ".gz");
    if (strip(stem, ".t4.json") || strip(stem, "_T4.json") ||
        strip(stem, "_output.json")) {
        if (!sibling_device(rec, stem) && (dot = strrchr(stem, '.')) &&
            (!(slash = strrchr(stem, '/')) || dot > slash + 1)) {
            *dot = '\0';
            sibling_device(rec, stem);
        }
    }
    free(stem);
}

static kt_status load(const char *path, int whole, kt_extrec **out, kt_err *err)
{
    json_t *doc = NULL;
    kt_extrec *rec = NULL;
    kt_extrec_format format;
    kt_status rc;

    *out = NULL;
    if ((rc = read_streamed(path, whole, &rec, &doc, err)))
        return rc;
    if (rec) {
        *out = rec;
        return KT_S_OK;
    }
    if (json_object_get(doc, "cache") || json_object_get(doc, "tune_params"))
        format = KT_EXTREC_KT_CACHE;
    else if (json_object_get(doc, "results"))
        format = KT_EXTREC_T4;
    else {
        json_decref(doc);
        return kt_err_set(err, KT_S_INPUT,
                          "%s: neither a Kernel Tuner cache file (no "
                          "tune_params, no cache) nor a T4 results file (no "
                          "results)",
                          path);
    }
    if ((rc = kt_extrec_begin(path, format, doc, &rec, err)))
        return rc;
    rc = format == KT_EXTREC_T4 ? kt_ktcache_read_t4(rec, err)
                                : kt_ktcache_read_cache(rec, err);
    if (!rc && format == KT_EXTREC_T4 && strcmp(rec->device, "unknown") == 0)
        t4_device_from_sibling(rec);
    if (rc) {
        kt_extrec_free(rec);
        return rc;
    }
    *out = rec;
    return KT_S_OK;
}

kt_status kt_ktcache_load(const char *path, kt_extrec **out, kt_err *err)
{
    return load(path, 0, out, err);
}

kt_status kt_ktcache_load_whole(const char *path, kt_extrec **out, kt_err *err)
{
    return load(path, 1, out, err);
}

int kt_ktcache_is_external(const char *path)
{
    char head[4096];
    gzFile f;
    int got;
    size_t i = 0;

    if (kt_file_check_regular(path, "recording", NULL) != KT_S_OK ||
        !(f = gzopen(path, "rb")))
        return 0;
    got = gzread(f, head, sizeof head - 1);
    gzclose(f);
    if (got <= 0)
        return 0;
    head[got] = '\0';
    while (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' ||
           head[i] == '\n')
        ++i;
    /* A ktune journal is JSON lines whose first names its kind. */
    return head[i] == '{' && !strstr(head, "\"ktune.journal\"");
}
