// SPDX-License-Identifier: Apache-2.0
#include "tuner/job.h"

#include <ctype.h>
#include <errno.h>
#include <iniparser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/iniloc.h"
#include "core/parse.h"
#include "core/suggest.h"
#include "records/sizespec.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const section_names[] = {"job",     "space",  "strategy",
                                            "measure", "output", "metrics"};
static const char *const job_keys[] = {"operator", "seed", "device", "devices",
                                       "verify_boundaries"};
static const char *const strategy_keys[] = {
    "name",      "max_evals", "max_seconds", "seed",
    "finalists", "min_gain",  "objective",   "start"};
static const char *const measure_keys[] = {
    "warmups",         "min_samples",    "max_samples", "min_time", "max_time",
    "noise",           "cache",          "timeout",     "verify",   "race",
    "compile_threads", "screen_samples", "energy"};
static const char *const output_keys[] = {"journal", "json", "csv", "t4",
                                          "top"};
static const char *const metrics_keys[] = {"counters", "points", "top",
                                           "access_bytes"};

/* One --set override, for messages that name it. */
typedef struct override {
    char section[64], key[64];
    const char *text; /* as given on the command line */
} override;

typedef struct loader {
    kt_job *job;
    dictionary *ini;
    kt_iniloc loc;
    override *overrides;
    size_t num_overrides;
    kt_err *err;
} loader;

void kt_job_protocol_defaults(kt_protocol *p)
{
    kt_protocol_defaults(p);
    p->warmups = 2;
    p->min_samples = 10;
    p->max_samples = 300;
    p->min_time_s = 0.05;
    p->max_time_s = 3.0;
    p->target_noise = 0.01;
    /* Clearly losing points stop after min_samples (core/protocol.h); the
     * margin is min_gain's default: a point stopped so would lose its
     * comparison with the best anyway. */
    p->race = 0.005;
}

/* "configs/x.ini:12" or "--set strategy.name=x": where a key was written;
 * the section's line when the key is not written at all. */
static void where(const loader *ld, const char *section, const char *key,
                  char *out, size_t size)
{
    int line;
    for (size_t i = ld->num_overrides; key && i-- > 0;) {
        const override *o = &ld->overrides[i];
        if (strcasecmp(o->section, section) == 0 &&
            strcasecmp(o->key, key) == 0) {
            snprintf(out, size, "--set %s", o->text);
            return;
        }
    }
    line = kt_iniloc_line(&ld->loc, section, key);
    if (!line && key)
        line = kt_iniloc_line(&ld->loc, section, NULL);
    if (line)
        snprintf(out, size, "%s:%d", ld->job->path, line);
    else
        snprintf(out, size, "%s", ld->job->path);
}

/* KT_S_INPUT: "where: [section] key: message". */
static kt_status bad(const loader *ld, const char *section, const char *key,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static kt_status bad(const loader *ld, const char *section, const char *key,
                     const char *fmt, ...)
{
    char at[PATH_MAX + 128], msg[900];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    where(ld, section, key, at, sizeof at);
    if (key)
        return kt_err_set(ld->err, KT_S_INPUT, "%s: [%s] %s: %s", at, section,
                          key, msg);
    return kt_err_set(ld->err, KT_S_INPUT, "%s: [%s]: %s", at, section, msg);
}

/* Prefixes an error a parser already wrote with where it came from. */
static kt_status bad_from(const loader *ld, const char *section,
                          const char *key)
{
    char msg[sizeof ld->err->msg];
    snprintf(msg, sizeof msg, "%s", ld->err->msg);
    return bad(ld, section, key, "%s", msg);
}

static const char *value_of(const loader *ld, const char *section,
                            const char *key)
{
    char full[160];
    snprintf(full, sizeof full, "%s:%s", section, key);
    return iniparser_getstring(ld->ini, full, NULL);
}

/* [operator] and [variant.ID] declare the operator the job tunes; the
 * declaration's own loader (declared/declared.c) checks them. */
static int is_declaration_section(const char *s)
{
    return strcmp(s, "operator") == 0 || strncmp(s, "variant.", 8) == 0;
}

/* The operator a job's own declaration names: its [operator] name. */
static const char *declared_spec(const loader *ld)
{
    return iniparser_find_entry(ld->ini, "operator")
               ? value_of(ld, "operator", "name")
               : NULL;
}

/* The keys of a section without the "section:" prefix, in file order. */
static size_t keys_of(const loader *ld, const char *section, const char ***keys)
{
    int n = iniparser_getsecnkeys(ld->ini, section);
    *keys = NULL;
    if (n <= 0)
        return 0;
    *keys = calloc((size_t)n, sizeof **keys);
    if (!*keys)
        return 0;
    iniparser_getseckeys(ld->ini, section, *keys);
    for (int i = 0; i < n; ++i) {
        const char *colon = strchr((*keys)[i], ':');
        if (colon)
            (*keys)[i] = colon + 1;
    }
    return (size_t)n;
}

static int is_one_of(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (strcasecmp(name, list[i]) == 0)
            return 1;
    return 0;
}

static kt_status unknown_key(const loader *ld, const char *section,
                             const char *key, const char *const *known,
                             size_t n)
{
    char hint[512];
    kt_suggest(key, known, n, hint, sizeof hint);
    return bad(ld, section, key, "unknown key%s", hint);
}

/* ------------------------------------------------------------ values */

kt_status kt_job_devices(kt_job *job, const char *text, const char *what,
                         kt_err *err)
{
    const char *p = text ? text : "";
    size_t n = 0;

    job->num_devices = 0;
    job->all_devices = 0;
    while (*p == ' ')
        ++p;
    if (strcasecmp(p, "all") == 0) {
        job->all_devices = 1;
        return KT_S_OK;
    }
    for (;;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 1023)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: '%s': expected GPU ordinals 0 to 1023 "
                              "separated by commas (0,1), or all",
                              what, text ? text : "");
        for (size_t k = 0; k < n; ++k)
            if (job->devices[k] == (int)v)
                return kt_err_set(err, KT_S_INPUT,
                                  "%s: '%s': GPU %ld is named twice", what,
                                  text, v);
        if (n == KT_JOB_MAX_DEVICES)
            return kt_err_set(err, KT_S_INPUT, "%s: '%s': more than %d GPUs",
                              what, text, KT_JOB_MAX_DEVICES);
        job->devices[n++] = (int)v;
        for (p = end; *p == ' '; ++p)
            ;
        if (!*p)
            break;
        if (*p++ != ',')
            return kt_err_set(err, KT_S_INPUT,
                              "%s: '%s': expected GPU ordinals separated by "
                              "commas (0,1), or all",
                              what, text);
    }
    job->num_devices = n;
    job->device = job->devices[0];
    return KT_S_OK;
}

