// SPDX-License-Identifier: Apache-2.0

#include "capture/format.h"
#include "core/msg.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fileio.h"

/* What one field check needs: the manifest's path for messages. */
typedef struct reader {
    const char *file;
    kt_err *err;
} reader;

static kt_status bad(const reader *r, const char *field, const char *expected,
                     const char *found)
{
    return kt_err_set(r->err, KT_S_INPUT, "%s: %s: expected %s, found %s",
                      r->file, field, expected, found);
}

static const char *type_name(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return v ? "null" : "nothing (the field is missing)";
    }
}

static kt_status get_u64(const reader *r, const json_t *obj, const char *key,
                         const char *field, uint64_t max, uint64_t *out)
{
    const json_t *v = json_object_get(obj, key);
    char found[64];
    if (!json_is_integer(v))
        return bad(r, field, "a whole number", type_name(v));
    if (json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max) {
        snprintf(found, sizeof found, "%lld", (long long)json_integer_value(v));
        char want[64];
        snprintf(want, sizeof want, "0 to %llu", (unsigned long long)max);
        return bad(r, field, want, found);
    }
    *out = (uint64_t)json_integer_value(v);
    return KT_S_OK;
}

/* Addresses are written as "0x..." strings: JSON numbers lose bits past
 * 2^53 in most readers. */
static kt_status get_addr(const reader *r, const json_t *obj, const char *key,
                          const char *field, uint64_t *out)
{
    const json_t *v = json_object_get(obj, key);
    const char *s = json_string_value(v);
    char *end = NULL;
    if (!s)
        return bad(r, field, "a hexadecimal address string", type_name(v));
    errno = 0;
    *out = strtoull(s, &end, 16);
    if (strncmp(s, "0x", 2) != 0 || !*(s + 2) || *end || errno)
        return bad(r, field, "an address like \"0x7f0000000000\"", s);
    return KT_S_OK;
}

static kt_status get_str(const reader *r, const json_t *obj, const char *key,
                         const char *field, const char **out)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_string(v) || !*json_string_value(v))
        return bad(r, field, "a non-empty string", type_name(v));
    *out = json_string_value(v);
    return KT_S_OK;
}

/* A blob's name: a plain file name inside the folder, so that a manifest
 * can never make ktune read outside its capture. */
static kt_status get_name(const reader *r, const json_t *obj, const char *key,
                          const char *field, char *out, size_t size)
{
    const char *s;
    kt_status st = get_str(r, obj, key, field, &s);
    if (st)
        return st;
    if (strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 ||
        strlen(s) >= size)
        return bad(r, field, "a file name inside the capture folder", s);
    snprintf(out, size, "%s", s);
    return KT_S_OK;
}

static kt_status get_dim3(const reader *r, const json_t *obj, const char *key,
                          uint32_t out[3])
{
    const json_t *v = json_object_get(obj, key);
    char field[64];
    uint64_t x;
    snprintf(field, sizeof field, "launch.%s", key);
    if (!json_is_array(v) || json_array_size(v) != 3)
        return bad(r, field, "an array of 3 whole numbers", type_name(v));
    for (size_t i = 0; i < 3; ++i) {
        const json_t *e = json_array_get(v, i);
        char found[64];
        if (!json_is_integer(e) || json_integer_value(e) < 1 ||
            json_integer_value(e) > INT32_MAX) {
            snprintf(found, sizeof found, "%s",
                     json_is_integer(e) ? "" : type_name(e));
            if (json_is_integer(e))
                snprintf(found, sizeof found, "%lld",
                         (long long)json_integer_value(e));
            snprintf(field, sizeof field, "launch.%s[%zu]", key, i);
            return bad(r, field, "1 to 2147483647", found);
        }
        x = (uint64_t)json_integer_value(e);
        out[i] = (uint32_t)x;
    }
    return KT_S_OK;
}

