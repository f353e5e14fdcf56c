// SPDX-License-Identifier: Apache-2.0
#include "isolation/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cachedir.h"
#include "core/clock.h"
#include "core/desc_json.h"
#include "core/fileio.h"
#include "core/hash.h"
#include "core/loader.h"
#include "core/proc.h"
#include "core/settings.h"
#include "core/version.h"

/* What one child may say: a descriptor of a large plugin is some 100 KB. */
#define MAX_REPLY ((size_t)16 << 20)

typedef struct child {
    pid_t pid;
    int fd; /* read end; -1 once at end of file */
    char *buf;
    size_t len, cap;
    int overflow;
} child;

static void set_message(kt_probe_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Messages may be longer than a kt_err: they are kept whole. */
static void set_message(kt_probe_verdict *v, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    v->message = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!v->message)
        return;
    va_start(ap, fmt);
    vsnprintf(v->message, (size_t)n + 1, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------- child */

static void write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        text += n;
        len -= (size_t)n;
    }
}

/* Loads path here (this is the child), validates it and answers. */
static void serve_probe(const char *path, int fd)
{
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    kt_registry tmp;
    kt_err err;
    json_t *desc;
    char *text;

    /* Handlers inherited from the parent (a test framework's, say) must
     * not catch the plugin's crash: die of it, so the parent sees it. */
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i)
        signal(fatal[i], SIG_DFL);
    memset(&tmp, 0, sizeof tmp); /* probe_timeout_ms = 0: in-process */
    if (kt_registry_load_file(&tmp, path, &err)) {
        write_all(fd, KT_PROBE_FAIL, strlen(KT_PROBE_FAIL));
        write_all(fd, err.msg, strlen(err.msg));
        _exit(1);
    }
    desc = kt_desc_to_json(&tmp.plugins[0]->desc, &err);
    text = desc ? json_dumps(desc, JSON_COMPACT) : NULL;
    if (!text) {
        write_all(fd, KT_PROBE_FAIL, strlen(KT_PROBE_FAIL));
        kt_err_prefix(&err, "%s: ", path);
        write_all(fd, err.msg, strlen(err.msg));
        _exit(1);
    }
    write_all(fd, KT_PROBE_HELLO, strlen(KT_PROBE_HELLO));
    write_all(fd, text, strlen(text));
    /* _exit: no destructors, no flushing of inherited buffers. */
    _exit(0);
}

static int start(const char *path, child *c)
{
    int fds[2];

    memset(c, 0, sizeof *c);
    c->fd = -1;
    if (pipe(fds) != 0)
        return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    if (kt_proc_fork("a probe", &c->pid, NULL)) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (c->pid == 0) {
        close(fds[0]);
        serve_probe(path, fds[1]);
    }
    close(fds[1]);
    c->fd = fds[0];
    return 0;
}

/* ------------------------------------------------------------ parent */

static void read_some(child *c)
{
    ssize_t n;

    if (c->len + 65536 > c->cap && !c->overflow) {
        size_t cap = c->cap ? 2 * c->cap : 65536 * 2;
        char *grown = cap <= MAX_REPLY + 65536 ? realloc(c->buf, cap) : NULL;
        if (grown) {
            c->buf = grown;
            c->cap = cap;
        } else {
            c->overflow = 1;
        }
    }
    if (c->overflow) {
        char sink[4096];
        n = read(c->fd, sink, sizeof sink);
    } else {
        n = read(c->fd, c->buf + c->len, c->cap - c->len - 1);
        if (n > 0)
            c->len += (size_t)n;
    }
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        close(c->fd);
        c->fd = -1;
    }
}

/* Reads every child's answer until all have closed or the time is up. */
static void collect(child *cs, size_t n, int timeout_ms)
{
    double deadline = 1e3 * kt_clock_seconds() + timeout_ms;
    struct pollfd *pfd = calloc(n ? n : 1, sizeof *pfd);

    if (!pfd)
        return;
    for (;;) {
        size_t open = 0;
        double left = deadline - 1e3 * kt_clock_seconds();
        int ready;
        for (size_t i = 0; i < n; ++i) {
            pfd[i].fd = cs[i].fd; /* negative: ignored by poll */
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
            open += cs[i].fd >= 0;
        }
        if (open == 0 || left <= 0)
            break;
        ready = poll(pfd, n, (int)left + 1);
        if (ready < 0 && errno != EINTR)
            break;
        for (size_t i = 0; ready > 0 && i < n; ++i)
            if (cs[i].fd >= 0 && pfd[i].revents)
                read_some(&cs[i]);
    }
    free(pfd);
}

