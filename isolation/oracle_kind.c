// SPDX-License-Identifier: Apache-2.0
/*
 * The isolating kind of plugin (core/loader.h, kt_loader_kind): shared
 * objects probed in child processes (isolation/probe.h) and, in a registry
 * that maps none, adopted with their code left in a child: their
 * descriptors' pure callbacks (work, check, shape) are this file's, which
 * find their question in their data and ask the oracle
 * (isolation/oracle.h); adopt hands back with its owner the prefetch that
 * asks the oracle many questions at once (kt_loaded_plugin.prefetch): the
 * kind itself answers no call. Registered for the process when this library
 * is linked (ktune_isolation's link option names kt_oracle_kind, so the
 * object is always there).
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/loader.h"
#include "isolation/oracle.h"
#include "isolation/probe.h"

/* What the kind owns of one adopted plugin: its oracle, and the data its
 * descriptor's callbacks find their question in. */
typedef struct asked {
    kt_oracle *oracle;
    uint32_t op, variant;
} asked;

typedef struct adopted {
    kt_oracle *oracle;
    asked *ops;      /* one per operator: kt_operator.data */
    asked *variants; /* one per variant of every operator: kt_variant.data */
} adopted;

static void release(void *owner)
{
    adopted *a = owner;

    if (!a)
        return;
    kt_oracle_free(a->oracle);
    free(a->ops);
    free(a->variants);
    free(a);
}

/* The descriptor's callbacks: each asks the plugin's child through the
 * oracle (answered from its memo when asked before: check and shape of a
 * point are one question), and a crash or hang there is the kt_call_*'s
 * error (kt_call_fail). */
static int ask(const asked *q, kt_oracle_call call, const kt_problem *p,
               const kt_config *c, kt_oracle_answer *a)
{
    kt_err err;

    if (!kt_oracle_ask(q->oracle, call, q->op, q->variant, p, c, a, &err))
        return 1;
    kt_call_fail(&err);
    return 0;
}

static int work(const kt_problem *p, kt_work *out)
{
    kt_oracle_answer a;

    if (!ask(p->data, KT_ORACLE_WORK, p, NULL, &a))
        return KT_FAIL;
    *out = a.work;
    out->struct_size = sizeof *out;
    return a.rc;
}

static int check(const kt_problem *p, const kt_config *c, char *why,
                 size_t why_size)
{
    kt_oracle_answer a;

    if (!ask(c->data, KT_ORACLE_SHAPE, p, c, &a))
        return KT_FAIL;
    snprintf(why, why_size, "%s", a.why);
    return a.check_rc;
}

/* Asked of a point whose check() passed (kt_call_shape asks check first,
 * or not at all for a point checked before): a check that failed here
 * is that answer. */
static int shape(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    kt_oracle_answer a;

    if (!ask(c->data, KT_ORACLE_SHAPE, p, c, &a))
        return KT_FAIL;
    if (a.check_rc != KT_OK)
        return a.check_rc;
    *out = a.shape;
    return a.rc;
}

/* desc's pure callbacks made the oracle's, each with its question. */
static kt_status wire(adopted *a, kt_plugin *desc, kt_err *err)
{
    size_t nv = 0, k = 0;

    for (uint32_t i = 0; i < desc->num_operators; ++i)
        nv += desc->operators[i].num_variants;
    a->ops =
        calloc(desc->num_operators ? desc->num_operators : 1, sizeof *a->ops);
    a->variants = calloc(nv ? nv : 1, sizeof *a->variants);
    if (!a->ops || !a->variants)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (uint32_t i = 0; i < desc->num_operators; ++i) {
        /* The registry's own copy, made to be completed here. */
        kt_operator *op = (kt_operator *)&desc->operators[i];
        a->ops[i] = (asked){a->oracle, i, 0};
        op->work = work;
        op->data = &a->ops[i];
        for (uint32_t j = 0; j < op->num_variants; ++j, ++k) {
            kt_variant *v = (kt_variant *)&op->variants[j];
            a->variants[k] = (asked){a->oracle, i, j};
            v->shape = shape;
            if (v->check)
                v->check = check;
            v->data = &a->variants[k];
        }
    }
    return KT_S_OK;
}

/* The owner's kt_shape_prefetch_fn: its oracle asked many at once. */
static void prefetch(void *owner, uint32_t op, const kt_problem *problem,
                     const kt_point *pts, size_t n)
{
    kt_oracle_prefetch(((adopted *)owner)->oracle, KT_ORACLE_SHAPE, op, problem,
                       pts, n);
}

static kt_status adopt(const char *path, int timeout_ms, kt_plugin *desc,
                       void **owner, kt_shape_prefetch_fn *batch, kt_err *err)
{
    adopted *a = calloc(1, sizeof *a);
    kt_status rc;

    *owner = NULL;
    if (!a || !(a->oracle = kt_oracle_new(path, timeout_ms))) {
        release(a);
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    }
    if ((rc = wire(a, desc, err))) {
        release(a);
        return kt_err_prefix(err, "%s: ", path);
    }
    *owner = a;
    *batch = prefetch;
    return KT_S_OK;
}

/* Not static: ktune_isolation's link option keeps this object in every
 * program that links the library. */
const kt_loader_kind kt_oracle_kind = {.name = "isolated",
                                       .release = release,
                                       .probe = kt_probe_plugins,
                                       .adopt = adopt};

__attribute__((constructor)) static void register_kind(void)
{
    kt_err err;
    /* Cannot fail: the table has room for every kind ktune has. */
    (void)kt_loader_add_kind(&kt_oracle_kind, &err);
}

kt_oracle *kt_oracle_of(const kt_loaded_plugin *plugin)
{
    return plugin && plugin->kind == &kt_oracle_kind
               ? ((adopted *)plugin->kind_owner)->oracle
               : NULL;
}
