// SPDX-License-Identifier: Apache-2.0
#include "core/loader.h"

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/desc_json.h"
#include "core/fileio.h"
#include "core/param.h"
#include "core/settings.h"
#include "core/suggest.h"

/* Sizes of the ABI 1.0 structs: a plugin's struct may be larger (a newer
 * minor version) but never smaller than the version that introduced it. */
enum {
    MIN_PLUGIN = KTUNE_ABI_1_0_SIZEOF_PLUGIN,
    MIN_OPERATOR = KTUNE_ABI_1_0_SIZEOF_OPERATOR,
    MIN_VARIANT = KTUNE_ABI_1_0_SIZEOF_VARIANT,
    MIN_PARAM = KTUNE_ABI_1_0_SIZEOF_PARAM_DESC,
    MIN_SIZE = KTUNE_ABI_1_0_SIZEOF_SIZE_DESC
};

typedef struct loading {
    kt_loaded_plugin *lp;
    const char *file; /* for messages */
    kt_err *err;
} loading;

static void *own(loading *ld, size_t bytes)
{
    kt_loaded_plugin *lp = ld->lp;
    void **grown = realloc(lp->owned, (lp->num_owned + 1) * sizeof *grown);
    void *block;

    if (!grown)
        return NULL;
    lp->owned = grown;
    block = calloc(1, bytes ? bytes : 1);
    if (block)
        lp->owned[lp->num_owned++] = block;
    return block;
}

/* Copies what struct_size covers of a plugin struct into a zeroed host one. */
static kt_status copy_struct(loading *ld, void *dst, size_t host_size,
                             const void *src, size_t min_size, const char *what)
{
    uint32_t size;

    if (!src)
        return kt_err_set(ld->err, KT_S_PLUGIN, "%s: %s is NULL", ld->file,
                          what);
    memcpy(&size, src, sizeof size);
    if (size < min_size)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s.struct_size is %u, "
                          "expected at least %zu (struct too small: built "
                          "against an older or foreign header?)",
                          ld->file, what, size, min_size);
    memset(dst, 0, host_size);
    memcpy(dst, src, size < host_size ? size : host_size);
    /* The copy is a host-sized struct now; say so. */
    memcpy(dst, &(uint32_t){(uint32_t)host_size}, sizeof(uint32_t));
    return KT_S_OK;
}

/* Re-lays a plugin array with the host's stride. The stride of the plugin's
 * array is its first element's struct_size; every element must agree. */
static kt_status copy_array(loading *ld, void **dst, size_t host_size,
                            const void *src, size_t count, size_t min_size,
                            const char *what)
{
    char *out;
    uint32_t stride;

    if (count == 0) {
        *dst = NULL;
        return KT_S_OK;
    }
    if (!src)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s is NULL but its count "
                          "is %zu",
                          ld->file, what, count);
    memcpy(&stride, src, sizeof stride);
    out = own(ld, host_size * count);
    if (!out)
        return kt_err_set(ld->err, KT_S_NOMEM, "%s: out of memory", ld->file);
    for (size_t i = 0; i < count; ++i) {
        const char *elem = (const char *)src + i * (size_t)stride;
        uint32_t size;
        char label[160];
        snprintf(label, sizeof label, "%s[%zu]", what, i);
        memcpy(&size, elem, sizeof size);
        if (i > 0 && size != stride)
            return kt_err_set(ld->err, KT_S_PLUGIN,
                              "%s: %s.struct_size is %u, "
                              "expected %u like element 0",
                              ld->file, label, size, stride);
        if (copy_struct(ld, out + i * host_size, host_size, elem, min_size,
                        label))
            return ld->err ? ld->err->status : KT_S_PLUGIN;
    }
    *dst = out;
    return KT_S_OK;
}

/* Texts are read with a bound: one without its NUL would otherwise be read
 * into whatever follows it (and printed, or fault later in `list`). */
#define MAX_TEXT 4096

static kt_status check_text(loading *ld, const char *text, const char *what)
{
    if (text && strnlen(text, MAX_TEXT) == MAX_TEXT)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s is not NUL-terminated within %d bytes",
                          ld->file, what, MAX_TEXT);
    return KT_S_OK;
}

/* Ids appear in INI files and on command lines: keep them plain. */
static kt_status check_id(loading *ld, const char *id, const char *what)
{
    if (!id || !*id)
        return kt_err_set(ld->err, KT_S_PLUGIN, "%s: %s is NULL or empty",
                          ld->file, what);
    if (strnlen(id, 256) == 256)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s is longer than 255 bytes or not "
                          "NUL-terminated",
                          ld->file, what);
    for (const char *p = id; *p; ++p)
        if (!isalnum((unsigned char)*p) && !strchr("_-.", *p))
            return kt_err_set(ld->err, KT_S_PLUGIN,
                              "%s: %s '%s' has '%c'; "
                              "expected letters, digits, '_', '-' or '.'",
                              ld->file, what, id, *p);
    return KT_S_OK;
}

