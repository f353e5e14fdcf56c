// SPDX-License-Identifier: Apache-2.0
#include "records/ktcache_write.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/fileio.h"
#include "core/msg.h"
#include "core/outfile.h"
#include "records/extrec.h"
#include "records/ktcache.h"
#include "records/t4.h"

/* Appended entries are synced in groups, as the journal's are: a sync per
 * entry would cost more than a fast evaluation. */
#define SYNC_EVERY_S 1.0

struct kt_ktcache_writer {
    char *path;
    int fd;
    kt_tune_facts facts; /* a copy: what it points to outlives the run */
    const kt_tune_facts *f;
    const kt_extrec *ext; /* the replayed recording, or NULL */
    const kt_space_variant *slot;
    json_t *keys; /* configurations in the file: key -> true */
    /* The finalists' closing figures, written over their entries when the
     * file is closed: key -> {time, times}; the answer's key. */
    json_t *finals;
    char *winner;
    double last_sync;
    int unsynced;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A parameter's value as its JSON: an enumeration's label, else the
 * integer. */
static json_t *param_value(const kt_param_desc *pd, int64_t v)
{
    return pd->kind == KT_PARAM_ENUM ? json_string(pd->labels[v])
                                     : json_integer(v);
}

/* Kernel Tuner's key: str() of each value, joined with commas; set into
 * key (a JSON string), left empty when out of memory. */
static void join_key(const json_t *values, json_t *key)
{
    size_t size = 1, used = 0, i;
    const json_t *v;
    char *text;

    json_array_foreach (values, i, v)
        size += (json_is_string(v) ? json_string_length(v) : 24) + 1;
    if (!(text = malloc(size)))
        return;
    text[0] = '\0';
    json_array_foreach (values, i, v)
        used += (size_t)(json_is_string(v)
                             ? snprintf(text + used, size - used, "%s%s",
                                        i ? "," : "", json_string_value(v))
                             : snprintf(text + used, size - used, "%s%lld",
                                        i ? "," : "",
                                        (long long)json_integer_value(v)));
    json_string_set(key, text);
    free(text);
}

/* The header Kernel Tuner writes for a new cache. */
static json_t *header_json(const kt_ktcache_writer *w)
{
    const kt_tune_facts *f = w->f;
    json_t *h = json_object(), *keys = json_array(), *params = json_object();
    json_t *sizes = json_array();

    if (w->ext) {
        for (size_t p = 0; p < w->ext->num_params; ++p) {
            const kt_extrec_param *par = &w->ext->params[p];
            json_t *vals = json_array();
            for (uint32_t k = 0; k < par->count; ++k)
                json_array_append(vals, par->values[k]);
            json_array_append_new(keys, json_string(par->name));
            json_object_set_new(params, par->name, vals);
        }
        if (json_object_get(w->ext->doc, "problem_size"))
            json_array_extend(sizes,
                              json_object_get(w->ext->doc, "problem_size"));
    } else {
        const kt_variant *v = &f->op->variants[w->slot->variant];
        for (uint32_t p = 0; p < w->slot->num_params; ++p) {
            json_t *vals = json_array();
            for (uint32_t k = 0; k < w->slot->count[p]; ++k)
                json_array_append_new(
                    vals, param_value(&v->params[p], w->slot->values[p][k]));
            json_array_append_new(keys, json_string(v->params[p].name));
            json_object_set_new(params, v->params[p].name, vals);
        }
        for (uint32_t i = 0; i < f->op->num_sizes; ++i)
            json_array_append_new(sizes, json_integer(f->sizes[i]));
    }
    json_object_set_new(h, "device_name",
                        json_string(f->device_name ? f->device_name : ""));
    json_object_set_new(
        h, "kernel_name",
        json_string(w->ext ? w->ext->kernel
                           : f->op->variants[w->slot->variant].id));
    json_object_set_new(h, "problem_size", sizes);
    json_object_set_new(h, "tune_params_keys", keys);
    json_object_set_new(h, "tune_params", params);
    json_object_set_new(h, "objective", json_string("time"));
    return h;
}

/* An existing file continues only where Kernel Tuner would continue it. */
static kt_status same_run(const kt_ktcache_writer *w, const json_t *have,
                          const json_t *want, kt_err *err)
{
    static const char *const fields[] = {"kernel_name", "device_name",
                                         "problem_size", "tune_params_keys",
                                         "tune_params"};

    for (size_t i = 0; i < sizeof fields / sizeof *fields; ++i) {
        const json_t *a = json_object_get(have, fields[i]);
        const json_t *b = json_object_get(want, fields[i]);
        char *sa, *sb;
        /* Kernel Tuner checks problem_size only where the file has it. */
        if (json_equal(a, b) || (!a && strcmp(fields[i], "problem_size") == 0))
            continue;
        sa = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        sb = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
        kt_err_set(err, KT_S_INPUT,
                   "--kt-cache %s: %s is %.200s, this run's is %.200s: a "
                   "Kernel Tuner cache continues only the same kernel, "
                   "device, problem size and parameters; name another file",
                   w->path, fields[i], sa ? sa : "missing", sb ? sb : "?");
        free(sa);
        free(sb);
        return KT_S_INPUT;
    }
    return KT_S_OK;
}

/* The file's text: the header without its last "}\n}", each entry as
 * Kernel Tuner's store_cache appends it ("\n" "key": {...} ","). */
static char *entry_text(const char *key, const json_t *entry)
{
    json_t *name = json_string(key);
    char *k = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
    char *e = json_dumps(entry, JSON_COMPACT);
    size_t size = (k ? strlen(k) : 0) + (e ? strlen(e) : 0) + 8;
    char *text = k && e ? malloc(size) : NULL;

    if (text)
        snprintf(text, size, "\n%s: %s,", k, e);
    json_decref(name);
    free(k);
    free(e);
    return text;
}

/* The header's text up to the open "cache" object. */
static char *header_text(const json_t *header)
{
    json_t *copy = json_copy((json_t *)header);
    char *h = NULL;

    if (copy) {
        json_object_del(copy, "cache");
        h = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(copy);
    }
    size_t n = h ? strlen(h) : 0;
    char *text = n ? malloc(n + 16) : NULL;

    if (text) {
        memcpy(text, h, n - 1); /* without the closing brace */
        memcpy(text + n - 1, ",\n\"cache\": {", 13);
    }
    free(h);
    return text;
}

/* Puts the header and the entries of a continued file (cache, or NULL) in
 * place whole, then opens it for appending. */
static kt_status start_file(kt_ktcache_writer *w, const json_t *header,
                            json_t *cache, kt_err *err)
{
    char *head = header_text(header);
    FILE *out = head ? kt_out_open(w->path) : NULL;
    const char *key;
    json_t *entry;
    int ok = out && fputs(head, out) >= 0;

    json_object_foreach (cache, key, entry) {
        char *text = entry_text(key, entry);
        ok = ok && text && fputs(text, out) >= 0 &&
             !json_object_set_new(w->keys, key, json_true());
        free(text);
    }
    free(head);
    if (!out || (ok ? kt_out_close(out) != 0 : (kt_out_discard(out), 1)))
        return kt_err_set(err, KT_S_IO, "--kt-cache %s: cannot write: %s",
                          w->path, ok ? strerror(errno) : "out of memory");
    if ((w->fd = open(w->path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
        return kt_err_set(err, KT_S_IO, "--kt-cache %s: cannot open: %s",
                          w->path, strerror(errno));
    w->last_sync = now_s();
    return KT_S_OK;
}

/* A cache to continue, read whole with its entries as written (a
 * metric Kernel Tuner recorded is kept), closed first where a killed run
 * left it open, as Kernel Tuner's correct_open_cache closes it. A key
 * written twice is refused. Plain JSON: Kernel Tuner writes no other. */
static kt_status read_existing(const char *path, json_t **doc, kt_err *err)
{
    char *text = NULL, *closed;
    size_t len = 0;
    json_error_t jerr;
    kt_status rc;

    *doc = NULL;
    if ((rc = kt_file_read(path, "--kt-cache", KT_KTCACHE_MAX_BYTES, &text,
                           &len, err)))
        return rc;
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' ||
                   text[len - 1] == '\t' || text[len - 1] == '\r'))
        --len;
    if (len && (text[len - 1] == ',' || text[len - 1] == '{') &&
        (closed = realloc(text, len + 4))) {
        text = closed;
        len -= text[len - 1] == ',';
        memcpy(text + len, "}\n}", 3);
        len += 3;
    }
    *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!*doc)
        return kt_err_set(err, KT_S_INPUT, "%s:%d:%d: %s", path, jerr.line,
                          jerr.column, jerr.text);
    return KT_S_OK;
}

/* The one variant a Kernel Tuner cache can hold. */
static kt_status one_slot(kt_ktcache_writer *w, kt_err *err)
{
    const kt_space *space = w->f->space;

    if (w->ext)
        return KT_S_OK;
    if (space->num_slots != 1)
        return kt_err_set(err, KT_S_INPUT,
                          "--kt-cache %s: a Kernel Tuner cache holds one "
                          "kernel's parameters; this space has %zu variants: "
                          "choose one with --set space.variant=ID",
                          w->path, space->num_slots);
    if (space->settings > 1)
        return kt_err_set(err, KT_S_INPUT,
                          "--kt-cache %s: the space lists device settings "
                          "(nvml_*), which a Kernel Tuner cache does not key",
                          w->path);
    w->slot = &space->slots[0];
    return KT_S_OK;
}

kt_status kt_ktcache_writer_open(const char *path, const kt_tune_facts *f,
                                 kt_ktcache_writer **out, kt_err *err)
{
    kt_ktcache_writer *w = calloc(1, sizeof *w);
    json_t *header = NULL, *have = NULL;
    struct stat st;
    kt_status rc = KT_S_OK;

    *out = NULL;
    if (!w || !(w->path = strdup(path)) || !(w->keys = json_object()) ||
        !(w->finals = json_object())) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    w->fd = -1;
    w->facts = *f;
    w->f = &w->facts;
    /* Another tool's recording is its own operator (records/extrec.h). */
    w->ext = kt_extrec_of(f->op);
    if ((rc = one_slot(w, err)))
        goto done;
    if (!(header = header_json(w))) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    /* An empty file (made by `touch`, or by a run killed before its
     * header) is a new cache, as it holds nothing to continue. */
    if (stat(path, &st) == 0 && st.st_size > 0 &&
        ((rc = read_existing(path, &have, err)) ||
         (rc = same_run(w, have, header, err)))) {
        if (!have) /* same_run's message names the flag already */
            kt_err_prefix(err, "--kt-cache: ");
        goto done;
    }
    if (have && !json_is_object(json_object_get(have, "cache"))) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "--kt-cache %s: no \"cache\" object: not a Kernel "
                        "Tuner cache file; name another file",
                        path);
        goto done;
    }
    rc = start_file(w, have ? have : header, json_object_get(have, "cache"),
                    err);
