// SPDX-License-Identifier: Apache-2.0
#include "report/sources.h"
#include "report/summary_check.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fileio.h"
#include "records/journal.h"
#include "records/journal_check.h"
#include "records/journal_slim.h"

double kt_src_num(const json_t *obj, const char *key)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *kt_src_text(const json_t *obj, const char *key,
                        const char *fallback)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : fallback;
}

double kt_src_counter(const kt_src_point *p, const char *name)
{
    const json_t *m, *x;
    size_t i;
    if (!p->profile)
        return NAN;
    /* {name: value} in a summary entry; [{name, value}] in a journal's
     * profile record, and under "counters" in a compare row. */
    m = json_object_get(p->profile, "counters");
    if (json_is_object(m) && !json_object_get(m, "metrics"))
        return kt_src_num(m, name);
    if (!json_is_object(m))
        m = p->profile;
    json_array_foreach (json_object_get(m, "metrics"), i, x)
        if (strcmp(kt_src_text(x, "name", ""), name) == 0)
            return kt_src_num(x, "value");
    return NAN;
}

void kt_sources_note(kt_sources *s, const char *fmt, ...)
{
    va_list ap;
    if (s->num_notes >= KT_SOURCES_MAX_NOTES)
        return;
    va_start(ap, fmt);
    vsnprintf(s->notes[s->num_notes], sizeof s->notes[0], fmt, ap);
    va_end(ap);
    ++s->num_notes;
}

void kt_sources_set_work(kt_sources *s, const kt_work *w, const char *source)
{
    s->work = *w;
    s->have_work = 1;
    snprintf(s->work_source, sizeof s->work_source, "%s", source);
}

void kt_sources_free(kt_sources *s)
{
    json_decref(s->summary);
    json_decref(s->header);
    json_decref(s->compare);
    json_decref(s->records);
    json_decref(s->index);
    json_decref(s->environments);
    json_decref(s->texts);
    free(s->points);
    memset(s, 0, sizeof *s);
}

const json_t *kt_sources_main(const kt_sources *s)
{
    return s->summary ? s->summary : s->compare ? s->compare : s->header;
}

const char *kt_sources_spec(const kt_sources *s)
{
    if (s->summary)
        return kt_src_text(s->summary, "spec", "");
    if (s->compare)
        return kt_src_text(s->compare, "spec", "");
    return kt_src_text(s->header, "plugin_spec", "");
}

const json_t *kt_sources_environment(const kt_sources *s)
{
    const json_t *e = json_object_get(kt_sources_main(s), "environment");
    if (!json_is_object(e) && s->header)
        e = json_object_get(s->header, "environment");
    return json_is_object(e) ? e : NULL;
}

const json_t *kt_sources_sizes(const kt_sources *s)
{
    const json_t *z = json_object_get(kt_sources_main(s), "sizes");
    if (!json_is_object(z) && s->header)
        z = json_object_get(s->header, "sizes");
    return json_is_object(z) ? z : NULL;
}

/* ---------------------------------------------------------------- points */

/* The configuration as `ktune tune` prints it, whole: "variant k=v k=v" in
 * the params' recorded order, then ktune's device setting. Owned by the
 * caller; NULL without memory. */
