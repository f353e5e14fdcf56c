// SPDX-License-Identifier: Apache-2.0
/* Reading a wisdom file (docs/wisdom.md) into an immutable table: every
 * field checked for its type and range, the file refused as a whole at the
 * first problem, with its line. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "select/internal.h"

#define CHUNK_BYTES ((size_t)1 << 20)
/* A file larger than this cannot hold a table within the entry limit. */
#define MAX_FILE_BYTES ((size_t)1 << 30)

struct kt_sel_chunk {
    kt_sel_chunk *next;
    size_t used, size;
    max_align_t data[];
};

typedef struct reader {
    kt_select_wisdom *w;
    const char *name;
    size_t line;
    kt_select_error *err;
} reader;

static int fail(reader *rd, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(reader *rd, int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (rd->err) {
        rd->err->code = code;
        rd->err->line = rd->line;
        if (rd->line)
            snprintf(rd->err->msg, sizeof rd->err->msg, "%s:%zu: %s", rd->name,
                     rd->line, msg);
        else
            snprintf(rd->err->msg, sizeof rd->err->msg, "%s: %s", rd->name,
                     msg);
    }
    return code;
}

/* ------------------------------------------------------------- arena */

static void *arena_alloc(kt_select_wisdom *w, size_t bytes)
{
    kt_sel_chunk *c = w->chunks;
    size_t align = sizeof(max_align_t);

    bytes = (bytes + align - 1) / align * align;
    if (!c || c->size - c->used < bytes) {
        size_t size = bytes > CHUNK_BYTES ? bytes : CHUNK_BYTES;
        c = malloc(sizeof *c + size);
        if (!c)
            return NULL;
        c->used = 0;
        c->size = size;
        c->next = w->chunks;
        w->chunks = c;
    }
    c->used += bytes;
    return (char *)c->data + c->used - bytes;
}

static uint64_t hash_of(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The one copy of s in the handle, or NULL when out of memory. */
static const char *intern(kt_select_wisdom *w, const char *s)
{
    size_t slot, len;
    char *copy;

    if (2 * (w->num_strings + 1) > w->string_slots) {
        size_t slots = w->string_slots ? 2 * w->string_slots : 256;
        const char **grown = calloc(slots, sizeof *grown);
        if (!grown)
            return NULL;
        for (size_t i = 0; i < w->string_slots; ++i) {
            const char *old = w->strings[i];
            if (!old)
                continue;
            for (slot = hash_of(old) & (slots - 1); grown[slot];)
                slot = (slot + 1) & (slots - 1);
            grown[slot] = old;
        }
        free(w->strings);
        w->strings = grown;
        w->string_slots = slots;
    }
    for (slot = hash_of(s) & (w->string_slots - 1); w->strings[slot];
         slot = (slot + 1) & (w->string_slots - 1))
        if (strcmp(w->strings[slot], s) == 0)
            return w->strings[slot];
    len = strlen(s);
    copy = arena_alloc(w, len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, len + 1);
    w->strings[slot] = copy;
    ++w->num_strings;
    return copy;
}

/* ------------------------------------------------------------ fields */

/* A string field of at most KT_SELECT_MAX_TEXT bytes, interned; optional
 * ones read as "". */
static int text_field(reader *rd, json_t *obj, const char *key, int required,
                      const char **out)
{
    json_t *v = json_object_get(obj, key);
    const char *s;

    if (!v && !required) {
        *out = "";
        return KT_SELECT_OK;
    }
    if (!v)
        return fail(rd, KT_SELECT_EFORMAT, "%s: missing", key);
    if (!json_is_string(v))
        return fail(rd, KT_SELECT_EFORMAT, "%s: expected a string", key);
    s = json_string_value(v);
    if (json_string_length(v) != strlen(s))
        return fail(rd, KT_SELECT_EFORMAT, "%s: holds a NUL character", key);
    if (strlen(s) > KT_SELECT_MAX_TEXT)
        return fail(rd, KT_SELECT_ELIMIT, "%s: longer than %d bytes", key,
                    KT_SELECT_MAX_TEXT);
    if (required && !*s)
        return fail(rd, KT_SELECT_EFORMAT, "%s: empty", key);
    if (!(*out = intern(rd->w, s)))
        return fail(rd, KT_SELECT_ENOMEM, "out of memory");
    return KT_SELECT_OK;
}

/* "9.0": major and minor, each 0..99. */
static int cc_field(reader *rd, json_t *obj, kt_select_entry *e)
{
    json_t *v = json_object_get(obj, "cc");
    const char *s = json_string_value(v);
    int major, minor, used = 0;

    if (!v)
        return fail(rd, KT_SELECT_EFORMAT, "cc: missing");
    if (!s || sscanf(s, "%2d.%2d%n", &major, &minor, &used) != 2 || s[used] ||
        major < 0 || minor < 0)
        return fail(rd, KT_SELECT_EFORMAT,
                    "cc: expected a compute capability such as \"9.0\"");
    e->cc_major = major;
    e->cc_minor = minor;
    return KT_SELECT_OK;
}

/* An object of name: integer pairs, 1..max of them, values in [lo, hi]. */
static int pairs_field(reader *rd, json_t *obj, const char *key, size_t max,
                       int64_t lo, const char ***names, int64_t **values,
                       size_t *count)
{
    json_t *v = json_object_get(obj, key), *item;
    const char *name;
    size_t i = 0, n;

    if (!v)
        return fail(rd, KT_SELECT_EFORMAT, "%s: missing", key);
    if (!json_is_object(v))
        return fail(rd, KT_SELECT_EFORMAT, "%s: expected an object", key);
    n = json_object_size(v);
    if (n > max)
        return fail(rd, KT_SELECT_ELIMIT, "%s: more than %zu", key, max);
    *names = arena_alloc(rd->w, (n ? n : 1) * sizeof **names);
    *values = arena_alloc(rd->w, (n ? n : 1) * sizeof **values);
    if (!*names || !*values)
        return fail(rd, KT_SELECT_ENOMEM, "out of memory");
    json_object_foreach (v, name, item) {
        if (!json_is_integer(item))
            return fail(rd, KT_SELECT_EFORMAT, "%s.%s: expected an integer",
                        key, name);
        if (json_integer_value(item) < lo)
            return fail(rd, KT_SELECT_EFORMAT, "%s.%s: %lld is below %lld", key,
                        name, (long long)json_integer_value(item),
                        (long long)lo);
        if (strlen(name) > KT_SELECT_MAX_TEXT || !*name)
            return fail(rd, KT_SELECT_EFORMAT, "%s: a name of %zu bytes", key,
                        strlen(name));
        if (!((*names)[i] = intern(rd->w, name)))
            return fail(rd, KT_SELECT_ENOMEM, "out of memory");
        (*values)[i++] = (int64_t)json_integer_value(item);
    }
    *count = n;
    return KT_SELECT_OK;
}

/* Optional time_us and ci_us [lo, hi]: finite, non-negative. */
static int time_fields(reader *rd, json_t *obj, kt_select_entry *e)
{
    json_t *t = json_object_get(obj, "time_us");
    json_t *ci = json_object_get(obj, "ci_us");

    e->time_us = e->ci_lo_us = e->ci_hi_us = NAN;
    if (t && (!json_is_number(t) || !isfinite(json_number_value(t)) ||
              json_number_value(t) < 0))
        return fail(rd, KT_SELECT_EFORMAT,
                    "time_us: expected a number of microseconds >= 0");
    if (t)
        e->time_us = json_number_value(t);
    if (!ci)
        return KT_SELECT_OK;
    if (!json_is_array(ci) || json_array_size(ci) != 2 ||
        !json_is_number(json_array_get(ci, 0)) ||
        !json_is_number(json_array_get(ci, 1)))
        return fail(rd, KT_SELECT_EFORMAT, "ci_us: expected [low, high]");
    e->ci_lo_us = json_number_value(json_array_get(ci, 0));
    e->ci_hi_us = json_number_value(json_array_get(ci, 1));
    if (!isfinite(e->ci_lo_us) || !isfinite(e->ci_hi_us) || e->ci_lo_us < 0 ||
        e->ci_lo_us > e->ci_hi_us)
        return fail(rd, KT_SELECT_EFORMAT,
                    "ci_us: [%g, %g] is no interval (expected low <= high, "
                    "both >= 0)",
                    e->ci_lo_us, e->ci_hi_us);
    return KT_SELECT_OK;
}

static int read_entry(reader *rd, json_t *obj, kt_select_entry *e)
{
    const char **names;
    int64_t *values;
    size_t n;
    int rc;

    memset(e, 0, sizeof *e);
    e->line = rd->line;
    if (!json_is_object(obj))
        return fail(rd, KT_SELECT_EFORMAT, "expected an entry (an object)");
    if ((rc = text_field(rd, obj, "operator", 1, &e->op)) ||
        (rc = text_field(rd, obj, "device", 1, &e->device)) ||
        (rc = cc_field(rd, obj, e)) ||
        (rc = text_field(rd, obj, "variant", 1, &e->variant)) ||
        (rc = text_field(rd, obj, "plugin_version", 0, &e->plugin_version)) ||
        (rc = text_field(rd, obj, "ktune", 0, &e->ktune_version)) ||
        (rc = text_field(rd, obj, "date", 0, &e->date)) ||
        (rc = time_fields(rd, obj, e)))
        return rc;
    if ((rc = pairs_field(rd, obj, "sizes", KT_SELECT_MAX_SIZES, 1, &names,
                          &values, &n)))
        return rc;
    if (!n)
        return fail(rd, KT_SELECT_EFORMAT, "sizes: empty");
    e->size_names = names;
    e->sizes = values;
    e->num_sizes = n;
    if ((rc = pairs_field(rd, obj, "params", KT_SELECT_MAX_PARAMS, INT64_MIN,
                          &names, &values, &n)))
        return rc;
    {
        kt_select_param *p = arena_alloc(rd->w, (n ? n : 1) * sizeof *p);
        if (!p)
            return fail(rd, KT_SELECT_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; ++i) {
            p[i].name = names[i];
            p[i].value = values[i];
        }
        e->params = p;
        e->num_params = n;
    }
    return KT_SELECT_OK;
}

/* The first line: {"ktune_wisdom": 1, "entries": N, ...}. */
static int read_header(reader *rd, json_t *obj, long long *entries)
{
    json_t *v = json_object_get(obj, "ktune_wisdom");
    json_t *n = json_object_get(obj, "entries");

    if (!json_is_object(obj) || !v)
        return fail(rd, KT_SELECT_EFORMAT,
                    "not a ktune wisdom file: the first line must be "
                    "{\"ktune_wisdom\": %d, ...}",
                    KT_SELECT_FORMAT);
    if (!json_is_integer(v) || json_integer_value(v) < 1)
        return fail(rd, KT_SELECT_EFORMAT,
                    "ktune_wisdom: expected a format number");
    if (json_integer_value(v) != KT_SELECT_FORMAT)
        return fail(rd, KT_SELECT_EVERSION,
                    "format %lld; this library reads format %d",
                    (long long)json_integer_value(v), KT_SELECT_FORMAT);
    *entries = -1;
    if (n && (!json_is_integer(n) || json_integer_value(n) < 0))
        return fail(rd, KT_SELECT_EFORMAT,
                    "entries: expected a count of entries");
    if (n)
        *entries = (long long)json_integer_value(n);
    return KT_SELECT_OK;
}

/* ------------------------------------------------------------- lines */

static int add_entry(reader *rd, const char *text, size_t len)
{
    kt_select_wisdom *w = rd->w;
    json_error_t jerr;
    json_t *obj;
    int rc;

    if (w->num_entries == KT_SELECT_MAX_ENTRIES)
        return fail(rd, KT_SELECT_ELIMIT, "more than %u entries",
                    KT_SELECT_MAX_ENTRIES);
    if (w->num_entries == w->cap_entries) {
        size_t cap = w->cap_entries ? 2 * w->cap_entries : 64;
        kt_select_entry *grown = realloc(w->entries, cap * sizeof *grown);
        if (!grown)
            return fail(rd, KT_SELECT_ENOMEM, "out of memory");
        w->entries = grown;
        w->cap_entries = cap;
    }
    obj = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!obj)
        return fail(rd, KT_SELECT_EFORMAT, "not JSON: %s", jerr.text);
    rc = read_entry(rd, obj, &w->entries[w->num_entries]);
    json_decref(obj);
    if (!rc)
        ++w->num_entries;
    return rc;
}

/* qsort has no context argument in C99: a bottom-up merge sort of the
 * index (stable, O(n log n) whatever the file holds). */
static int sort_index(size_t *idx, size_t n, const kt_select_entry *e)
{
    size_t *tmp = malloc((n ? n : 1) * sizeof *tmp), *src = idx, *dst = tmp;

    if (!tmp)
        return -1;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = kt_sel_compare(&e[src[j]], &e[src[i]]) < 0
                               ? src[j++]
                               : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        {
            size_t *swap = src;
            src = dst;
            dst = swap;
        }
    }
    if (src != idx)
        memcpy(idx, src, n * sizeof *idx);
    free(tmp);
    return 0;
}