static kt_status get_i64(const loader *ld, const char *section, const char *key,
                         int64_t lo, int64_t hi, int64_t *out)
{
    const char *text = value_of(ld, section, key);
    int64_t v;
    if (kt_parse_i64(text, key, &v, ld->err))
        return bad_from(ld, section, key);
    if (v < lo || v > hi)
        return bad(ld, section, key,
                   "%s is out of range; expected %lld to %lld", text,
                   (long long)lo, (long long)hi);
    *out = v;
    return KT_S_OK;
}

static kt_status get_double(const loader *ld, const char *section,
                            const char *key, double lo, double hi, int hi_open,
                            double *out)
{
    const char *text = value_of(ld, section, key);
    double v;
    if (kt_parse_double(text, key, &v, ld->err))
        return bad_from(ld, section, key);
    if (v < lo || v > hi || (hi_open && v >= hi))
        return bad(ld, section, key, "%s is out of range; expected %g to %g%s",
                   text, lo, hi, hi_open ? " (exclusive)" : "");
    *out = v;
    return KT_S_OK;
}

/* [strategy] objective: time, energy, edp, ... (records/objective.h). */
static kt_status get_objective(const loader *ld, const char *key,
                               kt_objective *out)
{
    if (kt_objective_parse(value_of(ld, "strategy", key), out, ld->err))
        return bad_from(ld, "strategy", key);
    return KT_S_OK;
}

/* [measure] noise: a fraction or a percentage ("0.5%"), see
 * kt_noise_parse; a fraction that looks like nvbench's percent warns. */
static kt_status get_noise(const loader *ld, double *out)
{
    const char *text = value_of(ld, "measure", "noise");
    int suspect;
    if (kt_noise_parse(text, "noise", out, &suspect, ld->err))
        return bad_from(ld, "measure", "noise");
    if (suspect)
        kt_noise_warn("[measure] noise", *out);
    return KT_S_OK;
}

static kt_status get_bool(const loader *ld, const char *section,
                          const char *key, int *out)
{
    static const char *const yes[] = {"yes", "true", "on", "1"};
    static const char *const no[] = {"no", "false", "off", "0"};
    const char *text = value_of(ld, section, key);
    if (is_one_of(text, yes, COUNT(yes)))
        *out = 1;
    else if (is_one_of(text, no, COUNT(no)))
        *out = 0;
    else
        return bad(ld, section, key, "'%s' is not yes or no", text);
    return KT_S_OK;
}

/* -------------------------------------------------------------- [job] */

/* The sizes one key of [job] sets: "n", or a joint key "m, n". */
typedef struct size_group {
    const char *key;
    size_t dims;
    uint32_t dim[KT_MAX_SIZES]; /* indices into op->sizes */
    int64_t *values;            /* count tuples of dims values */
    size_t count;
} size_group;

/* The sizes key names, in the key's order; 0 when it names none of them
 * (an unknown key). */
static size_t size_dims_of(const kt_operator *op, const char *key,
                           uint32_t *dim)
{
    char **names = NULL;
    size_t n = 0, found = 0;

    if (kt_parse_list(key, &names, &n, NULL) || n > KT_MAX_SIZES) {
        free(names);
        return 0;
    }
    for (size_t i = 0; i < n; ++i)
        for (uint32_t s = 0; s < op->num_sizes; ++s)
            if (strcasecmp(names[i], op->sizes[s].name) == 0)
                dim[found++] = s;
    free(names);
    return found == n ? n : 0;
}

