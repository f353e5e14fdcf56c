// SPDX-License-Identifier: Apache-2.0
#include "core/desc_json.h"

#include <string.h>

/* ------------------------------------------------------------ to JSON */

/* Texts were bounded by the loader; jansson refuses what is not UTF-8. */
static int put_text(json_t *obj, const char *key, const char *text)
{
    json_t *v = text ? json_string(text) : json_null();
    return v ? json_object_set_new(obj, key, v) : -1;
}

static json_t *param_json(const kt_param_desc *p)
{
    json_t *j =
        json_pack("{s:i,s:I,s:I,s:I,s:I}", "kind", (int)p->kind, "default",
                  (json_int_t)p->default_value, "min", (json_int_t)p->min,
                  "max", (json_int_t)p->max, "step", (json_int_t)p->step);
    json_t *values = json_array(), *labels = json_array();

    if (!j || put_text(j, "name", p->name) || put_text(j, "help", p->help))
        goto fail;
    for (uint32_t i = 0; p->kind == KT_PARAM_LIST && i < p->count; ++i)
        json_array_append_new(values, json_integer(p->values[i]));
    for (uint32_t i = 0; p->kind == KT_PARAM_ENUM && i < p->count; ++i) {
        json_t *l = json_string(p->labels[i]);
        if (!l)
            goto fail;
        json_array_append_new(labels, l);
    }
    json_object_set_new(j, "values", values);
    json_object_set_new(j, "labels", labels);
    return j;
fail:
    json_decref(values);
    json_decref(labels);
    json_decref(j);
    return NULL;
}

static json_t *variant_json(const kt_variant *v)
{
    /* flags carry KT_VARIANT_REFERENCE: without them the descriptor a probe
     * rebuilds has no reference, and no answer is held against one. */
    json_t *j = json_pack("{s:b,s:I}", "has_check", v->check != NULL, "flags",
                          (json_int_t)v->flags);
    json_t *params = json_array();

    if (!j || put_text(j, "id", v->id) || put_text(j, "summary", v->summary))
        goto fail;
    for (uint32_t i = 0; i < v->num_params; ++i) {
        json_t *p = param_json(&v->params[i]);
        if (!p)
            goto fail;
        json_array_append_new(params, p);
    }
    json_object_set_new(j, "params", params);
    return j;
fail:
    json_decref(params);
    json_decref(j);
    return NULL;
}

static json_t *operator_json(const kt_operator *op)
{
    json_t *j = json_pack("{s:I,s:b}", "flags", (json_int_t)op->flags,
                          "has_reset", op->reset != NULL);
    json_t *sizes = json_array(), *variants = json_array();

    if (!j || put_text(j, "id", op->id) || put_text(j, "summary", op->summary))
        goto fail;
    for (uint32_t i = 0; i < op->num_sizes; ++i) {
        const kt_size_desc *s = &op->sizes[i];
        json_t *sj =
            json_pack("{s:I,s:I,s:I}", "default", (json_int_t)s->default_value,
                      "min", (json_int_t)s->min, "max", (json_int_t)s->max);
        if (!sj || put_text(sj, "name", s->name) ||
            put_text(sj, "help", s->help)) {
            json_decref(sj);
            goto fail;
        }
        json_array_append_new(sizes, sj);
    }
    for (uint32_t i = 0; i < op->num_variants; ++i) {
        json_t *v = variant_json(&op->variants[i]);
        if (!v)
            goto fail;
        json_array_append_new(variants, v);
    }
    json_object_set_new(j, "sizes", sizes);
    json_object_set_new(j, "variants", variants);
    return j;
fail:
    json_decref(sizes);
    json_decref(variants);
    json_decref(j);
    return NULL;
}

json_t *kt_desc_to_json(const kt_plugin *d, kt_err *err)
{
    json_t *j = json_pack("{s:i,s:i,s:i}", "abi_minor", (int)d->abi_minor,
                          "cuda_runtime_version", (int)d->cuda_runtime_version,
                          "struct_size", (int)d->struct_size);
    json_t *ops = json_array();

    if (!j || put_text(j, "name", d->name) ||
        put_text(j, "version", d->version) ||
        put_text(j, "summary", d->summary) ||
        put_text(j, "compiler", d->compiler) ||
        put_text(j, "cuda_archs", d->cuda_archs) ||
        put_text(j, "build_date", d->build_date))
        goto fail;
    for (uint32_t i = 0; i < d->num_operators; ++i) {
        json_t *op = operator_json(&d->operators[i]);
        if (!op)
            goto fail;
        json_array_append_new(ops, op);
    }
    json_object_set_new(j, "operators", ops);
    return j;
fail:
    json_decref(ops);
    json_decref(j);
    kt_err_set(err, KT_S_PLUGIN,
               "a text of the descriptor is not UTF-8 (names, summaries, "
               "help and labels must be)");
    return NULL;
}

