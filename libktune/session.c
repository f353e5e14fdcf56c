/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sessions and their settings (include/ktune/ktune.h): the private folder,
 * the message of the last failure, the job keys given as --set.
 */
/* nftw with FTW_DEPTH and FTW_PHYS. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/embed.h"
#include "libktune/session.h"

int ktl_strv_add(ktl_strv *l, const char *s)
{
    char **grown = realloc(l->v, (l->n + 1) * sizeof *grown);
    char *copy = strdup(s);

    if (grown)
        l->v = grown;
    if (!grown || !copy) {
        free(copy);
        return KTUNE_E_NOMEM;
    }
    l->v[l->n++] = copy;
    return KTUNE_OK;
}

int ktl_add(ktune_session *s, ktl_strv *l, const char *item)
{
    return ktl_strv_add(l, item) ? ktl_fail(s, KTUNE_E_NOMEM, "out of memory")
                                 : ktl_ok(s);
}

int ktl_is_line(const char *text)
{
    return text && *text && !strpbrk(text, "\n\r");
}

void ktl_strv_free(ktl_strv *l)
{
    for (size_t i = 0; i < l->n; ++i)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

int ktl_fail(ktune_session *s, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(s->errmsg, s->errmsg_size, fmt, ap);
    va_end(ap);
    return code;
}

int ktl_ok(ktune_session *s)
{
    s->errmsg[0] = '\0';
    return KTUNE_OK;
}

const char *ktune_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = KTUNE_VERSION_MAJOR;
    if (minor)
        *minor = KTUNE_VERSION_MINOR;
    if (patch)
        *patch = KTUNE_VERSION_PATCH;
    return KTUNE_LIB_VERSION;
}

int ktune_session_new(ktune_session **out)
{
    ktune_session *s;
    kt_embed_env env;

    if (!out)
        return KTUNE_E_INPUT;
    *out = NULL;
    if (!(s = calloc(1, sizeof *s)) || !(s->errmsg = calloc(1, 4096))) {
        free(s);
        return KTUNE_E_NOMEM;
    }
    s->errmsg_size = 4096;
    s->isolation = 1;
    s->device = -1;
    /* mkdtemp makes the folder 0700: the arrays the caller hands in are
     * readable by this user alone. */
    kt_embed_env_read(&env);
    snprintf(s->dir, sizeof s->dir, "%s/ktune-session-XXXXXX",
             env.tmpdir ? env.tmpdir : "/tmp");
    if (!mkdtemp(s->dir)) {
        free(s->errmsg);
        free(s);
        return KTUNE_E_IO;
    }
    *out = s;
    return KTUNE_OK;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void variant_free(ktl_variant *v)
{
    free(v->id);
    free(v->kernel);
    ktl_strv_free(&v->keys);
    ktl_strv_free(&v->requires);
}