static kt_status check_required(loading *ld, const void *fn, const char *what)
{
    if (!fn)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: required field %s is "
                          "NULL",
                          ld->file, what);
    return KT_S_OK;
}

static kt_status check_param_texts(loading *ld, const kt_param_desc *p,
                                   const char *what)
{
    char label[300];
    kt_status rc;

    snprintf(label, sizeof label, "%s's help", what);
    if ((rc = check_text(ld, p->help, label)))
        return rc;
    for (uint32_t i = 0; p->kind == KT_PARAM_ENUM && p->labels &&
                         i < p->count && i < KT_MAX_PARAM_VALUES;
         ++i) {
        snprintf(label, sizeof label, "%s's labels[%u]", what, i);
        if ((rc = check_text(ld, p->labels[i], label)))
            return rc;
    }
    return KT_S_OK;
}

static kt_status normalise_variant(loading *ld, kt_variant *v,
                                   const char *where)
{
    char what[256];
    kt_param_desc *params = NULL;
    kt_status rc;

    snprintf(what, sizeof what, "%s.id", where);
    if ((rc = check_id(ld, v->id, what)))
        return rc;
    snprintf(what, sizeof what, "%s ('%s').summary", where, v->id);
    if ((rc = check_text(ld, v->summary, what)))
        return rc;
    snprintf(what, sizeof what, "%s ('%s').shape", where, v->id);
    if ((rc = check_required(ld, (const void *)v->shape, what)))
        return rc;
    snprintf(what, sizeof what, "%s ('%s').launch", where, v->id);
    if (!v->launch_shaped &&
        (rc = check_required(ld, (const void *)v->launch, what)))
        return rc;
    if (v->num_params > KT_MAX_PARAMS)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s ('%s').num_params is "
                          "%u, expected at most %d",
                          ld->file, where, v->id, v->num_params, KT_MAX_PARAMS);
    snprintf(what, sizeof what, "%s ('%s').params", where, v->id);
    if ((rc = copy_array(ld, (void **)&params, sizeof *params, v->params,
                         v->num_params, MIN_PARAM, what)))
        return rc;
    for (uint32_t i = 0; i < v->num_params; ++i) {
        kt_err perr;
        snprintf(what, sizeof what, "%s ('%s').params[%u].name", where, v->id,
                 i);
        if ((rc = check_id(ld, params[i].name, what)) ||
            (rc = check_param_texts(ld, &params[i], what)))
            return rc;
        if (strcmp(params[i].name, "variant") == 0)
            return kt_err_set(ld->err, KT_S_PLUGIN,
                              "%s: %s ('%s'): parameter "
                              "name 'variant' is reserved",
                              ld->file, where, v->id);
        if (kt_param_validate(&params[i], &perr))
            return kt_err_set(ld->err, KT_S_PLUGIN, "%s: %s ('%s'): %s",
                              ld->file, where, v->id, perr.msg);
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(params[i].name, params[j].name) == 0)
                return kt_err_set(ld->err, KT_S_PLUGIN,
                                  "%s: %s ('%s'): "
                                  "duplicate parameter '%s'",
                                  ld->file, where, v->id, params[i].name);
    }
    v->params = params;
    /* Bits this host does not know come from a newer plugin: ignored, like
     * the fields it appends. */
    v->flags &= KT_VARIANT_REFERENCE;
    v->reserved = 0;
    return KT_S_OK;
}

/* The operator's size dimensions: names, help texts, bounds. */
static kt_status normalise_sizes(loading *ld, const kt_operator *op,
                                 const char *where, kt_size_desc **out)
{
    char what[256];
    kt_size_desc *sizes = NULL;
    kt_status rc;

    if (op->num_sizes < 1 || op->num_sizes > KT_MAX_SIZES)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s.num_sizes is %u, "
                          "expected 1 to %d",
                          ld->file, where, op->num_sizes, KT_MAX_SIZES);
    snprintf(what, sizeof what, "%s.sizes", where);
    if ((rc = copy_array(ld, (void **)&sizes, sizeof *sizes, op->sizes,
                         op->num_sizes, MIN_SIZE, what)))
        return rc;
    for (uint32_t i = 0; i < op->num_sizes; ++i) {
        snprintf(what, sizeof what, "%s.sizes[%u].name", where, i);
        if ((rc = check_id(ld, sizes[i].name, what)))
            return rc;
        snprintf(what, sizeof what, "%s.sizes[%u].help", where, i);
        if ((rc = check_text(ld, sizes[i].help, what)))
            return rc;
        if (sizes[i].min < 1 || sizes[i].max < sizes[i].min ||
            sizes[i].default_value < sizes[i].min ||
            sizes[i].default_value > sizes[i].max)
            return kt_err_set(
                ld->err, KT_S_PLUGIN,
                "%s: %s size '%s': "
                "expected 1 <= min <= default <= max, found "
                "min %lld, default %lld, max %lld",
                ld->file, where, sizes[i].name, (long long)sizes[i].min,
                (long long)sizes[i].default_value, (long long)sizes[i].max);
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(sizes[i].name, sizes[j].name) == 0)
                return kt_err_set(ld->err, KT_S_PLUGIN,
                                  "%s: %s: duplicate "
                                  "size '%s'",
                                  ld->file, where, sizes[i].name);
    }
    *out = sizes;
    return KT_S_OK;
}