/* ---------------------------------------------------------- from JSON */

/* Stubs for a descriptor whose code lives in another process: calling one
 * by mistake fails the call instead of jumping into an unmapped plugin. */
static int stub_shape(const kt_problem *p, const kt_config *c, kt_shape *o)
{
    (void)p, (void)c, (void)o;
    return KT_FAIL;
}
static int stub_check(const kt_problem *p, const kt_config *c, char *why,
                      size_t n)
{
    (void)p, (void)c;
    if (n)
        snprintf(why, n, "the plugin runs in another process");
    return KT_FAIL;
}
static int stub_launch(void *s, const kt_config *c, void *st)
{
    (void)s, (void)c, (void)st;
    return KT_FAIL;
}
static int stub_work(const kt_problem *p, kt_work *o)
{
    (void)p, (void)o;
    return KT_FAIL;
}
static int stub_setup(const kt_host *h, const kt_problem *p, void **s)
{
    (void)h, (void)p, (void)s;
    return KT_FAIL;
}
static int stub_reset(void *s)
{
    (void)s;
    return KT_FAIL;
}
static int stub_verify(void *s, const kt_config *c, const kt_variant *v)
{
    (void)s, (void)c, (void)v;
    return KT_FAIL;
}
static void stub_teardown(void *s)
{
    (void)s;
}

typedef struct builder {
    void *(*alloc)(void *, size_t);
    void *ctx;
    kt_err *err;
    int failed;
} builder;

static void *block(builder *b, size_t bytes)
{
    void *p = b->failed ? NULL : b->alloc(b->ctx, bytes);
    if (!p && !b->failed) {
        b->failed = 1;
        kt_err_set(b->err, KT_S_NOMEM, "out of memory");
    }
    return p;
}

/* A copy of a JSON text (NULL for null or absent). */
static const char *text(builder *b, const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    char *out;
    if (!json_is_string(v))
        return NULL;
    out = block(b, json_string_length(v) + 1);
    if (out)
        memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return out;
}

static int64_t integer(const json_t *obj, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(obj, key));
}

/* The array at key with at most max items, or NULL (bad or too long). */
static const json_t *array(builder *b, const json_t *obj, const char *key,
                           size_t max, const char *what)
{
    const json_t *a = json_object_get(obj, key);
    if (!json_is_array(a) || json_array_size(a) > max) {
        if (!b->failed)
            kt_err_set(b->err, KT_S_PLUGIN,
                       "probe: %s.%s is not an array of at most %zu", what, key,
                       max);
        b->failed = 1;
        return NULL;
    }
    return a;
}

static void build_param(builder *b, const json_t *j, kt_param_desc *p)
{
    const json_t *values = array(b, j, "values", 1u << 20, "parameter");
    const json_t *labels = array(b, j, "labels", 1u << 20, "parameter");

    p->struct_size = sizeof *p;
    p->kind = (uint32_t)integer(j, "kind");
    p->name = text(b, j, "name");
    p->help = text(b, j, "help");
    p->default_value = integer(j, "default");
    p->min = integer(j, "min");
    p->max = integer(j, "max");
    p->step = integer(j, "step");
    if (!values || !labels)
        return;
    if (json_array_size(values)) {
        int64_t *v = block(b, json_array_size(values) * sizeof *v);
        for (size_t i = 0; v && i < json_array_size(values); ++i)
            v[i] = (int64_t)json_integer_value(json_array_get(values, i));
        p->values = v;
        p->count = (uint32_t)json_array_size(values);
    }
    if (json_array_size(labels)) {
        const char **l = block(b, json_array_size(labels) * sizeof *l);
        for (size_t i = 0; l && i < json_array_size(labels); ++i) {
            const json_t *s = json_array_get(labels, i);
            char *copy =
                json_is_string(s) ? block(b, json_string_length(s) + 1) : NULL;
            if (copy)
                memcpy(copy, json_string_value(s), json_string_length(s) + 1);
            l[i] = copy;
        }
        p->labels = (const char *const *)l;
        p->count = (uint32_t)json_array_size(labels);
    }
}

