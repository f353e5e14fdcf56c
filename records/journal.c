// SPDX-License-Identifier: Apache-2.0
#include "records/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/clock.h"
#include "core/energy_json.h"
#include "core/envrec.h"
#include "core/fileio.h"
#include "core/result_json.h"
#include "records/journal_check.h"

/* ------------------------------------------------------------- reading */

/* Reads a journal whole, or its first `limit` bytes up to a newline
 * (limit 0: all). gzip-compressed journals (recordings, *.jsonl.gz) read
 * like plain ones: zlib passes uncompressed files through unchanged. */
static kt_status read_text(const char *path, size_t limit, char **text,
                           size_t *len, kt_err *err)
{
    gzFile f;
    char *buf = NULL;
    size_t cap = 0, used = 0;
    int got, zerr = 0;
    kt_status rc;

    /* A directory, FIFO or device is refused, not waited on or read
     * without end. */
    if ((rc = kt_file_check_regular(path, "journal", err)))
        return rc;
    if (!(f = gzopen(path, "rb")))
        return kt_err_set(err, errno == ENOENT ? KT_S_INPUT : KT_S_IO,
                          "%s: cannot open: %s", path, strerror(errno));
    do {
        if (used + 65536 + 1 > cap) {
            char *grown;
            cap = cap ? 2 * cap : 1 << 20;
            grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                gzclose(f);
                return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
            }
            buf = grown;
        }
        got = gzread(f, buf + used,
                     (unsigned)(cap - used - 1 < (1u << 30) ? cap - used - 1
                                                            : (1u << 30)));
        if (got > 0)
            used += (size_t)got;
        if (limit && got > 0 && memchr(buf + used - got, '\n', (size_t)got))
            break;
        if (used > KT_FILE_MAX_BYTES) {
            free(buf);
            gzclose(f);
            return kt_err_set(err, KT_S_INPUT,
                              "%s: more than %zu bytes; refusing to read it",
                              path, KT_FILE_MAX_BYTES);
        }
    } while (got > 0 && (!limit || used < limit));
    if (got < 0) {
        /* gzerror's text lives in f: copied before gzclose frees it. */
        rc = kt_err_set(err, KT_S_INPUT, "%s: read error: %s", path,
                        gzerror(f, &zerr));
        free(buf);
        gzclose(f);
        return rc;
    }
    gzclose(f);
    if (!buf && !(buf = malloc(1)))
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return KT_S_OK;
}

kt_status kt_journal_text(const char *path, char **text, size_t *len,
                          kt_err *err)
{
    return read_text(path, 0, text, len, err);
}

static kt_status shape_from_json(const json_t *j, kt_shape *shape)
{
    json_int_t g[3] = {0, 0, 0}, b[3] = {0, 0, 0}, smem = 0;

    memset(shape, 0, sizeof *shape);
    shape->struct_size = sizeof *shape;
    if (!j)
        return KT_S_OK;
    if (json_unpack((json_t *)j, "{s:[III],s:[III],s:I}", "grid", &g[0], &g[1],
                    &g[2], "block", &b[0], &b[1], &b[2], "dynamic_smem_bytes",
                    &smem))
        return KT_S_INPUT;
    for (int i = 0; i < 3; ++i) {
        if (g[i] < 0 || g[i] > UINT32_MAX || b[i] < 0 || b[i] > UINT32_MAX)
            return KT_S_INPUT;
        shape->grid[i] = (uint32_t)g[i];
        shape->block[i] = (uint32_t)b[i];
    }
    if (smem < 0 || smem > UINT32_MAX)
        return KT_S_INPUT;
    shape->dynamic_smem_bytes = (uint32_t)smem;
    return KT_S_OK;
}

