// SPDX-License-Identifier: Apache-2.0
#include "records/journal_check.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A run's clock: more than a year of elapsed time is no run. */
#define MAX_ELAPSED_S (366.0 * 86400.0)
/* A kernel time (us): below a nanosecond or above an hour is no sample. */
#define MIN_SAMPLE_US 1e-3
#define MAX_SAMPLE_US 3.6e9
/* No device count, limit or bandwidth (GB/s) reaches a billion. */
#define MAX_GPU_NUMBER 1e9

void kt_journal_new_run(char *out)
{
    uint64_t x = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    struct timespec ts;

    if (fd >= 0) {
        if (read(fd, &x, sizeof x) != (ssize_t)sizeof x)
            x = 0;
        close(fd);
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    x ^= (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
         ((uint64_t)getpid() << 32);
    snprintf(out, KT_JOURNAL_RUN_LEN + 1, "%016llx", (unsigned long long)x);
}

static int is_run_id(const char *s)
{
    if (!s || strlen(s) != KT_JOURNAL_RUN_LEN)
        return 0;
    return strspn(s, "0123456789abcdef") == KT_JOURNAL_RUN_LEN;
}

/* KT_S_INPUT unless obj's key, when present, is a finite number >= lo
 * (strictly above 0 when lo is 0 and positive is set). */
static kt_status number_at_least(const json_t *obj, const char *where,
                                 const char *key, double lo, kt_err *err)
{
    const json_t *v = json_object_get(obj, key);
    double x;

    if (!v)
        return KT_S_OK;
    if (!json_is_number(v))
        return kt_err_set(err, KT_S_INPUT, "%s %s: expected a number", where,
                          key);
    x = json_number_value(v);
    if (!isfinite(x) || x < lo || (lo == 0 && x <= 0) || x > MAX_GPU_NUMBER)
        return kt_err_set(err, KT_S_INPUT,
                          "%s %s: %g is not a value a GPU has (expected %s "
                          "%g and at most %g)",
                          where, key, x, lo == 0 ? "more than" : "at least", lo,
                          MAX_GPU_NUMBER);
    return KT_S_OK;
}

kt_status kt_journal_check_env(const json_t *env, kt_err *err)
{
    static const char *const device_keys[] = {"sm_count"};
    static const char *const limit_keys[] = {
        "warp_size", "max_threads_per_block", "max_threads_per_sm",
        "max_blocks_per_sm"};
    static const char *const calib_keys[] = {"copy_gbs", "peak_bw_gbs"};
    const json_t *dev, *limits, *calib;
    kt_status rc = KT_S_OK;

    if (!json_is_object(env))
        return KT_S_OK;
    dev = json_object_get(env, "device");
    limits = json_object_get(dev, "limits");
    calib = json_object_get(env, "calibration");
    for (size_t i = 0; i < 1 && !rc; ++i)
        rc =
            number_at_least(dev, "environment: device", device_keys[i], 1, err);
    for (size_t i = 0; i < 4 && !rc; ++i)
        rc = number_at_least(limits, "environment: device limits",
                             limit_keys[i], 1, err);
    for (size_t i = 0; i < 2 && !rc; ++i)
        rc = number_at_least(calib, "environment: calibration", calib_keys[i],
                             0, err);
    return rc;
}

kt_status kt_journal_check_header(const json_t *header, kt_err *err)
{
    const json_t *run = json_object_get(header, "run");
    const json_t *seed = json_object_get(header, "seed");

    if (run && !is_run_id(json_string_value(run)))
        return kt_err_set(err, KT_S_INPUT,
                          "header: run: expected %d hexadecimal digits",
                          KT_JOURNAL_RUN_LEN);
    if (seed && (!json_is_integer(seed) || json_integer_value(seed) < 0))
        return kt_err_set(err, KT_S_INPUT,
                          "header: seed: expected an integer >= 0");
    return kt_journal_check_env(json_object_get(header, "environment"), err);
}

/* A shape read from the record: all zero (none was computed), or one a
 * launch can have. */
static kt_status check_shape(const kt_shape *s, kt_err *err)
{
    static const uint64_t max_grid[3] = {2147483647u, 65535, 65535};
    uint64_t threads = 1;
    int zero = s->grid[0] == 0 && s->block[0] == 0;

    if (zero)
        return KT_S_OK;
    for (int i = 0; i < 3; ++i) {
        if (s->grid[i] < 1 || s->grid[i] > max_grid[i] || s->block[i] < 1 ||
            s->block[i] > 1024)
            return kt_err_set(err, KT_S_INPUT,
                              "evaluation record: shape grid [%u, %u, %u], "
                              "block [%u, %u, %u] is no launch",
                              s->grid[0], s->grid[1], s->grid[2], s->block[0],
                              s->block[1], s->block[2]);
        threads *= s->block[i];
    }
    if (threads > 1024)
        return kt_err_set(err, KT_S_INPUT,
                          "evaluation record: a block of %llu threads is no "
                          "launch",
                          (unsigned long long)threads);
    return KT_S_OK;
}

static int plausible_us(double x)
{
    return isfinite(x) && x >= MIN_SAMPLE_US && x <= MAX_SAMPLE_US;
}

static kt_status check_timing(const kt_timing *t, kt_err *err)
{
    const kt_stats *k = &t->kernel;
    const double stats[] = {k->min, k->max, k->median, k->mean,
                            k->q1,  k->q3,  k->ci_lo,  k->ci_hi};

    for (size_t i = 0; i < t->num_rounds; ++i)
        if (!isnan(t->samples_us[i]) && !plausible_us(t->samples_us[i]))
            return kt_err_set(err, KT_S_INPUT,
                              "evaluation record: sample %zu is %g us; a "
                              "kernel time is %g to %g us",
                              i + 1, t->samples_us[i], MIN_SAMPLE_US,
                              MAX_SAMPLE_US);
    for (size_t i = 0; k->n > 0 && i < sizeof stats / sizeof *stats; ++i)
        if (!plausible_us(stats[i]))
            return kt_err_set(err, KT_S_INPUT,
                              "evaluation record: timing statistic %g us is "
                              "no kernel time",
                              stats[i]);
    if (k->n > 0 && (k->ci_lo > k->ci_hi || k->min > k->max))
        return kt_err_set(err, KT_S_INPUT,
                          "evaluation record: timing interval [%g, %g] is "
                          "upside down",
                          k->ci_lo, k->ci_hi);
    return KT_S_OK;
}

/* A numeric parameter written as text ("block": "256") is not what ktune
 * writes: labels are for enumerations only. */
static kt_status check_param_types(const kt_operator *op, const json_t *rec,
                                   const kt_journal_entry *e, kt_err *err)
{
    const kt_variant *v = &op->variants[e->point.variant];
    const json_t *params =
        json_object_get(json_object_get(rec, "point"), "params");

    for (uint32_t i = 0; i < v->num_params; ++i) {
        const json_t *p = json_object_get(params, v->params[i].name);
        if (p && json_is_string(p) && v->params[i].kind != KT_PARAM_ENUM)
            return kt_err_set(err, KT_S_INPUT,
                              "evaluation record: parameter '%s' is text "
                              "(\"%s\"), expected an integer",
                              v->params[i].name, json_string_value(p));
    }
    return KT_S_OK;
}

kt_status kt_journal_check_eval(const kt_operator *op, const json_t *rec,
                                const kt_journal_entry *e, int num_envs,
                                kt_err *err)
{
    kt_status rc;

    if (e->env < 0 || e->env >= num_envs)
        return kt_err_set(err, KT_S_INPUT,
                          "evaluation record: env %d names no environment "
                          "record before it (ids 0 to %d)",
                          e->env, num_envs - 1);
    if (!isfinite(e->elapsed_s) || e->elapsed_s < 0 ||
        e->elapsed_s > MAX_ELAPSED_S)
        return kt_err_set(err, KT_S_INPUT,
                          "evaluation record: elapsed_s %g is no run's clock "
                          "(0 to %g s)",
                          e->elapsed_s, MAX_ELAPSED_S);
    if ((rc = check_param_types(op, rec, e, err)) ||
        (rc = check_shape(&e->result.shape, err)))
        return rc;
    if (e->result.status == KT_EVAL_OK)
        return check_timing(&e->result.timing, err);
    return KT_S_OK;
}

kt_status kt_journal_check_head(const json_t *rec, const char *path,
                                kt_err *err)
{
    const json_t *format = json_object_get(rec, "format");
    const json_t *sizes = json_object_get(rec, "sizes"), *v;
    const char *kind = json_string_value(json_object_get(rec, "kind"));
    const char *name;
    kt_status rc;

    if (!kind || strcmp(kind, "ktune.journal") != 0)
        return kt_err_set(err, KT_S_INPUT,
                          "%s:1: not a ktune journal (the first record's kind "
                          "is not \"ktune.journal\")",
                          path);
    if (!json_is_integer(format))
        return kt_err_set(err, KT_S_INPUT,
                          "%s:1: journal format missing or not an integer; "
                          "this ktune reads formats %d to %d",
                          path, KT_JOURNAL_FORMAT, KT_JOURNAL_FORMAT_MAX);
    if (json_integer_value(format) < KT_JOURNAL_FORMAT ||
        json_integer_value(format) > KT_JOURNAL_FORMAT_MAX)
        return kt_err_set(err, KT_S_INPUT,
                          "%s:1: journal format %lld; this ktune reads "
                          "formats %d to %d",
                          path, (long long)json_integer_value(format),
                          KT_JOURNAL_FORMAT, KT_JOURNAL_FORMAT_MAX);
    if (!json_is_string(json_object_get(rec, "operator")))
        return kt_err_set(err, KT_S_INPUT, "%s:1: the header names no operator",
                          path);
    if (!json_is_object(sizes))
        return kt_err_set(err, KT_S_INPUT, "%s:1: the header has no sizes",
                          path);
    json_object_foreach ((json_t *)sizes, name, v)
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return kt_err_set(err, KT_S_INPUT,
                              "%s:1: size %s is not an integer >= 1", path,
                              name);
    if ((rc = kt_journal_check_header(rec, err)))
        kt_err_prefix(err, "%s:1: ", path);
    return rc;
}

kt_status kt_journal_check_point_head(const json_t *rec, kt_err *err)
{
    const json_t *pt = json_object_get(rec, "point");

    if (!json_is_object(pt) ||
        !json_is_string(json_object_get(pt, "variant")) ||
        !json_is_object(json_object_get(pt, "params")))
        return kt_err_set(err, KT_S_INPUT,
                          "expected a point (\"variant\" and \"params\")");
    if (!json_is_string(json_object_get(rec, "status")))
        return kt_err_set(err, KT_S_INPUT, "expected a \"status\"");
    return KT_S_OK;
}

const char *const kt_journal_kernel_stats[KT_JOURNAL_NUM_STATS] = {
    "median", "min",   "max",    "mean",       "q1",         "q3",
    "ci_lo",  "ci_hi", "stddev", "rel_spread", "rel_stddev", "noise"};

int kt_journal_stat_holds(size_t i, double v)
{
    return i < KT_JOURNAL_NUM_TIMES ? v > 0 && isfinite(v) : v >= 0;
}

int kt_journal_status_ok(const char *status)
{
    return status && strcmp(status, kt_eval_status_name(KT_EVAL_OK)) == 0;
}

kt_status kt_journal_check_point(const json_t *rec, kt_err *err)
{
    const json_t *k = json_object_get(json_object_get(rec, "timing"), "kernel");
    kt_status rc = kt_journal_check_point_head(rec, err);

    if (rc || !kt_journal_status_ok(
                  json_string_value(json_object_get(rec, "status"))))
        return rc;
    if (!json_is_object(k) || !json_is_number(json_object_get(k, "median")))
        return kt_err_set(err, KT_S_INPUT,
                          "status ok without timing.kernel.median");
    /* The figures a record gives must be a measurement's; one it leaves
     * out is not made up (a report draws what is there). */
    for (size_t i = 0; i < KT_JOURNAL_NUM_STATS; ++i) {
        const char *name = kt_journal_kernel_stats[i];
        const json_t *v = json_object_get(k, name);
        if (!v || (json_is_number(v) &&
                   kt_journal_stat_holds(i, json_number_value(v))))
            continue;
        if (i < KT_JOURNAL_NUM_TIMES)
            return kt_err_set(err, KT_S_INPUT,
                              "timing: %s is %g, expected a time > 0", name,
                              json_is_number(v) ? json_number_value(v) : NAN);
        return kt_err_set(err, KT_S_INPUT, "timing: %s is not a number >= 0",
                          name);
    }
    return KT_S_OK;
}
