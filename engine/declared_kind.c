// SPDX-License-Identifier: Apache-2.0
/*
 * Declared operators as a kind of plugin file (core/loader.h,
 * kt_loader_kind): an INI file with an [operator] section is read, checked
 * and described here (engine/declared.h), never probed, and the loader
 * asks this kind for a declared operator's pure callbacks and setup()
 * (kt_call_work, kt_call_shape, kt_call_setup, kt_call_work_of) and a
 * variant's constraints (kt_call_require), with the declaration it loaded:
 * the plugin ABI's callbacks carry nothing that leads back to it.
 * Registered for the process when this library is linked (ktune_engine's
 * link option names kt_declared_kind, so the object is always there).
 */
#include <stdlib.h>
#include <string.h>

#include "core/loader.h"
#include "engine/declared.h"

static int claims(const char *path)
{
    return kt_declared_is_declaration(path);
}

static kt_status load(const char *path, void **owner, const kt_plugin **desc,
                      kt_err *err)
{
    kt_declared *d = NULL;
    kt_status rc;

    if ((rc = kt_declared_load(path, &d, err)))
        return rc;
    kt_declared_describe(d);
    *owner = d;
    *desc = &d->plugin;
    return KT_S_OK;
}

static void release(void *owner)
{
    kt_declared_free(owner);
}

static int require(void *owner, uint32_t op, uint32_t variant,
                   kt_expr *const **parts, size_t *n)
{
    const kt_declared *d = owner;

    /* A declaration has one operator (index 0). */
    if (!d || op != 0 || variant >= d->num_variants)
        return 0;
    kt_declared_require_parts(&d->variants[variant], parts, n);
    return 1;
}

/* A declaration has one operator (index 0); the loader hands back the
 * index of one of its own operators, so op is 0 here. */
static kt_status work(void *owner, uint32_t op, const kt_problem *problem,
                      kt_work *out, int *rc, kt_err *err)
{
    (void)op;
    (void)err;
    *rc = kt_declared_work(owner, problem, out);
    return KT_S_OK;
}

static kt_status shape(void *owner, uint32_t op, uint32_t variant,
                       const kt_problem *problem, const kt_config *cfg,
                       int *check_rc, char *why, size_t why_size, int *shape_rc,
                       kt_shape *out, kt_err *err)
{
    (void)op;
    (void)err;
    if (check_rc && (*check_rc = kt_declared_check(owner, variant, problem, cfg,
                                                   why, why_size)) != KT_OK)
        return KT_S_OK;
    *shape_rc = kt_declared_shape(owner, variant, problem, cfg, out);
    return KT_S_OK;
}

static int setup(void *owner, uint32_t op, const kt_host *host,
                 const kt_problem *problem, void **state)
{
    (void)op;
    return kt_declared_setup(owner, host, problem, state);
}

static int work_of(void *owner, uint32_t op, uint32_t variant,
                   const kt_problem *problem, const kt_config *cfg,
                   kt_work *out)
{
    (void)op;
    return kt_declared_work_of(owner, variant, problem, cfg, out);
}

/* Not static: ktune_engine's link option keeps this object in every
 * program that links the library. */
const kt_loader_kind kt_declared_kind = {.name = "declared",
                                         .claims = claims,
                                         .load = load,
                                         .release = release,
                                         .work = work,
                                         .shape = shape,
                                         .require = require,
                                         .setup = setup,
                                         .work_of = work_of};

const kt_declared *kt_declared_of_plugin(const kt_loaded_plugin *lp)
{
    return lp && lp->kind == &kt_declared_kind ? lp->kind_owner : NULL;
}

__attribute__((constructor)) static void register_kind(void)
{
    kt_err err;
    /* Cannot fail: the table has room for every kind ktune has. */
    (void)kt_loader_add_kind(&kt_declared_kind, &err);
}
