// SPDX-License-Identifier: Apache-2.0
/*
 * ktune plugin ABI — the only header a plugin author needs.
 *
 * A plugin is a shared object that exports one function, ktune_plugin_entry(),
 * returning a pointer to a static const kt_plugin. Emit it with
 * KT_PLUGIN_EXPORT(descriptor). The descriptor lists operators; each operator
 * lists variants (thread-to-data mappings); each variant lists its tunable
 * parameters as data.
 *
 * Compatibility rules (docs/plugin-abi.md explains them in full):
 *  - magic identifies a ktune plugin; abi_major must equal the host's, a
 *    larger abi_minor than the host knows is accepted (extra fields ignored).
 *  - Every struct starts with struct_size. The host reads only the bytes
 *    struct_size covers, into a zeroed copy, so structs grow by appending
 *    fields and old plugins keep loading. Arrays of structs are walked with a
 *    stride of their first element's struct_size.
 *  - Strings are NUL-terminated UTF-8 with static storage duration.
 *  - The plugin never links against the host: everything it needs from ktune
 *    (device memory, random inputs, output checks, logging, error text) comes
 *    through the kt_host table handed to setup().
 *  - Plugins link the shared CUDA runtime (libcudart.so) so that streams,
 *    errors and kernel attributes are shared with the host.
 *
 * Valid C (C99 and later) and C++ (C++20 designated initialisers).
 */
#ifndef KTUNE_PLUGIN_H
#define KTUNE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h> /* malloc and free, for the helpers at the end */