static char *config_text(const char *variant, const json_t *params,
                         const json_t *nvml)
{
    static const char *const keys[][2] = {{"gr_clock_mhz", "nvml_gr_clock"},
                                          {"mem_clock_mhz", "nvml_mem_clock"},
                                          {"power_limit_w", "nvml_pwr_limit"}};
    const char *k;
    const json_t *v;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);

    if (!out)
        return NULL;
    fputs(variant, out);
    json_object_foreach ((json_t *)params, k, v) {
        if (json_is_integer(v))
            fprintf(out, " %s=%lld", k, (long long)json_integer_value(v));
        else if (json_is_string(v))
            fprintf(out, " %s=%s", k, json_string_value(v));
        else if (json_is_number(v))
            fprintf(out, " %s=%g", k, json_number_value(v));
    }
    for (size_t w = 0; w < 3; ++w) {
        json_int_t x = json_integer_value(json_object_get(nvml, keys[w][0]));
        if (x > 0)
            fprintf(out, " %s=%lld", keys[w][1], (long long)x);
    }
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* p's config text, made and kept by s when its record names none. */
static kt_status own_config(kt_sources *s, kt_src_point *p, kt_err *err)
{
    char *text;
    json_t *kept;

    if (p->config)
        return KT_S_OK;
    if (!s->texts && !(s->texts = json_array()))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (!(text = config_text(p->variant, p->params, p->nvml)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    kept = json_string(text);
    free(text);
    if (!kept || json_array_append_new(s->texts, kept) != 0)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    p->config = json_string_value(kept);
    return KT_S_OK;
}

/* Measures: the journal's tighter "measure" first, then a comparison's,
 * then the closing round's; the host's refusals last. */
static int source_rank(const char *source)
{
    static const char *const order[] = {"measure", "compare", "final", "top",
                                        "check"};
    for (int i = 0; i < 5; ++i)
        if (strcmp(source, order[i]) == 0)
            return i;
    return 5;
}

/* A record's statistics into p, and whether it is ok: status ok with a
 * median > 0. */
static void set_kernel(kt_src_point *p, kt_journal_kernel k)
{
    p->kernel = k;
    p->ok = kt_journal_status_ok(p->status) && k.median > 0;
}

/* A point of the record rec (a journal eval/check record, or a summary
 * entry with median_us etc.); 0 when it names no configuration. */
static int point_from(const json_t *rec, const char *source, kt_src_point *p)
{
    const json_t *pt = json_object_get(rec, "point");
    const json_t *k;

    memset(p, 0, sizeof *p);
    if (!json_is_object(pt))
        pt = rec; /* summary entries carry variant and params inline */
    p->variant = kt_src_text(pt, "variant", NULL);
    p->params = json_object_get(pt, "params");
    p->nvml = json_object_get(pt, "nvml");
    if (!p->variant || !json_is_object(p->params))
        return 0;
    p->record = rec;
    p->source = source;
    p->status = kt_src_text(rec, "status", "ok");
    p->reason = kt_src_text(rec, "reason", "");
    k = json_object_get(json_object_get(rec, "timing"), "kernel");
    if (json_is_object(k)) { /* a journal's record, read by records/ */
        set_kernel(p, kt_journal_kernel_of(k));
    } else { /* a summary entry: the same figures, named otherwise */
        const json_t *n = json_object_get(rec, "samples");
        set_kernel(
            p, (kt_journal_kernel){.median = kt_src_num(rec, "median_us"),
                                   .q1 = kt_src_num(rec, "q1_us"),
                                   .q3 = kt_src_num(rec, "q3_us"),
                                   .ci_lo = kt_src_num(rec, "ci_lo_us"),
                                   .ci_hi = kt_src_num(rec, "ci_hi_us"),
                                   .min = kt_src_num(rec, "min_us"),
                                   .noise = kt_src_num(rec, "noise"),
                                   .samples = json_is_integer(n)
                                                  ? (long)json_integer_value(n)
                                                  : -1});
    }
    if (json_is_object(json_object_get(rec, "counters")))
        p->profile = rec;
    p->energy = kt_journal_energy_of(json_object_get(rec, "energy"));
    p->config = json_string_value(json_object_get(rec, "config"));
    return 1;
}

/* The identity of a configuration: variant, parameters and device
 * setting, whole (a key cut to a buffer's size could merge two); owned by
 * the caller, NULL without memory. */
static char *point_key(const kt_src_point *p)
{
    char *params = json_dumps(p->params, JSON_COMPACT | JSON_SORT_KEYS);
    char *nvml =
        p->nvml ? json_dumps(p->nvml, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    char *key = NULL;
    /* Under another device setting it is another configuration. */
    if (params && (nvml || !p->nvml)) {
        size_t size =
            strlen(p->variant) + strlen(params) + (nvml ? strlen(nvml) : 0) + 3;
        if ((key = malloc(size)))
            snprintf(key, size, "%s|%s|%s", p->variant, params,
                     nvml ? nvml : "");
    }
    free(params);
    free(nvml);
    return key;
}

/* A journal's profile record: the counters of a point evaluated before
 * (profiles follow their evaluations), or of none, then left out. */
static void add_profile(kt_sources *s, const json_t *rec)
{
    kt_src_point p;
    char *key;
    const json_t *idx;
    if (!point_from(rec, "profile", &p) || !(key = point_key(&p)))
        return;
    idx = json_object_get(s->index, key);
    if (idx && strcmp(kt_src_text(rec, "counters", ""), "ok") == 0)
        s->points[json_integer_value(idx)].profile = rec;
    free(key);
}

/* rec's point as insert_point takes it, its statistics from read and its
 * energy figures from energy when kt_journal_slim_text read them, and its key
 * (owned by the caller): 1; 0 when rec names no configuration; -1 without
 * memory. Touches nothing shared: the journal's parsing threads call it. */
static int prepare_point(const json_t *rec, const char *source,
                         const kt_journal_kernel *read,
                         const kt_journal_energy *energy, kt_src_point *p,
                         char **key)
{
    *key = NULL;
    if (!point_from(rec, source, p))
        return 0;
    if (energy)
        p->energy = *energy;
    if (read)
        set_kernel(p, *read);
    return (*key = point_key(p)) ? 1 : -1;
}

/* Adds the point p of configuration key, or lets it replace the one of the
 * same configuration when it is the better view of it (ok over failed,
 * then by source). */
static kt_status insert_point(kt_sources *s, const kt_src_point *point,
                              const char *key, kt_err *err)
{
    kt_src_point *slot, p = *point;
    json_t *idx;
    kt_status rc;

    if (!s->index)
        s->index = json_object();
    idx = json_object_get(s->index, key);
    slot = idx ? &s->points[json_integer_value(idx)] : NULL;
    if (slot && !((p.ok && !slot->ok) ||
                  (p.ok == slot->ok &&
                   source_rank(p.source) < source_rank(slot->source))))
        return KT_S_OK;                /* the point held is the better view */
    if ((rc = own_config(s, &p, err))) /* only for a point that is kept */
        return rc;
    if (slot) {
        if (!p.profile)
            p.profile = slot->profile;
        *slot = p;
        return KT_S_OK;
    }
    if (s->num_points == s->cap_points) {
        size_t cap = s->cap_points ? 2 * s->cap_points : 64;
        slot = realloc(s->points, cap * sizeof *s->points);
        if (!slot)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        s->points = slot;
        s->cap_points = cap;
    }
    s->points[s->num_points] = p;
    json_object_set_new(s->index, key, json_integer((json_int_t)s->num_points));
    ++s->num_points;
    return KT_S_OK;
}

/* Adds rec's point (insert_point). */
static kt_status add_point(kt_sources *s, const json_t *rec, const char *source,
                           kt_err *err)
{
    kt_src_point p;
    char *key;
    int made = prepare_point(rec, source, NULL, NULL, &p, &key);
    kt_status rc = made < 0   ? kt_err_set(err, KT_S_NOMEM, "out of memory")
                   : made > 0 ? insert_point(s, &p, key, err)
                              : KT_S_OK;
    free(key);
    return rc;
}

/* Where a journal record's measure comes from (kt_src_point.source). */
static const char *record_source(const json_t *rec)
{
    return strcmp(kt_src_text(rec, "kind", ""), "check") == 0
               ? "check"
               : kt_src_text(rec, "purpose", "measure");
}

static void clear_points(kt_sources *s)
{
    free(s->points);
    s->points = NULL;
    s->num_points = s->cap_points = 0;
    json_decref(s->index);
    s->index = NULL;
    json_decref(s->texts); /* only the points borrowed them */
    s->texts = NULL;
}

/* The "work" object a result may record. */
static void take_work(kt_sources *s, const json_t *doc, const char *path)
{
    const json_t *w = json_object_get(doc, "work");
    kt_work work = {.struct_size = sizeof work};
    if (!json_is_object(w) || s->have_work)
        return;
    work.bytes_read = kt_src_num(w, "bytes_read");
    work.bytes_written = kt_src_num(w, "bytes_written");
    work.flops = kt_src_num(w, "flops");
    if (isfinite(work.bytes_read) && isfinite(work.bytes_written) &&
        isfinite(work.flops)) {
        char src[256];
        snprintf(src, sizeof src, "recorded in %s", path);
        kt_sources_set_work(s, &work, src);
    }
}

/* --------------------------------------------------------------- journal */

/* A journal is parsed in batches of lines, each batch by up to
 * KT_SRC_THREADS threads (parsing is two thirds of a report of 100,000
 * points), then read in order by the calling thread. */
#define KT_SRC_BATCH 4096
#define KT_SRC_THREADS 8

/* One line of a batch: where it lies, and what parsing it gave. */
typedef struct kt_src_line {
    const char *text;
    size_t len, no;
    int last; /* the text's last line, without its line end */
    int nomem;
    json_t
        *rec; /* eval and check records as records/journal_slim.h keeps them */
    int read; /* kt_journal_slim_text read it: statistics in kernel */
    kt_journal_kernel kernel;
    kt_journal_energy energy;
    /* Then its point as prepare_point made it (prepared its result), the
     * key owned. */
    int prepared;
    kt_src_point point;
    char *key;
    json_error_t jerr;
} kt_src_line;

static kt_status journal_record(kt_sources *s, json_t *rec,
                                const kt_src_line *l, const char *path,
                                kt_err *err)
{
    size_t line = l->no;
    const char *kind = kt_src_text(rec, "kind", "");
    kt_status rc = KT_S_OK;
    json_t *kept;

    if (!s->records)
        s->records = json_array();
    if (strcmp(kind, "eval") == 0 || strcmp(kind, "check") == 0) {
        kept = rec; /* kt_journal_slim's, by parse_part */
        json_array_append(s->records, kept);
        /* A record kt_journal_slim_text read has no "timing": its statistics
         * were checked there, by the same rules. */
        if (!(rc = l->read ? kt_journal_check_point_head(rec, err)
                           : kt_journal_check_point(rec, err)))
            rc = !l->read ? add_point(s, kept, record_source(kept), err)
                 : l->prepared < 0
                     ? kt_err_set(err, KT_S_NOMEM, "out of memory")
                 : l->prepared ? insert_point(s, &l->point, l->key, err)
                               : KT_S_OK;
        if (rc)
            kt_err_prefix(err, "%s:%zu: %s record: ", path, line, kind);
        /* Read into the point: the samples need not stay. */
        json_object_del(kept, "timing");
        ++s->num_records;
        return rc;
    }
    json_array_append(s->records, rec);
    if (strcmp(kind, "profile") == 0) {
        add_profile(s, rec);
    } else if (strcmp(kind, "environment") == 0) {
        const json_t *e = json_object_get(rec, "environment");
        if (json_is_object(e))
            json_array_append(s->environments, (json_t *)e);
    } else if (strcmp(kind, "ktune.journal") == 0) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s:%zu: a second journal header; expected one at "
                        "line 1 only",
                        path, line);
    }
    /* Other kinds are a newer ktune's: left out, not an error. */
    return rc;
}

/* A tune summary or compare record this version reads: its "format" one
 * it knows (1) and its "operator" a name. */
static kt_status check_document(const json_t *doc, const char *path,
                                kt_err *err)
{
    const json_t *format = json_object_get(doc, "format");
    const json_t *op = json_object_get(doc, "operator");

    if (format && (!json_is_integer(format) || json_integer_value(format) != 1))
        return kt_err_set(err, KT_S_INPUT,
                          "%s: \"format\" is not 1, the one this ktune "
                          "reads",
                          path);
    if (op && !json_is_string(op))
        return kt_err_set(err, KT_S_INPUT, "%s: \"operator\": expected a name",
                          path);
    return KT_S_OK;
}

/* Whether text[0..len) is blank (spaces, tabs, line ends). */
static int blank(const char *text, size_t len)
{
    for (size_t i = 0; i < len; ++i)
        if (!strchr(" \t\r\n", text[i]) || !text[i])
            return 0;
    return 1;
}

/* The journal's header record (line 1) into s->header, checked. */
static kt_status journal_header(kt_sources *s, json_t *rec, const char *path,
                                kt_err *err)
{
    kt_status rc;
    /* The tuner's reader's rule (records/journal_check.h): one for both. */
    if ((rc = kt_journal_check_head(rec, path, err))) {
        json_decref(rec);
        return rc;
    }
    json_decref(s->header);
    s->header = rec;
    if (json_is_object(json_object_get(rec, "environment")))
        json_array_append(s->environments, json_object_get(rec, "environment"));
    return KT_S_OK;
}

typedef struct kt_src_part {
    kt_src_line *lines;
    size_t n;
} kt_src_part;

/* Parses its lines; threads share nothing but jansson, whose parsing of
 * separate documents is thread-safe once its hash seed is set (the
 * header, parsed before, set it). */
static void *parse_part(void *arg)
{
    kt_src_part *part = arg;
    for (size_t i = 0; i < part->n; ++i) {
        kt_src_line *l = &part->lines[i];
        json_t *rec;
        const char *kind;
        /* The plain eval record: only its kept values built, and its point
         * made here too. */
        l->read = l->no > 1 &&
                  kt_journal_slim_text(l->text, l->len, &l->rec, &l->kernel,
                                       &l->energy) == KT_JOURNAL_SLIM_DONE;
        if (l->read) {
            l->prepared =
                prepare_point(l->rec, record_source(l->rec), &l->kernel,
                              &l->energy, &l->point, &l->key);
            continue;
        }
        rec = json_loadb(l->text, l->len, 0, &l->jerr);
        kind = kt_src_text(rec, "kind", "");
        /* Slimmed here, so the whole record is freed where it was made. */
        if (l->no > 1 &&
            (strcmp(kind, "eval") == 0 || strcmp(kind, "check") == 0)) {
            l->rec = kt_journal_slim_record(rec);
            l->nomem = !l->rec;
            json_decref(rec);
        } else {
            l->rec = rec;
        }
    }
    return NULL;
}

static void parse_batch(kt_src_line *lines, size_t n)
{
    pthread_t tid[KT_SRC_THREADS];
    kt_src_part parts[KT_SRC_THREADS];
    int started[KT_SRC_THREADS] = {0};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = cores > 1 ? (size_t)cores : 1, chunk;

    if (k > KT_SRC_THREADS)
        k = KT_SRC_THREADS;
    chunk = (n + k - 1) / k;
    for (size_t p = 0; p < k; ++p) {
        size_t first = p * chunk < n ? p * chunk : n;
        parts[p] =
            (kt_src_part){lines + first, n - first < chunk ? n - first : chunk};
        if (p > 0)
            started[p] =
                pthread_create(&tid[p], NULL, parse_part, &parts[p]) == 0;
    }
    parse_part(&parts[0]);
    for (size_t p = 1; p < k; ++p) {
        if (started[p])
            pthread_join(tid[p], NULL);
        else
            parse_part(&parts[p]);
    }
}

/* The next up to KT_SRC_BATCH non-blank lines of text from *at on. */
static size_t next_lines(const char *text, size_t text_len, size_t *at,
                         size_t *line_no, kt_src_line *lines)
{
    size_t n = 0;
    while (n < KT_SRC_BATCH && *at < text_len) {
        const char *line = text + *at, *nl = memchr(line, '\n', text_len - *at);
        size_t len = nl ? (size_t)(nl - line) + 1 : text_len - *at;
        *at += len;
        ++*line_no;
        if (!blank(line, len))
            lines[n++] = (kt_src_line){
                .text = line, .len = len, .no = *line_no, .last = !nl};
    }
    return n;
}

/* One parsed line read into s (the header when it is line 1); its record
 * let go. */
static kt_status journal_line(kt_sources *s, kt_src_line *l, const char *path,
                              int *stop, kt_err *err)
{
    kt_status rc;
    json_t *rec = l->rec;

    l->rec = NULL;
    if (l->nomem)
        return kt_err_set(err, KT_S_NOMEM, "%s:%zu: out of memory", path,
                          l->no);
    if (!json_is_object(rec)) {
        json_decref(rec);
        if (l->last && l->no > 1) {
            /* The run was killed while writing this line. */
            kt_sources_note(s,
                            "%s: the last line (%zu) is incomplete and was "
                            "left out",
                            path, l->no);
            *stop = 1;
            return KT_S_OK;
        }
        return kt_err_set(
            err, KT_S_INPUT, "%s:%zu: expected a JSON record, found: %s", path,
            l->no, l->jerr.text[0] ? l->jerr.text : "not an object");
    }
    if (l->no == 1)
        return journal_header(s, rec, path, err);
    rc = journal_record(s, rec, l, path, err);
    json_decref(rec);
    return rc;
}

/* Reads a journal from its text: the header first, then every record,
 * each parsed where it lies in text (no copy) and let go once read. */
static kt_status read_journal(kt_sources *s, const char *path, char *text,
                              size_t text_len, kt_err *err)
{
    size_t line_no = 0, at = 0, n = 0, i = 0;
    kt_src_line *lines = calloc(KT_SRC_BATCH, sizeof *lines);
    kt_status rc = KT_S_OK;
    int stop = 0;

    if (!lines)
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    if (!s->environments)
        s->environments = json_array();
    do {
        n = next_lines(text, text_len, &at, &line_no, lines);
        if (n && lines[0].no == 1) /* the header, alone: jansson seeded */
            lines[0].rec =
                json_loadb(lines[0].text, lines[0].len, 0, &lines[0].jerr);
        parse_batch(lines + (n && lines[0].no == 1),
                    n - (n && lines[0].no == 1));
        for (i = 0; rc == KT_S_OK && !stop && i < n; ++i)
            rc = journal_line(s, &lines[i], path, &stop, err);
        for (i = 0; i < n; ++i) { /* those not read, and every key */
            json_decref(lines[i].rec);
            free(lines[i].key);
        }
    } while (rc == KT_S_OK && !stop && n);
    free(lines);
    if (rc == KT_S_OK) {
        snprintf(s->journal_path, sizeof s->journal_path, "%s", path);
        take_work(s, s->header, path);
    }
    return rc;
}

/* ---------------------------------------------------------------- loading */

static kt_status summary_points(kt_sources *s, kt_err *err)
{
    const json_t *list = json_object_get(s->summary, "top");
    const json_t *x;
    size_t i;
    kt_status rc = KT_S_OK;

    json_array_foreach ((json_t *)list, i, x)
        if ((rc = add_point(s, x, "top", err)))
            return rc;
    list = json_object_get(s->summary, "invalid");
    json_array_foreach ((json_t *)list, i, x)
        if ((rc = add_point(s, x,
                            json_is_true(json_object_get(x, "host_checked"))
                                ? "check"
                                : "measure",
                            err)))
            return rc;
    return rc;
}

/* A compare record's rows: each variant at its compared point. */
static kt_status compare_points(kt_sources *s, kt_err *err)
{
    const json_t *x;
    size_t i;
    kt_status rc = KT_S_OK;
    json_array_foreach (json_object_get(s->compare, "variants"), i, x)
        if ((rc = add_point(s, x,
                            json_is_true(json_object_get(x, "host_checked"))
                                ? "check"
                                : "compare",
                            err)))
            break;
    return rc;
}

kt_status kt_sources_load(kt_sources *s, const char *path, kt_err *err)
{
    json_error_t jerr;
    json_t *first, *doc;
    const char *kind;
    char *text = NULL;
    size_t len = 0;
    kt_status rc = KT_S_OK;

    memset(s, 0, sizeof *s);
    /* A missing file is the user's mistake (exit 2, as in tune); a FIFO or
     * a device would block or never end. */
    if ((rc = kt_file_check_regular(path, "input", err)))
        return rc;
    /* The first value alone tells a journal (one record per line) from a
     * single document. */
    if ((rc = kt_journal_text(path, &text, &len, err)))
        return rc;
    first = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, &jerr);
    if (!first) {
        rc = kt_err_set(err, KT_S_INPUT, "%s:%d: not JSON: %s", path, jerr.line,
                        jerr.text);
        goto done;
    }
    kind = kt_src_text(first, "kind", "");
    if (strcmp(kind, "ktune.journal") == 0) {
        json_decref(first);
        rc = read_journal(s, path, text, len, err);
        goto done;
    }
    /* One document: the value read, unless more than blanks follow it
     * (then parsed again for jansson's message). jansson's position is an
     * int. */
    if (len <= INT_MAX && jerr.position >= 0 && (size_t)jerr.position <= len &&
        blank(text + jerr.position, len - (size_t)jerr.position)) {
        doc = first;
    } else {
        json_decref(first);
        doc = json_loadb(text, len, 0, &jerr);
    }
    if (!doc) {
        rc = kt_err_set(err, KT_S_INPUT, "%s:%d: not one JSON document: %s",
                        path, jerr.line, jerr.text);
        goto done;
    }
    kind = kt_src_text(doc, "kind", "");
    if ((strcmp(kind, "ktune.tune") == 0 ||
         strcmp(kind, "ktune.compare") == 0) &&
        (rc = check_document(doc, path, err))) {
        json_decref(doc);
        goto done;
    }
    if (strcmp(kind, "ktune.tune") == 0 &&
        (rc = kt_report_check_summary(doc, path, err))) {
        json_decref(doc);
        goto done;
    }
    if (strcmp(kind, "ktune.tune") == 0) {
        s->summary = doc;
        snprintf(s->summary_path, sizeof s->summary_path, "%s", path);
        take_work(s, doc, path);
        rc = summary_points(s, err);
    } else if (strcmp(kind, "ktune.compare") == 0) {
        s->compare = doc;
        snprintf(s->compare_path, sizeof s->compare_path, "%s", path);
        take_work(s, doc, path);
        rc = compare_points(s, err);
    } else {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: kind \"%s\" is not one ktune report reads: "
                        "expected a tune summary (\"ktune.tune\", ktune tune "
                        "--json), a journal (\"ktune.journal\") or a compare "
                        "record (\"ktune.compare\", ktune compare --json)",
                        path, kind);
        json_decref(doc);
    }