/* The size of file name in the folder must be bytes. */
static kt_status check_blob(const reader *r, const kt_capture *c,
                            const char *field, const char *name, uint64_t bytes)
{
    char path[4200], want[48], found[48];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", c->dir, name);
    /* lstat: a blob that is a link could make ktune read any file the
     * user can (and write it, restoring outputs) from outside the folder. */
    if (lstat(path, &st) != 0)
        return kt_err_set(r->err, KT_S_INPUT, "%s: %s: the file %s: %s",
                          r->file, field, name, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return bad(r, field, "a regular file in the capture folder",
                   "a symbolic link");
    if (!S_ISREG(st.st_mode))
        return bad(r, field, "a regular file", name);
    if ((uint64_t)st.st_size != bytes) {
        snprintf(want, sizeof want, "%llu bytes", (unsigned long long)bytes);
        snprintf(found, sizeof found, "%llu (damaged or truncated)",
                 (unsigned long long)st.st_size);
        return kt_err_set(r->err, KT_S_INPUT,
                          "%s: %s: the file %s: expected %s, found %s", r->file,
                          field, name, want, found);
    }
    return KT_S_OK;
}

static kt_status read_head(const reader *r, const json_t *root, kt_capture *c)
{
    const json_t *k = json_object_get(root, "kernel");
    const json_t *m = json_object_get(root, "module");
    const json_t *d = json_object_get(root, "device");
    const char *s, *kind;
    uint64_t v;
    kt_status st;

    if ((st = get_str(r, root, "format", "format", &s)))
        return st;
    if (strcmp(s, KT_CAP_FORMAT) != 0)
        return bad(r, "format", "\"" KT_CAP_FORMAT "\"", s);
    if ((st = get_u64(r, root, "version", "version", UINT32_MAX, &v)))
        return st;
    if (v != KT_CAP_VERSION) {
        char found[32];
        snprintf(found, sizeof found, "%llu (written by another ktune)",
                 (unsigned long long)v);
        return bad(r, "version", "1", found);
    }
    if (!json_is_object(k))
        return bad(r, "kernel", "an object", type_name(k));
    if ((st = get_str(r, k, "mangled", "kernel.mangled", &s)) ||
        !(c->mangled = strdup(s)))
        return st ? st : kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    /* A symbol has no control characters; names only shown are scrubbed
     * of them (a manifest must not drive the user's terminal). */
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p)
        if (*p < 0x20 || *p == 0x7F)
            return bad(r, "kernel.mangled", "a symbol name",
                       "a control character in it");
    s = json_string_value(json_object_get(k, "demangled"));
    if (!(c->demangled = strdup(s && *s ? s : c->mangled)))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    kt_term_scrub(c->demangled);
    if (!json_is_object(m))
        return bad(r, "module", "an object", type_name(m));
    if ((st = get_name(r, m, "file", "module.file", c->module_file,
                       sizeof c->module_file)) ||
        (st = get_str(r, m, "kind", "module.kind", &kind)) ||
        (st = get_u64(r, m, "bytes", "module.bytes", (uint64_t)1 << 32,
                      &c->module_bytes)))
        return st;
    if (strcmp(kind, "cubin") != 0 && strcmp(kind, "ptx") != 0 &&
        strcmp(kind, "fatbin") != 0)
        return bad(r, "module.kind", "\"cubin\", \"fatbin\" or \"ptx\"", kind);
    snprintf(c->module_kind, sizeof c->module_kind, "%s", kind);
    if (c->module_bytes == 0)
        return bad(r, "module.bytes", "at least 1", "0");
    if (json_is_object(d)) {
        s = json_string_value(json_object_get(d, "name"));
        snprintf(c->device, sizeof c->device, "%s", s ? s : "");
        kt_term_scrub(c->device);
        if ((st = get_u64(r, d, "cc_major", "device.cc_major", 100, &v)))
            return st;
        c->cc_major = (int)v;
        if ((st = get_u64(r, d, "cc_minor", "device.cc_minor", 100, &v)))
            return st;
        c->cc_minor = (int)v;
    }
    return check_blob(r, c, "module.file", c->module_file, c->module_bytes);
}

static kt_status read_launch(const reader *r, const json_t *root, kt_capture *c)
{
    const json_t *l = json_object_get(root, "launch");
    uint64_t v;
    kt_status st;
    if (!json_is_object(l))
        return bad(r, "launch", "an object", type_name(l));
    if ((st = get_dim3(r, l, "grid", c->grid)) ||
        (st = get_dim3(r, l, "block", c->block)) ||
        (st = get_u64(r, l, "dynamic_smem", "launch.dynamic_smem", UINT32_MAX,
                      &v)))
        return st;
    c->dynamic_smem = (uint32_t)v;
    if ((st = get_u64(r, l, "index", "launch.index", UINT64_MAX >> 1,
                      &c->launch_index)))
        return st;
    if (c->launch_index == 0)
        return bad(r, "launch.index", "1 or more", "0");
    if ((uint64_t)c->block[0] * c->block[1] * c->block[2] > 1024)
        return bad(r, "launch.block", "at most 1024 threads in all", "more");
    if (json_object_get(l, "stream") &&
        (st = get_addr(r, l, "stream", "launch.stream", &c->stream)))
        return st;
    return KT_S_OK;
}

