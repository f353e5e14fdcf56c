// SPDX-License-Identifier: Apache-2.0
#include "timeline/records.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/hash.h"
#include "timeline/demangle.h"

/* Interned strings: kernel and API names repeat in every record. */
typedef struct name_entry {
    char *text;
    char *demangled; /* NULL until asked; == text when it does not demangle */
} name_entry;

struct kt_tl_names {
    name_entry *slots;
    size_t cap, used;
};

static uint64_t hash_text(const char *s)
{
    return kt_hash_fnv1a_str(KT_HASH_FNV1A_BASIS, s);
}

static int names_grow(kt_tl_names *n)
{
    size_t cap = n->cap ? n->cap * 2 : 256;
    name_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < n->cap; ++i) {
        size_t j;
        if (!n->slots[i].text)
            continue;
        j = hash_text(n->slots[i].text) & (cap - 1);
        while (slots[j].text)
            j = (j + 1) & (cap - 1);
        slots[j] = n->slots[i];
    }
    free(n->slots);
    n->slots = slots;
    n->cap = cap;
    return 0;
}

static name_entry *names_intern(kt_tl_names *n, const char *s)
{
    size_t j;
    if ((n->used + 1) * 2 > n->cap && names_grow(n) != 0)
        return NULL;
    j = hash_text(s) & (n->cap - 1);
    while (n->slots[j].text) {
        if (strcmp(n->slots[j].text, s) == 0)
            return &n->slots[j];
        j = (j + 1) & (n->cap - 1);
    }
    if (!(n->slots[j].text = strdup(s)))
        return NULL;
    n->used++;
    return &n->slots[j];
}

static void names_free(kt_tl_names *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->cap; ++i) {
        if (n->slots[i].demangled != n->slots[i].text)
            free(n->slots[i].demangled);
        free(n->slots[i].text);
    }
    free(n->slots);
    free(n);
}

void kt_tl_trace_init(kt_tl_trace *t)
{
    memset(t, 0, sizeof *t);
}

void kt_tl_trace_free(kt_tl_trace *t)
{
    for (size_t i = 0; i < t->num_procs; ++i)
        free(t->procs[i].errors);
    free(t->procs);
    free(t->ops);
    free(t->apis);
    free(t->syncs);
    names_free(t->names);
    kt_tl_trace_init(t);
}

