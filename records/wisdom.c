// SPDX-License-Identifier: Apache-2.0
#include "records/wisdom.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/fileio.h"
#include "core/version.h"

/* One line to write, with the key it sorts and merges by. */
typedef struct line {
    char *key;
    json_t *entry;
} line;

typedef struct line_list {
    line *items;
    size_t n, cap;
} line_list;

/* operator \x1f device (lower case) \x1f sizes, zero-padded: sorts as
 * libktune-select's index does. */
static char *key_of(json_t *entry)
{
    const char *op = json_string_value(json_object_get(entry, "operator"));
    const char *dev = json_string_value(json_object_get(entry, "device"));
    json_t *sizes = json_object_get(entry, "sizes"), *v;
    const char *name;
    size_t len = strlen(op) + strlen(dev) + 3 + 21 * json_object_size(sizes);
    char *key = malloc(len), *p;

    if (!key)
        return NULL;
    p = key + sprintf(key, "%s\x1f", op);
    for (const char *c = dev; *c; ++c)
        *p++ = (char)tolower((unsigned char)*c);
    *p++ = '\x1f';
    json_object_foreach (sizes, name, v) {
        p += sprintf(p, "%020lld", (long long)json_integer_value(v));
    }
    *p = '\0';
    return key;
}

/* Takes entry (freed on failure too). */
static kt_status list_add(line_list *l, json_t *entry, kt_err *err)
{
    char *key = key_of(entry);

    if (key && l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        line *grown = realloc(l->items, cap * sizeof *grown);
        if (grown) {
            l->items = grown;
            l->cap = cap;
        }
    }
    if (!key || l->n == l->cap) {
        free(key);
        json_decref(entry);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    l->items[l->n].key = key;
    l->items[l->n++].entry = entry;
    return KT_S_OK;
}

static void list_free(line_list *l)
{
    for (size_t i = 0; i < l->n; ++i) {
        free(l->items[i].key);
        json_decref(l->items[i].entry);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const line *)a)->key, ((const line *)b)->key);
}

/* ------------------------------------------------------------ entries */

static void put_times(json_t *o, double t, double lo, double hi)
{
    if (isfinite(t))
        json_object_set_new(o, "time_us", json_real(t));
    if (isfinite(lo) && isfinite(hi))
        json_object_set_new(o, "ci_us", json_pack("[f,f]", lo, hi));
}

/* An entry as its line (fields the format does not know are not kept:
 * an entry read back is written as the same line). */
static json_t *entry_json(const kt_select_entry *e)
{
    json_t *o = json_object(), *sizes = json_object(), *params = json_object();
    char cc[16];

    snprintf(cc, sizeof cc, "%d.%d", e->cc_major, e->cc_minor);
    for (size_t i = 0; i < e->num_sizes; ++i)
        json_object_set_new(sizes, e->size_names[i], json_integer(e->sizes[i]));
    for (size_t i = 0; i < e->num_params; ++i)
        json_object_set_new(params, e->params[i].name,
                            json_integer(e->params[i].value));
    json_object_set_new(o, "operator", json_string(e->op));
    json_object_set_new(o, "plugin_version", json_string(e->plugin_version));
    json_object_set_new(o, "device", json_string(e->device));
    json_object_set_new(o, "cc", json_string(cc));
    json_object_set_new(o, "sizes", sizes);
    json_object_set_new(o, "variant", json_string(e->variant));
    json_object_set_new(o, "params", params);
    put_times(o, e->time_us, e->ci_lo_us, e->ci_hi_us);
    json_object_set_new(o, "ktune", json_string(e->ktune_version));
    json_object_set_new(o, "date", json_string(e->date));
    return o;
}

json_t *kt_wisdom_answer_json(const kt_wisdom_answer *a, const char *date)
{
    const kt_variant *v = &a->op->variants[a->point.variant];
    const char *size_names[KT_MAX_SIZES];
    kt_select_param params[KT_MAX_PARAMS];
    kt_select_entry e;

    memset(&e, 0, sizeof e);
    for (uint32_t i = 0; i < a->op->num_sizes; ++i)
        size_names[i] = a->op->sizes[i].name;
    for (uint32_t i = 0; i < v->num_params && i < a->point.count; ++i) {
        params[i].name = v->params[i].name;
        params[i].value = a->point.values[i];
        e.num_params = i + 1;
    }
    e.op = a->spec;
    e.plugin_version = a->plugin->desc.version ? a->plugin->desc.version : "";
    e.device = a->device_name;
    e.cc_major = a->cc_major;
    e.cc_minor = a->cc_minor;
    e.num_sizes = a->op->num_sizes;
    e.size_names = size_names;
    e.sizes = a->sizes;
    e.variant = v->id;
    e.params = params;
    e.time_us = a->time_us;
    e.ci_lo_us = a->ci_lo_us;
    e.ci_hi_us = a->ci_hi_us;
    e.ktune_version = KT_VERSION;
    e.date = date;
    return entry_json(&e);
}

