// SPDX-License-Identifier: Apache-2.0
#include "core/settings.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum value_kind {
    V_ANY,     /* not checked: a path list, a name, the system's */
    V_SECONDS, /* a number of seconds, > 0 and at most max */
    V_INTEGER, /* an integer in [min, max] */
    V_WORDS,   /* one of the words in words, separated by '|' */
    V_FOLDER,  /* a folder, or a path where one can be made */
    V_FILE,    /* an existing regular file */
    V_OUTPUT,  /* a regular file, or a path in a folder where one can be */
    V_LIBRARY, /* a name dlopen searches, or a path: a regular file where it
                  exists (a missing one is a note where it is loaded) */
    V_PROGRAM  /* an existing executable regular file, or a word in words */
} value_kind;

typedef struct variable {
    const char *name;
    size_t field; /* offset of its const char * in kt_settings */
    value_kind kind;
    double min, max;
    const char *words;
} variable;

#define F(name) offsetof(kt_settings, name)

/* Every variable ktune reads, in the order they are checked. KTUNE_*
 * values that mean something are checked (KTUNE_PLUGIN_PATH names its bad
 * entries itself; KTUNE_NVRTC_HELPER is a path or "off"; KTUNE_NVML_*
 * name files); the system's are read as they are. */
static const variable variables[] = {
    {"KTUNE_PLUGIN_TIMEOUT", F(ktune_plugin_timeout), V_SECONDS, 0, 86400,
     NULL},
    {"KTUNE_PLUGIN_CACHE", F(ktune_plugin_cache), V_WORDS, 0, 0, "0|1"},
    {"KTUNE_CACHE_DIR", F(ktune_cache_dir), V_FOLDER, 0, 0, NULL},
    {"KTUNE_NVRTC_CACHE", F(ktune_nvrtc_cache), V_WORDS, 0, 0, "off|on"},
    {"KTUNE_NVRTC_SHARE", F(ktune_nvrtc_share), V_WORDS, 0, 0, "off|on"},
    {"KTUNE_PROFILE_FLUSH", F(ktune_profile_flush), V_WORDS, 0, 0,
     "clean|sweep"},
    {"KTUNE_ROUND_SYNC", F(ktune_round_sync), V_WORDS, 0, 0, "0|1"},
    {"KTUNE_WORKER_TIMES", F(ktune_worker_times), V_WORDS, 0, 0, "1"},
    {"KTUNE_CUPTI_RANGE", F(ktune_cupti_range), V_WORDS, 0, 0, "kernel|launch"},
    {"KTUNE_TIMELINE_DRIVER", F(ktune_timeline_driver), V_WORDS, 0, 0, "0|1"},
    {"KTUNE_TIMELINE_FLUSH_MS", F(ktune_timeline_flush_ms), V_INTEGER, 1, 59999,
     NULL},
    {"KTUNE_TRACER", F(ktune_tracer), V_FILE, 0, 0, NULL},
    {"KTUNE_PLUGIN_PATH", F(ktune_plugin_path), V_ANY, 0, 0, NULL},
    {"KTUNE_NVRTC_HELPER", F(ktune_nvrtc_helper), V_PROGRAM, 0, 0, "off"},
    {"KTUNE_EXE", F(ktune_exe), V_PROGRAM, 0, 0, NULL},
    {"KTUNE_NVML_LIBRARY", F(ktune_nvml_library), V_LIBRARY, 0, 0, NULL},
    {"KTUNE_NVML_RESTORE", F(ktune_nvml_restore), V_OUTPUT, 0, 0, NULL},
    {"XDG_CACHE_HOME", F(xdg_cache_home), V_ANY, 0, 0, NULL},
    {"HOME", F(home), V_ANY, 0, 0, NULL},
    {"CUDA_HOME", F(cuda_home), V_ANY, 0, 0, NULL},
    {"CUDA_PATH", F(cuda_path), V_ANY, 0, 0, NULL},
    {"COLUMNS", F(columns), V_ANY, 0, 0, NULL},
    {"PATH", F(path), V_ANY, 0, 0, NULL},
    {"TMPDIR", F(tmpdir), V_ANY, 0, 0, NULL},
    {"CUDA_DEVICE_MAX_CONNECTIONS", F(cuda_device_max_connections), V_ANY, 0, 0,
     NULL},
};

static int is_word(const char *words, const char *value)
{
    size_t n = strlen(value);

    for (const char *w = words; *w;) {
        const char *bar = strchr(w, '|');
        size_t len = bar ? (size_t)(bar - w) : strlen(w);
        if (len == n && strncmp(w, value, n) == 0)
            return 1;
        w += len + (bar ? 1 : 0);
    }
    return 0;
}

