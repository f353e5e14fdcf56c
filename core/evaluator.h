// SPDX-License-Identifier: Apache-2.0
/*
 * kt_evaluator: the one narrow interface behind which all CUDA work happens.
 *
 * Callers (bench, the tuner, compare) hand it points and get back verified
 * timings; they never touch a CUDA context. The local implementation runs
 * in this process; a worker implementation runs the local one in a child
 * process (so a faulting kernel cannot take the caller down); a replay
 * implementation answers from recorded results without a GPU.
 */
#ifndef KT_EVALUATOR_H
#define KT_EVALUATOR_H

#include <jansson.h>
#include <stddef.h>

#include "core/calibration.h"
#include "core/energy.h"
#include "core/error.h"
#include "core/loader.h"
#include "core/point.h"
#include "core/protocol.h"
#include "core/timing.h"

/* Opens the error text of a kernel that did not compile (kt_host.compile),
 * by which a point's reason is recognised as T4's invalidity "compile". */
#define KT_COMPILE_FAILED "does not compile: "

typedef enum kt_eval_status {
    KT_EVAL_OK = 0,
    KT_EVAL_INVALID,  /* constraint, device limit or launch refused */
    KT_EVAL_MISMATCH, /* verification failed */
    KT_EVAL_ERROR,    /* a plugin callback or CUDA call failed */
    KT_EVAL_EXEC,     /* the kernel faulted; the context was lost */
    KT_EVAL_CRASH,    /* the process evaluating it died */
    KT_EVAL_TIMEOUT   /* it exceeded the time limit */
} kt_eval_status;

/* Where an evaluation's time went, in seconds of wall time. Per point:
 * setup_s (problems set up for its verification: boundary sizes first
 * met) and verify_s (0 when its verdict was kept from before). Per call,
 * in the call's first result only, so that sums over results are totals:
 * warmup_s, sampling_s (the interleaved rounds), and of the sampling the
 * GPU time of the L2 flushes and clock probes (flush_s, probe_s, from
 * their timed cost). */
typedef struct kt_eval_phases {
    double setup_s;
    double verify_s;
    double warmup_s;
    double sampling_s;
    double flush_s;
    double probe_s;
} kt_eval_phases;

typedef struct kt_eval_result {
    kt_eval_status status;
    char reason[1024]; /* why it is not OK */
    kt_shape shape;
    kt_timing timing; /* when OK; samples owned, kt_eval_result_free() */
    kt_eval_phases phases;
    /* Run-time compilation this point's verification caused (compile-time
     * parameters, kt_host.compile): NVRTC wall time, kernels compiled,
     * kernels read from the disk cache. Zero for precompiled kernels, and
     * in every later result of the same point (these and compile_cpu_s,
     * compile_wait_s come once per verification, so sums over calls hold). */
    double compile_s;
    uint32_t compiled;
    uint32_t compile_cache_hits;
    /* The work of this point: the variant's own (kt_variant.work, ABI 1.2,
     * when a parameter changes the work; has_work = 1), else the
     * operator's for the problem (has_work = 0). Derived rates of the
     * point come from it. */
    kt_work work;
    int has_work;
    /* The compile pool's side (engine/compile_pool.h). Per point: CPU time
     * of the compiles handed to its verification (compile_cpu_s) and the
     * time its verification waited for them with nothing to measure
     * (compile_wait_s: the GPU idle). Per call, in the call's first result
     * only: wall time the pool spent with at least one compile running
     * since the previous call (compile_busy_s), so the sum over a run is
     * the pool's compile wall time. */
    double compile_cpu_s, compile_wait_s, compile_busy_s;
    /* How the pool served it (core/compile_pool.h's stats). Per point, once
     * like compile_wait_s: takes of a kernel not loaded yet
     * (compile_taken), of which hinted but not started, so compiled on the
     * measuring thread (compile_took_queued), and never hinted
     * (compile_unhinted). Per call, in its first result, like
     * compile_busy_s: the compiles' wall time summed since the previous
     * call (compile_work_s; over compile_busy_s, the compiles running at
     * once) and the most that ever ran at once (compile_peak). */
    uint32_t compile_taken, compile_took_queued, compile_unhinted;
    uint32_t compile_peak;
    double compile_work_s;
    /* When the protocol asked for energy (kt_protocol.energy) and the
     * point is OK: its energy window (engine/energy_meter.h); measured = 0
     * with a note where NVML is absent or the window said nothing. */
    kt_energy energy;
} kt_eval_result;

