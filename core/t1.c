// SPDX-License-Identifier: Apache-2.0
#include "core/t1.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/param.h"
#include "core/prune.h"

/* The largest space file read. */
typedef struct t1_reader {
    kt_t1_space *s;
    kt_err *err;
} t1_reader;

static kt_status t1_bad(const t1_reader *r, const char *where, const char *fmt,
                        ...) __attribute__((format(printf, 3, 4)));

/* KT_S_INPUT: "FILE: JSON.PATH: message". */
static kt_status t1_bad(const t1_reader *r, const char *where, const char *fmt,
                        ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kt_err_set(r->err, KT_S_INPUT, "%s: %s: %s", r->s->path, where, msg);
}

/* What a JSON value is, for "found ...". */
static void describe(const json_t *v, char *out, size_t size)
{
    char *text;
    if (!v) {
        snprintf(out, size, "nothing (the key is missing)");
        return;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT: snprintf(out, size, "an object"); return;
    case JSON_ARRAY:
        snprintf(out, size, "a list of %zu", json_array_size(v));
        return;
    case JSON_STRING:
        snprintf(out, size, "the string \"%.60s\"", json_string_value(v));
        return;
    default: break;
    }
    text = json_dumps(v, JSON_ENCODE_ANY);
    snprintf(out, size, "%s", text ? text : "a value");
    free(text);
}

static kt_status expected(const t1_reader *r, const char *where,
                          const char *what, const json_t *found)
{
    char desc[100];
    describe(found, desc, sizeof desc);
    return t1_bad(r, where, "expected %s, found %s", what, desc);
}

static char *dup_or_null(const char *text, int *failed)
{
    char *copy = text ? strdup(text) : NULL;
    if (text && !copy)
        *failed = 1;
    return copy;
}

/* An optional string member: *out stays NULL when key is absent. */
static kt_status opt_string(const t1_reader *r, const json_t *obj,
                            const char *key, const char *where, char **out)
{
    const json_t *v = json_object_get(obj, key);
    char path[300];
    int failed = 0;

    if (!v || json_is_null(v))
        return KT_S_OK;
    snprintf(path, sizeof path, "%s.%s", where, key);
    if (!json_is_string(v))
        return expected(r, path, "a string", v);
    *out = dup_or_null(json_string_value(v), &failed);
    return failed ? kt_err_set(r->err, KT_S_NOMEM, "out of memory") : 0;
}

/* An integer, or a float that is a whole number (16.0). */
static int as_integer(const json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
        return 1;
    }
    if (json_is_real(v)) {
        double f = json_real_value(v);
        /* Cast only inside [-2^63, 2^63): outside (and for NaN) the
         * conversion is undefined behaviour, not a refusal. */
        if (f >= -0x1p63 && f < 0x1p63 && f == (double)(int64_t)f) {
            *out = (int64_t)f;
            return 1;
        }
    }
    return 0;
}

static kt_status json_values(const t1_reader *r, const json_t *v,
                             const char *where, kt_t1_param *p)
{
    size_t n = json_array_size(v);
    char path[300];

    if (n == 0)
        return expected(r, where, "at least one value", v);
    if (n > KT_MAX_PARAM_VALUES)
        return t1_bad(r, where, "%zu values, at most %d", n,
                      KT_MAX_PARAM_VALUES);
    if (!(p->values = calloc(n, sizeof *p->values)))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        snprintf(path, sizeof path, "%s[%zu]", where, i);
        if (!as_integer(json_array_get(v, i), &p->values[i]))
            return expected(r, path,
                            "an integer (ktune's parameters are "
                            "integers)",
                            json_array_get(v, i));
        p->num_values = i + 1;
    }
    return KT_S_OK;
}