/* log2 of every size, for the distance of the nearest-size rule. */
static int build_logs(reader *rd)
{
    kt_select_wisdom *w = rd->w;

    w->logs = malloc((w->num_entries ? w->num_entries : 1) * sizeof *w->logs);
    if (!w->logs)
        return fail(rd, KT_SELECT_ENOMEM, "out of memory");
    for (size_t i = 0; i < w->num_entries; ++i) {
        const kt_select_entry *e = &w->entries[i];
        double *l = arena_alloc(w, e->num_sizes * sizeof *l);
        if (!l)
            return fail(rd, KT_SELECT_ENOMEM, "out of memory");
        w->logs[i].volume = 0;
        for (size_t d = 0; d < e->num_sizes; ++d) {
            l[d] = log2((double)e->sizes[d]);
            w->logs[i].volume += l[d];
        }
        w->logs[i].log2 = l;
    }
    return KT_SELECT_OK;
}

/* The lookup index, and one entry per key. */
static int build_index(reader *rd)
{
    kt_select_wisdom *w = rd->w;

    w->by_op = malloc((w->num_entries ? w->num_entries : 1) * sizeof *w->by_op);
    if (!w->by_op)
        return fail(rd, KT_SELECT_ENOMEM, "out of memory");
    for (size_t i = 0; i < w->num_entries; ++i)
        w->by_op[i] = i;
    if (sort_index(w->by_op, w->num_entries, w->entries))
        return fail(rd, KT_SELECT_ENOMEM, "out of memory");
    for (size_t i = 1; i < w->num_entries; ++i) {
        const kt_select_entry *a = &w->entries[w->by_op[i - 1]];
        const kt_select_entry *b = &w->entries[w->by_op[i]];
        if (kt_sel_compare(a, b) == 0) {
            rd->line = a->line > b->line ? a->line : b->line;
            return fail(rd, KT_SELECT_EFORMAT,
                        "the same operator, device and sizes as line %zu",
                        a->line < b->line ? a->line : b->line);
        }
    }
    return KT_SELECT_OK;
}

