// SPDX-License-Identifier: Apache-2.0
/*
 * libktune_trace.so: the tracer `ktune timeline` injects into a CUDA
 * program through CUDA_INJECTION64_PATH. The CUDA driver loads it at
 * cuInit and calls InitializeInjection; from then on the CUPTI Activity API
 * hands buffers of records (runtime and driver API calls, kernels, copies,
 * memsets, synchronisation) to buffer_done, which writes them as text lines
 * to KTUNE_TIMELINE_DIR/trace-PID.tsv (the format is in
 * timeline/records.h, the reader's side).
 *
 * Records are written as they come: a thread flushes completed buffers
 * every KTUNE_TIMELINE_FLUSH_MS (default 200) and an exit handler forces
 * the rest out, so a program that crashes keeps what was recorded before.
 * Fatal signals flush once more, as far as that is possible from a signal
 * handler (an alarm bounds the attempt), then the signal is re-raised so
 * the program's own exit status is kept.
 *
 * The only code in ktune that a traced program runs, and (with
 * metrics/cupti) the only code that includes CUPTI headers. It prints
 * nothing on the program's streams: problems become E records that ktune
 * reports.
 */
#include <cupti.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KT_TRACE_BUFFER_SIZE (1u << 20)
#define KT_TRACE_ALIGN 8

/* Exported for the CUDA driver; everything else is hidden by the build's
 * visibility setting. */
__attribute__((visibility("default"))) int InitializeInjection(void);

static struct {
    /* out, dropped; recursive because a fatal signal's handler may run on
     * the thread that holds it */
    pthread_mutex_t lock;
    FILE *out;
    pid_t pid;
    uint64_t dropped;
    int active; /* activity recording was enabled */
    CUpti_SubscriberHandle sub;
    pthread_t flusher;
    int flusher_started;
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;
    int stop;
    unsigned flush_ms;
    volatile sig_atomic_t finished;
} tr = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
        .stop_lock = PTHREAD_MUTEX_INITIALIZER,
        .stop_cond = PTHREAD_COND_INITIALIZER};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cupti_ns(void)
{
    uint64_t t = 0;
    if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS)
        return 0;
    return t;
}

/* A text field: the format separates fields by tabs and records by
 * newlines, so those (and carriage returns) become spaces. */
static void put_text(FILE *out, const char *s)
{
    if (!strpbrk(s, "\t\n\r")) {
        fputs(s, out);
        return;
    }
    for (; *s; ++s)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static const char *result_name(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI result";
    return s;
}

/* Names of the loaded libraries that belong to other CUDA tools, so that
 * ktune can say which one holds CUPTI. */
static int find_tool_lib(struct dl_phdr_info *info, size_t size, void *data)
{
    static const char *const marks[] = {
        "ToolsInjection", "nsys",      "InterceptorInjection",
        "Nsight",         "sanitizer", "cudbg"};
    FILE *out = data;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    (void)size;
    base = base ? base + 1 : info->dlpi_name;
    if (!base || !*base)
        return 0;
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; ++i)
        if (strstr(base, marks[i])) {
            put_text(out, base);
            fputc(' ', out);
            break;
        }
    return 0;
}

/* An E record: which call failed with which result; for a result that
 * means another tool holds CUPTI, the tools' libraries that are loaded. */
static void write_error(const char *call, CUptiResult r)
{
    pthread_mutex_lock(&tr.lock);
    if (tr.out) {
        fprintf(tr.out, "E\t%d\t", (int)r);
        put_text(tr.out, call);
        fputc('\t', tr.out);
        put_text(tr.out, result_name(r));
        fputc('\t', tr.out);
        if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ||
            r == CUPTI_ERROR_HARDWARE_BUSY)
            dl_iterate_phdr(find_tool_lib, tr.out);
        fputc('\n', tr.out);
        fflush(tr.out);
    }
    pthread_mutex_unlock(&tr.lock);
}