static kt_status read_values(const t1_reader *r, const json_t *obj,
                             const char *where, kt_t1_param *p)
{
    const json_t *v = json_object_get(obj, "Values");
    char path[300];
    kt_err verr;

    snprintf(path, sizeof path, "%s.Values", where);
    if (json_is_array(v) && json_values(r, v, path, p))
        return r->err->status;
    if (json_is_string(v) &&
        kt_t1_parse_values(json_string_value(v), &p->values, &p->num_values,
                           &verr))
        return verr.status == KT_S_NOMEM
                   ? kt_err_set(r->err, KT_S_NOMEM, "out of memory")
                   : t1_bad(r, path, "%s", verr.msg);
    if (!json_is_array(v) && !json_is_string(v))
        return expected(r, path,
                        "a list of integers or a string of Python such as "
                        "\"[16, 32]\" or \"list(range(1, 9))\"",
                        v);
    for (size_t i = 0; i < p->num_values; ++i)
        for (size_t k = 0; k < i; ++k)
            if (p->values[i] == p->values[k])
                return t1_bad(r, path, "%lld is listed twice",
                              (long long)p->values[i]);
    return KT_S_OK;
}

static kt_status read_default(const t1_reader *r, const json_t *obj,
                              const char *where, kt_t1_param *p)
{
    const json_t *v = json_object_get(obj, "Default");
    char path[300];

    if (!v || json_is_null(v))
        return KT_S_OK;
    snprintf(path, sizeof path, "%s.Default", where);
    /* Some files write a one-element list: "Default": [0]. */
    if (json_is_array(v) && json_array_size(v) == 1)
        v = json_array_get(v, 0);
    if (!as_integer(v, &p->default_value))
        return expected(r, path, "an integer", v);
    p->has_default = 1;
    return KT_S_OK;
}

static int is_c_name(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return 0;
    for (; *s; ++s)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static kt_status read_param(const t1_reader *r, const json_t *obj, size_t i)
{
    kt_t1_space *s = r->s;
    kt_t1_param *p = &s->params[i];
    char where[200], path[300];
    kt_status rc;

    snprintf(where, sizeof where, "ConfigurationSpace.TuningParameters[%zu]",
             i);
    if (!json_is_object(obj))
        return expected(r, where, "an object with Name and Values", obj);
    if ((rc = opt_string(r, obj, "Name", where, &p->name)) ||
        (rc = opt_string(r, obj, "Type", where, &p->type)))
        return rc;
    snprintf(path, sizeof path, "%s.Name", where);
    if (!p->name || !is_c_name(p->name))
        return expected(r, path, "a name (letters, digits, '_')",
                        json_object_get(obj, "Name"));
    if (kt_t1_find(s, p->name) >= 0 && (size_t)kt_t1_find(s, p->name) < i)
        return t1_bad(r, path, "'%s' is declared twice", p->name);
    snprintf(path, sizeof path, "%s.Type", where);
    if (p->type && strcmp(p->type, "int") != 0 && strcmp(p->type, "uint") != 0)
        return t1_bad(r, path,
                      "expected \"int\" or \"uint\" (ktune's parameters are "
                      "integers), found \"%s\"",
                      p->type);
    if (!p->type && !(p->type = strdup("int")))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    s->names[i] = p->name;
    if ((rc = read_values(r, obj, where, p)) ||
        (rc = read_default(r, obj, where, p)))
        return rc;
    return KT_S_OK;
}

static kt_status read_params(const t1_reader *r, const json_t *cs)
{
    const json_t *list = json_object_get(cs, "TuningParameters");
    size_t n = json_array_size(list);
    kt_status rc;

    if (!json_is_array(list) || n == 0)
        return expected(r, "ConfigurationSpace.TuningParameters",
                        "a list of parameters", list);
    if (n > KT_T1_MAX_PARAMS)
        return t1_bad(r, "ConfigurationSpace.TuningParameters",
                      "%zu parameters, at most %d", n, KT_T1_MAX_PARAMS);
    if (!(r->s->params = calloc(n, sizeof *r->s->params)))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        r->s->num_params = i + 1;
        if ((rc = read_param(r, json_array_get(list, i), i)))
            return rc;
    }
    return KT_S_OK;
}

