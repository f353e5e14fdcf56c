// SPDX-License-Identifier: Apache-2.0
/*
 * kt_tune: one tuning run — the session strategies search through.
 *
 * The session owns what makes a run trustworthy, so that a strategy is only
 * an order of points:
 *  - every measurement goes through the kt_evaluator (local GPU or replay)
 *    under one protocol: same inputs, stream, warm-ups, stopping rule and
 *    cache mode for every point;
 *  - a point is measured alone once; a comparison measures incumbent and
 *    candidate together in interleaved rounds and decides on the paired
 *    ratio's confidence interval (core/stats.h);
 *  - points that cannot run (refused on the host, invalid, wrong results,
 *    faults) are recorded with their reason, skipped, and never the answer;
 *  - both budgets (max_evals: unique points sent to the evaluator;
 *    max_seconds: the run's clock) are enforced here, whatever the strategy
 *    does;
 *  - every evaluate() call is journaled before the strategy sees it, and a
 *    resumed run answers the calls the journal already holds from it;
 *  - at the end the best few are re-measured together and the answer is the
 *    winner with its interval, or a statistical tie;
 *  - points are profiled (kernel facts, hardware counters: launches of their
 *    own, never timed, never an evaluation) when [metrics] asks for it —
 *    every point once it ran, or the best few after the search; profiles
 *    are journaled and a resumed run answers from them.
 */
#ifndef KT_TUNE_H
#define KT_TUNE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/error.h"
#include "core/evaluator.h"
#include "core/rng.h"
#include "core/stats.h"
#include "tuner/journal.h"
#include "tuner/objective.h"
#include "tuner/pool.h"
#include "tuner/profiling.h"
#include "tuner/space.h"
#include "tuner/strategy.h"

/* Consecutive proposals of already-known points after which the session
 * stops a strategy that no longer finds anything new. */
#define KT_TUNE_IDLE_LIMIT 20000

typedef struct kt_tune_entry kt_tune_entry;

typedef struct kt_tune_config {
    const kt_operator *op;
    const kt_space *space; /* bound to the evaluator's device */
    kt_evaluator *ev;
    /* Several workers of one GPU model (one per GPU, per MPI rank, or
     * simulated from a recording; tuner/pool.h): workers[0] must be ev.
     * num_workers <= 1: ev alone, one call after the other. With more,
     * every evaluate() call goes to one worker (a comparison is always made
     * on one GPU) and a strategy's batches run on all of them at once;
     * profiles are ev's. Not owned. */
    kt_evaluator *const *workers;
    size_t num_workers;
    /* The journal's environment record of each worker (its device and
     * calibration); NULL: the journal's own for every call. */
    const int *worker_envs;
    const kt_strategy *strategy;
    double options[KT_STRATEGY_MAX_OPTIONS];
    uint64_t seed;      /* of the strategy's random choices */
    size_t max_evals;   /* 0: no limit */
    double max_seconds; /* 0: no limit */
    size_t finalists;   /* re-measured together at the end (>= 1) */
    double min_gain;    /* smallest relative gain that counts as faster */
    kt_protocol protocol;
    kt_journal *journal;          /* may be NULL */
    const kt_journal_log *resume; /* calls answered from it; may be NULL */
    int progress; /* show progress on stderr (tuner/progress.h) */
    /* What to profile ([metrics]). NULL: nothing. */
    const kt_profiling_spec *profiling;
    /* Non-NULL: counters cannot be had here (kt_profiling_check said why;
     * the caller wrote the line); only kernel facts are asked for. */
    const char *counters_unavailable;
    /* The device's ceilings and the access-width override, for diagnoses
     * (kt_diag_facts_ceilings; dev and work are the summary's). */
    kt_diag_facts diag;
    /* Where one-line notes go (counters unavailable, ...); NULL: nowhere
     * (the result keeps them). */
    FILE *notes;
    /* What the comparisons, the finalists and the tie rule decide on
     * ([strategy] objective; tuner/objective.h). Not time: every call
     * measures energy and races nothing. Time: the finalists' closing
     * call measures energy only where protocol.energy is set (the user
     * asked: [measure] energy, --energy); no other call does. */
    kt_objective objective;
    /* Where max_seconds counts from (kt_tune_monotonic's clock): the
     * command's start, so that what it did before the search (process
     * start, plugins, evaluator, calibration) is inside the budget, and
     * the search stops early enough for the closing phase to fit
     * (tuner/tune_budget.c). 0: the run's own start. A simulated clock (a
     * replay of another tool's recording) counts from the run's start. */
    double budget_origin;
    /* Called with each point as the session records it (--kt-cache writes
     * it out); a failure ends the run as a journal failure does. NULL:
     * none. */
    kt_status (*on_entry)(void *ctx, const kt_tune_entry *e, kt_err *err);
    void *on_entry_ctx;
} kt_tune_config;

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
    kt_stats stats;     /* of the closing measurement */
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

