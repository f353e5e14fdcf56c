// SPDX-License-Identifier: Apache-2.0
#include "core/childenv.h"

#include <stdlib.h>
#include <string.h>

/* The name part of "NAME=VALUE" (or of "NAME" alone) is len bytes. */
static size_t name_length(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

static int same_name(const char *a, const char *b)
{
    size_t n = name_length(a);
    return n == name_length(b) && strncmp(a, b, n) == 0;
}

kt_status kt_childenv_build(const char *const *vars, char ***out, kt_err *err)
{
    extern char **environ;
    size_t n = 0, k = 0, nv = 0;
    char **envp;

    while (environ && environ[n])
        ++n;
    while (vars && vars[nv])
        ++nv;
    envp = calloc(n + nv + 1, sizeof *envp);
    if (!envp)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        int replaced = 0;
        for (size_t j = 0; j < nv && !replaced; ++j)
            replaced = same_name(environ[i], vars[j]);
        if (!replaced)
            envp[k++] = environ[i];
    }
    for (size_t j = 0; j < nv; ++j)
        if (strchr(vars[j], '='))
            envp[k++] = (char *)vars[j];
    *out = envp;
    return KT_S_OK;
}

/* "NAME=VALUE", or "NAME" when value is NULL; malloc'd (NULL: none). */
static char *entry_of(const char *name, const char *value)
{
    size_t n = strlen(name), v = value ? strlen(value) : 0;
    char *entry = malloc(n + v + 2);
    if (entry) {
        memcpy(entry, name, n);
        entry[n] = '\0';
        if (value) {
            entry[n] = '=';
            memcpy(entry + n + 1, value, v + 1);
        }
    }
    return entry;
}

void kt_childenv_change(kt_childenv_changes *c, const char *name,
                        const char *value)
{
    char *entry;

    if (c->n == KT_CHILDENV_MAX_CHANGES || !(entry = entry_of(name, value))) {
        c->failed = 1;
        return;
    }
    c->items[c->n++] = entry;
    c->items[c->n] = NULL;
}

kt_status kt_childenv_changes_check(const kt_childenv_changes *c, kt_err *err)
{
    if (c->failed)
        return kt_err_set(err, KT_S_NOMEM,
                          "the program's environment could not be made "
                          "(out of memory, or more than %u changes)",
                          KT_CHILDENV_MAX_CHANGES);
    return KT_S_OK;
}

const char *const *kt_childenv_changes_list(const kt_childenv_changes *c)
{
    return (const char *const *)c->items;
}

void kt_childenv_changes_free(kt_childenv_changes *c)
{
    for (size_t i = 0; i < c->n; ++i)
        free(c->items[i]);
    c->n = 0;
    c->items[0] = NULL;
}
