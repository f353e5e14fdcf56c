// SPDX-License-Identifier: Apache-2.0
#include "report/summary_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/envrec.h"
#include "core/protocol.h"

/* A kernel time: 0.001 us to an hour, as journals are checked
 * (records/journal_check.c). */
#define MIN_US 1e-3
#define MAX_US 3.6e9
/* A run's length: at most a year. */
#define MAX_ELAPSED_S 3.2e7
/* Bandwidth past 1 PB/s, or a share of the copy ceiling past 10,000%, is
 * no measurement. */
#define MAX_GBS 1e6
#define MAX_PCT 1e4

typedef struct checker {
    const char *path;
    kt_err *err;
} checker;

static kt_status refuse(const checker *c, const char *field, const char *want)
{
    return kt_err_set(c->err, KT_S_INPUT,
                      "%s: %s: expected %s (a value no ktune run writes)",
                      c->path, field, want);
}

/* A number in [lo, hi] at key of obj, when present (required: it must be). */
static kt_status number(const checker *c, const json_t *obj, const char *at,
                        const char *key, double lo, double hi, int required)
{
    const json_t *v = json_object_get(obj, key);
    char field[160], want[96];
    double x;

    if (!v && !required)
        return KT_S_OK;
    snprintf(field, sizeof field, "%s%s%s", at, *at ? "." : "", key);
    snprintf(want, sizeof want, "a number from %g to %g", lo, hi);
    if (!json_is_number(v))
        return refuse(c, field, want);
    x = json_number_value(v);
    if (!isfinite(x) || x < lo || x > hi)
        return refuse(c, field, want);
    return KT_S_OK;
}

