// SPDX-License-Identifier: Apache-2.0
/*
 * kt_nvrtc: CUDA source compiled at run time with NVRTC, cached on disk, and
 * loaded through the CUDA runtime's library API (cudaLibraryLoadData), so
 * ktune still links only libcudart and libnvrtc, never libcuda.
 *
 * One compilation is one kernel: a name expression ("tile<32, 1>", template
 * arguments and all) in a source with options (-D macros, the
 * architecture). Compiling needs no GPU (NVRTC runs on the CPU); loading
 * does. The disk cache is keyed by a hash of everything that decides the
 * binary: source, options, name expression, architecture, the NVRTC
 * version and the content of every header the source includes (found as
 * NVRTC's preprocessor finds them: the source's folder, then -I); an entry also
 * holds that identity in full, so a hash collision is a miss, never the wrong
 * kernel. Failed compilations are cached too (with their log), so a cached run
 * compiles nothing at all.
 *
 * Cache folder: nvrtc/ in ktune's cache folder (core/cachedir.h: private,
 * entries checked and hashed before a module is loaded from one).
 * KTUNE_NVRTC_CACHE=off disables it.
 */
#ifndef KT_NVRTC_H
#define KT_NVRTC_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/evaluator.h" /* KT_COMPILE_FAILED */

typedef struct kt_nvrtc_request {
    const char *source;         /* CUDA C++ text */
    const char *source_name;    /* for the compiler's messages: "kernel.cu" */
    const char *name_expr;      /* the kernel: "k" or "k<32, 1>" */
    const char *arch;           /* "sm_90" (cubin) or "compute_90" (PTX) */
    const char *const *options; /* extra options, e.g. "-DTILE=32" */
    size_t num_options;
} kt_nvrtc_request;

typedef struct kt_nvrtc_output {
    int compiled; /* 0: the source did not compile; see log */
    char *image;  /* cubin (sm_) or PTX (compute_); owned */
    size_t image_size;
    char *lowered;      /* the kernel's mangled name; owned */
    char *log;          /* the compiler's log, "" when silent; owned */
    double seconds;     /* wall time compiling; 0 when read from the cache */
    double cpu_seconds; /* CPU time of the compiling thread; 0 cached */
    int cached;         /* 1: read from the disk cache */
    int damaged;        /* 1: its cache entry was damaged (so compiled) */
    int shared;         /* 1: another request's compile of the same code */
    char key[33];       /* the cache key, 32 hex digits */
    char code[33];      /* the code key (kt_nvrtc_prepare); "" none */
    char ir[33];        /* the hash of the front end's IR behind code */
} kt_nvrtc_output;

/* Compiles (or reads from the cache). KT_S_OK with out->compiled telling
 * whether the source compiled; anything else is NVRTC itself failing
 * (KT_S_UNSUPPORTED: no usable NVRTC). Free out with
 * kt_nvrtc_output_free() either way. */
kt_status kt_nvrtc_compile(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                           kt_err *err);

void kt_nvrtc_output_free(kt_nvrtc_output *out);

/* The cache key of req (32 hex digits + NUL into key): a hash of its
 * identity, which names every header the source includes, with the hash
 * of its content, so a changed header is a new key. */
kt_status kt_nvrtc_key(const kt_nvrtc_request *req, char key[33], kt_err *err);

/* The headers req's compile reads, as NVRTC's preprocessor finds them
 * (engine/nvrtc_headers.c): one line "header PATH HASH" each, in the order
 * met, into *text (malloc'ed; NULL when there are none). KT_S_NOMEM is
 * the only failure: a header that cannot be read is no header. */
kt_status kt_nvrtc_headers(const kt_nvrtc_request *req, char **text,
                           kt_err *err);

/* NVRTC's version, e.g. 13 and 0. */
kt_status kt_nvrtc_version(int *major, int *minor, kt_err *err);

/* The real architecture of compute capability major.minor: "sm_90". */
void kt_nvrtc_arch(int major, int minor, char *out, size_t out_size);

/* The largest cache entry read (bytes). */
#define KT_NVRTC_ENTRY_MAX ((size_t)1 << 30)

/* The cache folder (not created nor checked); "" when the cache is off or
 * has no root (core/cachedir.h). */
void kt_nvrtc_cache_dir(char *out, size_t out_size);

/* The cache folder made and checked private into out ("" when the cache is
 * off); KT_S_INPUT naming why a folder is refused. */
kt_status kt_nvrtc_cache_open(char *out, size_t out_size, kt_err *err);

/* The first line of the log that says "error", for one-line messages,
 * with what to do where the log says host code of CUB or Thrust was met
 * (JIT mode). */
void kt_nvrtc_first_error(const char *log, char *out, size_t out_size);

/* What this process compiled so far: the evaluator takes the difference
 * around each point's verification to record its compile time. */
typedef struct kt_nvrtc_stats {
    size_t compiled;    /* NVRTC runs (successful or not) */
    size_t cache_hits;  /* answers from the disk cache */
    size_t failed;      /* sources that did not compile (fresh or cached) */
    size_t damaged;     /* damaged cache entries met (compiled again) */
    size_t shared;      /* answers of another request's compile (the same
                           code key): a front end, no compile */
    double seconds;     /* wall time in NVRTC */
    double cpu_seconds; /* CPU time in NVRTC */
} kt_nvrtc_stats;

void kt_nvrtc_stats_get(kt_nvrtc_stats *out);

/* Adds a compilation handed to this process's caller (kt_nvrtc_compile
 * does; the compile pool does when a kernel is taken). */
void kt_nvrtc_stats_count(const kt_nvrtc_output *out);

