/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libktune: the tuner as a library (docs/library.md).
 *
 * A session declares one kernel (an operator: source, buffers, arguments,
 * sizes, one or more variants with their launch geometry and tunable
 * parameters, and how it is verified), then runs it: tune, bench or profile
 * one configuration, check (counts, no GPU), or replay a recording. Each
 * run returns a result read through accessors or taken whole as the JSON
 * document `ktune tune --json` writes.
 *
 * One code path: the calls below build the same declaration document an
 * INI file holds (docs/declared.md) in a private session folder (mkdtemp,
 * mode 0700), with the kernel source written there. Every host array given
 * by the caller is copied once, when it is given, into anonymous shared
 * memory (memfd_create) laid out as a .npy file and named in the folder by
 * a link NAME.npy -> /proc/PID/fd/N: the declared `from NAME.npy` fill
 * maps it, in this process and in the worker processes, so no array is
 * written to disk or read back, and nothing of it outlives the session
 * (where memfd_create is missing, a regular .npy file is written). Each
 * run executes the CLI's own command code in this
 * process (`ktune tune DECL.ini --json - ...`: the ktune program is a thin
 * dispatch over the same library), so every check, message, measurement
 * protocol, isolation, journal and result is the CLI's; the --json
 * document and the messages arrive in memory, nothing is written to this
 * process's stdout or stderr (unless verbose) and no signal handler is
 * installed. Kernels run in worker processes (isolation, on by default):
 * a worker is the ktune executable: the one ktune_session_set_exe() names,
 * else $KTUNE_EXE, else the one next to libktune (build tree), else the
 * install's bindir (relative to the library's folder), else ktune on
 * PATH (none: a run fails, naming the two ways to give it); its folder
 * also holds the built-in plugins and the NVRTC helper, so it is needed
 * with isolation off too. Never /proc/self/exe: that is the program that
 * loaded libktune.
 *
 * Conventions (ctypes/cffi friendly): opaque handles, plain C types, no
 * varargs, no struct passed by value, explicit enums as int.
 *
 * Errors: every fallible call returns a ktune_code (0 success); the message
 * is ktune_session_errmsg() (for a run, the exact line the CLI prints,
 * "ktune tune: ..."). A bad argument (NULL handle, unknown name, wrong
 * order) is KTUNE_E_INPUT with a message naming the call and the argument.
 *
 * Ownership: ktune_session_new() returns a session the caller frees with
 * ktune_session_free() (which removes its folder). A ktune_result is the
 * caller's, freed with ktune_result_free(), and outlives its session.
 * Strings returned by accessors belong to their object and stay valid
 * until it is freed (ktune_session_errmsg: until the next call on the
 * session). Data passed in (arrays, text) is copied during the call; the
 * caller may free it at once.
 *
 * Thread safety: distinct sessions and results may be used from distinct
 * threads at once. One session or one result must not be used by two
 * threads at the same time (no internal locking). A run (check, tune,
 * bench, profile, replay) blocks the calling thread, and runs are
 * serialised in the process: the CLI's command code they execute keeps
 * process state (getopt, the output table, where messages go), so a run
 * of another session in another thread waits for the one going on.
 * Declaring, results and everything else go on in parallel.
 */
#ifndef KTUNE_KTUNE_H
#define KTUNE_KTUNE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KTUNE_VERSION_MAJOR 0
#define KTUNE_VERSION_MINOR 1
#define KTUNE_VERSION_PATCH 0

/* ---- return codes ------------------------------------------------------ */
typedef enum ktune_code {
    KTUNE_OK = 0,
    KTUNE_E_FAILURE = 1,    /* runtime failure: no GPU, CUDA, nothing valid
                               found (the CLI's exit 1) */
    KTUNE_E_INPUT = 2,      /* the caller's mistake: a bad declaration,
                               argument or option (the CLI's exit 2) */
    KTUNE_E_NOMEM = 3,      /* out of memory */
    KTUNE_E_IO = 4,         /* the session folder or a file could not be
                               written or read; ktune could not start */
    KTUNE_E_UNSUPPORTED = 5 /* not supported by this version: named in the
                               message */
} ktune_code;