static kt_status normalise_operator(loading *ld, kt_operator *op, size_t index)
{
    char where[128], what[256];
    kt_variant *variants = NULL;
    kt_size_desc *sizes = NULL;
    kt_status rc;

    snprintf(where, sizeof where, "operators[%zu]", index);
    snprintf(what, sizeof what, "%s.id", where);
    if ((rc = check_id(ld, op->id, what)))
        return rc;
    snprintf(where, sizeof where, "operator '%s'", op->id);
    snprintf(what, sizeof what, "%s.summary", where);
    if ((rc = check_text(ld, op->summary, what)))
        return rc;
    {
        const struct {
            const void *fn;
            const char *name;
        } required[] = {{(const void *)op->work, "work"},
                        {(const void *)op->setup, "setup"},
                        {(const void *)op->verify, "verify"},
                        {(const void *)op->teardown, "teardown"}};
        for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i) {
            snprintf(what, sizeof what, "%s.%s", where, required[i].name);
            if ((rc = check_required(ld, required[i].fn, what)))
                return rc;
        }
    }
    if ((rc = normalise_sizes(ld, op, where, &sizes)))
        return rc;
    op->sizes = sizes;
    if (op->num_variants < 1)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s.num_variants is 0, "
                          "expected at least 1",
                          ld->file, where);
    snprintf(what, sizeof what, "%s.variants", where);
    if ((rc = copy_array(ld, (void **)&variants, sizeof *variants, op->variants,
                         op->num_variants, MIN_VARIANT, what)))
        return rc;
    for (uint32_t i = 0; i < op->num_variants; ++i) {
        snprintf(what, sizeof what, "%s variants[%u]", where, i);
        if ((rc = normalise_variant(ld, &variants[i], what)))
            return rc;
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(variants[i].id, variants[j].id) == 0)
                return kt_err_set(ld->err, KT_S_PLUGIN,
                                  "%s: %s: duplicate "
                                  "variant id '%s'",
                                  ld->file, where, variants[i].id);
    }
    op->variants = variants;
    return KT_S_OK;
}

static kt_status normalise_plugin(loading *ld, const kt_plugin *raw)
{
    kt_plugin *d = &ld->lp->desc;
    kt_operator *ops = NULL;
    kt_status rc;

    if (raw->magic != KT_PLUGIN_MAGIC)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: not a ktune plugin: magic "
                          "is 0x%016llx, expected 0x%016llx",
                          ld->file, (unsigned long long)raw->magic,
                          (unsigned long long)KT_PLUGIN_MAGIC);
    if (raw->abi_major != KT_ABI_MAJOR)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: ABI major version %u, "
                          "expected %d (rebuild the plugin against this "
                          "ktune's plugin.h)",
                          ld->file, raw->abi_major, KT_ABI_MAJOR);
    if ((rc = copy_struct(ld, d, sizeof *d, raw, MIN_PLUGIN, "descriptor")))
        return rc;
    if ((rc = check_id(ld, d->name, "descriptor.name")) ||
        (rc = check_text(ld, d->version, "descriptor.version")) ||
        (rc = check_text(ld, d->summary, "descriptor.summary")) ||
        (rc = check_text(ld, d->compiler, "descriptor.compiler")) ||
        (rc = check_text(ld, d->cuda_archs, "descriptor.cuda_archs")) ||
        (rc = check_text(ld, d->build_date, "descriptor.build_date")))
        return rc;
    if (d->num_operators < 1)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: descriptor.num_operators "
                          "is 0, expected at least 1",
                          ld->file);
    if ((rc = copy_array(ld, (void **)&ops, sizeof *ops, d->operators,
                         d->num_operators, MIN_OPERATOR,
                         "descriptor.operators")))
        return rc;
    for (uint32_t i = 0; i < d->num_operators; ++i) {
        if ((rc = normalise_operator(ld, &ops[i], i)))
            return rc;
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(ops[i].id, ops[j].id) == 0)
                return kt_err_set(ld->err, KT_S_PLUGIN,
                                  "%s: duplicate operator "
                                  "id '%s'",
                                  ld->file, ops[i].id);
    }
    d->operators = ops;
    return KT_S_OK;
}

static void unload(kt_loaded_plugin *lp)
{
    if (!lp)
        return;
    for (size_t i = 0; i < lp->num_owned; ++i)
        free(lp->owned[i]);
    free(lp->owned);
    if (lp->handle)
        dlclose(lp->handle);
    if (lp->kind)
        lp->kind->release(lp->kind_owner);
    free(lp->path);
    free(lp);
}

void kt_registry_init(kt_registry *reg)
{
    double seconds;

    memset(reg, 0, sizeof *reg);
    kt_settings_read(&reg->settings);
    seconds = reg->settings.ktune_plugin_timeout
                  ? atof(reg->settings.ktune_plugin_timeout)
                  : 0.0;
    reg->probe_timeout_ms =
        seconds > 0 ? (int)(seconds * 1e3) : KT_PROBE_TIMEOUT_MS;
}