static void judge(const char *path, child *c, int status, int timed_out,
                  int timeout_ms, kt_probe_verdict *v)
{
    size_t hello = strlen(KT_PROBE_HELLO), fail = strlen(KT_PROBE_FAIL);
    char how[160];

    if (c->buf)
        c->buf[c->len] = '\0';
    if (timed_out) {
        set_message(v,
                    "%s: did not finish loading within %.0f s (its entry "
                    "point or initialisers hang); not loaded",
                    path, timeout_ms / 1e3);
        return;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !c->overflow &&
        c->len > hello && memcmp(c->buf, KT_PROBE_HELLO, hello) == 0) {
        json_error_t jerr;
        v->desc = json_loadb(c->buf + hello, c->len - hello, 0, &jerr);
        if (v->desc) {
            v->ok = 1;
            return;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 1 && c->len > fail &&
        memcmp(c->buf, KT_PROBE_FAIL, fail) == 0 &&
        !memchr(c->buf + fail, '\0', c->len - fail)) {
        v->message = strdup(c->buf + fail);
        return;
    }
    kt_describe_exit(status, how, sizeof how);
    if (WIFEXITED(status))
        set_message(v,
                    "%s: loading it %s without saying it loaded (its entry "
                    "point or initialisers end the process); not loaded",
                    path, how);
    else
        set_message(v,
                    "%s: loading it %s (in its entry point or "
                    "initialisers); not loaded",
                    path, how);
}

/* ------------------------------------------------------------- cache */

static int cache_enabled(void)
{
    kt_settings set;

    kt_settings_read(&set);
    return !(set.ktune_plugin_cache &&
             strcmp(set.ktune_plugin_cache, "0") == 0);
}

/* The file's identity, or NULL when it cannot be stat'ed. */
static json_t *cache_key(const char *path)
{
    struct stat st;
    char *real;
    json_t *key;

    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    real = realpath(path, NULL);
    key = json_pack(
        "{s:s,s:I,s:I,s:I,s:I,s:s}", "path", real ? real : path, "size",
        (json_int_t)st.st_size, "mtime_ns",
        (json_int_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
        "inode", (json_int_t)st.st_ino, "device", (json_int_t)st.st_dev,
        "ktune", KT_VERSION " " KT_GIT_COMMIT);
    free(real);
    return key;
}

/* The verdict's entry: plugins/<hash>.json in the cache folder (made and
 * checked private, core/cachedir.h); 0, or -1 without a usable folder. */
static int cache_file(const json_t *key, char *dir, size_t size, char *name,
                      size_t name_size)
{
    const char *p = json_string_value(json_object_get(key, "path"));
    uint64_t h = kt_hash_fnv1a_str(KT_HASH_FNV1A_BASIS, p);

    snprintf(name, name_size, "%016llx.json", (unsigned long long)h);
    return kt_cache_dir("plugins", dir, size, NULL) ? -1 : 0;
}

static int cache_read(const json_t *key, kt_probe_verdict *v)
{
    char dir[4096], name[64], *text = NULL;
    size_t len;
    json_t *rec;
    const char *msg;

    if (cache_file(key, dir, sizeof dir, name, sizeof name) ||
        kt_cache_get(dir, name, MAX_REPLY, &text, &len, NULL) || !text)
        return 0;
    rec = json_loadb(text, len, 0, NULL);
    free(text);
    if (!rec || !json_equal(json_object_get(rec, "key"), (json_t *)key)) {
        json_decref(rec);
        return 0;
    }
    msg = json_string_value(json_object_get(rec, "message"));
    if (json_is_true(json_object_get(rec, "ok")) &&
        json_is_object(json_object_get(rec, "descriptor"))) {
        v->ok = 1;
        v->desc = json_incref(json_object_get(rec, "descriptor"));
    } else if (msg) {
        v->message = strdup(msg);
    } else {
        json_decref(rec);
        return 0;
    }
    v->cached = 1;
    json_decref(rec);
    return 1;
}

/* Best effort: a cache that cannot be written only costs time, and
 * leaves nothing behind. kt_cache_put writes the record to a temporary
 * file of a name no one can guess beside the entry and renames it over the
 * entry only when every byte was written (a full disk, a closed file); on
 * any failure the temporary file is removed. */
static void cache_write(const json_t *key, const kt_probe_verdict *v)
{
    char dir[4096], name[64], *text;
    json_t *rec = json_pack("{s:O,s:b}", "key", key, "ok", v->ok);

    if (!rec)
        return;
    if (v->ok)
        json_object_set(rec, "descriptor", v->desc);
    else
        json_object_set_new(rec, "message", json_string(v->message));
    if (!cache_file(key, dir, sizeof dir, name, sizeof name) &&
        (text = json_dumps(rec, JSON_COMPACT))) {
        (void)kt_cache_put(dir, name, text, strlen(text), NULL);
        free(text);
    }
    json_decref(rec);
}

/* -------------------------------------------------------------- entry */

void kt_probe_plugins(const char *const *paths, size_t n, int timeout_ms,
                      kt_probe_verdict *out)
{
    child *cs = calloc(n ? n : 1, sizeof *cs);
    json_t **keys = calloc(n ? n : 1, sizeof *keys);
    int use_cache = cache_enabled();

    memset(out, 0, n * sizeof *out);
    if (!cs || !keys) {
        for (size_t i = 0; i < n; ++i)
            set_message(&out[i], "%s: cannot probe: %s", paths[i],
                        "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; ++i) {
        cs[i].fd = -1;
        keys[i] = use_cache ? cache_key(paths[i]) : NULL;
        if (keys[i] && cache_read(keys[i], &out[i]))
            continue;
        if (start(paths[i], &cs[i]) != 0)
            set_message(&out[i], "%s: cannot probe: %s", paths[i],
                        strerror(errno));
    }
    collect(cs, n, timeout_ms);
    for (size_t i = 0; i < n; ++i) {
        int status = 0, timed_out = cs[i].fd >= 0;
        if (cs[i].pid <= 0)
            continue;
        if (timed_out) {
            kill(cs[i].pid, SIGKILL);
            close(cs[i].fd);
        }
        kt_proc_reap(cs[i].pid, &status, 0);
        judge(paths[i], &cs[i], status, timed_out, timeout_ms, &out[i]);
        if (keys[i] && (out[i].ok || out[i].message))
            cache_write(keys[i], &out[i]);
        free(cs[i].buf);
    }
done:
    for (size_t i = 0; keys && i < n; ++i)
        json_decref(keys[i]);
    free(keys);
    free(cs);
}