done:
    json_decref(header);
    json_decref(have);
    if (rc) {
        kt_ktcache_writer_close(w, NULL);
        w = NULL;
    }
    *out = w;
    return rc;
}

/* When the point was evaluated, as Kernel Tuner's sequential runner writes
 * it (str(datetime.now(timezone.utc))). */
static void stamp(time_t when, json_t *j)
{
    char text[64];
    struct tm tm;

    gmtime_r(&when, &tm);
    strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S+00:00", &tm);
    json_object_set_new(j, "timestamp", json_string(text));
}

/* Kernel Tuner's error name for a point that did not run. */
static const char *error_name(const kt_tune_entry *e)
{
    const char *c = kt_t4_invalidity(e->status, e->reason, e->host_checked);
    return strcmp(c, "compile") == 0       ? "CompilationFailedConfig"
           : strcmp(c, "constraints") == 0 ? "InvalidConfig"
                                           : "RuntimeFailedConfig";
}

/* Kernel Tuner's per-configuration times (ms), ktune's phases as the T4
 * writer gives them (records/t4.c): time is the median, times every kept
 * sample. */
static void live_fields(const kt_tune_entry *e, json_t *j)
{
    const kt_timing *t = &e->timing;
    double compile = 1e3 * e->compile_s, verify = 1e3 * e->phases.verify_s;
    double bench = e->status == KT_EVAL_OK ? 1e3 * t->wall_time_s : 0;
    double framework = 1e3 * e->call_s - compile - verify - bench;
    json_t *times = json_array();

    for (size_t k = 0; e->status == KT_EVAL_OK && k < t->num_rounds; ++k)
        if (t->samples_us && isfinite(t->samples_us[k]))
            json_array_append_new(times, json_real(t->samples_us[k] / 1e3));
    json_object_set_new(j, "time",
                        e->status == KT_EVAL_OK
                            ? json_real(t->kernel.median / 1e3)
                            : json_string(error_name(e)));
    json_object_set_new(j, "times", times);
    json_object_set_new(j, "compile_time", json_real(compile));
    json_object_set_new(j, "verification_time", json_real(verify));
    json_object_set_new(j, "benchmark_time", json_real(bench));
    json_object_set_new(j, "strategy_time", json_real(1e3 * e->strategy_s));
    json_object_set_new(j, "framework_time",
                        json_real(framework > 0 ? framework : 0.0));
}