void kt_registry_free(kt_registry *reg)
{
    for (size_t i = 0; i < reg->count; ++i)
        unload(reg->plugins[i]);
    for (size_t i = 0; i < reg->num_failures; ++i)
        free(reg->failures[i]);
    free(reg->plugins);
    free(reg->failures);
    free(reg->builtin_dir);
    reg->builtin_dir = NULL;
    reg->plugins = NULL;
    reg->failures = NULL;
    reg->count = 0;
    reg->num_failures = 0;
}

static void add_failure(kt_registry *reg, const char *text)
{
    char **grown =
        realloc(reg->failures, (reg->num_failures + 1) * sizeof *grown);
    char *copy = strdup(text);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            reg->failures = grown;
        return;
    }
    reg->failures = grown;
    reg->failures[reg->num_failures++] = copy;
}

const kt_loaded_plugin *kt_registry_find(const kt_registry *reg,
                                         const char *name)
{
    for (size_t i = 0; i < reg->count; ++i)
        if (strcmp(reg->plugins[i]->desc.name, name) == 0)
            return reg->plugins[i];
    return NULL;
}

static int has_so_suffix(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

void kt_probe_verdict_free(kt_probe_verdict *v)
{
    json_decref(v->desc);
    free(v->message);
    memset(v, 0, sizeof *v);
}

/* The kinds of plugin file of the process: each library that knows one
 * adds it from a constructor (kt_loader_add_kind), so the loader names
 * none; mutable only while those run. */
static const kt_loader_kind *g_kinds[8];

kt_status kt_loader_add_kind(const kt_loader_kind *kind, kt_err *err)
{
    for (size_t i = 0; i < sizeof g_kinds / sizeof g_kinds[0]; ++i)
        if (!g_kinds[i] || g_kinds[i] == kind) {
            g_kinds[i] = kind;
            return KT_S_OK;
        }
    return kt_err_set(err, KT_S_UNSUPPORTED,
                      "%s: no room for another kind "
                      "of plugin file",
                      kind->name);
}

const kt_loader_kind *kt_loader_kind_of(const char *path)
{
    for (size_t i = 0; i < sizeof g_kinds / sizeof g_kinds[0]; ++i)
        if (g_kinds[i] && g_kinds[i]->claims && g_kinds[i]->claims(path))
            return g_kinds[i];
    return NULL;
}

/* The isolating kind (isolation/), NULL where none is linked: then
 * nothing is probed and plugins are mapped here. */
static const kt_loader_kind *isolating(void)
{
    for (size_t i = 0; i < sizeof g_kinds / sizeof g_kinds[0]; ++i)
        if (g_kinds[i] && g_kinds[i]->probe && g_kinds[i]->adopt)
            return g_kinds[i];
    return NULL;
}

/* A file of a registered kind (a declared operator, an INI file with
 * [operator], declared/declared.h; a capture) runs no foreign code: it is
 * loaded here, never probed. */
static int is_declaration(const char *path)
{
    return !has_so_suffix(path) && kt_loader_kind_of(path);
}

static kt_status load_kind(loading *ld, const kt_loader_kind *kind)
{
    const kt_plugin *desc = NULL;
    kt_status rc = kind->load(ld->file, &ld->lp->kind_owner, &desc,
                              &ld->lp->require, ld->err);
    if (rc)
        return rc;
    ld->lp->kind = kind;
    return normalise_plugin(ld, desc);
}

static void *own_block(void *ctx, size_t bytes)
{
    return own(ctx, bytes);
}

/* The descriptor a probe child validated, rebuilt here from data and
 * validated again like a plugin's own (the child is the plugin's). */
static kt_status adopt_probed(loading *ld, const json_t *desc, int timeout_ms)
{
    const kt_loader_kind *kind = isolating();
    const kt_plugin *raw;
    kt_status rc;

    if ((rc = kt_desc_from_json(desc, own_block, ld, &raw, ld->err)))
        return kt_err_prefix(ld->err, "%s: ", ld->file);
    if ((rc = normalise_plugin(ld, raw)))
        return rc;
    if ((rc = kind->adopt(ld->file, timeout_ms, &ld->lp->desc,
                          &ld->lp->kind_owner, &ld->lp->prefetch, ld->err)))
        return rc;
    ld->lp->kind = kind;
    return KT_S_OK;
}

static kt_status map_here(loading *ld)
{
    kt_plugin_entry_fn entry;
    const kt_plugin *raw;
    const char *path = ld->file;

    char *local = NULL;

    /* A name without a slash is a file here, not a library for dlopen to
     * look up in the system's search path. */
    if (!strchr(path, '/')) {
        size_t n = strlen(path) + 3;
        if (!(local = malloc(n)))
            return kt_err_set(ld->err, KT_S_NOMEM, "%s: out of memory", path);
        snprintf(local, n, "./%s", path);
    }
    dlerror();
    ld->lp->handle = dlopen(local ? local : path, RTLD_NOW | RTLD_LOCAL);
    free(local);
    if (!ld->lp->handle) {
        const char *why = dlerror();
        return kt_err_set(ld->err, KT_S_PLUGIN, "%s: cannot load: %s", path,
                          why ? why : "dlopen failed");
    }
    /* A function pointer, not a data symbol: dlsym of functions is what
     * POSIX guarantees, and the plugin's descriptor can live anywhere. */
    *(void **)&entry = dlsym(ld->lp->handle, KT_PLUGIN_ENTRY_SYMBOL);
    if (!entry)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: not a ktune plugin: no symbol "
                          "'%s' (expected KT_PLUGIN_EXPORT in the plugin)",
                          path, KT_PLUGIN_ENTRY_SYMBOL);
    raw = entry();
    if (!raw)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s() returned NULL, expected a "
                          "descriptor",
                          path, KT_PLUGIN_ENTRY_SYMBOL);
    return normalise_plugin(ld, raw);
}