#ifdef __cplusplus
extern "C" {
#endif

#define KT_PLUGIN_MAGIC UINT64_C(0x4b54554e45504c47) /* "KTUNEPLG" */
#define KT_ABI_MAJOR 1
#define KT_ABI_MINOR 2
#define KT_PLUGIN_ENTRY_SYMBOL "ktune_plugin_entry"

/* Return codes of plugin callbacks. Anything else is treated as KT_FAIL. */
enum {
    KT_OK = 0,
    KT_FAIL = 1,    /* error; the text was set through host->error() */
    KT_INVALID = 2, /* this configuration cannot run here (constraint) */
    KT_MISMATCH = 3 /* verification: the output is wrong */
};

/* ------------------------------------------------------------------------ */
/* Device facts the host hands to plugins (read-only).                      */

typedef struct kt_device {
    uint32_t struct_size;
    int32_t cc_major;
    int32_t cc_minor;
    int32_t sm_count;
    int32_t warp_size;
    int32_t max_threads_per_block;
    int32_t max_threads_per_sm;
    int32_t max_blocks_per_sm;
    int32_t regs_per_sm;
    int32_t regs_per_block;
    int64_t shared_mem_per_block;       /* default limit, bytes */
    int64_t shared_mem_per_block_optin; /* after cudaFuncSetAttribute */
    int64_t shared_mem_per_sm;
    int64_t l2_bytes;
    int64_t global_mem_bytes;
    int32_t max_grid[3];
    int32_t max_block[3];
    const char *name;
} kt_device;

/* ------------------------------------------------------------------------ */
/* Parameter space as data.                                                  */

typedef enum kt_param_kind {
    KT_PARAM_LIST = 1,  /* values[0..count) */
    KT_PARAM_POW2 = 2,  /* every power of two in [min, max] */
    KT_PARAM_RANGE = 3, /* min, min+step, ... <= max */
    KT_PARAM_ENUM = 4   /* labels[0..count); the value is the label's index */
} kt_param_kind;

typedef struct kt_param_desc {
    uint32_t struct_size;
    uint32_t kind; /* kt_param_kind */
    const char *name;
    const char *help;
    int64_t default_value;     /* must be one of the declared values */
    int64_t min;               /* POW2, RANGE */
    int64_t max;               /* POW2, RANGE */
    int64_t step;              /* RANGE */
    const int64_t *values;     /* LIST */
    const char *const *labels; /* ENUM */
    uint32_t count;            /* LIST, ENUM */
    uint32_t reserved;
} kt_param_desc;

/* One point of a variant's space: values in the order of variant->params. */
typedef struct kt_config {
    uint32_t struct_size;
    uint32_t count;
    const int64_t *values;
    const char *const *names; /* names[i] is params[i].name */
} kt_config;

/* A problem dimension, e.g. "n", or "m" and "n". */
typedef struct kt_size_desc {
    uint32_t struct_size;
    uint32_t reserved;
    const char *name;
    const char *help;
    int64_t default_value;
    int64_t min;
    int64_t max;
} kt_size_desc;

/* One problem instance: sizes in the order of operator->sizes. */
typedef struct kt_problem {
    uint32_t struct_size;
    uint32_t num_sizes;
    const int64_t *sizes;
    uint64_t seed; /* same seed => same inputs, for every configuration */
    const kt_device *device;
} kt_problem;

/* The launch geometry of a configuration. The host checks it against the
 * device limits before launching, and uses `kernel` (the __global__
 * function's host stub) for register and occupancy queries. */
typedef struct kt_shape {
    uint32_t struct_size;
    uint32_t dynamic_smem_bytes;
    uint32_t grid[3];
    uint32_t block[3];
    const void *kernel; /* main kernel, may be NULL */
} kt_shape;

/* Work the algorithm must do, independent of the variant: the minimum bytes
 * moved through device memory (each input read once, each output written
 * once) and the arithmetic. Effective bandwidth and arithmetic intensity are
 * derived from these. */
typedef struct kt_work {
    uint32_t struct_size;
    uint32_t reserved;
    double bytes_read;
    double bytes_written;
    double flops;
} kt_work;

/* ------------------------------------------------------------------------ */
/* Host services. The host owns every device allocation: it poisons outputs  */
/* before verification, flushes caches and frees what the plugin leaves.     */

typedef enum kt_mem_role {
    KT_MEM_INPUT = 1,  /* read by the kernel; filled in setup/reset */
    KT_MEM_OUTPUT = 2, /* written by the kernel; poisoned before verifying */
    KT_MEM_SCRATCH = 3 /* workspace */
} kt_mem_role;

typedef enum kt_log_level {
    KT_LOG_ERROR = 0,
    KT_LOG_WARN = 1,
    KT_LOG_INFO = 2,
    KT_LOG_DEBUG = 3
} kt_log_level;

/* ABI 1.1: one kernel to compile at run time (kt_host.compile). */
typedef struct kt_jit_request {
    uint32_t struct_size;
    uint32_t num_options;
    const char *source;      /* CUDA C++ text, kept until compile returns */
    const char *source_name; /* names the source in the compiler's log */
    /* The kernel as a name expression: "scale" or "tiled<32, 1>"; template
     * arguments are how compile-time parameters reach the code. */
    const char *kernel;
    const char *const *options; /* e.g. "-DTILE=32"; may be NULL if 0 */
} kt_jit_request;

typedef struct kt_host kt_host;
struct kt_host {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;
    const kt_device *device;

    /* Device memory owned by the host. `name` labels messages ("a", "y").
     * The pointer stays valid until free_device() or teardown. */
    int (*alloc_device)(const kt_host *host, size_t bytes, kt_mem_role role,
                        const char *name, void **dev_ptr);
    void (*free_device)(const kt_host *host, void *dev_ptr);

    /* Copies between host memory and host-owned device memory; complete
     * (on the device, or in host memory) when they return. */
    int (*upload)(const kt_host *host, void *dev_dst, const void *src,
                  size_t bytes);
    int (*download)(const kt_host *host, void *dst, const void *dev_src,
                    size_t bytes);

    /* Deterministic uniform floats in [lo, hi) for the problem's seed and a
     * per-buffer stream number, identical on every machine. */
    void (*random_f32)(const kt_host *host, uint64_t stream, float *dst,
                       size_t count, float lo, float hi);

    /* Compares a device array with a reference computed in double:
     * element i passes when |got - want| <= atol + rtol * |want|, and NaN
     * never passes. Returns KT_OK or KT_MISMATCH with the first failures
     * described in the error text. */
    int (*check_f32)(const kt_host *host, const char *name,
                     const float *dev_got, const double *want, size_t count,
                     double rtol, double atol);

    void (*log)(const kt_host *host, kt_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

    /* Sets the text shown with a failed callback; returns KT_FAIL. */
    int (*error)(const kt_host *host, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

    void *host_private; /* the host's; plugins do not touch it */

    /* ---- Appended after the first release: read them through
     * KT_HOST_HAS (an older host's table ends before them). ---- */

    /* Compares on the device, under check_f32's rule: element i of dev_got
     * passes when |got - want| <= bound, bound = dev_tol[i] when dev_tol is
     * not NULL, else atol + rtol * |want|; NaN never passes. dev_want (and
     * dev_tol) are double arrays in device memory made with alloc_device:
     * the reference, computed once in setup (a reference kernel, or the
     * host's reference uploaded). Every element is counted; only the count
     * and the first failures come back. The outputs must be complete
     * (verify() is called after the launch finished). Returns KT_OK or
     * KT_MISMATCH with the failures in the error text, KT_FAIL on a CUDA
     * error. NULL when the host wants the host path (`--verify host`):
     * plugins then compute their reference on the host and call
     * check_f32. */
    int (*check_f32_device)(const kt_host *host, const char *name,
                            const float *dev_got, const double *dev_want,
                            const double *dev_tol, size_t count, double rtol,
                            double atol);

    /* random_f32 straight into device memory made with alloc_device: the
     * same values, bit for bit, generated on the device (complete when it
     * returns), so a large problem needs no host copy of its inputs. NULL
     * under `--verify host` (the host path, inputs made on the host). */
    int (*random_f32_device)(const kt_host *host, uint64_t stream,
                             float *dev_dst, size_t count, float lo, float hi);

    /* Compiles req->kernel with NVRTC for the device in use (cached on disk by
     * source, options, architecture and NVRTC version) and loads it:
     * *kernel is a cudaKernel_t, for cudaLaunchKernel((const void *)
     * kernel, ...) and as kt_shape.kernel. KT_INVALID when the source does
     * not compile (the log is the error text: the point is invalid, kind
     * "compile"), KT_FAIL otherwise. Call it outside launch() or on the
     * first launch of a configuration (verification runs it untimed);
     * kernels stay loaded for the process. */
    int (*compile)(const kt_host *host, const kt_jit_request *req,
                   const void **kernel);
};

/* 1 when the host table has `member` (an appended service) and it is
 * set, e.g. KT_HOST_HAS(host, check_f32_device). */
#define KT_HOST_HAS(host, member)                                              \
    ((host)->struct_size >=                                                    \
         offsetof(kt_host, member) + sizeof((host)->member) &&                 \
     (host)->member != NULL)

/* ------------------------------------------------------------------------ */
/* Operators and variants.                                                   */

typedef struct kt_variant {
    uint32_t struct_size;
    uint32_t num_params;
    const char *id; /* stable, unique within the operator */
    const char *summary;
    const kt_param_desc *params;

    /* Required: grid, block and shared memory of a configuration. Pure: no
     * device calls, so the host can check limits without a GPU. */
    int (*shape)(const kt_problem *problem, const kt_config *config,
                 kt_shape *out);

    /* Optional: extra constraints. Return KT_OK, or KT_INVALID with a reason
     * written to why (at most why_size bytes, NUL-terminated). */
    int (*check)(const kt_problem *problem, const kt_config *config, char *why,
                 size_t why_size);

    /* Required: enqueue the work on `stream` (a cudaStream_t) and return
     * without synchronising. Runs inside the timed region: no allocation,
     * no copies, no synchronisation. */
    int (*launch)(void *state, const kt_config *config, void *stream);

    /* ABI 1.1: KT_VARIANT_* bits; 0 (and plugins older than 1.1): none. */
    uint32_t flags;
    uint32_t reserved;

    /* ABI 1.1, optional: like launch, with the shape the host already
     * computed from shape() for this problem and configuration, so the
     * geometry is written once. When set, the host calls it instead of
     * launch (which may then be NULL). */
    int (*launch_shaped)(void *state, const kt_config *config,
                         const kt_shape *shape, void *stream);

    /* ABI 1.1, optional: the kernel a configuration launches when shape()
     * cannot name it (one compiled at run time), for attribute and
     * occupancy queries; called only after the configuration verified on
     * this state. NULL when unknown. */
    const void *(*kernel_of)(void *state, const kt_config *config);

    /* ABI 1.2, optional, pure: the work of this configuration when a
     * parameter changes it (a temporal tiling factor that computes several
     * time steps per launch, say). Derived rates (GB/s, GFLOP/s) of the
     * configuration come from it; NULL (and plugins older than 1.2): the
     * operator's work() for every configuration. */
    int (*work)(const kt_problem *problem, const kt_config *config,
                kt_work *out);
} kt_variant;

enum {
    /* A vendor library's implementation (cuBLAS, CUB, cudaMemcpy): measured
     * and reported as the yardstick the other variants are held to, never
     * tuned as a starting point of the search. */
    KT_VARIANT_REFERENCE = 1u << 0
};

enum {
    /* The kernels write their inputs: the host calls reset() before every
     * timed launch, outside the timed region. */
    KT_OP_MODIFIES_INPUTS = 1u << 0
};

typedef struct kt_operator {
    uint32_t struct_size;
    uint32_t flags;
    const char *id; /* stable, unique within the plugin */
    const char *summary;
    const kt_size_desc *sizes;
    uint32_t num_sizes;
    uint32_t num_variants;
    const kt_variant *variants; /* variants[0] is the default */

    /* Required, pure: the work of a problem. */
    int (*work)(const kt_problem *problem, kt_work *out);

    /* Required: allocate through host, fill inputs, compute the reference.
     * *state is handed back to every later call. */
    int (*setup)(const kt_host *host, const kt_problem *problem, void **state);

    /* Optional: restore inputs to their setup values (same seed). */
    int (*reset)(void *state);

    /* Required: compare outputs with the reference, through check_f32 or
     * own code. KT_OK, KT_MISMATCH, or KT_FAIL. */
    int (*verify)(void *state, const kt_config *config,
                  const kt_variant *variant);

    /* Required: release host memory; device memory left over is freed by
     * the host (with a warning). */
    void (*teardown)(void *state);
} kt_operator;

typedef struct kt_plugin {
    uint64_t magic; /* KT_PLUGIN_MAGIC */
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;
    /* Build fingerprint, for diagnostics and results; KT_PLUGIN_HEADER
     * fills it from the compiler's own macros. */
    int32_t cuda_runtime_version; /* CUDART_VERSION, e.g. 13000 */
    uint32_t reserved;
    const char *cuda_archs; /* __CUDA_ARCH_LIST__, e.g. "900" */
    const char *compiler;
    const char *build_date;
    const char *name; /* unique among loaded plugins */
    const char *version;
    const char *summary;
    const kt_operator *operators;
    uint32_t num_operators;
    uint32_t reserved2;
} kt_plugin;

typedef const kt_plugin *(*kt_plugin_entry_fn)(void);

/* The layouts are part of the ABI (LP64): a change here is a new ABI. */
#if defined(__cplusplus)
#define KT_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define KT_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#if defined(KT_STATIC_ASSERT) && UINTPTR_MAX == UINT64_MAX
KT_STATIC_ASSERT(sizeof(kt_device) == 112, "kt_device layout");
KT_STATIC_ASSERT(sizeof(kt_param_desc) == 80, "kt_param_desc layout");
KT_STATIC_ASSERT(sizeof(kt_config) == 24, "kt_config layout");
KT_STATIC_ASSERT(sizeof(kt_size_desc) == 48, "kt_size_desc layout");
KT_STATIC_ASSERT(sizeof(kt_problem) == 32, "kt_problem layout");
KT_STATIC_ASSERT(sizeof(kt_shape) == 40, "kt_shape layout");
KT_STATIC_ASSERT(sizeof(kt_work) == 32, "kt_work layout");
KT_STATIC_ASSERT(sizeof(kt_variant) == 88, "kt_variant layout"); /* 1.1: 80 */
KT_STATIC_ASSERT(sizeof(kt_jit_request) == 40, "kt_jit_request layout");
KT_STATIC_ASSERT(sizeof(kt_operator) == 88, "kt_operator layout");
KT_STATIC_ASSERT(sizeof(kt_plugin) == 88, "kt_plugin layout");
#endif

/* ------------------------------------------------------------------------ */
/* Helpers for plugin authors.                                               */

/* Value of the parameter called `name`, or `fallback` when absent. */
static inline int64_t kt_config_get(const kt_config *config, const char *name,
                                    int64_t fallback)
{
    for (uint32_t i = 0; i < config->count; ++i) {
        const char *a = config->names[i], *b = name;
        while (*a && *a == *b) {
            ++a;
            ++b;
        }
        if (*a == *b)
            return config->values[i];
    }
    return fallback;
}

static inline uint64_t kt_div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* A one-dimensional launch of `grid` blocks of `block` threads (at least one
 * block); kernel is the __global__ function for attribute queries (may be
 * NULL). KT_INVALID when the grid exceeds 2^31 - 1 blocks. */
static inline int kt_shape_1d(kt_shape *out, uint64_t grid, uint64_t block,
                              const void *kernel)
{
    if (grid == 0)
        grid = 1;
    if (grid > 0x7fffffffu)
        return KT_INVALID;
    out->grid[0] = (uint32_t)grid;
    out->grid[1] = out->grid[2] = 1;
    out->block[0] = (uint32_t)block;
    out->block[1] = out->block[2] = 1;
    out->kernel = kernel;
    return KT_OK;
}

/* For grids sized as "blocks per SM x SMs": KT_INVALID, with the reason in
 * why, when per_sm blocks of `block` threads cannot be resident on one SM
 * together (thread or block slots). */
static inline int kt_check_resident(const kt_problem *problem, int64_t block,
                                    int64_t per_sm, char *why, size_t why_size)
{
    const kt_device *d = problem->device;
    if (per_sm * block > d->max_threads_per_sm ||
        per_sm > d->max_blocks_per_sm) {
        snprintf(why, why_size,
                 "%lld blocks of %lld threads do not fit on one SM (%d "
                 "threads, %d blocks at most)",
                 (long long)per_sm, (long long)block, d->max_threads_per_sm,
                 d->max_blocks_per_sm);
        return KT_INVALID;
    }
    return KT_OK;
}

/* Verification helpers (the device path, with the host path as fallback).
 *
 * kt_reference_to_device keeps a reference the plugin computed on the host
 * in device memory instead, when the host offers check_f32_device: it
 * allocates count doubles (KT_MEM_SCRATCH, named `name`), uploads *want,
 * frees it and sets it to NULL; *dev_want is then the reference. With a
 * host that verifies on the host it leaves *want and sets *dev_want to
 * NULL. KT_OK or KT_FAIL. kt_check_kept compares with whichever of the two
 * is kept. */
static inline int kt_reference_to_device(const kt_host *host, const char *name,
                                         double **want, size_t count,
                                         double **dev_want)
{
    *dev_want = NULL;
    if (!KT_HOST_HAS(host, check_f32_device))
        return KT_OK;
    if (host->alloc_device(host, count * sizeof(double), KT_MEM_SCRATCH, name,
                           (void **)dev_want) != KT_OK ||
        host->upload(host, *dev_want, *want, count * sizeof(double)) != KT_OK)
        return KT_FAIL;
    free(*want);
    *want = NULL;
    return KT_OK;
}

static inline int kt_check_kept(const kt_host *host, const char *name,
                                const float *dev_got, const double *want,
                                const double *dev_want, size_t count,
                                double rtol, double atol)
{
    if (dev_want)
        return host->check_f32_device(host, name, dev_got, dev_want, NULL,
                                      count, rtol, atol);
    return host->check_f32(host, name, dev_got, want, count, rtol, atol);
}

#define KT_STRUCT_SIZE(type) .struct_size = (uint32_t)sizeof(type)
#define KT_COUNT(array) KTUNE_COUNT(array) /* deprecated: KTUNE_COUNT */

#define KT_PARAM_POW2(nm, hlp, lo, hi, dflt)                                   \
    {                                                                          \
        KT_STRUCT_SIZE(kt_param_desc), .kind = KT_PARAM_POW2, .name = (nm),    \
                                       .help = (hlp), .default_value = (dflt), \
                                       .min = (lo), .max = (hi)                \
    }
#define KT_PARAM_RANGE(nm, hlp, lo, hi, stp, dflt)                             \
    {                                                                          \
        KT_STRUCT_SIZE(kt_param_desc), .kind = KT_PARAM_RANGE, .name = (nm),   \
                                       .help = (hlp), .default_value = (dflt), \
                                       .min = (lo), .max = (hi), .step = (stp) \
    }
#define KT_PARAM_LIST(nm, hlp, vals, dflt)                                     \
    {                                                                          \
        KT_STRUCT_SIZE(kt_param_desc), .kind = KT_PARAM_LIST, .name = (nm),    \
                                       .help = (hlp), .default_value = (dflt), \
                                       .values = (vals),                       \
                                       .count = KTUNE_COUNT(vals)              \
    }
#define KT_PARAM_ENUM(nm, hlp, lbls, dflt)                                     \
    {                                                                          \
        KT_STRUCT_SIZE(kt_param_desc), .kind = KT_PARAM_ENUM, .name = (nm),    \
                                       .help = (hlp), .default_value = (dflt), \
                                       .labels = (lbls),                       \
                                       .count = KTUNE_COUNT(lbls)              \
    }

/* deprecated: KTUNE_STRINGIFY */
#define KT_STRINGIFY_(...) KTUNE_STRINGIFY_(__VA_ARGS__)
#define KT_STRINGIFY(...) KTUNE_STRINGIFY(__VA_ARGS__)

#if defined(CUDART_VERSION)
#define KT_BUILD_CUDART CUDART_VERSION
#else
#define KT_BUILD_CUDART 0
#endif
#if defined(__CUDA_ARCH_LIST__)
#define KT_BUILD_ARCHS KTUNE_STRINGIFY(__CUDA_ARCH_LIST__)
#else
#define KT_BUILD_ARCHS ""
#endif
#if defined(__VERSION__)
#define KT_BUILD_COMPILER __VERSION__
#else
#define KT_BUILD_COMPILER "unknown"
#endif

/* Fills kt_plugin's header and build fingerprint; use first in the
 * initialiser, then .name, .version, .summary, .operators, .num_operators. */
#define KT_PLUGIN_HEADER                                                       \
    .magic = KT_PLUGIN_MAGIC, KT_STRUCT_SIZE(kt_plugin),                       \
    .abi_major = KT_ABI_MAJOR, .abi_minor = KT_ABI_MINOR,                      \
    .cuda_runtime_version = KT_BUILD_CUDART, .cuda_archs = KT_BUILD_ARCHS,     \
    .compiler = KT_BUILD_COMPILER, .build_date = __DATE__ " " __TIME__

#define KT_EXPORT KTUNE_EXPORT     /* deprecated: KTUNE_EXPORT */
#define KT_EXTERN_C KTUNE_EXTERN_C /* deprecated: KTUNE_EXTERN_C */

/* Emits the plugin's one exported symbol. */
#define KT_PLUGIN_EXPORT(descriptor)                                           \
    KTUNE_EXTERN_C KTUNE_EXPORT const kt_plugin *ktune_plugin_entry(void);     \
    KTUNE_EXTERN_C KTUNE_EXPORT const kt_plugin *ktune_plugin_entry(void)      \
    {                                                                          \
        return &(descriptor);                                                  \
    }

/* ======================================================================== */
/* Plugin-author helpers, added in ABI 1.0 without changing any layout:     */
/* namespaced names, shapes, descriptor initialisers, ready-made callbacks. */
/* Header-only: nothing here is exchanged with the host.                    */
/* ======================================================================== */

/* Namespaced names. The generic ones above (KT_COUNT, KT_STRINGIFY,
 * KT_EXPORT, KT_EXTERN_C) are deprecated aliases of these, kept through
 * ABI 1.1; define KTUNE_NO_DEPRECATED_NAMES before including this header
 * to drop them now. */
#define KTUNE_COUNT(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))
#define KTUNE_STRINGIFY_(...) #__VA_ARGS__
#define KTUNE_STRINGIFY(...) KTUNE_STRINGIFY_(__VA_ARGS__)
#if defined(_WIN32)
#define KTUNE_EXPORT __declspec(dllexport)
#else
#define KTUNE_EXPORT __attribute__((visibility("default")))
#endif
#ifdef __cplusplus
#define KTUNE_EXTERN_C extern "C"
#else
#define KTUNE_EXTERN_C
#endif
#ifdef KTUNE_NO_DEPRECATED_NAMES
#undef KT_COUNT
#undef KT_STRINGIFY_
#undef KT_STRINGIFY
#undef KT_EXPORT
#undef KT_EXTERN_C
#endif

/* The struct sizes of ABI 1.0 (LP64): the smallest struct_size the host
 * accepts from a plugin (a newer plugin's structs may be larger). */
#define KTUNE_ABI_1_0_SIZEOF_PLUGIN 88u
#define KTUNE_ABI_1_0_SIZEOF_OPERATOR 88u
#define KTUNE_ABI_1_0_SIZEOF_VARIANT 56u
#define KTUNE_ABI_1_0_SIZEOF_PARAM_DESC 80u
#define KTUNE_ABI_1_0_SIZEOF_SIZE_DESC 48u
#if defined(KT_STATIC_ASSERT) && UINTPTR_MAX == UINT64_MAX
KT_STATIC_ASSERT(sizeof(kt_plugin) >= KTUNE_ABI_1_0_SIZEOF_PLUGIN, "1.0");
KT_STATIC_ASSERT(sizeof(kt_operator) >= KTUNE_ABI_1_0_SIZEOF_OPERATOR, "1.0");
KT_STATIC_ASSERT(sizeof(kt_variant) >= KTUNE_ABI_1_0_SIZEOF_VARIANT, "1.0");
KT_STATIC_ASSERT(sizeof(kt_param_desc) >= KTUNE_ABI_1_0_SIZEOF_PARAM_DESC,
                 "1.0");
KT_STATIC_ASSERT(sizeof(kt_size_desc) >= KTUNE_ABI_1_0_SIZEOF_SIZE_DESC, "1.0");
#endif

/* --- shapes --------------------------------------------------------------
 * Each sets every field of the shape but struct_size and returns KT_OK, or
 * KT_INVALID when the grid cannot be expressed (more than 2^31 - 1 blocks
 * in x or 65535 in y). A grid dimension of 0 becomes 1. The host checks
 * the rest against the device's limits. */

/* A 2-D grid of gx x gy blocks of bx x by threads, smem bytes of dynamic
 * shared memory; kernel is the __global__ function (may be NULL). */
static inline int kt_shape_2d(kt_shape *out, uint64_t gx, uint64_t gy,
                              uint64_t bx, uint64_t by, uint32_t smem,
                              const void *kernel)
{
    gx = gx ? gx : 1;
    gy = gy ? gy : 1;
    if (gx > 0x7fffffffu || gy > 65535u)
        return KT_INVALID;
    out->grid[0] = (uint32_t)gx;
    out->grid[1] = (uint32_t)gy;
    out->grid[2] = 1;
    out->block[0] = (uint32_t)bx;
    out->block[1] = (uint32_t)by;
    out->block[2] = 1;
    out->dynamic_smem_bytes = smem;
    out->kernel = kernel;
    return KT_OK;
}

/* A 1-D grid of `grid` blocks of `block` threads with smem bytes of
 * dynamic shared memory. */
static inline int kt_shape_1d_smem(kt_shape *out, uint64_t grid, uint64_t block,
                                   uint32_t smem, const void *kernel)
{
    return kt_shape_2d(out, grid, 1, block, 1, smem, kernel);
}

/* One thread per element: enough blocks of `block` threads to cover n. */
static inline int kt_shape_cover(kt_shape *out, uint64_t n, uint64_t block,
                                 const void *kernel)
{
    return kt_shape_2d(out, kt_div_up(n, block), 1, block, 1, 0, kernel);
}

/* --- descriptor initialisers -------------------------------------------
 * Counts come from the arrays, so they cannot disagree. Arguments are in
 * field order; pass NULL (nullptr) for an optional callback. */

#define KTUNE_SIZE(nm, hlp, dflt, lo, hi)                                      \
    {                                                                          \
        KT_STRUCT_SIZE(kt_size_desc), .reserved = 0, .name = (nm),             \
                                      .help = (hlp), .default_value = (dflt),  \
                                      .min = (lo), .max = (hi)                 \
    }

/* params: an array of kt_param_desc. */
#define KTUNE_VARIANT(id_, summary_, params_, shape_, check_, launch_)         \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant), .num_params = KTUNE_COUNT(params_),        \
                                    .id = (id_), .summary = (summary_),        \
                                    .params = (params_), .shape = (shape_),    \
                                    .check = (check_), .launch = (launch_)     \
    }

/* A variant without tunable parameters (a library call, say). */
#define KTUNE_VARIANT_FIXED(id_, summary_, shape_, check_, launch_)            \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant), .num_params = 0, .id = (id_),              \
                                    .summary = (summary_), .params = NULL,     \
                                    .shape = (shape_), .check = (check_),      \
                                    .launch = (launch_)                        \
    }

/* A vendor library's implementation without tunable parameters, marked
 * KT_VARIANT_REFERENCE: the yardstick the tuned variants are held to. */
#define KTUNE_VARIANT_REFERENCE(id_, summary_, shape_, check_, launch_)        \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant),                                            \
            .num_params = 0, .id = (id_), .summary = (summary_),               \
            .params = NULL, .shape = (shape_), .check = (check_),              \
            .launch = (launch_), .flags = KT_VARIANT_REFERENCE                 \
    }

