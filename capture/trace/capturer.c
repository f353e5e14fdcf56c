// SPDX-License-Identifier: Apache-2.0
/*
 * libktune_capture.so: what `ktune capture` injects into a CUDA program
 * through CUDA_INJECTION64_PATH (as the timeline's tracer is). CUPTI's
 * resource callbacks hand it every module image the driver loads; its
 * driver-API callbacks see every kernel launch. For a launch selected by
 * KTUNE_CAPTURE_KERNEL (an extended regular expression over the mangled
 * and the demangled name) and KTUNE_CAPTURE_LAUNCH (the Nth such launch,
 * or "all"), it waits for the device to be idle, reads the parameters'
 * offsets and sizes from the driver (cuFuncGetParamInfo), finds the device
 * allocation each 8-byte argument points into (cuMemGetAddressRange), and
 * writes the capture (capture/format.h) into a new folder under
 * KTUNE_CAPTURE_DIR: module, argument bytes, every allocation before the
 * launch; after the launch (the callback's exit) the allocations again,
 * then the manifest last, so a folder without capture.json is a capture
 * that did not finish.
 *
 * Launches it cannot capture are reported, never half-written: graphs,
 * stream capture, cooperative and cluster launches, arguments passed
 * through `extra`, managed or host memory, and allocations beyond
 * KTUNE_CAPTURE_LIMIT bytes. Each outcome is one line of
 * KTUNE_CAPTURE_DIR/capture-PID.log, which ktune reads:
 *   C <TAB> folder <TAB> mangled name     a capture was written
 *   R <TAB> mangled name <TAB> launch <TAB> why     a launch was refused
 *   E <TAB> what failed
 *
 * It writes nothing outside that folder, prints nothing on the program's
 * streams, and leaves signals and the exit status alone. Links CUPTI and
 * the driver only: nothing of ktune (docs/hacking.md, Layers).
 */
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KT_CAPT_MAX_PARAMS 4096
#define KT_CAPT_MAX_ALLOCS 256
#define KT_CAPT_CHUNK ((size_t)64 << 20)

__attribute__((visibility("default"))) int InitializeInjection(void);

typedef struct module_image {
    uint32_t id;
    size_t size;
    char *bytes; /* a copy: CUPTI's is valid during the callback only */
} module_image;

typedef struct kernel_count {
    char *name;
    uint64_t launches;
} kernel_count;

typedef struct alloc_rec {
    CUdeviceptr base;
    size_t bytes;
} alloc_rec;

/* A launch between its enter and exit callbacks. */
typedef struct pending {
    int active;
    char folder[4096];
    char *manifest; /* the manifest written at exit */
    alloc_rec allocs[KT_CAPT_MAX_ALLOCS];
    size_t num_allocs;
} pending;

static struct {
    pthread_mutex_t lock;
    char dir[4096];
    FILE *log;
    regex_t re;
    int have_re;
    uint64_t want_launch; /* 0: all */
    uint64_t limit, max_captures, captures;
    module_image *mods;
    size_t num_mods;
    kernel_count *counts;
    size_t num_counts;
    CUpti_SubscriberHandle sub;
} cp = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};

static __thread int in_callback;
static __thread pending pend;

/* ---- small helpers --------------------------------------------------- */

static void log_line(const char *kind, const char *a, const char *b,
                     const char *c)
{
    if (!cp.log)
        return;
    fprintf(cp.log, "%s\t%s", kind, a);
    if (b)
        fprintf(cp.log, "\t%s", b);
    if (c)
        fprintf(cp.log, "\t%s", c);
    fputc('\n', cp.log);
    fflush(cp.log);
}

static void refuse(const char *name, uint64_t launch, const char *why)
{
    char n[32];
    snprintf(n, sizeof n, "%" PRIu64, launch);
    log_line("R", name, n, why);
}