static int parse_lines(reader *rd, const char *data, size_t size)
{
    const char *p = data, *end = data + size;
    long long expected = -1;
    int rc = KT_SELECT_OK, header = 0;

    while (p < end && !rc) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        json_error_t jerr;
        ++rd->line;
        if (len > KT_SELECT_MAX_LINE)
            return fail(rd, KT_SELECT_ELIMIT, "a line longer than %d bytes",
                        KT_SELECT_MAX_LINE);
        if (len && !(len == 1 && p[0] == '\r')) {
            if (!header) {
                json_t *obj = json_loadb(p, len, 0, &jerr);
                rc = obj ? read_header(rd, obj, &expected)
                         : fail(rd, KT_SELECT_EFORMAT,
                                "not a ktune wisdom file: %s", jerr.text);
                json_decref(obj);
                header = 1;
            } else {
                rc = add_entry(rd, p, len);
            }
        }
        p += len + (nl != NULL);
    }
    rd->line = 0;
    if (!rc && !header)
        return fail(rd, KT_SELECT_EFORMAT, "empty: no wisdom header");
    if (!rc && expected >= 0 && (size_t)expected != rd->w->num_entries)
        return fail(rd, KT_SELECT_EFORMAT,
                    "the header counts %lld entries, the file holds %zu "
                    "(truncated?)",
                    expected, rd->w->num_entries);
    if (!rc)
        rc = build_index(rd);
    return rc ? rc : build_logs(rd);
}