/* Parses a size key into g and checks each value against its dimension. */
static kt_status read_size_key(loader *ld, const char *key, size_group *g,
                               const uint32_t *taken)
{
    const kt_operator *op = ld->job->op;
    kt_status rc;

    for (size_t d = 0; d < g->dims; ++d)
        if (taken[g->dim[d]])
            return bad(ld, "job", key, "size %s is set twice",
                       op->sizes[g->dim[d]].name);
    if (kt_sizespec_parse(value_of(ld, "job", key), g->dims, &g->values,
                          &g->count, ld->err))
        return bad_from(ld, "job", key);
    for (size_t i = 0; i < g->count * g->dims; ++i) {
        const kt_size_desc *sd = &op->sizes[g->dim[i % g->dims]];
        int64_t v = g->values[i];
        if (v < sd->min || v > sd->max) {
            rc = bad(ld, "job", key,
                     "%s%s%lld is out of range; expected %lld to %lld",
                     g->dims > 1 ? sd->name : "", g->dims > 1 ? " = " : "",
                     (long long)v, (long long)sd->min, (long long)sd->max);
            return rc;
        }
    }
    return KT_S_OK;
}

/* The product of the groups: the first group varies slowest. */
static kt_status build_sweep(loader *ld, const size_group *g, size_t n)
{
    kt_job *job = ld->job;
    size_t total = 1;

    for (size_t i = 0; i < n; ++i) {
        total *= g[i].count;
        if (total > KT_SIZESPEC_MAX)
            return bad(ld, "job", g[i].key,
                       "the sweep has more than %d sizes in all",
                       KT_SIZESPEC_MAX);
    }
    job->sweep = calloc(total, sizeof *job->sweep);
    if (!job->sweep)
        return kt_err_set(ld->err, KT_S_NOMEM, "out of memory");
    job->num_sweep = total;
    for (size_t k = 0; k < total; ++k) {
        size_t rest = k;
        memcpy(job->sweep[k], job->sizes, sizeof job->sweep[k]);
        for (size_t i = n; i-- > 0;) {
            size_t pick = rest % g[i].count;
            rest /= g[i].count;
            for (size_t d = 0; d < g[i].dims; ++d)
                job->sweep[k][g[i].dim[d]] = g[i].values[pick * g[i].dims + d];
        }
    }
    memcpy(job->sizes, job->sweep[0], sizeof job->sizes);
    return KT_S_OK;
}

static int is_override(const loader *ld, const char *key)
{
    for (size_t i = 0; i < ld->num_overrides; ++i)
        if (strcmp(ld->overrides[i].section, "job") == 0 &&
            strcasecmp(ld->overrides[i].key, key) == 0)
            return 1;
    return 0;
}

/* A key of the file whose sizes a --set names: skipped when the --set
 * covers all of them; an error when only some. 1: skip it. */
static int overridden(const loader *ld, const size_group *g,
                      const uint32_t *by_set, kt_status *rc)
{
    size_t covered = 0;
    for (size_t d = 0; d < g->dims; ++d)
        covered += by_set[g->dim[d]] != 0;
    if (covered && covered < g->dims)
        *rc = bad(ld, "job", g->key,
                  "a --set names only some of its sizes; set them all "
                  "with --set job.%s=...",
                  g->key);
    return covered != 0;
}

/* Every size key (plain or joint), then the sweep they make. A --set
 * replaces the file's key for the same sizes. */
static kt_status read_sizes(loader *ld, const char **keys, size_t n)
{
    size_group groups[KT_MAX_SIZES];
    uint32_t taken[KT_MAX_SIZES] = {0}, by_set[KT_MAX_SIZES] = {0};
    size_t num_groups = 0;
    kt_status rc = KT_S_OK;

    memset(groups, 0, sizeof groups);
    for (size_t i = 0; i < n; ++i) {
        uint32_t dim[KT_MAX_SIZES];
        size_t dims = size_dims_of(ld->job->op, keys[i], dim);
        for (size_t d = 0; d < dims && is_override(ld, keys[i]); ++d)
            by_set[dim[d]] = 1;
    }
    for (size_t i = 0; i < n && !rc; ++i) {
        size_group *g = &groups[num_groups];
        g->dims = size_dims_of(ld->job->op, keys[i], g->dim);
        g->key = keys[i];
        if (!g->dims ||
            (!is_override(ld, keys[i]) && overridden(ld, g, by_set, &rc)))
            continue;
        if (!(rc = read_size_key(ld, keys[i], g, taken))) {
            for (size_t d = 0; d < g->dims; ++d)
                taken[g->dim[d]] = 1;
            ++num_groups;
        }
    }
    if (!rc)
        rc = build_sweep(ld, groups, num_groups);
    for (size_t i = 0; i <= num_groups && i < KT_MAX_SIZES; ++i)
        free(groups[i].values);
    return rc;
}