/* ---- element types of host arrays and buffers --------------------------- */
typedef enum ktune_type {
    KTUNE_F32 = 0,
    KTUNE_F64 = 1,
    KTUNE_I32 = 2,
    KTUNE_I64 = 3,
    KTUNE_U32 = 4,
    KTUNE_U64 = 5,
    KTUNE_I8 = 6,
    KTUNE_U8 = 7,
    KTUNE_I16 = 8,
    KTUNE_U16 = 9,
    KTUNE_F16 = 10 /* IEEE half, given as uint16_t bits */
} ktune_type;

/* ---- C types of scalar kernel arguments --------------------------------- */
typedef enum ktune_ctype {
    KTUNE_C_CHAR = 0,     /* char */
    KTUNE_C_SHORT = 1,    /* short */
    KTUNE_C_INT = 2,      /* int */
    KTUNE_C_UNSIGNED = 3, /* unsigned */
    KTUNE_C_LONG = 4,     /* long */
    KTUNE_C_SIZE_T = 5,   /* size_t */
    KTUNE_C_FLOAT = 6,    /* float */
    KTUNE_C_DOUBLE = 7,   /* double */
    KTUNE_C_INT8 = 8,     /* int8_t */
    KTUNE_C_UINT8 = 9,    /* uint8_t */
    KTUNE_C_INT16 = 10,   /* int16_t */
    KTUNE_C_UINT16 = 11,  /* uint16_t */
    KTUNE_C_INT32 = 12,   /* int32_t */
    KTUNE_C_UINT32 = 13,  /* uint32_t */
    KTUNE_C_INT64 = 14,   /* int64_t */
    KTUNE_C_UINT64 = 15   /* uint64_t */
} ktune_ctype;

/* ---- buffer roles ------------------------------------------------------- */
typedef enum ktune_role {
    KTUNE_IN = 0,     /* read by the kernel */
    KTUNE_OUT = 1,    /* written: poisoned before each verification and
                         compared with the reference */
    KTUNE_INOUT = 2,  /* filled like an input, verified like an output,
                         restored before every launch that counts */
    KTUNE_SCRATCH = 3 /* neither filled nor compared */
} ktune_role;

/* ---- version ------------------------------------------------------------ */

/* The library's version ("0.1.0") and its numbers; any pointer may be
 * NULL. The soname changes with the major version. */
const char *ktune_version(int *major, int *minor, int *patch);

/* ---- sessions ----------------------------------------------------------- */
typedef struct ktune_session ktune_session;
typedef struct ktune_result ktune_result;

/* A new session with its private folder. KTUNE_OK, or KTUNE_E_NOMEM /
 * KTUNE_E_IO with *out NULL (the reason is lost: no session holds it; it
 * is also printed nowhere). */
int ktune_session_new(ktune_session **out);

/* Frees the session and removes its folder (NULL: nothing). */
void ktune_session_free(ktune_session *s);

/* The message of the last failed call on s ("" after a success). Owned by
 * s; valid until the next call on s. s NULL: a fixed message. */
const char *ktune_session_errmsg(const ktune_session *s);

/* The session's folder (the declaration, source and arrays written there),
 * owned by s. */
const char *ktune_session_dir(const ktune_session *s);

/* The ktune executable worker processes run and whose folder holds the
 * plugins (default: found as the top of this file says). Runs themselves
 * are in this process (this call once named the program each run
 * started). */
int ktune_session_set_exe(ktune_session *s, const char *path);

