// SPDX-License-Identifier: Apache-2.0
/*
 * How fast an array reaches shared memory (memfd), the one copy libktune
 * makes of a host array (libktune/arrays.c): pwrite from 1..N threads
 * (what libktune does; the kernel may serialise writers of one file) and
 * memcpy into a shared mapping from 1..N threads (page faults that zero
 * each page first, but in parallel). No GPU. Prints one Markdown table for
 * docs/results/. Usage: bench_shm_copy [GIB] [MAX_THREADS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef struct job {
    int fd;
    char *map;
    const char *src;
    size_t n;
    off_t at;
} job;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *by_pwrite(void *arg)
{
    job *j = arg;
    for (size_t done = 0; done < j->n;) {
        ssize_t w =
            pwrite(j->fd, j->src + done, j->n - done, j->at + (off_t)done);
        if (w <= 0)
            return NULL;
        done += (size_t)w;
    }
    return NULL;
}

static void *by_memcpy(void *arg)
{
    job *j = arg;
    memcpy(j->map + j->at, j->src, j->n);
    return NULL;
}

/* Seconds to copy n bytes of src into a new memfd with k threads. */
static double run(const char *src, size_t n, int k, int mapped)
{
    pthread_t tid[64];
    job jobs[64];
    size_t step = (n / (size_t)k + 4095) & ~(size_t)4095;
    int fd = memfd_create("bench", MFD_CLOEXEC);
    char *map = NULL;
    double t0 = now(), dt;

    if (fd < 0 || ftruncate(fd, (off_t)n) != 0)
        return -1;
    if (mapped && (map = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                              0)) == MAP_FAILED)
        return -1;
    for (int i = 0; i < k; ++i) {
        size_t from = (size_t)i * step < n ? (size_t)i * step : n;
        jobs[i] = (job){fd, map, src + from, n - from < step ? n - from : step,
                        (off_t)from};
        pthread_create(&tid[i], NULL, mapped ? by_memcpy : by_pwrite, &jobs[i]);
    }
    for (int i = 0; i < k; ++i)
        pthread_join(tid[i], NULL);
    dt = now() - t0;
    if (map)
        munmap(map, n);
    close(fd);
    return dt;
}

int main(int argc, char **argv)
{
    double gib = argc > 1 ? atof(argv[1]) : 1.0;
    int max = argc > 2 ? atoi(argv[2]) : 16;
    size_t n = (size_t)(gib * (double)(1u << 30));
    char *src = malloc(n);

    if (!src || max < 1 || max > 64)
        return 2;
    memset(src, 1, n);
    printf("%.2f GiB into a memfd, %ld CPUs online\n\n", gib,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("| threads | pwrite GiB/s | mapped memcpy GiB/s |\n|---|---|---|\n");
    for (int k = 1; k <= max; k *= 2)
        printf("| %d | %.2f | %.2f |\n", k, gib / run(src, n, k, 0),
               gib / run(src, n, k, 1));
    free(src);
    return 0;
}