static kt_status read_job(loader *ld, const kt_registry *reg)
{
    kt_job *job = ld->job;
    const char *spec = value_of(ld, "job", "operator");
    const char **keys = NULL;
    const char *known[COUNT(job_keys) + KT_MAX_SIZES];
    size_t n, nk = 0;
    kt_status rc = KT_S_OK;

    if (!spec || !*spec)
        spec = declared_spec(ld); /* the job's own [operator] */
    if (!spec || !*spec)
        return bad(ld, "job", "operator",
                   "missing: name what to tune, e.g. operator = "
                   "vector_add:add (`ktune list` shows them)");
    snprintf(job->spec, sizeof job->spec, "%s", spec);
    /* No registry: the operator was given (kt_job_load_for). */
    if (reg && kt_registry_resolve(reg, spec, &job->plugin, &job->op, ld->err))
        return bad_from(ld, "job", "operator");
    for (size_t i = 0; i < COUNT(job_keys); ++i)
        known[nk++] = job_keys[i];
    for (uint32_t i = 0; i < job->op->num_sizes; ++i) {
        job->sizes[i] = job->op->sizes[i].default_value;
        known[nk++] = job->op->sizes[i].name;
    }
    n = keys_of(ld, "job", &keys);
    for (size_t i = 0; i < n && !rc; ++i) {
        const char *key = keys[i];
        int64_t v;
        uint32_t dim[KT_MAX_SIZES];
        if (strcasecmp(key, "operator") == 0 || size_dims_of(job->op, key, dim))
            continue;
        if (strcasecmp(key, "seed") == 0) {
            if (!(rc = get_i64(ld, "job", key, 0, INT64_MAX, &v)))
                job->input_seed = (uint64_t)v;
        } else if (strcasecmp(key, "device") == 0) {
            if (!(rc = get_i64(ld, "job", key, 0, 1023, &v)))
                job->device = (int)v;
        } else if (strcasecmp(key, "devices") == 0) {
            if (kt_job_devices(job, value_of(ld, "job", key), "devices",
                               ld->err))
                rc = bad_from(ld, "job", key);
        } else if (strcasecmp(key, "verify_boundaries") == 0) {
            rc = get_bool(ld, "job", key, &job->boundaries);
        } else {
            rc = unknown_key(ld, "job", key, known, nk);
        }
    }
    if (!rc)
        rc = read_sizes(ld, keys, n);
    free(keys);
    return rc;
}

/* ------------------------------------------------------------ [space] */

/* Kernel Tuner's names for the device settings (docs/energy.md): which
 * setting (kt_nvml_key), and its range; -1 for another key. */
static long nvml_which(const char *key, int64_t *hi)
{
    for (size_t w = 0; w < 3; ++w)
        if (strcasecmp(key, kt_nvml_key(w)) == 0) {
            *hi = w == 2 ? 10000 : 100000;
            return (long)w;
        }
    return -1;
}

/* A device setting of the space: one value or several, a dimension the
 * search varies like a parameter (the evaluator sets each point's before
 * measuring it, and restores the device's own at the end). */
static kt_status read_nvml_key(loader *ld, const char *key, size_t w,
                               int64_t hi, char *const *items, size_t count)
{
    unsigned values[KT_NVML_MAX_VALUES];

    if (count > KT_NVML_MAX_VALUES)
        return bad(ld, "space", key, "%zu values, at most %d", count,
                   KT_NVML_MAX_VALUES);
    for (size_t i = 0; i < count; ++i) {
        int64_t v;
        if (kt_parse_i64(items[i], key, &v, ld->err))
            return bad_from(ld, "space", key);
        if (v < 1 || v > hi)
            return bad(ld, "space", key, "%s, expected 1 to %lld (%s)",
                       items[i], (long long)hi, kt_nvml_unit(w));
        values[i] = (unsigned)v;
    }
    if (kt_space_set_nvml(&ld->job->space, w, values, count, ld->err))
        return bad_from(ld, "space", key);
    return KT_S_OK;
}

static kt_status read_space(loader *ld)
{
    kt_job *job = ld->job;
    const char *variants = value_of(ld, "space", "variant");
    const char **keys = NULL;
    char **items = NULL;
    size_t n, count;
    kt_status rc;

    if ((rc = kt_space_init(&job->space, job->plugin, job->op, ld->err)))
        return rc;
    if (variants) {
        uint32_t chosen[64];
        if (kt_parse_list(variants, &items, &count, ld->err))
            return bad_from(ld, "space", "variant");
        for (size_t i = 0; i < count && !rc; ++i) {
            size_t index;
            if (i >= 64)
                rc = bad(ld, "space", "variant", "more than 64 variants");
            else if (kt_operator_find_variant(job->op, items[i], &index,
                                              ld->err))
                rc = bad_from(ld, "space", "variant");
            for (size_t k = 0; k < i && !rc; ++k)
                if (chosen[k] == index)
                    rc = bad(ld, "space", "variant", "'%s' is listed twice",
                             items[i]);
            if (!rc)
                chosen[i] = (uint32_t)index;
        }
        if (!rc && kt_space_keep_variants(&job->space, chosen, count, ld->err))
            rc = bad_from(ld, "space", "variant");
        free(items);
        items = NULL;
        if (rc)
            return rc;
    }
    n = keys_of(ld, "space", &keys);
    for (size_t i = 0; i < n && !rc; ++i) {
        const char *value = value_of(ld, "space", keys[i]);
        char name[64];
        long w;
        int64_t hi;
        if (strcasecmp(keys[i], "variant") == 0)
            continue;
        if ((w = nvml_which(keys[i], &hi)) >= 0) {
            if (kt_parse_list(value, &items, &count, ld->err))
                rc = bad_from(ld, "space", keys[i]);
            else
                rc = read_nvml_key(ld, keys[i], (size_t)w, hi, items, count);
            free(items);
            items = NULL;
            continue;
        }
        /* iniparser lower-cases keys; plugins may not. */
        snprintf(name, sizeof name, "%s", keys[i]);
        for (uint32_t v = 0; v < job->op->num_variants; ++v)
            for (uint32_t p = 0; p < job->op->variants[v].num_params; ++p)
                if (strcasecmp(job->op->variants[v].params[p].name, name) == 0)
                    snprintf(name, sizeof name, "%s",
                             job->op->variants[v].params[p].name);
        if (kt_parse_list(value, &items, &count, ld->err))
            rc = bad_from(ld, "space", keys[i]);
        else if (kt_space_narrow(&job->space, name, items, count, ld->err))
            rc = bad_from(ld, "space", keys[i]);
        free(items);
        items = NULL;
    }
    free(keys);
    return rc;
}