static kt_status parse_eval(const json_t *rec, const kt_operator *op,
                            kt_journal_entry *e, kt_err *err)
{
    json_int_t call = 0, slot = 0, of = 0, env = 0;
    const char *purpose = "", *status = "", *reason = "";
    json_t *point = NULL, *timing;
    json_error_t jerr;
    kt_status rc;

    memset(e, 0, sizeof *e);
    if (json_unpack_ex((json_t *)rec, &jerr, 0,
                       "{s:I,s:I,s:I,s:s,s:I,s:F,s:o,s:s,s?s}", "call", &call,
                       "slot", &slot, "of", &of, "purpose", &purpose, "env",
                       &env, "elapsed_s", &e->elapsed_s, "point", &point,
                       "status", &status, "reason", &reason))
        return kt_err_set(err, KT_S_INPUT, "evaluation record: %s", jerr.text);
    if (call < 1 || of < 1 || slot < 0 || slot >= of)
        return kt_err_set(err, KT_S_INPUT,
                          "evaluation record: call %lld, slot %lld of %lld "
                          "are not a place in a call",
                          (long long)call, (long long)slot, (long long)of);
    if (env < 0 || env > INT32_MAX)
        return kt_err_set(err, KT_S_INPUT,
                          "evaluation record: env %lld names no environment",
                          (long long)env);
    e->call = (size_t)call;
    e->slot = (size_t)slot;
    e->of = (size_t)of;
    e->env = (int)env;
    snprintf(e->purpose, sizeof e->purpose, "%s", purpose);
    if ((rc = kt_point_from_json(op, point, &e->point, err)) ||
        (rc = kt_point_validate(op, &e->point, err)) ||
        (rc = kt_eval_status_parse(status, &e->result.status, err)))
        return rc;
    snprintf(e->result.reason, sizeof e->result.reason, "%s", reason);
    /* Phases came later: a record without them reads as all zero. */
    if ((rc = kt_eval_phases_from_json(json_object_get(rec, "phases"),
                                       &e->result.phases, err)) ||
        (rc = kt_energy_from_json(json_object_get(rec, "energy"),
                                  &e->result.energy, err)))
        return rc;
    kt_eval_work_from_json(rec, &e->result); /* a point's own, if it had one */
    if (shape_from_json(json_object_get(rec, "shape"), &e->result.shape))
        return kt_err_set(err, KT_S_INPUT,
                          "evaluation record: 'shape' needs grid, block "
                          "and dynamic_smem_bytes (integers, 0 to 2^32 - 1)");
    timing = json_object_get(rec, "timing");
    if (e->result.status == KT_EVAL_OK) {
        if (!timing)
            return kt_err_set(err, KT_S_INPUT,
                              "evaluation record: status ok without timing");
        if ((rc = kt_timing_from_json(timing, &e->result.timing, err)))
            return rc;
        if (e->result.timing.num_rounds == 0 || !e->result.timing.samples_us)
            return kt_err_set(err, KT_S_INPUT,
                              "evaluation record: timing without raw "
                              "samples (samples_us)");
    }
    return KT_S_OK;
}

/* Keeps a profile record: its point (checked against op) and the record. */
static kt_status add_profile(kt_journal_log *log, const kt_operator *op,
                             json_t *rec, kt_err *err)
{
    kt_journal_profile *grown, *p;
    json_int_t env = 0;
    double elapsed = 0;
    kt_status rc;

    grown = realloc(log->profiles, (log->num_profiles + 1) * sizeof *grown);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    log->profiles = grown;
    p = &grown[log->num_profiles];
    memset(p, 0, sizeof *p);
    if ((rc = kt_point_from_json(op, json_object_get(rec, "point"), &p->point,
                                 err)) ||
        (rc = kt_point_validate(op, &p->point, err)))
        return kt_err_prefix(err, "profile record: ");
    if (json_unpack((json_t *)rec, "{s?I,s?F}", "env", &env, "elapsed_s",
                    &elapsed))
        return kt_err_set(err, KT_S_INPUT,
                          "profile record: env and elapsed_s must be numbers");
    p->env = (int)env;
    p->elapsed_s = elapsed;
    p->record = json_incref(rec);
    ++log->num_profiles;
    return KT_S_OK;
}

/* What any record after the header must be: not a second header, and
 * of this journal's run (the header's run id, or none where the header
 * has none); an environment record's id the next one and its numbers a
 * GPU's. */
static kt_status check_record(const kt_journal_log *log, const json_t *rec,
                              const char *kind, kt_err *err)
{
    const char *run = json_string_value(json_object_get(rec, "run"));
    const json_t *id;

    if (kind && strcmp(kind, "ktune.journal") == 0)
        return kt_err_set(err, KT_S_INPUT,
                          "a second header: a journal has one, on line 1 "
                          "(two journals joined?)");
    if (log->run[0] && (!run || strcmp(run, log->run) != 0))
        return kt_err_set(err, KT_S_INPUT,
                          "a record of another run (run %s; this journal's "
                          "run is %s): spliced in from another journal?",
                          run ? run : "missing", log->run);
    if (!log->run[0] && json_object_get(rec, "run"))
        return kt_err_set(err, KT_S_INPUT,
                          "a record of a run (run %s) in a journal whose "
                          "header names none: spliced in from another "
                          "journal?",
                          run ? run : "not text");
    if (!kind || strcmp(kind, "environment") != 0)
        return KT_S_OK;
    id = json_object_get(json_object_get(rec, "environment"), "id");
    if (id && (!json_is_integer(id) ||
               json_integer_value(id) != (json_int_t)log->num_envs))
        return kt_err_set(err, KT_S_INPUT,
                          "environment record: id is not %d, the next one",
                          log->num_envs);
    return kt_journal_check_env(json_object_get(rec, "environment"), err);
}

/* An evaluation record in its place: calls numbered 1, 2, 3, ... with no
 * gap (a gap is a record deleted: the run wrote every call), the records
 * of one call in slot order, none twice. */
