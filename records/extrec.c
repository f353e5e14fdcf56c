// SPDX-License-Identifier: Apache-2.0
#include "records/extrec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

/* ------------------------------------------------- the callbacks */

/* Not recorded: outside the space the recording covers. The variant's
 * data is the recording (ABI 1.3). */
static int rec_check(const kt_problem *p, const kt_config *c, char *why,
                     size_t n)
{
    const kt_extrec *rec = KT_CONFIG_DATA(c);
    kt_point pt;

    (void)p;
    memset(&pt, 0, sizeof pt);
    pt.count = c->count;
    for (uint32_t i = 0; i < c->count && i < KT_MAX_PARAMS; ++i)
        pt.values[i] = c->values[i];
    if (rec && kt_extrec_find(rec, &pt))
        return KT_OK;
    snprintf(why, n,
             "not in the recording (the recorded space leaves it out, as "
             "the recording tool's restrictions did)");
    return KT_INVALID;
}

/* The recording is never launched: a shape of one thread, so that the
 * device limits (the recording's device has none) say nothing. */
static int rec_shape(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    (void)p;
    (void)c;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    for (int i = 0; i < 3; ++i)
        out->grid[i] = out->block[i] = 1;
    return KT_OK;
}

static int rec_work(const kt_problem *p, kt_work *out)
{
    (void)p;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    return KT_OK;
}

/* ----------------------------------------------------------- values */

/* A real as its shortest text that reads back as the same double. */
static void real_text(double v, char *out, size_t size)
{
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

/* The label of a value that is not an integer: a string as it is, any
 * other scalar as JSON writes it. NULL when out of memory. */
static char *label_of(const json_t *v)
{
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_STRING: return strdup(json_string_value(v));
    case JSON_REAL: real_text(json_real_value(v), buf, sizeof buf); break;
    case JSON_INTEGER:
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
        break;
    case JSON_TRUE: snprintf(buf, sizeof buf, "true"); break;
    case JSON_FALSE: snprintf(buf, sizeof buf, "false"); break;
    default: snprintf(buf, sizeof buf, "null"); break;
    }
    return strdup(buf);
}

/* An integer, or a real with an integral value that an int64 holds. */
static int integral(const json_t *v, int64_t *out)
{
    double d;
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 1;
    }
    if (!json_is_real(v))
        return 0;
    d = json_real_value(v);
    if (!isfinite(d) || d != floor(d) || fabs(d) > 9.0e18)
        return 0;
    *out = (int64_t)d;
    return 1;
}

static int same_value(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    return json_equal((json_t *)a, (json_t *)b);
}

