// SPDX-License-Identifier: Apache-2.0
/*
 * Declared operators: a kernel in a .cu file with no ktune code, described
 * by INI sections (docs/declared.md) — its sizes, buffers and kernel
 * arguments, and per variant the kernel (template arguments from
 * parameters), block, grid and shared memory as expressions, and which
 * variant is the reference. ktune builds a plugin descriptor from that,
 * whose callbacks (engine/declared_run.c) compile each compile-time
 * assignment with NVRTC, allocate and fill the buffers, compute the
 * reference once per problem and verify against it. Everything that works
 * for a compiled plugin (boundary sizes, workers, tuning, profile, compare,
 * report) works for it unchanged.
 *
 * This floor (declared/, beside capture/) is the declaration itself: its
 * parser, files and fills, and the requests its kernels compile with. It
 * includes no CUDA header and runs no compiler: the check at load compiles
 * through the kt_decl_compile_fn it is given (NVRTC's, from the engine:
 * engine/declared_run.h, which also holds the callbacks).
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
#define KT_DECL_MAX_TARGS 8
#define KT_DECL_MAX_DEFINES 64

#define KT_DECL_MAX_CONSTANTS 8

typedef enum kt_decl_type {
    KT_DECL_F32 = 0,
    KT_DECL_F64,
    KT_DECL_I32,
    KT_DECL_I64,
    KT_DECL_U32,
    KT_DECL_U64,
    KT_DECL_I8,
    KT_DECL_U8,
    KT_DECL_I16,
    KT_DECL_U16,
    KT_DECL_F16
} kt_decl_type;

/* How an input (or in-out) buffer is filled (declared/declared_fill.c). */
typedef enum kt_decl_fill_kind {
    KT_FILL_DEFAULT = 0, /* uniform [-1, 1) floats, integers [-100, 100) */
    KT_FILL_UNIFORM,     /* uniform(a, b): [a, b) */
    KT_FILL_NORMAL,      /* normal(mu, sigma) */
    KT_FILL_CONSTANT,    /* constant(v) */
    KT_FILL_ARANGE,      /* arange(start, step): start + i * step */
    KT_FILL_INTEGERS,    /* integers(lo, hi): uniform integers in [lo, hi) */
    KT_FILL_NPY,         /* from FILE.npy */
    KT_FILL_KERNEL       /* from KERNEL: a generator the user writes */
} kt_decl_fill_kind;

typedef struct kt_decl_fill {
    kt_decl_fill_kind kind;
    double a, b;      /* the distribution's two numbers */
    char path[4096];  /* KT_FILL_NPY: resolved against the declaration */
    char kernel[128]; /* KT_FILL_KERNEL: the generator's name */
} kt_decl_fill;

/* Roles of [operator] buffer.NAME; inout is filled like an input, verified
 * like an output and restored before every launch that counts. */
#define KT_DECL_ROLE_INOUT 4

typedef struct kt_decl_buffer {
    char name[64];
    kt_decl_type type;
    int role;       /* kt_mem_role, or KT_DECL_ROLE_INOUT */
    kt_expr *count; /* of sizes */
    kt_decl_fill fill;
} kt_decl_buffer;

typedef struct kt_decl_arg {
    int buffer;        /* index into buffers, or -1 for a scalar */
    kt_decl_type type; /* scalars */
    kt_expr *value;    /* scalars: of sizes; NULL for a literal */
    int is_literal;    /* scalars: `literal` holds the value */
    int is_float_expr; /* float, double: value in Python arithmetic */
    double literal;    /* float 0.1, double 3.05e-6 */
    char view[64];     /* buffers: "float4" of `y as float4`, or "" */
    char text[96];     /* as written, for messages */
} kt_decl_arg;

/* constant.SYMBOL = BUFFER: a __constant__ symbol of the module filled
 * from the buffer after each load (Kernel Tuner's cmem_args). */
typedef struct kt_decl_constant {
    char symbol[64];
    int buffer;
} kt_decl_constant;

/* then = KERNEL of a variant (docs/declared.md, "Several kernels per
 * evaluation"): a second kernel of the same source and compile-time
 * values, launched after the variant's kernel with arguments and a launch
 * shape of its own, whose expressions read the sizes and the variant's
 * parameters. Timed with the first unless timed is 0: then it runs only
 * where outputs are read (the reference run, each point's verification). */
