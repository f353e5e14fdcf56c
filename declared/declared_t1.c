// SPDX-License-Identifier: Apache-2.0
#include "declared/declared_t1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/envpath.h"
#include "core/msg.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Parameter name of v: one imported from the file already is compared
 * exactly (the file's tile and TILE are two parameters, as in Python); a
 * declared param.NAME as iniparser compares keys (it lowers them:
 * param.MWG is read as "mwg"); -1 when there is none. */
static long find_param(const kt_decl_variant *v, const char *name)
{
    for (size_t i = 0; i < KT_MAX_PARAMS && v->params[i].struct_size; ++i) {
        int imported = (int)(v->imported_mask >> i & 1);
        if (imported ? strcmp(v->param_names[i], name) == 0
                     : strcasecmp(v->param_names[i], name) == 0)
            return (long)i;
    }
    return -1;
}

/* Parameter name of v as an INI key names it (lowered): -1 when none,
 * -2 when two parameters differ from it only in case (tile, TILE). */
static long find_ini_param(const kt_decl_variant *v, const char *name)
{
    long found = -1;
    for (size_t i = 0; i < KT_MAX_PARAMS && v->params[i].struct_size; ++i)
        if (strcasecmp(v->param_names[i], name) == 0) {
            if (found >= 0)
                return -2;
            found = (long)i;
        }
    return found;
}

/* The file's default when it is one of the values, else its first value
 * (with a warning when the file named another). */
static int64_t t1_default(const char *decl_path, const kt_decl_variant *v,
                          const kt_t1_param *tp)
{
    for (size_t k = 0; tp->has_default && k < tp->num_values; ++k)
        if (tp->values[k] == tp->default_value)
            return tp->default_value;
    if (tp->has_default)
        kt_msg("warning: %s: [%s] space: %s's Default %lld is not one of "
               "its Values; its default is %lld\n",
               decl_path, v->section, tp->name, (long long)tp->default_value,
               (long long)tp->values[0]);
    return tp->values[0];
}

/* The T1 parameter tp as one of v's; a param.NAME of the same name keeps
 * its declared values and takes the file's spelling of the name, which
 * the Conditions use. */
static kt_status add_t1_param(const char *decl_path, kt_decl_variant *v,
                              const kt_t1_param *tp, kt_err *err)
{
    long i = find_param(v, tp->name);
    kt_param_desc *p;
    kt_err perr;

    if (i < 0)
        for (i = 0; i < KT_MAX_PARAMS && v->params[i].struct_size; ++i)
            ;
    if (i == KT_MAX_PARAMS)
        return kt_err_set(err, KT_S_INPUT, "more than %d parameters",
                          KT_MAX_PARAMS);
    if (strlen(tp->name) >= sizeof v->param_names[i])
        return kt_err_set(err, KT_S_INPUT, "'%.40s...': a name longer than %zu",
                          tp->name, sizeof v->param_names[i] - 1);
    memcpy(v->param_names[i], tp->name, strlen(tp->name) + 1);
    v->imported_mask |= UINT64_C(1) << i;
    if (v->params[i].struct_size)
        return KT_S_OK;
    if (!(v->values[i] = malloc(tp->num_values * sizeof *v->values[i])))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    memcpy(v->values[i], tp->values, tp->num_values * sizeof *v->values[i]);
    /* ktune walks values in ascending order; the count is the same. */
    qsort(v->values[i], tp->num_values, sizeof *v->values[i], cmp_i64);
    p = &v->params[i];
    *p = (kt_param_desc){.struct_size = sizeof *p,
                         .kind = KT_PARAM_LIST,
                         .name = v->param_names[i],
                         .help = "T1 parameter",
                         .default_value = t1_default(decl_path, v, tp),
                         .values = v->values[i],
                         .count = (uint32_t)tp->num_values};
    if (kt_param_validate(p, &perr))
        return kt_err_set(err, KT_S_INPUT, "%s", perr.msg);
    return KT_S_OK;
}

kt_status kt_decl_t1_import(const char *decl_path,
                            const char *const *size_names, size_t num_sizes,
                            kt_decl_variant *v, const char *text,
                            kt_t1_space **t1, kt_err *err)
{
    const char *slash = strrchr(decl_path, '/');
    char expanded[4096], path[8300];
    kt_status rc = KT_S_OK;

    *t1 = NULL;
    if (!*text)
        return kt_err_set(err, KT_S_INPUT,
                          "missing; expected a T1 space file (JSON)");
    if ((rc = kt_envpath_expand(text, expanded, sizeof expanded, err)))
        return rc;
    if (expanded[0] == '/' || !slash)
        snprintf(path, sizeof path, "%s", expanded);
    else
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - decl_path),
                 decl_path, expanded);
    if ((rc = kt_t1_load(path, t1, err)))
        return rc;
    for (size_t i = 0; i < num_sizes; ++i)
        if (kt_t1_find(*t1, size_names[i]) >= 0)
            return kt_err_set(err, KT_S_INPUT,
                              "'%s' is a size of [operator] and a parameter "
                              "of %s",
                              size_names[i], path);
    for (size_t i = 0; i < (*t1)->num_params && !rc; ++i)
        rc = add_t1_param(decl_path, v, &(*t1)->params[i], err);
    return rc;
}