int kt_extrec_value_pos(const kt_extrec *rec, size_t p, const json_t *value,
                        uint32_t *pos)
{
    const kt_extrec_param *par = &rec->params[p];
    uint64_t at;
    int64_t iv;

    if (par->integer) {
        if (!integral(value, &iv) ||
            !kt_u64map_get(&par->by_key, (uint64_t)iv, &at))
            return 0;
        *pos = (uint32_t)at;
        return 1;
    }
    if (json_is_string(value) &&
        kt_u64map_get(
            &par->by_key,
            kt_hash_fnv1a_str(KT_HASH_FNV1A_BASIS, json_string_value(value)),
            &at) &&
        same_value(par->values[at], value)) {
        *pos = (uint32_t)at;
        return 1;
    }
    /* Numbers compare by value; a hash collision falls back here too. */
    for (uint32_t k = 0; k < par->count; ++k)
        if (same_value(par->values[k], value)) {
            *pos = k;
            return 1;
        }
    return 0;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static kt_status index_values(kt_extrec_param *par, kt_err *err)
{
    for (uint32_t k = 0; k < par->count; ++k) {
        const json_t *v = par->values[k];
        uint64_t key;
        int64_t iv = 0;
        if (par->integer) {
            integral(v, &iv);
            key = (uint64_t)iv;
        } else if (json_is_string(v)) {
            key = kt_hash_fnv1a_str(KT_HASH_FNV1A_BASIS, json_string_value(v));
        } else {
            continue; /* found by value */
        }
        if (!kt_u64map_get(&par->by_key, key, NULL) &&
            kt_u64map_put(&par->by_key, key, k, err))
            return KT_S_NOMEM;
    }
    return KT_S_OK;
}

static kt_status fill_param(kt_extrec_param *par, json_t *values,
                            const char *where, kt_err *err)
{
    size_t n = json_array_size(values);
    int64_t iv;

    par->count = (uint32_t)n;
    par->values = calloc(n, sizeof *par->values);
    par->ints = calloc(n, sizeof *par->ints);
    par->labels = calloc(n, sizeof *par->labels);
    if (!par->values || !par->ints || !par->labels)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    par->integer = 1;
    for (size_t k = 0; k < n; ++k) {
        json_t *v = json_array_get(values, k);
        if (json_is_object(v) || json_is_array(v))
            return kt_err_set(err, KT_S_INPUT,
                              "%s[%zu]: %s, expected a number, a string or a "
                              "boolean",
                              where, k, type_name(v));
        for (size_t j = 0; j < k; ++j)
            if (same_value(par->values[j], v))
                return kt_err_set(err, KT_S_INPUT,
                                  "%s: the value at [%zu] is the one at "
                                  "[%zu] again",
                                  where, k, j);
        par->values[k] = v;
        par->integer &= integral(v, &iv);
        par->ints[k] = par->integer ? iv : 0;
        if (!(par->labels[k] = label_of(v)))
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    return index_values(par, err);
}

kt_status kt_extrec_add_param(kt_extrec *rec, const char *name, json_t *values,
                              const char *where, kt_err *err)
{
    kt_extrec_param *par;

    if (rec->num_params >= KT_MAX_PARAMS)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s: more than %d parameters; ktune tunes at "
                          "most %d",
                          rec->path, where, KT_MAX_PARAMS, KT_MAX_PARAMS);
    if (!json_is_array(values) || json_array_size(values) == 0)
        return kt_err_set(
            err, KT_S_INPUT,
            "%s: %s: %s, expected a list of at least one value", rec->path,
            where, json_is_array(values) ? "an empty list" : type_name(values));
    if (json_array_size(values) > UINT32_MAX / 2)
        return kt_err_set(err, KT_S_INPUT, "%s: %s: too many values", rec->path,
                          where);
    for (size_t i = 0; i < rec->num_params; ++i)
        if (strcmp(rec->params[i].name, name) == 0)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: %s: the parameter is declared twice",
                              rec->path, where);
    par = &rec->params[rec->num_params++];
    if (!(par->name = strdup(name)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (fill_param(par, values, where, err))
        return kt_err_prefix(err, "%s: ", rec->path);
    return KT_S_OK;
}

/* ----------------------------------------------------------- points */

/* The point's mixed-radix rank (the last parameter fastest), from the
 * positions of its values; its uniqueness is what the index relies on. */
static uint64_t rank_of(const kt_extrec *rec, const uint32_t *pos)
{
    uint64_t r = 0;
    for (size_t i = 0; i < rec->num_params; ++i)
        r = r * rec->params[i].count + pos[i];
    return r;
}

/* The positions of pt's values, or 0 when one is not declared. */
static int positions(const kt_extrec *rec, const kt_point *pt, uint32_t *pos)
{
    if (pt->variant != 0 || pt->count != rec->num_params)
        return 0;
    for (size_t i = 0; i < rec->num_params; ++i) {
        const kt_extrec_param *par = &rec->params[i];
        uint64_t at;
        if (par->integer) {
            if (!kt_u64map_get(&par->by_key, (uint64_t)pt->values[i], &at))
                return 0;
            pos[i] = (uint32_t)at;
        } else {
            if (pt->values[i] < 0 || pt->values[i] >= par->count)
                return 0;
            pos[i] = (uint32_t)pt->values[i];
        }
    }
    return 1;
}

void kt_extrec_point(const kt_extrec *rec, const kt_extrec_record *r,
                     kt_point *pt)
{
    uint64_t rank = r->rank;

    memset(pt, 0, sizeof *pt);
    pt->count = (uint32_t)rec->num_params;
    for (size_t i = rec->num_params; i-- > 0;) {
        const kt_extrec_param *par = &rec->params[i];
        uint64_t pos = rank % par->count;
        pt->values[i] = par->integer ? par->ints[pos] : (int64_t)pos;
        rank /= par->count;
    }
}

const kt_extrec_record *kt_extrec_find(const kt_extrec *rec, const kt_point *pt)
{
    uint32_t pos[KT_MAX_PARAMS];
    uint64_t at;

    if (!positions(rec, pt, pos))
        return NULL;
    if (rec->dense) {
        uint32_t i = rec->dense[rank_of(rec, pos)];
        return i ? &rec->records[i - 1] : NULL;
    }
    if (!kt_u64map_get(&rec->by_rank, rank_of(rec, pos), &at))
        return NULL;
    return &rec->records[at];
}

static kt_status grow_records(kt_extrec *rec, kt_err *err)
{
    size_t cap = rec->cap_records ? 2 * rec->cap_records : 1024;
    kt_extrec_record *grown = realloc(rec->records, cap * sizeof *grown);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    rec->records = grown;
    rec->cap_records = cap;
    return KT_S_OK;
}

kt_status kt_extrec_add(kt_extrec *rec, const uint32_t *pos,
                        const kt_extrec_record *r, const char *where,
                        kt_err *err)
{
    uint64_t rank, at;
    kt_extrec_record *slot;

    if (rec->num_params == 0)
        return kt_err_set(err, KT_S_INPUT, "%s: no parameter is declared",
                          rec->path);
    rank = rank_of(rec, pos);
    if (kt_u64map_get(&rec->by_rank, rank, &at)) {
        const kt_extrec_record *first = &rec->records[at];
        if (first->key && r->key && strcmp(first->key, r->key) == 0)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: %s: written twice (duplicate object key)",
                              rec->path, where);
        if (first->key)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: %s: the same configuration as the key "
                              "'%s'",
                              rec->path, where, first->key);
        return kt_err_set(err, KT_S_INPUT,
                          "%s: %s: the same configuration as results[%zu]",
                          rec->path, where, first->order);
    }
    if (rec->num_records == rec->cap_records && grow_records(rec, err))
        return KT_S_NOMEM;
    slot = &rec->records[rec->num_records];
    *slot = *r;
    slot->rank = rank;
    if (kt_u64map_put(&rec->by_rank, rank, rec->num_records, err))
        return KT_S_NOMEM;
    ++rec->num_records;
    return KT_S_OK;
}