typedef struct kt_decl_then {
    char kernel[128]; /* the name before any '<' */
    kt_expr *targs[KT_DECL_MAX_TARGS];
    size_t num_targs;
    kt_decl_arg args[KT_DECL_MAX_ARGS];
    size_t num_args;
    kt_expr *block[3], *grid[3], *smem;
    int timed;
} kt_decl_then;

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
    /* Reference only: parameters it takes from the verified point
     * (`follows = tf`): indices into params, one reference per distinct
     * assignment of them. */
    int follows[KT_MAX_PARAMS];
    size_t num_follows;
    /* The operator's work expressions read with this variant's names
     * (sizes and parameters); NULL where the operator gives none. */
    kt_expr *work[3];           /* bytes_read, bytes_written, flops */
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
    kt_decl_then *then; /* then = KERNEL; NULL without one; owned */
    /* The descriptor's data (kt_variant.data, ABI 1.3): its callbacks
     * find the declaration and this variant's index here
     * (kt_declared_describe sets them). */
    const struct kt_declared *decl;
    size_t index;
} kt_decl_variant;

typedef struct kt_declared {
    char path[4096];
    char name[64];
    char summary[256];
    char source_name[256];
    char *source;     /* the .cu text; owned */
    char *gen_source; /* generator_source's text, or NULL: source; owned */
    char gen_source_name[256];
    char dir[4096]; /* the declaration's folder: includes resolve here */
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
    kt_decl_constant constants[KT_DECL_MAX_CONSTANTS];
    size_t num_constants;
    uint32_t pinned_mask; /* bit i: sizes[i] is pinned (min = max) */
    kt_expr *bytes_read, *bytes_written, *flops; /* may be NULL */
    /* The work expressions as written; those that read parameters are
     * NULL above and evaluated per variant (kt_decl_variant.work). */
    char work_text[3][512];
    int work_uses_params;
    kt_decl_variant *variants; /* one per [variant.*] section; owned */
    size_t num_variants;
    int reference; /* index of the reference variant */
    /* The descriptor handed to the registry: its callbacks read the
     * declaration from kt_operator.data, a variant from kt_variant.data. */
    kt_variant *vdesc; /* num_variants; owned */
    kt_operator op;
    kt_plugin plugin;
    char compiler[64];
} kt_declared;

/* One compile the check at load asks for: NVRTC's request
 * (engine/nvrtc.h) field for field. */
typedef struct kt_decl_compile {
    const char *source;      /* CUDA C++ text */
    const char *source_name; /* for the compiler's messages */
    const char *name_expr;   /* the kernel: "k" or "k<32, 1>" */
    const char *arch;        /* the declaration's check_arch */
    const char *const *options;
    size_t num_options;
} kt_decl_compile;

/* What it gave: compiled 0 with the compiler's first error in first, or 1
 * with the image (PTX for a compute_ arch: NUL-terminated; malloc'ed, the
 * caller frees it; NULL when there is none). */
typedef struct kt_decl_compiled {
    int compiled;
    char *image;
    size_t image_size;
    char first[600];
} kt_decl_compiled;

/* The compiler a declaration's kernels are checked with at load: KT_S_OK
 * with *out set, else the status and message of why no compile ran (with
 * "NVRTC_ERROR_INVALID_OPTION" in the message when the options were
 * refused, which the check then blames on one of them). */
typedef kt_status (*kt_decl_compile_fn)(const kt_decl_compile *req,
                                        kt_decl_compiled *out, kt_err *err);

/* Reads and checks the declaration at path (every expression parsed, the
 * defaults evaluated, and with compile each variant's default kernel and
 * each generator compiled for check_arch: no GPU needed; NULL compile: no
 * kernel compiled, as where no compiler runs). KT_S_INPUT names file:line,
 * the section and key, the expression and what is wrong. Free with
 * kt_declared_free(). engine/declared_run.h's kt_declared_load checks
 * with NVRTC. */
kt_status kt_declared_read(const char *path, kt_decl_compile_fn compile,
                           kt_declared **out, kt_err *err);

void kt_declared_free(kt_declared *d);

/* Whether path holds an [operator] section (a declaration). */
int kt_declared_is_declaration(const char *path);

/* The element size of a type in bytes. */
size_t kt_decl_type_size(kt_decl_type t);

/* The C type of the kernel parameter: "float", "int", ... */
const char *kt_decl_type_c(kt_decl_type t);

/* Scalar argument a's value at sizes, as a double (float and double
 * arguments: a literal, or an expression in Python arithmetic, so
 * `float 0.016 / w` divides truly). sizes holds the values of the names
 * a was parsed against: the sizes for [operator] args, the sizes then the
 * variant's parameters for then.args. */
kt_status kt_declared_scalar(const kt_declared *d, const kt_decl_arg *a,
                             const int64_t *sizes, double *out, kt_err *err);

/* The declaration's name of a type: "f32", "u8", ... */
const char *kt_decl_type_name(kt_decl_type t);

/* The source a generator kernel of buffer b is compiled from
 * (generator_source, else source) with a static check of its signature
 * (T *out, size_t count, unsigned long long seed). Owned by the caller. */
char *kt_declared_gen_source(const kt_declared *d, size_t b);