typedef struct kt_evaluator kt_evaluator;

/* ------------------------------------------------------------------------ */
/* Hardware counters and kernel facts of one point (docs/metrics.md).
 * core never links a profiler: the metrics library hands the local
 * evaluator a kt_counter_source, and the evaluator hands the source a
 * kt_counter_target that runs the point's launch under identical
 * conditions. Counters always come from launches of their own, never from
 * timed ones. */

/* What a counter source may do with the point, once per replay pass. */
typedef struct kt_counter_target {
    int device; /* CUDA ordinal; current on the calling thread */
    /* Restores the inputs when the operator modifies them, leaves the L2
     * clean and waits, so every pass starts from the same state. Called
     * before the profiler starts its pass. */
    kt_status (*prepare)(void *ctx, kt_err *err);
    /* Called after the profiler started its pass, before the launch:
     * evicts every line from the L2, writing back what is dirty, with
     * exactly flush_kernels kernels (each profiled as a range of its own,
     * which the source drops) and waits. The profiler's start
     * leaves dirty lines that the launch would otherwise write back in its own
     * range. */
    kt_status (*flush)(void *ctx, kt_err *err);
    /* Enqueues exactly one launch of the point (launch errors checked). */
    kt_status (*launch)(void *ctx, kt_err *err);
    /* Waits for the launch; KT_S_EXEC when the kernel faulted. */
    kt_status (*wait)(void *ctx, kt_err *err);
    void *ctx;
    /* Launches of the point per pass, each after the flush; each counter of
     * each kernel is the median over them. 0 or 1: one, as Nsight Compute
     * profiles. */
    int launches;
    /* Kernels one flush launches: the contract between the evaluator that
     * flushes and the source that drops their ranges. */
    int flush_kernels;
} kt_counter_target;

/* The cost of one collection, for the record and the benchmark. */
typedef struct kt_counter_stats {
    size_t passes;     /* replay passes (launches) the metric set needed */
    double setup_s;    /* profiler and configuration set-up, wall clock */
    double passes_s;   /* all passes, wall clock */
    double evaluate_s; /* decoding and evaluating the counter data */
    double total_s;    /* the whole collection, wall clock */
    /* Kernels the launch ran, each profiled as a range of its own (their
     * values combined); 0 unknown. */
    size_t kernels;
    /* Launches of the point per pass (the median's count); 0 unknown. */
    size_t launches;
} kt_counter_stats;

typedef struct kt_counter_source kt_counter_source;
struct kt_counter_source {
    const char *name; /* "cupti" */
    /* Checks raw metric names against the device's own metric list without
     * launching anything: KT_S_INPUT naming the unknown ones with close
     * matches, KT_S_UNSUPPORTED (one line saying why) when counters cannot
     * be read here. */
    kt_status (*check)(const kt_counter_source *src, int device,
                       const char *const *names, size_t n, kt_err *err);
    /* Collects names[0..n) for one launch of the target, replaying it as
     * many times as the set needs; values[i] belongs to names[i]. */
    kt_status (*collect)(const kt_counter_source *src,
                         const kt_counter_target *target,
                         const char *const *names, size_t n, double *values,
                         kt_counter_stats *stats, kt_err *err);
    void *ctx;
};

/* A kernel's static facts (no counters): cudaFuncGetAttributes on
 * kt_shape.kernel and the occupancy API at the launch's block size and
 * dynamic shared memory. */
