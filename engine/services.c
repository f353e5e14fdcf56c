// SPDX-License-Identifier: Apache-2.0
#include "engine/services.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/msg.h"
#include "core/rng.h"
#include "core/runctx.h"
#include "engine/compile_pool.h"
#include "engine/cuda_check.h"
#include "engine/kernels.h"
#include "engine/nvrtc.h"

static kt_services *self(const kt_host *host)
{
    return (kt_services *)host->host_private;
}

static int host_error(const kt_host *host, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void host_log(const kt_host *host, kt_log_level level, const char *fmt,
                     ...) __attribute__((format(printf, 3, 4)));

static int host_error(const kt_host *host, const char *fmt, ...)
{
    kt_services *svc = self(host);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(svc->error, sizeof svc->error, fmt, ap);
    va_end(ap);
    return KT_FAIL;
}

static void host_log(const kt_host *host, kt_log_level level, const char *fmt,
                     ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    va_list ap;
    if ((int)level > self(host)->log_level || (int)level < 0 || level > 3)
        return;
    va_start(ap, fmt);
    kt_msg("plugin %s: ", names[level]);
    vfprintf(kt_stderr(), fmt, ap);
    fputc('\n', kt_stderr());
    va_end(ap);
}

static int host_alloc(const kt_host *host, size_t bytes, kt_mem_role role,
                      const char *name, void **dev_ptr)
{
    kt_services *svc = self(host);
    size_t free_bytes = 0, total = 0;
    kt_alloc *grown;
    cudaError_t code;
    double t0;

    *dev_ptr = NULL;
    if (role < KT_MEM_INPUT || role > KT_MEM_SCRATCH)
        return host_error(host,
                          "alloc_device('%s'): role %d, expected "
                          "KT_MEM_INPUT, KT_MEM_OUTPUT or KT_MEM_SCRATCH",
                          name ? name : "?", (int)role);
    /* Say how much was asked and how much there is, rather than letting
     * cudaMalloc answer "out of memory". */
    if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess &&
        bytes > free_bytes)
        return host_error(host,
                          "alloc_device('%s'): needs %.3f GiB, the "
                          "device has %.3f GiB free of %.3f GiB",
                          name ? name : "?", bytes / 1073741824.0,
                          free_bytes / 1073741824.0, total / 1073741824.0);
    grown = realloc(svc->allocs, (svc->num_allocs + 1) * sizeof *grown);
    if (!grown)
        return host_error(host, "alloc_device('%s'): out of host memory",
                          name ? name : "?");
    svc->allocs = grown;
    t0 = kt_clock_seconds();
    code = cudaMalloc(dev_ptr, bytes ? bytes : 1);
    svc->alloc_seconds += kt_clock_seconds() - t0;
    if (code != cudaSuccess)
        return host_error(host, "alloc_device('%s', %zu bytes): %s",
                          name ? name : "?", bytes, cudaGetErrorString(code));
    grown[svc->num_allocs].ptr = *dev_ptr;
    grown[svc->num_allocs].bytes = bytes;
    grown[svc->num_allocs].role = role;
    snprintf(grown[svc->num_allocs].name, sizeof grown->name, "%s",
             name ? name : "?");
    ++svc->num_allocs;
    svc->bytes_in_use += bytes;
    return KT_OK;
}

static void host_free(const kt_host *host, void *dev_ptr)
{
    kt_services *svc = self(host);
    for (size_t i = 0; i < svc->num_allocs; ++i) {
        if (svc->allocs[i].ptr == dev_ptr) {
            cudaFree(dev_ptr);
            svc->bytes_in_use -= svc->allocs[i].bytes;
            svc->allocs[i] = svc->allocs[--svc->num_allocs];
            return;
        }
    }
    host_log(host, KT_LOG_WARN,
             "free_device(%p): not allocated through "
             "alloc_device; ignored",
             dev_ptr);
}

static const kt_alloc *find_alloc(const kt_services *svc, const void *ptr,
                                  size_t bytes)
{
    for (size_t i = 0; i < svc->num_allocs; ++i) {
        const char *base = svc->allocs[i].ptr;
        if ((const char *)ptr >= base &&
            (const char *)ptr + bytes <= base + svc->allocs[i].bytes)
            return &svc->allocs[i];
    }
    return NULL;
}