static kt_status check_sequence(const kt_journal_log *log,
                                const kt_journal_entry *cur, kt_err *err)
{
    const kt_journal_entry *prev =
        log->count ? &log->entries[log->count - 1] : NULL;

    if (prev && cur->call == prev->call) {
        if (cur->slot != prev->slot + 1 || cur->of != prev->of)
            return kt_err_set(err, KT_S_INPUT,
                              "call %zu: slot %zu of %zu follows slot %zu of "
                              "%zu (a record repeated or out of place)",
                              cur->call, cur->slot, cur->of, prev->slot,
                              prev->of);
        return KT_S_OK;
    }
    if (prev && cur->call < prev->call)
        return kt_err_set(err, KT_S_INPUT,
                          "call %zu follows call %zu: calls are numbered "
                          "upwards (a record repeated or spliced in?)",
                          cur->call, prev->call);
    if (cur->call != (prev ? prev->call + 1 : 1))
        return kt_err_set(err, KT_S_INPUT,
                          "call %zu follows %s %zu: calls are numbered with "
                          "no gap (a record deleted?)",
                          cur->call, prev ? "call" : "the header, not call",
                          prev ? prev->call : (size_t)1);
    if (cur->slot != 0)
        return kt_err_set(err, KT_S_INPUT, "call %zu starts at slot %zu, not 0",
                          cur->call, cur->slot);
    return KT_S_OK;
}

/* Drops the trailing entries of a call that has fewer records than it
 * announced; returns how many were dropped. */
static size_t drop_partial_call(kt_journal_log *log, long long *cut_at,
                                const long long *starts)
{
    size_t last, first;

    if (log->count == 0)
        return 0;
    last = log->count - 1;
    first = last;
    while (first > 0 && log->entries[first - 1].call == log->entries[last].call)
        --first;
    if (log->count - first >= log->entries[last].of)
        return 0;
    *cut_at = starts[first];
    for (size_t i = first; i < log->count; ++i)
        kt_eval_result_free(&log->entries[i].result);
    {
        size_t dropped = log->count - first;
        log->count = first;
        return dropped;
    }
}