done:
    free(text);
    if (rc)
        kt_sources_free(s);
    return rc;
}

int kt_sources_external(const kt_sources *s)
{
    return json_object_get(json_object_get(s->summary, "replay"), "external") !=
           NULL;
}

/* The device model a document records. */
static const char *device_name(const json_t *doc)
{
    const json_t *dev =
        json_object_get(json_object_get(doc, "environment"), "device");
    const char *name = kt_src_text(dev, "name", NULL);
    return name ? name : kt_src_text(doc, "device", "");
}

/* The journal j's records, points and their texts moved into s, whose
 * summary's top list they replace; j is left empty. */
static void adopt_journal(kt_sources *s, kt_sources *j)
{
    clear_points(s);
    s->header = j->header;
    s->records = j->records;
    s->index = j->index;
    s->environments = j->environments;
    s->texts = j->texts;
    s->points = j->points;
    s->num_points = j->num_points;
    s->cap_points = j->cap_points;
    s->num_records = j->num_records;
    snprintf(s->journal_path, sizeof s->journal_path, "%s", j->journal_path);
    if (!s->have_work && j->have_work)
        kt_sources_set_work(s, &j->work, j->work_source);
    for (size_t i = 0; i < j->num_notes; ++i)
        kt_sources_note(s, "%s", j->notes[i]);
    memset(j, 0, sizeof *j);
}

