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

char *kt_childenv_entry(const char *name, const char *value)
{
    size_t n = strlen(name), v = strlen(value);
    char *entry = malloc(n + v + 2);
    if (entry) {
        memcpy(entry, name, n);
        entry[n] = '=';
        memcpy(entry + n + 1, value, v + 1);
    }
    return entry;
}