/* ------------------------------------------------------------ public */

int kt_select_open_buffer(const char *data, size_t size, const char *name,
                          kt_select_wisdom **out, kt_select_error *err)
{
    reader rd = {NULL, name ? name : "(wisdom)", 0, err};
    int rc;

    if (err) {
        err->code = KT_SELECT_OK;
        err->line = 0;
        err->msg[0] = '\0';
    }
    if (!out)
        return fail(&rd, KT_SELECT_EARG, "no place for the handle");
    *out = NULL;
    if (!data && size)
        return fail(&rd, KT_SELECT_EARG, "no data");
    rd.w = calloc(1, sizeof *rd.w);
    if (!rd.w)
        return fail(&rd, KT_SELECT_ENOMEM, "out of memory");
    rc = parse_lines(&rd, data ? data : "", size);
    if (rc) {
        kt_select_close(rd.w);
        return rc;
    }
    free(rd.w->strings); /* the table is only needed while reading */
    rd.w->strings = NULL;
    rd.w->string_slots = rd.w->num_strings = 0;
    *out = rd.w;
    return KT_SELECT_OK;
}

/* path opened for reading without blocking: a FIFO with no writer is
 * then refused as "not a regular file" instead of waited on. */
static FILE *open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f;

    if (fd < 0)
        return NULL;
    if (!(f = fdopen(fd, "rb")))
        close(fd);
    return f;
}