/* --------------------------------------------------------- [strategy] */

static kt_status strategy_option_elsewhere(const loader *ld, const char *key)
{
    const kt_strategy *s = ld->job->strategy;
    const char *known[COUNT(strategy_keys) + KT_STRATEGY_MAX_OPTIONS];
    size_t nk = 0;

    for (size_t i = 0; i < kt_strategy_count(); ++i) {
        const kt_strategy *o = kt_strategy_at(i);
        for (size_t k = 0; k < o->num_options; ++k)
            if (o != s && strcasecmp(o->options[k].name, key) == 0)
                return bad(ld, "strategy", key,
                           "an option of strategy %s, not of %s", o->name,
                           s->name);
    }
    for (size_t i = 0; i < COUNT(strategy_keys); ++i)
        known[nk++] = strategy_keys[i];
    for (size_t k = 0; k < s->num_options; ++k)
        known[nk++] = s->options[k].name;
    return unknown_key(ld, "strategy", key, known, nk);
}

static kt_status read_strategy(loader *ld)
{
    kt_job *job = ld->job;
    const char *name = value_of(ld, "strategy", "name");
    const char **keys = NULL;
    size_t n;
    int64_t v;
    kt_status rc = KT_S_OK;

    job->strategy = kt_strategy_at(0);
    job->strategy_alias = NULL;
    if (name && kt_strategy_resolve(name, &job->strategy, &job->strategy_alias,
                                    ld->err))
        return bad_from(ld, "strategy", "name");
    for (size_t k = 0; k < job->strategy->num_options; ++k)
        job->options[k] = job->strategy->options[k].default_value;
    n = keys_of(ld, "strategy", &keys);
    for (size_t i = 0; i < n && !rc; ++i) {
        const char *key = keys[i];
        long opt = -1;
        for (size_t k = 0; k < job->strategy->num_options; ++k)
            if (strcasecmp(job->strategy->options[k].name, key) == 0)
                opt = (long)k;
        if (strcasecmp(key, "name") == 0)
            continue;
        if (strcasecmp(key, "max_evals") == 0) {
            if (!(rc = get_i64(ld, "strategy", key, 0, INT64_MAX, &v)))
                job->max_evals = (size_t)v;
        } else if (strcasecmp(key, "max_seconds") == 0) {
            rc = get_double(ld, "strategy", key, 0, 1e9, 0, &job->max_seconds);
        } else if (strcasecmp(key, "seed") == 0) {
            if (!(rc = get_i64(ld, "strategy", key, 0, INT64_MAX, &v)))
                job->seed = (uint64_t)v;
        } else if (strcasecmp(key, "finalists") == 0) {
            if (!(rc = get_i64(ld, "strategy", key, 1, 16, &v)))
                job->finalists = (size_t)v;
        } else if (strcasecmp(key, "min_gain") == 0) {
            rc = get_double(ld, "strategy", key, 0, 0.5, 1, &job->min_gain);
        } else if (strcasecmp(key, "objective") == 0) {
            rc = get_objective(ld, key, &job->objective);
        } else if (strcasecmp(key, "start") == 0) {
            if (kt_space_parse_start(&job->space, value_of(ld, "strategy", key),
                                     ld->err))
                rc = bad_from(ld, "strategy", key);
        } else if (opt >= 0) {
            const kt_strategy_option *o = &job->strategy->options[opt];
            double x;
            rc = get_double(ld, "strategy", key, o->min, o->max, 0, &x);
            if (!rc && o->integer && x != (double)(int64_t)x)
                rc = bad(ld, "strategy", key, "%g is not a whole number", x);
            if (!rc)
                job->options[opt] = x;
        } else {
            rc = strategy_option_elsewhere(ld, key);
        }
    }
    free(keys);
    return rc;
}

/* ---------------------------------------------------------- [measure] */

static kt_status check_measure(loader *ld);

