// SPDX-License-Identifier: Apache-2.0
/*
 * The code key (engine/nvrtc.h, kt_nvrtc_prepare): what NVRTC's front end
 * makes of a request. A -D or -U option reaches the preprocessor only, so
 * two requests that differ in those alone and give the same front-end
 * output (the NVVM IR, line information included) are the same kernel:
 * everything after the front end (the NVVM optimiser, ptxas) reads that IR
 * and the other options, nothing else. A tuning parameter the source never
 * reads (the hub convolution's use_shmem: 4,362 points, 2,746 kernels) or
 * one that selects the same code costs one compile, not one per value.
 *
 * The front end runs with -dlto, which stops after the IR (NVRTC's
 * LTO IR, ~15 ms of the convolution's ~1.3 s) and hands it back; -dlto
 * also defines __CUDACC_RDC__, which the real compile does not, so the
 * front end runs with it undefined again: the preprocessor sees what the
 * real compile's sees. The IR is hashed with the request's other
 * options, never the -D/-U ones, into a second key of the same cache.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvrtc.h>

#include "core/hash.h"
#include "core/settings.h"
#include "engine/nvrtc_code.h"

int kt_nvrtc_share_on(void)
{
    kt_settings set;

    kt_settings_read(&set);
    return !(set.ktune_nvrtc_share &&
             strcmp(set.ktune_nvrtc_share, "off") == 0);
}

int kt_nvrtc_preprocessor_option(const char *opt)
{
    /* "-D NAME" in two options is not recognised: both stay in the code
     * key, which only costs sharing. */
    return (opt[0] == '-' && (opt[1] == 'D' || opt[1] == 'U') && opt[2]) ||
           strncmp(opt, "--define-macro=", 15) == 0 ||
           strncmp(opt, "--undefine-macro=", 17) == 0;
}

/* The IR of prog into fp; "" when NVRTC gives none. */
static void ir_hash(nvrtcProgram prog, char fp[33])
{
    size_t size = 0;
    char *ir;

    fp[0] = '\0';
    if (nvrtcGetLTOIRSize(prog, &size) != NVRTC_SUCCESS || size == 0 ||
        !(ir = malloc(size)))
        return;
    if (nvrtcGetLTOIR(prog, ir) == NVRTC_SUCCESS)
        kt_hash_hex128(ir, size, fp);
    free(ir);
}

/* NVRTC 12.9 and later keep a cache of their own in the driver's compute
 * cache (~/.nv/ComputeCache), shared by every process of the user and
 * invisible to the caller: a hit there comes back as a compile of a few
 * milliseconds. ktune's own cache (engine/nvrtc.c) is the one it counts,
 * keys and can switch off; with NVRTC's underneath, "cache off" and a
 * fresh cache folder still reuse an earlier run's kernels and the compile
 * times reported are not compile times. So every compile asks NVRTC for
 * none, where its NVRTC knows the option (probed once: an older one
 * refuses it as an invalid option; mutable: set by that probe). */
/* The toolkit's one-time probes, in one record: no_cache (this probe's),
 * and option, once and builtins_once (the CCCL folder's and load_builtins',
 * below). */
static struct {
    pthread_once_t once, builtins_once, no_cache_once;
    char option[PATH_MAX + 32];
    const char *no_cache; /* "-no-cache", or NULL: NVRTC does not know it */
} g_toolkit = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, "",
               NULL};

static void probe_no_cache(void)
{
    static const char src[] = "extern \"C\" __global__ void k(void) {}\n";
    const char *opts[] = {"-no-cache"};
    nvrtcProgram prog = NULL;

    if (nvrtcCreateProgram(&prog, src, "probe.cu", 0, NULL, NULL) !=
        NVRTC_SUCCESS)
        return;
    if (nvrtcCompileProgram(prog, 1, opts) == NVRTC_SUCCESS)
        g_toolkit.no_cache = opts[0];
    nvrtcDestroyProgram(&prog);
}

const char *kt_nvrtc_no_cache_option(void)
{
    pthread_once(&g_toolkit.no_cache_once, probe_no_cache);
    return g_toolkit.no_cache;
}

/* NVRTC has the CUDA runtime's headers built in, but not the toolkit's
 * C++ libraries (CUB, Thrust, libcu++: CCCL), which nvcc and CuPy put on
 * the include path; a kernel that includes CUB's block primitives
 * (`#include <cub/block/block_reduce.cuh>`) would not compile here. The folder
 * taken is the one of the toolkit whose NVRTC this process loaded, so its
 * headers match the compiler (and change with NVRTC's version, which every key
 * holds); without one beside it (NVRTC from a pip wheel), CUDA_HOME, CUDA_PATH,
 * then /usr/local/cuda. A folder counts when it holds cub/cub.cuh:
 * include/cccl since CUDA 13, include itself before. Probed once per
 * process (mutable: set by that probe); builtins_once is load_builtins'
 * once (below), kept here as both are the toolkit's one-time set-up. */
/* (g_toolkit: above, with the no-cache probe's.) */