kt_status kt_sources_add_journal(kt_sources *s, const char *path, kt_err *err)
{
    kt_sources j;
    const json_t *main_doc = kt_sources_main(s);
    const char *spec = kt_sources_spec(s), *jspec;
    kt_status rc;

    if (!s->summary)
        return kt_err_set(
            err, KT_S_INPUT,
            "%s: --journal goes with a tune summary (ktune tune "
            "--json); %s is not one",
            path, s->journal_path[0] ? s->journal_path : s->compare_path);
    rc = kt_sources_load(&j, path, err);
    if (rc)
        return rc;
    if (!j.header) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: --journal expects a tuner journal (first record "
                        "kind \"ktune.journal\")",
                        path);
        goto done;
    }
    jspec = kt_src_text(j.header, "plugin_spec", "");
    if (strcmp(spec, jspec) != 0) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: the journal records %s, the results %s; give "
                        "the journal of the same operator",
                        path, jspec, spec);
        goto done;
    }
    if (kt_sources_sizes(s) && !json_equal(json_object_get(j.header, "sizes"),
                                           (json_t *)kt_sources_sizes(s))) {
        char *a = json_dumps(json_object_get(j.header, "sizes"), JSON_COMPACT);
        char *b = json_dumps(kt_sources_sizes(s), JSON_COMPACT);
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: the journal is at sizes %s, the results at %s; "
                        "give the journal of the same problem",
                        path, a ? a : "?", b ? b : "?");
        free(a);
        free(b);
        goto done;
    }
    if (*device_name(main_doc) &&
        strcmp(device_name(j.header), device_name(main_doc)) != 0) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s: the journal was measured on %s, the results on "
                        "%s; give the journal of the same device",
                        path, device_name(j.header), device_name(main_doc));
        goto done;
    }
    {
        const json_t *h1 =
            json_object_get(json_object_get(main_doc, "environment"), "host");
        const json_t *h2 =
            json_object_get(json_object_get(j.header, "environment"), "host");
        if (!h1 || !json_equal((json_t *)h1, (json_t *)h2))
            kt_sources_note(
                s,
                "per-point data from %s: another run of the same operator, "
                "size and device (strategy %s, started %s) than %s (strategy "
                "%s, started %s)",
                path,
                kt_src_text(json_object_get(j.header, "strategy"), "name", "?"),
                kt_src_text(h2, "date", "?"), s->summary_path,
                kt_src_text(json_object_get(main_doc, "strategy"), "name", "?"),
                kt_src_text(h1, "date", "?"));
    }
    adopt_journal(s, &j);
done:
    kt_sources_free(&j);
    return rc;
}