void ktune_session_free(ktune_session *s)
{
    if (!s)
        return;
    /* Only the folder mkdtemp made, depth first, links not followed. */
    if (s->dir[0])
        nftw(s->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    ktl_arrays_free(s);
    for (size_t i = 0; i < s->num_buffers; ++i) {
        free(s->buffers[i].name);
        free(s->buffers[i].count_expr);
        free(s->buffers[i].fill);
    }
    free(s->buffers);
    for (size_t i = 0; i < s->num_variants; ++i)
        variant_free(&s->variants[i]);
    free(s->variants);
    ktl_strv_free(&s->sets);
    ktl_strv_free(&s->options);
    ktl_strv_free(&s->sizes);
    ktl_strv_free(&s->constants);
    ktl_strv_free(&s->args);
    ktl_strv_free(&s->arg_ctypes);
    free(s->name);
    free(s->source_text);
    free(s->source_file);
    free(s->exe);
    free(s->journal);
    free(s->errmsg);
    free(s);
}

const char *ktune_session_errmsg(const ktune_session *s)
{
    return s ? s->errmsg : "ktune: no session (NULL)";
}

const char *ktune_session_dir(const ktune_session *s)
{
    return s ? s->dir : NULL;
}

static int replace(ktune_session *s, char **slot, const char *value)
{
    char *copy = NULL;

    if (value && !(copy = strdup(value)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    free(*slot);
    *slot = copy;
    return ktl_ok(s);
}

int ktune_session_set_exe(ktune_session *s, const char *path)
{
    if (!s)
        return KTUNE_E_INPUT;
    return replace(s, &s->exe, path);
}

int ktune_session_set_journal(ktune_session *s, const char *path)
{
    if (!s)
        return KTUNE_E_INPUT;
    return replace(s, &s->journal, path);
}

int ktune_session_set(ktune_session *s, const char *key, const char *value)
{
    size_t klen;
    char *item;
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    if (!key || !value || !strchr(key, '.') || strchr(key, '='))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_session_set: key '%s': expected SECTION.KEY "
                        "(strategy.name) and a value",
                        key ? key : "(null)");
    klen = strlen(key);
    /* A key set again replaces its value (the CLI takes the last too, but
     * the list would grow with every call). */
    for (size_t i = 0; i < s->sets.n; ++i)
        if (strncmp(s->sets.v[i], key, klen) == 0 &&
            s->sets.v[i][klen] == '=') {
            free(s->sets.v[i]);
            s->sets.v[i] = s->sets.v[--s->sets.n];
            break;
        }
    if (!(item = malloc(klen + strlen(value) + 2)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    sprintf(item, "%s=%s", key, value);
    rc = ktl_strv_add(&s->sets, item);
    free(item);
    return rc ? ktl_fail(s, rc, "out of memory") : ktl_ok(s);
}

int ktune_session_set_strategy(ktune_session *s, const char *name)
{
    return ktune_session_set(s, "strategy.name", name);
}

int ktune_session_set_objective(ktune_session *s, const char *name)
{
    return ktune_session_set(s, "strategy.objective", name);
}

static int set_number(ktune_session *s, const char *key, double v)
{
    char text[64];

    snprintf(text, sizeof text, "%.17g", v);
    return ktune_session_set(s, key, text);
}

int ktune_session_set_seed(ktune_session *s, int64_t seed)
{
    return set_number(s, "strategy.seed", (double)seed);
}

int ktune_session_set_budget(ktune_session *s, int64_t max_evals,
                             double max_seconds, double fraction)
{
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    if (max_evals < 0 || max_seconds < 0 || !(fraction >= 0 && fraction <= 1))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_session_set_budget: max_evals %lld, "
                        "max_seconds %g, fraction %g: expected max_evals >= 0, "
                        "max_seconds >= 0, fraction in [0, 1]",
                        (long long)max_evals, max_seconds, fraction);
    if ((rc = set_number(s, "strategy.max_evals", (double)max_evals)) ||
        (rc = set_number(s, "strategy.max_seconds", max_seconds)))
        return rc;
    /* The fraction becomes max_evals at the run, from the feasible count
     * (libktune/run.c), kept here as the library's own key. */
    return set_number(s, "libktune.fraction", fraction);
}

int ktune_session_set_device(ktune_session *s, int device)
{
    if (!s)
        return KTUNE_E_INPUT;
    if (device < 0)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_session_set_device: %d: expected a CUDA device "
                        "ordinal, 0 or more",
                        device);
    s->device = device;
    return ktl_ok(s);
}

int ktune_session_set_isolation(ktune_session *s, int on)
{
    if (!s)
        return KTUNE_E_INPUT;
    s->isolation = on != 0;
    return ktl_ok(s);
}

int ktune_session_set_verbose(ktune_session *s, int on)
{
    if (!s)
        return KTUNE_E_INPUT;
    s->verbose = on != 0;
    return ktl_ok(s);
}

int ktune_session_set_log(ktune_session *s, ktune_log_fn fn, void *user)
{
    if (!s)
        return KTUNE_E_INPUT;
    s->log = fn;
    s->log_user = user;
    return ktl_ok(s);
}

int ktune_verify_callback(ktune_session *s, ktune_verify_fn fn, void *user)
{
    if (!s)
        return KTUNE_E_INPUT;
    s->verify = fn;
    s->verify_user = user;
    return ktl_ok(s);
}