/* The registry's slot of dup when dup came from the built-in folder, else
 * NULL. */
static kt_loaded_plugin **builtin_slot(kt_registry *reg,
                                       const kt_loaded_plugin *dup)
{
    size_t n = reg->builtin_dir ? strlen(reg->builtin_dir) : 0;

    if (!n || strncmp(dup->path, reg->builtin_dir, n) != 0 ||
        dup->path[n] != '/' || strchr(dup->path + n + 1, '/'))
        return NULL;
    for (size_t i = 0; i < reg->count; ++i)
        if (reg->plugins[i] == dup)
            return &reg->plugins[i];
    return NULL;
}

/* Adds path to reg after its probe (v, NULL when not probed). */
static kt_status add_plugin(kt_registry *reg, const char *path,
                            const kt_probe_verdict *v, kt_err *err)
{
    loading ld = {NULL, path, err};
    const kt_loaded_plugin *dup;
    kt_loaded_plugin **grown;
    kt_status rc = KT_S_OK;

    int declared = is_declaration(path);

    if (!declared && v && !v->ok)
        return kt_err_set(err, KT_S_PLUGIN, "%s%s",
                          v->message ? v->message : path,
                          v->cached ? " (remembered from an earlier probe of "
                                      "this very file; change or touch it to "
                                      "probe again)"
                                    : "");
    ld.lp = calloc(1, sizeof *ld.lp);
    if (!ld.lp || !(ld.lp->path = strdup(path))) {
        rc = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
        goto done;
    }
    if (declared)
        rc = load_kind(&ld, kt_loader_kind_of(path));
    else
        rc = v && reg->isolated
                 ? adopt_probed(&ld, v->desc, reg->probe_timeout_ms)
                 : map_here(&ld);
    if (rc)
        goto done;
    dup = kt_registry_find(reg, ld.lp->desc.name);
    if (dup && declared && builtin_slot(reg, dup)) {
        /* The user's declaration (an INI file, or libktune's) wins over the
         * built-in plugin of its name: no rename forced on them. */
        kt_loaded_plugin **slot = builtin_slot(reg, dup);
        unload(*slot);
        *slot = ld.lp;
        ld.lp = NULL;
        goto done;
    }
    if (dup && declared) {
        /* A declaration is the user's text: its name is an input error,
         * and the user can change it (Kernel Tuner's README names its
         * example vector_add, as a built-in plugin is named). */
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: [operator] name '%s' is taken by the plugin "
                        "loaded from %s; rename the operator (name = "
                        "my_%s, say) and use that name in the job (operator "
                        "= my_%s:...)",
                        path, ld.lp->desc.name, dup->path, ld.lp->desc.name,
                        ld.lp->desc.name);
        goto done;
    }
    if (dup) {
        rc = kt_err_set(err, KT_S_PLUGIN,
                        "%s: duplicate plugin name '%s', "
                        "already loaded from %s",
                        path, ld.lp->desc.name, dup->path);
        goto done;
    }
    grown = realloc(reg->plugins, (reg->count + 1) * sizeof *grown);
    if (!grown) {
        rc = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
        goto done;
    }
    reg->plugins = grown;
    reg->plugins[reg->count++] = ld.lp;
    ld.lp = NULL;
done:
    unload(ld.lp);
    return rc;
}

/* KT_S_INPUT naming what path is when it exists but is not a regular file
 * (a device, FIFO, socket): refused before a probe or a read, which would
 * block or never end. A missing file is left to the loader's message. */
static kt_status refuse_irregular(const char *path, kt_err *err)
{
    struct stat st;

    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return KT_S_OK;
    return kt_file_check_regular(path, "plugin", err);
}

/* Moves the paths that are not regular files out of paths[0..*n) into
 * reg->failures (freed), keeping the order of the rest. */
static void drop_irregular(kt_registry *reg, char **paths, size_t *n)
{
    size_t kept = 0;

    for (size_t i = 0; i < *n; ++i) {
        kt_err err;
        if (refuse_irregular(paths[i], &err)) {
            add_failure(reg, err.msg);
            free(paths[i]);
        } else {
            paths[kept++] = paths[i];
        }
    }
    *n = kept;
}