static void build_variant(builder *b, const json_t *j, kt_variant *v)
{
    const json_t *params = array(b, j, "params", 64, "variant");
    kt_param_desc *ps;

    v->struct_size = sizeof *v;
    v->id = text(b, j, "id");
    v->summary = text(b, j, "summary");
    v->shape = stub_shape;
    v->launch = stub_launch;
    v->check =
        json_is_true(json_object_get(j, "has_check")) ? stub_check : NULL;
    v->flags = (uint32_t)integer(j, "flags") & KT_VARIANT_REFERENCE;
    if (!params || !json_array_size(params))
        return;
    ps = block(b, json_array_size(params) * sizeof *ps);
    for (size_t i = 0; ps && i < json_array_size(params); ++i)
        build_param(b, json_array_get(params, i), &ps[i]);
    v->params = ps;
    v->num_params = (uint32_t)json_array_size(params);
}

static void build_operator(builder *b, const json_t *j, kt_operator *op)
{
    const json_t *sizes = array(b, j, "sizes", 64, "operator");
    const json_t *variants = array(b, j, "variants", 4096, "operator");
    kt_size_desc *ss = NULL;
    kt_variant *vs = NULL;

    op->struct_size = sizeof *op;
    op->flags = (uint32_t)integer(j, "flags");
    op->id = text(b, j, "id");
    op->summary = text(b, j, "summary");
    op->work = stub_work;
    op->setup = stub_setup;
    op->verify = stub_verify;
    op->teardown = stub_teardown;
    op->reset =
        json_is_true(json_object_get(j, "has_reset")) ? stub_reset : NULL;
    if (!sizes || !variants)
        return;
    if (json_array_size(sizes))
        ss = block(b, json_array_size(sizes) * sizeof *ss);
    for (size_t i = 0; ss && i < json_array_size(sizes); ++i) {
        const json_t *s = json_array_get(sizes, i);
        ss[i].struct_size = sizeof ss[i];
        ss[i].name = text(b, s, "name");
        ss[i].help = text(b, s, "help");
        ss[i].default_value = integer(s, "default");
        ss[i].min = integer(s, "min");
        ss[i].max = integer(s, "max");
    }
    if (json_array_size(variants))
        vs = block(b, json_array_size(variants) * sizeof *vs);
    for (size_t i = 0; vs && i < json_array_size(variants); ++i)
        build_variant(b, json_array_get(variants, i), &vs[i]);
    op->sizes = ss;
    op->num_sizes = (uint32_t)json_array_size(sizes);
    op->variants = vs;
    op->num_variants = (uint32_t)json_array_size(variants);
}

kt_status kt_desc_from_json(const json_t *j, void *(*alloc)(void *, size_t),
                            void *ctx, const kt_plugin **out, kt_err *err)
{
    builder b = {alloc, ctx, err, 0};
    kt_plugin *d;
    const json_t *ops;
    kt_operator *os = NULL;

    if (!json_is_object(j))
        return kt_err_set(err, KT_S_PLUGIN, "probe: no descriptor");
    ops = array(&b, j, "operators", 4096, "descriptor");
    d = block(&b, sizeof *d);
    if (!d || !ops)
        return err ? err->status : KT_S_PLUGIN;
    d->magic = KT_PLUGIN_MAGIC;
    d->struct_size = sizeof *d;
    d->abi_major = KT_ABI_MAJOR;
    d->abi_minor = (uint16_t)integer(j, "abi_minor");
    d->cuda_runtime_version = (int32_t)integer(j, "cuda_runtime_version");
    d->name = text(&b, j, "name");
    d->version = text(&b, j, "version");
    d->summary = text(&b, j, "summary");
    d->compiler = text(&b, j, "compiler");
    d->cuda_archs = text(&b, j, "cuda_archs");
    d->build_date = text(&b, j, "build_date");
    if (json_array_size(ops))
        os = block(&b, json_array_size(ops) * sizeof *os);
    for (size_t i = 0; os && i < json_array_size(ops); ++i)
        build_operator(&b, json_array_get(ops, i), &os[i]);
    d->operators = os;
    d->num_operators = (uint32_t)json_array_size(ops);
    if (b.failed)
        return err ? err->status : KT_S_PLUGIN;
    *out = d;
    return KT_S_OK;
}