/* flags: KT_OP_* bits; sizes and variants: arrays. */
#define KTUNE_OPERATOR(id_, summary_, flags_, sizes_, variants_, work_,        \
                       setup_, reset_, verify_, teardown_)                     \
    {                                                                          \
        KT_STRUCT_SIZE(kt_operator),                                           \
            .flags = (flags_), .id = (id_), .summary = (summary_),             \
            .sizes = (sizes_), .num_sizes = KTUNE_COUNT(sizes_),               \
            .num_variants = KTUNE_COUNT(variants_), .variants = (variants_),   \
            .work = (work_), .setup = (setup_), .reset = (reset_),             \
            .verify = (verify_), .teardown = (teardown_)                       \
    }

/* operators: an array of kt_operator. */
#define KTUNE_PLUGIN(name_, version_, summary_, operators_)                    \
    {                                                                          \
        KT_PLUGIN_HEADER, .name = (name_), .version = (version_),              \
                          .summary = (summary_), .operators = (operators_),    \
                          .num_operators = KTUNE_COUNT(operators_)             \
    }

/* --- ready-made callbacks ----------------------------------------------- */

/* The state of an operator whose launches need only the problem: a copy of
 * its sizes and the host. kt_setup_sizes allocates it; kt_teardown_free
 * frees it (and any state that is one malloc'd block). */