static void write_api(FILE *out, const CUpti_ActivityAPI *a, int driver)
{
    const char *name = NULL;
    CUpti_CallbackDomain dom =
        driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
    if (cuptiGetCallbackName(dom, a->cbid, &name) != CUPTI_SUCCESS || !name)
        name = "?";
    fprintf(out, "A\t%c\t%llu\t%llu\t%u\t%u\t%u\t%u\t%s\n", driver ? 'D' : 'R',
            (unsigned long long)a->start, (unsigned long long)a->end,
            (unsigned)a->cbid, a->threadId, a->correlationId, a->returnValue,
            name);
}

static void write_kernel(FILE *out, const CUpti_ActivityKernel10 *k)
{
    fprintf(out,
            "K\t%llu\t%llu\t%u\t%u\t%u\t%u\t%d\t%d\t%d\t%d\t%d\t%d\t%u\t%d\t%"
            "d\t",
            (unsigned long long)k->start, (unsigned long long)k->end,
            k->deviceId, k->contextId, k->streamId, k->correlationId, k->gridX,
            k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ,
            (unsigned)k->registersPerThread, k->staticSharedMemory,
            k->dynamicSharedMemory);
    put_text(out, k->name ? k->name : "?");
    fputc('\n', out);
}

static void write_memcpy(FILE *out, const CUpti_ActivityMemcpy6 *m)
{
    fprintf(out, "C\t%llu\t%llu\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%llu\n",
            (unsigned long long)m->start, (unsigned long long)m->end,
            m->deviceId, m->contextId, m->streamId, m->correlationId,
            (unsigned)m->copyKind, (unsigned)m->srcKind, (unsigned)m->dstKind,
            (unsigned long long)m->bytes);
}

static void write_memset(FILE *out, const CUpti_ActivityMemset4 *m)
{
    fprintf(out, "S\t%llu\t%llu\t%u\t%u\t%u\t%u\t%llu\t%u\n",
            (unsigned long long)m->start, (unsigned long long)m->end,
            m->deviceId, m->contextId, m->streamId, m->correlationId,
            (unsigned long long)m->bytes, m->value);
}

static void write_sync(FILE *out, const CUpti_ActivitySynchronization2 *s)
{
    fprintf(out, "Y\t%llu\t%llu\t%u\t%u\t%u\t%u\n",
            (unsigned long long)s->start, (unsigned long long)s->end,
            (unsigned)s->type, s->contextId, s->streamId, s->correlationId);
}