static kt_status read_measure(loader *ld)
{
    kt_protocol *p = &ld->job->protocol;
    const char **keys = NULL;
    size_t n;
    int64_t v;
    kt_status rc = KT_S_OK;

    n = keys_of(ld, "measure", &keys);
    for (size_t i = 0; i < n && !rc; ++i) {
        const char *key = keys[i];
        if (strcasecmp(key, "warmups") == 0) {
            if (!(rc = get_i64(ld, "measure", key, 0, 1000, &v)))
                p->warmups = (int)v;
        } else if (strcasecmp(key, "min_samples") == 0) {
            if (!(rc = get_i64(ld, "measure", key, 1, 1000000, &v)))
                p->min_samples = (size_t)v;
        } else if (strcasecmp(key, "max_samples") == 0) {
            if (!(rc = get_i64(ld, "measure", key, 1, 1000000, &v)))
                p->max_samples = (size_t)v;
        } else if (strcasecmp(key, "min_time") == 0) {
            rc = get_double(ld, "measure", key, 0, 86400, 0, &p->min_time_s);
        } else if (strcasecmp(key, "max_time") == 0) {
            rc =
                get_double(ld, "measure", key, 0.001, 86400, 0, &p->max_time_s);
        } else if (strcasecmp(key, "noise") == 0) {
            rc = get_noise(ld, &p->target_noise);
        } else if (strcasecmp(key, "cache") == 0) {
            const char *text = value_of(ld, "measure", key);
            if (!text || kt_cache_mode_parse(text, &p->cache, NULL))
                rc = bad(ld, "measure", key,
                         "'%s' is not cold (L2 flushed and left clean before "
                         "every sample), hot or cold-dirty (flushed by "
                         "writing)",
                         text ? text : "");
        } else if (strcasecmp(key, "verify") == 0) {
            const char *text = value_of(ld, "measure", key);
            if (text && strcasecmp(text, "host") == 0)
                ld->job->verify_host = 1;
            else if (text && strcasecmp(text, "device") == 0)
                ld->job->verify_host = 0;
            else
                rc = bad(ld, "measure", key,
                         "'%s' is not device (reference kept and outputs "
                         "compared on the GPU) or host (outputs copied to "
                         "host memory and compared there)",
                         text ? text : "");
        } else if (strcasecmp(key, "race") == 0) {
            rc = get_double(ld, "measure", key, 0, 0.99, 1, &p->race);
        } else if (strcasecmp(key, "screen_samples") == 0) {
            int64_t samples = 0;
            rc = get_i64(ld, "measure", key, 0, 1000000, &samples);
            p->screen_samples = (size_t)samples;
        } else if (strcasecmp(key, "timeout") == 0) {
            rc = get_double(ld, "measure", key, 0.1, 86400, 0,
                            &ld->job->eval_timeout_s);
        } else if (strcasecmp(key, "energy") == 0) {
            rc = get_bool(ld, "measure", key, &p->energy);
        } else if (strcasecmp(key, "compile_threads") == 0) {
            int64_t threads = 0;
            rc = get_i64(ld, "measure", key, 0, 4096, &threads);
            ld->job->compile_threads = (int)threads;
        } else {
            rc = unknown_key(ld, "measure", key, measure_keys,
                             COUNT(measure_keys));
        }
    }
    free(keys);
    return rc ? rc : check_measure(ld);
}

/* [measure]'s keys together: what one key alone cannot say. */
static kt_status check_measure(loader *ld)
{
    const kt_protocol *p = &ld->job->protocol;
    kt_status rc = KT_S_OK;

    if (p->screen_samples > p->min_samples)
        rc = bad(ld, "measure", "screen_samples",
                 "%zu is more than min_samples %zu (a screen looks at a "
                 "point before the protocol's first look, not after)",
                 p->screen_samples, p->min_samples);
    if (!rc && p->screen_samples > 0 && p->race <= 0)
        rc = bad(ld, "measure", "screen_samples",
                 "needs race > 0: only racing stops a screened point early");
    if (!rc && p->min_samples > p->max_samples)
        rc = bad(ld, "measure", "min_samples",
                 "%zu is more than max_samples %zu", p->min_samples,
                 p->max_samples);
    if (!rc && kt_protocol_validate(p, ld->err))
        rc = bad_from(ld, "measure", NULL);
    return rc;
}

/* ----------------------------------------------------------- [output] */