/* Probes paths[0..n) together, then adds them in order; failures go to
 * reg->failures. */
static void load_paths(kt_registry *reg, char **paths, size_t n)
{
    const kt_loader_kind *iso = isolating();
    kt_probe_verdict *v = NULL;

    if (reg->probe_timeout_ms > 0 && iso && n > 0) {
        v = calloc(n, sizeof *v);
        if (!v) {
            add_failure(reg, "out of memory probing plugins");
            return;
        }
        iso->probe((const char *const *)paths, n, reg->probe_timeout_ms, v);
    }
    for (size_t i = 0; i < n; ++i) {
        kt_err err;
        if (add_plugin(reg, paths[i], v ? &v[i] : NULL, &err))
            add_failure(reg, err.msg);
        if (v)
            kt_probe_verdict_free(&v[i]);
    }
    free(v);
}

kt_status kt_registry_load_file(kt_registry *reg, const char *path, kt_err *err)
{
    kt_probe_verdict v;
    kt_status rc;

    if ((rc = refuse_irregular(path, err)))
        return rc;
    if (reg->probe_timeout_ms <= 0 || !isolating() || is_declaration(path))
        return add_plugin(reg, path, NULL, err);
    isolating()->probe(&path, 1, reg->probe_timeout_ms, &v);
    rc = add_plugin(reg, path, &v, err);
    kt_probe_verdict_free(&v);
    return rc;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct path_list {
    char **items;
    size_t count;
} path_list;

static void push_path(kt_registry *reg, path_list *l, const char *path)
{
    char **grown = realloc(l->items, (l->count + 1) * sizeof *grown);
    char *copy = strdup(path);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            l->items = grown;
        add_failure(reg, "out of memory listing plugins");
        return;
    }
    l->items = grown;
    l->items[l->count++] = copy;
}

static void free_paths(path_list *l)
{
    for (size_t i = 0; i < l->count; ++i)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

/* Appends every *.so of dir, in name order. */
static void list_dir(kt_registry *reg, path_list *l, const char *dir,
                     int required)
{
    DIR *d = opendir(dir);
    struct dirent *entry;
    path_list names = {NULL, 0};

    if (!d) {
        if (required) {
            size_t n = strlen(dir) + 64;
            char *line = malloc(n);
            if (line) {
                snprintf(line, n, "%s: cannot open plugin folder", dir);
                add_failure(reg, line);
                free(line);
            }
        }
        return;
    }
    while ((entry = readdir(d)))
        if (has_so_suffix(entry->d_name))
            push_path(reg, &names, entry->d_name);
    closedir(d);
    if (names.count)
        qsort(names.items, names.count, sizeof *names.items, compare_names);
    for (size_t i = 0; i < names.count; ++i) {
        size_t n = strlen(dir) + strlen(names.items[i]) + 2;
        char *path = malloc(n);
        if (!path)
            continue;
        snprintf(path, n, "%s/%s", dir, names.items[i]);
        push_path(reg, l, path);
        free(path);
    }
    free_paths(&names);
}

void kt_registry_load_dir(kt_registry *reg, const char *dir, int required)
{
    path_list l = {NULL, 0};
    list_dir(reg, &l, dir, required);
    drop_irregular(reg, l.items, &l.count);
    load_paths(reg, l.items, l.count);
    free_paths(&l);
}

static void list_path_entry(kt_registry *reg, path_list *l, const char *entry)
{
    struct stat st;

    if (stat(entry, &st) != 0) {
        size_t n = strlen(entry) + 64;
        char *line = malloc(n);
        if (line) {
            snprintf(line, n,
                     "%s: in KTUNE_PLUGIN_PATH, but no such file or folder",
                     entry);
            add_failure(reg, line);
            free(line);
        }
        return;
    }
    if (S_ISDIR(st.st_mode))
        list_dir(reg, l, entry, 1);
    else
        push_path(reg, l, entry);
}

void kt_registry_load_default(kt_registry *reg, const char *builtin_dir,
                              const char *const *files, size_t num_files)
{
    const char *env = reg->settings.ktune_plugin_path;
    path_list l = {NULL, 0};

    if (builtin_dir) {
        free(reg->builtin_dir);
        reg->builtin_dir = strdup(builtin_dir); /* NULL: no replacing */
        list_dir(reg, &l, builtin_dir, 1);
    }
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok;
             tok = strtok_r(NULL, ":", &save))
            list_path_entry(reg, &l, tok);
        free(copy);
    }
    for (size_t i = 0; i < num_files; ++i) {
        /* A bare name the user typed is the file here when it exists,
         * recorded by its full path (results say which file ran). */
        char *real = NULL;
        if (!strchr(files[i], '/') && access(files[i], F_OK) == 0)
            real = realpath(files[i], NULL);
        push_path(reg, &l, real ? real : files[i]);
        free(real);
    }
    drop_irregular(reg, l.items, &l.count);
    /* All probed together: n hanging plugins cost one time limit, not n. */
    load_paths(reg, l.items, l.count);
    free_paths(&l);
}