kt_status kt_journal_read(const char *path, const kt_operator *op,
                          kt_journal_log *log, kt_err *err)
{
    char *text = NULL, *line;
    size_t len = 0, lineno = 0, cap = 0;
    long long *starts = NULL, offset = 0;
    kt_status rc;

    memset(log, 0, sizeof *log);
    if ((rc = read_text(path, 0, &text, &len, err)))
        return rc;
    log->read_bytes = (long long)len;
    line = text;
    while ((size_t)(line - text) < len) {
        size_t left = len - (size_t)(line - text);
        char *nl = memchr(line, '\n', left);
        char *nul = memchr(line, '\0', nl ? (size_t)(nl - line) : left);
        json_error_t jerr;
        json_t *rec;
        const char *kind;

        ++lineno;
        if (nul && nl) {
            /* A complete line with a NUL byte is damage, not a torn write:
             * cutting there would drop every record after it. */
            rc = kt_err_set(err, KT_S_INPUT,
                            "%s:%zu: a NUL byte at column %zu: the journal is "
                            "damaged; nothing was changed (repair or remove "
                            "that line by hand)",
                            path, lineno, (size_t)(nul - line) + 1);
            goto fail;
        }
        if (!nl) {
            /* A line without its newline was being written when the run
             * died: everything before it is intact. */
            snprintf(log->note, sizeof log->note,
                     "%s:%zu: the last line is incomplete (the run was "
                     "stopped while writing it); dropped",
                     path, lineno);
            break;
        }
        *nl = '\0';
        offset = (long long)(nl + 1 - text);
        if (strspn(line, " \t\r") == strlen(line)) {
            line = nl + 1;
            log->keep_bytes = offset;
            continue;
        }
        rec = json_loads(line, 0, &jerr);
        if (!rec) {
            rc = kt_err_set(err, KT_S_INPUT, "%s:%zu: not a JSON record: %s",
                            path, lineno, jerr.text);
            goto fail;
        }
        kind = json_string_value(json_object_get(rec, "kind"));
        if (lineno == 1) {
            if ((rc = kt_journal_check_head(rec, path, err))) {
                json_decref(rec);
                goto fail;
            }
            snprintf(log->run, sizeof log->run, "%s",
                     json_string_value(json_object_get(rec, "run"))
                         ? json_string_value(json_object_get(rec, "run"))
                         : "");
            log->format =
                (int)json_integer_value(json_object_get(rec, "format"));
            log->header = rec;
            log->num_envs = 1;
            log->keep_bytes = offset;
            line = nl + 1;
            continue;
        }
        if ((rc = check_record(log, rec, kind, err))) {
            json_decref(rec);
            kt_err_prefix(err, "%s:%zu: ", path, lineno);
            goto fail;
        }
        if (kind && strcmp(kind, "eval") == 0) {
            kt_journal_entry *grown;
            if (log->count == cap) {
                long long *sg;
                cap = cap ? 2 * cap : 256;
                grown = realloc(log->entries, cap * sizeof *grown);
                sg = grown ? realloc(starts, cap * sizeof *sg) : NULL;
                if (grown)
                    log->entries = grown;
                if (!grown || !sg) {
                    json_decref(rec);
                    rc = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
                    goto fail;
                }
                starts = sg;
            }
            rc = parse_eval(rec, op, &log->entries[log->count], err);
            if (!rc)
                rc = kt_journal_check_eval(op, rec, &log->entries[log->count],
                                           log->num_envs, err);
            if (!rc)
                rc = kt_journal_check_point(rec, err);
            if (!rc)
                rc = check_sequence(log, &log->entries[log->count], err);
            if (rc) {
                kt_eval_result_free(&log->entries[log->count].result);
                json_decref(rec);
                kt_err_prefix(err, "%s:%zu: ", path, lineno);
                goto fail;
            }
            starts[log->count] = (long long)(line - text);
            if (log->count > 0) {
                const kt_journal_entry *prev = &log->entries[log->count - 1];
                const kt_journal_entry *cur = &log->entries[log->count];
                /* Records of a call are written together, in slot order. */
                if (cur->call != prev->call && prev->slot + 1 != prev->of) {
                    kt_eval_result_free(&log->entries[log->count].result);
                    json_decref(rec);
                    rc = kt_err_set(err, KT_S_INPUT,
                                    "%s:%zu: call %zu starts before call "
                                    "%zu has all its %zu records",
                                    path, lineno, cur->call, prev->call,
                                    prev->of);
                    goto fail;
                }
            }
            ++log->count;
        } else if (kind && strcmp(kind, "check") == 0) {
            kt_point pt, *grown;
            if ((rc = kt_point_from_json(op, json_object_get(rec, "point"), &pt,
                                         err)) ||
                (rc = kt_journal_check_point(rec, err))) {
                json_decref(rec);
                kt_err_prefix(err, "%s:%zu: ", path, lineno);
                goto fail;
            }
            grown =
                realloc(log->checked, (log->num_checked + 1) * sizeof *grown);
            if (!grown) {
                json_decref(rec);
                rc = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
                goto fail;
            }
            log->checked = grown;
            grown[log->num_checked++] = pt;
        } else if (kind && strcmp(kind, "environment") == 0) {
            ++log->num_envs;
        } else if (kind && strcmp(kind, "profile") == 0) {
            if ((rc = add_profile(log, op, rec, err))) {
                json_decref(rec);
                kt_err_prefix(err, "%s:%zu: ", path, lineno);
                goto fail;
            }
        }
        /* Other kinds come from newer versions; they carry nothing this
         * version needs. */
        json_decref(rec);
        log->keep_bytes = offset;
        line = nl + 1;
    }
    if (!log->header) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: empty: no header record (a run stopped before "
                        "writing it; --resume starts it afresh)",
                        path);
        goto fail;
    }
    {
        long long cut = log->keep_bytes;
        size_t dropped = drop_partial_call(log, &cut, starts);
        if (dropped) {
            size_t used = strlen(log->note);
            snprintf(log->note + used, sizeof log->note - used,
                     "%s%s: the last evaluate() call has %zu of its records; "
                     "dropped (those points are measured again)",
                     used ? "; " : "", path, dropped);
            log->keep_bytes = cut;
        }
    }
    for (size_t i = 0; i < log->count; ++i)
        if (log->entries[i].call > log->max_call)
            log->max_call = log->entries[i].call;
    free(starts);
    free(text);
    return KT_S_OK;
fail:
    free(starts);
    free(text);
    kt_journal_log_free(log);
    return rc;
}

void kt_journal_log_free(kt_journal_log *log)
{
    for (size_t i = 0; i < log->count; ++i)
        kt_eval_result_free(&log->entries[i].result);
    for (size_t i = 0; i < log->num_profiles; ++i)
        json_decref(log->profiles[i].record);
    free(log->profiles);
    free(log->entries);
    free(log->checked);
    json_decref(log->header);
    memset(log, 0, sizeof *log);
}

kt_status kt_journal_read_header(const char *path, json_t **header, kt_err *err)
{
    char *line = NULL, *nl;
    size_t len = 0;
    json_error_t jerr;
    json_t *h = NULL;
    kt_status rc;

    *header = NULL;
    if ((rc = read_text(path, 1, &line, &len, err)))
        return rc;
    if ((nl = strchr(line, '\n')))
        *nl = '\0';
    if (!len || !(h = json_loads(line, 0, &jerr)) || !json_is_object(h)) {
        json_decref(h);
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s:1: not a ktune journal (the first record's kind "
                        "is not \"ktune.journal\")",
                        path);
    } else if ((rc = kt_journal_check_head(h, path, err))) {
        json_decref(h);
    } else {
        *header = h;
    }
    free(line);
    return rc;
}