static void stem_of(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    const char *dot;
    size_t len;
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (len >= size)
        len = size - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

static kt_status read_output(loader *ld)
{
    kt_job *job = ld->job;
    const char **keys = NULL;
    size_t n;
    int64_t v;
    kt_status rc = KT_S_OK;
    char stem[256];

    stem_of(job->path, stem, sizeof stem);
    snprintf(job->journal, sizeof job->journal, "%s.journal.jsonl", stem);
    job->journal_mode = KT_JOB_JOURNAL_AUTO;
    n = keys_of(ld, "output", &keys);
    for (size_t i = 0; i < n && !rc; ++i) {
        const char *key = keys[i], *text = value_of(ld, "output", key);
        char *dst = NULL;
        if (strcasecmp(key, "top") == 0) {
            if (!(rc = get_i64(ld, "output", key, 1, 10000, &v)))
                job->top = (int)v;
            continue;
        }
        if (strcasecmp(key, "journal") == 0)
            dst = job->journal;
        else if (strcasecmp(key, "json") == 0)
            dst = job->json;
        else if (strcasecmp(key, "csv") == 0)
            dst = job->csv;
        else if (strcasecmp(key, "t4") == 0)
            dst = job->t4;
        else {
            rc =
                unknown_key(ld, "output", key, output_keys, COUNT(output_keys));
            continue;
        }
        if (!*text) {
            rc = bad(ld, "output", key, "empty; give a file name, or none");
            continue;
        }
        if (strlen(text) >= PATH_MAX) {
            rc = bad(ld, "output", key, "the path is too long");
            continue;
        }
        if (strcasecmp(text, "none") == 0)
            dst[0] = '\0';
        else
            snprintf(dst, PATH_MAX, "%s", text);
        if (dst == job->journal)
            job->journal_mode =
                dst[0] ? KT_JOB_JOURNAL_PATH : KT_JOB_JOURNAL_NONE;
    }
    free(keys);
    return rc;
}

/* ---------------------------------------------------------- [metrics] */

/* "default" names the default counter set; "none" (alone) no counters. */
static kt_status read_counters(loader *ld, const char *text,
                               kt_profiling_spec *m)
{
    char **items = NULL;
    const char *names[KT_METRICS_MAX];
    size_t count = 0, n = 0;
    int defaults = 0;
    kt_status rc = KT_S_OK;

    if (strcasecmp(text, "none") == 0) {
        memset(&m->set, 0, sizeof m->set);
        m->counters = 0;
        return KT_S_OK;
    }
    if (!*text)
        return bad(ld, "metrics", "counters",
                   "empty; list catalog names (`ktune profile "
                   "--list-metrics`) or raw counters, `default`, or `none`");
    if (kt_parse_list(text, &items, &count, ld->err))
        return bad_from(ld, "metrics", "counters");
    for (size_t i = 0; i < count && !rc; ++i) {
        if (strcasecmp(items[i], "default") == 0)
            defaults = 1;
        else if (strcasecmp(items[i], "none") == 0)
            rc = bad(ld, "metrics", "counters",
                     "'none' cannot be combined with other names");
        else if (n == KT_METRICS_MAX)
            rc = bad(ld, "metrics", "counters", "more than %d metrics",
                     KT_METRICS_MAX);
        else
            names[n++] = items[i];
    }
    if (!rc && kt_metrics_resolve(names, n, defaults, &m->set, ld->err))
        rc = bad_from(ld, "metrics", "counters");
    free(items);
    m->counters = 1;
    return rc;
}

static kt_status read_metrics(loader *ld)
{
    kt_job *job = ld->job;
    kt_profiling_spec *m = &job->metrics;
    const char **keys = NULL;
    const char *points = value_of(ld, "metrics", "points");
    const char *top = value_of(ld, "metrics", "top");
    size_t n;
    int64_t v;
    kt_status rc = KT_S_OK;

    memset(m, 0, sizeof *m);
    where(ld, "metrics", "counters", job->metrics_where,
          sizeof job->metrics_where);
    {
        size_t used = strlen(job->metrics_where);
        snprintf(job->metrics_where + used, sizeof job->metrics_where - used,
                 ": [metrics] counters");
    }
    if (!iniparser_find_entry(ld->ini, "metrics"))
        return KT_S_OK;
    n = keys_of(ld, "metrics", &keys);
    for (size_t i = 0; i < n && !rc; ++i)
        if (!is_one_of(keys[i], metrics_keys, COUNT(metrics_keys)))
            rc = unknown_key(ld, "metrics", keys[i], metrics_keys,
                             COUNT(metrics_keys));
    free(keys);
    if (rc)
        return rc;
    /* Without `points`, a `top` means the best N; otherwise every point. */
    m->points = top ? KT_PROFILING_TOP : KT_PROFILING_EVERY;
    m->top = 5;
    if (points) {
        if (strcasecmp(points, "every") == 0)
            m->points = KT_PROFILING_EVERY;
        else if (strcasecmp(points, "top") == 0)
            m->points = KT_PROFILING_TOP;
        else
            return bad(ld, "metrics", "points",
                       "'%s' is not every (each point once it verified and "
                       "was timed) or top (the best `top` after the search)",
                       points);
    }
    if (top) {
        if (m->points != KT_PROFILING_TOP)
            return bad(ld, "metrics", "top",
                       "applies to points = top, and points is every");
        if ((rc = get_i64(ld, "metrics", "top", 1, 10000, &v)))
            return rc;
        m->top = (size_t)v;
    }
    /* As profile's --access-bytes: the diagnoses' coalescing ideal. */
    if (value_of(ld, "metrics", "access_bytes")) {
        if ((rc = get_i64(ld, "metrics", "access_bytes", 1, 256, &v)))
            return rc;
        m->access_bytes = (int)v;
    }
    return read_counters(ld,
                         value_of(ld, "metrics", "counters")
                             ? value_of(ld, "metrics", "counters")
                             : "default",
                         m);
}

/* ------------------------------------------------------------ loading */

static kt_status apply_overrides(loader *ld, char *const *sets, size_t n)
{
    ld->overrides = calloc(n ? n : 1, sizeof *ld->overrides);
    if (!ld->overrides)
        return kt_err_set(ld->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        override *o = &ld->overrides[ld->num_overrides];
        char *buf, *name, *value, *dot, full[160];
        kt_status rc;
        /* A copy of its own: a value may be of any length. */
        if (!(buf = strdup(sets[i])))
            return kt_err_set(ld->err, KT_S_NOMEM, "out of memory");
        if (kt_parse_assignment(buf, &name, &value, ld->err)) {
            free(buf);
            return kt_err_prefix(ld->err, "--set: ");
        }
        dot = strchr(name, '.');
        if (!dot || dot == name || !dot[1] ||
            (size_t)(dot - name) >= sizeof o->section ||
            strlen(dot + 1) >= sizeof o->key) {
            free(buf);
            return kt_err_set(ld->err, KT_S_INPUT,
                              "--set %s: expected SECTION.KEY=VALUE (names "
                              "under %zu characters), e.g. "
                              "strategy.name=exhaustive",
                              sets[i], sizeof o->key);
        }
        *dot = '\0';
        snprintf(o->section, sizeof o->section, "%s", name);
        snprintf(o->key, sizeof o->key, "%s", dot + 1);
        for (char *c = o->section; *c; ++c)
            *c = (char)tolower((unsigned char)*c);
        for (char *c = o->key; *c; ++c)
            *c = (char)tolower((unsigned char)*c);
        o->text = sets[i];
        ++ld->num_overrides;
        if (!iniparser_find_entry(ld->ini, o->section))
            iniparser_set(ld->ini, o->section, NULL);
        snprintf(full, sizeof full, "%s:%s", o->section, o->key);
        rc = iniparser_set(ld->ini, full, value) != 0
                 ? kt_err_set(ld->err, KT_S_NOMEM, "out of memory")
                 : KT_S_OK;
        free(buf);
        if (rc)
            return rc;
    }
    return KT_S_OK;
}

static kt_status check_sections(const loader *ld)
{
    int n = iniparser_getnsec(ld->ini);
    for (int i = 0; i < n; ++i) {
        const char *s = iniparser_getsecname(ld->ini, i);
        char hint[256];
        if (is_one_of(s, section_names, COUNT(section_names)) ||
            is_declaration_section(s))
            continue;
        kt_suggest(s, section_names, COUNT(section_names), hint, sizeof hint);
        {
            char at[PATH_MAX + 128];
            where(ld, s, NULL, at, sizeof at);
            for (size_t k = 0; k < ld->num_overrides; ++k)
                if (strcasecmp(ld->overrides[k].section, s) == 0)
                    snprintf(at, sizeof at, "--set %s", ld->overrides[k].text);
            return kt_err_set(ld->err, KT_S_INPUT, "%s: unknown section [%s]%s",
                              at, s, hint);
        }
    }
    return KT_S_OK;
}

static void job_defaults(loader *ld, kt_job *job, const char *path, kt_err *err)
{
    memset(job, 0, sizeof *job);
    memset(ld, 0, sizeof *ld);
    ld->job = job;
    ld->err = err;
    snprintf(job->path, sizeof job->path, "%s", path);
    job->input_seed = 1;
    job->boundaries = 1;
    job->seed = 1;
    job->finalists = 3;
    job->min_gain = 0.005;
    job->top = 10;
    kt_job_protocol_defaults(&job->protocol);
}

/* The sections in order, once the file (or none) is in ld->ini. */
static kt_status read_sections(loader *ld, char *const *sets, size_t num_sets,
                               const kt_registry *reg)
{
    kt_status rc;
    if ((rc = apply_overrides(ld, sets, num_sets)) ||
        (rc = check_sections(ld)) || (rc = read_job(ld, reg)) ||
        (rc = read_space(ld)) || (rc = read_strategy(ld)) ||
        (rc = read_measure(ld)) || (rc = read_output(ld)) ||
        (rc = read_metrics(ld)))
        return rc;
    return KT_S_OK;
}

kt_status kt_job_load_for(const char *name, const char *spec,
                          const kt_loaded_plugin *plugin, const kt_operator *op,
                          char *const *sets, size_t num_sets, kt_job *job,
                          kt_err *err)
{
    loader ld;
    kt_err local;
    kt_status rc;

    if (!err)
        err = &local;
    job_defaults(&ld, job, name, err);
    job->plugin = plugin;
    job->op = op;
    if (!(ld.ini = dictionary_new(0)) || iniparser_set(ld.ini, "job", NULL) ||
        iniparser_set(ld.ini, "job:operator", spec))
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    else
        rc = read_sections(&ld, sets, num_sets, NULL);
    if (!rc && strcmp(job->spec, spec) != 0)
        rc = kt_err_set(err, KT_S_INPUT,
                        "--set job.operator=%s: %s tunes its own operator, %s",
                        job->spec, name, spec);
    if (ld.ini)
        iniparser_freedict(ld.ini);
    free(ld.overrides);
    if (rc)
        kt_job_free(job);
    return rc;
}

kt_status kt_job_load(const char *path, char *const *sets, size_t num_sets,
                      const kt_registry *reg, kt_job *job, kt_err *err)
{
    loader ld;
    kt_err local;
    kt_status rc;

    if (!err)
        err = &local;
    job_defaults(&ld, job, path, err);
    /* Loading first: it refuses what is not a regular, bounded file before
     * the locator reads it line by line. */
    if ((rc = kt_ini_load(path, &ld.ini, err)) ||
        (rc = kt_iniloc_scan(path, &ld.loc, err)) ||
        (rc = read_sections(&ld, sets, num_sets, reg)))
        goto done;
done:
    if (ld.ini)
        iniparser_freedict(ld.ini);
    kt_iniloc_free(&ld.loc);
    free(ld.overrides);
    if (rc)
        kt_job_free(job);
    return rc;
}

void kt_job_free(kt_job *job)
{
    kt_space_free(&job->space);
    free(job->sweep);
    job->sweep = NULL;
    job->num_sweep = 0;
}
