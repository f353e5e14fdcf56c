// SPDX-License-Identifier: Apache-2.0
#include "engine/compile_pool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cachedir.h"
#include "core/clock.h"
#include "core/fileio.h"
#include "core/u64map.h"

/* Queued kernels beyond which hints are ignored: a strategy that hints
 * far more than it evaluates would otherwise hold their sources. */
#define KT_CPOOL_MAX_QUEUED 8192

typedef enum job_state {
    JOB_QUEUED,
    JOB_RUNNING,
    JOB_FOLLOWING, /* waits for leader's compile of the same code */
    JOB_DONE,
    JOB_TAKEN, /* handed over (or dropped): known, nothing held */
} job_state;

typedef struct job {
    char key[33];
    kt_nvrtc_request req; /* points into text and options */
    char *text;
    const char **options;
    job_state state;
    uint64_t gen;       /* the hint that queued it last: higher runs first */
    size_t pos;         /* its place in that hint */
    struct job *leader; /* JOB_FOLLOWING: the job compiling its code */
    int leading;        /* compiling its code key: others may follow */
    kt_status rc;
    kt_err err;
    kt_nvrtc_output out;
} job;

struct kt_cpool {
    kt_cpool_compile_fn compile, prepare;
    void *ctx;
    kt_nvrtc_procs *procs;  /* owned; NULL: NVRTC in the pool's threads */
    kt_nvrtc_runner runner; /* procs' */
    char marker_dir[4096];
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    pthread_t *threads;
    int num_threads, started, stop;
    /* Threads not yet returned, and whether close left the pool to them
     * (a compile still running): the last one out frees it. */
    int live, orphaned;
    job **jobs; /* pointers: a running job must not move */
    size_t num_jobs, queued;
    kt_u64map by_key; /* the key's first 64 bits -> index + 1 */
    uint64_t gen;
    char (*died)[33]; /* kernels dead processes' markers name */
    size_t num_died;
    size_t running;
    double busy_since;
    kt_cpool_stats stats;
};

/* ctx: the runner NVRTC runs through, NULL: this thread. */
static kt_status default_prepare(void *ctx, const kt_nvrtc_request *req,
                                 kt_nvrtc_output *out, kt_err *err)
{
    return kt_nvrtc_prepare_via(req, ctx, out, err);
}

static kt_status default_compile(void *ctx, const kt_nvrtc_request *req,
                                 kt_nvrtc_output *out, kt_err *err)
{
    return kt_nvrtc_finish_via(req, ctx, out, err);
}

int kt_cpool_threads_for(int threads)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads > 0)
        return threads;
    return cpus > 0 ? (int)cpus : 1;
}

/* ------------------------------------------------------------- markers */

static void marker_path(const kt_cpool *p, const char *key, long pid, char *out,
                        size_t size)
{
    snprintf(out, size, "%s/%s.compiling.%ld", p->marker_dir, key, pid);
}

/* Whether the process of a marker is gone (not this one). */
static int marker_dead(long pid)
{
    return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 &&
           errno == ESRCH;
}

size_t kt_cpool_markers_of(const char *dir, long pid)
{
    char own[4096], tail[64];
    struct dirent *e;
    size_t n = 0;
    DIR *d;

    if (!dir)
        kt_nvrtc_cache_dir(own, sizeof own);
    snprintf(tail, sizeof tail, ".compiling.%ld", pid);
    if (!(d = opendir(dir ? dir : own)))
        return 0;
    while ((e = readdir(d))) {
        const char *dot = strstr(e->d_name, ".compiling.");
        n += dot && strcmp(dot, tail) == 0;
    }
    closedir(d);
    return n;
}