int kt_journal_is_empty(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int empty;

    /* Bounded: an empty journal is short; a long one is not empty. */
    if (kt_file_read(path, "journal", 1 << 20, &text, &len, NULL))
        return 0;
    empty = memchr(text, '\n', len) == NULL;
    free(text);
    return empty;
}

/* ------------------------------------------------------------ the header */

/* The members every appended record ends with: the environment it was
 * measured in, the seconds since the run started (none when elapsed_s is
 * negative) and the UTC time of writing. */
static void stamp(const kt_journal *j, json_t *rec, double elapsed_s)
{
    char date[32];

    kt_clock_utc(date, sizeof date);
    json_object_set_new(rec, "env", json_integer(j->env));
    if (elapsed_s >= 0)
        json_object_set_new(rec, "elapsed_s", json_real(elapsed_s));
    json_object_set_new(rec, "time", json_string(date));
}

json_t *kt_journal_header(const kt_loaded_plugin *plugin, const char *spec,
                          const kt_operator *op, const int64_t *sizes,
                          uint64_t seed, const kt_space *space,
                          const kt_protocol *protocol, json_t *strategy,
                          json_t *environment)
{
    json_t *sz = json_object(), *fingerprint = kt_env_plugin(plugin);
    char date[32];

    kt_clock_utc(date, sizeof date);
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        json_object_set_new(sz, op->sizes[i].name, json_integer(sizes[i]));
    json_object_del(fingerprint, "path");
    json_object_set_new(environment, "id", json_integer(0));
    return json_pack("{s:s,s:i,s:s,s:s,s:o,s:s,s:o,s:I,s:o,s:o,s:o,s:o}",
                     "kind", "ktune.journal", "format", KT_JOURNAL_FORMAT,
                     "created", date, "plugin_spec", spec, "plugin",
                     fingerprint, "operator", op->id, "sizes", sz, "seed",
                     (json_int_t)seed, "space", kt_space_to_json(space),
                     "protocol", kt_env_protocol(protocol), "strategy",
                     strategy, "environment", environment);
}

void kt_journal_header_metrics(json_t *header, json_t *metrics)
{
    json_object_set_new(header, "format",
                        json_integer(KT_JOURNAL_FORMAT_COUNTERS));
    json_object_set_new(header, "metrics", metrics);
}

const kt_journal_profile *kt_journal_find_profile(const kt_journal_log *log,
                                                  const kt_point *pt)
{
    /* The latest: a resumed session may have profiled a point again. */
    for (size_t i = log->num_profiles; i-- > 0;)
        if (kt_point_equal(&log->profiles[i].point, pt))
            return &log->profiles[i];
    return NULL;
}

static const char *str_or(const json_t *obj, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : dflt;
}

/* Equal values, or both absent. */
static int same(const json_t *a, const json_t *b)
{
    return (!a && !b) || json_equal(a, b);
}

/* The first key whose values differ between two objects, or NULL. */
static const char *first_difference(const json_t *a, const json_t *b)
{
    const char *key;
    json_t *value;

    json_object_foreach ((json_t *)a, key, value) {
        if (!json_equal(value, json_object_get(b, key)))
            return key;
    }
    json_object_foreach ((json_t *)b, key, value) {
        if (!json_object_get(a, key))
            return key;
    }
    return NULL;
}

static void value_text(const json_t *v, char *out, size_t size)
{
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    snprintf(out, size, "%s", s ? s : "(absent)");
    free(s);
}

/* Describes where two space records differ, e.g. "vec4 items: [1,2,4,8]
 * in the journal, [2,4] now". */
static void space_difference(const json_t *rec, const json_t *now, char *out,
                             size_t size)
{
    const json_t *va = json_object_get(rec, "variants");
    const json_t *vb = json_object_get(now, "variants");
    char a[256], b[256];

    if (json_array_size(va) != json_array_size(vb)) {
        snprintf(out, size, "%zu variant(s) in the journal, %zu now",
                 json_array_size(va), json_array_size(vb));
        return;
    }
    for (size_t i = 0; i < json_array_size(va); ++i) {
        const json_t *x = json_array_get(va, i), *y = json_array_get(vb, i);
        const char *key;
        if (!json_equal(json_object_get(x, "id"), json_object_get(y, "id"))) {
            snprintf(out, size, "variant '%s' in the journal, '%s' now",
                     str_or(x, "id", "?"), str_or(y, "id", "?"));
            return;
        }
        key = first_difference(json_object_get(x, "params"),
                               json_object_get(y, "params"));
        if (key) {
            value_text(json_object_get(json_object_get(x, "params"), key), a,
                       sizeof a);
            value_text(json_object_get(json_object_get(y, "params"), key), b,
                       sizeof b);
            snprintf(out, size, "%s %s: %s in the journal, %s now",
                     str_or(x, "id", "?"), key, a, b);
            return;
        }
    }
    snprintf(out, size, "the space records differ");
}