/* timeline/demangle.c's lookup again: this library links nothing of ktune. */
static char *demangle(const char *name)
{
    typedef char *(*fn_t)(const char *, char *, size_t *, int *);
    static fn_t fn;
    static int looked;
    int status = -1;
    char *out;
    if (!looked) {
        void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        looked = 1;
        if (lib)
            *(void **)&fn = dlsym(lib, "__cxa_demangle");
    }
    if (!fn || name[0] != '_' || name[1] != 'Z')
        return NULL;
    out = fn(name, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void put_json(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* The launch number of name (1 for its first launch). */
static uint64_t count_launch(const char *name)
{
    kernel_count *grown;
    for (size_t i = 0; i < cp.num_counts; ++i)
        if (strcmp(cp.counts[i].name, name) == 0)
            return ++cp.counts[i].launches;
    grown = realloc(cp.counts, (cp.num_counts + 1) * sizeof *grown);
    if (!grown)
        return 0;
    cp.counts = grown;
    if (!(grown[cp.num_counts].name = strdup(name)))
        return 0;
    grown[cp.num_counts].launches = 1;
    return cp.num_counts++, 1;
}

static int selected(const char *name, uint64_t launch)
{
    char *dm;
    int hit = 1;
    if (cp.have_re) {
        hit = regexec(&cp.re, name, 0, NULL, 0) == 0;
        if (!hit && (dm = demangle(name))) {
            hit = regexec(&cp.re, dm, 0, NULL, 0) == 0;
            free(dm);
        }
    }
    if (!hit)
        return 0;
    return cp.want_launch == 0 || cp.want_launch == launch;
}

/* ---- modules ---------------------------------------------------------- */

static void keep_module(const CUpti_ModuleResourceData *m)
{
    module_image *grown;
    if (!m->pCubin || m->cubinSize == 0)
        return;
    grown = realloc(cp.mods, (cp.num_mods + 1) * sizeof *grown);
    if (!grown)
        return;
    cp.mods = grown;
    grown[cp.num_mods].bytes = malloc(m->cubinSize);
    if (!grown[cp.num_mods].bytes)
        return;
    memcpy(grown[cp.num_mods].bytes, m->pCubin, m->cubinSize);
    grown[cp.num_mods].size = m->cubinSize;
    grown[cp.num_mods].id = m->moduleId;
    cp.num_mods++;
}

static void drop_module(const CUpti_ModuleResourceData *m)
{
    for (size_t i = 0; i < cp.num_mods; ++i)
        if (cp.mods[i].id == m->moduleId) {
            free(cp.mods[i].bytes);
            cp.mods[i] = cp.mods[--cp.num_mods];
            return;
        }
}

/* The newest loaded image whose bytes hold the kernel's symbol. */
static const module_image *module_of(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = cp.num_mods; i-- > 0;)
        if (memmem(cp.mods[i].bytes, cp.mods[i].size, name, n))
            return &cp.mods[i];
    return NULL;
}

static const char *module_kind(const module_image *m)
{
    if (m->size >= 4 && memcmp(m->bytes,
                               "\x7f"
                               "ELF",
                               4) == 0)
        return "cubin";
    if (m->size >= 4 && (unsigned char)m->bytes[0] == 0x50 &&
        (unsigned char)m->bytes[1] == 0xed &&
        (unsigned char)m->bytes[2] == 0x55 &&
        (unsigned char)m->bytes[3] == 0xba)
        return "fatbin";
    return "ptx";
}

/* ---- files ------------------------------------------------------------ */

static int write_file(const char *folder, const char *name, const void *p,
                      size_t n)
{
    char path[4200];
    int fd, ok;
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", folder, name);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || !(f = fdopen(fd, "wb"))) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    ok = (n == 0 || fwrite(p, 1, n, f) == n);
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Allocation a's bytes into folder/name, through a bounded host buffer. */
static int dump_alloc(const char *folder, const char *name, const alloc_rec *a)
{
    char path[4200];
    size_t chunk = a->bytes < KT_CAPT_CHUNK ? a->bytes : KT_CAPT_CHUNK;
    void *buf = malloc(chunk ? chunk : 1);
    int fd, rc = 0;
    FILE *f = NULL;

    snprintf(path, sizeof path, "%s/%s", folder, name);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (!buf || fd < 0 || !(f = fdopen(fd, "wb"))) {
        if (fd >= 0)
            close(fd);
        free(buf);
        return -1;
    }
    for (size_t off = 0; off < a->bytes && rc == 0; off += chunk) {
        size_t n = a->bytes - off < chunk ? a->bytes - off : chunk;
        if (cuMemcpyDtoH(buf, a->base + off, n) != CUDA_SUCCESS ||
            fwrite(buf, 1, n, f) != n)
            rc = -1;
    }
    if (fclose(f) != 0)
        rc = -1;
    free(buf);
    return rc;
}

/* A new folder NNN-kernel under the capture folder. */
static int make_folder(const char *name, char *out, size_t size)
{
    char shortname[48];
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < sizeof shortname; ++p)
        shortname[k++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                                 (*p >= '0' && *p <= '9') || *p == '_'
                             ? *p
                             : '_';
    shortname[k] = '\0';
    for (int attempt = 0; attempt < 1000; ++attempt) {
        snprintf(out, size, "%s/%03" PRIu64 "-%s%s%.0d", cp.dir,
                 cp.captures + 1, shortname, attempt ? "-" : "", attempt);
        if (mkdir(out, 0755) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* ---- one launch ------------------------------------------------------- */

typedef struct launch_info {
    CUfunction f;
    unsigned grid[3], block[3], smem;
    CUstream stream;
    void **params, **extra;
    const char *refused; /* set when the launch kind cannot be captured */
} launch_info;

typedef struct param_rec {
    size_t offset, size;
    int alloc;
    size_t alloc_offset;
} param_rec;

/* The allocation holding address p, added to pend once; -1 when p is not
 * a device allocation, -2 with *why when it is one that cannot be
 * captured. */
static int find_alloc(CUdeviceptr p, const char **why)
{
    CUdeviceptr base = 0;
    size_t bytes = 0;
    unsigned managed = 0, type = 0;
    if (cuMemGetAddressRange(&base, &bytes, p) != CUDA_SUCCESS || !bytes)
        return -1;
    if (cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p) ==
            CUDA_SUCCESS &&
        managed) {
        *why = "an argument points into managed memory (cudaMallocManaged): "
               "not captured";
        return -2;
    }
    if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) ==
            CUDA_SUCCESS &&
        type == CU_MEMORYTYPE_HOST) {
        *why = "an argument points into host memory (pinned or mapped): not "
               "captured";
        return -2;
    }
    for (size_t k = 0; k < pend.num_allocs; ++k)
        if (pend.allocs[k].base == base)
            return (int)k;
    if (pend.num_allocs == KT_CAPT_MAX_ALLOCS) {
        *why = "more than 256 distinct allocations among the arguments";
        return -2;
    }
    pend.allocs[pend.num_allocs].base = base;
    pend.allocs[pend.num_allocs].bytes = bytes;
    return (int)pend.num_allocs++;
}

/* Offsets and sizes from the driver; pointers resolved. */
static int read_params(const launch_info *li, param_rec *ps, size_t *n,
                       size_t *args_bytes, const char **why)
{
    size_t off, size, end = 0;
    *n = 0;
    for (size_t i = 0; i < KT_CAPT_MAX_PARAMS; ++i) {
        CUresult r = cuFuncGetParamInfo(li->f, i, &off, &size);
        if (r == CUDA_ERROR_INVALID_VALUE)
            break;
        if (r != CUDA_SUCCESS) {
            *why = "the driver gives no parameter info for this kernel "
                   "(cuFuncGetParamInfo needs CUDA 12.4 or later)";
            return -1;
        }
        ps[i] = (param_rec){off, size, -1, 0};
        if (size == 8) {
            CUdeviceptr p;
            memcpy(&p, li->params[i], 8);
            int k = p ? find_alloc(p, why) : -1;
            if (k == -2)
                return -1;
            if (k >= 0) {
                ps[i].alloc = k;
                ps[i].alloc_offset = (size_t)(p - pend.allocs[k].base);
            }
        }
        end = off + size;
        *n = i + 1;
    }
    *args_bytes = end;
    return 0;
}

static void *gather_args(const launch_info *li, const param_rec *ps, size_t n,
                         size_t bytes)
{
    unsigned char *buf = calloc(1, bytes ? bytes : 1);
    for (size_t i = 0; buf && i < n; ++i)
        memcpy(buf + ps[i].offset, li->params[i], ps[i].size);
    return buf;
}

static void device_json(FILE *f)
{
    CUdevice dev;
    char name[256] = "";
    int major = 0, minor = 0;
    if (cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
        cuDeviceGetName(name, sizeof name, dev);
        cuDeviceGetAttribute(&major,
                             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        cuDeviceGetAttribute(&minor,
                             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    }
    fprintf(f, " \"device\": {\"name\": ");
    put_json(f, name);
    fprintf(f, ", \"cc_major\": %d, \"cc_minor\": %d},\n", major, minor);
}

/* The manifest's text, kept until the launch's exit writes it. */
static char *manifest(const char *name, const module_image *m,
                      const launch_info *li, uint64_t launch,
                      const param_rec *ps, size_t n, size_t args_bytes)
{
    char *text = NULL, *dm = demangle(name);
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        free(dm);
        return NULL;
    }
    fprintf(f, "{\n \"format\": \"ktune-capture\",\n \"version\": 1,\n");
    fprintf(f, " \"kernel\": {\"mangled\": ");
    put_json(f, name);
    fprintf(f, ", \"demangled\": ");
    put_json(f, dm ? dm : name);
    fprintf(f,
            "},\n \"module\": {\"file\": \"module.bin\", \"kind\": \"%s\", "
            "\"bytes\": %zu},\n",
            module_kind(m), m->size);
    device_json(f);
    fprintf(f,
            " \"launch\": {\"index\": %" PRIu64 ", \"grid\": [%u, %u, %u], "
            "\"block\": [%u, %u, %u], \"dynamic_smem\": %u, \"stream\": "
            "\"0x%" PRIxPTR "\"},\n",
            launch, li->grid[0], li->grid[1], li->grid[2], li->block[0],
            li->block[1], li->block[2], li->smem, (uintptr_t)li->stream);
    fprintf(f,
            " \"args_file\": \"args.bin\",\n \"args_bytes\": %zu,\n"
            " \"params\": [",
            args_bytes);
    for (size_t i = 0; i < n; ++i) {
        fprintf(f, "%s\n  {\"offset\": %zu, \"size\": %zu", i ? "," : "",
                ps[i].offset, ps[i].size);
        if (ps[i].alloc >= 0)
            fprintf(f, ", \"pointer\": {\"allocation\": %d, \"offset\": %zu}",
                    ps[i].alloc, ps[i].alloc_offset);
        fputc('}', f);
    }
    fprintf(f, "\n ],\n \"allocations\": [");
    for (size_t k = 0; k < pend.num_allocs; ++k)
        fprintf(f,
                "%s\n  {\"base\": \"0x%llx\", \"bytes\": %zu, \"before\": "
                "\"alloc-%zu.before\", \"after\": \"alloc-%zu.after\"}",
                k ? "," : "", (unsigned long long)pend.allocs[k].base,
                pend.allocs[k].bytes, k, k);
    fprintf(f, "\n ]\n}\n");
    free(dm);
    return fclose(f) == 0 ? text : (free(text), NULL);
}

/* The checks that need no copy; a refusal's reason, or NULL. */
static const char *precheck(const launch_info *li, const char *name,
                            const module_image **m)
{
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    if (li->refused)
        return li->refused;
    if (!li->params)
        return "arguments passed through 'extra' "
               "(CU_LAUNCH_PARAM_BUFFER_POINTER): not captured";
    if (cuStreamIsCapturing(li->stream, &cs) == CUDA_SUCCESS &&
        cs != CU_STREAM_CAPTURE_STATUS_NONE)
        return "launched into a stream that is being captured into a CUDA "
               "graph: graphs are not captured";
    if (!(*m = module_of(name)))
        return "no loaded module image holds the kernel (CUPTI reported "
               "none)";
    return NULL;
}

static int write_inputs(const module_image *m, const void *args, size_t n)
{
    char name[64];
    if (write_file(pend.folder, "module.bin", m->bytes, m->size) ||
        write_file(pend.folder, "args.bin", args, n))
        return -1;
    for (size_t k = 0; k < pend.num_allocs; ++k) {
        snprintf(name, sizeof name, "alloc-%zu.before", k);
        if (dump_alloc(pend.folder, name, &pend.allocs[k]))
            return -1;
    }
    return 0;
}

static const char *limit_check(void)
{
    static char why[256];
    uint64_t total = 0;
    for (size_t k = 0; k < pend.num_allocs; ++k)
        total += pend.allocs[k].bytes;
    if (total <= cp.limit)
        return NULL;
    snprintf(why, sizeof why,
             "its argument allocations hold %" PRIu64 " bytes, beyond the "
             "limit of %" PRIu64 " bytes (--limit)",
             total, cp.limit);
    return why;
}

static void on_enter(const launch_info *li)
{
    static param_rec ps[KT_CAPT_MAX_PARAMS];
    const char *name = NULL, *why = NULL;
    const module_image *m = NULL;
    size_t n = 0, args_bytes = 0;
    uint64_t launch;
    void *args = NULL;

    if (cuFuncGetName(&name, li->f) != CUDA_SUCCESS || !name)
        return;
    launch = count_launch(name);
    if (!selected(name, launch) || cp.captures >= cp.max_captures)
        return;
    memset(&pend, 0, sizeof pend);
    if ((why = precheck(li, name, &m)))
        goto refused;
    /* What the launch reads is what the program left there. */
    if (cuCtxSynchronize() != CUDA_SUCCESS) {
        why = "the device failed before the launch";
        goto refused;
    }
    if (read_params(li, ps, &n, &args_bytes, &why) || (why = limit_check()))
        goto refused;
    if (make_folder(name, pend.folder, sizeof pend.folder) ||
        !(args = gather_args(li, ps, n, args_bytes)) ||
        write_inputs(m, args, args_bytes) ||
        !(pend.manifest = manifest(name, m, li, launch, ps, n, args_bytes))) {
        log_line("E", "cannot write the capture of", name,
                 pend.folder[0] ? pend.folder : cp.dir);
        free(args);
        return;
    }
    free(args);
    pend.active = 1;
    ++cp.captures;
    return;
refused:
    refuse(name, launch, why);
}

static void on_exit_launch(CUresult launched)
{
    char name[64], tmp[4200], final[4200];
    FILE *f;
    int ok = launched == CUDA_SUCCESS && cuCtxSynchronize() == CUDA_SUCCESS;

    for (size_t k = 0; ok && k < pend.num_allocs; ++k) {
        snprintf(name, sizeof name, "alloc-%zu.after", k);
        ok = dump_alloc(pend.folder, name, &pend.allocs[k]) == 0;
    }
    snprintf(tmp, sizeof tmp, "%s/capture.json.part", pend.folder);
    snprintf(final, sizeof final, "%s/capture.json", pend.folder);
    if (ok && (f = fopen(tmp, "wx"))) {
        ok = fputs(pend.manifest, f) >= 0;
        ok = fclose(f) == 0 && ok && rename(tmp, final) == 0;
    } else {
        ok = 0;
    }
    if (ok)
        log_line("C", pend.folder, "", NULL);
    else
        log_line("E",
                 launched == CUDA_SUCCESS ? "the launch failed or its output "
                                            "could not be written"
                                          : "the launch itself failed",
                 pend.folder, NULL);
    free(pend.manifest);
    pend.manifest = NULL;
    pend.active = 0;
}

/* ---- callbacks -------------------------------------------------------- */

static void from_ex(const cuLaunchKernelEx_params *p, launch_info *li)
{
    const CUlaunchConfig *c = p->config;
    li->f = p->f;
    li->params = p->kernelParams;
    li->extra = p->extra;
    li->grid[0] = c->gridDimX, li->grid[1] = c->gridDimY;
    li->grid[2] = c->gridDimZ;
    li->block[0] = c->blockDimX, li->block[1] = c->blockDimY;
    li->block[2] = c->blockDimZ;
    li->smem = c->sharedMemBytes;
    li->stream = c->hStream;
    for (unsigned i = 0; i < c->numAttrs; ++i) {
        const CUlaunchAttribute *a = &c->attrs[i];
        if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->value.cooperative)
            li->refused = "a cooperative launch: not captured (its grid "
                          "cannot be reshaped)";
        else if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
                 a->value.clusterDim.x * a->value.clusterDim.y *
                         a->value.clusterDim.z >
                     1)
            li->refused = "a thread-block-cluster launch: not captured";
    }
}

static int launch_of(CUpti_CallbackId cbid, const void *params, launch_info *li)
{
    memset(li, 0, sizeof *li);
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
        const cuLaunchKernel_params *p = params;
        *li = (launch_info){p->f,
                            {p->gridDimX, p->gridDimY, p->gridDimZ},
                            {p->blockDimX, p->blockDimY, p->blockDimZ},
                            p->sharedMemBytes,
                            p->hStream,
                            p->kernelParams,
                            p->extra,
                            NULL};
        return 1;
    }
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
        from_ex(params, li);
        return 1;
    }
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz) {
        const cuLaunchCooperativeKernel_params *p = params;
        li->f = p->f;
        li->refused = "a cooperative launch: not captured (its grid cannot "
                      "be reshaped)";
        return 1;
    }
    return 0;
}

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    launch_info li;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
        if (cd->callbackSite == CUPTI_API_ENTER)
            refuse("(graph)", 0,
                   "kernels launched through a CUDA graph (cuGraphLaunch) "
                   "are not captured");
        return;
    }
    if (!launch_of(cbid, cd->functionParams, &li))
        return;
    if (cd->callbackSite == CUPTI_API_ENTER)
        on_enter(&li);
    else if (pend.active)
        on_exit_launch(*(const CUresult *)cd->functionReturnValue);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (in_callback)
        return;
    in_callback = 1;
    pthread_mutex_lock(&cp.lock);
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = data;
        if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED)
            keep_module(rd->resourceDescriptor);
        else if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING)
            drop_module(rd->resourceDescriptor);
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        on_driver(cbid, data);
    }
    pthread_mutex_unlock(&cp.lock);
    in_callback = 0;
}