/* The wall time of every phase of r: the process's start, the run's start,
 * calibration, the run and the release. */
double kt_tune_total_s(const kt_tune_result *r);

/* Runs cfg->strategy, then the closing re-measurement. Non-OK only when the
 * run cannot go on (evaluator lost, journal unwritable); out still holds
 * what was measured, and the journal everything. Free out with
 * kt_tune_result_free(). */
kt_status kt_tune_run(const kt_tune_config *cfg, kt_tune_result *out,
                      kt_err *err);

void kt_tune_result_free(kt_tune_result *r);

/* The point of e, an entry of r, decoded from its index in r->space. */
kt_point kt_tune_entry_point(const kt_tune_result *r, const kt_tune_entry *e);

/* The GPU's idle fraction on compiles: the time verification waited for a
 * compile with nothing to measure over the run's wall time (0 without). */
double kt_tune_compile_idle(const kt_tune_result *r);

/* The compiles running at once, on average while any ran: the compiles'
 * summed wall time over the pool's wall time with one running; 0 when
 * nothing compiled on the pool. */
double kt_tune_compile_parallel(const kt_tune_result *r);

/* ----------------------------------------------------------------------- */
/* What strategies call.                                                    */

const kt_space *kt_tune_space(const kt_tune *t);

/* The strategy's random numbers, seeded from cfg->seed. */
kt_rng *kt_tune_rng(kt_tune *t);

/* 1 when the strategy must return: a budget is spent, every feasible point
 * is known, nothing new was proposed for KT_TUNE_IDLE_LIMIT tries, or the
 * evaluator failed. */
int kt_tune_stop(kt_tune *t);

/* What the session knows of a point. */
typedef struct kt_tune_obs {
    int known;             /* 0: not evaluated (the budget stopped it) */
    kt_eval_status status; /* KT_EVAL_OK or why it cannot be the answer */
    /* Status OK: the median in us; under an objective other than time,
     * that objective's cost (kt_objective_cost, lower is better), so a
     * strategy orders points by the objective without knowing it. */
    double median_us;
} kt_tune_obs;

/* Measures pt alone, once: later calls answer from the record without
 * spending budget. Points refused on the host cost nothing. */
kt_status kt_tune_measure(kt_tune *t, const kt_point *pt, kt_tune_obs *out,
                          kt_err *err);

/* How many evaluations the session runs at once: its live workers (1 on
 * one GPU). A strategy that proposes this many points at a time
 * (kt_tune_measure_batch) keeps every worker busy; with 1 the batch calls
 * are exactly the single ones. */
size_t kt_tune_width(const kt_tune *t);

