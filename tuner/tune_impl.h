// SPDX-License-Identifier: Apache-2.0
/*
 * The tuning session's inside, shared by the files it is split into by
 * concept (not installed, not for strategies, which see tuner/tune.h):
 *   tuner/tune.c          the session: clock, entries, evaluations,
 *                         measuring and comparing, the run
 *   tuner/tune_profile.c  counters on the points measured ([metrics])
 *   tuner/tune_finish.c   the end: finalists re-measured together, the
 *                         answer, the trade-off front
 *   tuner/tune_hint.c     hints: the points strategies expect to measure,
 *                         handed to the evaluators' compile pools
 *   tuner/tune_resume.c   a resumed journal: its calls answered again, its
 *                         failures not run again, its points known
 * Ownership is kt_tune's (tuner/tune.h): nothing here allocates beyond it.
 */
#ifndef KT_TUNE_IMPL_H
#define KT_TUNE_IMPL_H

#include "core/u64map.h"
#include "tuner/pool.h"
#include "tuner/progress.h"
#include "tuner/tune.h"

/* A call of the resumed journal: entries [first, first + n). */
typedef struct resume_call {
    size_t first, n;
    int used;
} resume_call;

/* A comparison already made in this run. */
typedef struct memo {
    uint64_t incumbent, candidate;
    kt_tune_cmp cmp;
} memo;

struct kt_tune {
    const kt_tune_config *cfg;
    kt_tune_result *res;
    kt_rng rng;
    kt_u64map by_index; /* space index -> position in res->entries */
    size_t entry_cap, trace_cap, step_cap;
    double t0;           /* monotonic seconds at the clock's last reset */
    double clock_offset; /* the run's clock at t0 */
    size_t idle;
    const char *stop_reason;
    int failed;
    kt_err fatal;
    resume_call *calls;
    size_t num_calls, call_cursor;
    kt_u64map recorded_failures; /* space index -> log entry */
    kt_u64map recorded;          /* space index -> its first log entry */
    kt_u64map checked;           /* space index -> 1: journaled as check */
    memo *memos;
    size_t num_memos, memo_cap;
    int has_incumbent;
    kt_point incumbent;
    double best_us;
    size_t best_entry;
    kt_progress progress;
    char phase[64];    /* shown by the progress display */
    char current[256]; /* the configuration being measured, for the display */
    /* Profiling: the effective spec, the raw counters asked for (none once
     * they proved unavailable here), whether the one line was written. */
    kt_profiling_spec prof;
    int profiling;
    const char *raw[KT_METRICS_RAW_MAX];
    size_t num_raw;
    int counters_off;
    int noted;
    kt_protocol call_protocol; /* of the call in flight (call_protocol()) */
    kt_pool *pool;             /* cfg->workers at work; NULL: cfg->ev alone */
    /* Where the last evaluate() call's time went, for its entries
     * (kt_tune_entry.call_s, strategy_s): when it ended, its wall time per
     * point, and the time since the call before it, given to the first
     * entry recorded from it. A batch on several workers counts as one
     * call: its wall time over its points. */
    double call_end, call_s, call_gap_s;
    /* The budget (tune_budget.c): seconds the command spent before this
     * run began (from cfg->budget_origin), and the wall time of this run's
     * evaluations (per point), the longest of them, and their count, for
     * the closing reserve. */
    double before_s, spent_s, spent_max_s;
    size_t spent_n;
    /* The convergence rule (kt_tune_converge; 0: none): stop once
     * `patience` evaluations in a row brought no gain beyond min_gain on
     * gain_cost, the cost of the last one that did (evaluation gain_eval;
     * 0: nothing ran yet). patience_rule says how patience was set. */
    size_t patience, gain_eval;
    double gain_cost;
    char patience_rule[128];
};