kt_status kt_journal_compatible(const json_t *recorded, const json_t *now,
                                const char *path, char *note, size_t note_size,
                                kt_err *err)
{
    static const char *const build_keys[] = {
        "name",       "version",  "abi",       "cuda_runtime_version",
        "cuda_archs", "compiler", "build_date"};
    static const char *const protocol_keys[] = {
        "warmups",    "min_samples",  "max_samples",    "min_time_s",
        "max_time_s", "target_noise", "cache",          "batch",
        "end_to_end", "probe_ns",     "throttle_ratio", "screen_samples"};
    static const char *const device_keys[] = {"name", "compute_capability",
                                              "sm_count", "global_mem_bytes"};
    const json_t *pa = json_object_get(recorded, "plugin");
    const json_t *pb = json_object_get(now, "plugin");
    const json_t *da =
        json_object_get(json_object_get(recorded, "environment"), "device");
    const json_t *db =
        json_object_get(json_object_get(now, "environment"), "device");
    const char *hint = "resume needs the same conditions; to start over, "
                       "name a new journal with --journal FILE";
    char a[256], b[256], diff[512];
    const char *key;

    if (note_size)
        note[0] = '\0';
    for (size_t i = 0; i < sizeof build_keys / sizeof build_keys[0]; ++i) {
        const json_t *x = json_object_get(pa, build_keys[i]);
        const json_t *y = json_object_get(pb, build_keys[i]);
        if (!same(x, y)) {
            value_text(x, a, sizeof a);
            value_text(y, b, sizeof b);
            return kt_err_set(err, KT_S_INPUT,
                              "%s was written by another plugin build: "
                              "%s is %s in the journal, %s in the plugin "
                              "loaded now; %s",
                              path, build_keys[i], a, b, hint);
        }
    }
    if (!same(json_object_get(recorded, "operator"),
              json_object_get(now, "operator")) ||
        !same(json_object_get(recorded, "sizes"),
              json_object_get(now, "sizes")) ||
        !same(json_object_get(recorded, "seed"),
              json_object_get(now, "seed"))) {
        json_t *x = json_pack("{s:O?,s:O?,s:O?}", "operator",
                              json_object_get(recorded, "operator"), "sizes",
                              json_object_get(recorded, "sizes"), "seed",
                              json_object_get(recorded, "seed"));
        json_t *y = json_pack("{s:O?,s:O?,s:O?}", "operator",
                              json_object_get(now, "operator"), "sizes",
                              json_object_get(now, "sizes"), "seed",
                              json_object_get(now, "seed"));
        value_text(x, a, sizeof a);
        value_text(y, b, sizeof b);
        json_decref(x);
        json_decref(y);
        return kt_err_set(err, KT_S_INPUT,
                          "%s is another problem: %s in the journal, %s "
                          "now; %s",
                          path, a, b, hint);
    }
    for (size_t i = 0; i < sizeof device_keys / sizeof device_keys[0]; ++i) {
        const json_t *x = json_object_get(da, device_keys[i]);
        const json_t *y = json_object_get(db, device_keys[i]);
        if (!same(x, y)) {
            value_text(x, a, sizeof a);
            value_text(y, b, sizeof b);
            return kt_err_set(err, KT_S_INPUT,
                              "%s was measured on another device: %s is %s "
                              "in the journal, %s here; %s",
                              path, device_keys[i], a, b, hint);
        }
    }
    if (!same(json_object_get(da, "uuid"), json_object_get(db, "uuid")))
        snprintf(note, note_size,
                 "%s was measured on another %s (uuid %s); this one is %s: "
                 "the final re-measurement compares the finalists here",
                 path, str_or(da, "name", "GPU"), str_or(da, "uuid", "?"),
                 str_or(db, "uuid", "?"));
    if (!same(json_object_get(recorded, "space"),
              json_object_get(now, "space"))) {
        space_difference(json_object_get(recorded, "space"),
                         json_object_get(now, "space"), diff, sizeof diff);
        return kt_err_set(err, KT_S_INPUT, "%s searched another space: %s; %s",
                          path, diff, hint);
    }
    key = NULL;
    /* The measuring fields only: the descriptive text may change between
     * versions without changing a measurement. */
    for (size_t i = 0; !key && i < sizeof protocol_keys / sizeof *protocol_keys;
         ++i)
        if (!same(json_object_get(json_object_get(recorded, "protocol"),
                                  protocol_keys[i]),
                  json_object_get(json_object_get(now, "protocol"),
                                  protocol_keys[i])))
            key = protocol_keys[i];
    if (key) {
        value_text(json_object_get(json_object_get(recorded, "protocol"), key),
                   a, sizeof a);
        value_text(json_object_get(json_object_get(now, "protocol"), key), b,
                   sizeof b);
        return kt_err_set(err, KT_S_INPUT,
                          "%s used another measurement protocol: %s is %s "
                          "in the journal, %s now; %s",
                          path, key, a, b, hint);
    }
    return KT_S_OK;
}