/* Points the strategy will evaluate soon, soonest first (an exhaustive
 * sweep's next points, a walk's next neighbours): those not known yet and
 * not refused on the host go to the evaluator's prefetch, so their kernels
 * compile while the GPU measures others (engine/compile_pool.h). Costs no
 * budget, records nothing and decides nothing, so a run's answers are the
 * same with or without hints; a hint that never comes true costs host CPU
 * only. A later hint goes before an earlier one. */
void kt_tune_hint(kt_tune *t, const kt_point *pts, size_t n);

/* Whether hints reach anyone: 0 when the evaluator takes none (a replay)
 * or the session failed, so a strategy can skip the work of making them.
 * A resumed journal's points are passed over by kt_tune_hint itself. */
int kt_tune_hints_wanted(const kt_tune *t);

/* How many kernels the evaluator compiles at once ahead of measurement:
 * its compile pool's threads when the operator's kernels compile at run
 * time (a declaration's, NVRTC) and hints reach it, else 0 (a compiled
 * plugin, a replay). A strategy that commits to this many proposals ahead
 * of the one measured keeps every compile thread busy. Asks the evaluator
 * each call: a strategy keeps the answer. */
size_t kt_tune_compile_ahead(const kt_tune *t);

/* Whether pt has a result in this session (or a failure the resumed
 * journal recorded), asking nothing: unlike kt_tune_known, a point the
 * host refuses is not recorded, so a hint's look-ahead may call it. */
int kt_tune_visited(const kt_tune *t, const kt_point *pt);

/* How many points ahead a strategy that knows its order should hint:
 * enough to keep every compile thread busy. Verification takes kernels
 * in the sweep's order, so one slow compile at the head holds the window
 * where it is: a window of 64 points (about 40 kernels of the hub
 * convolution) left 16 threads idle behind it (11.9 of 16 busy on the
 * H200's host), 512 gives each thread about 20 kernels to go on with. */
#define KT_TUNE_HINT_AHEAD 512

/* kt_tune_hint of the count space indices a ring of KT_TUNE_HINT_AHEAD
 * holds from head on (a strategy's window of draws or sweep positions). */
void kt_tune_hint_ring(kt_tune *t, const uint64_t *ring, size_t head,
                       size_t count);

/* kt_tune_measure for pts[0..n) at once: the new points are evaluated
 * concurrently, one call each, then recorded and journaled in the order
 * given, so the run does not depend on which worker finished first.
 * out[i] belongs to pts[i]; points a budget cut are not known. */
kt_status kt_tune_measure_batch(kt_tune *t, const kt_point *pts, size_t n,
                                kt_tune_obs *out, kt_err *err);

/* What the session knows of pt without spending anything: 1 and *out when
 * pt was visited or is refused on the host, else 0. */
int kt_tune_known(kt_tune *t, const kt_point *pt, kt_tune_obs *out);

/* Whether pt has an entry in this session (measured, failed, or refused
 * when proposed), asking nothing and recording nothing: the test a
 * strategy applies to candidates it only scores. A drawn candidate the
 * host would refuse is then checked by kt_space_feasible alone, not made
 * an entry: tpe draws thousands per proposal, and on a space mostly
 * infeasible (the hub gemm's: 82%) recording each filled the journal and
 * the summary with 220,000 points no one proposed. */
int kt_tune_seen(const kt_tune *t, const kt_point *pt);

/* The outcome of a paired comparison. */
typedef struct kt_tune_cmp {
    int known;             /* 0: not measured (the budget stopped it) */
    kt_eval_status status; /* of the candidate (ERROR if the incumbent
                              failed this time) */
    kt_ratio ratio;        /* time(candidate) / time(incumbent) */
    int verdict;           /* -1 candidate faster beyond min_gain, 0 tie,
                              +1 slower */
} kt_tune_cmp;

/* Measures incumbent and candidate together in interleaved rounds and
 * compares them on their paired per-round ratios. The same pair is
 * measured once per run; a candidate known to be invalid is not measured.
 */
kt_status kt_tune_compare(kt_tune *t, const kt_point *incumbent,
                          const kt_point *candidate, kt_tune_cmp *out,
                          kt_err *err);