/* The kernels whose markers outlived their process: they killed it. */
static void scan_markers(kt_cpool *p)
{
    DIR *dir = p->marker_dir[0] ? opendir(p->marker_dir) : NULL;
    struct dirent *e;

    while (dir && (e = readdir(dir))) {
        const char *dot = strstr(e->d_name, ".compiling.");
        char(*grown)[33];
        if (!dot || dot - e->d_name != 32 || !marker_dead(atol(dot + 11)))
            continue;
        if (!(grown = realloc(p->died, (p->num_died + 1) * sizeof *grown)))
            break;
        p->died = grown;
        memcpy(grown[p->num_died], e->d_name, 32);
        grown[p->num_died++][32] = '\0';
    }
    if (dir)
        closedir(dir);
}

/* Under the lock: 1 when key killed an earlier compiler (its markers are
 * removed: this answer is the run's, a later run tries again). */
static int take_died(kt_cpool *p, const char *key, long *pid)
{
    DIR *dir;
    struct dirent *e;
    int found = 0;

    for (size_t i = 0; i < p->num_died && !found; ++i)
        if (strcmp(p->died[i], key) == 0) {
            found = 1;
            p->died[i][0] = '\0';
        }
    if (!found || !(dir = opendir(p->marker_dir)))
        return found;
    *pid = 0;
    while ((e = readdir(dir))) {
        char path[4200];
        long at;
        if (strncmp(e->d_name, key, 32) != 0 ||
            strncmp(e->d_name + 32, ".compiling.", 11) != 0 ||
            !marker_dead(at = atol(e->d_name + 43)))
            continue;
        *pid = at;
        marker_path(p, key, at, path, sizeof path);
        unlink(path);
    }
    closedir(dir);
    return found;
}