/* Any key of the tuning job, as `ktune tune --set SECTION.KEY=VALUE`
 * (docs/configs.md): strategy.name, strategy.max_evals,
 * strategy.max_seconds, strategy.seed, strategy.<option>, measure.cache,
 * measure.min_samples, ..., job.seed, job.devices, objective.name, ...
 * Checked by the run (an unknown key is refused there, with the CLI's
 * message). Setting a key again replaces its value. */
int ktune_session_set(ktune_session *s, const char *key, const char *value);

/* Shorthands for ktune_session_set. */
int ktune_session_set_strategy(ktune_session *s, const char *name);
/* max_evals 0: no cap; max_seconds 0: none; fraction 0: none (else the
 * fraction (0, 1] of the feasible space evaluated at most). */
int ktune_session_set_budget(ktune_session *s, int64_t max_evals,
                             double max_seconds, double fraction);
/* time (default), energy, or a derived objective (docs/configs.md). */
int ktune_session_set_objective(ktune_session *s, const char *name);
int ktune_session_set_seed(ktune_session *s, int64_t seed);
/* CUDA device ordinal for bench/profile, and the device tune uses. */
int ktune_session_set_device(ktune_session *s, int device);
/* 1 (default): kernels run in worker processes; 0: in this process (CUDA
 * is then loaded into it, and a faulting kernel ends it). */
int ktune_session_set_isolation(ktune_session *s, int on);
/* 1: ktune's progress and summary reach this process's stderr as the run
 * goes; 0 (default): quiet. */
int ktune_session_set_verbose(ktune_session *s, int on);
/* Where ktune's messages go while a run goes (progress, notes, the
 * summary's stderr part): fn(user, line) for each line, without its
 * newline, called on the thread that runs; NULL: back to the default
 * (stderr when verbose, else nowhere). Setting fn also turns ktune's
 * progress on, as verbose does. For bindings whose output is not file
 * descriptor 2 (a notebook). */
typedef void (*ktune_log_fn)(void *user, const char *line);
int ktune_session_set_log(ktune_session *s, ktune_log_fn fn, void *user);
/* Keep the journal of each run at path (default: in the session folder,
 * removed with it). NULL: back to the default. */
int ktune_session_set_journal(ktune_session *s, const char *path);

/* ---- the kernel's declaration --------------------------------------------
 * Calls may come in any order before a run; variant calls apply to the
 * variant last begun with ktune_variant(). Names are C identifiers. Each
 * text below is what an INI declaration would hold for the same key
 * (docs/declared.md), so expressions are its expressions. */

/* The operator's name (default "kernel"). A name equal to a built-in
 * plugin's (vector_add) is allowed: see docs/library.md. */
int ktune_declare(ktune_session *s, const char *name);

/* The kernel source, as text (copied into the session folder as NAME.cu)
 * or as a file (read in place: its folder is on the include path). */
int ktune_source_text(ktune_session *s, const char *text);
int ktune_source_file(ktune_session *s, const char *path);

/* A header the source includes as "name", written into the session's
 * folder (on the include path). */
int ktune_header(ktune_session *s, const char *name, const char *text);

/* An NVRTC option ("-use_fast_math", "-std=c++17"), repeatable. */
int ktune_option(ktune_session *s, const char *option);

/* An include folder (-I), repeatable. */
int ktune_include_dir(ktune_session *s, const char *dir);

/* A problem size: a name expressions read (n, rows). pinned 1: the source
 * compiles it in (boundary sizes keep it). */
int ktune_size(ktune_session *s, const char *name, int64_t value, int pinned);

/* A buffer of count elements of type. Inputs and in-outs take their
 * values from data (copied now, once, into the session's shared memory:
 * see the top of this file); data NULL fills them as
 * `fill` says (NULL: ktune's default seeded values; else "uniform(a, b)",
 * "normal(mu, sigma)", "constant(v)", "arange", "integers(lo, hi)"). For
 * outputs and scratch data and fill must be NULL. count_expr (NULL: count)
 * is the count as an expression of the sizes, for problems that change
 * size; with data it must equal count at the given sizes. */