#define KTUNE_SIZES_MAX 8
typedef struct kt_sizes_state {
    const kt_host *host;
    uint32_t num_sizes;
    int64_t sizes[KTUNE_SIZES_MAX];
} kt_sizes_state;

static inline int kt_setup_sizes(const kt_host *host, const kt_problem *problem,
                                 void **state)
{
    kt_sizes_state *s = (kt_sizes_state *)calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return host->error(host, "out of host memory");
    if (problem->num_sizes > KTUNE_SIZES_MAX)
        return host->error(host, "%u sizes, kt_setup_sizes keeps at most %d",
                           problem->num_sizes, KTUNE_SIZES_MAX);
    s->host = host;
    s->num_sizes = problem->num_sizes;
    for (uint32_t i = 0; i < problem->num_sizes; ++i)
        s->sizes[i] = problem->sizes[i];
    return KT_OK;
}

static inline void kt_teardown_free(void *state)
{
    free(state);
}

/* work() of an operator that moves and computes nothing (derived bandwidth
 * and flop rate are then 0, not infinite). */
static inline int kt_work_none(const kt_problem *problem, kt_work *out)
{
    (void)problem;
    out->bytes_read = out->bytes_written = out->flops = 0.0;
    return KT_OK;
}

/* verify() of an operator with no output: a launch that failed or faulted
 * is caught by the host's own checks before verify() is called. */
