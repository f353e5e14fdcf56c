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
 *
 * A key is made for every request (a hint, a compile, a cache look-up:
 * several per point), so the headers read are kept for the process, by
 * resolved path (the memo below): a header is read and hashed again only
 * when its file is no longer the one read (device, inode, size or
 * modification time changed). On the hub gemm, whose source includes six
 * of the hub's files, reading and hashing them for every key had cost the
 * search's thread about half a millisecond a request. A header changed in
 * the last seconds is read every time (SETTLED_S).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

/* A header as read: the path it was looked up by, the resolved one, its
 * file's identity when read, its text and hash. */
typedef struct memo_entry {
    char *looked; /* as the scan joined it */
    char *path;   /* resolved (realpath), the scan's key */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int settled;   /* read over SETTLED_S after its last change */
    unsigned scan; /* the scan that last took it (g_memo.scans) */
    char *data;
    char hex[33];
} memo_entry;

/* The process's headers read so far (a registry: entries live until the
 * process ends). The lock is held for a whole scan (kt_nvrtc_headers), so
 * no other scan refreshes an entry whose text this one reads; within a
 * scan each file is read once (an entry the scan took serves it again, a
 * header included twice or through a cycle), so the scan does not free
 * text it is still searching either. */
static struct {
    pthread_mutex_t lock;
    memo_entry *items;
    size_t count;
    unsigned scans; /* scans begun */
} g_memo = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* A file's modification time has the granularity of the kernel's coarse
 * clock (a few ms): a header rewritten within that time at the same size
 * keeps its time. An entry read within SETTLED_S of its file's last change
 * is never trusted (read again each time, as git treats a racily clean
 * file); once the file has been still that long, a change shows. */
#define SETTLED_S 2

static int settled(const struct stat *st)
{
    struct timespec now;
    return clock_gettime(CLOCK_REALTIME, &now) == 0 &&
           now.tv_sec - st->st_mtim.tv_sec > SETTLED_S;
}

static int memo_current(const memo_entry *e, const struct stat *st)
{
    return e->settled && e->dev == st->st_dev && e->ino == st->st_ino &&
           e->size == st->st_size && e->mtime.tv_sec == st->st_mtim.tv_sec &&
           e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* A new entry for path, its text read and hashed when the file (st) can
 * be read; NULL with *rc KT_S_OK when it cannot (the caller's next
 * folder), *rc KT_S_NOMEM without memory. e: the entry to refresh, or
 * NULL for a new one. */
static const memo_entry *memo_read(memo_entry *e, const char *path,
                                   const struct stat *st, kt_status *rc,
                                   kt_err *err)
{
    char *data = NULL, *real = NULL, *looked = NULL;
    memo_entry *grown = NULL;
    size_t size = 0;
    kt_err ferr;

    if (kt_file_read(path, "header", MAX_HEADER_BYTES, &data, &size, &ferr))
        return NULL; /* not readable: the next folder */
    real = realpath(path, NULL);
    if (!e && (grown = realloc(g_memo.items,
                               (g_memo.count + 1) * sizeof *grown)) != NULL)
        g_memo.items = grown;
    if ((!e && !grown) || !(real = real ? real : strdup(path)) ||
        (!e && !(looked = strdup(path)))) {
        free(data);
        free(real);
        *rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        return NULL;
    }
    if (!e) {
        e = &g_memo.items[g_memo.count++];
        *e = (memo_entry){.looked = looked};
    }
    free(e->data);
    free(e->path);
    *e = (memo_entry){.looked = e->looked,
                      .path = real,
                      .dev = st->st_dev,
                      .ino = st->st_ino,
                      .size = st->st_size,
                      .mtime = st->st_mtim,
                      .settled = settled(st),
                      .scan = g_memo.scans,
                      .data = data};
    kt_hash_hex128(data, size, e->hex);
    return e;
}

/* The entry of the header at path (as joined) whose file is st: the memo's
 * when the file is the one it read, else read and hashed now. NULL with
 * *rc KT_S_OK when it cannot be read; *rc KT_S_NOMEM without memory.
 * Under g_memo.lock. */
static const memo_entry *memo_get(const char *path, const struct stat *st,
                                  kt_status *rc, kt_err *err)
{
    memo_entry *e = NULL;

    *rc = KT_S_OK;
    for (size_t i = 0; i < g_memo.count && !e; ++i)
        if (strcmp(g_memo.items[i].looked, path) == 0)
            e = &g_memo.items[i];
    if (e && (e->scan == g_memo.scans || memo_current(e, st))) {
        e->scan = g_memo.scans;
        return e;
    }
    return memo_read(e, path, st, rc, err);
}

static kt_status append(scan *s, const char *path, const char *hex)
{
    size_t need = strlen(path) + 48;
    if (s->len + need > s->cap) {
        size_t cap = 2 * (s->len + need);
        char *grown = realloc(s->text, cap);
        if (!grown)
            return kt_err_set(s->err, KT_S_NOMEM, "out of memory");
        s->text = grown;
        s->cap = cap;
    }
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

/* Scans the header at path (when it is a readable file), read or taken
 * from the memo; *found = 1 when it is one. */
static kt_status visit(scan *s, const char *path, int *found)
{
    struct stat st;
    char *dir = NULL, **grown;
    const memo_entry *e;
    kt_status rc = KT_S_OK;

    *found = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return KT_S_OK; /* not there (or not a file): the next folder */
    if (!(e = memo_get(path, &st, &rc, s->err)))
        return rc;
    *found = 1;
    if (was_seen(s, e->path) || s->num_seen >= MAX_HEADERS)
        return KT_S_OK;
    grown = realloc(s->seen, (s->num_seen + 1) * sizeof *grown);
    if (!grown || !(grown[s->num_seen] = strdup(e->path))) {
        s->seen = grown ? grown : s->seen;
        return kt_err_set(s->err, KT_S_NOMEM, "out of memory");
    }
    s->seen = grown;
    ++s->num_seen;
    if ((rc = append(s, e->path, e->hex)))
        return rc;
    if (!(dir = folder_of(e->path)))
        return kt_err_set(s->err, KT_S_NOMEM, "out of memory");
    rc = scan_text(s, e->data, dir);
    free(dir);
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
    else if (!(rc = include_dirs(req, &s))) {
        pthread_mutex_lock(&g_memo.lock);
        ++g_memo.scans;
        rc = scan_text(&s, req->source, dir);
        pthread_mutex_unlock(&g_memo.lock);
    }
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