/* The answer for a kernel that killed its compiler: it does not compile. */
static kt_status died_output(const char *key, long pid, kt_nvrtc_output *out,
                             kt_err *err)
{
    char text[200];
    memset(out, 0, sizeof *out);
    snprintf(text, sizeof text,
             "error: the compiler died on this kernel in process %ld (a "
             "crash, a hang that was killed, or out of memory); not "
             "compiled again in this run\n",
             pid);
    if (!(out->log = strdup(text)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    memcpy(out->key, key, 33);
    return KT_S_OK;
}

/* -------------------------------------------------------------- compile */

static void busy_begin(kt_cpool *p)
{
    if (p->running++ == 0)
        p->busy_since = kt_clock_seconds();
    if (p->running > p->stats.peak_running)
        p->stats.peak_running = p->running;
}

static void busy_end(kt_cpool *p, double wall, double cpu, int compiled)
{
    if (--p->running == 0)
        p->stats.busy_s += kt_clock_seconds() - p->busy_since;
    p->stats.compiled += (size_t)compiled;
    p->stats.compile_s += wall;
    p->stats.cpu_s += cpu;
}

static void release_text(job *j)
{
    free(j->text);
    free(j->options);
    j->text = NULL;
    j->options = NULL;
}

/* Under the lock: whether another job is compiling j's code key; j then
 * follows it (its answer comes with the leader's), else leads it. */
static int follow(kt_cpool *p, job *j)
{
    for (size_t i = 0; i < p->num_jobs; ++i) {
        job *l = p->jobs[i];
        if (l != j && l->state == JOB_RUNNING && l->leading &&
            strcmp(l->out.code, j->out.code) == 0) {
            j->state = JOB_FOLLOWING;
            j->leader = l;
            ++p->stats.shared;
            return 1;
        }
    }
    j->leading = 1;
    return 0;
}

/* Without the lock: prepare (when there is one), then compile unless
 * prepare answered or j (NULL: none) follows another job now. */
static kt_status compile_halves(kt_cpool *p, const kt_nvrtc_request *req,
                                job *j, kt_nvrtc_output *out, int *followed,
                                kt_err *err)
{
    kt_status rc = KT_S_OK;

    if (p->prepare) {
        if ((rc = p->prepare(p->ctx, req, out, err)) || out->cached)
            return rc;
        if (j && out->code[0]) {
            pthread_mutex_lock(&p->lock);
            *followed = follow(p, j);
            pthread_mutex_unlock(&p->lock);
            if (*followed)
                return KT_S_OK;
        }
    }
    return p->compile(p->ctx, req, out, err);
}

/* Called with the lock held, returns with it held; compiles req into out
 * without it, a marker naming the kernel while it runs. j is req's job
 * (NULL: none), which may follow another's compile (*followed 1): its
 * answer and state are then the leader's to set. */
static kt_status run_compile(kt_cpool *p, const kt_nvrtc_request *req,
                             const char *key, job *j, kt_nvrtc_output *out,
                             int *followed, kt_err *err)
{
    char marker[4200] = "";
    double t0, cpu0;
    kt_status rc;
    int fd;

    *followed = 0;
    busy_begin(p);
    pthread_mutex_unlock(&p->lock);
    if (p->marker_dir[0]) {
        marker_path(p, key, (long)getpid(), marker, sizeof marker);
        /* In the private cache folder, never through a link. */
        if (!kt_cache_check_dir(p->marker_dir, NULL) &&
            (fd = open(marker,
                       O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                       0600)) >= 0)
            close(fd);
        else
            marker[0] = '\0';
    }
    t0 = kt_clock_seconds();
    cpu0 = kt_clock_thread_cpu_seconds();
    memcpy(out->key, key, 33); /* before a leader may copy into out */
    rc = compile_halves(p, req, j, out, followed, err);
    cpu0 = kt_clock_thread_cpu_seconds() - cpu0;
    if (p->procs) /* the helpers' CPU, not this thread's */
        cpu0 = out->cpu_seconds;
    t0 = kt_clock_seconds() - t0;
    if (marker[0])
        unlink(marker);
    pthread_mutex_lock(&p->lock);
    memcpy(out->key, key, 33);
    busy_end(p, t0, cpu0, !*followed);
    return rc;
}

/* Under the lock: the jobs following j get a copy of its answer. */
static void complete_followers(kt_cpool *p, job *j)
{
    for (size_t i = 0; i < p->num_jobs; ++i) {
        job *f = p->jobs[i];
        if (f->state != JOB_FOLLOWING || f->leader != j)
            continue;
        f->rc = j->rc;
        if (j->rc)
            kt_err_set(&f->err, j->rc, "%s", j->err.msg);
        else
            f->rc = kt_nvrtc_output_share(&j->out, &f->out, &f->err);
        f->state = JOB_DONE;
        f->leader = NULL;
        release_text(f);
    }
}

/* Under the lock: the queued job to run next (newest hint, its first). */
static job *next_job(kt_cpool *p)
{
    job *best = NULL;
    for (size_t i = 0; i < p->num_jobs && p->queued; ++i) {
        job *j = p->jobs[i];
        if (j->state == JOB_QUEUED &&
            (!best || j->gen > best->gen ||
             (j->gen == best->gen && j->pos < best->pos)))
            best = j;
    }
    return best;
}

/* Under the lock: runs job j here (a pool thread or a taker). */
static void run_job(kt_cpool *p, job *j)
{
    long pid = 0;
    int followed = 0;
    kt_status rc;
    j->state = JOB_RUNNING;
    --p->queued;
    kt_err_clear(&j->err);
    if (take_died(p, j->key, &pid)) {
        ++p->stats.died;
        rc = died_output(j->key, pid, &j->out, &j->err);
    } else {
        rc = run_compile(p, &j->req, j->key, j, &j->out, &followed, &j->err);
    }
    if (followed)
        return; /* its leader completes it (maybe already has) */
    j->rc = rc;
    j->state = JOB_DONE;
    release_text(j);
    complete_followers(p, j);
    pthread_cond_broadcast(&p->done);
}

static void free_pool(kt_cpool *p);

static void *pool_thread(void *arg)
{
    kt_cpool *p = arg;
    int last;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        job *j = next_job(p);
        if (!j) {
            pthread_cond_wait(&p->work, &p->lock);
            continue;
        }
        run_job(p, j);
    }
    last = --p->live == 0 && p->orphaned;
    pthread_mutex_unlock(&p->lock);
    if (last)
        free_pool(p);
    return NULL;
}

/* ----------------------------------------------------------------- open */

kt_status kt_cpool_open(const kt_cpool_options *opt, kt_cpool **out,
                        kt_err *err)
{
    kt_cpool *p = calloc(1, sizeof *p);

    *out = NULL;
    if (!p)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    p->compile = opt && opt->compile ? opt->compile : default_compile;
    p->prepare = opt && opt->compile ? opt->prepare : default_prepare;
    p->ctx = opt ? opt->ctx : NULL;
    p->num_threads = kt_cpool_threads_for(opt ? opt->threads : 0);
    p->stats.threads = p->num_threads;
    if (opt && opt->marker_dir)
        snprintf(p->marker_dir, sizeof p->marker_dir, "%s", opt->marker_dir);
    else
        kt_nvrtc_cache_dir(p->marker_dir, sizeof p->marker_dir);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    kt_u64map_init(&p->by_key);
    if (!(p->threads = calloc((size_t)p->num_threads, sizeof *p->threads))) {
        kt_cpool_close(p);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    scan_markers(p);
    if (opt && opt->procs) { /* owned, whether or not the compile uses it */
        p->procs = opt->procs;
        p->runner = kt_nvrtc_procs_runner(p->procs);
        if (!opt->compile)
            p->ctx = &p->runner;
    }
    *out = p;
    return KT_S_OK;
}

static uint64_t key_hash(const char *key)
{
    char head[17];
    memcpy(head, key, 16);
    head[16] = '\0';
    return strtoull(head, NULL, 16);
}

/* Under the lock: the job of key, or NULL. */
static job *find_job(kt_cpool *p, const char *key)
{
    uint64_t at;
    if (kt_u64map_get(&p->by_key, key_hash(key), &at) && at > 0 &&
        at <= p->num_jobs && strcmp(p->jobs[at - 1]->key, key) == 0)
        return p->jobs[at - 1];
    for (size_t i = 0; i < p->num_jobs; ++i) /* a 64-bit collision */
        if (strcmp(p->jobs[i]->key, key) == 0)
            return p->jobs[i];
    return NULL;
}

/* A copy of r that outlives the caller's strings. */
static int copy_request(job *j, const kt_nvrtc_request *r)
{
    size_t size = strlen(r->source) + strlen(r->source_name) +
                  strlen(r->name_expr) + strlen(r->arch) + 4;
    char *p;

    for (size_t i = 0; i < r->num_options; ++i)
        size += strlen(r->options[i]) + 1;
    if (!(j->text = p = malloc(size)) ||
        !(j->options = calloc(r->num_options + 1, sizeof *j->options)))
        return -1;
    j->req.num_options = r->num_options;
    j->req.options = j->options;
#define KT_COPY(field)                                                         \
    j->req.field = strcpy(p, r->field);                                        \
    p += strlen(p) + 1
    KT_COPY(source);
    KT_COPY(source_name);
    KT_COPY(name_expr);
    KT_COPY(arch);
#undef KT_COPY
    for (size_t i = 0; i < r->num_options; ++i) {
        j->options[i] = strcpy(p, r->options[i]);
        p += strlen(p) + 1;
    }
    return 0;
}

/* Under the lock: a new job for key (queued when req is given). */
static job *add_job(kt_cpool *p, const char *key, const kt_nvrtc_request *req)
{
    job **grown = realloc(p->jobs, (p->num_jobs + 1) * sizeof *grown);
    job *j = grown ? calloc(1, sizeof *j) : NULL;

    if (grown)
        p->jobs = grown;
    if (!j || (req && copy_request(j, req)) ||
        kt_u64map_put(&p->by_key, key_hash(key), p->num_jobs + 1, NULL)) {
        if (j)
            release_text(j);
        free(j);
        return NULL;
    }
    memcpy(j->key, key, 33);
    j->state = req ? JOB_QUEUED : JOB_TAKEN;
    p->jobs[p->num_jobs++] = j;
    p->queued += req != NULL;
    return j;
}

static void start_threads(kt_cpool *p)
{
    while (p->started < p->num_threads &&
           pthread_create(&p->threads[p->started], NULL, pool_thread, p) == 0)
        ++p->started, ++p->live;
}

/* Under the lock: queues or moves forward the kernel of key (req: its
 * request, source NULL for a key alone) at position pos of hint gen. 1
 * when queued anew, 0 when known or left out, -1 when a key alone is not
 * known. */
static int hint_one(kt_cpool *p, const kt_nvrtc_request *req, const char *key,
                    size_t pos, uint64_t gen)
{
    job *j;

    if (!key[0] || kt_nvrtc_find_loaded(key))
        return 0;
    if ((j = find_job(p, key))) {
        if (j->state == JOB_QUEUED)
            j->gen = gen, j->pos = pos; /* wanted sooner now */
        return 0;
    }
    if (!req->source)
        return -1;
    if (p->queued >= KT_CPOOL_MAX_QUEUED || !(j = add_job(p, key, req)))
        return 0;
    j->gen = gen;
    j->pos = pos;
    ++p->stats.hinted;
    return 1;
}

size_t kt_cpool_hint_keyed(kt_cpool *p, const kt_nvrtc_request *reqs,
                           char (*keys)[33], unsigned char *unknown, size_t n)
{
    char(*own)[33] = NULL;
    size_t fresh = 0;
    uint64_t gen;

    if (!p || !n || (!keys && !(keys = own = calloc(n, sizeof *own))))
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!keys[i][0] && reqs[i].source &&
            kt_nvrtc_key(&reqs[i], keys[i], NULL))
            keys[i][0] = '\0';
    pthread_mutex_lock(&p->lock);
    gen = ++p->gen;
    for (size_t i = 0; i < n && !p->stop; ++i) {
        int r = hint_one(p, &reqs[i], keys[i], i, gen);
        fresh += r > 0;
        if (r < 0 && unknown)
            unknown[i] = 1;
    }
    if (fresh) {
        start_threads(p);
        pthread_cond_broadcast(&p->work);
    }
    pthread_mutex_unlock(&p->lock);
    free(own);
    return fresh;
}

size_t kt_cpool_hint(kt_cpool *p, const kt_nvrtc_request *reqs, size_t n)
{
    return kt_cpool_hint_keyed(p, reqs, NULL, NULL, n);
}

/* ----------------------------------------------------------------- take */

/* Under the lock: hands j's result to out (j keeps its key only). */
static kt_status hand_over(job *j, kt_nvrtc_output *out, kt_err *err)
{
    kt_status rc = j->rc;
    *out = j->out;
    memset(&j->out, 0, sizeof j->out);
    j->state = JOB_TAKEN;
    if (rc)
        kt_err_set(err, rc, "%s", j->err.msg);
    return rc;
}

/* Under the lock: compiles req on this thread for a kernel no job holds
 * (never hinted, or taken before and not loaded: a failure, or another
 * process's instance). */
static kt_status compile_here(kt_cpool *p, const kt_nvrtc_request *req,
                              const char *key, kt_nvrtc_output *out,
                              kt_err *err)
{
    long pid = 0;
    if (!find_job(p, key))
        add_job(p, key, NULL); /* known from now on: hints skip it */
    if (take_died(p, key, &pid)) {
        ++p->stats.died;
        return died_output(key, pid, out, err);
    }
    return run_compile(p, req, key, NULL, out, &(int){0}, err);
}

kt_status kt_cpool_compile(kt_cpool *p, const kt_nvrtc_request *req,
                           kt_nvrtc_output *out, double *wait_s, kt_err *err)
{
    double t0 = kt_clock_seconds();
    char key[33];
    job *j;
    kt_status rc;

    memset(out, 0, sizeof *out);
    if (wait_s)
        *wait_s = 0;
    if ((rc = kt_nvrtc_key(req, key, err)))
        return rc;
    if (kt_nvrtc_find_loaded(key)) {
        out->compiled = out->cached = 1;
        memcpy(out->key, key, sizeof key);
        return KT_S_OK;
    }
    pthread_mutex_lock(&p->lock);
    j = find_job(p, key);
    ++p->stats.taken;
    p->stats.unhinted += !j;
    p->stats.took_queued += j && j->state == JOB_QUEUED;
    if (j && j->state == JOB_DONE)
        ++p->stats.ahead;
    else if (j && (j->state == JOB_RUNNING || j->state == JOB_FOLLOWING))
        ++p->stats.joined; /* a thread is on it: wait, never twice */
    if (j && j->state == JOB_QUEUED)
        run_job(p, j); /* not started: this thread compiles it */
    while (j && (j->state == JOB_RUNNING || j->state == JOB_FOLLOWING))
        pthread_cond_wait(&p->done, &p->lock);
    rc = j && j->state == JOB_DONE ? hand_over(j, out, err)
                                   : compile_here(p, req, key, out, err);
    t0 = kt_clock_seconds() - t0;
    p->stats.wait_s += t0;
    pthread_mutex_unlock(&p->lock);
    if (wait_s)
        *wait_s = t0;
    if (!rc)
        kt_nvrtc_stats_count(out);
    return rc;
}

void kt_cpool_stats_get(kt_cpool *p, kt_cpool_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    *out = p->stats;
    if (p->running)
        out->busy_s += kt_clock_seconds() - p->busy_since;
    pthread_mutex_unlock(&p->lock);
}

static void free_pool(kt_cpool *p)
{
    for (size_t i = 0; i < p->num_jobs; ++i) {
        release_text(p->jobs[i]);
        kt_nvrtc_output_free(&p->jobs[i]->out);
        free(p->jobs[i]);
    }
    free(p->jobs);
    free(p->threads);
    free(p->died);
    kt_nvrtc_procs_close(p->procs);
    kt_u64map_free(&p->by_key);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void kt_cpool_close(kt_cpool *p)
{
    pthread_t *threads;
    int started;

    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    for (size_t i = 0; i < p->num_jobs; ++i)
        if (p->jobs[i]->state == JOB_QUEUED) {
            p->jobs[i]->state = JOB_TAKEN; /* nobody will take it */
            ++p->stats.dropped;
        }
    p->queued = 0;
    pthread_cond_broadcast(&p->work);
    if (p->running == 0 || p->live == 0) {
        pthread_mutex_unlock(&p->lock);
        for (int i = 0; i < p->started; ++i)
            pthread_join(p->threads[i], NULL);
        free_pool(p);
        return;
    }
    /* A compile nobody will take is still running (a hung compiler among
     * them, maybe): closing does not wait for it; the last thread out
     * frees the pool, or the process's exit ends it. */
    p->orphaned = 1;
    kt_nvrtc_procs_cancel(p->procs); /* a helper's compile ends at once */
    /* Their markers go now: a compile stopped by the exit is no crash. */
    for (size_t i = 0; i < p->num_jobs && p->marker_dir[0]; ++i)
        if (p->jobs[i]->state == JOB_RUNNING) {
            char path[4200];
            marker_path(p, p->jobs[i]->key, (long)getpid(), path, sizeof path);
            unlink(path);
        }
    started = p->started;
    threads = malloc((size_t)started * sizeof *threads);
    if (threads)
        memcpy(threads, p->threads, (size_t)started * sizeof *threads);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; threads && i < started; ++i)
        pthread_detach(threads[i]);
    free(threads);
}