/* A recorded configuration as its recording had it. */
static void recorded_fields(const kt_extrec *rec, const kt_extrec_record *r,
                            const kt_tune_entry *e, json_t *j)
{
    json_t *times = json_array();

    (void)rec; /* records hold milliseconds already */
    for (uint32_t k = 0; r->runs_ms && k < r->num_runs; ++k)
        json_array_append_new(times, json_real(r->runs_ms[k]));
    json_object_set_new(j, "time",
                        r->verdict == KT_EXTREC_CORRECT ? json_real(r->time_ms)
                        : json_is_string(r->objective)
                            ? json_incref(r->objective)
                            : json_string(error_name(e)));
    json_object_set_new(j, "times", times);
    json_object_set_new(j, "compile_time", json_real(r->compile_ms));
    json_object_set_new(j, "verification_time", json_real(r->verify_ms));
    json_object_set_new(j, "benchmark_time", json_real(r->bench_ms));
    json_object_set_new(j, "strategy_time", json_real(1e3 * e->strategy_s));
    json_object_set_new(j, "framework_time", json_real(r->framework_ms));
}

/* A measured point's key, and its parameters into j (when not NULL). */
static void live_key(const kt_ktcache_writer *w, const kt_point *pt,
                     json_t *key, json_t *j)
{
    const kt_variant *v = &w->f->op->variants[pt->variant];
    json_t *parts = json_array();

    for (uint32_t p = 0; p < pt->count; ++p) {
        json_t *value = param_value(&v->params[p], pt->values[p]);
        if (j)
            json_object_set(j, v->params[p].name, value);
        json_array_append_new(parts, value);
    }
    join_key(parts, key);
    json_decref(parts);
}

