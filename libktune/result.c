/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Results (include/ktune/ktune.h): the document a run wrote (--json), with
 * the run's journal entries under "points", read by path.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libktune/result.h"

struct ktune_result {
    json_t *doc;
    char *json;       /* the document as the CLI wrote it (no "points") */
    ktl_strv strings; /* what accessors returned, owned until free */
};

ktune_result *ktl_result_new(json_t *doc, const char *text)
{
    ktune_result *r = calloc(1, sizeof *r);
    json_t *copy;

    if (!r)
        return NULL;
    if (text) {
        /* The document as the CLI wrote it, byte for byte. */
        if (!(r->json = strdup(text))) {
            free(r);
            return NULL;
        }
        r->doc = json_incref(doc);
        return r;
    }
    /* The whole document is the CLI's: "points" is the library's. */
    copy = json_deep_copy(doc);
    if (copy)
        json_object_del(copy, "points");
    r->json =
        copy ? json_dumps(copy, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(copy);
    if (!r->json) {
        free(r);
        return NULL;
    }
    r->doc = json_incref(doc);
    return r;
}

void ktune_result_free(ktune_result *r)
{
    if (!r)
        return;
    json_decref(r->doc);
    free(r->json);
    ktl_strv_free(&r->strings);
    free(r);
}

const char *ktune_result_json(const ktune_result *r)
{
    return r ? r->json : NULL;
}

/* The value at path ("best.params.tile", "points.3.status"). */
static json_t *at(const ktune_result *r, const char *path)
{
    json_t *v = r ? r->doc : NULL;
    const char *p = path;

    while (v && p && *p) {
        size_t n = strcspn(p, ".");
        char key[256], *end;
        if (n >= sizeof key)
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        if (json_is_array(v)) {
            unsigned long i;
            errno = 0;
            i = strtoul(key, &end, 10);
            v = *end || errno || !n ? NULL : json_array_get(v, i);
        } else {
            v = json_object_get(v, key);
        }
        p += n + (p[n] == '.');
    }
    return v;
}

const char *ktune_result_kind(const ktune_result *r)
{
    return json_string_value(at(r, "kind"));
}

int ktune_result_number(const ktune_result *r, const char *path, double *out)
{
    json_t *v = at(r, path);

    if (!out || !v)
        return KTUNE_E_INPUT;
    if (json_is_number(v))
        *out = json_number_value(v);
    else if (json_is_boolean(v))
        *out = json_is_true(v);
    else
        return KTUNE_E_INPUT;
    return KTUNE_OK;
}

const char *ktune_result_string(const ktune_result *r, const char *path)
{
    return json_string_value(at(r, path));
}

size_t ktune_result_count(const ktune_result *r, const char *path)
{
    json_t *v = at(r, path);

    return json_is_array(v)    ? json_array_size(v)
           : json_is_object(v) ? json_object_size(v)
                               : 0;
}

/* Key i of object v in the document's order. */
static const char *key_at(json_t *v, size_t i)
{
    const char *key;
    json_t *val;
    size_t k = 0;

    json_object_foreach (v, key, val) {
        if (k++ == i)
            return key;
    }
    return NULL;
}

const char *ktune_result_key(const ktune_result *r, const char *path, size_t i)
{
    return key_at(at(r, path), i);
}

/* Keeps s (malloc'ed) with r and returns it; NULL when s is. */
static const char *keep(const ktune_result *r, char *s)
{
    ktune_result *w = (ktune_result *)r;
    int failed;

    if (!s)
        return NULL;
    failed = ktl_strv_add(&w->strings, s);
    free(s);
    return failed ? NULL : w->strings.v[w->strings.n - 1];
}

const char *ktune_result_value_json(const ktune_result *r, const char *path)
{
    json_t *v = at(r, path);

    return v ? keep(r, json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY |
                                         JSON_PRESERVE_ORDER))
             : NULL;
}

size_t ktune_result_num_points(const ktune_result *r)
{
    return ktune_result_count(r, "points");
}

static json_t *point(const ktune_result *r, size_t i)
{
    return json_array_get(at(r, "points"), i);
}

const char *ktune_result_point_variant(const ktune_result *r, size_t i)
{
    return json_string_value(
        json_object_get(json_object_get(point(r, i), "point"), "variant"));
}

const char *ktune_result_point_status(const ktune_result *r, size_t i)
{
    return json_string_value(json_object_get(point(r, i), "status"));
}

const char *ktune_result_point_reason(const ktune_result *r, size_t i)
{
    return json_string_value(json_object_get(point(r, i), "reason"));
}

static json_t *params_of(const ktune_result *r, size_t i)
{
    return json_object_get(json_object_get(point(r, i), "point"), "params");
}

