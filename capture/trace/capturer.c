// SPDX-License-Identifier: Apache-2.0
/*
 * libktune_capture.so: what `ktune capture` injects into a CUDA program
 * through CUDA_INJECTION64_PATH (as the timeline's tracer is). CUPTI's
 * resource callbacks hand it every module image the driver loads; its
 * runtime- and driver-API callbacks see every kernel launch (launches.h:
 * CUPTI reports a call only in the layer it was made in, so the runtime's
 * <<< >>> and cudaLaunchKernel are seen in the runtime domain, CuPy's
 * cuLaunchKernel in the driver's). For a launch selected by
 * KTUNE_CAPTURE_KERNEL (an extended regular expression over the mangled,
 * the demangled and the base name, match.h) and KTUNE_CAPTURE_LAUNCH (the
 * Nth such launch, or "all"), it waits for the device to be idle, reads
 * the parameters' offsets and sizes from the driver (cuFuncGetParamInfo),
 * finds the device allocation each 8-byte argument points into
 * (cuMemGetAddressRange), and writes the capture (capture/format.h) into a
 * new folder under KTUNE_CAPTURE_DIR: module, argument bytes, every
 * allocation before the launch; after the launch (the callback's exit)
 * the allocations again, then the manifest last, so a folder without
 * capture.json is a capture that did not finish.
 *
 * Launches it cannot capture are reported, never half-written: graphs,
 * stream capture, cooperative and cluster launches, arguments passed
 * through `extra`, managed or host memory, and allocations beyond
 * KTUNE_CAPTURE_LIMIT bytes. Each outcome is one line of
 * KTUNE_CAPTURE_DIR/capture-PID.log, which ktune reads:
 *   C <TAB> folder                                  a capture was written
 *   R <TAB> mangled name <TAB> launch <TAB> why     a launch was refused
 *   E <TAB> what failed
 *   K <TAB> mangled name <TAB> callback             a kernel's first launch
 *   N <TAB> mangled name <TAB> launches <TAB> name matched (0/1)   at exit
 * so that a run that matched nothing says what it saw.
 *
 * It writes nothing outside that folder and leaves signals and the exit
 * status alone. It prints nothing on the program's streams unless
 * KTUNE_CAPTURE_VERBOSE=1 (ktune capture --verbose): then every launch
 * callback, with its kernel's names, its geometry and why it was or was
 * not taken, is a line on stderr. Links CUPTI and the driver only:
 * nothing of ktune (docs/hacking.md, Layers).
 */
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launches.h"
#include "match.h"

#define KT_CAPT_MAX_PARAMS 4096
#define KT_CAPT_MAX_ALLOCS 256
#define KT_CAPT_CHUNK ((size_t)64 << 20)

__attribute__((visibility("default"))) int InitializeInjection(void);

typedef struct module_image {
    uint32_t id;
    size_t size;
    char *bytes;  /* a copy: CUPTI's is valid during the callback only */
    CUmodule own; /* our own load of it, for a function handle by name */
} module_image;

typedef struct kernel_count {
    char *name;
    kt_cap_names names; /* made once, at its first launch */
    uint64_t launches;
    int name_hit;
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
    int have_re, verbose;
    const char *re_text, *launch_text;
    uint64_t want_launch; /* 0: all */
    uint64_t limit, max_captures, captures;
    module_image *mods;
    size_t num_mods;
    kernel_count *counts;
    size_t num_counts;
    CUpti_SubscriberHandle sub;
    pid_t pid;
} cp = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};

static __thread int in_callback;
static __thread int own_loading;  /* our own cuModuleLoadData is running */
static __thread int launch_depth; /* launch calls entered, not left */
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

/* --verbose: one line on stderr. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    va_list ap;
    if (!cp.verbose)
        return;
    fprintf(stderr, "ktune capture [%ld]: ", (long)getpid());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void refuse(const char *name, uint64_t launch, const char *why)
{
    char n[32];
    snprintf(n, sizeof n, "%" PRIu64, launch);
    log_line("R", name, n, why);
    say("  not captured: %s", why);
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

/* name's count, made at its first launch (logged with the callback that
 * launched it); NULL when out of memory. */