/* 1 when value is a whole decimal number in [min, max]. */
static int is_integer_in(const char *value, double min, double max)
{
    char *end;
    long long x;

    errno = 0;
    x = strtoll(value, &end, 10);
    return !errno && end != value && !*end && x >= min && x <= max;
}

/* V_OUTPUT: where it exists a regular file, else its folder exists. */
static kt_status check_output(const variable *v, const char *value, int exists,
                              const struct stat *st, kt_err *err)
{
    const char *slash = strrchr(value, '/');
    char dir[4096];
    struct stat ds;

    if (exists && !S_ISREG(st->st_mode))
        return kt_err_set(err, KT_S_INPUT,
                          "%s=%s: expected a regular file or a new file's "
                          "path, found %s",
                          v->name, value,
                          S_ISDIR(st->st_mode) ? "a folder"
                                               : "a device, FIFO or socket");
    if (exists || !slash)
        return KT_S_OK;
    snprintf(dir, sizeof dir, "%.*s", slash == value ? 1 : (int)(slash - value),
             value);
    if (stat(dir, &ds) != 0 || !S_ISDIR(ds.st_mode))
        return kt_err_set(err, KT_S_INPUT,
                          "%s=%s: expected a file in an existing folder (no "
                          "folder %s)",
                          v->name, value, dir);
    return KT_S_OK;
}

/* V_LIBRARY and V_PROGRAM: what dlopen or exec would be handed. */
static kt_status check_loadable(const variable *v, const char *value,
                                int exists, const struct stat *st, kt_err *err)
{
    if (v->kind == V_LIBRARY && strchr(value, '/') && exists &&
        !S_ISREG(st->st_mode))
        return kt_err_set(err, KT_S_INPUT,
                          "%s=%s: expected a shared library (a regular file), "
                          "found %s",
                          v->name, value,
                          S_ISDIR(st->st_mode) ? "a folder"
                                               : "a device, FIFO or socket");
    if (v->kind == V_PROGRAM && !(v->words && is_word(v->words, value)) &&
        (!exists || !S_ISREG(st->st_mode) || access(value, X_OK) != 0))
        return kt_err_set(
            err, KT_S_INPUT, "%s=%s: expected an executable file%s%s (%s)",
            v->name, value, v->words ? " or " : "", v->words ? v->words : "",
            !exists                 ? "no such file"
            : !S_ISREG(st->st_mode) ? "not a regular file"
                                    : "not executable");
    return KT_S_OK;
}

static kt_status check_path(const variable *v, const char *value, kt_err *err)
{
    struct stat st;
    int exists = stat(value, &st) == 0;

    if (v->kind == V_OUTPUT)
        return check_output(v, value, exists, &st, err);
    if (v->kind == V_LIBRARY || v->kind == V_PROGRAM)
        return check_loadable(v, value, exists, &st, err);
    if (v->kind == V_FILE && (!exists || !S_ISREG(st.st_mode)))
        return kt_err_set(err, KT_S_INPUT,
                          "%s=%s: expected an existing regular file (%s)",
                          v->name, value,
                          exists ? "it is not a regular file" : "no such file");
    if (v->kind == V_FOLDER && exists && !S_ISDIR(st.st_mode))
        return kt_err_set(err, KT_S_INPUT,
                          "%s=%s: expected a folder, found a file that is "
                          "not one",
                          v->name, value);
    return KT_S_OK;
}

static kt_status check_one(const variable *v, const char *value, kt_err *err)
{
    char *end;
    double x;

    switch (v->kind) {
    case V_SECONDS:
        errno = 0;
        x = strtod(value, &end);
        if (errno || end == value || *end || !isfinite(x) || x <= 0 ||
            x > v->max)
            return kt_err_set(err, KT_S_INPUT,
                              "%s=%s: expected seconds, more than 0 and at "
                              "most %g (e.g. 10 or 2.5)",
                              v->name, value, v->max);
        return KT_S_OK;
    case V_INTEGER:
        if (!is_integer_in(value, v->min, v->max))
            return kt_err_set(err, KT_S_INPUT,
                              "%s=%s: expected an integer from %g to %g",
                              v->name, value, v->min, v->max);
        return KT_S_OK;
    case V_WORDS:
        if (!is_word(v->words, value))
            return kt_err_set(err, KT_S_INPUT,
                              "%s=%s: expected one of %s (or unset it)",
                              v->name, value, v->words);
        return KT_S_OK;
    case V_ANY: return KT_S_OK;
    default: return check_path(v, value, err);
    }
}

