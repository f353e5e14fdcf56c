// SPDX-License-Identifier: Apache-2.0
#include "core/fileio.h"

#include "core/runctx.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *type_name(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

static kt_status not_regular(const char *path, const char *what, mode_t mode,
                             kt_err *err)
{
    return kt_err_set(err, KT_S_INPUT, "%s %s: is %s, expected a regular file",
                      what, path, type_name(mode));
}

kt_status kt_file_check_regular(const char *path, const char *what, kt_err *err)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return kt_err_set(err, errno == ENOENT ? KT_S_INPUT : KT_S_IO,
                          "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return not_regular(path, what, st.st_mode, err);
    return KT_S_OK;
}

/* Reads fd to its end, at most max_bytes + 1 bytes (one more tells a file
 * that grew past the limit). */
static kt_status read_fd(int fd, const char *path, const char *what,
                         size_t max_bytes, size_t hint, char **text,
                         size_t *len, kt_err *err)
{
    size_t cap = hint + 1 < max_bytes ? hint + 4096 : max_bytes + 2;
    size_t used = 0;
    char *buf = malloc(cap);

    if (!buf)
        return kt_err_set(err, KT_S_NOMEM, "%s %s: out of memory", what, path);
    for (;;) {
        ssize_t n;
        if (used + 1 >= cap) {
            char *grown;
            size_t next = cap * 2 > max_bytes + 2 ? max_bytes + 2 : cap * 2;
            if (next <= cap)
                break;
            grown = realloc(buf, next);
            if (!grown) {
                free(buf);
                return kt_err_set(err, KT_S_NOMEM, "%s %s: out of memory", what,
                                  path);
            }
            buf = grown;
            cap = next;
        }
        n = read(fd, buf + used, cap - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            return kt_err_set(err, KT_S_IO, "%s %s: read error: %s", what, path,
                              strerror(errno));
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    if (used > max_bytes) {
        free(buf);
        return kt_err_set(err, KT_S_INPUT,
                          "%s %s: more than %zu bytes; refusing to read it",
                          what, path, max_bytes);
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return KT_S_OK;
}

kt_status kt_file_read_fd(int fd, const char *path, const char *what,
                          size_t max_bytes, char **text, size_t *len,
                          kt_err *err)
{
    struct stat st;

    *text = NULL;
    *len = 0;
    if (fstat(fd, &st) != 0)
        return kt_err_set(err, KT_S_IO, "%s %s: cannot stat: %s", what, path,
                          strerror(errno));
    if (!S_ISREG(st.st_mode))
        return not_regular(path, what, st.st_mode, err);
    if ((unsigned long long)st.st_size > max_bytes)
        return kt_err_set(err, KT_S_INPUT,
                          "%s %s: %lld bytes, more than the %zu this reads",
                          what, path, (long long)st.st_size, max_bytes);
    return read_fd(fd, path, what, max_bytes, (size_t)st.st_size, text, len,
                   err);
}

kt_status kt_file_read(const char *path, const char *what, size_t max_bytes,
                       char **text, size_t *len, kt_err *err)
{
    kt_status rc;
    int fd;

    *text = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO without a writer must not wait. */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return kt_err_set(err, errno == ENOENT ? KT_S_INPUT : KT_S_IO,
                          "%s: cannot open: %s", path, strerror(errno));
    rc = kt_file_read_fd(fd, path, what, max_bytes, text, len, err);
    close(fd);
    return rc;
}

FILE *kt_file_open_regular(const char *path, const char *what, const char *mode,
                           kt_err *err)
{
    struct stat st;
    FILE *f;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        kt_err_set(err, errno == ENOENT ? KT_S_INPUT : KT_S_IO,
                   "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        kt_err_set(err, KT_S_IO, "%s %s: cannot stat: %s", what, path,
                   strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        not_regular(path, what, st.st_mode, err);
        close(fd);
        return NULL;
    }
    if (!(f = fdopen(fd, mode))) {
        kt_err_set(err, KT_S_IO, "%s %s: cannot open: %s", what, path,
                   strerror(errno));
        close(fd);
    }
    return f;
}

kt_status kt_file_check_output(const char *path, const char *what, kt_err *err)
{
    struct stat st;
    char *dir, *slash;
    kt_status rc = KT_S_OK;

    if (!path || !*path)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: expected a file name, found "
                          "nothing",
                          what);
    if (strlen(path) >= PATH_MAX)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: the path is %zu characters, more than %d", what,
                          strlen(path), PATH_MAX - 1);
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode)
                   ? kt_err_set(err, KT_S_INPUT,
                                "%s %s: is a directory, expected a file", what,
                                path)
                   : KT_S_OK;
    if (errno != ENOENT)
        return kt_err_set(err, KT_S_INPUT, "%s %s: cannot write: %s", what,
                          path, strerror(errno));
    dir = strdup(path);
    if (!dir)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    slash = strrchr(dir, '/');
    if (slash) {
        *(slash == dir ? slash + 1 : slash) = '\0';
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = kt_err_set(err, KT_S_INPUT,
                            "%s %s: its folder %s does not exist", what, path,
                            dir);
        else if (access(dir, W_OK) != 0)
            rc = kt_err_set(err, KT_S_INPUT,
                            "%s %s: its folder %s is not writable", what, path,
                            dir);
    } else if (access(".", W_OK) != 0) {
        rc =
            kt_err_set(err, KT_S_INPUT,
                       "%s %s: the current folder is not writable", what, path);
    }
    free(dir);
    return rc;
}