static void write_record(FILE *out, const CUpti_Activity *rec)
{
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        write_api(out, (const CUpti_ActivityAPI *)rec, 0);
        break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
        write_api(out, (const CUpti_ActivityAPI *)rec, 1);
        break;
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        write_kernel(out, (const CUpti_ActivityKernel10 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        write_memcpy(out, (const CUpti_ActivityMemcpy6 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        write_memset(out, (const CUpti_ActivityMemset4 *)rec);
        break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        write_sync(out, (const CUpti_ActivitySynchronization2 *)rec);
        break;
    default: break;
    }
}

static void CUPTIAPI buffer_request(uint8_t **buffer, size_t *size,
                                    size_t *max_records)
{
    void *p = NULL;
    /* CUPTI drops records when it gets no buffer; it counts them. */
    if (posix_memalign(&p, KT_TRACE_ALIGN, KT_TRACE_BUFFER_SIZE) != 0)
        p = NULL;
    *buffer = p;
    *size = p ? KT_TRACE_BUFFER_SIZE : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_done(CUcontext ctx, uint32_t stream,
                                 uint8_t *buffer, size_t size, size_t valid)
{
    CUpti_Activity *rec = NULL;
    size_t dropped = 0;
    (void)size;
    pthread_mutex_lock(&tr.lock);
    if (tr.out && valid > 0) {
        while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
            write_record(tr.out, rec);
        if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) ==
                CUPTI_SUCCESS &&
            dropped > 0) {
            tr.dropped += dropped;
            fprintf(tr.out, "D\t%llu\n", (unsigned long long)tr.dropped);
        }
        /* Each buffer reaches the file at once: a crash later loses none
         * of it. */
        fflush(tr.out);
    }
    pthread_mutex_unlock(&tr.lock);
    free(buffer);
}

/* The end marker: when and how the process ended. */
static void write_end(const char *how)
{
    pthread_mutex_lock(&tr.lock);
    if (tr.out) {
        fprintf(tr.out, "X\t%llu\t%llu\t%s\n", (unsigned long long)cupti_ns(),
                (unsigned long long)mono_ns(), how);
        fflush(tr.out);
    }
    pthread_mutex_unlock(&tr.lock);
}

/* Delivers completed buffers at a steady pace, so the file holds what ran
 * up to a moment ago whatever happens to the process later. */
static void *flusher_main(void *arg)
{
    struct timespec until;
    (void)arg;
    pthread_mutex_lock(&tr.stop_lock);
    while (!tr.stop) {
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += tr.flush_ms / 1000;
        until.tv_nsec += (long)(tr.flush_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec += 1;
            until.tv_nsec -= 1000000000L;
        }
        if (pthread_cond_timedwait(&tr.stop_cond, &tr.stop_lock, &until) ==
                ETIMEDOUT &&
            !tr.stop) {
            pthread_mutex_unlock(&tr.stop_lock);
            cuptiActivityFlushAll(0);
            pthread_mutex_lock(&tr.stop_lock);
        }
    }
    pthread_mutex_unlock(&tr.stop_lock);
    return NULL;
}

static void stop_flusher(void)
{
    if (!tr.flusher_started)
        return;
    pthread_mutex_lock(&tr.stop_lock);
    tr.stop = 1;
    pthread_cond_signal(&tr.stop_cond);
    pthread_mutex_unlock(&tr.stop_lock);
    pthread_join(tr.flusher, NULL);
    tr.flusher_started = 0;
}

static void at_exit(void)
{
    CUptiResult r;
    if (tr.finished || getpid() != tr.pid)
        return;
    tr.finished = 1;
    stop_flusher();
    if (tr.active) {
        r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        if (r != CUPTI_SUCCESS)
            write_error("cuptiActivityFlushAll", r);
    }
    write_end("exit");
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS,  SIGFPE, SIGILL,
                                    SIGABRT, SIGTERM, SIGINT};

/* Not async-signal-safe, and cannot be: CUPTI has to deliver its buffers.
 * The alarm ends a flush that would hang (a lock held by the interrupted
 * thread); the records already written stay either way. */
static void on_fatal_signal(int sig)
{
    char how[32];
    signal(sig, SIG_DFL);
    if (!tr.finished && getpid() == tr.pid) {
        tr.finished = 1;
        alarm(3);
        if (tr.active)
            cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        snprintf(how, sizeof how, "signal %d", sig);
        write_end(how);
        alarm(0);
    }
    raise(sig);
}

/* Takes only the signals the program leaves at their default action. */
static void install_signal_handlers(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0];
         ++i) {
        struct sigaction old, sa;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 ||
            (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* cudaDeviceReset destroys the context and, with it, records not yet
 * delivered; CUPTI's own errors are worth keeping. */
static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
        const CUpti_CallbackData *cd = data;
        if (cd->callbackSite == CUPTI_API_ENTER)
            cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    } else if (domain == CUPTI_CB_DOMAIN_STATE &&
               (cbid == CUPTI_CBID_STATE_FATAL_ERROR ||
                cbid == CUPTI_CBID_STATE_ERROR)) {
        const CUpti_StateData *sd = data;
        write_error(sd->notification.message ? sd->notification.message
                                             : "CUPTI error",
                    sd->notification.result);
    }
}

/* KTUNE_TIMELINE_DIR/trace-PID.tsv, created new; its header names the
 * process and pairs the CUPTI clock with CLOCK_MONOTONIC, the clock ktune
 * times the program with. */
static int open_record_file(const char *dir)
{
    char path[4096], exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int fd = -1;

    exe[n > 0 ? n : 0] = '\0';
    tr.pid = getpid();
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        if (attempt == 0)
            snprintf(path, sizeof path, "%s/trace-%ld.tsv", dir, (long)tr.pid);
        else
            snprintf(path, sizeof path, "%s/trace-%ld-%d.tsv", dir,
                     (long)tr.pid, attempt);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            return -1;
    }
    if (fd < 0 || !(tr.out = fdopen(fd, "w"))) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    fprintf(tr.out, "ktune-trace\t1\n");
    fprintf(tr.out, "P\t%ld\t%ld\t%llu\t%llu\t", (long)tr.pid, (long)getppid(),
            (unsigned long long)cupti_ns(), (unsigned long long)mono_ns());
    put_text(tr.out, exe);
    fputc('\n', tr.out);
    fflush(tr.out);
    return 0;
}