static kt_status read_allocs(const reader *r, const json_t *root, kt_capture *c)
{
    const json_t *a = json_object_get(root, "allocations");
    char field[64];
    kt_status st;
    if (!json_is_array(a) || json_array_size(a) > KT_CAP_MAX_ALLOCS)
        return bad(r, "allocations", "an array of at most 256 objects",
                   type_name(a));
    c->num_allocs = json_array_size(a);
    if (c->num_allocs &&
        !(c->allocs = calloc(c->num_allocs, sizeof *c->allocs)))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < c->num_allocs; ++i) {
        const json_t *e = json_array_get(a, i);
        kt_cap_alloc *al = &c->allocs[i];
        snprintf(field, sizeof field, "allocations[%zu]", i);
        if (!json_is_object(e))
            return bad(r, field, "an object", type_name(e));
        snprintf(field, sizeof field, "allocations[%zu].base", i);
        if ((st = get_addr(r, e, "base", field, &al->base)))
            return st;
        snprintf(field, sizeof field, "allocations[%zu].bytes", i);
        if ((st = get_u64(r, e, "bytes", field, KT_CAP_MAX_ALLOC_BYTES,
                          &al->bytes)))
            return st;
        if (al->bytes == 0 || al->base + al->bytes < al->base)
            return bad(r, field, "1 or more, within the address space",
                       al->bytes ? "an end past the address space" : "0");
        snprintf(field, sizeof field, "allocations[%zu].before", i);
        if ((st = get_name(r, e, "before", field, al->before,
                           sizeof al->before)) ||
            (st = check_blob(r, c, field, al->before, al->bytes)))
            return st;
        snprintf(field, sizeof field, "allocations[%zu].after", i);
        if ((st =
                 get_name(r, e, "after", field, al->after, sizeof al->after)) ||
            (st = check_blob(r, c, field, al->after, al->bytes)))
            return st;
        for (size_t j = 0; j < i; ++j)
            if (al->base < c->allocs[j].base + c->allocs[j].bytes &&
                c->allocs[j].base < al->base + al->bytes)
                return bad(r, field, "allocations that do not overlap",
                           "one overlapping an earlier one");
    }
    return KT_S_OK;
}

/* One parameter: its bytes inside args.bin, after the previous one; a
 * pointer names an allocation and lies inside it. */
static kt_status read_param(const reader *r, const json_t *e, size_t i,
                            uint64_t prev_end, kt_capture *c)
{
    kt_cap_param *p = &c->params[i];
    const json_t *ptr;
    char field[64], found[64];
    uint64_t k;
    kt_status st;

    snprintf(field, sizeof field, "params[%zu]", i);
    if (!json_is_object(e))
        return bad(r, field, "an object", type_name(e));
    snprintf(field, sizeof field, "params[%zu].offset", i);
    if ((st = get_u64(r, e, "offset", field, KT_CAP_MAX_ARG_BYTES, &p->offset)))
        return st;
    if (p->offset < prev_end) {
        snprintf(found, sizeof found, "%llu", (unsigned long long)p->offset);
        return bad(r, field, "an offset after the previous parameter", found);
    }
    snprintf(field, sizeof field, "params[%zu].size", i);
    if ((st = get_u64(r, e, "size", field, KT_CAP_MAX_ARG_BYTES, &p->size)))
        return st;
    if (p->size == 0 || p->offset + p->size > c->args_bytes)
        return bad(r, field, "1 or more, inside args_bytes",
                   p->size ? "past the end" : "0");
    p->alloc = -1;
    ptr = json_object_get(e, "pointer");
    if (!ptr || json_is_null(ptr))
        return KT_S_OK;
    snprintf(field, sizeof field, "params[%zu].pointer.allocation", i);
    if (!json_is_object(ptr))
        return bad(r, field, "an object or null", type_name(ptr));
    if (p->size != 8)
        return bad(r, field, "a pointer parameter of 8 bytes", "another size");
    if ((st = get_u64(r, ptr, "allocation", field, KT_CAP_MAX_ALLOCS, &k)))
        return st;
    if (k >= c->num_allocs)
        return bad(r, field, "the index of an allocation", "none that exists");
    p->alloc = (int)k;
    snprintf(field, sizeof field, "params[%zu].pointer.offset", i);
    if ((st = get_u64(r, ptr, "offset", field, UINT64_MAX >> 2,
                      &p->alloc_offset)))
        return st;
    if (p->alloc_offset > c->allocs[k].bytes)
        return bad(r, field, "an offset inside the allocation", "past it");
    return KT_S_OK;
}

