// SPDX-License-Identifier: Apache-2.0
#include "core/cachedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fileio.h"
#include "core/hash.h"
#include "core/settings.h"

/* The hash line ending every entry: tag, 32 hex digits, newline. */
#define TAG "\nktune-cache-hash "
#define TAG_LEN (sizeof TAG - 1)
#define TRAILER_LEN (TAG_LEN + 32 + 1)

static const char *home_dir(const kt_settings *set)
{
    const char *home = set->home;
    struct passwd *pw;

    if (home && *home)
        return home;
    pw = getpwuid(geteuid());
    return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

kt_status kt_cache_root(char *out, size_t size, kt_err *err)
{
    kt_settings set;
    const char *dir, *xdg, *home;
    int n;

    kt_settings_read(&set);
    dir = set.ktune_cache_dir;
    xdg = set.xdg_cache_home;
    home = home_dir(&set);

    if (dir && *dir)
        n = snprintf(out, size, "%s", dir);
    else if (xdg && *xdg)
        n = snprintf(out, size, "%s/ktune", xdg);
    else if (home)
        n = snprintf(out, size, "%s/.cache/ktune", home);
    else
        return kt_err_set(err, KT_S_INPUT,
                          "the cache folder: no KTUNE_CACHE_DIR, "
                          "XDG_CACHE_HOME or HOME, and no home folder for "
                          "uid %ld; set KTUNE_CACHE_DIR to a folder of yours",
                          (long)geteuid());
    if (n < 0 || (size_t)n >= size)
        return kt_err_set(err, KT_S_INPUT,
                          "the cache folder %s: a path too long (at most %zu "
                          "characters)",
                          out, size - 1);
    return KT_S_OK;
}

/* The checks of an open cache folder: ours alone. */
static kt_status check_private(int fd, const char *dir, kt_err *err)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return kt_err_set(err, KT_S_IO, "the cache folder %s: cannot stat: %s",
                          dir, strerror(errno));
    if (st.st_uid != geteuid())
        return kt_err_set(err, KT_S_INPUT,
                          "the cache folder %s is owned by uid %ld, not by "
                          "you (uid %ld): refusing to use it; set "
                          "KTUNE_CACHE_DIR to a private folder of yours",
                          dir, (long)st.st_uid, (long)geteuid());
    if ((st.st_mode & 077) && fchmod(fd, 0700) != 0)
        return kt_err_set(err, KT_S_INPUT,
                          "the cache folder %s has mode %04o and cannot be "
                          "made private (0700): %s",
                          dir, (unsigned)(st.st_mode & 07777), strerror(errno));
    return KT_S_OK;
}

kt_status kt_cache_check_dir(const char *dir, kt_err *err)
{
    kt_status rc;
    int fd;

    /* A parent that cannot be made is reported as the folder's failure. */
    (void)kt_make_parent_dirs(dir);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return kt_err_set(err, KT_S_INPUT,
                          "the cache folder %s: cannot create: %s", dir,
                          strerror(errno));
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return kt_err_set(err, KT_S_INPUT,
                          "the cache folder %s: cannot open: %s%s", dir,
                          strerror(errno),
                          errno == ELOOP ? " (a link; expected a folder)" : "");
    rc = check_private(fd, dir, err);
    close(fd);
    return rc;
}

kt_status kt_cache_dir(const char *sub, char *out, size_t size, kt_err *err)
{
    char root[PATH_MAX];
    kt_status rc;
    int n;

    if ((rc = kt_cache_root(root, sizeof root, err)))
        return rc;
    /* The root may be reached through the user's own links; its
     * sub-folders never are. */
    if ((rc = kt_cache_check_dir(root, err)))
        return rc;
    if (!sub || !*sub) {
        n = snprintf(out, size, "%s", root);
        return n < 0 || (size_t)n >= size
                   ? kt_err_set(err, KT_S_INPUT,
                                "the cache folder %s: a path "
                                "too long",
                                root)
                   : KT_S_OK;
    }
    n = snprintf(out, size, "%s/%s", root, sub);
    if (n < 0 || (size_t)n >= size)
        return kt_err_set(err, KT_S_INPUT,
                          "the cache folder %s/%s: a path too long", root, sub);
    return kt_cache_check_dir(out, err);
}

