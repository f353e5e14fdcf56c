// SPDX-License-Identifier: Apache-2.0
/*
 * ktune plugin ABI: the types, constants and the entry symbol that cross
 * the boundary between ktune and a plugin, and nothing else. The helpers
 * that make writing a plugin short (shapes, descriptor initialisers, ready
 * callbacks, kt_launch) are in <ktune/plugin_util.h>, which includes this
 * header; a plugin normally includes that one. (LV2 splits lv2.h and
 * lv2_util.h the same way.)
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
 * How this header changes (the rule SQLite keeps for sqlite3ext.h): it is
 * append-only. A struct grows only by fields added at its end, each labelled
 * with the ABI minor version that added it ("ABI 1.1: ..."), KT_ABI_MINOR
 * goes up by one with every such block, and no field, constant or macro of
 * this header is ever renamed, reordered or removed within a major version.
 * The layout assertions at the end pin every struct's size.
 *
 * Valid C (C99 and later) and C++ (C++20 designated initialisers).
 */
#ifndef KTUNE_PLUGIN_H
#define KTUNE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KT_PLUGIN_MAGIC UINT64_C(0x4b54554e45504c47) /* "KTUNEPLG" */
#define KT_ABI_MAJOR 1
#define KT_ABI_MINOR 3
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
    /* ABI 1.3: the variant's data (kt_variant.data), set by the host, so
     * shape(), check(), work(), launch() and kernel_of() find their
     * context; read it through KT_CONFIG_DATA (an older host's config
     * ends before it). */
    const void *data;
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
    /* ABI 1.3: the operator's data (kt_operator.data), set by the host, so
     * work() and setup() find their context; read it through
     * KT_PROBLEM_DATA (an older host's problem ends before it). */
    const void *data;
} kt_problem;

/* ABI 1.3: the operator's data a problem carries, or NULL where the host
 * is older than 1.3 (its kt_problem ends before the field). */
#define KT_PROBLEM_DATA(problem)                                               \
    ((problem)->struct_size >= offsetof(kt_problem, data) + sizeof(void *)     \
         ? (problem)->data                                                     \
         : NULL)

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

    /* ---- ABI 1.0, appended after the first release: read them through
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

    /* ---- ABI 1.1 ---- */

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

    /* Enqueue the work on `stream` (a cudaStream_t) and return without
     * synchronising. Runs inside the timed region: no allocation, no
     * copies, no synchronisation. One of launch and launch_shaped (below)
     * is required: the loader refuses a variant with neither. When both
     * are set the host calls launch_shaped and never launch (a plugin
     * meant for ABI 1.0 hosts too sets both). */
    int (*launch)(void *state, const kt_config *config, void *stream);

    /* ABI 1.1: KT_VARIANT_* bits; 0 (and plugins older than 1.1): none. */
    uint32_t flags;
    uint32_t reserved;

    /* ABI 1.1: like launch, with the shape the host computed from shape()
     * for this problem and configuration, so the geometry is derived in
     * one place. The preferred launch: when set, the host calls it instead
     * of launch, which may then be NULL. */
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

    /* ABI 1.3, optional: the variant's own context (SQLite's pUserData),
     * never read by the host: handed back to its callbacks as
     * config->data (kt_config). It must stay valid as long as the plugin
     * is loaded. NULL (and plugins older than 1.3): none. */
    const void *data;
} kt_variant;

/* ABI 1.3: the variant's data a configuration carries, or NULL where the
 * host is older than 1.3 (its kt_config ends before the field). */
#define KT_CONFIG_DATA(config)                                                 \
    ((config)->struct_size >= offsetof(kt_config, data) + sizeof(void *)       \
         ? (config)->data                                                      \
         : NULL)

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

    /* ABI 1.3, optional: the operator's own context (SQLite's pUserData),
     * never read by the host: handed back to work() and setup() as
     * problem->data (kt_problem); setup() keeps what its state needs.
     * Valid as long as the plugin is loaded. NULL (and plugins older than
     * 1.3): none. */
    const void *data;
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
KT_STATIC_ASSERT(sizeof(kt_config) == 32, "kt_config layout"); /* 1.2: 24 */
KT_STATIC_ASSERT(sizeof(kt_size_desc) == 48, "kt_size_desc layout");
KT_STATIC_ASSERT(sizeof(kt_problem) == 40, "kt_problem layout"); /* 1.2: 32 */
KT_STATIC_ASSERT(sizeof(kt_shape) == 40, "kt_shape layout");
KT_STATIC_ASSERT(sizeof(kt_work) == 32, "kt_work layout");
KT_STATIC_ASSERT(sizeof(kt_variant) == 96,
                 "kt_variant layout"); /* 1.2: 88, 1.1: 80 */
KT_STATIC_ASSERT(sizeof(kt_jit_request) == 40, "kt_jit_request layout");
KT_STATIC_ASSERT(sizeof(kt_operator) == 96, "kt_operator layout"); /* 1.2: 88 */
KT_STATIC_ASSERT(sizeof(kt_plugin) == 88, "kt_plugin layout");
#endif

/* The struct sizes of ABI 1.0 (LP64): the smallest struct_size the host
 * accepts from a plugin (a newer plugin's structs may be larger). */
#define KTUNE_ABI_1_0_SIZEOF_PLUGIN 88u
#define KTUNE_ABI_1_0_SIZEOF_OPERATOR 88u
#define KTUNE_ABI_1_0_SIZEOF_VARIANT 56u
#define KTUNE_ABI_1_0_SIZEOF_PARAM_DESC 80u
#define KTUNE_ABI_1_0_SIZEOF_SIZE_DESC 48u

/* ------------------------------------------------------------------------ */
/* The entry symbol.                                                         */

#if defined(_WIN32)
#define KT_EXPORT __declspec(dllexport)
#else
#define KT_EXPORT __attribute__((visibility("default")))
#endif
#ifdef __cplusplus
#define KT_EXTERN_C extern "C"
#else
#define KT_EXTERN_C
#endif

/* Emits the plugin's one exported symbol, ktune_plugin_entry(). */
#define KT_PLUGIN_EXPORT(descriptor)                                           \
    KT_EXTERN_C KT_EXPORT const kt_plugin *ktune_plugin_entry(void);           \
    KT_EXTERN_C KT_EXPORT const kt_plugin *ktune_plugin_entry(void)            \
    {                                                                          \
        return &(descriptor);                                                  \
    }

#ifdef __cplusplus
}
#endif

#endif /* KTUNE_PLUGIN_H */

/* Source compatibility: until ABI 1.2 this header also held the helpers
 * (KT_PARAM_POW2(...), KT_STRUCT_SIZE, KT_PLUGIN_HEADER, kt_config_get,
 * kt_shape_1d, kt_div_up, ...), and plugins written then include this
 * header alone. They keep building unchanged: the helpers come from
 * <ktune/plugin_util.h>, which new code includes itself. Define
 * KT_NO_DEPRECATED to get the ABI alone. (Outside the include guard so that
 * either header may be included first.) */
#if !defined(KT_NO_DEPRECATED) && !defined(KTUNE_PLUGIN_UTIL_H)
#include <ktune/plugin_util.h>
#endif