static kt_status count(const checker *c, const json_t *obj, const char *at,
                       const char *key, int required)
{
    const json_t *v = json_object_get(obj, key);
    char field[160];

    if (!v && !required)
        return KT_S_OK;
    snprintf(field, sizeof field, "%s%s%s", at, *at ? "." : "", key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return refuse(c, field, "a count (an integer >= 0)");
    return KT_S_OK;
}

/* One configuration's entry (best, top[i], finalists[i], tie[i]). */
static kt_status entry(const checker *c, const json_t *e, const char *at)
{
    static const char *const times[] = {"median_us", "ci_lo_us", "ci_hi_us",
                                        "min_us",    "q1_us",    "q3_us"};
    char field[160];
    kt_status rc = KT_S_OK;

    if (!json_is_object(e) || !json_is_string(json_object_get(e, "variant")) ||
        !json_is_object(json_object_get(e, "params")))
        return refuse(c, at, "a configuration (\"variant\" and \"params\")");
    for (size_t i = 0; i < sizeof times / sizeof *times && !rc; ++i)
        rc = number(c, e, at, times[i], MIN_US, MAX_US, i == 0);
    if (!rc &&
        json_number_value(json_object_get(e, "ci_lo_us")) >
            json_number_value(json_object_get(e, "ci_hi_us")) &&
        json_object_get(e, "ci_hi_us")) {
        snprintf(field, sizeof field, "%s.ci_lo_us", at);
        rc = refuse(c, field, "an interval's low end, at most ci_hi_us");
    }
    if (!rc)
        rc = number(c, e, at, "noise", 0, 1e3, 0);
    if (!rc)
        rc = number(c, e, at, "bandwidth_gbs", 0, MAX_GBS, 0);
    if (!rc)
        rc = number(c, e, at, "pct_of_copy", 0, MAX_PCT, 0);
    if (!rc)
        rc = number(c, e, at, "samples", 1, KT_PROTOCOL_MAX_SAMPLES, 0);
    if (!rc && json_object_get(e, "samples") &&
        !json_is_integer(json_object_get(e, "samples"))) {
        snprintf(field, sizeof field, "%s.samples", at);
        rc = refuse(c, field, "a count of samples");
    }
    return rc;
}

/* key: a list of entries, when present (null: none). */
static kt_status entries(const checker *c, const json_t *doc, const char *key)
{
    const json_t *list = json_object_get(doc, key), *e;
    char at[64];
    size_t i;
    kt_status rc = KT_S_OK;

    if (!list || json_is_null(list))
        return KT_S_OK;
    if (!json_is_array(list))
        return refuse(c, key, "a list of configurations");
    json_array_foreach ((json_t *)list, i, e) {
        snprintf(at, sizeof at, "%s[%zu]", key, i);
        if ((rc = entry(c, e, at)))
            break;
    }
    return rc;
}

/* The counts and the space: integers, the parts within the whole. */
static kt_status counts(const checker *c, const json_t *doc)
{
    static const char *const keys[] = {"evaluations", "measured",
                                       "host_invalid", "from_journal"};
    const json_t *space = json_object_get(doc, "space");
    kt_status rc = KT_S_OK;

    for (size_t i = 0; i < sizeof keys / sizeof *keys && !rc; ++i)
        rc = count(c, doc, "", keys[i], 0);
    if (rc)
        return rc;
    if (json_integer_value(json_object_get(doc, "measured")) >
        json_integer_value(json_object_get(doc, "evaluations")))
        return refuse(c, "measured", "at most evaluations");
    if (!space || json_is_null(space))
        return KT_S_OK;
    if (!json_is_object(space))
        return refuse(c, "space", "an object (size, feasible)");
    if ((rc = count(c, space, "space", "size", 0)) ||
        (rc = count(c, space, "space", "feasible", 0)))
        return rc;
    if (json_object_get(space, "size") &&
        json_integer_value(json_object_get(space, "feasible")) >
            json_integer_value(json_object_get(space, "size")))
        return refuse(c, "space.feasible", "at most space.size");
    return KT_S_OK;
}

/* Members whose kind is fixed, when present. */
static kt_status kinds(const checker *c, const json_t *doc)
{
    static const struct {
        const char *key;
        json_type type;
        const char *want;
    } fixed[] = {
        {"stop_reason", JSON_STRING, "a sentence"},
        {"strategy", JSON_OBJECT, "an object"},
        {"protocol", JSON_OBJECT, "an object"},
        {"path", JSON_ARRAY, "a list of steps"},
        {"invalid", JSON_ARRAY, "a list of configurations"},
        {"environment", JSON_OBJECT, "an object"},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; ++i) {
        const json_t *v = json_object_get(doc, fixed[i].key);
        if (v && json_typeof(v) != fixed[i].type)
            return refuse(c, fixed[i].key, fixed[i].want);
    }
    return KT_S_OK;
}

/* The device record, when the environment has one: counts a GPU has
 * (core/envrec.c refuses 0 SMs, 0 threads per block, ...). */
static kt_status device(const checker *c, const json_t *doc)
{
    const json_t *dev =
        json_object_get(json_object_get(doc, "environment"), "device");
    kt_device d;
    char name[256];

    if (!dev || !json_is_string(json_object_get(dev, "name")) ||
        !json_object_get(dev, "limits"))
        return KT_S_OK; /* a label only: the report draws no limit */
    if (kt_env_device_from_json(dev, &d, name, sizeof name, c->err))
        return kt_err_prefix(c->err, "%s: environment: ", c->path);
    return KT_S_OK;
}

kt_status kt_report_check_summary(const json_t *doc, const char *path,
                                  kt_err *err)
{
    const checker c = {path, err};
    const json_t *best = json_object_get(doc, "best");
    kt_status rc;

    if ((rc = kinds(&c, doc)) || (rc = counts(&c, doc)) ||
        (rc = device(&c, doc)) ||
        (rc = number(&c, doc, "", "elapsed_s", 0, MAX_ELAPSED_S, 0)))
        return rc;
    if (best && !json_is_null(best) && (rc = entry(&c, best, "best")))
        return rc;
    if ((rc = entries(&c, doc, "top")) || (rc = entries(&c, doc, "finalists")))
        return rc;
    /* Points measured are listed: none listed is a summary cut down. */
    if (json_integer_value(json_object_get(doc, "measured")) > 0 &&
        json_array_size(json_object_get(doc, "top")) == 0)
        return refuse(&c, "top", "the measured points (measured is not 0)");
    return entries(&c, doc, "tie");
}
