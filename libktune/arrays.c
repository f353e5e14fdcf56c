/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host arrays handed to a session (ktune_buffer's data, ktune_answer):
 * copied once, at the call, into anonymous shared memory (memfd_create)
 * laid out as a .npy file, and named in the session folder by a symbolic
 * link NAME.npy -> /proc/PID/fd/FD. The declaration's `from NAME.npy`
 * fill reads it like any .npy file, in this process (isolation off) and in
 * the worker processes (isolation on), which map it (engine/declared_fill.c)
 * instead of reading a copy: no file is written, nothing is read back, and
 * the memory goes when the session closes its descriptor and the last
 * worker is gone (nothing is left behind by a crash). Where memfd_create
 * is missing, the array is written as a regular .npy file there, as
 * before. The copy is the one O(array) cost of declaring; it is split
 * over threads where the kernel lets them write one file in parallel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h> /* memfd_create */
#include <unistd.h>

#include "libktune/session.h"

/* Below this many bytes one thread copies: starting threads costs more. */
#define KTL_COPY_SLICE ((size_t)64 << 20)
#define KTL_COPY_THREADS 8

/* The .npy 1.0 header of count elements of type: magic, version, length,
 * and a dict padded with spaces and a newline so the data starts at a
 * multiple of 64. Returns its length (at most 128). */
static size_t npy_header(char out[128], int type, size_t count)
{
    char dict[96];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '%s', 'fortran_order': False, 'shape': "
                       "(%zu,), }",
                       ktl_type_npy(type), count);
    int pad = (64 - (10 + len + 1) % 64) % 64, hlen = len + pad + 1;

    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)(hlen & 0xff);
    out[9] = (char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)len);
    memset(out + 10 + len, ' ', (size_t)pad);
    out[10 + len + pad] = '\n';
    return (size_t)(10 + hlen);
}

int ktl_write_npy(ktune_session *s, const char *path, int type,
                  const void *data, size_t count)
{
    char header[128];
    size_t hlen = npy_header(header, type, count);
    FILE *f = fopen(path, "wb");
    int ok;

    if (!f)
        return ktl_fail(s, KTUNE_E_IO, "cannot write %s", path);
    ok = fwrite(header, 1, hlen, f) == hlen;
    ok = ok && fwrite(data, ktl_type_size(type), count, f) == count;
    ok = fclose(f) == 0 && ok;
    return ok ? KTUNE_OK : ktl_fail(s, KTUNE_E_IO, "cannot write %s", path);
}

typedef struct copy_slice {
    int fd;
    const char *src;
    size_t n;
    off_t at;
    int ok;
} copy_slice;

/* pwrite's loop over one slice. Written, not mapped and copied: shared
 * memory takes written pages without zeroing them first (twice as fast
 * as a copy into a mapping, measured on the CPU machine). */