static const char **field_of(kt_settings *s, const variable *v)
{
    return (const char **)((char *)s + v->field);
}

static const char *value_of(const kt_settings *s, const variable *v)
{
    return *(const char *const *)((const char *)s + v->field);
}

/* The record a parent process handed this one (kt_settings_install: a
 * worker's open message), which this process then reads in place of its
 * environment. Mutable because it arrives after the process started; set
 * once (installed, with release order, after set and kept), so a read
 * takes no lock (safe in a forked child too); kept holds the strings. */
static struct {
    pthread_mutex_t lock; /* install's alone */
    json_t *kept;
    kt_settings set;
    atomic_int installed;
} g_parent = {PTHREAD_MUTEX_INITIALIZER, NULL, {0}, 0};

void kt_settings_read(kt_settings *s)
{
    if (atomic_load_explicit(&g_parent.installed, memory_order_acquire)) {
        *s = g_parent.set;
        return;
    }
    memset(s, 0, sizeof *s);
    /* The one place the libraries read the environment. */
    for (size_t i = 0; i < sizeof variables / sizeof *variables; ++i)
        *field_of(s, &variables[i]) = getenv(variables[i].name);
}

json_t *kt_settings_to_json(const kt_settings *s)
{
    json_t *obj = json_object();

    for (size_t i = 0; obj && i < sizeof variables / sizeof *variables; ++i) {
        const char *value = value_of(s, &variables[i]);
        if (value)
            json_object_set_new(obj, variables[i].name, json_string(value));
    }
    return obj;
}

/* The variable called name, or NULL. */
static const variable *variable_named(const char *name)
{
    for (size_t i = 0; i < sizeof variables / sizeof *variables; ++i)
        if (strcmp(variables[i].name, name) == 0)
            return &variables[i];
    return NULL;
}

kt_status kt_settings_from_json(const json_t *obj, kt_settings *s, kt_err *err)
{
    const char *name;
    json_t *value;

    memset(s, 0, sizeof *s);
    if (!json_is_object(obj))
        return kt_err_set(err, KT_S_IO,
                          "settings: expected an object of variables, found "
                          "%s",
                          obj ? "another JSON value" : "nothing");
    json_object_foreach ((json_t *)obj, name, value) {
        const variable *v = variable_named(name);
        if (!v)
            return kt_err_set(err, KT_S_IO,
                              "settings: '%s' is no variable ktune reads",
                              name);
        if (!json_is_string(value))
            return kt_err_set(err, KT_S_IO,
                              "settings: %s: expected a string, found "
                              "another JSON value",
                              name);
        *field_of(s, v) = json_string_value(value);
    }
    return KT_S_OK;
}

/* Whether a and b hold the same values. */
static int same(const kt_settings *a, const kt_settings *b)
{
    for (size_t i = 0; i < sizeof variables / sizeof *variables; ++i) {
        const char *x = value_of(a, &variables[i]);
        const char *y = value_of(b, &variables[i]);
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
            return 0;
    }
    return 1;
}

kt_status kt_settings_install(const json_t *obj, kt_err *err)
{
    json_t *copy;
    kt_settings set;
    kt_status rc = KT_S_OK;

    if (!json_is_object(obj)) /* said by kt_settings_from_json */
        return kt_settings_from_json(obj, &set, err);
    if (!(copy = json_deep_copy(obj)))
        return kt_err_set(err, KT_S_NOMEM, "settings: out of memory");
    if ((rc = kt_settings_from_json(copy, &set, err))) {
        json_decref(copy);
        return rc;
    }
    pthread_mutex_lock(&g_parent.lock);
    if (atomic_load_explicit(&g_parent.installed, memory_order_acquire)) {
        if (!same(&set, &g_parent.set))
            rc = kt_err_set(err, KT_S_INPUT,
                            "settings: this process runs under its parent's "
                            "record already, and this one differs");
        json_decref(copy);
    } else {
        g_parent.kept = copy;
        g_parent.set = set;
        atomic_store_explicit(&g_parent.installed, 1, memory_order_release);
    }
    pthread_mutex_unlock(&g_parent.lock);
    return rc;
}

kt_status kt_settings_check(const kt_settings *s, kt_err *err)
{
    for (size_t i = 0; i < sizeof variables / sizeof *variables; ++i) {
        const char *value = value_of(s, &variables[i]);
        kt_status rc;
        if (value && *value && (rc = check_one(&variables[i], value, err)))
            return rc;
    }
    return KT_S_OK;
}