/* ------------------------------------------------------------- writing */

/* One writer per journal: an exclusive flock held until close. A second
 * writer (another --resume of the same file) is refused at once instead of
 * measuring the same points again into the same file. */
static kt_status lock_journal(int fd, const char *path, kt_err *err)
{
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno == EWOULDBLOCK)
            return kt_err_set(err, KT_S_INPUT,
                              "journal %s is in use: another ktune is writing "
                              "it (it holds the file's lock); wait for that "
                              "run to end, then --resume",
                              path);
        return kt_err_set(err, KT_S_IO, "journal %s: cannot lock: %s", path,
                          strerror(errno));
    }
    return KT_S_OK;
}

/* Opens an existing journal that holds no complete line (a run stopped
 * between creating it and writing its header) to be written afresh. */
static int take_over_empty(const char *path)
{
    int fd;

    if (!kt_journal_is_empty(path))
        return -1;
    fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    return fd;
}

static double journal_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One line, one write(): once write() returns the line is the kernel's,
 * and a killed process loses none. Durable lines are also synced, grouped:
 * fdatasync when KT_JOURNAL_SYNC_S has passed since the last one (and at
 * close), so a sync per evaluation does not cost more than the evaluation.
 * fdatasync covers the new length of an appended file, which is all a
 * reader needs. */
/* rec as one line of JSON, with the journal's run id (a shallow copy: the
 * caller's record is not changed). malloc'ed; NULL when out of memory. */
static char *encode_record(const kt_journal *j, const json_t *rec)
{
    json_t *copy;
    char *text;

    if (!j->run[0] || !json_is_object(rec))
        return json_dumps(rec, JSON_COMPACT);
    if (!(copy = json_copy((json_t *)rec)))
        return NULL;
    json_object_set_new(copy, "run", json_string(j->run));
    text = json_dumps(copy, JSON_COMPACT);
    json_decref(copy);
    return text;
}

static kt_status append_line(kt_journal *j, const json_t *rec, int durable,
                             kt_err *err)
{
    /* Encoding the record is the journal's time too (written_s). */
    double t0 = journal_clock();
    char *text = encode_record(j, rec);
    size_t len, done = 0;
    kt_status rc = KT_S_OK;

    if (!text)
        return kt_err_set(err, KT_S_NOMEM, "%s: cannot encode a record",
                          j->path);
    len = strlen(text);
    text[len] = '\n'; /* replaces the NUL: the write is length-bounded */
    while (done < len + 1) {
        ssize_t n = write(j->fd, text + done, len + 1 - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = kt_err_set(err, KT_S_IO, "%s: write failed: %s", j->path,
                            strerror(errno));
            goto done;
        }
        done += (size_t)n;
    }
    j->unsynced += durable;
    if (j->unsynced && t0 - j->last_sync >= KT_JOURNAL_SYNC_S) {
        if (fdatasync(j->fd) != 0)
            rc = kt_err_set(err, KT_S_IO, "%s: fdatasync failed: %s", j->path,
                            strerror(errno));
        j->last_sync = journal_clock();
        j->unsynced = 0;
    }
done:
    free(text);
    j->written_s += journal_clock() - t0;
    return rc;
}