static kt_status open_dir(const char *dir, int *fd, kt_err *err)
{
    kt_status rc;

    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0)
        return kt_err_set(err, KT_S_IO, "the cache folder %s: cannot open: %s",
                          dir, strerror(errno));
    if ((rc = check_private(*fd, dir, err))) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

kt_status kt_cache_put(const char *dir, const char *name, const void *data,
                       size_t size, kt_err *err)
{
    char hex[33], *buf = malloc(size + TRAILER_LEN);
    kt_status rc;
    int fd = -1;

    if (!buf)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    kt_hash_hex128(data, size, hex);
    if (size)
        memcpy(buf, data, size);
    memcpy(buf + size, TAG, TAG_LEN);
    memcpy(buf + size + TAG_LEN, hex, 32);
    buf[size + TRAILER_LEN - 1] = '\n';
    if (!(rc = open_dir(dir, &fd, err)))
        rc = kt_file_replace_at(fd, dir, name, buf, size + TRAILER_LEN, 0600,
                                err);
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

/* Whether the entry open at fd may be read: a regular file of ours that
 * nobody else can write, not larger than max plus its hash line. */
static kt_status check_entry(int fd, const char *dir, const char *name,
                             size_t max, kt_err *err)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return kt_err_set(err, KT_S_IO, "cache entry %s/%s: cannot stat: %s",
                          dir, name, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return kt_err_set(err, KT_S_INPUT,
                          "cache entry %s/%s: not a regular file; ignored", dir,
                          name);
    if (st.st_uid != geteuid())
        return kt_err_set(err, KT_S_INPUT,
                          "cache entry %s/%s: owned by uid %ld, not by you "
                          "(uid %ld); ignored",
                          dir, name, (long)st.st_uid, (long)geteuid());
    if (st.st_mode & 022)
        return kt_err_set(err, KT_S_INPUT,
                          "cache entry %s/%s: writable by others (mode %04o); "
                          "ignored",
                          dir, name, (unsigned)(st.st_mode & 07777));
    if ((unsigned long long)st.st_size > (unsigned long long)max + TRAILER_LEN)
        return kt_err_set(err, KT_S_INPUT,
                          "cache entry %s/%s: %lld bytes, more than the %zu "
                          "an entry may hold; ignored",
                          dir, name, (long long)st.st_size, max);
    return KT_S_OK;
}

/* The hash line at the end of text checked and cut off. */
static kt_status check_hash(char *text, size_t *len, const char *dir,
                            const char *name, kt_err *err)
{
    char hex[33];
    size_t body;

    if (*len < TRAILER_LEN ||
        memcmp(text + *len - TRAILER_LEN, TAG, TAG_LEN) != 0)
        return kt_err_set(err, KT_S_INPUT,
                          "cache entry %s/%s: no content hash (cut short, or "
                          "not written by this ktune); ignored",
                          dir, name);
    body = *len - TRAILER_LEN;
    kt_hash_hex128(text, body, hex);
    if (memcmp(text + body + TAG_LEN, hex, 32) != 0)
        return kt_err_set(err, KT_S_INPUT,
                          "cache entry %s/%s: its content does not match its "
                          "hash; ignored",
                          dir, name);
    text[body] = '\0';
    *len = body;
    return KT_S_OK;
}

kt_status kt_cache_get(const char *dir, const char *name, size_t max,
                       char **data, size_t *size, kt_err *err)
{
    char path[PATH_MAX];
    kt_status rc;
    int dfd = -1, fd = -1;

    *data = NULL;
    *size = 0;
    if ((rc = open_dir(dir, &dfd, err)))
        return rc;
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        rc =
            errno == ENOENT ? KT_S_OK
            : errno == ELOOP
                ? kt_err_set(err, KT_S_INPUT,
                             "cache entry %s/%s: a link; ignored", dir, name)
                : kt_err_set(err, KT_S_IO, "cache entry %s/%s: cannot open: %s",
                             dir, name, strerror(errno));
    } else if (!(rc = check_entry(fd, dir, name, max, err))) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        rc = kt_file_read_fd(fd, path, "cache entry", max + TRAILER_LEN, data,
                             size, err);
        if (!rc && (rc = check_hash(*data, size, dir, name, err))) {
            free(*data);
            *data = NULL;
            *size = 0;
        }
    }
    if (fd >= 0)
        close(fd);
    close(dfd);
    return rc;
}