typedef struct kt_kernel_info {
    int available;             /* 0 when the plugin gave no kt_shape.kernel */
    int num_regs;              /* per thread */
    int block_threads;         /* of the launch */
    int max_threads_per_block; /* for this kernel */
    int ptx_version;           /* e.g. 90 */
    int binary_version;        /* e.g. 90 */
    int api_blocks_per_sm; /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
    int reserved_smem_per_block; /* the driver's per-block reservation */
    size_t static_smem_bytes;
    size_t dynamic_smem_bytes; /* of the launch */
    size_t max_dynamic_smem_bytes;
    size_t local_bytes_per_thread; /* local memory: spills, local arrays */
    size_t const_bytes;
} kt_kernel_info;

typedef struct kt_profile_request {
    const char *const *metrics; /* raw counter names; may be NULL if n = 0 */
    size_t num_metrics;
    /* Only check the names against the device (src->check); nothing is
     * verified or launched. */
    int check_only;
    /* Profiled launches per pass, KT_PROFILE_MAX_LAUNCHES at most; each
     * counter is the median over them. 0: KT_PROFILE_DEFAULT_LAUNCHES. An
     * operator that modifies its inputs is profiled with one (its restore
     * would run inside the pass). */
    int launches;
    /* The flush after the profiler's start sweeps the L2 instead of
     * cleaning it (kt_protocol.profile_flush_sweep, which callers copy). */
    int sweep_flush;
} kt_profile_request;

#define KT_PROFILE_MAX_LAUNCHES 15
/* Three, not Nsight Compute's one: a single profiled launch that runs a few
 * percent long reads that much low in every percentage of peak; the
 * median of three follows the typical launch (measured on the H200:
 * docs/metrics.md). */
#define KT_PROFILE_DEFAULT_LAUNCHES 3

typedef struct kt_profile_result {
    kt_eval_status status; /* of the point's verification */
    char reason[1024];
    kt_shape shape;
    kt_kernel_info kernel;
    /* KT_S_OK: values hold the counters. KT_S_UNSUPPORTED: no counters
     * here (note says why; the rest of the result stands). Anything else:
     * the collection failed (note says where). */
    kt_status counters;
    char note[1024];
    double *values; /* num_values == request's num_metrics; owned */
    size_t num_values;
    kt_counter_stats stats;
} kt_profile_result;

/* Frees the values; safe on a zeroed result. */
void kt_profile_result_free(kt_profile_result *r);