static kernel_count *count_of(const char *name, const char *via)
{
    kernel_count *grown;
    for (size_t i = 0; i < cp.num_counts; ++i)
        if (strcmp(cp.counts[i].name, name) == 0)
            return &cp.counts[i];
    grown = realloc(cp.counts, (cp.num_counts + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    cp.counts = grown;
    memset(&grown[cp.num_counts], 0, sizeof grown[cp.num_counts]);
    if (!(grown[cp.num_counts].name = strdup(name)))
        return NULL;
    if (kt_cap_names_make(grown[cp.num_counts].name,
                          &grown[cp.num_counts].names)) {
        free(grown[cp.num_counts].name);
        return NULL;
    }
    log_line("K", name, via, NULL);
    return &cp.counts[cp.num_counts++];
}

/* At exit: every kernel's launches, so that ktune can say what a run that
 * matched nothing launched. Skipped when another thread holds the lock
 * (the program exits from inside a launch). */
static void write_totals(void)
{
    char n[32];
    /* A child forked without exec has our log but not our launches. */
    if (getpid() != cp.pid || pthread_mutex_trylock(&cp.lock) != 0)
        return;
    for (size_t i = 0; i < cp.num_counts; ++i) {
        snprintf(n, sizeof n, "%" PRIu64, cp.counts[i].launches);
        log_line("N", cp.counts[i].name, n, cp.counts[i].name_hit ? "1" : "0");
    }
    say("the program ends: %zu kernel(s) launched, %" PRIu64 " captured",
        cp.num_counts, cp.captures);
    pthread_mutex_unlock(&cp.lock);
}

/* ---- modules ---------------------------------------------------------- */

static void keep_module(const CUpti_ModuleResourceData *m)
{
    module_image *grown;
    if (own_loading || !m->pCubin || m->cubinSize == 0)
        return;
    grown = realloc(cp.mods, (cp.num_mods + 1) * sizeof *grown);
    if (!grown)
        return;
    cp.mods = grown;
    memset(&grown[cp.num_mods], 0, sizeof grown[cp.num_mods]);
    grown[cp.num_mods].bytes = malloc(m->cubinSize);
    if (!grown[cp.num_mods].bytes)
        return;
    memcpy(grown[cp.num_mods].bytes, m->pCubin, m->cubinSize);
    grown[cp.num_mods].size = m->cubinSize;
    grown[cp.num_mods].id = m->moduleId;
    cp.num_mods++;
    say("module %u loaded (%zu bytes)", m->moduleId, m->cubinSize);
}

/* Our own load of a module stays until the process ends: unloading it
 * inside the program's unload callback is not safe. */
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
static module_image *module_of(const char *name)
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

typedef kt_cap_launch launch_info;

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
        if (!li->params) {
            *why = "the launch passes no argument array, though the kernel "
                   "has parameters";
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
static char *manifest(const kernel_count *k, const module_image *m,
                      const launch_info *li, const param_rec *ps, size_t n,
                      size_t args_bytes)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f, "{\n \"format\": \"ktune-capture\",\n \"version\": 1,\n");
    fprintf(f, " \"kernel\": {\"mangled\": ");
    put_json(f, k->name);
    fprintf(f, ", \"demangled\": ");
    put_json(f, k->names.demangled);
    fprintf(f,
            "},\n \"module\": {\"file\": \"module.bin\", \"kind\": \"%s\", "
            "\"bytes\": %zu},\n",
            module_kind(m), m->size);
    device_json(f);
    fprintf(f,
            " \"launch\": {\"index\": %" PRIu64 ", \"grid\": [%u, %u, %u], "
            "\"block\": [%u, %u, %u], \"dynamic_smem\": %u, \"stream\": "
            "\"0x%" PRIxPTR "\"},\n",
            k->launches, li->grid[0], li->grid[1], li->grid[2], li->block[0],
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
    for (size_t a = 0; a < pend.num_allocs; ++a)
        fprintf(f,
                "%s\n  {\"base\": \"0x%llx\", \"bytes\": %zu, \"before\": "
                "\"alloc-%zu.before\", \"after\": \"alloc-%zu.after\"}",
                a ? "," : "", (unsigned long long)pend.allocs[a].base,
                pend.allocs[a].bytes, a, a);
    fprintf(f, "\n ]\n}\n");
    return fclose(f) == 0 ? text : (free(text), NULL);
}

/* ---- the launch's function handle ------------------------------------ */

typedef cudaError_t (*getfunc_fn)(cudaFunction_t *, const void *);
typedef cudaError_t (*lasterror_fn)(void);

/* The program's shared runtime, when it uses one (a static one is out of
 * reach: its symbols are not exported): cudaGetFuncBySymbol and the two
 * calls that read its per-thread last error. */
typedef struct runtime_calls {
    getfunc_fn getfunc;
    lasterror_fn peek, get;
} runtime_calls;

static void *runtime_sym(void *h, const char *name)
{
    return h ? dlsym(h, name) : dlsym(RTLD_DEFAULT, name);
}

static const runtime_calls *runtime_of_program(void)
{
    static const char *const libs[] = {NULL, "libcudart.so.13",
                                       "libcudart.so.12", "libcudart.so"};
    static runtime_calls rt;
    static int looked;
    if (looked)
        return rt.getfunc && rt.peek && rt.get ? &rt : NULL;
    looked = 1;
    for (size_t i = 0; !rt.getfunc && i < sizeof libs / sizeof libs[0]; ++i) {
        void *h = libs[i] ? dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (libs[i] && !h)
            continue;
        *(void **)&rt.getfunc = runtime_sym(h, "cudaGetFuncBySymbol");
        *(void **)&rt.peek = runtime_sym(h, "cudaPeekAtLastError");
        *(void **)&rt.get = runtime_sym(h, "cudaGetLastError");
    }
    return rt.getfunc && rt.peek && rt.get ? &rt : NULL;
}

/* The host stub's function through the program's runtime, leaving the
 * program's last error as it was: a runtime call that fails sets the
 * calling thread's last error, which the program would read as its own
 * (cudaGetLastError after a launch). So it is made only while no error
 * is pending, and its own failure is taken back. */
static int runtime_handle(launch_info *li)
{
    const runtime_calls *rt = runtime_of_program();
    cudaError_t e;
    if (!li->stub || !rt || rt->peek() != cudaSuccess)
        return 0;
    e = rt->getfunc((cudaFunction_t *)&li->f, li->stub);
    if (e != cudaSuccess) {
        rt->get();
        li->f = NULL;
        return 0;
    }
    li->how = "the runtime's cudaGetFuncBySymbol";
    return 1;
}

/* name's function in our own load of m: a handle for the parameter info
 * when the program's own is out of reach. */
static CUfunction by_name(module_image *m, const char *name)
{
    CUfunction f = NULL;
    if (!m->own) {
        CUresult r;
        own_loading = 1;
        r = cuModuleLoadData(&m->own, m->bytes);
        own_loading = 0;
        if (r != CUDA_SUCCESS) {
            m->own = NULL;
            return NULL;
        }
    }
    return cuModuleGetFunction(&f, m->own, name) == CUDA_SUCCESS ? f : NULL;
}

/* The program's own handle of the launch's function through the driver
 * alone: the driver call's, or the runtime launch's kernel handle. Says
 * how, or NULL. */
static const char *own_handle(launch_info *li)
{
    if (li->f)
        return "the driver call";
    if (li->kernel && cuKernelGetFunction(&li->f, li->kernel) == CUDA_SUCCESS)
        return "cuKernelGetFunction";
    li->f = NULL;
    return NULL;
}

/* The launch's CUfunction and its module image; a refusal's reason, or
 * NULL. */
static const char *resolve(launch_info *li, const char *name, module_image **m)
{
    const char *how = li->how;
    *m = module_of(name);
    if (!li->f && *m) {
        how = "its module image, loaded again";
        li->f = by_name(*m, name);
    }
    /* Last, the runtime: under lazy loading it loads the module, whose
     * resource callback comes in nested and is kept. */
    if ((!li->f || !*m) && runtime_handle(li)) {
        how = li->how;
        *m = module_of(name);
    }
    if (!*m)
        return "no loaded module image holds the kernel (CUPTI reported "
               "none; under lazy loading a module the runtime has not "
               "loaded yet: try --launch 2 or CUDA_MODULE_LOADING=EAGER)";
    if (!li->f)
        return "the kernel's function handle is out of reach (not from the "
               "runtime, not in its module image)";
    say("  function handle from %s; module image %u, %zu bytes", how, (*m)->id,
        (*m)->size);
    return NULL;
}

/* Whether the callback's parameters read as a launch: a runtime launch's
 * handle names the kernel CUPTI names, and its geometry is one the
 * driver would take. Guards the structure of __cudaLaunchKernel's
 * parameters, which CUPTI's headers do not publish (launches.c). */
static const char *sane(const launch_info *li, const kernel_count *k)
{
    uint64_t threads = (uint64_t)li->block[0] * li->block[1] * li->block[2];
    if (li->runtime && li->symbol && *li->symbol &&
        strcmp(li->symbol, k->name) != 0 &&
        strcmp(li->symbol, k->names.demangled) != 0)
        return "the launch's kernel handle names another kernel than CUPTI "
               "does: its parameters are not read as CUPTI wrote them";
    if (!li->grid[0] || !li->grid[1] || !li->grid[2] || threads == 0 ||
        threads > 1024)
        return "the launch's grid or block reads as no valid launch: its "
               "parameters are not read as CUPTI wrote them";
    return NULL;
}

/* The checks that need no copy; a refusal's reason, or NULL. */
static const char *precheck(launch_info *li, const kernel_count *k,
                            module_image **m)
{
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    const char *name = k->name, *why;
    if (li->refused)
        return li->refused;
    if ((why = sane(li, k)))
        return why;
    if (!li->params && li->extra)
        return "arguments passed through 'extra' "
               "(CU_LAUNCH_PARAM_BUFFER_POINTER): not captured";
    if (cuStreamIsCapturing(li->stream, &cs) == CUDA_SUCCESS &&
        cs != CU_STREAM_CAPTURE_STATUS_NONE)
        return "launched into a stream that is being captured into a CUDA "
               "graph: graphs are not captured";
    return resolve(li, name, m);
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

/* Whether this launch of k is taken; says why with --verbose. */
static int take(const launch_info *li, kernel_count *k, const char *via)
{
    kt_cap_want w = {cp.have_re ? &cp.re : NULL, cp.re_text, cp.want_launch,
                     cp.max_captures, cp.captures};
    char why[1024];
    int hit,
        yes = kt_cap_decide(&w, &k->names, k->launches, &hit, why, sizeof why);
    k->name_hit |= hit;
    say("%s: %s%s%s, grid %ux%ux%u, block %ux%ux%u, %u bytes of dynamic "
        "shared memory: %s",
        via, k->name, strcmp(k->names.demangled, k->name) ? " = " : "",
        strcmp(k->names.demangled, k->name) ? k->names.demangled : "",
        li->grid[0], li->grid[1], li->grid[2], li->block[0], li->block[1],
        li->block[2], li->smem, why);
    return yes;
}

/* The launch's kernel name: the driver's for the program's handle (the
 * mangled name the module holds), else CUPTI's. */
static const char *name_of(launch_info *li)
{
    const char *name = NULL;
    if ((li->how = own_handle(li)) &&
        cuFuncGetName(&name, li->f) == CUDA_SUCCESS && name)
        return name;
    if (li->symbol && *li->symbol)
        return li->symbol;
    if (runtime_handle(li) && cuFuncGetName(&name, li->f) == CUDA_SUCCESS &&
        name)
        return name;
    return "(a kernel without a name)";
}

static void on_enter(launch_info *li, const char *via)
{
    static param_rec ps[KT_CAPT_MAX_PARAMS];
    const char *name = name_of(li), *why = NULL;
    module_image *m = NULL;
    size_t n = 0, args_bytes = 0;
    kernel_count *k;
    void *args = NULL;

    if (!(k = count_of(name, via)))
        return;
    ++k->launches;
    if (!take(li, k, via))
        return;
    memset(&pend, 0, sizeof pend);
    if ((why = precheck(li, k, &m)))
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
        !(pend.manifest = manifest(k, m, li, ps, n, args_bytes))) {
        log_line("E", "cannot write the capture of", name,
                 pend.folder[0] ? pend.folder : cp.dir);
        say("  cannot write the capture into %s",
            pend.folder[0] ? pend.folder : cp.dir);
        free(args);
        return;
    }
    free(args);
    pend.active = 1;
    ++cp.captures;
    say("  capturing into %s", pend.folder);
    return;
refused:
    refuse(name, k->launches, why);
}

static void on_exit_launch(int launched)
{
    char name[64], tmp[4200], final[4200];
    FILE *f;
    int ok = launched == 0 && cuCtxSynchronize() == CUDA_SUCCESS;

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
                 launched == 0 ? "the launch failed or its output could "
                                 "not be written"
                               : "the launch itself failed",
                 pend.folder, NULL);
    say("  %s: %s", pend.folder, ok ? "captured" : "NOT captured");
    free(pend.manifest);
    pend.manifest = NULL;
    pend.active = 0;
}

/* ---- callbacks -------------------------------------------------------- */

/* "runtime __cudaLaunchKernel_v13000 (505)" */
static void describe_cb(CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                        char *out, size_t size)
{
    const char *name = NULL;
    if (cuptiGetCallbackName(dom, cbid, &name) != CUPTI_SUCCESS || !name)
        name = "?";
    snprintf(out, size, "%s %s (%u)",
             dom == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver", name,
             (unsigned)cbid);
}

/* A runtime callback's thread may have no current context at its entry
 * (the runtime sets it inside the call): CUPTI's is pushed for our own
 * calls. 1 when pushed. */
static int with_context(const CUpti_CallbackData *cd)
{
    CUcontext cur = NULL;
    return cuCtxGetCurrent(&cur) == CUDA_SUCCESS && !cur && cd->context &&
           cuCtxPushCurrent(cd->context) == CUDA_SUCCESS;
}

static void on_launch_cb(CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                         const CUpti_CallbackData *cd)
{
    launch_info li;
    char via[160];
    int enter = cd->callbackSite == CUPTI_API_ENTER, pushed;
    CUcontext popped;

    if (!kt_cap_launch_of(dom, cbid, cd->functionParams, &li))
        return;
    describe_cb(dom, cbid, via, sizeof via);
    /* A launch callback inside another one is the same launch (the
     * runtime's own driver call, were CUPTI to report it): counted once,
     * by the outer one. An exit whose entry came before CUPTI was on
     * finds the depth at 0. */
    if (enter && launch_depth++ > 0) {
        say("%s inside another launch call: counted there", via);
        return;
    }
    if (!enter && (launch_depth == 0 || --launch_depth > 0))
        return;
    pushed = with_context(cd);
    if (li.graph && enter)
        refuse("(graph)", 0,
               "kernels launched through a CUDA graph (cudaGraphLaunch, "
               "cuGraphLaunch) are not captured");
    else if (!li.graph && enter) {
        li.symbol = cd->symbolName;
        on_enter(&li, via);
    } else if (!li.graph && pend.active)
        on_exit_launch(*(const int *)cd->functionReturnValue);
    if (pushed)
        cuCtxPopCurrent(&popped);
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED)
        keep_module(rd->resourceDescriptor);
    else if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING)
        drop_module(rd->resourceDescriptor);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    /* A module load comes in nested too: resolving a launch's function
     * may make the driver load it (lazy loading). */
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        pthread_mutex_lock(&cp.lock);
        on_resource(cbid, data);
        pthread_mutex_unlock(&cp.lock);
        return;
    }
    if (in_callback)
        return;
    in_callback = 1;
    pthread_mutex_lock(&cp.lock);
    on_launch_cb(domain, cbid, data);
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
    const char *verbose = getenv("KTUNE_CAPTURE_VERBOSE");
    char path[4200];
    int fd;

    cp.verbose = verbose && strcmp(verbose, "1") == 0;
    cp.want_launch = 1;
    cp.launch_text = launch && *launch ? launch : "1";
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
        cp.re_text = re;
    }
    return 0;
}