kt_status kt_wisdom_open(const char *path, kt_select_wisdom **out, kt_err *err)
{
    kt_select_error se;
    int rc = kt_select_open(path, out, &se);
    if (rc == KT_SELECT_OK)
        return KT_S_OK;
    return kt_err_set(err, rc == KT_SELECT_ENOMEM ? KT_S_NOMEM : KT_S_INPUT,
                      "%s", se.msg);
}

/* ------------------------------------------------------------ merging */

/* 1 when fd is still the file named lock: a writer that ended unlinked
 * it after we opened it, and a lock on an unlinked file excludes nobody. */
static int lock_is_current(int fd, const char *lock)
{
    struct stat held, named;
    return fstat(fd, &held) == 0 && stat(lock, &named) == 0 &&
           held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

/* An exclusive lock on path.lock, held until unlock_file. The lock file
 * lives only while a writer holds it; one left by a killed writer holds
 * no flock (the kernel drops it with the process), so it is taken over
 * and removed like any other. */
static kt_status lock_file(const char *path, char *lock, size_t size, int *fd,
                           kt_err *err)
{
    snprintf(lock, size, "%s.lock", path);
    for (;;) {
        /* O_NOFOLLOW: a link planted at the lock's name is refused. */
        *fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (*fd < 0)
            return errno == ELOOP
                       ? kt_err_set(err, KT_S_INPUT,
                                    "%s: the lock is a link; refusing to "
                                    "follow it (remove it)",
                                    lock)
                       : kt_err_set(err, KT_S_IO,
                                    "%s: cannot create the lock: %s", lock,
                                    strerror(errno));
        while (flock(*fd, LOCK_EX) != 0)
            if (errno != EINTR) {
                close(*fd);
                *fd = -1;
                return kt_err_set(err, KT_S_IO, "%s: cannot lock: %s", lock,
                                  strerror(errno));
            }
        if (lock_is_current(*fd, lock))
            return KT_S_OK;
        close(*fd);
    }
}

/* Removed while still held, so no waiter locks a file nobody else sees
 * (a waiter that opened it finds it unlinked and opens a new one). */
static void unlock_file(const char *lock, int fd)
{
    if (fd < 0)
        return;
    unlink(lock);
    close(fd);
}

/* The file's entries, when it exists; only a regular file. */
static kt_status read_existing(const char *path, line_list *l, kt_err *err)
{
    kt_select_wisdom *w = NULL;
    struct stat st;
    kt_status rc;

    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return KT_S_OK;
        return kt_err_set(err, KT_S_IO, "%s: %s", path, strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return kt_err_set(err, KT_S_INPUT,
                          "%s: not a regular file; wisdom is only written "
                          "over regular files",
                          path);
    if ((rc = kt_wisdom_open(path, &w, err)))
        return kt_err_prefix(err, "will not overwrite a damaged wisdom file "
                                  "(fix or move it): ");
    for (size_t i = 0; i < kt_select_count(w) && !rc; ++i)
        rc = list_add(l, entry_json(kt_select_entry_at(w, i)), err);
    kt_select_close(w);
    return rc;
}

/* A newer answer replaces the entry of its key; dates are ISO 8601 UTC,
 * which sort as text. */
static kt_status merge_answers(line_list *l, const kt_wisdom_answer *answers,
                               size_t n, size_t *added, size_t *replaced,
                               kt_err *err)
{
    char date[32];
    kt_status rc = KT_S_OK;

    kt_clock_utc(date, sizeof date);
    for (size_t i = 0; i < n && !rc; ++i) {
        json_t *entry = kt_wisdom_answer_json(&answers[i], date);
        char *key = key_of(entry);
        size_t k = 0;
        if (!key) {
            json_decref(entry);
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        }
        while (k < l->n && strcmp(l->items[k].key, key) != 0)
            ++k;
        free(key);
        if (k == l->n) {
            rc = list_add(l, entry, err);
            ++*added;
        } else if (strcmp(json_string_value(
                              json_object_get(l->items[k].entry, "date")),
                          date) <= 0) {
            json_decref(l->items[k].entry);
            l->items[k].entry = entry;
            ++*replaced;
        } else {
            json_decref(entry); /* the file's answer is newer */
        }
    }
    return rc;
}

static kt_status write_lines(FILE *f, const line_list *l)
{
    json_t *header = json_pack(
        "{s:i,s:I,s:s,s:s}", "ktune_wisdom", KT_SELECT_FORMAT, "entries",
        (json_int_t)l->n, "written_by", "ktune " KT_VERSION, "about",
        "tuned launch configurations; docs/wisdom.md, libktune-select");
    int bad =
        !header || json_dumpf(header, f, JSON_COMPACT) || fputc('\n', f) == EOF;
    json_decref(header);
    for (size_t i = 0; i < l->n && !bad; ++i)
        bad = json_dumpf(l->items[i].entry, f,
                         JSON_COMPACT | JSON_REAL_PRECISION(9)) != 0 ||
              fputc('\n', f) == EOF;
    return bad ? KT_S_IO : KT_S_OK;
}

/* Written whole through an exclusive temporary file in path's folder,
 * synced and renamed over it: never through a link planted there. */
static kt_status write_file(const char *path, const line_list *l, kt_err *err)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    kt_status rc;

    if (!f)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    rc = write_lines(f, l);
    if (fclose(f) != 0 || rc)
        rc = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    else
        rc = kt_file_replace(path, text, size, 0644, err);
    free(text);
    return rc;
}

kt_status kt_wisdom_merge(const char *path, const kt_wisdom_answer *answers,
                          size_t n, size_t *added, size_t *replaced,
                          kt_err *err)
{
    line_list l = {NULL, 0, 0};
    size_t add = 0, rep = 0;
    char lock[4096 + 8];
    int fd = -1;
    kt_status rc;

    if (strlen(path) > 4000)
        return kt_err_set(err, KT_S_INPUT, "--wisdom: a path of %zu bytes",
                          strlen(path));
    if ((rc = lock_file(path, lock, sizeof lock, &fd, err)) ||
        (rc = read_existing(path, &l, err)) ||
        (rc = merge_answers(&l, answers, n, &add, &rep, err)))
        goto done;
    qsort(l.items, l.n, sizeof *l.items, by_key);
    rc = write_file(path, &l, err);
done:
    list_free(&l);
    unlock_file(lock, fd);
    if (added)
        *added = add;
    if (replaced)
        *replaced = rep;
    return rc;
}

/* ------------------------------------------------------------ checking */

static kt_wisdom_state say(char *why, size_t size, kt_wisdom_state s,
                           const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static kt_wisdom_state say(char *why, size_t size, kt_wisdom_state s,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return s;
}

/* The entry's sizes must be the operator's, in its order. */
static int sizes_match(const kt_operator *op, const kt_select_entry *e)
{
    if (e->num_sizes != op->num_sizes)
        return 0;
    for (size_t i = 0; i < e->num_sizes; ++i)
        if (strcmp(e->size_names[i], op->sizes[i].name) != 0)
            return 0;
    return 1;
}

/* The entry's parameters as a point of variant v, each one declared. */
static kt_wisdom_state params_check(const kt_operator *op, uint32_t v,
                                    const kt_select_entry *e, char *why,
                                    size_t size)
{
    const kt_variant *var = &op->variants[v];
    kt_point pt;
    kt_err err;

    kt_point_default(op, v, &pt);
    for (size_t i = 0; i < e->num_params; ++i) {
        uint32_t k = 0;
        while (k < var->num_params &&
               strcmp(var->params[k].name, e->params[i].name) != 0)
            ++k;
        if (k == var->num_params)
            return say(why, size, KT_WISDOM_STALE,
                       "variant %s has no parameter %s now", var->id,
                       e->params[i].name);
        pt.values[k] = e->params[i].value;
    }
    if (e->num_params != var->num_params)
        return say(why, size, KT_WISDOM_STALE,
                   "variant %s has %u parameter(s) now, the entry %zu", var->id,
                   var->num_params, e->num_params);
    if (kt_point_validate(op, &pt, &err))
        return say(why, size, KT_WISDOM_STALE, "no longer valid: %s", err.msg);
    return KT_WISDOM_CURRENT;
}

kt_wisdom_state kt_wisdom_check(const kt_registry *reg,
                                const kt_select_entry *e, char *why,
                                size_t why_size)
{
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    const char *version;
    kt_err err;
    size_t v;

    why[0] = '\0';
    if (kt_registry_resolve(reg, e->op, &plugin, &op, &err))
        return say(why, why_size, KT_WISDOM_UNKNOWN, "%s", err.msg);
    version = plugin->desc.version ? plugin->desc.version : "";
    if (strcmp(version, e->plugin_version) != 0)
        return say(why, why_size, KT_WISDOM_STALE,
                   "plugin version %s, tuned with %s: tune again",
                   *version ? version : "(none)",
                   *e->plugin_version ? e->plugin_version : "(none)");
    if (!sizes_match(op, e))
        return say(why, why_size, KT_WISDOM_STALE,
                   "the operator's sizes are not the entry's");
    if (kt_operator_find_variant(op, e->variant, &v, &err))
        return say(why, why_size, KT_WISDOM_STALE, "%s", err.msg);
    return params_check(op, (uint32_t)v, e, why, why_size);
}