/* Index of op in plugin's descriptor: op is one of plugin's operators
 * (its caller holds the two together, kt_registry_resolve). */
static uint32_t index_of(const kt_loaded_plugin *plugin, const kt_operator *op)
{
    assert(op >= plugin->desc.operators &&
           op < plugin->desc.operators + plugin->desc.num_operators);
    return (uint32_t)(op - plugin->desc.operators);
}

int kt_call_require(const kt_loaded_plugin *plugin, const kt_operator *op,
                    uint32_t variant, kt_expr *const **parts, size_t *n)
{
    const kt_variant_require *r;

    if (!plugin || !plugin->require ||
        !(r = plugin->require[index_of(plugin, op)]) ||
        variant >= op->num_variants)
        return 0;
    *parts = r[variant].parts;
    *n = r[variant].n;
    return 1;
}

/* problem as op's callbacks see it: the host's copy with op's data (ABI
 * 1.3), whatever the caller filled in. */
static const kt_problem *problem_of(const kt_operator *op,
                                    const kt_problem *problem, kt_problem *copy)
{
    size_t n = problem->struct_size < sizeof *copy ? problem->struct_size
                                                   : sizeof *copy;
    memset(copy, 0, sizeof *copy);
    memcpy(copy, problem, n);
    copy->struct_size = sizeof *copy;
    copy->data = op->data;
    return copy;
}

/* cfg as variant v's callbacks see it: with v's data (ABI 1.3). */
static const kt_config *config_of(const kt_variant *v, const kt_config *cfg,
                                  kt_config *copy)
{
    size_t n =
        cfg->struct_size < sizeof *copy ? cfg->struct_size : sizeof *copy;
    memset(copy, 0, sizeof *copy);
    memcpy(copy, cfg, n);
    copy->struct_size = sizeof *copy;
    copy->data = v->data;
    return copy;
}

/* Why the descriptor callback that ran last on this thread failed, as
 * kt_call_fail said. Mutable and per thread: set by the callback, taken
 * by the kt_call_* that called it (on any thread). */
static _Thread_local struct {
    int set;
    kt_err err;
} t_failure;

void kt_call_fail(const kt_err *err)
{
    t_failure.set = 1;
    t_failure.err = *err;
}

/* The status kt_call_fail recorded for the callback just called, with err
 * (may be NULL) set to its message prefixed with who (the operator or
 * variant), and the record cleared; KT_S_OK when it did not fail. */
static kt_status call_failed(kt_err *err, const char *who, const char *id)
{
    kt_status st;

    if (!t_failure.set)
        return KT_S_OK;
    t_failure.set = 0;
    st = t_failure.err.status ? t_failure.err.status : KT_S_PLUGIN;
    if (err) {
        *err = t_failure.err;
        err->status = st;
        kt_err_prefix(err, "%s '%s': ", who, id);
    }
    return st;
}

kt_status kt_call_work(const kt_loaded_plugin *plugin, const kt_operator *op,
                       const kt_problem *problem, kt_work *out, int *rc,
                       kt_err *err)
{
    kt_problem p;

    (void)plugin;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    *rc = op->work(problem_of(op, problem, &p), out);
    return call_failed(err, "operator", op->id);
}

kt_status kt_call_shape(const kt_loaded_plugin *plugin, const kt_operator *op,
                        uint32_t variant, const kt_problem *problem,
                        const kt_config *cfg, int *check_rc, char *why,
                        size_t why_size, int *shape_rc, kt_shape *shape,
                        kt_err *err)
{
    const kt_variant *v = &op->variants[variant];
    kt_problem p;
    kt_config c;
    kt_status st;

    (void)plugin;
    if (check_rc)
        *check_rc = KT_OK;
    *shape_rc = KT_OK;
    if (why_size)
        why[0] = '\0';
    problem = problem_of(op, problem, &p);
    cfg = config_of(v, cfg, &c);
    if (v->check && check_rc) {
        *check_rc = v->check(problem, cfg, why, why_size);
        if ((st = call_failed(err, "variant", v->id)))
            return st;
        if (why_size)
            why[why_size - 1] = '\0';
        if (*check_rc != KT_OK)
            return KT_S_OK;
    }
    *shape_rc = v->shape(problem, cfg, shape);
    return call_failed(err, "variant", v->id);
}

int kt_call_setup(const kt_loaded_plugin *plugin, const kt_operator *op,
                  const kt_host *host, const kt_problem *problem, void **state)
{
    kt_problem p;

    (void)plugin;
    return op->setup(host, problem_of(op, problem, &p), state);
}

int kt_call_work_of(const kt_loaded_plugin *plugin, const kt_operator *op,
                    uint32_t variant, const kt_problem *problem,
                    const kt_config *cfg, kt_work *out)
{
    const kt_variant *v = &op->variants[variant];
    kt_problem p;
    kt_config c;

    (void)plugin;
    if (!v->work)
        return 0;
    return v->work(problem_of(op, problem, &p), config_of(v, cfg, &c), out) ==
           KT_OK;
}

