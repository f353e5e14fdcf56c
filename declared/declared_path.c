// SPDX-License-Identifier: Apache-2.0
/*
 * Paths of a declaration (declared/declared.h): every file it names (source,
 * generator_source, .npy inputs, -I folders) may use ${VAR} and resolves
 * against the declaration's own folder, never the current one, so a check
 * or a run gives the same answer from any folder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/envpath.h"
#include "core/fileio.h"
#include "declared/declared.h"

/* ${VAR} in declarations: core/envpath.c's rule (unset or empty refused,
 * naming the variable), in one place. */
kt_status kt_decl_expand(const char *in, char *out, size_t size, kt_err *err)
{
    return kt_envpath_expand(in, out, size, err);
}

void kt_decl_dirname(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, size, ".");
    else if (slash == path)
        snprintf(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

kt_status kt_decl_path(const char *dir, const char *text, char *out,
                       size_t size, kt_err *err)
{
    char expanded[4096];
    kt_status rc;

    if ((rc = kt_decl_expand(text, expanded, sizeof expanded, err)))
        return rc;
    if (expanded[0] == '/' || !dir[0] || strcmp(dir, ".") == 0) {
        if (strlen(expanded) >= size)
            return kt_err_set(err, KT_S_INPUT, "'%.60s...': path too long",
                              expanded);
        snprintf(out, size, "%s", expanded);
        return KT_S_OK;
    }
    if ((size_t)snprintf(out, size, "%s/%s", dir, expanded) >= size)
        return kt_err_set(err, KT_S_INPUT, "'%.60s...': path too long",
                          expanded);
    return KT_S_OK;
}

kt_status kt_decl_read_file(const char *path, char **text, size_t *len,
                            kt_err *err)
{
    return kt_file_read(path, "declared file", KT_FILE_MAX_BYTES, text, len,
                        err);
}

/* Appends opt to d's options as it is. */
static kt_status push_option(kt_declared *d, const char *opt, kt_err *err)
{
    char **grown = realloc(d->options, (d->num_options + 1) * sizeof *grown);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    d->options = grown;
    if (!(d->options[d->num_options] = strdup(opt)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    ++d->num_options;
    return KT_S_OK;
}

kt_status kt_decl_add_option(kt_declared *d, const char *opt, int is_path,
                             kt_err *err)
{
    static const char *const prefixes[] = {"--include-path=", "-I"};
    char buf[4200], path[4096];
    const char *prefix = is_path ? "-I" : NULL, *rest = opt;

    for (size_t i = 0; i < 2 && !prefix; ++i)
        if (strncmp(opt, prefixes[i], strlen(prefixes[i])) == 0) {
            prefix = prefixes[i];
            rest = opt + strlen(prefixes[i]);
        }
    if (prefix) {
        kt_status rc = kt_decl_path(d->dir, rest, path, sizeof path, err);
        if (rc)
            return rc;
        snprintf(buf, sizeof buf, "%s%s", prefix, path);
    } else if (kt_decl_expand(opt, buf, sizeof buf, err))
        return err->status;
    return push_option(d, buf, err);
}

kt_status kt_decl_add_include(kt_declared *d, const char *file, kt_err *err)
{
    char dir[4096], opt[4200], *real;
    kt_decl_dirname(file, dir, sizeof dir);
    /* Absolute, so a process that changes folder still finds it. */
    if ((real = realpath(dir, NULL))) {
        snprintf(dir, sizeof dir, "%s", real);
        free(real);
    }
    for (size_t i = 0; i < d->num_options; ++i)
        if (strncmp(d->options[i], "-I", 2) == 0 &&
            strcmp(d->options[i] + 2, dir) == 0)
            return KT_S_OK;
    snprintf(opt, sizeof opt, "-I%s", dir);
    return push_option(d, opt, err);
}