/* Parameters: the names the expression reads, each a parameter. */
static kt_status check_listed(const t1_reader *r, const json_t *obj,
                              const char *where)
{
    const json_t *list = json_object_get(obj, "Parameters");
    char path[300];

    if (!list)
        return KT_S_OK;
    snprintf(path, sizeof path, "%s.Parameters", where);
    if (!json_is_array(list))
        return expected(r, path, "a list of parameter names", list);
    for (size_t i = 0; i < json_array_size(list); ++i) {
        const json_t *name = json_array_get(list, i);
        snprintf(path, sizeof path, "%s.Parameters[%zu]", where, i);
        if (!json_is_string(name))
            return expected(r, path, "a parameter's name", name);
        if (kt_t1_find(r->s, json_string_value(name)) < 0)
            return t1_bad(r, path, "'%s' is not a parameter",
                          json_string_value(name));
    }
    return KT_S_OK;
}

static kt_status read_conditions(const t1_reader *r, const json_t *cs)
{
    kt_t1_space *s = r->s;
    const json_t *list = json_object_get(cs, "Conditions");
    size_t n = json_array_size(list);
    char where[200], path[300];
    kt_err perr;
    kt_status rc;

    if (!list || json_is_null(list))
        return KT_S_OK;
    if (!json_is_array(list))
        return expected(r, "ConfigurationSpace.Conditions",
                        "a list of conditions", list);
    if (n > KT_T1_MAX_CONDITIONS)
        return t1_bad(r, "ConfigurationSpace.Conditions",
                      "%zu conditions, more than the %zu a space may have "
                      "(the limit)",
                      n, KT_T1_MAX_CONDITIONS);
    if (n && !(s->conditions = calloc(n, sizeof *s->conditions)))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        const json_t *obj = json_array_get(list, i);
        kt_t1_condition *c = &s->conditions[i];
        snprintf(where, sizeof where, "ConfigurationSpace.Conditions[%zu]", i);
        snprintf(path, sizeof path, "%s.Expression", where);
        s->num_conditions = i + 1;
        if (!json_is_object(obj))
            return expected(r, where, "an object with an Expression", obj);
        if ((rc = opt_string(r, obj, "Expression", where, &c->text)) ||
            (rc = check_listed(r, obj, where)))
            return rc;
        if (!c->text)
            return expected(r, path, "a condition in Python syntax",
                            json_object_get(obj, "Expression"));
        if (kt_expr_parse_as(c->text, KT_EXPR_PYTHON, s->names, s->num_params,
                             &c->expr, &perr))
            return perr.status == KT_S_NOMEM
                       ? kt_err_set(r->err, KT_S_NOMEM, "out of memory")
                       : t1_bad(r, path, "%s", perr.msg);
    }
    return KT_S_OK;
}

/* LocalSize / GlobalSize: {"X": "block_size_x", "Y": "1"} (text or
 * numbers). */
static kt_status read_dims(const t1_reader *r, const json_t *ks,
                           const char *key, char **out)
{
    static const char *const axes[] = {"X", "Y", "Z"};
    const json_t *obj = json_object_get(ks, key);
    char path[200];

    if (!obj || json_is_null(obj))
        return KT_S_OK;
    snprintf(path, sizeof path, "KernelSpecification.%s", key);
    if (!json_is_object(obj))
        return expected(r, path, "an object {\"X\": ..., \"Y\": ...}", obj);
    for (int k = 0; k < 3; ++k) {
        const json_t *v = json_object_get(obj, axes[k]);
        char num[32];
        const char *text = json_string_value(v);
        int64_t x;
        if (!v)
            continue;
        if (!text && as_integer(v, &x)) {
            snprintf(num, sizeof num, "%lld", (long long)x);
            text = num;
        }
        snprintf(path, sizeof path, "KernelSpecification.%s.%s", key, axes[k]);
        if (!text)
            return expected(r, path, "an expression or an integer", v);
        if (!(out[k] = strdup(text)))
            return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    }
    return KT_S_OK;
}

/* ProblemSize: an integer or a list of them. */
static kt_status read_problem_size(const t1_reader *r, const json_t *ks)
{
    kt_t1_space *s = r->s;
    const json_t *v = json_object_get(ks, "ProblemSize");
    size_t n = json_is_array(v) ? json_array_size(v) : 1;
    int64_t x;

    if (!v || json_is_null(v))
        return KT_S_OK;
    if (!json_is_array(v) && !as_integer(v, &x))
        return expected(r, "KernelSpecification.ProblemSize",
                        "an integer or a list of integers", v);
    if (!(s->problem_size = calloc(n, sizeof *s->problem_size)))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        const json_t *item = json_is_array(v) ? json_array_get(v, i) : v;
        char path[100];
        snprintf(path, sizeof path, "KernelSpecification.ProblemSize[%zu]", i);
        if (!as_integer(item, &s->problem_size[i]))
            return expected(r, path, "an integer", item);
        s->num_problem_size = i + 1;
    }
    return KT_S_OK;
}