/* 1 and the option set when root/include holds CCCL. */
static int toolkit_at(const char *root)
{
    static const char *const subs[] = {"/include/cccl", "/include"};
    char dir[PATH_MAX], probe[PATH_MAX + 32];

    for (size_t i = 0; root && *root && i < 2; ++i) {
        int n = snprintf(dir, sizeof dir, "%s%s", root, subs[i]);
        if (n < 0 || (size_t)n >= sizeof dir)
            return 0;
        snprintf(probe, sizeof probe, "%s/cub/cub.cuh", dir);
        if (access(probe, R_OK) == 0) {
            snprintf(g_toolkit.option, sizeof g_toolkit.option,
                     "--include-path=%s", dir);
            return 1;
        }
    }
    return 0;
}

/* The toolkit folder above the loaded libnvrtc (lib, lib64 or
 * targets/ARCH/lib, resolved through links), into root. */
static int nvrtc_root(char *root, size_t size)
{
    Dl_info info;
    char real[PATH_MAX], *slash;

    if (!dladdr((void *)&nvrtcVersion, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, real) || !(slash = strrchr(real, '/')))
        return 0;
    *slash = '\0'; /* the library's folder */
    if (!(slash = strrchr(real, '/')))
        return 0;
    *slash = '\0';
    return snprintf(root, size, "%s", real) < (int)size;
}

static void probe_toolkit(void)
{
    char root[PATH_MAX];

    if (nvrtc_root(root, sizeof root) && toolkit_at(root))
        return;
    kt_settings set;

    kt_settings_read(&set);
    if (!toolkit_at(set.cuda_home) && !toolkit_at(set.cuda_path))
        (void)toolkit_at("/usr/local/cuda");
}

/* NVRTC loads its builtins library (libnvrtc-builtins.so.MAJOR.MINOR) with
 * dlopen by name: found only through LD_LIBRARY_PATH or the loader cache,
 * never beside libnvrtc itself, which ktune found by RUNPATH. On a host
 * whose CUDA folder is in neither (a runfile install) every compile would
 * fail with NVRTC_ERROR_BUILTIN_OPERATION_FAILURE. Loaded here from
 * libnvrtc's own folder first, NVRTC's dlopen by name then finds it loaded
 * (by its soname). Never closed: NVRTC holds it for the process's life.
 * When it is not there, NVRTC's own search applies, and says so. */
static void load_builtins(void)
{
    Dl_info info;
    char real[PATH_MAX], path[PATH_MAX + 64], *slash;
    int major = 0, minor = 0;

    if (!dladdr((void *)&nvrtcVersion, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, real) || !(slash = strrchr(real, '/')) ||
        nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return;
    *slash = '\0';
    snprintf(path, sizeof path, "%s/libnvrtc-builtins.so.%d.%d", real, major,
             minor);
    if (access(path, R_OK) == 0 && !dlopen(path, RTLD_NOW | RTLD_GLOBAL))
        (void)dlerror(); /* NVRTC's own search then decides, and reports */
}

const char *kt_nvrtc_toolkit_option(void)
{
    pthread_once(&g_toolkit.builtins_once, load_builtins);
    pthread_once(&g_toolkit.once, probe_toolkit);
    return g_toolkit.option[0] ? g_toolkit.option : NULL;
}

const char **kt_nvrtc_options(const kt_nvrtc_request *req, size_t extra,
                              char arch[64], int *n)
{
    const char *no_cache = kt_nvrtc_no_cache_option();
    const char *toolkit = kt_nvrtc_toolkit_option();
    const char **opts = calloc(req->num_options + 4 + extra, sizeof *opts);

    *n = 0;
    if (!opts)
        return NULL;
    snprintf(arch, 64, "--gpu-architecture=%s", req->arch);
    opts[(*n)++] = arch;
    opts[(*n)++] = "-lineinfo"; /* source lines for the profiler; no cost */
    if (no_cache)
        opts[(*n)++] = no_cache;
    for (size_t i = 0; i < req->num_options; ++i)
        opts[(*n)++] = req->options[i];
    /* Last: a folder of the request's own (-I) is searched first. */
    if (toolkit)
        opts[(*n)++] = toolkit;
    return opts;
}

kt_status kt_nvrtc_front_end(const kt_nvrtc_request *req, char fp[33],
                             kt_err *err)
{
    nvrtcProgram prog = NULL;
    char arch[64];
    int n;
    const char **opts = kt_nvrtc_options(req, 2, arch, &n);

    fp[0] = '\0';
    if (!opts)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    opts[n++] = "-dlto";
    opts[n++] = "-U__CUDACC_RDC__";
    /* A source that does not compile, or an NVRTC without LTO IR: no
     * code key, so the real compile runs (and reports). */
    if (nvrtcCreateProgram(&prog, req->source, req->source_name, 0, NULL,
                           NULL) == NVRTC_SUCCESS &&
        nvrtcAddNameExpression(prog, req->name_expr) == NVRTC_SUCCESS &&
        nvrtcCompileProgram(prog, n, opts) == NVRTC_SUCCESS)
        ir_hash(prog, fp);
    if (prog)
        nvrtcDestroyProgram(&prog);
    free(opts);
    return KT_S_OK;
}