typedef struct kt_evaluator_ops {
    const char *kind; /* "local", "worker", "replay" */

    /* Verifies each point (once per point for the evaluator's lifetime,
     * then cached) and measures the verified ones together in interleaved
     * rounds under protocol p. out[i] belongs to pts[i]. Returns non-OK only
     * when the evaluator itself cannot go on (e.g. KT_S_EXEC: the context
     * is lost); per-point failures are in out[i].status. */
    kt_status (*evaluate)(kt_evaluator *ev, const kt_point *pts, size_t n,
                          const kt_protocol *p, kt_eval_result *out,
                          kt_err *err);

    /* Device facts plugins see; valid until close. */
    const kt_device *(*device)(kt_evaluator *ev);

    /* The device's calibration (measured or cached; refresh forces it). */
    kt_status (*calibration)(kt_evaluator *ev, int refresh, kt_calibration *out,
                             kt_err *err);

    /* The environment record of the device and plugin (new reference). */
    json_t *(*environment)(kt_evaluator *ev);

    /* The algorithm's work at the session's size. */
    const kt_work *(*work)(kt_evaluator *ev);

    void (*close)(kt_evaluator *ev);

    /* Optional (NULL: unsupported, e.g. replay). Verifies the point (cached
     * like evaluate), reads its kernel facts, and collects the requested
     * counters on launches of their own: never timed, never used for a
     * time. Returns non-OK when the evaluator cannot go on (KT_S_EXEC) or
     * the request is wrong (KT_S_INPUT: unknown metric names); a point
     * that does not verify, or counters unavailable here, are in out. pt
     * may be NULL when req->check_only is set. */
    kt_status (*profile)(kt_evaluator *ev, const kt_point *pt,
                         const kt_profile_request *req, kt_profile_result *out,
                         kt_err *err);

    /* Optional (NULL: nothing worth giving back before close). Lets go of
     * the device (a worker ends its process, and its context with it)
     * while device(), work() and environment() stay valid until close; a
     * later call that needs the device sets it up again. Called when a
     * run has finished, so that letting go is timed as a phase of its
     * own rather than hidden after the summary. */
    void (*release)(kt_evaluator *ev);

    /* Optional (NULL: no run-time compilation to work ahead on). The
     * points the caller will evaluate next, soonest first: their kernels
     * start compiling on the compile pool's threads while the GPU measures
     * others. Decides nothing and costs no evaluation; a point never
     * evaluated costs host CPU only (its compile is dropped at close when
     * not started). A later call's points go before an earlier call's. */
    void (*prefetch)(kt_evaluator *ev, const kt_point *pts, size_t n);
    /* Optional (NULL: none). Seconds of recorded work the evaluator's
     * answers stand for beyond the wall time they took: a replay of
     * another tool's recording charges each point's recorded compile,
     * verification and benchmark time on its first evaluation, as Kernel
     * Tuner's simulation mode does (records/replay_ext.h). The session adds
     * it to the run's clock, so max_seconds is simulated time. */
    double (*simulated_s)(kt_evaluator *ev);
} kt_evaluator_ops;

struct kt_evaluator {
    const kt_evaluator_ops *ops;
};

/* What an evaluator serves: one operator at one problem size. */
typedef struct kt_eval_spec {
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    int64_t sizes[KT_MAX_SIZES];
    uint64_t seed;
    int device;           /* CUDA ordinal */
    int check_boundaries; /* verify at boundary sizes too */
    int log_level;        /* kt_log_level for plugin messages */
    /* Hardware counters for profile(); NULL: none. Must outlive the
     * evaluator (the metrics library's sources are static). */
    const kt_counter_source *counters;
    /* 1: plugins verify on the host (no device comparison in their
     * services), as before the device services; 0: on the device. */
    int verify_host;
    /* Threads of the run-time compile pool (engine/compile_pool.h); 0: one
     * per online CPU of the machine that evaluates. */
    int compile_threads;
    /* The device settings the job lists (nvml_gr_clock, ...; none: the
     * default, nothing is ever set). At open every value is checked
     * (kt_nvml_check_choices: supported, then set and restored at once),
     * so a device that refuses is found before anything is measured
     * (KT_S_INPUT naming the value and the call). Each point's own
     * setting (kt_point.nvml) is put in force before it is measured, only
     * when it differs from the one in force; the device's own come back at
     * close. */
    kt_nvml_choices nvml;
    /* The settings record the evaluator runs under (core/settings.h: the
     * registry's, say); NULL: this process's (kt_settings_read at open).
     * A worker evaluator hands it to its worker in the open message, and
     * the worker's libraries read it instead of the worker's environment.
     * Must outlive the evaluator. */
    const kt_settings *settings;
} kt_eval_spec;

/* Opens the in-process evaluator: selects the device, sets up the problem
 * instance, opens the meter. KT_S_NO_DEVICE without a GPU. */
kt_status kt_local_open(const kt_eval_spec *spec, kt_evaluator **out,
                        kt_err *err);

void kt_eval_result_free(kt_eval_result *r);

const char *kt_eval_status_name(kt_eval_status s);

/* Whether an invalid point is so because its kernel did not compile (T4's
 * invalidity kind "compile"): kt_host.compile's text is in the reason. */
int kt_eval_is_compile_failure(kt_eval_status status, const char *reason);

/* Maps a kt_status from verification to the result's status. */
kt_eval_status kt_eval_status_from(kt_status s);

#endif