int kt_select_open(const char *path, kt_select_wisdom **out,
                   kt_select_error *err)
{
    reader rd = {NULL, path ? path : "(null)", 0, err};
    struct stat st;
    char *data = NULL;
    size_t got = 0;
    FILE *f = NULL;
    int rc;

    if (out)
        *out = NULL;
    if (!path || !out)
        return fail(&rd, KT_SELECT_EARG, "no path or no place for the handle");
    f = open_regular(path);
    if (!f)
        return fail(&rd, KT_SELECT_EIO, "cannot open: %s", strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return fail(&rd, KT_SELECT_EIO, "not a regular file");
    }
    if ((uint64_t)st.st_size > MAX_FILE_BYTES) {
        fclose(f);
        return fail(&rd, KT_SELECT_ELIMIT, "larger than %zu bytes",
                    MAX_FILE_BYTES);
    }
    data = malloc((size_t)st.st_size + 1);
    if (!data) {
        fclose(f);
        return fail(&rd, KT_SELECT_ENOMEM, "out of memory");
    }
    got = fread(data, 1, (size_t)st.st_size, f);
    rc = ferror(f) ? fail(&rd, KT_SELECT_EIO, "read error") : KT_SELECT_OK;
    fclose(f);
    if (!rc)
        rc = kt_select_open_buffer(data, got, path, out, err);
    free(data);
    return rc;
}

void kt_select_close(kt_select_wisdom *w)
{
    if (!w)
        return;
    while (w->chunks) {
        kt_sel_chunk *next = w->chunks->next;
        free(w->chunks);
        w->chunks = next;
    }
    free(w->strings);
    free(w->entries);
    free(w->by_op);
    free(w->logs);
    free(w);
}

size_t kt_select_count(const kt_select_wisdom *w)
{
    return w ? w->num_entries : 0;
}

const kt_select_entry *kt_select_entry_at(const kt_select_wisdom *w, size_t i)
{
    return w && i < w->num_entries ? &w->entries[i] : NULL;
}
