// SPDX-License-Identifier: Apache-2.0
/*
 * ktune plugin helpers: header-only conveniences for plugin authors, built
 * on the ABI of <ktune/plugin.h> (included here). Nothing in this header is
 * exchanged with the host, so it may change between releases without
 * touching the ABI; a plugin compiled against any version of it loads in
 * any host of the same ABI major.
 *
 * One generation, one prefix (kt_ / KT_):
 *  - utility macros      KT_COUNT, KT_STRINGIFY, KT_STRUCT_SIZE
 *  - shapes              kt_shape_1d, kt_shape_1d_smem, kt_shape_2d,
 *                        kt_shape_cover, kt_shape_per_element<kernel> (C++17)
 *  - constraints         kt_config_get, kt_div_up, kt_check_resident
 *  - initialisers        KT_PARAM_POW2/RANGE/LIST/ENUM, KT_SIZE, KT_VARIANT,
 *                        KT_VARIANT_FIXED, KT_VARIANT_REFERENCE, KT_OPERATOR,
 *                        KT_PLUGIN, KT_PLUGIN_HEADER
 *  - ready callbacks     kt_setup_sizes, kt_teardown_free, kt_work_none,
 *                        kt_verify_nothing
 *  - lifecycle           kt_input_f32, kt_output_f32, kt_reference_to_device,
 *                        kt_check_kept
 *  - launching (CUDA)    kt_launch(shape, stream, kernel, args...)
 *
 * The variant initialisers fill launch_shaped (ABI 1.1): the host hands the
 * launch the shape it computed from shape(), so a variant's geometry is
 * derived in shape() alone and launch_shaped only enqueues:
 *
 *     int launch(void *st, const kt_config *c, const kt_shape *sh, void *s)
 *     { return kt_launch(*sh, s, kernel, args...); }
 *
 * The names of earlier generations are at the end, in a section labelled
 * deprecated (define KT_NO_DEPRECATED to leave them out).
 */
#ifndef KTUNE_PLUGIN_UTIL_H
#define KTUNE_PLUGIN_UTIL_H

#include <ktune/plugin.h>

#include <stdio.h>  /* snprintf, for kt_check_resident */
#include <stdlib.h> /* malloc and free */

#ifdef __cplusplus
extern "C" {
#endif

/* --- utility macros ---------------------------------------------------- */

#define KT_COUNT(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))
#define KT_STRINGIFY_(...) #__VA_ARGS__
#define KT_STRINGIFY(...) KT_STRINGIFY_(__VA_ARGS__)
#define KT_STRUCT_SIZE(type) .struct_size = (uint32_t)sizeof(type)

/* --- configurations and constraints ------------------------------------ */

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

/* --- shapes --------------------------------------------------------------
 * Each sets every field of the shape but struct_size (dynamic shared memory
 * included: 0 unless given) and returns KT_OK, or KT_INVALID when the grid
 * cannot be expressed (more than 2^31 - 1 blocks in x or 65535 in y). A
 * grid dimension of 0 becomes 1. The host checks the rest against the
 * device's limits. */

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

/* A 1-D grid of `grid` blocks of `block` threads, no dynamic shared
 * memory; kernel is the __global__ function for attribute queries (may be
 * NULL). */
static inline int kt_shape_1d(kt_shape *out, uint64_t grid, uint64_t block,
                              const void *kernel)
{
    return kt_shape_2d(out, grid, 1, block, 1, 0, kernel);
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

/* --- verification and inputs -------------------------------------------- */

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

/* --- descriptor initialisers -------------------------------------------
 * Counts come from the arrays, so they cannot disagree. Arguments are in
 * field order; pass NULL (nullptr) for an optional callback. */

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
        KT_STRUCT_SIZE(kt_param_desc),                                         \
            .kind = KT_PARAM_LIST, .name = (nm), .help = (hlp),                \
            .default_value = (dflt), .values = (vals), .count = KT_COUNT(vals) \
    }
#define KT_PARAM_ENUM(nm, hlp, lbls, dflt)                                     \
    {                                                                          \
        KT_STRUCT_SIZE(kt_param_desc),                                         \
            .kind = KT_PARAM_ENUM, .name = (nm), .help = (hlp),                \
            .default_value = (dflt), .labels = (lbls), .count = KT_COUNT(lbls) \
    }

#define KT_SIZE(nm, hlp, dflt, lo, hi)                                         \
    {                                                                          \
        KT_STRUCT_SIZE(kt_size_desc), .reserved = 0, .name = (nm),             \
                                      .help = (hlp), .default_value = (dflt),  \
                                      .min = (lo), .max = (hi)                 \
    }

/* params: an array of kt_param_desc; launch_: a launch_shaped callback. */
#define KT_VARIANT(id_, summary_, params_, shape_, check_, launch_)            \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant),                                            \
            .num_params = KT_COUNT(params_), .id = (id_),                      \
            .summary = (summary_), .params = (params_), .shape = (shape_),     \
            .check = (check_), .launch_shaped = (launch_)                      \
    }