int ktune_buffer(ktune_session *s, const char *name, int role, int type,
                 const void *data, size_t count, const char *count_expr,
                 const char *fill);

/* __constant__ symbol filled from input buffer `buffer` after each load
 * (Kernel Tuner's cmem_args). */
int ktune_constant(ktune_session *s, const char *symbol, const char *buffer);

/* The kernel's arguments, appended in order. A buffer by name (view: the
 * pointee type the kernel takes when it is another, "float4"; NULL: the
 * buffer's own); a scalar of ctype given as an expression of the sizes
 * ("n", "n * n") or as a value. */
int ktune_arg_buffer(ktune_session *s, const char *buffer, const char *view);
int ktune_arg_expr(ktune_session *s, int ctype, const char *expr);
int ktune_arg_int(ktune_session *s, int ctype, int64_t value);
int ktune_arg_uint(ktune_session *s, int ctype, uint64_t value);
int ktune_arg_float(ktune_session *s, int ctype, double value);

/* Begins variant id whose kernel is `kernel` ("name" or
 * "name<tile, 2 * pad>": template arguments are expressions). */
int ktune_variant(ktune_session *s, const char *id, const char *kernel);

/* A tunable parameter of the current variant and its values (ascending);
 * the first is the default unless ktune_param_default names another. */
int ktune_param(ktune_session *s, const char *name, const int64_t *values,
                size_t count);
int ktune_param_default(ktune_session *s, const char *name, int64_t value);

/* Launch geometry of the current variant: one to three comma-separated
 * expressions of the sizes and parameters (missing ones are 1). */
int ktune_block(ktune_session *s, const char *xyz);
int ktune_grid(ktune_session *s, const char *xyz);
/* The grid as Kernel Tuner derives it: dimension i is
 * ceil_div(problem_i, divisor_i), both comma-separated lists of
 * expressions ("n" and "block_size_x * tile"). */
int ktune_grid_divisors(ktune_session *s, const char *problem,
                        const char *divisors);
/* Dynamic shared memory in bytes, an expression. */
int ktune_smem(ktune_session *s, const char *expr);
/* A restriction, an expression (C syntax); repeatable (all must hold). */
int ktune_require(ktune_session *s, const char *expr);
/* -DMACRO=value with value an expression; repeatable. */
int ktune_define(ktune_session *s, const char *macro, const char *expr);
/* A T1 file whose space the variant takes (docs/declared.md). */
int ktune_space_file(ktune_session *s, const char *path);

/* ---- verification ----------------------------------------------------------
 * One of: a reference answer per output (ktune_answer), a reference
 * variant (ktune_reference on a variant: its default configuration's
 * output is what every point is compared with), or none given: each
 * point is compared with the first variant's default configuration. */

/* The expected contents of output (or in-out) buffer `buffer`: count
 * elements of its type, copied now. Outputs given no answer while others
 * have one are not compared (docs/library.md). */
int ktune_answer(ktune_session *s, const char *buffer, const void *data,
                 size_t count);
/* Marks the current variant as the reference (run at its defaults). */
int ktune_reference(ktune_session *s);
/* |got - want| <= atol + rtol * |want| (default 0, 0: exact). */
int ktune_tolerance(ktune_session *s, double rtol, double atol);

/* One output of a point, handed to a verification callback: the buffer's
 * name, its element type, count elements of the kernel's values in that
 * type (data), and the reference's values (answer or reference variant)
 * for the same elements as doubles (expected). Borrowed for the call. */
typedef struct ktune_output {
    const char *name;
    int type; /* ktune_type */
    size_t count;
    const void *data;
    const double *expected;
} ktune_output;

/* Returns 1 when the outputs pass, 0 when they fail (then it may write a
 * reason, NUL-terminated, to msg: msg_size bytes, "" on entry). */
typedef int (*ktune_verify_fn)(void *user, const ktune_output *outputs,
                               size_t num_outputs, char *msg, size_t msg_size);