/* The entry and its key; NULL entry: nothing to write. */
static json_t *entry_json(const kt_ktcache_writer *w, const kt_tune_entry *e,
                          json_t *key)
{
    json_t *j = json_object();
    kt_point pt;

    kt_space_point(w->f->space, e->index, &pt);
    if (w->ext) {
        const kt_extrec_record *r = kt_extrec_find(w->ext, &pt);
        if (!r || e->host_checked || !r->key) {
            json_decref(j);
            return NULL;
        }
        json_string_set(key, r->key);
        for (size_t p = 0; p < w->ext->num_params; ++p) {
            const kt_extrec_param *par = &w->ext->params[p];
            uint32_t pos = 0;
            for (uint32_t k = 0; k < par->count; ++k)
                if (par->integer ? par->ints[k] == pt.values[p]
                                 : (int64_t)k == pt.values[p])
                    pos = k;
            json_object_set(j, par->name, par->values[pos]);
        }
        recorded_fields(w->ext, r, e, j);
    } else {
        live_key(w, &pt, key, j);
        live_fields(e, j);
    }
    stamp(e->when, j);
    return j;
}

kt_status kt_ktcache_writer_add(kt_ktcache_writer *w, const kt_tune_entry *e,
                                kt_err *err)
{
    json_t *key = json_string(""), *entry = key ? entry_json(w, e, key) : NULL;
    const char *k = key ? json_string_value(key) : "";
    char *text = NULL;
    size_t len, done = 0;
    kt_status rc = KT_S_OK;

    if (!entry || !k[0] || json_object_get(w->keys, k))
        goto done; /* not the recording's, or written already */
    if (json_object_set(w->keys, k, json_true()) ||
        !(text = entry_text(k, entry))) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    /* One write per entry: once it returns the entry is the kernel's, and
     * a killed run loses none. */
    for (len = strlen(text); done < len;) {
        ssize_t n = write(w->fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = kt_err_set(err, KT_S_IO, "--kt-cache %s: write failed: %s",
                            w->path, strerror(errno));
            goto done;
        }
        done += (size_t)n;
    }
    w->unsynced = 1;
    if (now_s() - w->last_sync >= SYNC_EVERY_S) {
        if (fdatasync(w->fd) != 0)
            rc = kt_err_set(err, KT_S_IO, "--kt-cache %s: fdatasync failed: %s",
                            w->path, strerror(errno));
        w->last_sync = now_s();
        w->unsynced = 0;
    }
done:
    free(text);
    json_decref(entry);
    json_decref(key);
    return rc;
}