/* A variant without tunable parameters (a library call, say). */
#define KT_VARIANT_FIXED(id_, summary_, shape_, check_, launch_)               \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant), .num_params = 0, .id = (id_),              \
                                    .summary = (summary_), .params = NULL,     \
                                    .shape = (shape_), .check = (check_),      \
                                    .launch_shaped = (launch_)                 \
    }

/* A vendor library's implementation without tunable parameters, marked
 * with the flag of the same name: the yardstick the tuned variants are held
 * to. */
#define KT_VARIANT_REFERENCE(id_, summary_, shape_, check_, launch_)           \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant),                                            \
            .num_params = 0, .id = (id_), .summary = (summary_),               \
            .params = NULL, .shape = (shape_), .check = (check_),              \
            .flags = KT_VARIANT_REFERENCE, .launch_shaped = (launch_)          \
    }

/* flags: KT_OP_* bits; sizes and variants: arrays. */
#define KT_OPERATOR(id_, summary_, flags_, sizes_, variants_, work_, setup_,   \
                    reset_, verify_, teardown_)                                \
    {                                                                          \
        KT_STRUCT_SIZE(kt_operator),                                           \
            .flags = (flags_), .id = (id_), .summary = (summary_),             \
            .sizes = (sizes_), .num_sizes = KT_COUNT(sizes_),                  \
            .num_variants = KT_COUNT(variants_), .variants = (variants_),      \
            .work = (work_), .setup = (setup_), .reset = (reset_),             \
            .verify = (verify_), .teardown = (teardown_)                       \
    }

#if defined(CUDART_VERSION)
#define KT_BUILD_CUDART CUDART_VERSION
#else
#define KT_BUILD_CUDART 0
#endif
#if defined(__CUDA_ARCH_LIST__)
#define KT_BUILD_ARCHS KT_STRINGIFY(__CUDA_ARCH_LIST__)
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

/* operators: an array of kt_operator. */
#define KT_PLUGIN(name_, version_, summary_, operators_)                       \
    {                                                                          \
        KT_PLUGIN_HEADER, .name = (name_), .version = (version_),              \
                          .summary = (summary_), .operators = (operators_),    \
                          .num_operators = KT_COUNT(operators_)                \
    }

/* --- ready-made callbacks ----------------------------------------------- */

/* The state of an operator whose launches need only the problem: a copy of
 * its sizes and the host. kt_setup_sizes allocates it; kt_teardown_free
 * frees it (and any state that is one malloc'd block). */
#define KT_SIZES_MAX 8
typedef struct kt_sizes_state {
    const kt_host *host;
    uint32_t num_sizes;
    int64_t sizes[KT_SIZES_MAX];
} kt_sizes_state;