void kt_call_shape_prefetch(const kt_loaded_plugin *plugin,
                            const kt_operator *op, const kt_problem *problem,
                            const kt_point *pts, size_t n)
{
    if (plugin && plugin->prefetch)
        plugin->prefetch(plugin->kind_owner, index_of(plugin, op), problem, pts,
                         n);
}

kt_status kt_registry_resolve(const kt_registry *reg, const char *spec,
                              const kt_loaded_plugin **plugin,
                              const kt_operator **op, kt_err *err)
{
    char name[256], hint[512];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    const kt_loaded_plugin *lp;
    const char **names;

    if (len == 0 || len >= sizeof name)
        return kt_err_set(err, KT_S_INPUT,
                          "expected PLUGIN:OPERATOR, found "
                          "'%s'",
                          spec);
    memcpy(name, spec, len);
    name[len] = '\0';
    lp = kt_registry_find(reg, name);
    if (!lp) {
        names = calloc(reg->count + 1, sizeof *names);
        for (size_t i = 0; names && i < reg->count; ++i)
            names[i] = reg->plugins[i]->desc.name;
        kt_suggest(name, names, names ? reg->count : 0, hint, sizeof hint);
        free(names);
        return kt_err_set(err, KT_S_INPUT, "unknown plugin '%s'%s", name, hint);
    }
    if (!colon) {
        if (lp->desc.num_operators != 1)
            return kt_err_set(err, KT_S_INPUT,
                              "plugin '%s' has %u operators: "
                              "name one as %s:OPERATOR",
                              name, lp->desc.num_operators, name);
        *plugin = lp;
        *op = &lp->desc.operators[0];
        return KT_S_OK;
    }
    for (uint32_t i = 0; i < lp->desc.num_operators; ++i) {
        if (strcmp(lp->desc.operators[i].id, colon + 1) == 0) {
            *plugin = lp;
            *op = &lp->desc.operators[i];
            return KT_S_OK;
        }
    }
    names = calloc(lp->desc.num_operators + 1, sizeof *names);
    for (uint32_t i = 0; names && i < lp->desc.num_operators; ++i)
        names[i] = lp->desc.operators[i].id;
    kt_suggest(colon + 1, names, names ? lp->desc.num_operators : 0, hint,
               sizeof hint);
    free(names);
    return kt_err_set(err, KT_S_INPUT, "plugin '%s' has no operator '%s'%s",
                      name, colon + 1, hint);
}

kt_status kt_operator_find_variant(const kt_operator *op, const char *id,
                                   size_t *index, kt_err *err)
{
    const char *names[64];
    size_t n = op->num_variants < 64 ? op->num_variants : 64;
    char hint[512];

    for (uint32_t i = 0; i < op->num_variants; ++i) {
        if (strcmp(op->variants[i].id, id) == 0) {
            *index = i;
            return KT_S_OK;
        }
    }
    for (size_t i = 0; i < n; ++i)
        names[i] = op->variants[i].id;
    kt_suggest(id, names, n, hint, sizeof hint);
    return kt_err_set(err, KT_S_INPUT, "operator '%s' has no variant '%s'%s",
                      op->id, id, hint);
}

kt_status kt_operator_find_size(const kt_operator *op, const char *name,
                                size_t *index, kt_err *err)
{
    const char *names[KT_MAX_SIZES];
    char hint[256];

    for (uint32_t i = 0; i < op->num_sizes; ++i) {
        names[i] = op->sizes[i].name;
        if (strcmp(op->sizes[i].name, name) == 0) {
            *index = i;
            return KT_S_OK;
        }
    }
    kt_suggest(name, names, op->num_sizes, hint, sizeof hint);
    return kt_err_set(err, KT_S_INPUT, "operator '%s' has no size '%s'%s",
                      op->id, name, hint);
}

long kt_variant_find_param(const kt_variant *variant, const char *name)
{
    for (uint32_t i = 0; i < variant->num_params; ++i)
        if (strcmp(variant->params[i].name, name) == 0)
            return (long)i;
    return -1;
}

kt_status kt_plugin_check_arch(const char *name, const char *archs, int major,
                               int minor, kt_err *err)
{
    int device = major * 100 + minor * 10, oldest = 0;
    const char *p = archs;

    if (!archs || !archs[0])
        return KT_S_OK;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10);
        if (end == p)
            return KT_S_OK; /* not a list of numbers: nothing to judge */
        if (a > 0 && (!oldest || a < oldest))
            oldest = (int)a;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return KT_S_OK;
    }
    if (!oldest || oldest <= device)
        return KT_S_OK;
    return kt_err_set(err, KT_S_PLUGIN,
                      "%s: no kernel image for sm_%d%d (this device): built "
                      "for %s (__CUDA_ARCH_LIST__); rebuild with "
                      "CMAKE_CUDA_ARCHITECTURES=%d%d",
                      name, major, minor, archs, major, minor);
}