/* A random suffix for a temporary name: unpredictable where the kernel
 * gives random bytes; O_EXCL makes a guessed or planted name harmless. */
static void random_suffix(char out[17], unsigned attempt)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
    unsigned char bytes[16];

    if (getrandom(bytes, sizeof bytes, GRND_NONBLOCK) !=
        (ssize_t)sizeof bytes) {
        uint64_t x = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^
                     (uint64_t)(uintptr_t)out ^ attempt;
        for (size_t i = 0; i < sizeof bytes;
             ++i, x = x * 6364136223846793005u + 1)
            bytes[i] = (unsigned char)(x >> 56);
    }
    for (size_t i = 0; i < 16; ++i)
        out[i] = digits[bytes[i] & 31];
    out[16] = '\0';
}

/* Creates name.tmp.<random> in dirfd exclusively; the fd, or -1. */
static int create_temp(int dirfd, const char *name, mode_t mode, char *tmp,
                       size_t size)
{
    char suffix[17];
    int fd = -1;

    for (unsigned attempt = 0; fd < 0 && attempt < 64; ++attempt) {
        random_suffix(suffix, attempt);
        if ((size_t)snprintf(tmp, size, "%s.tmp.%s", name, suffix) >= size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        fd = openat(dirfd, tmp,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST)
            return -1;
    }
    return fd;
}

static int write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

kt_status kt_file_replace_at(int dirfd, const char *dir, const char *name,
                             const void *data, size_t size, mode_t mode,
                             kt_err *err)
{
    char tmp[NAME_MAX + 1];
    int fd = create_temp(dirfd, name, mode, tmp, sizeof tmp), bad, saved;

    if (fd < 0)
        return kt_err_set(err, KT_S_IO,
                          "%s/%s: cannot create a temporary "
                          "file beside it: %s",
                          dir, name, strerror(errno));
    bad = write_all(fd, data, size) != 0 || fsync(fd) != 0;
    saved = errno;
    bad |= close(fd) != 0;
    if (!bad && renameat(dirfd, tmp, dirfd, name) == 0)
        return KT_S_OK;
    saved = bad ? saved : errno;
    unlinkat(dirfd, tmp, 0);
    return kt_err_set(err, KT_S_IO, "%s/%s: cannot write: %s", dir, name,
                      strerror(saved));
}

kt_status kt_file_replace(const char *path, const void *data, size_t size,
                          mode_t mode, kt_err *err)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    kt_status rc;
    int dirfd;

    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if ((size_t)(slash - path) >= sizeof dir)
        return kt_err_set(err, KT_S_INPUT, "%s: the path is too long", path);
    else
        snprintf(dir, sizeof dir, "%.*s",
                 slash == path ? 1 : (int)(slash - path), path);
    if (!*path || (slash && !slash[1]))
        return kt_err_set(err, KT_S_INPUT, "%s: expected a file name", path);
    dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return kt_err_set(err, KT_S_IO, "%s: cannot open its folder %s: %s",
                          path, dir, strerror(errno));
    rc = kt_file_replace_at(dirfd, dir, slash ? slash + 1 : path, data, size,
                            mode, err);
    close(dirfd);
    return rc;
}

int kt_make_parent_dirs(const char *path)
{
    char *copy = strdup(path);
    int rc = 0;

    if (!copy)
        return -1;
    for (char *p = copy + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST)
            rc = -1;
        *p = '/';
    }
    free(copy);
    return rc;
}

int kt_exe_dir(char *dir, size_t size)
{
    const char *program = kt_run_program();
    ssize_t len;
    char *slash;

    /* In a library run, the ktune program's folder (plugins, the NVRTC
     * helper), not the host program's (core/runctx.h). */
    if (program)
        len = snprintf(dir, size, "%s", program);
    else
        len = size > 1 ? readlink("/proc/self/exe", dir, size - 1) : -1;
    if (len <= 0 || (size_t)len >= size - 1)
        return 0;
    dir[len] = '\0';
    if (!(slash = strrchr(dir, '/')))
        return 0;
    *slash = '\0';
    return 1;
}