static inline int kt_setup_sizes(const kt_host *host, const kt_problem *problem,
                                 void **state)
{
    kt_sizes_state *s = (kt_sizes_state *)calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return host->error(host, "out of host memory");
    if (problem->num_sizes > KT_SIZES_MAX)
        return host->error(host, "%u sizes, kt_setup_sizes keeps at most %d",
                           problem->num_sizes, KT_SIZES_MAX);
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

#ifdef __cplusplus
}
#endif

/* --- CUDA C++ only ------------------------------------------------------
 * A launch callback needs no error check of its own: the host reads
 * cudaGetLastError() right after every launch and tells a refused
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

/* ======================================================================== */
/* Deprecated: the names of earlier generations, kept so that plugin        */
/* sources written against them still compile. Each is defined after its    */
/* target; new code uses the names above. KT_NO_DEPRECATED drops them.      */
/* ======================================================================== */
#ifndef KT_NO_DEPRECATED
#define KTUNE_COUNT(array) KT_COUNT(array)
#define KTUNE_STRINGIFY_(...) KT_STRINGIFY_(__VA_ARGS__)
#define KTUNE_STRINGIFY(...) KT_STRINGIFY(__VA_ARGS__)
#define KTUNE_EXPORT KT_EXPORT
#define KTUNE_EXTERN_C KT_EXTERN_C
#define KTUNE_SIZES_MAX KT_SIZES_MAX
#define KTUNE_SIZE(nm, hlp, dflt, lo, hi) KT_SIZE(nm, hlp, dflt, lo, hi)
#define KTUNE_OPERATOR(id_, summary_, flags_, sizes_, variants_, work_,        \
                       setup_, reset_, verify_, teardown_)                     \
    KT_OPERATOR(id_, summary_, flags_, sizes_, variants_, work_, setup_,       \
                reset_, verify_, teardown_)
#define KTUNE_PLUGIN(name_, version_, summary_, operators_)                    \
    KT_PLUGIN(name_, version_, summary_, operators_)
/* The old variant initialisers set launch (the callback without the
 * shape), not launch_shaped. */
#define KTUNE_VARIANT(id_, summary_, params_, shape_, check_, launch_)         \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant), .num_params = KT_COUNT(params_),           \
                                    .id = (id_), .summary = (summary_),        \
                                    .params = (params_), .shape = (shape_),    \
                                    .check = (check_), .launch = (launch_)     \
    }
#define KTUNE_VARIANT_FIXED(id_, summary_, shape_, check_, launch_)            \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant), .num_params = 0, .id = (id_),              \
                                    .summary = (summary_), .params = NULL,     \
                                    .shape = (shape_), .check = (check_),      \
                                    .launch = (launch_)                        \
    }
#define KTUNE_VARIANT_REFERENCE(id_, summary_, shape_, check_, launch_)        \
    {                                                                          \
        KT_STRUCT_SIZE(kt_variant),                                            \
            .num_params = 0, .id = (id_), .summary = (summary_),               \
            .params = NULL, .shape = (shape_), .check = (check_),              \
            .launch = (launch_), .flags = KT_VARIANT_REFERENCE                 \
    }
#if defined(__cplusplus) && defined(__CUDACC__)
/* For a launch() that derives its own shape: kt_shape_cover(n, block),
 * then kt_launch; KT_INVALID, launching nothing, when the grid cannot be
 * expressed. A launch_shaped callback gets the shape instead. */
template <typename... Params, typename... Args>
static inline int kt_launch_cover(uint64_t n, uint64_t block, void *stream,
                                  void (*kernel)(Params...), Args... args)
{
    kt_shape s = {};
    if (kt_shape_cover(&s, n, block, (const void *)kernel) != KT_OK)
        return KT_INVALID;
    return kt_launch(s, stream, kernel, args...);
}
#endif
#endif /* KT_NO_DEPRECATED */

#endif /* KTUNE_PLUGIN_UTIL_H */
