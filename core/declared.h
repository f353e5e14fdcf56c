// SPDX-License-Identifier: Apache-2.0
/*
 * Declared operators: a kernel in a .cu file with no ktune code, described
 * by INI sections (docs/declared.md) — its sizes, buffers and kernel
 * arguments, and per variant the kernel (template arguments from
 * parameters), block, grid and shared memory as expressions, and which
 * variant is the reference. ktune builds a plugin descriptor from that,
 * whose callbacks (core/declared_run.c) compile each compile-time
 * assignment with NVRTC, allocate and fill the buffers, compute the
 * reference once per problem and verify against it. Everything that works
 * for a compiled plugin (boundary sizes, workers, tuning, profile, compare,
 * report) works for it unchanged.
 *
 * A file the registry loads that is not a shared object (*.so) is read as a
 * declaration; the [job], [space], ... sections of a tuning job may sit in
 * the same file.
 */
#ifndef KT_DECLARED_H
#define KT_DECLARED_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/expr.h"
#include "core/param.h"
#include "ktune/plugin.h"

#define KT_DECL_MAX_BUFFERS 16
#define KT_DECL_MAX_ARGS 32
#define KT_DECL_MAX_VARIANTS 16
#define KT_DECL_MAX_TARGS 8
#define KT_DECL_MAX_DEFINES 64
#define KT_DECL_MAX_OPERATORS 8 /* declared operators per process */

typedef enum kt_decl_type {
    KT_DECL_F32 = 0,
    KT_DECL_F64,
    KT_DECL_I32,
    KT_DECL_I64,
    KT_DECL_U32,
    KT_DECL_U64
} kt_decl_type;

typedef struct kt_decl_buffer {
    char name[64];
    kt_decl_type type;
    kt_mem_role role;
    kt_expr *count; /* of sizes */
} kt_decl_buffer;

typedef struct kt_decl_arg {
    int buffer;        /* index into buffers, or -1 for a scalar */
    kt_decl_type type; /* scalars */
    kt_expr *value;    /* scalars: of sizes */
    char text[96];     /* as written, for messages */
} kt_decl_arg;

typedef struct kt_decl_variant {
    char id[64];
    char section[80];                  /* "variant.tiled" */
    char kernel[128];                  /* the name before any '<' */
    kt_expr *targs[KT_DECL_MAX_TARGS]; /* template arguments */
    size_t num_targs;
    char define_names[KT_DECL_MAX_DEFINES][64];
    kt_expr *defines[KT_DECL_MAX_DEFINES];
    size_t num_defines;
    /* Of sizes, then parameters (names = declared->names of the variant). */
    kt_expr *block[3], *grid[3], *smem, *require;
    int reference;
    uint64_t compile_time_mask; /* bit i: params[i] is compile-time */
    kt_param_desc params[KT_MAX_PARAMS];
    char param_names[KT_MAX_PARAMS][64];
    int64_t *values[KT_MAX_PARAMS];                  /* owned */
    const char *names[KT_MAX_SIZES + KT_MAX_PARAMS]; /* sizes, params */
    size_t num_names;
    /* space = PATH (a T1 file, docs/declared.md): the parameters it gave
     * (bit i: params[i]), and the conjuncts of require one by one, owned:
     * the declared require, then the file's Conditions (Python syntax).
     * require is then their conjunction (owned too); with no file, parts
     * is empty and require is the declared one. */
    uint64_t imported_mask;
    kt_expr **parts;
    size_t num_parts;
} kt_decl_variant;