static kt_status read_options(const t1_reader *r, const json_t *ks)
{
    kt_t1_space *s = r->s;
    const json_t *v = json_object_get(ks, "CompilerOptions");
    size_t n = json_array_size(v);

    if (!v || json_is_null(v))
        return KT_S_OK;
    if (!json_is_array(v))
        return expected(r, "KernelSpecification.CompilerOptions",
                        "a list of strings", v);
    if (n && !(s->compiler_options = calloc(n, sizeof(char *))))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        const json_t *item = json_array_get(v, i);
        char path[100];
        snprintf(path, sizeof path, "KernelSpecification.CompilerOptions[%zu]",
                 i);
        if (!json_is_string(item))
            return expected(r, path, "a string", item);
        if (!(s->compiler_options[i] = strdup(json_string_value(item))))
            return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
        s->num_compiler_options = i + 1;
    }
    return KT_S_OK;
}

static kt_status read_arg(const t1_reader *r, const json_t *obj, size_t i)
{
    kt_t1_arg *a = &r->s->args[i];
    char where[100], path[160];
    const json_t *v;
    kt_status rc;

    snprintf(where, sizeof where, "KernelSpecification.Arguments[%zu]", i);
    a->size = -1;
    if (!json_is_object(obj))
        return expected(r, where, "an object with Name and Type", obj);
    if ((rc = opt_string(r, obj, "Name", where, &a->name)) ||
        (rc = opt_string(r, obj, "Type", where, &a->type)) ||
        (rc = opt_string(r, obj, "MemoryType", where, &a->memory_type)) ||
        (rc = opt_string(r, obj, "AccessType", where, &a->access_type)) ||
        (rc = opt_string(r, obj, "FillType", where, &a->fill_type)))
        return rc;
    if ((v = json_object_get(obj, "Size")) && !as_integer(v, &a->size) &&
        !json_is_string(v)) {
        snprintf(path, sizeof path, "%s.Size", where);
        return expected(r, path, "an integer or an expression", v);
    }
    if (json_is_string(v) &&
        (rc = opt_string(r, obj, "Size", where, &a->size_text)))
        return rc;
    if ((v = json_object_get(obj, "FillValue")) && !json_is_null(v)) {
        snprintf(path, sizeof path, "%s.FillValue", where);
        if (!json_is_number(v))
            return expected(r, path, "a number", v);
        a->fill_value = json_number_value(v);
        a->has_fill_value = 1;
    }
    if ((v = json_object_get(obj, "Output")))
        a->output = json_is_true(v) ||
                    (json_is_integer(v) && json_integer_value(v) != 0);
    return KT_S_OK;
}

static kt_status read_kernel(const t1_reader *r, const json_t *root)
{
    kt_t1_space *s = r->s;
    const json_t *ks = json_object_get(root, "KernelSpecification");
    const json_t *args;
    const char *w = "KernelSpecification";
    kt_status rc;

    if (!ks || json_is_null(ks))
        return KT_S_OK;
    if (!json_is_object(ks))
        return expected(r, w, "an object", ks);
    if ((rc = opt_string(r, ks, "KernelName", w, &s->kernel_name)) ||
        (rc = opt_string(r, ks, "KernelFile", w, &s->kernel_file)) ||
        (rc = opt_string(r, ks, "Language", w, &s->language)) ||
        (rc = opt_string(r, ks, "GlobalSizeType", w, &s->global_size_type)) ||
        (rc = read_dims(r, ks, "LocalSize", s->local_size)) ||
        (rc = read_dims(r, ks, "GlobalSize", s->global_size)) ||
        (rc = read_problem_size(r, ks)) || (rc = read_options(r, ks)))
        return rc;
    args = json_object_get(ks, "Arguments");
    if (!args || json_is_null(args))
        return KT_S_OK;
    if (!json_is_array(args))
        return expected(r, "KernelSpecification.Arguments", "a list", args);
    if (json_array_size(args) &&
        !(s->args = calloc(json_array_size(args), sizeof *s->args)))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < json_array_size(args); ++i) {
        s->num_args = i + 1;
        if ((rc = read_arg(r, json_array_get(args, i), i)))
            return rc;
    }
    return KT_S_OK;
}