/* "variant p=v p=v", the configuration text of tune's summary. */
static const char *config_text(const ktune_result *r, const char *variant,
                               json_t *params)
{
    size_t len = strlen(variant) + 1, cap = len + 64;
    char *t = malloc(cap);
    const char *key;
    json_t *val;

    if (!t)
        return NULL;
    snprintf(t, cap, "%s", variant);
    json_object_foreach (params, key, val) {
        char item[128];
        size_t n = (size_t)snprintf(item, sizeof item, " %s=%lld", key,
                                    (long long)json_integer_value(val));
        char *grown =
            len + n + 1 > cap ? realloc(t, cap = 2 * (len + n + 1)) : t;
        if (!grown) {
            free(t);
            return NULL;
        }
        t = grown;
        memcpy(t + len - 1, item, n + 1);
        len += n;
    }
    return keep(r, t);
}

const char *ktune_result_point_config(const ktune_result *r, size_t i)
{
    const char *v = ktune_result_point_variant(r, i);

    return v ? config_text(r, v, params_of(r, i)) : NULL;
}

size_t ktune_result_point_num_params(const ktune_result *r, size_t i)
{
    return json_object_size(params_of(r, i));
}

const char *ktune_result_point_param_name(const ktune_result *r, size_t i,
                                          size_t j)
{
    return key_at(params_of(r, i), j);
}

int64_t ktune_result_point_param_value(const ktune_result *r, size_t i,
                                       size_t j)
{
    const char *k = key_at(params_of(r, i), j);

    return k ? json_integer_value(json_object_get(params_of(r, i), k)) : 0;
}

/* The journal's key of each ktune_stat, under a point. */
static const char *const point_stat_path[] = {
    "timing.kernel.median",    "timing.kernel.ci_lo",  "timing.kernel.ci_hi",
    "timing.kernel.noise",     "timing.kernel.n",      "timing.kernel.min",
    "timing.kernel.mean",      "timing.kernel.stddev", "compilation.seconds",
    "energy.joules_per_launch"};
#define NUM_STATS (sizeof point_stat_path / sizeof point_stat_path[0])

int ktune_result_point_stat(const ktune_result *r, size_t i, int stat,
                            double *out)
{
    char path[128];

    if (stat < 0 || (size_t)stat >= NUM_STATS ||
        i >= ktune_result_num_points(r))
        return KTUNE_E_INPUT;
    snprintf(path, sizeof path, "points.%zu.%s", i, point_stat_path[stat]);
    return ktune_result_number(r, path, out);
}

size_t ktune_result_point_samples(const ktune_result *r, size_t i, double *out,
                                  size_t n)
{
    char path[64];
    json_t *a;

    snprintf(path, sizeof path, "points.%zu.timing.samples_us", i);
    a = at(r, path);
    for (size_t k = 0; out && k < n && k < json_array_size(a); ++k)
        out[k] = json_number_value(json_array_get(a, k));
    return json_array_size(a);
}

int ktune_result_point_counter(const ktune_result *r, size_t i,
                               const char *name, double *out)
{
    char path[512];

    if (!name || strchr(name, '.'))
        return KTUNE_E_INPUT;
    snprintf(path, sizeof path, "points.%zu.counters.%s", i, name);
    return ktune_result_number(r, path, out);
}

int ktune_result_has_best(const ktune_result *r)
{
    return json_is_object(at(r, "best"));
}

const char *ktune_result_best_config(const ktune_result *r)
{
    const char *c = ktune_result_string(r, "best.config");
    return c ? c : "";
}

const char *ktune_result_best_variant(const ktune_result *r)
{
    const char *v = ktune_result_string(r, "best.variant");
    return v ? v : "";
}

size_t ktune_result_best_num_params(const ktune_result *r)
{
    return ktune_result_count(r, "best.params");
}

const char *ktune_result_best_param_name(const ktune_result *r, size_t j)
{
    return ktune_result_key(r, "best.params", j);
}

int64_t ktune_result_best_param_value(const ktune_result *r, size_t j)
{
    const char *k = ktune_result_best_param_name(r, j);

    return k ? json_integer_value(json_object_get(at(r, "best.params"), k)) : 0;
}

/* The best's statistics from the summary; compile time and energy from
 * its point in the search (the last evaluation of that configuration). */
int ktune_result_best_stat(const ktune_result *r, int stat, double *out)
{
    static const char *const best_path[] = {"best.median_us", "best.ci_lo_us",
                                            "best.ci_hi_us", "best.noise",
                                            "best.samples"};
    const char *config = ktune_result_best_config(r);

    if (stat >= 0 && stat < 5)
        return ktune_result_number(r, best_path[stat], out);
    if (stat < 0 || (size_t)stat >= NUM_STATS || !*config)
        return KTUNE_E_INPUT;
    for (size_t i = ktune_result_num_points(r); i-- > 0;) {
        const char *c = ktune_result_point_config(r, i);
        if (c && strcmp(c, config) == 0)
            return ktune_result_point_stat(r, i, stat, out);
    }
    return KTUNE_E_INPUT;
}

int ktune_result_space(const ktune_result *r, int64_t *size, int64_t *feasible)
{
    double a, b;

    if (ktune_result_number(r, "space.size", &a) ||
        ktune_result_number(r, "space.feasible", &b))
        return KTUNE_E_INPUT;
    if (size)
        *size = (int64_t)a;
    if (feasible)
        *feasible = (int64_t)b;
    return KTUNE_OK;
}