static inline int kt_verify_nothing(void *state, const kt_config *config,
                                    const kt_variant *variant)
{
    (void)state;
    (void)config;
    (void)variant;
    return KT_OK;
}

/* ------------------------------------------------------------------------ */
/* ABI 1.1 lifecycle helpers (header-only, built on kt_host).               */

/* A host-owned device input of count floats, uniform in [lo, hi) from the
 * problem's seed and `stream`, uploaded. With host_copy, *host_copy gets
 * the values (malloc'ed; the plugin frees it, e.g. after computing its
 * reference); otherwise they are freed here. */
static inline int kt_input_f32(const kt_host *host, const char *name,
                               size_t count, uint64_t stream, float lo,
                               float hi, float **dev, float **host_copy)
{
    float *h = (float *)malloc(count * sizeof(float) + 1);
    int rc;
    if (host_copy)
        *host_copy = NULL;
    if (!h)
        return host->error(host, "%s: out of host memory for %zu floats", name,
                           count);
    host->random_f32(host, stream, h, count, lo, hi);
    rc = host->alloc_device(host, count * sizeof(float), KT_MEM_INPUT, name,
                            (void **)dev);
    if (rc == KT_OK)
        rc = host->upload(host, *dev, h, count * sizeof(float));
    if (rc == KT_OK && host_copy)
        *host_copy = h;
    else
        free(h);
    return rc;
}

