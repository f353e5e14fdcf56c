#include "core/services.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/cuda_check.h"
#include "core/nvrtc.h"
#include "core/rng.h"

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
    fprintf(stderr, "ktune: plugin %s: ", names[level]);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
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

static void host_random_f32(const kt_host *host, uint64_t stream, float *dst,
                            size_t count, float lo, float hi)
{
    kt_rng_fill_f32(self(host)->seed, stream, dst, count, lo, hi);
}

int kt_check_values_f32(const char *name, const float *got, const double *want,
                        size_t count, size_t index_base, double rtol,
                        double atol, char *msg, size_t msg_size)
{
    size_t bad = 0, first = 0, shown = 0, used = 0;
    double max_err = 0.0;
    char detail[512] = "";

    for (size_t i = 0; i < count; ++i) {
        double err = fabs((double)got[i] - want[i]);
        double tol = atol + rtol * fabs(want[i]);
        /* Written so that NaN in got or want fails. */
        if (!(err <= tol)) {
            if (bad++ == 0)
                first = index_base + i;
            if (shown < 3 && used + 1 < sizeof detail) {
                char g[32];
                /* Poisoned (never written) elements read as NaN. */
                if (isnan(got[i]))
                    snprintf(g, sizeof g, "NaN");
                else
                    snprintf(g, sizeof g, "%.9g", (double)got[i]);
                used += (size_t)snprintf(detail + used, sizeof detail - used,
                                         "%s[%zu] got %s want %.9g",
                                         shown ? "; " : "", index_base + i, g,
                                         want[i]);
                ++shown;
            }
            if (!(err <= max_err))
                max_err = err;
        }
    }
    if (!bad)
        return KT_OK;
    snprintf(msg, msg_size,
             "%s: %zu of %zu elements outside |got - want| <= "
             "%g + %g*|want| (first at %zu; max |error| %.3g): %s",
             name, bad, count, atol, rtol, first, max_err, detail);
    return KT_MISMATCH;
}

static int host_check_f32(const kt_host *host, const char *name,
                          const float *dev_got, const double *want,
                          size_t count, double rtol, double atol)
{
    /* Chunked, so checking a 1 GiB output needs 64 MiB of host memory. The
     * first chunk with a failure is reported; later ones are not read. */
    enum { CHUNK = 1 << 24 };
    kt_services *svc = self(host);
    float *buf = malloc((count < CHUNK ? count : CHUNK) * sizeof *buf + 1);
    int rc = KT_OK;

    if (!buf)
        return host_error(host, "check_f32('%s'): out of host memory", name);
    for (size_t off = 0; off < count && rc == KT_OK; off += CHUNK) {
        size_t n = count - off < CHUNK ? count - off : CHUNK;
        if (host_download(host, buf, dev_got + off, n * sizeof *buf))
            rc = KT_FAIL;
        else
            rc = kt_check_values_f32(name, buf, want + off, n, off, rtol, atol,
                                     svc->error, sizeof svc->error);
    }
    free(buf);
    return rc;
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
    if (kt_nvrtc_compile(&nr, &out, &err))
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
                      int log_level)
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
            fprintf(stderr,
                    "ktune: warning: plugin left '%s' (%zu bytes) "
                    "allocated after teardown; freed by ktune\n",
                    svc->allocs[i].name, svc->allocs[i].bytes);
        cudaFree(svc->allocs[i].ptr);
    }
    free(svc->allocs);
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
