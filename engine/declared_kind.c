// SPDX-License-Identifier: Apache-2.0
/*
 * Declared operators as a kind of plugin file (core/loader.h,
 * kt_loader_kind): an INI file with an [operator] section is read, checked
 * and described here (engine/declared.h), never probed. Its descriptor is
 * an ordinary one whose callbacks read the declaration from their data
 * (ABI 1.3, kt_declared_describe); the kind adds only a variant's
 * constraints as expressions (kt_call_require), for the searches that
 * read them. Registered for the process when this library is linked
 * (ktune_engine's link option names kt_declared_kind, so the object is
 * always there).
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
    if ((rc = kt_declared_describe(d, err))) {
        kt_declared_free(d);
        return rc;
    }
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

/* Not static: ktune_engine's link option keeps this object in every
 * program that links the library. */
const kt_loader_kind kt_declared_kind = {.name = "declared",
                                         .claims = claims,
                                         .load = load,
                                         .release = release,
                                         .require = require};

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