static kt_status read_params(const reader *r, const json_t *root, kt_capture *c)
{
    const json_t *a = json_object_get(root, "params");
    uint64_t end = 0;
    kt_status st;
    if ((st = get_name(r, root, "args_file", "args_file", c->args_file,
                       sizeof c->args_file)) ||
        (st = get_u64(r, root, "args_bytes", "args_bytes", KT_CAP_MAX_ARG_BYTES,
                      &c->args_bytes)) ||
        (st = check_blob(r, c, "args_file", c->args_file, c->args_bytes)))
        return st;
    if (!json_is_array(a) || json_array_size(a) > KT_CAP_MAX_PARAMS)
        return bad(r, "params", "an array of at most 4096 objects",
                   type_name(a));
    c->num_params = json_array_size(a);
    if (c->num_params &&
        !(c->params = calloc(c->num_params, sizeof *c->params)))
        return kt_err_set(r->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < c->num_params; ++i) {
        if ((st = read_param(r, json_array_get(a, i), i, end, c)))
            return st;
        end = c->params[i].offset + c->params[i].size;
    }
    return KT_S_OK;
}

static kt_status locate(const char *path, kt_capture *c, char *file,
                        size_t size, kt_err *err)
{
    struct stat st;
    const char *slash;
    if (stat(path, &st) != 0)
        return kt_err_set(err, KT_S_INPUT, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        snprintf(c->dir, sizeof c->dir, "%s", path);
        if ((size_t)snprintf(file, size, "%s/%s", path, KT_CAP_MANIFEST) >=
            size)
            return kt_err_set(err, KT_S_INPUT, "%s: path too long", path);
        return KT_S_OK;
    }
    slash = strrchr(path, '/');
    if (slash)
        snprintf(c->dir, sizeof c->dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(c->dir, sizeof c->dir, ".");
    if ((size_t)snprintf(file, size, "%s", path) >= size)
        return kt_err_set(err, KT_S_INPUT, "%s: path too long", path);
    return KT_S_OK;
}

kt_status kt_capture_read(const char *path, kt_capture *out, kt_err *err)
{
    char file[4200], *text = NULL;
    size_t len = 0;
    json_error_t je;
    json_t *root = NULL;
    reader r = {file, err};
    kt_status st;

    memset(out, 0, sizeof *out);
    /* Only a regular file, within a size: a FIFO or a device named as the
     * manifest is refused, never waited on. */
    if ((st = locate(path, out, file, sizeof file, err)))
        goto done;
    if (access(file, F_OK) != 0) {
        st = kt_err_set(err, KT_S_INPUT,
                        "%s: not a capture manifest: %s (expected the "
                        "capture.json that ktune capture writes)",
                        file, strerror(errno));
        goto done;
    }
    if ((st = kt_file_read(file, "capture manifest", KT_CAPTURE_MANIFEST_MAX,
                           &text, &len, err)))
        goto done;
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        /* jansson's line is -1 where no line applies (a file it could not
         * open or read): then the file alone is named. */
        char at[24] = "";
        if (je.line > 0)
            snprintf(at, sizeof at, ":%d", je.line);
        st = kt_err_set(err, KT_S_INPUT,
                        "%s%s: not a capture manifest: %s (expected the "
                        "capture.json that ktune capture writes)",
                        file, at, je.text);
        goto done;
    }
    if (!json_is_object(root)) {
        st = bad(&r, "the manifest", "a JSON object", type_name(root));
        goto done;
    }
    if ((st = read_head(&r, root, out)) || (st = read_launch(&r, root, out)) ||
        (st = read_allocs(&r, root, out)) || (st = read_params(&r, root, out)))
        goto done;
done:
    free(text);
    json_decref(root);
    return st;
}

void kt_capture_free(kt_capture *c)
{
    free(c->mangled);
    free(c->demangled);
    free(c->params);
    free(c->allocs);
    memset(c, 0, sizeof *c);
}

kt_status kt_capture_read_blob(const kt_capture *c, const char *name, void *dst,
                               uint64_t bytes, kt_err *err)
{
    char path[4200];
    FILE *f;
    size_t got;
    int extra;
    kt_status st = KT_S_OK;

    snprintf(path, sizeof path, "%s/%s", c->dir, name);
    if (!(f = kt_file_open_regular(path, "capture blob", "rb", err)))
        return KT_S_INPUT;
    got = bytes ? fread(dst, 1, (size_t)bytes, f) : 0;
    extra = fgetc(f);
    if (ferror(f))
        st = kt_err_set(err, KT_S_IO, "%s: cannot read: %s", path,
                        strerror(errno));
    else if (got != bytes || extra != EOF)
        st = kt_err_set(err, KT_S_INPUT,
                        "%s: expected %llu bytes, found %s (changed since "
                        "it was checked)",
                        path, (unsigned long long)bytes,
                        got != bytes ? "fewer" : "more");
    fclose(f);
    return st;
}

uint64_t kt_capture_data_bytes(const kt_capture *c)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->num_allocs; ++i)
        n += 2 * c->allocs[i].bytes;
    return n;
}
