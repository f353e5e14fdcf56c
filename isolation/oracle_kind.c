// SPDX-License-Identifier: Apache-2.0
/*
 * The isolating kind of plugin (core/loader.h, kt_loader_kind): shared
 * objects probed in child processes (isolation/probe.h) and, in a registry
 * that maps none, adopted with their code left in a child: the oracle
 * (isolation/oracle.h) answers their pure callbacks. Registered for the
 * process when this library is linked (ktune_isolation's link option
 * names kt_oracle_kind, so the object is always there).
 */
#include <stdio.h>

#include "core/loader.h"
#include "isolation/oracle.h"
#include "isolation/probe.h"

static kt_status adopt(const char *path, int timeout_ms, void **owner,
                       kt_err *err)
{
    *owner = kt_oracle_new(path, timeout_ms);
    if (!*owner)
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    return KT_S_OK;
}

static void release(void *owner)
{
    kt_oracle_free(owner);
}

static kt_status work(void *owner, uint32_t op, const kt_problem *problem,
                      kt_work *out, int *rc, kt_err *err)
{
    kt_oracle_answer a;
    kt_status st;

    if ((st = kt_oracle_ask(owner, KT_ORACLE_WORK, op, 0, problem, NULL, &a,
                            err)))
        return st;
    *out = a.work;
    *rc = a.rc;
    return KT_S_OK;
}

static kt_status shape(void *owner, uint32_t op, uint32_t variant,
                       const kt_problem *problem, const kt_config *cfg,
                       int *check_rc, char *why, size_t why_size, int *shape_rc,
                       kt_shape *shape, kt_err *err)
{
    kt_oracle_answer a;
    kt_status st;
    int checked;

    if (!check_rc) /* shape alone: the oracle asks check() anyway */
        check_rc = &checked;
    if ((st = kt_oracle_ask(owner, KT_ORACLE_SHAPE, op, variant, problem, cfg,
                            &a, err)))
        return st;
    *check_rc = a.check_rc;
    snprintf(why, why_size, "%s", a.why);
    if (a.check_rc == KT_OK) {
        *shape_rc = a.rc;
        *shape = a.shape;
    }
    return KT_S_OK;
}

static void prefetch(void *owner, uint32_t op, const kt_problem *problem,
                     const kt_point *pts, size_t n)
{
    kt_oracle_prefetch(owner, KT_ORACLE_SHAPE, op, problem, pts, n);
}

/* Not static: ktune_isolation's link option keeps this object in every
 * program that links the library. */
const kt_loader_kind kt_oracle_kind = {.name = "isolated",
                                       .release = release,
                                       .probe = kt_probe_plugins,
                                       .adopt = adopt,
                                       .work = work,
                                       .shape = shape,
                                       .prefetch = prefetch};

__attribute__((constructor)) static void register_kind(void)
{
    kt_err err;
    /* Cannot fail: the table has room for every kind ktune has. */
    (void)kt_loader_add_kind(&kt_oracle_kind, &err);
}