/* The cache, else NVRTC, then the cache written; no lookup of loaded
 * kernels and no statistics, so it is safe on any thread at once (the
 * compile pool's). Entries are written to a name of their own (process
 * and thread) and renamed into place: readers in any process see a whole
 * entry or none, and writers of one key at once leave one whole entry. A
 * reader that meets a damaged entry (cut short, overwritten) treats it as
 * a miss with a note on stderr and out->damaged set. */
kt_status kt_nvrtc_build(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                         kt_err *err);

/* kt_nvrtc_build in two halves, so that the compile pool can join requests
 * of one code. prepare: req's own cache entry (out->cached 1), else, with
 * sharing on (KTUNE_NVRTC_SHARE is not "off"), NVRTC's front end alone
 * (engine/nvrtc_code.c), whose IR hashed with the options that are not
 * -D/-U is out->code: requests of one code key are the same kernel (the
 * optimiser and ptxas read the IR, not the macros). "" when sharing is off
 * or the front end did not compile. finish (out from prepare, not cached):
 * the code key's cache entry (out->shared 1), else the compile; writes
 * the entries of both keys. The times of both halves add up in out. */
kt_status kt_nvrtc_prepare(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                           kt_err *err);
kt_status kt_nvrtc_finish(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                          kt_err *err);

/* Where NVRTC itself runs for prepare and finish: this thread (NULL), or
 * elsewhere (engine/nvrtc_procs.h: helper processes, and why). The cache
 * and the keys stay in the caller. Both must be thread-safe.
 *   compile: kt_nvrtc_run_here's answer (compiled, image, lowered, log,
 *            seconds, cpu_seconds: the CPU time of whoever compiled);
 *   front_end: kt_nvrtc_front_end's IR hash into fp, its CPU time into
 *            *cpu_s. */
typedef struct kt_nvrtc_runner {
    kt_status (*compile)(void *ctx, const kt_nvrtc_request *req,
                         kt_nvrtc_output *out, kt_err *err);
    kt_status (*front_end)(void *ctx, const kt_nvrtc_request *req, char fp[33],
                           double *cpu_s, kt_err *err);
    void *ctx;
} kt_nvrtc_runner;

kt_status kt_nvrtc_prepare_via(const kt_nvrtc_request *req,
                               const kt_nvrtc_runner *run, kt_nvrtc_output *out,
                               kt_err *err);
kt_status kt_nvrtc_finish_via(const kt_nvrtc_request *req,
                              const kt_nvrtc_runner *run, kt_nvrtc_output *out,
                              kt_err *err);

/* NVRTC on req in this thread, no cache: what a runner's compile does
 * elsewhere (the helper process runs it). */
kt_status kt_nvrtc_run_here(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                            kt_err *err);

/* into gets a copy of from's answer (image, lowered name and log
 * duplicated) for a request of the same code key, with shared set; into
 * keeps its own key, code key and times. */
kt_status kt_nvrtc_output_share(const kt_nvrtc_output *from,
                                kt_nvrtc_output *into, kt_err *err);

/* The cache alone: load (out->cached 1 when found; a damaged entry is a
 * miss with a note) and store (a whole entry renamed into place). For the
 * cache's own tests and tools; KT_S_OK unless req's identity or path
 * cannot be made. */
kt_status kt_nvrtc_cache_load(const kt_nvrtc_request *req, kt_nvrtc_output *out,
                              kt_err *err);
kt_status kt_nvrtc_cache_store(const kt_nvrtc_request *req,
                               const kt_nvrtc_output *out, kt_err *err);

/* ---------------------------------------------------------------------- */
/* Loading (needs a GPU and a current device).                             */

/* A loaded kernel: a cudaKernel_t, usable wherever the runtime takes a
 * `const void *func` (cudaLaunchKernel, cudaFuncGetAttributes, the
 * occupancy API). Kernels stay loaded until kt_nvrtc_unload_all(); the
 * same image (by key) is loaded once per process. */
kt_status kt_nvrtc_load(const kt_nvrtc_output *compiled, const void **kernel,
                        kt_err *err);

/* The loaded kernel of key, or NULL: a lookup, never a load. */
const void *kt_nvrtc_find_loaded(const char *key);

/* The device address and size of the global symbol `name` (a
 * __constant__ or __device__ variable at namespace scope) in the library
 * kernel was loaded from: KT_S_INPUT naming it when the library has none. */
kt_status kt_nvrtc_global(const void *kernel, const char *name, void **dptr,
                          size_t *bytes, kt_err *err);

/* The kernel called name in the library kernel was loaded from (every
 * __global__ function of a compiled source is in it; a template only when
 * instantiated): name as the module knows it, plain for an extern "C"
 * kernel. KT_S_INPUT when the library has none of that name. */
kt_status kt_nvrtc_sibling(const void *kernel, const char *name,
                           const void **out, kt_err *err);

/* Which caller's data the __constant__ symbols of kernel's library hold:
 * kernels are loaded once per process, but each instance (the requested
 * size, every boundary size) has inputs of its own, so the one that fills
 * the symbols records itself, and fills them again only when another did
 * in between. owner is an opaque pointer the library never reads; NULL
 * when nobody has filled them or kernel is not loaded here. Forget an
 * owner before its memory is freed, so that a later one at its address is
 * not taken for it. Call from the thread that loads kernels. */
const void *kt_nvrtc_constants_owner(const void *kernel);
void kt_nvrtc_set_constants_owner(const void *kernel, const void *owner);
void kt_nvrtc_forget_constants_owner(const void *owner);

/* Unloads every library kt_nvrtc_load() loaded. */
void kt_nvrtc_unload_all(void);

#endif