/* One callback on; a failure is logged and the others stay on. */
static int enable(CUpti_CallbackDomain dom, CUpti_CallbackId id)
{
    CUptiResult r = cuptiEnableCallback(1, cp.sub, dom, id);
    const char *s = NULL;
    char via[160];
    if (r == CUPTI_SUCCESS)
        return 0;
    cuptiGetResultString(r, &s);
    describe_cb(dom, id, via, sizeof via);
    log_line("E", "cuptiEnableCallback", via, s ? s : "failed");
    say("cuptiEnableCallback(%s): %s", via, s ? s : "failed");
    return -1;
}

static void enable_all(void)
{
    int on = 0;
    uint32_t version = 0;
    if (enable(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED) ||
        enable(CUPTI_CB_DOMAIN_RESOURCE,
               CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING))
        say("module images will be missing: launches cannot be captured");
    for (size_t i = 0; i < kt_cap_num_callbacks; ++i)
        on += enable(kt_cap_callbacks[i].domain, kt_cap_callbacks[i].id) == 0;
    cuptiGetVersion(&version);
    say("injected (CUPTI API version %u): %d of %zu runtime and driver launch "
        "callbacks on; --kernel %s, --launch %s, --limit %" PRIu64
        ", --max %" PRIu64,
        version, on, kt_cap_num_callbacks, cp.re_text ? cp.re_text : "(any)",
        cp.launch_text, cp.limit, cp.max_captures);
}

int InitializeInjection(void)
{
    static int initialised;
    const char *dir = getenv("KTUNE_CAPTURE_DIR");
    CUptiResult r;

    if (initialised || !dir || !*dir)
        return 1;
    initialised = 1;
    snprintf(cp.dir, sizeof cp.dir, "%s", dir);
    cp.pid = getpid();
    if (read_settings() != 0)
        return 1;
    r = cuptiSubscribe(&cp.sub, on_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        const char *s = NULL;
        cuptiGetResultString(r, &s);
        log_line("E", "cuptiSubscribe", s ? s : "failed", NULL);
        say("cuptiSubscribe: %s", s ? s : "failed");
        return 1;
    }
    enable_all();
    atexit(write_totals);
    return 1;
}