static kt_status read_root(const t1_reader *r, const char *text, size_t len)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    const json_t *cs;
    kt_status rc;

    if (!root)
        return kt_err_set(r->err, KT_S_INPUT, "%s:%d:%d: not JSON: %s",
                          r->s->path, jerr.line, jerr.column, jerr.text);
    cs = json_object_get(root, "ConfigurationSpace");
    if (!json_is_object(root))
        rc = kt_err_set(r->err, KT_S_INPUT,
                        "%s: expected a JSON object with ConfigurationSpace",
                        r->s->path);
    else if (!json_is_object(cs))
        rc = expected(r, "ConfigurationSpace",
                      "an object with TuningParameters", cs);
    else if (!(rc = read_params(r, cs)) && !(rc = read_conditions(r, cs)))
        rc = read_kernel(r, root);
    json_decref(root);
    return rc;
}

kt_status kt_t1_load(const char *path, kt_t1_space **out, kt_err *err)
{
    t1_reader r = {calloc(1, sizeof(kt_t1_space)), err};
    char *text = NULL;
    size_t len = 0;
    kt_status rc;

    *out = NULL;
    if (!r.s || !(r.s->path = strdup(path))) {
        free(r.s);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    if ((rc = kt_file_read(path, "T1 space file", KT_T1_MAX_BYTES, &text, &len,
                           err)) ||
        (rc = read_root(&r, text, len)))
        goto done;
    *out = r.s;
    r.s = NULL;
done:
    free(text);
    kt_t1_free(r.s);
    return rc;
}

void kt_t1_free(kt_t1_space *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->num_params; ++i) {
        free(s->params[i].name);
        free(s->params[i].type);
        free(s->params[i].values);
    }
    free(s->params);
    for (size_t i = 0; i < s->num_conditions; ++i) {
        free(s->conditions[i].text);
        kt_expr_free(s->conditions[i].expr);
    }
    free(s->conditions);
    for (size_t i = 0; i < s->num_args; ++i) {
        kt_t1_arg *a = &s->args[i];
        free(a->name);
        free(a->type);
        free(a->memory_type);
        free(a->access_type);
        free(a->fill_type);
        free(a->size_text);
    }
    free(s->args);
    for (size_t i = 0; i < s->num_compiler_options; ++i)
        free(s->compiler_options[i]);
    free(s->compiler_options);
    for (int k = 0; k < 3; ++k) {
        free(s->local_size[k]);
        free(s->global_size[k]);
    }
    free(s->problem_size);
    free(s->kernel_name);
    free(s->kernel_file);
    free(s->language);
    free(s->global_size_type);
    free(s->path);
    free(s);
}

long kt_t1_find(const kt_t1_space *s, const char *name)
{
    for (size_t i = 0; i < s->num_params; ++i)
        if (s->params[i].name && strcmp(s->params[i].name, name) == 0)
            return (long)i;
    return -1;
}

kt_status kt_t1_count(const kt_t1_space *s, uint64_t *count, kt_err *err)
{
    kt_prune_dim dims[KT_T1_MAX_PARAMS];
    kt_expr *conds[1];
    kt_expr **list =
        s->num_conditions ? calloc(s->num_conditions, sizeof *list) : conds;
    kt_prune_spec spec = {0};
    kt_status rc;

    if (!list)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < s->num_params; ++i)
        dims[i] = (kt_prune_dim){s->params[i].values, s->params[i].num_values};
    for (size_t i = 0; i < s->num_conditions; ++i)
        list[i] = s->conditions[i].expr;
    spec.dims = dims;
    spec.num_dims = s->num_params;
    spec.constraints = list;
    spec.num_constraints = s->num_conditions;
    rc = kt_prune_count(&spec, count, err);
    if (list != conds)
        free(list);
    return rc;
}