/* What one generator compile of buffer b needs at sizes: its source
 * (kt_declared_gen_source), the declaration's options and
 * -DKTUNE_SIZE_<name>=<value> for every size, so a generator can lay out
 * its values (a zero border, one row per channel). Free with
 * kt_decl_gen_free(), also after a failure. */
typedef struct kt_decl_gen {
    char *src;
    char defs[KT_MAX_SIZES][96];
    const char **opts;
    size_t num_opts;
} kt_decl_gen;

kt_status kt_declared_gen_request(const kt_declared *d, size_t b,
                                  const int64_t *sizes, kt_decl_gen *out,
                                  kt_err *err);
void kt_decl_gen_free(kt_decl_gen *g);

/* ---- declared/declared_path.c: files named by a declaration ---------- */

/* Copies in to out[size] with each ${VAR} replaced by its value; an unset
 * or empty variable is KT_S_INPUT naming it. */
kt_status kt_decl_expand(const char *in, char *out, size_t size, kt_err *err);

/* The folder of path ("." when it has none). */
void kt_decl_dirname(const char *path, char *out, size_t size);

/* text expanded, then resolved against dir unless absolute. */
kt_status kt_decl_path(const char *dir, const char *text, char *out,
                       size_t size, kt_err *err);

/* Reads a regular file whole (NUL-terminated, malloc'ed, caller frees). */
kt_status kt_decl_read_file(const char *path, char **text, size_t *len,
                            kt_err *err);

/* Appends an NVRTC option (${VAR} expanded); an include folder (-IDIR,
 * --include-path=DIR, or DIR after a separate -I when is_path) resolved
 * against the declaration's folder. */
kt_status kt_decl_add_option(kt_declared *d, const char *opt, int is_path,
                             kt_err *err);

/* Adds the folder of file (absolute) to the include path, once. */
kt_status kt_decl_add_include(kt_declared *d, const char *file, kt_err *err);

/* ---- declared/declared_fill.c: what inputs hold ----------------------- */

/* Parses FILL of `buffer.x = input f32[n] FILL` for a buffer of type t; a
 * .npy path resolves against dir and its dtype is checked now. */
kt_status kt_decl_fill_parse(const char *text, kt_decl_type t, const char *dir,
                             kt_decl_fill *out, kt_err *err);

/* Fills dst[0..n) of type t on the host from the problem's seed (through
 * h->random_f32 with stream) or the .npy file (its element count must be
 * n). Not for KT_FILL_KERNEL (filled on the device). */
kt_status kt_decl_fill_host(const kt_decl_fill *f, kt_decl_type t,
                            const kt_host *h, uint64_t stream, void *dst,
                            size_t n, kt_err *err);

/* The n elements of type t of f's .npy file (KT_FILL_NPY) mapped
 * read-only: *data points at them, *map and *map_len are what
 * kt_decl_npy_unmap takes. No copy: an array libktune holds in shared
 * memory (libktune/arrays.c) is uploaded from where it is. */
kt_status kt_decl_npy_map(const kt_decl_fill *f, kt_decl_type t, size_t n,
                          const void **data, void **map, size_t *map_len,
                          kt_err *err);
void kt_decl_npy_unmap(void *map, size_t map_len);

/* The longest .npy header read (NumPy writes 128 bytes, more for long
 * shapes). */
#define KT_DECL_NPY_MAX_HEADER 4095

/* The element count and data offset of a .npy file whose dtype must be
 * t's (little-endian). KT_S_INPUT, naming why, for anything else: not a
 * regular file (a FIFO or a device is refused, never waited on), a header
 * longer than KT_DECL_NPY_MAX_HEADER, a shape whose product overflows,
 * fortran_order True with two or more dimensions above 1 (the kernel would
 * get the transpose), or a file whose size is not exactly the header plus
 * the shape's elements (cut short, header only, or bytes after). */
kt_status kt_decl_npy_header(const char *path, kt_decl_type t, size_t *count,
                             long *data_offset, kt_err *err);

/* Element i of a buffer of type t, as a double, and back (integers rounded
 * down and saturated, f16 rounded to nearest even). */
double kt_decl_load(const void *buf, kt_decl_type t, size_t i);
void kt_decl_store(void *buf, kt_decl_type t, size_t i, double x);
uint16_t kt_decl_f16_from(double x);
double kt_decl_f16_to(uint16_t h);

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

/* The same for variant v's then-kernel: its name expression, the same -D
 * options, the source with the checks of then.args. */
kt_status kt_declared_then_request(const kt_declared *d, size_t v,
                                   const int64_t *sizes, const int64_t *values,
                                   kt_decl_request *out, kt_err *err);

/* The source as compiled: the .cu text followed by static checks that the
 * kernel named by name_expr takes exactly the arguments args[0..n) (the
 * operator's args, or a then-kernel's). Owned by the caller (free). */
char *kt_declared_source(const kt_declared *d, const char *name_expr,
                         const kt_decl_arg *args, size_t n);

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
