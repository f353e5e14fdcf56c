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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvrtc.h>

#include "core/hash.h"
#include "engine/nvrtc_code.h"

int kt_nvrtc_share_on(void)
{
    const char *v = getenv("KTUNE_NVRTC_SHARE");
    return !(v && strcmp(v, "off") == 0);
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
 * refuses it as an invalid option). */
static const char *g_no_cache;
static pthread_once_t g_no_cache_once = PTHREAD_ONCE_INIT;

static void probe_no_cache(void)
{
    static const char src[] = "extern \"C\" __global__ void k(void) {}\n";
    const char *opts[] = {"-no-cache"};
    nvrtcProgram prog = NULL;

    if (nvrtcCreateProgram(&prog, src, "probe.cu", 0, NULL, NULL) !=
        NVRTC_SUCCESS)
        return;
    if (nvrtcCompileProgram(prog, 1, opts) == NVRTC_SUCCESS)
        g_no_cache = opts[0];
    nvrtcDestroyProgram(&prog);
}

const char *kt_nvrtc_no_cache_option(void)
{
    pthread_once(&g_no_cache_once, probe_no_cache);
    return g_no_cache;
}

const char **kt_nvrtc_options(const kt_nvrtc_request *req, size_t extra,
                              char arch[64], int *n)
{
    const char *no_cache = kt_nvrtc_no_cache_option();
    const char **opts = calloc(req->num_options + 3 + extra, sizeof *opts);

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
