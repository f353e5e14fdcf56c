// SPDX-License-Identifier: Apache-2.0
/*
 * Declared operators as a kind of plugin file (core/loader.h,
 * kt_loader_kind): an INI file with an [operator] section is read, checked
 * (declared/declared.h: its kernels checked with NVRTC, kt_declared_load)
 * and described here, never probed. Its descriptor is an ordinary one
 * whose callbacks read the declaration from their data (ABI 1.3,
 * kt_declared_describe); with it the kind hands each variant's
 * constraints as expressions (kt_loaded_plugin.require, kt_call_require),
 * for the searches that read them: a kind answers no callback. Registered
 * for the process when this library is linked (ktune_engine's link option
 * names kt_declared_kind, so the object is always there).
 */
#include <stdlib.h>
#include <string.h>

#include "core/loader.h"
#include "engine/declared_run.h"

/* The declaration's check compiles with NVRTC (kt_decl_compile_fn): its
 * first error, or its image as NUL-terminated text for the PTX reader. */
static kt_status nvrtc_check(const kt_decl_compile *req, kt_decl_compiled *out,
                             kt_err *err)
{
    kt_nvrtc_request r = {req->source, req->source_name, req->name_expr,
                          req->arch,   req->options,     req->num_options};
    kt_nvrtc_output o;
    kt_status rc;

    memset(out, 0, sizeof *out);
    memset(&o, 0, sizeof o);
    if (!(rc = kt_nvrtc_compile(&r, &o, err))) {
        out->compiled = o.compiled;
        if (!o.compiled)
            kt_nvrtc_first_error(o.log, out->first, sizeof out->first);
        else if (o.image && !(out->image = malloc(o.image_size + 1)))
            rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        else if (o.image) {
            memcpy(out->image, o.image, o.image_size);
            out->image[o.image_size] = '\0';
            out->image_size = o.image_size;
        }
    }
    kt_nvrtc_output_free(&o);
    return rc;
}

kt_status kt_declared_load(const char *path, kt_declared **out, kt_err *err)
{
    return kt_declared_read(path, nvrtc_check, out, err);
}

static int claims(const char *path)
{
    return kt_declared_is_declaration(path);
}

/* What the kind owns of one declaration: it, and its variants'
 * constraints as expressions, handed with the descriptor (require). */
typedef struct owner {
    kt_declared *d;
    kt_variant_require *req;          /* one per variant */
    const kt_variant_require *ops[1]; /* a declaration has one operator */
} owner;

static void release(void *p)
{
    owner *o = p;

    if (!o)
        return;
    kt_declared_free(o->d);
    free(o->req);
    free(o);
}

static kt_status load(const char *path, void **out, const kt_plugin **desc,
                      const kt_variant_require *const **require, kt_err *err)
{
    owner *o = calloc(1, sizeof *o);
    kt_status rc;

    if (!o)
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    if ((rc = kt_declared_load(path, &o->d, err)) ||
        (rc = kt_declared_describe(o->d, err)))
        goto fail;
    if (!(o->req = calloc(o->d->num_variants, sizeof *o->req))) {
        rc = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    for (size_t v = 0; v < o->d->num_variants; ++v)
        kt_declared_require_parts(&o->d->variants[v], &o->req[v].parts,
                                  &o->req[v].n);
    o->ops[0] = o->req;
    *out = o;
    *desc = &o->d->plugin;
    *require = o->ops;
    return KT_S_OK;
fail:
    release(o);
    return rc;
}

/* Not static: ktune_engine's link option keeps this object in every
 * program that links the library. */
const kt_loader_kind kt_declared_kind = {
    .name = "declared", .claims = claims, .load = load, .release = release};

const kt_declared *kt_declared_of_plugin(const kt_loaded_plugin *lp)
{
    return lp && lp->kind == &kt_declared_kind
               ? ((const owner *)lp->kind_owner)->d
               : NULL;
}

__attribute__((constructor)) static void register_kind(void)
{
    kt_err err;
    /* Cannot fail: the table has room for every kind ktune has. */
    (void)kt_loader_add_kind(&kt_declared_kind, &err);
}