const char *kt_tl_copy_kind_name(uint32_t kind)
{
    static const char *const names[] = {
        "unknown copy",    "Host-to-Device",  "Device-to-Host",
        "Host-to-Array",   "Array-to-Host",   "Array-to-Array",
        "Array-to-Device", "Device-to-Array", "Device-to-Device",
        "Host-to-Host",    "Peer-to-Peer"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "unknown copy";
}

const char *kt_tl_sync_type_name(uint32_t type)
{
    static const char *const names[] = {
        "unknown", "event synchronize", "stream wait event",
        "stream synchronize", "context synchronize"};
    return type < sizeof names / sizeof names[0] ? names[type] : "unknown";
}

/* --- one file ------------------------------------------------------------ */

#define MAX_FIELDS 20

typedef struct reader {
    kt_tl_trace *t;
    const char *path;
    size_t line;
    uint32_t proc;
    char *field[MAX_FIELDS];
    size_t num_fields;
} reader;

/* Splits line at tabs; the last field takes the rest when there are more
 * than max. */
static void split(reader *r, char *line, size_t max)
{
    r->num_fields = 0;
    while (r->num_fields < max) {
        char *tab = r->num_fields + 1 < max ? strchr(line, '\t') : NULL;
        r->field[r->num_fields++] = line;
        if (!tab)
            break;
        *tab = '\0';
        line = tab + 1;
    }
}

static kt_status bad(reader *r, const char *what, kt_err *err)
{
    return kt_err_set(err, KT_S_INPUT, "%s:%zu: %s record: %s", r->path,
                      r->line, r->field[0], what);
}

static kt_status need(reader *r, size_t n, kt_err *err)
{
    char what[96];
    if (r->num_fields >= n)
        return KT_S_OK;
    snprintf(what, sizeof what, "%zu fields, expected %zu", r->num_fields, n);
    return bad(r, what, err);
}

static kt_status u64_at(reader *r, size_t i, uint64_t *out, kt_err *err)
{
    char *end;
    char what[160];
    errno = 0;
    *out = strtoull(r->field[i], &end, 10);
    if (errno == 0 && end != r->field[i] && *end == '\0' &&
        r->field[i][0] != '-')
        return KT_S_OK;
    snprintf(what, sizeof what, "field %zu: '%.60s' is not a count", i,
             r->field[i]);
    return bad(r, what, err);
}

static kt_status i64_at(reader *r, size_t i, int64_t *out, kt_err *err)
{
    char *end;
    char what[160];
    errno = 0;
    *out = strtoll(r->field[i], &end, 10);
    if (errno == 0 && end != r->field[i] && *end == '\0')
        return KT_S_OK;
    snprintf(what, sizeof what, "field %zu: '%.60s' is not a number", i,
             r->field[i]);
    return bad(r, what, err);
}

static kt_status u32_at(reader *r, size_t i, uint32_t *out, kt_err *err)
{
    uint64_t v;
    kt_status s = u64_at(r, i, &v, err);
    if (s)
        return s;
    if (v > UINT32_MAX)
        return bad(r, "a 32-bit field is out of range", err);
    *out = (uint32_t)v;
    return KT_S_OK;
}

static kt_status i32_at(reader *r, size_t i, int32_t *out, kt_err *err)
{
    int64_t v;
    kt_status s = i64_at(r, i, &v, err);
    if (s)
        return s;
    if (v < INT32_MIN || v > INT32_MAX)
        return bad(r, "a 32-bit field is out of range", err);
    *out = (int32_t)v;
    return KT_S_OK;
}

static kt_status span_at(reader *r, uint64_t *start, uint64_t *end, kt_err *err)
{
    kt_status s = u64_at(r, 1, start, err);
    if (!s)
        s = u64_at(r, 2, end, err);
    if (!s && *end < *start)
        s = bad(r, "ends before it starts", err);
    return s;
}

static const char *intern(reader *r, const char *s, kt_err *err)
{
    name_entry *e = names_intern(r->t->names, s);
    if (!e)
        kt_err_set(err, KT_S_NOMEM, "%s: out of memory", r->path);
    return e ? e->text : NULL;
}

/* Grows an array of elements of size `size` to hold one more. */
static void *grow(void **items, size_t *cap, size_t num, size_t size)
{
    if (num == *cap) {
        size_t ncap = *cap ? *cap * 2 : 1024;
        void *p = realloc(*items, ncap * size);
        if (!p)
            return NULL;
        *items = p;
        *cap = ncap;
    }
    return (char *)*items + num * size;
}

static kt_tl_proc *cur_proc(reader *r)
{
    return &r->t->procs[r->proc];
}

static kt_status parse_proc(reader *r, kt_err *err)
{
    kt_tl_proc *p = cur_proc(r);
    int64_t pid = 0, ppid = 0;
    kt_status s = need(r, 6, err);
    if (!s)
        s = i64_at(r, 1, &pid, err);
    if (!s)
        s = i64_at(r, 2, &ppid, err);
    if (!s)
        s = u64_at(r, 3, &p->init_cupti, err);
    if (!s)
        s = u64_at(r, 4, &p->init_mono, err);
    if (!s && !(p->exe = intern(r, r->field[5], err)))
        s = err->status;
    p->pid = (long)pid;
    p->ppid = (long)ppid;
    return s;
}

/* CUPTI names runtime calls by their callback ids, "cudaMalloc_v3020"; the
 * version says when the entry point appeared, which the user never typed.
 * Driver names keep theirs: "cuMemAlloc_v2" is the symbol itself. */
static const char *api_name(reader *r, const char *name, char domain,
                            kt_err *err)
{
    size_t len = strlen(name), digits = 0;
    char *plain;
    const char *out;
    while (digits < len && name[len - 1 - digits] >= '0' &&
           name[len - 1 - digits] <= '9')
        digits++;
    if (domain != 'R' || digits < 4 || digits + 2 >= len ||
        name[len - digits - 1] != 'v' || name[len - digits - 2] != '_')
        return intern(r, name, err);
    if (!(plain = strndup(name, len - digits - 2))) {
        kt_err_set(err, KT_S_NOMEM, "%s: out of memory", r->path);
        return NULL;
    }
    out = intern(r, plain, err);
    free(plain);
    return out;
}

static kt_status parse_api(reader *r, kt_err *err)
{
    kt_tl_trace *t = r->t;
    kt_tl_api *a =
        grow((void **)&t->apis, &t->cap_apis, t->num_apis, sizeof *a);
    kt_status s = need(r, 9, err);
    if (!a)
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", r->path);
    memset(a, 0, sizeof *a);
    a->proc = r->proc;
    if (!s && strcmp(r->field[1], "R") != 0 && strcmp(r->field[1], "D") != 0)
        s = bad(r, "field 1: expected R (runtime) or D (driver)", err);
    a->domain = r->field[1][0];
    if (!s)
        s = u64_at(r, 2, &a->start, err);
    if (!s)
        s = u64_at(r, 3, &a->end, err);
    if (!s && a->end < a->start)
        s = bad(r, "ends before it starts", err);
    if (!s)
        s = u32_at(r, 4, &a->cbid, err);
    if (!s)
        s = u32_at(r, 5, &a->thread, err);
    if (!s)
        s = u32_at(r, 6, &a->correlation, err);
    if (!s)
        s = u32_at(r, 7, &a->result, err);
    if (!s && !(a->name = api_name(r, r->field[8], a->domain, err)))
        s = err->status;
    if (!s)
        t->num_apis++;
    return s;
}

static kt_tl_op *new_op(reader *r, kt_tl_op_kind kind, kt_err *err)
{
    kt_tl_trace *t = r->t;
    kt_tl_op *op = grow((void **)&t->ops, &t->cap_ops, t->num_ops, sizeof *op);
    if (!op) {
        kt_err_set(err, KT_S_NOMEM, "%s: out of memory", r->path);
        return NULL;
    }
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->proc = r->proc;
    return op;
}

/* Fields 1-6 of K, C and S: start end dev ctx stream corr. */
static kt_status parse_op_head(reader *r, kt_tl_op *op, kt_err *err)
{
    kt_status s = span_at(r, &op->start, &op->end, err);
    if (!s)
        s = u32_at(r, 3, &op->device, err);
    if (!s)
        s = u32_at(r, 4, &op->context, err);
    if (!s)
        s = u32_at(r, 5, &op->stream, err);
    if (!s)
        s = u32_at(r, 6, &op->correlation, err);
    return s;
}

static kt_status parse_kernel(reader *r, kt_err *err)
{
    kt_tl_op *op;
    name_entry *e;
    kt_status s = need(r, 17, err);
    if (s || !(op = new_op(r, KT_TL_KERNEL, err)))
        return s ? s : err->status;
    s = parse_op_head(r, op, err);
    for (size_t i = 0; !s && i < 3; ++i)
        s = i32_at(r, 7 + i, &op->grid[i], err);
    for (size_t i = 0; !s && i < 3; ++i)
        s = i32_at(r, 10 + i, &op->block[i], err);
    if (!s)
        s = u32_at(r, 13, &op->registers, err);
    if (!s)
        s = i32_at(r, 14, &op->static_smem, err);
    if (!s)
        s = i32_at(r, 15, &op->dynamic_smem, err);
    if (s)
        return s;
    if (!(e = names_intern(r->t->names, r->field[16])))
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", r->path);
    if (!e->demangled && !(e->demangled = kt_tl_demangle(e->text)))
        e->demangled = e->text;
    op->name = e->text;
    op->demangled = e->demangled;
    r->t->num_ops++;
    return KT_S_OK;
}

static kt_status parse_copy(reader *r, kt_err *err)
{
    kt_tl_op *op;
    kt_status s = need(r, 11, err);
    if (s || !(op = new_op(r, KT_TL_MEMCPY, err)))
        return s ? s : err->status;
    s = parse_op_head(r, op, err);
    if (!s)
        s = u32_at(r, 7, &op->copy_kind, err);
    if (!s)
        s = u32_at(r, 8, &op->src_kind, err);
    if (!s)
        s = u32_at(r, 9, &op->dst_kind, err);
    if (!s)
        s = u64_at(r, 10, &op->bytes, err);
    if (!s) {
        op->name = op->demangled = kt_tl_copy_kind_name(op->copy_kind);
        r->t->num_ops++;
    }
    return s;
}

static kt_status parse_memset(reader *r, kt_err *err)
{
    kt_tl_op *op;
    uint32_t value;
    kt_status s = need(r, 9, err);
    if (s || !(op = new_op(r, KT_TL_MEMSET, err)))
        return s ? s : err->status;
    s = parse_op_head(r, op, err);
    if (!s)
        s = u64_at(r, 7, &op->bytes, err);
    if (!s)
        s = u32_at(r, 8, &value, err);
    if (!s) {
        op->name = op->demangled = "memset";
        r->t->num_ops++;
    }
    return s;
}

static kt_status parse_sync(reader *r, kt_err *err)
{
    kt_tl_trace *t = r->t;
    kt_tl_sync *y =
        grow((void **)&t->syncs, &t->cap_syncs, t->num_syncs, sizeof *y);
    kt_status s = need(r, 7, err);
    if (!y)
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", r->path);
    memset(y, 0, sizeof *y);
    y->proc = r->proc;
    if (!s)
        s = span_at(r, &y->start, &y->end, err);
    if (!s)
        s = u32_at(r, 3, &y->type, err);
    if (!s)
        s = u32_at(r, 4, &y->context, err);
    if (!s)
        s = u32_at(r, 5, &y->stream, err);
    if (!s)
        s = u32_at(r, 6, &y->correlation, err);
    if (!s)
        t->num_syncs++;
    return s;
}

static kt_status parse_error(reader *r, kt_err *err)
{
    kt_tl_proc *p = cur_proc(r);
    kt_tl_error *e;
    int64_t code;
    kt_status s = need(r, 4, err);
    if (!s)
        s = i64_at(r, 1, &code, err);
    if (s)
        return s;
    e = realloc(p->errors, (p->num_errors + 1) * sizeof *e);
    if (!e)
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", r->path);
    p->errors = e;
    e = &p->errors[p->num_errors];
    e->code = (int)code;
    if (!(e->call = intern(r, r->field[2], err)) ||
        !(e->result = intern(r, r->field[3], err)) ||
        !(e->tools = intern(r, r->num_fields > 4 ? r->field[4] : "", err)))
        return err->status;
    p->num_errors++;
    return KT_S_OK;
}

static kt_status parse_end(reader *r, kt_err *err)
{
    kt_tl_proc *p = cur_proc(r);
    kt_status s = need(r, 4, err);
    if (!s)
        s = u64_at(r, 1, &p->end_cupti, err);
    if (!s)
        s = u64_at(r, 2, &p->end_mono, err);
    if (!s && !(p->end_how = intern(r, r->field[3], err)))
        s = err->status;
    if (!s)
        p->ended = 1;
    return s;
}

static kt_status parse_line(reader *r, char *line, kt_err *err)
{
    char tag = line[0];
    if (line[0] == '\0' || line[1] != '\t')
        return kt_err_set(err, KT_S_INPUT, "%s:%zu: '%.40s' is not a record",
                          r->path, r->line, line);
    split(r, line,
          tag == 'P'   ? 6
          : tag == 'A' ? 9
          : tag == 'K' ? 17
          : tag == 'E' ? 5
          : tag == 'X' ? 4
                       : MAX_FIELDS);
    switch (tag) {
    case 'P': return parse_proc(r, err);
    case 'A': return parse_api(r, err);
    case 'K': return parse_kernel(r, err);
    case 'C': return parse_copy(r, err);
    case 'S': return parse_memset(r, err);
    case 'Y': return parse_sync(r, err);
    case 'E': return parse_error(r, err);
    case 'X': return parse_end(r, err);
    case 'D':
        return need(r, 2, err) ? err->status
                               : u64_at(r, 1, &cur_proc(r)->dropped, err);
    default:
        /* Newer tracers may add record kinds; this reader skips them. */
        return KT_S_OK;
    }
}

static kt_status add_proc(kt_tl_trace *t, const char *path, kt_err *err)
{
    kt_tl_proc *p = realloc(t->procs, (t->num_procs + 1) * sizeof *p);
    if (!p)
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    t->procs = p;
    p = &t->procs[t->num_procs];
    memset(p, 0, sizeof *p);
    p->exe = p->end_how = "";
    {
        name_entry *e = names_intern(t->names, path);
        if (!e)
            return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
        p->file = e->text;
    }
    t->num_procs++;
    return KT_S_OK;
}

static kt_status check_header(reader *r, const char *line, kt_err *err)
{
    char want[32];
    snprintf(want, sizeof want, "ktune-trace\t%d", KT_TL_RECORD_VERSION);
    if (strcmp(line, want) == 0)
        return KT_S_OK;
    if (strncmp(line, "ktune-trace\t", 12) == 0)
        return kt_err_set(err, KT_S_INPUT,
                          "%s:1: record format version '%s', this ktune "
                          "reads version %d",
                          r->path, line + 12, KT_TL_RECORD_VERSION);
    return kt_err_set(err, KT_S_INPUT,
                      "%s:1: not a ktune timeline record file (expected "
                      "'ktune-trace %d' first)",
                      r->path, KT_TL_RECORD_VERSION);
}

kt_status kt_tl_read_file(kt_tl_trace *t, const char *path, kt_err *err)
{
    reader r = {.t = t, .path = path};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    kt_status s = KT_S_OK;
    FILE *f;

    if (!t->names && !(t->names = calloc(1, sizeof *t->names)))
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
    if (!(f = kt_file_open_regular(path, "trace", "r", err)))
        return err ? err->status : KT_S_IO;
    if ((s = add_proc(t, path, err)))
        goto done;
    r.proc = (uint32_t)(t->num_procs - 1);
    while ((len = getline(&line, &cap, f)) != -1) {
        r.line++;
        if (len == 0 || line[len - 1] != '\n') {
            /* A write cut short by the end of the process. */
            t->procs[r.proc].truncated++;
            break;
        }
        line[len - 1] = '\0';
        s = r.line == 1 ? check_header(&r, line, err)
                        : parse_line(&r, line, err);
        if (s)
            goto done;
    }
    if (ferror(f))
        s = kt_err_set(err, KT_S_IO, "%s: read error", path);
    else if (r.line == 0)
        s = kt_err_set(err, KT_S_INPUT, "%s: empty record file", path);
done:
    free(line);
    fclose(f);
    return s;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

kt_status kt_tl_read_dir(kt_tl_trace *t, const char *dir, kt_err *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **files = NULL, path[4096];
    size_t n = 0, cap = 0;
    kt_status s = KT_S_OK;

    if (!d)
        return kt_err_set(err, KT_S_IO, "%s: %s", dir, strerror(errno));
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (strncmp(de->d_name, "trace-", 6) != 0 || len < 10 ||
            strcmp(de->d_name + len - 4, ".tsv") != 0)
            continue;
        if (n == cap) {
            char **nf = realloc(files, (cap = cap ? cap * 2 : 16) * sizeof *nf);
            if (!nf) {
                s = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", dir);
                goto done;
            }
            files = nf;
        }
        if (!(files[n] = strdup(de->d_name))) {
            s = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", dir);
            goto done;
        }
        n++;
    }
    if (n)
        qsort(files, n, sizeof *files, by_name);
    for (size_t i = 0; i < n && !s; ++i) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, files[i]) >=
            sizeof path)
            s = kt_err_set(err, KT_S_INPUT, "%s/%s: path too long", dir,
                           files[i]);
        else
            s = kt_tl_read_file(t, path, err);
    }
done:
    for (size_t i = 0; i < n; ++i)
        free(files[i]);
    free(files);
    closedir(d);
    return s;
}