/* kt_tune_compare of incumbent against cands[0..n) at once: each pair
 * measured in interleaved rounds by one worker (on one GPU), the pairs
 * spread over the workers, recorded in the order given. */
kt_status kt_tune_compare_batch(kt_tune *t, const kt_point *incumbent,
                                const kt_point *cands, size_t n,
                                kt_tune_cmp *out, kt_err *err);

/* Measures ahead, for a search that tries candidates one after the other:
 * with several workers, cands[0..n) are measured at once, then those
 * whose own median is below bar_us are compared with the incumbent at
 * once; the strategy's own kt_tune_measure and kt_tune_compare calls then
 * answer from the record. Does nothing on one worker, so a run on one GPU
 * is what it was. Extra points measured are evaluations like any other. */
kt_status kt_tune_lookahead(kt_tune *t, const kt_point *incumbent,
                            double bar_us, const kt_point *cands, size_t n,
                            kt_err *err);

/* Records an adopted change (from -> to along dimension dim). */
kt_status kt_tune_path_add(kt_tune *t, const kt_point *from, const kt_point *to,
                           size_t dim, const kt_ratio *ratio, kt_err *err);

/* Records a jump of the search (a restart that ended faster than the
 * incumbent it replaces): shown in the path as `label`. */
kt_status kt_tune_path_jump(kt_tune *t, const kt_point *from,
                            const kt_point *to, const char *label,
                            const kt_ratio *ratio, kt_err *err);

/* Names the strategy's current answer, which then is among the finalists.
 */
void kt_tune_set_incumbent(kt_tune *t, const kt_point *pt);

/* Says why the strategy returned on its own (no budget stopped it): the
 * summary's stop reason instead of "the strategy finished". Copied. */
void kt_tune_finished(kt_tune *t, const char *why);

/* Where a search starts: the declared default (kt_space_slot_start) where
 * the space declares one (kt_space.start_declared), else a point drawn
 * with kt_tune_rng, uniformly in the space's own order of values, that
 * passes the host's checks if one turns up in a few draws: never the
 * first value a recording happens to list. Returns 1 for the declared
 * default, 0 for a draw; the result's start_kind says which. */
int kt_tune_start(kt_tune *t, kt_point *pt);
int kt_tune_slot_start(kt_tune *t, size_t slot, kt_point *pt);
int kt_tune_start_declared(const kt_tune *t);

/* Ends the search by a convergence rule: kt_tune_stop() says stop once
 * `patience` evaluations in a row brought no gain beyond min_gain over the
 * best so far, giving the rule as the stop reason (`rule` says how patience
 * was set; copied). 0: no such rule (the default). */
void kt_tune_converge(kt_tune *t, size_t patience, const char *rule);

/* 1 when max_evals or max_seconds limits the run. */
int kt_tune_budgeted(const kt_tune *t);

/* The space's feasible points where they were counted, else its size. */
uint64_t kt_tune_points(const kt_tune *t);

/* Names the strategy that searched and why (auto's choice): the summary's
 * and --json's. Copied. */
void kt_tune_ran(kt_tune *t, const char *name, const char *why);

/* Unique points the evaluator may still be sent under max_evals (SIZE_MAX
 * when there is no such limit). */
size_t kt_tune_evals_left(const kt_tune *t);

/* Unique points sent to the evaluator so far. */
size_t kt_tune_evaluations(const kt_tune *t);

/* 1 when slot's variant is a reference (KT_VARIANT_REFERENCE). */
int kt_tune_slot_is_reference(const kt_tune *t, size_t slot);

/* Entries with a valid timing, best first (by their cost under the run's
 * objective: the fastest for time); *count receives how many. Caller frees the
 * array (not the entries). */
const kt_tune_entry **kt_tune_ranked(const kt_tune_result *r, size_t *count);

#endif