static void *copy_run(void *arg)
{
    copy_slice *c = arg;
    size_t done = 0;

    while (done < c->n) {
        ssize_t w =
            pwrite(c->fd, c->src + done, c->n - done, c->at + (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return NULL;
        done += (size_t)w;
    }
    c->ok = 1;
    return NULL;
}

/* n bytes of src written to fd at offset at, over up to KTL_COPY_THREADS
 * threads (where the kernel lets writers of one file go in parallel), the
 * first slice on this one; a thread that cannot start leaves its slice to
 * this thread. 1 when all was written. */
static int copy_parallel(int fd, off_t at, const char *src, size_t n)
{
    copy_slice slices[KTL_COPY_THREADS];
    pthread_t tids[KTL_COPY_THREADS];
    int started[KTL_COPY_THREADS] = {0}, ok = 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = n / KTL_COPY_SLICE, step;

    if (k > KTL_COPY_THREADS)
        k = KTL_COPY_THREADS;
    if (cpus > 0 && k > (size_t)cpus)
        k = (size_t)cpus;
    if (k < 1)
        k = 1;
    step = (n / k + 4095) & ~(size_t)4095; /* whole pages per thread */
    for (size_t i = 0; i < k; ++i) {
        size_t from = i * step < n ? i * step : n;
        slices[i] =
            (copy_slice){fd, src + from, n - from < step ? n - from : step,
                         at + (off_t)from, 0};
        if (i > 0)
            started[i] =
                pthread_create(&tids[i], NULL, copy_run, &slices[i]) == 0;
    }
    copy_run(&slices[0]);
    for (size_t i = 1; i < k; ++i) {
        if (started[i])
            pthread_join(tids[i], NULL);
        else
            copy_run(&slices[i]);
    }
    for (size_t i = 0; i < k; ++i)
        ok = ok && slices[i].ok;
    return ok;
}

/* Keeps fd as the array at path (a previous one there is closed). */
static int keep_fd(ktune_session *s, const char *path, int fd)
{
    ktl_array *grown;

    for (size_t i = 0; i < s->num_arrays; ++i)
        if (strcmp(s->arrays[i].path, path) == 0) {
            close(s->arrays[i].fd);
            s->arrays[i].fd = fd;
            return KTUNE_OK;
        }
    grown = realloc(s->arrays, (s->num_arrays + 1) * sizeof *grown);
    if (!grown)
        return KTUNE_E_NOMEM;
    s->arrays = grown;
    if (!(grown[s->num_arrays].path = strdup(path)))
        return KTUNE_E_NOMEM;
    grown[s->num_arrays++].fd = fd;
    return KTUNE_OK;
}

/* The array in a new memfd: the descriptor, or -1 with errno (ENOSYS where
 * the kernel has no memfd_create). */
static int memfd_array(const char *name, int type, const void *data,
                       size_t count)
{
    char header[128];
    size_t hlen = npy_header(header, type, count),
           bytes = count * ktl_type_size(type);
    int fd = memfd_create(name, MFD_CLOEXEC), err;

    if (fd < 0)
        return -1;
    errno = 0;
    if (ftruncate(fd, (off_t)(hlen + bytes)) != 0 ||
        pwrite(fd, header, hlen, 0) != (ssize_t)hlen ||
        !copy_parallel(fd, (off_t)hlen, data, bytes)) {
        err = errno ? errno : EIO;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

int ktl_host_array(ktune_session *s, const char *path, int type,
                   const void *data, size_t count)
{
    const char *base = strrchr(path, '/');
    char link[64];
    int fd, rc;

    if (count > SIZE_MAX / 2 / ktl_type_size(type))
        return ktl_fail(s, KTUNE_E_INPUT, "%zu elements of %s: too many", count,
                        ktl_type_name(type));
    fd = memfd_array(base ? base + 1 : path, type, data, count);
    if (fd < 0 && (errno == ENOSYS || errno == EINVAL))
        return ktl_write_npy(s, path, type, data, count);
    if (fd < 0)
        return ktl_fail(s, errno == ENOMEM ? KTUNE_E_NOMEM : KTUNE_E_IO,
                        "cannot hold %s in shared memory (%zu elements): %s",
                        path, count, strerror(errno));
    snprintf(link, sizeof link, "/proc/%ld/fd/%d", (long)getpid(), fd);
    unlink(path);
    if (symlink(link, path) != 0) {
        rc = ktl_fail(s, KTUNE_E_IO, "cannot write %s: %s", path,
                      strerror(errno));
        close(fd);
        return rc;
    }
    if (keep_fd(s, path, fd)) {
        close(fd);
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    }
    return KTUNE_OK;
}

void ktl_arrays_free(ktune_session *s)
{
    for (size_t i = 0; i < s->num_arrays; ++i) {
        close(s->arrays[i].fd);
        free(s->arrays[i].path);
    }
    free(s->arrays);
    s->arrays = NULL;
    s->num_arrays = 0;
}
