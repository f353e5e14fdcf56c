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
#include "records/journal.h"
#include "records/objective.h"
#include "records/profiling.h"
#include "records/run.h"
#include "records/space.h"
#include "tuner/pool.h"
#include "tuner/strategy.h"

/* Consecutive proposals of already-known points after which the session
 * stops a strategy that no longer finds anything new. */
#define KT_TUNE_IDLE_LIMIT 20000

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
     * ([strategy] objective; records/objective.h). Not time: every call
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

/* Where a search starts: the named or declared start (kt_space_slot_start)
 * where the space has one (kt_space_slot_start_chosen), else a point drawn
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