static int host_copy(const kt_host *host, void *dst, const void *src,
                     size_t bytes, int upload)
{
    const void *dev = upload ? dst : src;
    cudaError_t code;

    if (!find_alloc(self(host), dev, bytes))
        return host_error(host,
                          "%s of %zu bytes at %p: outside every "
                          "allocation made through alloc_device",
                          upload ? "upload" : "download", bytes, dev);
    code = cudaMemcpy(dst, src, bytes,
                      upload ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    /* cudaMemcpy from pageable memory may return before the DMA has
     * finished, and the timed stream does not wait for the legacy default
     * stream: a kernel launched next could read half-uploaded inputs. The
     * contract is "on the device when upload returns". */
    if (code == cudaSuccess)
        code = cudaDeviceSynchronize();
    if (code != cudaSuccess)
        return host_error(host, "%s of %zu bytes: %s",
                          upload ? "upload" : "download", bytes,
                          cudaGetErrorString(code));
    return KT_OK;
}

static int host_upload(const kt_host *host, void *dev_dst, const void *src,
                       size_t bytes)
{
    return host_copy(host, dev_dst, src, bytes, 1);
}

static int host_download(const kt_host *host, void *dst, const void *dev_src,
                         size_t bytes)
{
    return host_copy(host, dst, dev_src, bytes, 0);
}

typedef struct fill_job {
    uint64_t seed, stream, first;
    float *dst;
    size_t count;
    float lo, hi;
} fill_job;

static void *fill_chunk(void *arg)
{
    fill_job *j = arg;
    kt_rng_fill_f32_at(j->seed, j->stream, j->dst, j->first, j->count, j->lo,
                       j->hi);
    return NULL;
}

/* Element i depends on i alone, so a large fill is split over the cores:
 * the inputs of a 2^28-element problem are ready in a fraction of the time
 * (the pages are first touched in parallel too). A thread that cannot be
 * started leaves its chunk to this one. */
static void host_random_f32(const kt_host *host, uint64_t stream, float *dst,
                            size_t count, float lo, float hi)
{
    enum { MAX_THREADS = 16, MIN_CHUNK = 1 << 20 };
    pthread_t tid[MAX_THREADS];
    fill_job jobs[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t parts = cores > 1 ? (size_t)cores : 1, chunk;

    if (parts > MAX_THREADS)
        parts = MAX_THREADS;
    if (parts > count / MIN_CHUNK)
        parts = count / MIN_CHUNK ? count / MIN_CHUNK : 1;
    chunk = (count + parts - 1) / parts;
    for (size_t p = 0; p < parts; ++p) {
        size_t first = p * chunk;
        jobs[p] = (fill_job){
            self(host)->seed,
            stream,
            first,
            dst + first,
            first < count ? (count - first < chunk ? count - first : chunk) : 0,
            lo,
            hi};
        if (p > 0)
            started[p] =
                pthread_create(&tid[p], NULL, fill_chunk, &jobs[p]) == 0;
    }
    fill_chunk(&jobs[0]);
    for (size_t p = 1; p < parts; ++p) {
        if (started[p])
            pthread_join(tid[p], NULL);
        else
            fill_chunk(&jobs[p]);
    }
}

static int host_random_f32_device(const kt_host *host, uint64_t stream,
                                  float *dev_dst, size_t count, float lo,
                                  float hi)
{
    kt_services *svc = self(host);
    cudaError_t code;

    if (!find_alloc(svc, dev_dst, count * sizeof *dev_dst))
        return host_error(host,
                          "random_f32_device(%zu floats at %p): outside every "
                          "allocation made through alloc_device",
                          count, (void *)dev_dst);
    /* On the legacy stream and complete on return, like upload(). */
    code =
        kt_launch_fill_f32(dev_dst, count, kt_rng_stream_key(svc->seed, stream),
                           lo, hi, svc->gpu->dev.sm_count, 0);
    if (code == cudaSuccess)
        code = cudaDeviceSynchronize();
    if (code != cudaSuccess)
        return host_error(host, "random_f32_device: %s",
                          cudaGetErrorString(code));
    return KT_OK;
}

int kt_check_values_f32(const char *name, const float *got, const double *want,
                        size_t count, size_t index_base, double rtol,
                        double atol, char *msg, size_t msg_size)
{
    kt_check_record r;
    kt_check_record_init(&r);
    kt_check_host_f32(got, want, NULL, count, index_base, rtol, atol, &r);
    return kt_check_describe(&r, name, count, 0, rtol, atol, msg, msg_size);
}

static int host_check_f32(const kt_host *host, const char *name,
                          const float *dev_got, const double *want,
                          size_t count, double rtol, double atol)
{
    /* Chunked, so checking a 1 GiB output needs 64 MiB of host memory.
     * Every chunk is compared: the count is exact, as on the device. */
    enum { CHUNK = 1 << 24 };
    kt_services *svc = self(host);
    float *buf = malloc((count < CHUNK ? count : CHUNK) * sizeof *buf + 1);
    kt_check_record r;
    double t0 = kt_clock_seconds();
    int rc = KT_OK;

    if (!buf)
        return host_error(host, "check_f32('%s'): out of host memory", name);
    kt_check_record_init(&r);
    for (size_t off = 0; off < count && rc == KT_OK; off += CHUNK) {
        size_t n = count - off < CHUNK ? count - off : CHUNK;
        if (host_download(host, buf, dev_got + off, n * sizeof *buf))
            rc = KT_FAIL;
        else
            kt_check_host_f32(buf, want + off, NULL, n, off, rtol, atol, &r);
    }
    free(buf);
    if (rc == KT_OK)
        rc = kt_check_describe(&r, name, count, 0, rtol, atol, svc->error,
                               sizeof svc->error);
    svc->check_seconds += kt_clock_seconds() - t0;
    return rc;
}

/* The check record's device and pinned host halves, made once. */
static kt_status check_buffers(kt_services *svc, kt_err *err)
{
    kt_status rc;
    if (svc->check_dev)
        return KT_S_OK;
    if ((rc = KT_CUDA_TRY(
             cudaMalloc((void **)&svc->check_dev, sizeof *svc->check_dev),
             err)) ||
        (rc = KT_CUDA_TRY(
             cudaMallocHost((void **)&svc->check_host, sizeof *svc->check_host),
             err)))
        return rc;
    return KT_S_OK;
}

/* The lowest failure may have lost the race for a slot: fetch its values
 * so the message always shows it. */
static kt_status fetch_first(kt_services *svc, const float *dev_got,
                             const double *dev_want, const double *dev_tol,
                             double rtol, double atol, kt_err *err)
{
    kt_check_record *r = svc->check_host;
    kt_check_fail *f = &r->fail[KT_CHECK_SLOTS - 1];
    uint64_t i = r->first;
    float g = 0;
    kt_status rc;

    f->index = i;
    if ((rc = KT_CUDA_TRY(
             cudaMemcpy(&g, dev_got + i, sizeof g, cudaMemcpyDeviceToHost),
             err)) ||
        (rc = KT_CUDA_TRY(cudaMemcpy(&f->want, dev_want + i, sizeof f->want,
                                     cudaMemcpyDeviceToHost),
                          err)))
        return rc;
    f->got = (double)g;
    f->bound = kt_check_bound(f->want, rtol, atol);
    if (dev_tol)
        rc = KT_CUDA_TRY(cudaMemcpy(&f->bound, dev_tol + i, sizeof f->bound,
                                    cudaMemcpyDeviceToHost),
                         err);
    return rc;
}

static int host_check_f32_device(const kt_host *host, const char *name,
                                 const float *dev_got, const double *dev_want,
                                 const double *dev_tol, size_t count,
                                 double rtol, double atol)
{
    kt_services *svc = self(host);
    cudaStream_t s = svc->stream;
    double t0 = kt_clock_seconds();
    kt_err err;
    kt_status rc;

    kt_err_clear(&err);
    if (!find_alloc(svc, dev_got, count * sizeof *dev_got) ||
        !find_alloc(svc, dev_want, count * sizeof *dev_want) ||
        (dev_tol && !find_alloc(svc, dev_tol, count * sizeof *dev_tol)))
        return host_error(host,
                          "check_f32_device('%s', %zu elements): an array "
                          "lies outside every allocation made through "
                          "alloc_device",
                          name, count);
    if ((rc = check_buffers(svc, &err)) ||
        (rc = kt_cuda_status(
             kt_launch_check_f32(dev_got, dev_want, dev_tol, count, rtol, atol,
                                 svc->check_dev, svc->gpu->dev.sm_count, s),
             "check_f32_device", &err)) ||
        (rc = KT_CUDA_TRY(cudaMemcpyAsync(svc->check_host, svc->check_dev,
                                          sizeof *svc->check_host,
                                          cudaMemcpyDeviceToHost, s),
                          &err)) ||
        (rc = kt_cuda_status(cudaStreamSynchronize(s),
                             "check_f32_device: comparing", &err)) ||
        (!kt_check_has_first(svc->check_host) &&
         (rc = fetch_first(svc, dev_got, dev_want, dev_tol, rtol, atol,
                           &err)))) {
        svc->check_seconds += kt_clock_seconds() - t0;
        return host_error(host, "check_f32_device('%s'): %s", name, err.msg);
    }
    svc->check_seconds += kt_clock_seconds() - t0;
    return kt_check_describe(svc->check_host, name, count, dev_tol != NULL,
                             rtol, atol, svc->error, sizeof svc->error);
}

/* Compile-time parameters: one NVRTC compilation per distinct kernel and
 * options, for the architecture of the device in use. */
static int host_compile(const kt_host *host, const kt_jit_request *req,
                        const void **kernel)
{
    kt_services *svc = self(host);
    kt_jit_request r;
    kt_nvrtc_request nr;
    kt_nvrtc_output out;
    char arch[32], first[512];
    kt_err err;
    int rc = KT_OK;

    *kernel = NULL;
    memset(&r, 0, sizeof r);
    memcpy(&r, req, req->struct_size < sizeof r ? req->struct_size : sizeof r);
    if (!r.source || !r.kernel)
        return host_error(host, "compile: source or kernel is NULL");
    kt_nvrtc_arch(svc->gpu->dev.cc_major, svc->gpu->dev.cc_minor, arch,
                  sizeof arch);
    nr = (kt_nvrtc_request){r.source,  r.source_name ? r.source_name : "jit.cu",
                            r.kernel,  arch,
                            r.options, r.num_options};
    if (svc->gpu->compile_pool
            ? kt_cpool_compile(svc->gpu->compile_pool, &nr, &out, NULL, &err)
            : kt_nvrtc_compile(&nr, &out, &err))
        rc = host_error(host, "compile %s: %s", r.kernel, err.msg);
    else if (!out.compiled) {
        kt_nvrtc_first_error(out.log, first, sizeof first);
        host_log(host, KT_LOG_DEBUG, "compiling %s:\n%s", r.kernel, out.log);
        host_error(host, "%s " KT_COMPILE_FAILED "%s", r.kernel, first);
        rc = KT_INVALID;
    } else if (kt_nvrtc_load(&out, kernel, &err)) {
        host_error(host, "compile: loading %s: %s", r.kernel, err.msg);
        rc = err.status == KT_S_INVALID ? KT_INVALID : KT_FAIL;
    }
    kt_nvrtc_output_free(&out);
    return rc;
}

void kt_services_init(kt_services *svc, const kt_gpu *gpu, uint64_t seed,
                      int log_level, int host_only)
{
    memset(svc, 0, sizeof *svc);
    svc->gpu = gpu;
    svc->seed = seed;
    svc->log_level = log_level;
    svc->host.struct_size = sizeof svc->host;
    svc->host.abi_major = KT_ABI_MAJOR;
    svc->host.abi_minor = KT_ABI_MINOR;
    svc->host.device = &gpu->dev;
    svc->host.alloc_device = host_alloc;
    svc->host.free_device = host_free;
    svc->host.upload = host_upload;
    svc->host.download = host_download;
    svc->host.random_f32 = host_random_f32;
    svc->host.check_f32 = host_check_f32;
    svc->host.check_f32_device = host_only ? NULL : host_check_f32_device;
    svc->host.random_f32_device = host_only ? NULL : host_random_f32_device;
    svc->host.log = host_log;
    svc->host.error = host_error;
    svc->host.host_private = svc;
    svc->host.compile = host_compile;
}

kt_status kt_services_poison_outputs(kt_services *svc, cudaStream_t stream,
                                     kt_err *err)
{
    for (size_t i = 0; i < svc->num_allocs; ++i) {
        kt_status rc;
        if (svc->allocs[i].role != KT_MEM_OUTPUT)
            continue;
        rc = KT_CUDA_TRY(cudaMemsetAsync(svc->allocs[i].ptr, 0xFF,
                                         svc->allocs[i].bytes, stream),
                         err);
        if (rc)
            return rc;
    }
    return KT_S_OK;
}

void kt_services_release(kt_services *svc, int warn)
{
    for (size_t i = 0; i < svc->num_allocs; ++i) {
        if (warn)
            kt_msg("warning: plugin left '%s' (%zu bytes) "
                   "allocated after teardown; freed by ktune\n",
                   svc->allocs[i].name, svc->allocs[i].bytes);
        cudaFree(svc->allocs[i].ptr);
    }
    free(svc->allocs);
    if (svc->check_dev)
        cudaFree(svc->check_dev);
    if (svc->check_host)
        cudaFreeHost(svc->check_host);
    svc->check_dev = NULL;
    svc->check_host = NULL;
    svc->allocs = NULL;
    svc->num_allocs = 0;
    svc->bytes_in_use = 0;
}

const char *kt_services_error(kt_services *svc, const char *callback)
{
    if (!svc->error[0])
        snprintf(svc->error, sizeof svc->error,
                 "%s() failed without saying why", callback);
    return svc->error;
}

void kt_services_clear_error(kt_services *svc)
{
    svc->error[0] = '\0';
}