kt_status kt_ktcache_writer_on_entry(void *ctx, const kt_tune_entry *e,
                                     kt_err *err)
{
    return kt_ktcache_writer_add(ctx, e, err);
}

kt_status kt_ktcache_writer_finals(kt_ktcache_writer *w,
                                   const kt_tune_result *r, kt_err *err)
{
    kt_status rc = KT_S_OK;

    if (!w || w->ext || !r->final_measured || !r->has_best)
        return KT_S_OK;
    for (size_t i = 0; i < r->num_finals && !rc; ++i) {
        const kt_tune_final *f = &r->finals[i];
        json_t *key = json_string(""), *fig = json_object();
        json_t *times = json_array();
        for (size_t k = 0; times && k < f->num_samples; ++k)
            if (isfinite(f->samples_us[k]))
                json_array_append_new(times, json_real(f->samples_us[k] / 1e3));
        if (key)
            live_key(w, &f->point, key, NULL);
        if (!key || !fig || !times ||
            json_object_set_new(fig, "time",
                                json_real(f->stats.median / 1e3)) ||
            json_object_set(fig, "times", times) ||
            json_object_set(w->finals, json_string_value(key), fig) ||
            (i == 0 && !(w->winner = strdup(json_string_value(key)))))
            rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        json_decref(key);
        json_decref(fig);
        json_decref(times);
    }
    return rc;
}

/* The configuration Kernel Tuner takes from doc's cache (the lowest
 * "time"), noted where it is not the answer. */
