// SPDX-License-Identifier: Apache-2.0
/* Shared by the built-in plugin tests: a fake H200 for the GPU-free
 * feasibility checks, loading one built-in plugin, walking a variant's whole
 * parameter space, and (GPU tests) opening an evaluator at 1-D or 2-D sizes
 * and verifying a batch of points. Header-only; every function is static
 * inline. */
#ifndef KT_PLUGIN_TEST_H
#define KT_PLUGIN_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/evaluator.h"
#include "core/feasible.h"
#include "core/loader.h"
#include "core/param.h"
#include "core/point.h"
#include "tests/support/fake_device.h"

/* Loads build/plugins/<name>.so into reg; exits with the loader's message
 * when it fails (the descriptor did not validate). */
static inline const kt_loaded_plugin *kt_load_builtin(kt_registry *reg,
                                                      const char *name)
{
    char path[1024];
    kt_err err;
    snprintf(path, sizeof path, "%s/%s.so", KT_BUILTIN_PLUGIN_DIR, name);
    if (kt_registry_load_file(reg, path, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    return kt_registry_find(reg, name);
}

static inline const kt_operator *kt_find_op(const kt_registry *reg,
                                            const char *spec)
{
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_err err;
    if (kt_registry_resolve(reg, spec, &lp, &op, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    return op;
}

static inline uint32_t kt_find_variant(const kt_operator *op, const char *id)
{
    size_t index = 0;
    kt_err err;
    if (kt_operator_find_variant(op, id, &index, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    return (uint32_t)index;
}

/* Index of parameter `name` of the point's variant; exits when absent. */
static inline uint32_t kt_param_index(const kt_operator *op, const kt_point *pt,
                                      const char *name)
{
    long i = kt_variant_find_param(&op->variants[pt->variant], name);
    if (i < 0) {
        fprintf(stderr, "variant '%s' has no parameter '%s'\n",
                op->variants[pt->variant].id, name);
        exit(1);
    }
    return (uint32_t)i;
}

/* Sets parameter `name` of pt to value (a label's index for enums). */
static inline void kt_point_put(const kt_operator *op, kt_point *pt,
                                const char *name, int64_t value)
{
    pt->values[kt_param_index(op, pt, name)] = value;
}

/* Calls fn on every point of the variant's space (the cartesian product of
 * its parameters' value sets), in mixed-radix order; returns the count. */
typedef void (*kt_point_fn)(const kt_point *pt, void *ctx);

static inline size_t kt_for_each_point(const kt_operator *op, uint32_t variant,
                                       kt_point_fn fn, void *ctx)
{
    const kt_variant *v = &op->variants[variant];
    size_t index[KT_MAX_PARAMS] = {0}, count = 0;
    kt_point pt;
    kt_point_default(op, variant, &pt);
    for (;;) {
        uint32_t k;
        for (k = 0; k < v->num_params; ++k)
            pt.values[k] = kt_param_value_at(&v->params[k], index[k]);
        fn(&pt, ctx);
        ++count;
        for (k = 0; k < v->num_params; ++k) {
            if (++index[k] < kt_param_count(&v->params[k]))
                break;
            index[k] = 0;
        }
        if (k == v->num_params)
            return count;
    }
}

/* A problem at sizes[0..op->num_sizes) on device dev. */
static inline kt_problem
kt_problem_at(const kt_operator *op, const int64_t *sizes, const kt_device *dev)
{
    kt_problem p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.num_sizes = op->num_sizes;
    p.sizes = sizes;
    p.seed = 1;
    p.device = dev;
    return p;
}

/* ------------------------------------------------------------ GPU side */

/* Opens a local evaluator on spec at sizes (op->num_sizes of them), with or
 * without the boundary-size verification; exits with the message on
 * failure. */
static inline kt_evaluator *kt_open_at(const kt_registry *reg, const char *spec,
                                       const int64_t *sizes, int boundaries,
                                       const kt_operator **op_out)
{
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_eval_spec es;
    kt_evaluator *ev;
    kt_err err;

    if (kt_registry_resolve(reg, spec, &lp, &op, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    memset(&es, 0, sizeof es);
    es.plugin = lp;
    es.op = op;
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        es.sizes[i] = sizes[i];
    es.seed = 1;
    es.check_boundaries = boundaries;
    es.log_level = KT_LOG_WARN;
    if (kt_local_open(&es, &ev, &err)) {
        fprintf(stderr, "opening %s: %s\n", spec, err.msg);
        exit(1);
    }
    *op_out = op;
    return ev;
}

/* One sample is enough to prove a launch runs; correctness is decided by
 * verification, which precedes it. */
static inline kt_protocol kt_verify_protocol(void)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    p.warmups = 0;
    p.min_samples = 1;
    p.max_samples = 2;
    p.min_time_s = 0.0;
    p.max_time_s = 2.0;
    p.probe_ns = 0;
    return p;
}

/* The points every verification test runs for a variant: its default, then
 * each parameter through every value with the others at their defaults.
 * Writes at most max points to out; returns the count. */
static inline size_t kt_one_at_a_time(const kt_operator *op, uint32_t variant,
                                      kt_point *out, size_t max)
{
    const kt_variant *v = &op->variants[variant];
    size_t n = 0;
    kt_point_default(op, variant, &out[n++]);
    for (uint32_t k = 0; k < v->num_params; ++k)
        for (size_t i = 0; i < kt_param_count(&v->params[k]) && n < max; ++i) {
            kt_point pt;
            kt_point_default(op, variant, &pt);
            pt.values[k] = kt_param_value_at(&v->params[k], i);
            if (pt.values[k] != v->params[k].default_value)
                out[n++] = pt;
        }
    return n;
}

/* Evaluates pts together; fails the calling test (via the returned count
 * of failures and messages on stderr) when a point is neither verified nor
 * refused by a constraint or a device limit. *ok counts the verified ones,
 * *ok_default whether pts[0] verified. */
static inline int kt_verify_points(kt_evaluator *ev, const kt_operator *op,
                                   const kt_point *pts, size_t n,
                                   const char *where, int *ok, int *ok_default)
{
    kt_eval_result *r = calloc(n, sizeof *r);
    kt_protocol p = kt_verify_protocol();
    int failures = 0;
    kt_err err;

    if (!r || ev->ops->evaluate(ev, pts, n, &p, r, &err) != KT_S_OK) {
        fprintf(stderr, "%s: evaluate: %s\n", where, r ? err.msg : "no memory");
        free(r);
        return 1;
    }
    for (size_t i = 0; i < n; ++i) {
        char shown[512];
        kt_point_format(op, &pts[i], shown, sizeof shown);
        if (r[i].status == KT_EVAL_OK) {
            ++*ok;
            if (i == 0)
                *ok_default = 1;
        } else if (r[i].status != KT_EVAL_INVALID ||
                   (!strstr(r[i].reason, "constraint") &&
                    !strstr(r[i].reason, "device limit"))) {
            fprintf(stderr, "FAIL %s %s: %s: %s\n", where, shown,
                    kt_eval_status_name(r[i].status), r[i].reason);
            ++failures;
        }
        kt_eval_result_free(&r[i]);
    }
    free(r);
    return failures;
}

#endif