typedef struct kt_declared {
    char path[4096];
    char name[64];
    char summary[256];
    char source_name[256];
    char *source;   /* the .cu text; owned */
    char **options; /* extra NVRTC options; owned */
    size_t num_options;
    char check_arch[32]; /* architecture of the GPU-free check */
    int modifies_inputs;
    double rtol, atol;
    kt_size_desc sizes[KT_MAX_SIZES];
    char size_names[KT_MAX_SIZES][64];
    const char *size_name_list[KT_MAX_SIZES];
    size_t num_sizes;
    kt_decl_buffer buffers[KT_DECL_MAX_BUFFERS];
    size_t num_buffers;
    kt_decl_arg args[KT_DECL_MAX_ARGS];
    size_t num_args;
    kt_expr *bytes_read, *bytes_written, *flops; /* may be NULL */
    kt_decl_variant variants[KT_DECL_MAX_VARIANTS];
    size_t num_variants;
    int reference; /* index of the reference variant */
    int slot;      /* index of the callbacks bound to this declaration */
    /* The descriptor handed to the registry. */
    kt_variant vdesc[KT_DECL_MAX_VARIANTS];
    kt_operator op;
    kt_plugin plugin;
    char compiler[64];
} kt_declared;

/* Reads and checks the declaration at path (every expression parsed, the
 * defaults evaluated, each variant's default kernel compiled with NVRTC
 * for check_arch: no GPU needed). KT_S_INPUT names file:line, the section
 * and key, the expression and what is wrong. Free with kt_declared_free().
 */
kt_status kt_declared_load(const char *path, kt_declared **out, kt_err *err);

void kt_declared_free(kt_declared *d);

/* Whether path holds an [operator] section (a declaration). */
int kt_declared_is_declaration(const char *path);

/* The element size of a type in bytes. */
size_t kt_decl_type_size(kt_decl_type t);

/* The C type of the kernel parameter: "float", "int", ... */
const char *kt_decl_type_c(kt_decl_type t);

/* The name expression and -D options of variant v at values (one per
 * parameter): "tiled<32, 1>" into expr, "-DTILE=32" strings into defs
 * (each KT_DECL_DEFINE_LEN bytes). KT_S_INPUT on an expression error. */
#define KT_DECL_DEFINE_LEN 96
kt_status kt_declared_kernel_name(const kt_declared *d, size_t v,
                                  const int64_t *sizes, const int64_t *values,
                                  char *expr, size_t expr_size,
                                  char defs[][KT_DECL_DEFINE_LEN], kt_err *err);

/* What one compilation of variant v at values needs: the name
 * expression, the -D options after the declaration's own, and the source
 * with its argument checks. One builder for the GPU-free check, the
 * compile on first launch and the background prefetch, so all three have
 * one cache key. */
typedef struct kt_decl_request {
    char name[512];
    char defs[KT_DECL_MAX_DEFINES][KT_DECL_DEFINE_LEN];
    const char *opts[KT_DECL_MAX_DEFINES + 64]; /* into d and defs */
    size_t num_opts;
    char *src; /* owned: free() it, also after a failure */
} kt_decl_request;

kt_status kt_declared_request(const kt_declared *d, size_t v,
                              const int64_t *sizes, const int64_t *values,
                              kt_decl_request *out, kt_err *err);

/* The source as compiled: the .cu text followed by static checks that the
 * kernel named by name_expr takes exactly the declared arguments. Owned by
 * the caller (free). */
char *kt_declared_source(const kt_declared *d, const char *name_expr);

/* ---- core/declared_run.c: the callbacks ---------------------------- */

/* Binds d's descriptor (d->plugin) to a free slot of callbacks. */
kt_status kt_declared_bind(kt_declared *d, kt_err *err);

/* Releases the slot (d stays valid). */
void kt_declared_unbind(kt_declared *d);

/* The declaration behind op (its descriptor or the registry's copy of
 * it; bound with kt_declared_bind), or NULL for an operator that is not
 * declared here (a compiled plugin, or an isolated copy). */
const kt_declared *kt_declared_of(const kt_operator *op);

/* The conjuncts of variant v's require (*parts[0..*n)): the parts of an
 * import, or the require alone (n 0 when there is none). Pointers into
 * v. */
void kt_declared_require_parts(const kt_decl_variant *v, kt_expr *const **parts,
                               size_t *n);

/* Evaluates expression e of variant v with the sizes and values. */
kt_status kt_declared_eval(const kt_decl_variant *v, const kt_expr *e,
                           const int64_t *sizes, size_t num_sizes,
                           const int64_t *values, int64_t *out, kt_err *err);

#endif