const kt_extrec_record *kt_extrec_optimum(const kt_extrec *rec)
{
    const kt_extrec_record *best = NULL;
    for (size_t i = 0; i < rec->num_records; ++i) {
        const kt_extrec_record *r = &rec->records[i];
        if (r->verdict == KT_EXTREC_CORRECT &&
            (!best || r->time_ms < best->time_ms))
            best = r;
    }
    return best;
}

/* --------------------------------------------------------- building */

const char *kt_extrec_format_name(kt_extrec_format format)
{
    return format == KT_EXTREC_T4 ? "T4 results file"
                                  : "Kernel Tuner cache file";
}

kt_status kt_extrec_begin(const char *path, kt_extrec_format format,
                          json_t *doc, kt_extrec **out, kt_err *err)
{
    kt_extrec *rec = calloc(1, sizeof *rec);

    *out = NULL;
    if (!rec || !(rec->path = strdup(path))) {
        free(rec);
        json_decref(doc);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    rec->format = format;
    rec->doc = doc;
    snprintf(rec->kernel, sizeof rec->kernel, "kernel");
    snprintf(rec->device, sizeof rec->device, "unknown");
    kt_u64map_init(&rec->by_rank);
    *out = rec;
    return KT_S_OK;
}

static void build_operator(kt_extrec *rec)
{
    for (size_t i = 0; i < rec->num_params; ++i) {
        kt_param_desc *d = &rec->descs[i];
        const kt_extrec_param *par = &rec->params[i];
        memset(d, 0, sizeof *d);
        d->struct_size = sizeof *d;
        d->kind = par->integer ? KT_PARAM_LIST : KT_PARAM_ENUM;
        d->name = par->name;
        d->help = "a parameter of the recording";
        d->default_value = par->integer ? par->ints[0] : 0;
        d->values = par->ints;
        d->labels = (const char *const *)par->labels;
        d->count = par->count;
    }
    rec->variant.struct_size = sizeof rec->variant;
    rec->variant.num_params = (uint32_t)rec->num_params;
    rec->variant.id = rec->kernel;
    rec->variant.summary = "the recorded kernel";
    rec->variant.params = rec->descs;
    rec->variant.shape = rec_shape;
    rec->variant.check = rec_check;
    rec->variant.data = rec;
    rec->op.struct_size = sizeof rec->op;
    rec->op.id = rec->kernel;
    rec->op.summary = kt_extrec_format_name(rec->format);
    rec->op.num_variants = 1;
    rec->op.variants = &rec->variant;
    rec->op.work = rec_work;
    rec->op.data = rec;
    rec->plugin.path = rec->path;
    rec->plugin.desc.magic = KT_PLUGIN_MAGIC;
    rec->plugin.desc.struct_size = sizeof rec->plugin.desc;
    rec->plugin.desc.abi_major = KT_ABI_MAJOR;
    rec->plugin.desc.abi_minor = KT_ABI_MINOR;
    rec->plugin.desc.name = rec->format == KT_EXTREC_T4 ? "t4" : "kernel_tuner";
    rec->plugin.desc.version = "recording";
    rec->plugin.desc.summary = "another tool's recording, replayed";
    rec->plugin.desc.operators = &rec->op;
    rec->plugin.desc.num_operators = 1;
}

const kt_extrec *kt_extrec_of(const kt_operator *op)
{
    /* Its work() is the recording's own: op is one this file made. */
    return op && op->work == rec_work ? op->data : NULL;
}

/* rec->dense when the records fill at least half the space (and there is
 * memory for it; else by_rank stays). */
static void index_densely(kt_extrec *rec)
{
    if (rec->dense || rec->space_size > 2 * (uint64_t)rec->num_records ||
        rec->num_records >= UINT32_MAX ||
        !(rec->dense = calloc(rec->space_size, sizeof *rec->dense)))
        return;
    for (size_t i = 0; i < rec->num_records; ++i)
        rec->dense[rec->records[i].rank] = (uint32_t)(i + 1);
    kt_u64map_free(&rec->by_rank);
}

kt_status kt_extrec_finish(kt_extrec *rec, kt_err *err)
{
    uint64_t size = 1;

    if (rec->num_params == 0)
        return kt_err_set(err, KT_S_INPUT, "%s: no parameter is declared",
                          rec->path);
    for (size_t i = 0; i < rec->num_params; ++i) {
        if (size > KT_SPACE_MAX_POINTS / rec->params[i].count)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: the declared space has more than 2^48 "
                              "points",
                              rec->path);
        size *= rec->params[i].count;
    }
    rec->space_size = size;
    if (rec->num_records == 0)
        return kt_err_set(err, KT_S_INPUT, "%s: no configuration is recorded",
                          rec->path);
    build_operator(rec);
    index_densely(rec);
    return KT_S_OK;
}

void kt_extrec_record_clear(kt_extrec_record *r)
{
    json_decref(r->objective);
    free(r->runs_ms);
    free(r->key);
    r->objective = NULL;
    r->runs_ms = NULL;
    r->num_runs = 0;
    r->key = NULL;
}

void kt_extrec_free(kt_extrec *rec)
{
    if (!rec)
        return;
    for (size_t i = 0; i < rec->num_params; ++i) {
        kt_extrec_param *par = &rec->params[i];
        for (uint32_t k = 0; par->labels && k < par->count; ++k)
            free(par->labels[k]);
        free(par->labels);
        free(par->ints);
        free(par->values);
        free(par->name);
        kt_u64map_free(&par->by_key);
    }
    kt_u64map_free(&rec->by_rank);
    free(rec->dense);
    for (size_t i = 0; i < rec->num_records; ++i)
        kt_extrec_record_clear(&rec->records[i]);
    free(rec->records);
    json_decref(rec->doc);
    free(rec->path);
    free(rec);
}
