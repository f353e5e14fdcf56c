// SPDX-License-Identifier: Apache-2.0
/*
 * The headers a run-time compile reads, for the NVRTC cache key
 * (core/nvrtc.h): NVRTC reports no dependency list, so the includes are
 * found as its preprocessor finds them. `#include "x"` in the source
 * searches the source's own folder (its name's, relative to the current
 * one) then the -I folders in order; in a header, that header's folder
 * then the -I folders; `#include <x>` the -I folders only (what none holds
 * is NVRTC's built-in or the toolkit's, and changes with NVRTC's version,
 * which the key has). Each header found is read, hashed and searched in
 * turn, once. An include inside a comment or a branch the preprocessor
 * skips is counted too: a key that depends on a file more than it needs
 * is safe; one that misses a file serves stale binaries. An include whose
 * name is a macro cannot be resolved without preprocessing and is left
 * out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fileio.h"
#include "core/hash.h"
#include "engine/nvrtc.h"

/* Headers followed at most, and the largest one read. */
#define MAX_HEADERS 4096
#define MAX_HEADER_BYTES ((size_t)64 << 20)

typedef struct scan {
    const char **dirs; /* the -I folders, in order */
    size_t num_dirs;
    char **seen; /* headers found, by resolved path */
    size_t num_seen;
    char *text; /* "header PATH HASH\n" lines; malloc'ed */
    size_t len, cap;
    kt_err *err;
} scan;

static kt_status append(scan *s, const char *path, const char *data,
                        size_t size)
{
    size_t need = strlen(path) + 48;
    char hex[33];
    if (s->len + need > s->cap) {
        size_t cap = 2 * (s->len + need);
        char *grown = realloc(s->text, cap);
        if (!grown)
            return kt_err_set(s->err, KT_S_NOMEM, "out of memory");
        s->text = grown;
        s->cap = cap;
    }
    kt_hash_hex128(data, size, hex);
    s->len += (size_t)snprintf(s->text + s->len, s->cap - s->len,
                               "header %s %s\n", path, hex);
    return KT_S_OK;
}

/* The -I folders of req's options: -IDIR, -I DIR, --include-path=DIR. */
static kt_status include_dirs(const kt_nvrtc_request *req, scan *s)
{
    s->dirs = calloc(req->num_options + 1, sizeof *s->dirs);
    if (!s->dirs)
        return kt_err_set(s->err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < req->num_options; ++i) {
        const char *o = req->options[i];
        if (strcmp(o, "-I") == 0 && i + 1 < req->num_options)
            s->dirs[s->num_dirs++] = req->options[++i];
        else if (strncmp(o, "-I", 2) == 0 && o[2])
            s->dirs[s->num_dirs++] = o + 2;
        else if (strncmp(o, "--include-path=", 15) == 0 && o[15])
            s->dirs[s->num_dirs++] = o + 15;
    }
    return KT_S_OK;
}

/* dir/name (name alone when absolute or dir is empty) into a malloc'ed
 * string; NULL without memory. */
static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p && (name[0] == '/' || !dir[0]))
        snprintf(p, n, "%s", name);
    else if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* The folder of path ("" for a bare name: the current folder). */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    char *p = malloc(n + 2);
    if (p && slash == path)
        snprintf(p, 2, "/");
    else if (p)
        snprintf(p, n + 1, "%.*s", (int)n, path);
    return p;
}

static int was_seen(const scan *s, const char *path)
{
    for (size_t i = 0; i < s->num_seen; ++i)
        if (strcmp(s->seen[i], path) == 0)
            return 1;
    return 0;
}

static kt_status scan_text(scan *s, const char *text, const char *dir);

/* Reads the header at path (when it is a file) and scans it; *found = 1
 * when it is one. */
static kt_status visit(scan *s, const char *path, int *found)
{
    char *data = NULL, *real = realpath(path, NULL), *dir = NULL, **grown;
    const char *key = real ? real : path;
    size_t size = 0;
    kt_err ferr;
    kt_status rc = KT_S_OK;

    *found = 0;
    if (kt_file_read(path, "header", MAX_HEADER_BYTES, &data, &size, &ferr))
        goto done; /* not there (or not a file): the next folder */
    *found = 1;
    if (was_seen(s, key) || s->num_seen >= MAX_HEADERS)
        goto done;
    grown = realloc(s->seen, (s->num_seen + 1) * sizeof *grown);
    if (!grown || !(grown[s->num_seen] = strdup(key))) {
        s->seen = grown ? grown : s->seen;
        rc = kt_err_set(s->err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    s->seen = grown;
    ++s->num_seen;
    if ((rc = append(s, key, data, size)))
        goto done;
    if (!(dir = folder_of(key)))
        rc = kt_err_set(s->err, KT_S_NOMEM, "out of memory");
    else
        rc = scan_text(s, data, dir);
done:
    free(dir);
    free(data);
    free(real);
    return rc;
}

/* The first of dir (quoted includes only; NULL: none) and the -I folders
 * that holds name. */
static kt_status resolve(scan *s, const char *name, const char *dir)
{
    int found = 0;
    kt_status rc = KT_S_OK;

    for (long i = dir ? -1 : 0; !rc && !found && i < (long)s->num_dirs; ++i) {
        char *path = join(i < 0 ? dir : s->dirs[i], name);
        if (!path)
            return kt_err_set(s->err, KT_S_NOMEM, "out of memory");
        rc = visit(s, path, &found);
        free(path);
    }
    return rc;
}

/* The name of the #include directive at p (after '#'), its quoting in
 * *quoted; NULL when the line is none. */
static const char *include_name(const char *p, int *quoted, size_t *len)
{
    const char *end;
    while (*p == ' ' || *p == '\t')
        ++p;
    if (strncmp(p, "include", 7) != 0)
        return NULL;
    p += 7;
    while (*p == ' ' || *p == '\t')
        ++p;
    if (*p != '"' && *p != '<')
        return NULL; /* a macro: not resolved */
    *quoted = *p == '"';
    end = strpbrk(p + 1, *quoted ? "\"\n" : ">\n");
    if (!end || *end == '\n' || end == p + 1)
        return NULL;
    *len = (size_t)(end - p - 1);
    return p + 1;
}

/* Every #include of text, in order; quoted ones search dir first. */
static kt_status scan_text(scan *s, const char *text, const char *dir)
{
    kt_status rc = KT_S_OK;

    for (const char *line = text; line && *line && !rc;) {
        const char *p = line, *name;
        size_t len = 0;
        int quoted = 0;
        while (*p == ' ' || *p == '\t')
            ++p;
        if (*p == '#' && (name = include_name(p + 1, &quoted, &len))) {
            char *copy = strndup(name, len);
            if (!copy)
                return kt_err_set(s->err, KT_S_NOMEM, "out of memory");
            rc = resolve(s, copy, quoted ? dir : NULL);
            free(copy);
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return rc;
}

kt_status kt_nvrtc_headers(const kt_nvrtc_request *req, char **text,
                           kt_err *err)
{
    scan s = {0};
    char *dir = folder_of(req->source_name ? req->source_name : "");
    kt_status rc;

    s.err = err;
    *text = NULL;
    if (!dir)
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
    else if (!(rc = include_dirs(req, &s)))
        rc = scan_text(&s, req->source, dir);
    for (size_t i = 0; i < s.num_seen; ++i)
        free(s.seen[i]);
    free(s.seen);
    free(s.dirs);
    free(dir);
    if (rc)
        free(s.text);
    else
        *text = s.text;
    return rc;
}