/* ---- set-up ----------------------------------------------------------- */

static int read_settings(void)
{
    const char *re = getenv("KTUNE_CAPTURE_KERNEL");
    const char *launch = getenv("KTUNE_CAPTURE_LAUNCH");
    const char *limit = getenv("KTUNE_CAPTURE_LIMIT");
    const char *max = getenv("KTUNE_CAPTURE_MAX");
    char path[4200];
    int fd;

    cp.want_launch = 1;
    if (launch && strcmp(launch, "all") == 0)
        cp.want_launch = 0;
    else if (launch && *launch)
        cp.want_launch = strtoull(launch, NULL, 10);
    cp.limit = limit && *limit ? strtoull(limit, NULL, 10) : (uint64_t)4 << 30;
    cp.max_captures = max && *max ? strtoull(max, NULL, 10) : 64;
    snprintf(path, sizeof path, "%s/capture-%ld.log", cp.dir, (long)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || !(cp.log = fdopen(fd, "w"))) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (re && *re) {
        if (regcomp(&cp.re, re, REG_EXTENDED | REG_NOSUB) != 0) {
            log_line("E", "--kernel is not an extended regular expression", re,
                     NULL);
            return -1;
        }
        cp.have_re = 1;
    }
    return 0;
}

static int enable(CUpti_CallbackDomain dom, CUpti_CallbackId id)
{
    CUptiResult r = cuptiEnableCallback(1, cp.sub, dom, id);
    const char *s = NULL;
    if (r == CUPTI_SUCCESS)
        return 0;
    cuptiGetResultString(r, &s);
    log_line("E", "cuptiEnableCallback", s ? s : "failed", NULL);
    return -1;
}

int InitializeInjection(void)
{
    static int initialised;
    static const CUpti_CallbackId launches[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};
    const char *dir = getenv("KTUNE_CAPTURE_DIR");
    CUptiResult r;

    if (initialised || !dir || !*dir)
        return 1;
    initialised = 1;
    snprintf(cp.dir, sizeof cp.dir, "%s", dir);
    if (read_settings() != 0)
        return 1;
    r = cuptiSubscribe(&cp.sub, on_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        const char *s = NULL;
        cuptiGetResultString(r, &s);
        log_line("E", "cuptiSubscribe", s ? s : "failed", NULL);
        return 1;
    }
    if (enable(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED) ||
        enable(CUPTI_CB_DOMAIN_RESOURCE,
               CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING))
        return 1;
    for (size_t i = 0; i < sizeof launches / sizeof launches[0]; ++i)
        if (enable(CUPTI_CB_DOMAIN_DRIVER_API, launches[i]))
            return 1;
    return 1;
}