/* fn decides every point's verification in place of the tolerances: it is
 * called with each verified output (every output, or those with answers)
 * after the point ran, at each boundary size and the requested one, on the
 * thread that runs (tune, bench or profile). The outputs exist only in the
 * process that ran the kernel, so a session with a callback runs its
 * kernels in this process: isolation is off for its runs whatever
 * ktune_session_set_isolation said (a faulting kernel ends the caller).
 * fn must not call libktune on any session. NULL: back to the
 * tolerances. user is passed through. */
int ktune_verify_callback(ktune_session *s, ktune_verify_fn fn, void *user);

/* ---- runs ------------------------------------------------------------------
 * Each writes the declaration, runs the CLI's command in this process
 * (one run at a time in the process: see Thread safety) and, on KTUNE_OK,
 * returns a result (*out; the caller frees it). On failure *out is NULL
 * and the message is ktune_session_errmsg(). */

/* The declaration checked and its space counted; no GPU needed. */
int ktune_check(ktune_session *s, ktune_result **out);
/* The search (strategy, budget, objective, protocol as set). */
int ktune_tune(ktune_session *s, ktune_result **out);
/* One configuration verified and timed: variant NULL is the first; config
 * "tile=32,pad=1" (NULL or "": the defaults). */
int ktune_bench(ktune_session *s, const char *variant, const char *config,
                ktune_result **out);
/* One configuration profiled (time, counters, diagnosis). */
int ktune_profile(ktune_session *s, const char *variant, const char *config,
                  ktune_result **out);
/* The search answered from a recording instead of a GPU. With a declared
 * kernel: a ktune journal of it (the space is the declaration's). Without
 * one: a ktune journal, a Kernel Tuner cache or T4 results file, replayed
 * as `ktune tune --replay FILE` does. */
int ktune_replay(ktune_session *s, const char *recording, ktune_result **out);

/* ---- results ---------------------------------------------------------------
 * kinds: "ktune.check", "ktune.tune", "ktune.bench", "ktune.profile". */
void ktune_result_free(ktune_result *r);
const char *ktune_result_kind(const ktune_result *r);

/* The whole result as a JSON document: for tune and replay the one
 * `ktune tune --json` writes, for bench and profile theirs
 * (docs/schemas/), for check the one `ktune tune --check --json FILE`
 * writes, {"kind": "ktune.check", "job", "space": {"size", "feasible",
 * "counted", "estimated"}, "variants": [{"id", "points", "feasible"}]},
 * with "text": the CLI's --check output. "feasible" is null where the
 * operator cannot be counted without a device, and an estimate where
 * "estimated" is true (a space too large to count each point). */
const char *ktune_result_json(const ktune_result *r);

/* Generic access by path into that document: keys and array indices
 * separated by '.' ("best.median_us", "best.params.tile",
 * "environment.device.name", "top.0.config"). The root also has "points":
 * every evaluation of the run in order (the journal's entries: "points.3.
 * status", "points.3.timing.kernel.median", "points.3.point.params.tile"),
 * which is the search path. */
/* KTUNE_OK with *out the number (true/false: 1/0), KTUNE_E_INPUT when the
 * path is missing or not a number. */
int ktune_result_number(const ktune_result *r, const char *path, double *out);
/* The string at path, NULL when missing or not a string. Owned by r. */
const char *ktune_result_string(const ktune_result *r, const char *path);
/* Elements of the array or keys of the object at path; 0 when missing. */
size_t ktune_result_count(const ktune_result *r, const char *path);
/* Key i of the object at path, NULL when out of range. Owned by r. */
const char *ktune_result_key(const ktune_result *r, const char *path, size_t i);
/* The value at path as compact JSON, NULL when missing. Owned by r (valid
 * until r is freed). */
const char *ktune_result_value_json(const ktune_result *r, const char *path);

/* Typed shorthands over the same document. */