/* tune_budget.c: max_seconds as one clock from the command's start. Used:
 * seconds of the budget spent (the run's clock plus what came before it;
 * a simulated clock alone). Reserve: the closing phase's estimate from the
 * measured cost per evaluation. Spent: used + reserve has reached
 * max_seconds (records the reserve in the result). Note_call: one
 * evaluation's wall time, per point. */
double kt_tune_budget_used(const kt_tune *t);
double kt_tune_budget_reserve(const kt_tune *t);
int kt_tune_budget_spent(kt_tune *t);
void kt_tune_budget_note_call(kt_tune *t, double call_s);
/* Whether a closing step of n evaluations (`what`: "the finalists'
 * re-measurement") can start: 0 when it would be expected to end past
 * max_seconds plus a grace inside the command's promise (max_seconds +
 * 3 s), the step then named in the result's budget_left_out. 1 without
 * max_seconds, and on a simulated clock. */
int kt_tune_budget_allows(kt_tune *t, const char *what, size_t n);

/* tune.c: the clock (monotonic seconds; the run's, continued across
 * resumed sessions), a fatal failure recorded (returns rc), the progress
 * line of a call, entries by space index, costs under the objective, the
 * paired ratio of two results, and evaluations through the evaluator or
 * the pool (count calls of `per` points each). */
kt_status kt_tune_fail(kt_tune *t, kt_status rc, const kt_err *err);
double kt_tune_monotonic(void);
void kt_tune_progress_call(kt_tune *t, const char *purpose, const kt_point *pts,
                           size_t n);
double kt_tune_run_clock(const kt_tune *t);
double kt_tune_result_cost(const kt_tune *t, const kt_eval_result *r);
kt_tune_entry *kt_tune_find_entry(const kt_tune *t, uint64_t index);
void kt_tune_set_clock(kt_tune *t, double value);
/* tune_hint.c: the compile pool's threads in ev's environment record (0:
 * none recorded, a replay) and, unless run_time is NULL, whether its
 * kernels compile at run time. */
int kt_tune_compile_record(kt_evaluator *ev, int *run_time);

/* tune_resume.c: the resumed journal's calls, failures and points (all
 * none without one). prepare: the maps from cfg->resume, the clock set
 * where the journal stopped. find_call: the first unused recorded call of
 * exactly these points, or NULL. recorded_failure: a failure the journal
 * recorded for the point of index (a point that faulted must not be run
 * again), or NULL. recorded: whether the journal holds the point at all. */
kt_status kt_tune_prepare_resume(kt_tune *t, kt_err *err);
resume_call *kt_tune_find_call(kt_tune *t, const kt_point *pts, size_t n);
const kt_journal_entry *kt_tune_recorded_failure(const kt_tune *t,
                                                 uint64_t index);
int kt_tune_recorded(const kt_tune *t, uint64_t index);
void kt_tune_paired(const kt_tune *t, const kt_eval_result *a,
                    const kt_eval_result *b, kt_ratio *out);
kt_status kt_tune_run_calls(kt_tune *t, const char *purpose,
                            const kt_point *pts, size_t per, size_t count,
                            kt_eval_result *out, int *answered, kt_err *err);

/* tune_profile.c: the effective [metrics] spec checked against the
 * evaluator (prepare), counters on the point just entered at `at` (new:
 * when [metrics] asks for every point), and on the best few at the end. */
kt_status kt_tune_prepare_profiling(kt_tune *t, kt_err *err);
kt_status kt_tune_profile_new(kt_tune *t, size_t at, kt_err *err);
kt_status kt_tune_profile_top(kt_tune *t, kt_err *err);

/* tune_path.c: the path made again from the run's record once the answer
 * is known (res->steps, res->path_start): the first configuration that
 * ran, each new best, the winner of the closing round. */
kt_status kt_tune_true_path(kt_tune *t, kt_err *err);

/* tune_finish.c: the finalists re-measured together, the answer and its
 * ties, and the trade-off front, into t->res. */
kt_status kt_tune_finish(kt_tune *t, kt_err *err);

#endif