/* A host-owned device output of count floats (poisoned before every
 * verification). */
static inline int kt_output_f32(const kt_host *host, const char *name,
                                size_t count, float **dev)
{
    return host->alloc_device(host, count * sizeof(float), KT_MEM_OUTPUT, name,
                              (void **)dev);
}

#ifdef __cplusplus
}
#endif

/* --- CUDA C++ only ------------------------------------------------------
 * launch() needs no error check of its own: the host reads
 * cudaGetLastError() right after every launch() and tells a refused
 * configuration from a fault. */
#if defined(__cplusplus) && defined(__CUDACC__)
/* Launches kernel on the stream with the shape's grid, block and dynamic
 * shared memory; returns KT_OK. */
template <typename... Params, typename... Args>
static inline int kt_launch(const kt_shape &s, void *stream,
                            void (*kernel)(Params...), Args... args)
{
    kernel<<<dim3(s.grid[0], s.grid[1], s.grid[2]),
             dim3(s.block[0], s.block[1], s.block[2]), s.dynamic_smem_bytes,
             (cudaStream_t)stream>>>(args...);
    return KT_OK;
}

/* One thread per element: kt_shape_cover(n, block), then kt_launch;
 * KT_INVALID, launching nothing, when the grid cannot be expressed. */
template <typename... Params, typename... Args>
static inline int kt_launch_cover(uint64_t n, uint64_t block, void *stream,
                                  void (*kernel)(Params...), Args... args)
{
    kt_shape s = {};
    if (kt_shape_cover(&s, n, block, (const void *)kernel) != KT_OK)
        return KT_INVALID;
    return kt_launch(s, stream, kernel, args...);
}

#if __cplusplus >= 201703L
/* shape() of a variant that covers sizes[0] elements, one per thread, in
 * blocks of its first parameter's threads (C++17: a kernel as template
 * argument). */
template <auto kernel>
static int kt_shape_per_element(const kt_problem *problem,
                                const kt_config *config, kt_shape *out)
{
    return kt_shape_cover(out, (uint64_t)problem->sizes[0],
                          (uint64_t)config->values[0], (const void *)kernel);
}
#endif
#endif

#endif /* KTUNE_PLUGIN_H */
