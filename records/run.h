// SPDX-License-Identifier: Apache-2.0
/*
 * What a tuning run records, as the formats that write it out take it
 * (records/ktcache_write.h, records/t4.h, tuner/export.h): every point the
 * run visited (kt_tune_entry), the path, the finalists and the result of
 * the run (kt_tune_result), and the facts about it besides the result
 * (kt_tune_facts). The session (tuner/tune.h) fills them in; the types keep
 * the kt_tune_ names they had there. Plain data: whoever fills one owns
 * what it says it owns, and it is read from one thread.
 */
#ifndef KT_RUN_H
#define KT_RUN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/evaluator.h"
#include "core/loader.h"
#include "core/point.h"
#include "core/stats.h"
#include "records/profiling.h"
#include "records/space.h"

/* The session's configuration (tuner/tune.h) and a worker's figures
 * (tuner/pool.h), which the records only point to. */
typedef struct kt_tune_config kt_tune_config;
typedef struct kt_pool_stats kt_pool_stats;

typedef struct kt_tune_entry kt_tune_entry;

/* One point the run visited. Its point is its index in the result's space
 * (kt_tune_entry_point): a kt_point held here was 408 of its 904 bytes,
 * 0.41 GB of a 1e6-point replay (issue 54). */
struct kt_tune_entry {
    uint64_t index; /* in the space */
    size_t order;   /* 1-based evaluation number; 0: refused on the host */
    kt_eval_status status;
    /* Why it did not run, or a note; never NULL ("" when none). Owned
     * where not empty. Held out of line, as energy: an exhaustive replay
     * of 1e6 points held 1.3 GB of empty reasons and energy records
     * inline (issue 54). */
    const char *reason;
    int host_checked; /* refused without the evaluator (constraint, limit) */
    int from_journal; /* answered from the resumed journal */
    kt_timing timing; /* status OK; samples owned */
    /* Status OK, when the call measured energy or noted why not; NULL
     * otherwise. Owned. */
    kt_energy *energy;
    double elapsed_s; /* the run's clock when it was evaluated */
    time_t when;
    kt_profiling_point *profile; /* NULL: not profiled; owned */
    /* Run-time compilation of its kernel (kt_eval_result's fields). */
    double compile_s;
    uint32_t compiled, compile_cache_hits;
    /* Where its evaluation's time went, wall clock (zero for points refused
     * on the host or answered from the journal): the evaluator's phases
     * (kt_eval_phases: per point, and per call in the call's first point),
     * its share of the evaluate() call (the call's time over its points),
     * and strategy_s, the time between the previous call and this one
     * (the strategy's own work and the run's bookkeeping; given to the
     * first point of a call, zero for the others). */
    kt_eval_phases phases;
    double call_s, strategy_s;
    /* The point's own work (kt_eval_result.work with has_work: a parameter
     * changes it); has_work 0: the operator's. */
    kt_work work;
    int has_work;
    /* Status OK: its cost under the run's objective (kt_objective_cost
     * with its own work; the median in us for time), what the best and
     * the ranking go by; +inf otherwise. */
    double cost;
};

/* One adopted change of the path. */
typedef struct kt_tune_step {
    kt_point from, to;
    char dim[64], before[64], after[64];
    kt_ratio ratio; /* time(to) / time(from), paired */
} kt_tune_step;

/* One finalist of the closing re-measurement. */
typedef struct kt_tune_final {
    kt_point point;
    kt_stats stats; /* of the closing measurement */
    /* Its samples (us, one per round, NaN where discarded), which the
     * stats come from; owned. NULL (0) where no closing call measured it
     * (a single finalist keeps its search-time entry). --kt-cache writes
     * them, as they decided the answer. */
    double *samples_us;
    size_t num_samples;
    kt_energy energy;   /* of the closing measurement, where measured */
    double cost;        /* the objective's (kt_objective_cost) */
    kt_ratio vs_winner; /* objective / the winner's, paired; 1 for it */
    int tied;           /* not distinguishable from the winner */
} kt_tune_final;

/* The time-best and the energy-best of the closing re-measurement and
 * how they differ, paired (they ran in the same interleaved call):
 * energy-best over time-best in time and in energy. */
typedef struct kt_tune_tradeoff {
    int have; /* the finalists' energy was measured */
    kt_point time_best, energy_best;
    kt_ratio time, energy; /* energy-best / time-best */
} kt_tune_tradeoff;