kt_status kt_decl_t1_defines(kt_decl_variant *v, const kt_t1_space *t1,
                             kt_err *err)
{
    size_t declared = v->num_defines;
    kt_status rc;

    if (!t1)
        return KT_S_OK;
    for (size_t i = 0; i < KT_MAX_PARAMS; ++i) {
        int taken = 0;
        if (!(v->imported_mask >> i & 1))
            continue;
        /* A macro the variant's own defines set (kernel_tuner=1 beside
         * the file's parameters) keeps the declared value. */
        for (size_t k = 0; k < declared && !taken; ++k)
            taken = strcmp(v->define_names[k], v->param_names[i]) == 0;
        if (taken)
            continue;
        if (v->num_defines == KT_DECL_MAX_DEFINES)
            return kt_err_set(err, KT_S_INPUT, "more than %d defines",
                              KT_DECL_MAX_DEFINES);
        snprintf(v->define_names[v->num_defines],
                 sizeof v->define_names[v->num_defines], "%s",
                 v->param_names[i]);
        if ((rc = kt_expr_parse(v->param_names[i], v->names, v->num_names,
                                &v->defines[v->num_defines], err)))
            return rc;
        ++v->num_defines;
    }
    return KT_S_OK;
}

kt_status kt_decl_t1_conditions(kt_decl_variant *v, const kt_t1_space *t1,
                                kt_err *err)
{
    kt_status rc;
    kt_err e;

    if (!t1)
        return KT_S_OK;
    if (!(v->parts = calloc(t1->num_conditions + 1, sizeof *v->parts)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (v->require)
        v->parts[v->num_parts++] = v->require;
    v->require = NULL;
    for (size_t k = 0; k < t1->num_conditions; ++k) {
        if ((rc = kt_expr_parse_as(t1->conditions[k].text, KT_EXPR_PYTHON,
                                   v->names, v->num_names,
                                   &v->parts[v->num_parts], &e)))
            return kt_err_set(err, rc, "%s: Conditions[%zu]: %s", t1->path, k,
                              e.msg);
        ++v->num_parts;
    }
    for (size_t k = 0; k < v->num_parts; ++k)
        if ((rc = kt_expr_conjoin(&v->require, v->parts[k], err)))
            return rc;
    return KT_S_OK;
}

kt_status kt_decl_defaults(kt_decl_variant *v, dictionary *ini,
                           const char **bad_key, kt_err *err)
{
    int count = iniparser_getsecnkeys(ini, v->section);
    const char **keys = calloc((size_t)(count > 0 ? count : 1), sizeof *keys);
    kt_status rc = KT_S_OK;

    if (!keys)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    iniparser_getseckeys(ini, v->section, keys);
    for (int i = 0; i < count && !rc; ++i) {
        const char *key = strchr(keys[i], ':') + 1;
        long p;
        int64_t x;
        if (strncmp(key, "default.", 8) != 0)
            continue;
        *bad_key = key;
        if ((p = find_ini_param(v, key + 8)) == -2)
            rc = kt_err_set(err, KT_S_INPUT,
                            "'%s' names two parameters that differ only in "
                            "case, which INI keys cannot tell apart; set the "
                            "default in the T1 file",
                            key + 8);
        else if (p < 0)
            rc = kt_err_set(err, KT_S_INPUT,
                            "'%s' is not a parameter of this variant", key + 8);
        else if (!(rc = kt_param_parse(&v->params[p],
                                       iniparser_getstring(ini, keys[i], ""),
                                       &x, err)))
            v->params[p].default_value = x;
    }
    free(keys);
    return rc;
}

void kt_declared_require_parts(const kt_decl_variant *v, kt_expr *const **parts,
                               size_t *n)
{
    if (v->num_parts) {
        *parts = v->parts;
        *n = v->num_parts;
    } else {
        *parts = &v->require;
        *n = v->require ? 1 : 0;
    }
}