static void note_kt_best(const kt_ktcache_writer *w, const json_t *cache)
{
    const char *key, *best = NULL;
    const json_t *e, *mine = json_object_get(cache, w->winner);
    double low = INFINITY;

    json_object_foreach ((json_t *)cache, key, e) {
        const json_t *t = json_object_get(e, "time");
        if (json_is_real(t) && json_real_value(t) < low) {
            low = json_real_value(t);
            best = key;
        }
    }
    if (best && mine && strcmp(best, w->winner) != 0)
        kt_msg("--kt-cache %s: Kernel Tuner, which takes the lowest time, "
               "will pick %s (%.6g ms, as the search measured it) over "
               "ktune's answer %s (%.6g ms, its closing re-measurement "
               "with the other finalists)\n",
               w->path, best, low, w->winner,
               json_real_value(json_object_get(mine, "time")));
}

/* The file as a closed document with the finalists' closing figures
 * written over their entries, put in place whole; text is the open file
 * closed. */
static kt_status rewrite_finals(kt_ktcache_writer *w, const char *text,
                                size_t len, kt_err *err)
{
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    json_t *cache = json_object_get(doc, "cache"), *fig, *entry;
    const char *key;
    char *head = doc ? header_text(doc) : NULL;
    FILE *out = head ? kt_out_open(w->path) : NULL;
    int ok = out && fputs(head, out) >= 0;
    kt_status rc = KT_S_OK;

    json_object_foreach (w->finals, key, fig)
        if ((entry = json_object_get(cache, key)))
            json_object_update(entry, fig);
    json_object_foreach (cache, key, entry) {
        char *t = entry_text(key, entry);
        ok = ok && t && fputs(t, out) >= 0;
        free(t);
    }
    /* Over the last entry's comma (there are entries: the finalists'). */
    ok = ok && json_object_size(cache) && fseek(out, -1, SEEK_CUR) == 0;
    ok = ok && fputs("}\n}\n", out) >= 0;
    if (!out || (ok ? kt_out_close(out) != 0 : (kt_out_discard(out), 1)))
        rc =
            kt_err_set(err, KT_S_IO, "--kt-cache %s: cannot close: %s", w->path,
                       !doc ? jerr.text
                       : ok ? strerror(errno)
                            : "out of memory");
    if (!rc)
        note_kt_best(w, cache);
    free(head);
    json_decref(doc);
    return rc;
}

/* The open text closed as Kernel Tuner's close_cache closes it: the last
 * comma dropped, "}\n}" added; put in place whole (with the finalists'
 * closing figures, where kt_ktcache_writer_finals gave them). */
static kt_status close_file(kt_ktcache_writer *w, kt_err *err)
{
    char *text = NULL, *closed;
    size_t len = 0;
    FILE *out;
    kt_status rc;

    if ((rc = kt_file_read(w->path, "--kt-cache", SIZE_MAX, &text, &len, err)))
        return rc;
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        --len;
    if (len && text[len - 1] == ',')
        --len;
    if (json_object_size(w->finals) && w->winner) {
        if ((closed = realloc(text, len + 4))) {
            text = closed;
            memcpy(text + len, "}\n}", 3);
            rc = rewrite_finals(w, text, len + 3, err);
        } else
            rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        free(text);
        return rc;
    }
    out = kt_out_open(w->path);
    if (!out || fwrite(text, 1, len, out) != len || fputs("}\n}\n", out) < 0 ||
        kt_out_close(out) != 0) {
        if (out)
            kt_out_discard(out);
        rc = kt_err_set(err, KT_S_IO, "--kt-cache %s: cannot close: %s",
                        w->path, strerror(errno));
    }
    free(text);
    return rc;
}

kt_status kt_ktcache_writer_close(kt_ktcache_writer *w, kt_err *err)
{
    kt_status rc = KT_S_OK;

    if (!w)
        return KT_S_OK;
    if (w->fd >= 0) {
        if (close(w->fd) != 0 && err)
            rc = kt_err_set(err, KT_S_IO, "--kt-cache %s: close failed: %s",
                            w->path, strerror(errno));
        if (!rc && err)
            rc = close_file(w, err);
    }
    json_decref(w->keys);
    json_decref(w->finals);
    free(w->winner);
    free(w->path);
    free(w);
    return rc;
}