typedef struct kt_tune_result {
    kt_tune_entry *entries; /* every point visited, in visiting order */
    size_t num_entries;
    /* The space the entries' indices are in (the config's): not owned, it
     * must outlive every use of the entries' points. */
    const kt_space *space;
    size_t evaluations;  /* unique points sent to the evaluator */
    size_t measured;     /* of which verified and timed */
    size_t host_invalid; /* refused on the host, never sent */
    size_t from_journal; /* evaluations answered from the journal */
    double *trace;       /* best median (us) after each evaluation; NaN
                            before the first valid one */
    /* The path (tuner/tune_path.c): path_start, the first configuration
     * that ran (has_path_start), then each step that made the best so far
     * better, then the closing round's winner where it differs: the last
     * step's `to` (else path_start) is the answer. */
    kt_tune_step *steps;
    size_t num_steps;
    kt_point path_start;
    int has_path_start;
    kt_tune_final *finals; /* finals[0] is the winner */
    size_t num_finals;
    int has_best;
    int final_measured; /* finals come from one interleaved call */
    kt_tune_tradeoff tradeoff;
    const char *stop_reason;
    char finish_reason[512]; /* kt_tune_finished(); stop_reason points here */
    double elapsed_s;        /* the run's clock at the end */
    double wall_s;           /* wall time of this process's part of the run */
    double evaluator_s;      /* time spent inside evaluate() in this process */
    double gpu_s;            /* sampled kernel time of this process's calls */
    size_t calls;            /* evaluate() calls made in this process */
    uint64_t feasible;       /* feasible points of the space, when known */
    int feasible_known;
    char note[512]; /* e.g. why the run stopped early */
    /* How the search began (kt_tune_start: "the declared default" or how
     * it was drawn; "" when the strategy took no single start) and what
     * searched (kt_tune_ran: auto's choice and why; "" for a strategy
     * named in the job). */
    char start_kind[128];
    char ran[64], ran_why[512];
    /* Profiling: the effective spec (NULL when nothing was to be profiled;
     * owned), points profiled (of which read back from the journal), and
     * the collections' cost in this process. */
    kt_profiling_spec *profiling;
    size_t profiled, profiled_from_journal;
    size_t profile_passes;
    double profile_s;
    char counters_note[512]; /* why counters were unavailable, or "" */
    /* Where the time went (this process's calls): the evaluator's phases
     * summed over its results, the journal's writes, and what the caller
     * spent before the run (open_s: starting the evaluator and setting the
     * problem up; calibration_s) and after it (close_s: letting go of the
     * device, a worker's exit), and exec_s: the process's own start before
     * the command ran (exec, dynamic loading), which it fills in. The
     * strategy's own time is wall_s - evaluator_s - journal_s - profile_s. */
    kt_eval_phases phases;
    double journal_s; /* the journal's writes during the run (wall_s) */
    double open_s, calibration_s;
    double exec_s, close_s;
    /* The budget's parts (max_seconds): the command's time before the run
     * (from budget_origin), the search's wall time, the closing phase's
     * (finalists, energy, counters), and the closing time reserved when
     * max_seconds stopped the search (0: it did not). */
    double budget_before_s, search_s, closing_s, budget_reserve_s;
    /* The closing steps max_seconds left out, each with when it would have
     * ended ("" none): the finalists' re-measurement (the answer is then
     * the search's own measurement of its best), the top's profiles. */
    char budget_left_out[256];
    /* Run-time compilation over the entries: NVRTC seconds, kernels
     * compiled, read from the cache, and points whose kernel did not
     * compile (invalid, kind "compile"). */
    double compile_s;
    size_t compiled, compile_cache_hits, compile_failed;
    /* The compile pool's side (kt_eval_result's fields, summed over this
     * process's calls): compile CPU time, the time verification waited for
     * a compile with nothing to measure (the GPU idle on compiles), and
     * the pool's wall time with a compile running; compile_threads is the
     * setting the caller passed (0: one per CPU of the evaluating host). */
    double compile_cpu_s, compile_wait_s, compile_busy_s;
    int compile_threads;
    /* How the pool served the verifications (kt_eval_result's, summed; the
     * peak the largest any call reported): takes of a kernel not loaded
     * yet, of which hinted but not started (compiled on the measuring
     * thread) and never hinted; the compiles' summed wall time, over
     * compile_busy_s the compiles running at once (kt_tune_compile_parallel).
     */
    size_t compile_taken, compile_took_queued, compile_unhinted;
    size_t compile_peak;
    double compile_work_s;
    /* With several workers: what each did (owned; NULL with one). */
    kt_pool_stats *worker_stats;
    size_t num_workers;
} kt_tune_result;

/* What the summary and the files a run writes need besides its result:
 * what ran, where, and in replay what the recording says. Borrowed
 * pointers, valid while the run's job and evaluator are. */
typedef struct kt_tune_facts {
    const char *spec; /* "plugin:operator" */
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    const kt_space *space;
    const int64_t *sizes;
    const kt_tune_config *cfg;
    /* The Kernel Tuner strategy name the job wrote, or NULL (printed as
     * "strategy brute_force -> exhaustive"). */
    const char *strategy_alias;
    const char *device_name;
    const kt_work *work;       /* may be NULL */
    double copy_gbs, peak_gbs; /* 0: unknown */
    json_t *environment;       /* borrowed; may be NULL */
    const char *journal;       /* may be NULL */
    /* Replay only. */
    const char *replay; /* the recording; NULL when measured live */
    int has_optimum;    /* the recording's fastest valid point of the space */
    kt_point optimum;
    kt_stats optimum_stats;
    double optimum_cost; /* under the run's objective; 0: not known */
    /* A replay of another tool's recording: what that means, one
     * paragraph (kt_recording_note, records/recording.h); NULL otherwise. */
    const char *replay_note;
    /* The columns the printed summary fits (core/term.h: lines wrapped,
     * table columns of low priority left out and named); 0: no limit. */
    int width;
} kt_tune_facts;

/* The point of e, an entry of r, decoded from its index in r->space. */
kt_point kt_tune_entry_point(const kt_tune_result *r, const kt_tune_entry *e);

#endif