/* Number of evaluations (points) of the run, in search order: for bench
 * and profile the one configuration (its "result", with profile's counters
 * by name); none for a replay of another tool's recording (its answer is
 * the summary's: best, top, trace). */
size_t ktune_result_num_points(const ktune_result *r);
/* Point i's variant, its configuration text ("tiled tile=32 pad=1"),
 * status ("ok", "invalid", "failed", ...) and reason ("" when ok). */
const char *ktune_result_point_variant(const ktune_result *r, size_t i);
const char *ktune_result_point_config(const ktune_result *r, size_t i);
const char *ktune_result_point_status(const ktune_result *r, size_t i);
const char *ktune_result_point_reason(const ktune_result *r, size_t i);
/* Point i's parameters: their number, the name and value of each. */
size_t ktune_result_point_num_params(const ktune_result *r, size_t i);
const char *ktune_result_point_param_name(const ktune_result *r, size_t i,
                                          size_t j);
int64_t ktune_result_point_param_value(const ktune_result *r, size_t i,
                                       size_t j);

/* Statistics of a point or of the best. */
typedef enum ktune_stat {
    KTUNE_STAT_MEDIAN_US = 0, /* median kernel time */
    KTUNE_STAT_CI_LO_US = 1,  /* confidence interval of the median */
    KTUNE_STAT_CI_HI_US = 2,
    KTUNE_STAT_NOISE = 3,   /* robust relative noise */
    KTUNE_STAT_SAMPLES = 4, /* number of samples */
    KTUNE_STAT_MIN_US = 5,
    KTUNE_STAT_MEAN_US = 6,
    KTUNE_STAT_STDDEV_US = 7,
    KTUNE_STAT_COMPILE_S = 8, /* NVRTC compile time of the point */
    KTUNE_STAT_ENERGY_J = 9   /* energy per launch, when measured */
} ktune_stat;

/* KTUNE_OK with *out, KTUNE_E_INPUT when the point lacks it (an invalid
 * point has no timing; energy is measured only when asked). */
int ktune_result_point_stat(const ktune_result *r, size_t i, int stat,
                            double *out);
/* Point i's raw samples in microseconds: copies min(n, count) into out
 * (out may be NULL with n 0) and returns count. */
size_t ktune_result_point_samples(const ktune_result *r, size_t i, double *out,
                                  size_t n);
/* A hardware counter of point i (profile, or [metrics] in a tune). */
int ktune_result_point_counter(const ktune_result *r, size_t i,
                               const char *name, double *out);

/* The answer: 1 when the run found a verified best, 0 otherwise. */
int ktune_result_has_best(const ktune_result *r);
/* Its configuration text, variant, parameters and statistics (the
 * finalists' re-measurement where there was one). Without a best the
 * texts are "" and the statistics KTUNE_E_INPUT. */
const char *ktune_result_best_config(const ktune_result *r);
const char *ktune_result_best_variant(const ktune_result *r);
size_t ktune_result_best_num_params(const ktune_result *r);
const char *ktune_result_best_param_name(const ktune_result *r, size_t j);
int64_t ktune_result_best_param_value(const ktune_result *r, size_t j);
int ktune_result_best_stat(const ktune_result *r, int stat, double *out);

/* Writes to path the self-contained HTML report `ktune report` makes of a
 * result document (json: ktune_result_json's text of a tune, replay,
 * bench or profile result, or a `--json` file's): plots, the search path,
 * the environment. Rendered in this process by the CLI's own report
 * command on session s (its messages are s's), as a run is. KTUNE_E_INPUT
 * for a document the report cannot read (a check's), with the message. */
int ktune_report(ktune_session *s, const char *json, const char *path);

/* check: points of the space before device limits and after require
 * (KTUNE_E_INPUT when the latter is not known: see ktune_result_json). */
int ktune_result_space(const ktune_result *r, int64_t *size, int64_t *feasible);

#ifdef __cplusplus
}
#endif

#endif