static int enable_kinds(void)
{
    static const struct {
        CUpti_ActivityKind kind;
        const char *call;
        int driver;
    } kinds[] = {
        {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
         "cuptiActivityEnable(CONCURRENT_KERNEL)", 0},
        {CUPTI_ACTIVITY_KIND_MEMCPY, "cuptiActivityEnable(MEMCPY)", 0},
        {CUPTI_ACTIVITY_KIND_MEMSET, "cuptiActivityEnable(MEMSET)", 0},
        {CUPTI_ACTIVITY_KIND_RUNTIME, "cuptiActivityEnable(RUNTIME)", 0},
        {CUPTI_ACTIVITY_KIND_DRIVER, "cuptiActivityEnable(DRIVER)", 1},
        {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
         "cuptiActivityEnable(SYNCHRONIZATION)", 0},
    };
    const char *drv = getenv("KTUNE_TIMELINE_DRIVER");
    int no_driver = drv && strcmp(drv, "0") == 0;

    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
        CUptiResult r;
        if (kinds[i].driver && no_driver)
            continue;
        r = cuptiActivityEnable(kinds[i].kind);
        if (r != CUPTI_SUCCESS) {
            write_error(kinds[i].call, r);
            /* Without kernel records there is no timeline. */
            if (i == 0)
                return -1;
        }
    }
    return 0;
}

static void start_flusher(void)
{
    const char *env = getenv("KTUNE_TIMELINE_FLUSH_MS");
    long ms = env ? strtol(env, NULL, 10) : 200;
    tr.flush_ms = ms > 0 && ms < 60000 ? (unsigned)ms : 200;
    if (pthread_create(&tr.flusher, NULL, flusher_main, NULL) == 0)
        tr.flusher_started = 1;
}

int InitializeInjection(void)
{
    static int initialised;
    const char *dir = getenv("KTUNE_TIMELINE_DIR");
    CUptiResult r;

    /* Outside ktune timeline (no folder named) the library does nothing. */
    if (initialised || !dir || !*dir)
        return 1;
    initialised = 1;
    if (open_record_file(dir) != 0)
        return 1;
    /* The end marker is written whatever happens below. */
    atexit(at_exit);
    r = cuptiSubscribe(&tr.sub, on_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        write_error("cuptiSubscribe", r);
        return 1;
    }
    r = cuptiEnableCallback(1, tr.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                            CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    if (r == CUPTI_SUCCESS)
        r = cuptiEnableDomain(1, tr.sub, CUPTI_CB_DOMAIN_STATE);
    if (r != CUPTI_SUCCESS)
        write_error("cuptiEnableCallback", r);
    r = cuptiActivityRegisterCallbacks(buffer_request, buffer_done);
    if (r != CUPTI_SUCCESS) {
        write_error("cuptiActivityRegisterCallbacks", r);
        return 1;
    }
    if (enable_kinds() != 0)
        return 1;
    tr.active = 1;
    install_signal_handlers();
    start_flusher();
    return 1;
}