kt_status kt_journal_create(kt_journal *j, const char *path,
                            const json_t *header, kt_err *err)
{
    kt_status rc;

    memset(j, 0, sizeof *j);
    j->fd = -1;
    j->next_call = 1;
    j->next_env = 1; /* the header holds record 0 */
    kt_journal_new_run(j->run);
    j->fd =
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (j->fd < 0 && errno == EEXIST && (j->fd = take_over_empty(path)) < 0)
        return kt_err_set(err, KT_S_INPUT,
                          "journal %s exists: add --resume to continue "
                          "it, or name a new one with --journal FILE",
                          path);
    if (j->fd < 0)
        return kt_err_set(err, KT_S_IO, "journal %s: cannot create: %s", path,
                          strerror(errno));
    j->path = strdup(path);
    if (!j->path) {
        kt_journal_close(j);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    /* Locked, then cut: an empty journal taken over may hold a torn
     * header. */
    if ((rc = lock_journal(j->fd, path, err)) ||
        (ftruncate(j->fd, 0) != 0 &&
         (rc = kt_err_set(err, KT_S_IO, "journal %s: cannot cut: %s", path,
                          strerror(errno)))) ||
        (rc = append_line(j, header, 1, err))) {
        kt_journal_close(j);
        return rc;
    }
    return KT_S_OK;
}

kt_status kt_journal_continue(kt_journal *j, const char *path,
                              const kt_journal_log *log, json_t *environment,
                              kt_err *err)
{
    struct stat st;
    kt_status rc;

    memset(j, 0, sizeof *j);
    j->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (j->fd < 0) {
        json_decref(environment);
        return kt_err_set(err, KT_S_IO, "journal %s: cannot open: %s", path,
                          strerror(errno));
    }
    j->path = strdup(path);
    j->env = log->num_envs;
    j->next_call = log->max_call + 1;
    snprintf(j->run, sizeof j->run, "%s", log->run);
    if (!j->path) {
        json_decref(environment);
        kt_journal_close(j);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    /* Locked before anything is cut; and what was read must still be all
     * there is, or another writer went on after it was read. */
    if ((rc = lock_journal(j->fd, path, err)) ||
        (fstat(j->fd, &st) == 0 && (long long)st.st_size != log->read_bytes &&
         (rc = kt_err_set(err, KT_S_INPUT,
                          "journal %s changed while it was read (another "
                          "ktune is writing it?); nothing was cut: run "
                          "--resume again",
                          path)))) {
        json_decref(environment);
        kt_journal_close(j);
        return rc;
    }
    /* Cut the torn line and any unfinished call, so appended records
     * start on a line of their own. */
    if (ftruncate(j->fd, (off_t)log->keep_bytes) != 0) {
        json_decref(environment);
        rc = kt_err_set(err, KT_S_IO,
                        "journal %s: cannot cut to %lld bytes: "
                        "%s",
                        path, log->keep_bytes, strerror(errno));
        kt_journal_close(j);
        return rc;
    }
    j->next_env = j->env;
    if ((rc = kt_journal_environment(j, environment, &j->env, err)))
        kt_journal_close(j);
    return rc;
}

kt_status kt_journal_environment(kt_journal *j, json_t *environment, int *id,
                                 kt_err *err)
{
    json_t *rec;
    kt_status rc;

    if (!environment)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    *id = j->next_env++;
    json_object_set_new(environment, "id", json_integer(*id));
    rec = json_pack("{s:s,s:o}", "kind", "environment", "environment",
                    environment);
    rc = append_line(j, rec, 1, err);
    json_decref(rec);
    return rc;
}

kt_status kt_journal_eval(kt_journal *j, const kt_operator *op, size_t call,
                          size_t slot, size_t of, const char *purpose,
                          double elapsed_s, const kt_point *pt,
                          const kt_eval_result *r, kt_err *err)
{
    json_t *rec = kt_eval_result_to_json(op, pt, r, 1);
    kt_status rc;

    json_object_set_new(rec, "kind", json_string("eval"));
    json_object_set_new(rec, "call", json_integer((json_int_t)call));
    json_object_set_new(rec, "slot", json_integer((json_int_t)slot));
    json_object_set_new(rec, "of", json_integer((json_int_t)of));
    json_object_set_new(rec, "purpose", json_string(purpose));
    stamp(j, rec, elapsed_s);
    rc = append_line(j, rec, 1, err);
    json_decref(rec);
    return rc;
}

kt_status kt_journal_profile_record(kt_journal *j, const json_t *fields,
                                    double elapsed_s, kt_err *err)
{
    json_t *rec = json_deep_copy(fields);
    kt_status rc;

    if (!rec)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    json_object_set_new(rec, "kind", json_string("profile"));
    stamp(j, rec, elapsed_s);
    /* Synced: counters come from launches of their own, and a resumed run
     * answers from them instead of profiling again. */
    rc = append_line(j, rec, 1, err);
    json_decref(rec);
    return rc;
}

kt_status kt_journal_check(kt_journal *j, const kt_operator *op,
                           const kt_point *pt, const char *reason, kt_err *err)
{
    json_t *rec = json_pack("{s:s,s:o,s:s,s:s,s:i}", "kind", "check", "point",
                            kt_point_to_json(op, pt), "status", "invalid",
                            "reason", reason, "env", j->env);
    /* Written but not synced: a resumed run finds a refusal on the host
     * again at no cost. */
    kt_status rc = append_line(j, rec, 0, err);
    json_decref(rec);
    return rc;
}

kt_status kt_journal_record(kt_journal *j, const char *kind, json_t *fields,
                            kt_err *err)
{
    kt_status rc;

    if (!fields)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    json_object_set_new(fields, "kind", json_string(kind));
    stamp(j, fields, -1);
    rc = append_line(j, fields, 1, err);
    json_decref(fields);
    return rc;
}

void kt_journal_close(kt_journal *j)
{
    if (j->fd >= 0 && j->unsynced)
        fdatasync(j->fd);
    if (j->fd >= 0)
        close(j->fd);
    free(j->path);
    j->path = NULL;
    j->fd = -1;
}
