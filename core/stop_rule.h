// SPDX-License-Identifier: Apache-2.0
/*
 * kt_stop_rule: when one target's sampling may stop, as a small object the
 * measurement loop (engine/measure.c) asks, after nvbench's
 * stopping_criterion: the loop hands it each round's sample and asks for a
 * reason to stop. It keeps the target's kept samples (the statistics the
 * loop reports are theirs) and the noise at its checkpoints.
 *
 * The rule of a protocol (core/protocol.h), in the order it is looked at:
 *  - racing: at min_samples kept samples, and at 4 and 8 times that, a
 *    target whose lower bound of the median is slower than
 *    race_bar_us * (1 + race) stops ("race: slower than the best");
 *  - at checkpoints (statistics cost a sort: about sixteen per doubling of
 *    the rounds), once min_samples samples and min_time_s of GPU time are
 *    in: the noise below target_noise ("noise target"), or the noise of
 *    the last STABLE checkpoints agreeing within 5% ("noise stable");
 *  - the caps, whenever: max_samples rounds ("max samples"), max_time_s
 *    of wall time ("time cap").
 * Pure: no clock of its own (the loop says how long it has sampled).
 */
#ifndef KT_STOP_RULE_H
#define KT_STOP_RULE_H

#include <stddef.h>

#include "core/error.h"
#include "core/protocol.h"
#include "core/stats.h"

typedef struct kt_stop_rule {
    const kt_protocol *p; /* borrowed: outlives the rule */
    double *kept;         /* kept samples (us), owned */
    size_t num_kept, cap;
    double gpu_time_s; /* the kept samples' sum */
    size_t rounds;     /* samples handed in, discarded ones too */
    double *history;   /* noise at checkpoints, oldest first; owned */
    size_t history_len;
    size_t last_check;  /* round of the last look at the statistics */
    const char *reason; /* static text once it may stop; NULL: not yet */
} kt_stop_rule;

void kt_stop_rule_init(kt_stop_rule *r, const kt_protocol *p);
void kt_stop_rule_free(kt_stop_rule *r);

/* One round's sample of the target, in us (NaN: discarded, a throttled
 * clock: a round, not a sample), after wall_s seconds of sampling. Once a
 * reason is set it stays (the loop may go on sampling: interleaved
 * targets run until all may stop); later samples are still kept. */
kt_status kt_stop_rule_add(kt_stop_rule *r, double sample_us, double wall_s,
                           kt_err *err);

/* Why the target may stop (static text), or NULL to go on. */
const char *kt_stop_rule_reason(const kt_stop_rule *r);

/* Stops the target for the caller's reason (static text) unless it has
 * one: a comparison's incumbent once its partners stopped. */
void kt_stop_rule_stop(kt_stop_rule *r, const char *reason);

/* Whether the next sample handed in could set a reason (other than the
 * wall-time cap, which cannot be foreseen): the measurement loop waits for
 * such a round before it enqueues the next (kt_stop_round_may_stop). */
int kt_stop_rule_may_stop(const kt_stop_rule *r);

/* The decisions alone, exposed for tests. */

/* Racing. A point is looked at when it has n = min_samples kept samples,
 * and again at 4 and 8 times that; at a look the r-th fastest sample
 * bounds its median from below: r = 1 at the first (all n samples above
 * the median has chance 2^-n), then the largest r with
 * P(Binomial(n, 1/2) < r) <= 2^-min_samples / 2. So a point whose true
 * median is within the margin of the bar stops with probability at most
 * 2^-min_samples * 2 (0.2% with the defaults). kt_stop_race_rank returns
 * r, or 0 when n is not a look; kt_stop_race the stop reason (static text
 * starting with "race") when the r-th fastest of kept[0..n) is slower than
 * race_bar_us * (1 + race), else NULL. */
size_t kt_stop_race_rank(size_t min_samples, size_t n);
const char *kt_stop_race(const kt_protocol *p, const double *kept, size_t n);

/* The screen's first look. A screened call (screen_samples > 1, racing
 * with a bar) also looks at a point's first kept sample, and stops it when
 * that sample is slower than KT_SCREEN_FIRST_RATIO times the racing bar
 * race_bar_us * (1 + race). No order statistic bounds a median from one
 * sample; the ratio does instead: a kept sample has passed the clock probe
 * (a throttled one is discarded), and a kernel's sample-to-sample noise
 * is a few percent, so a point whose median is within the margin of the
 * bar does not show a sample half as slow again. It spares the search the
 * screen's other samples of a point that is far off, the usual case in a
 * wide space (a random gemm point is over 1.5 times the best seven times
 * in ten); a point nearer the bar goes on to the look at min_samples.
 * kt_stop_screen_look says whether n kept samples are that look. */
#define KT_SCREEN_FIRST_RATIO 1.5
#define KT_STOP_SCREEN_FIRST "race: one sample far slower than the best"
int kt_stop_screen_look(const kt_protocol *p, size_t n);

/* Pipelining: whether the results of a target's round `rounds` (counting
 * from 1) could stop it, given num_kept kept samples before that round,
 * its checkpoint last in round last_check and no stop reason yet: a race
 * look, a checkpoint with min_samples reached, or max_samples. */
int kt_stop_round_may_stop(const kt_protocol *p, size_t num_kept,
                           size_t last_check, size_t rounds);

/* A checkpoint's decision: the stop reason (static text) once samples
 * whose statistics are s and whose sum is gpu_time_s may stop under p
 * after `rounds` rounds and wall_s seconds, or NULL to go on.
 * noise_history holds the noise at earlier checkpoints (oldest first). */
const char *kt_stop_reason(const kt_protocol *p, const kt_stats *s,
                           double gpu_time_s, double wall_s, size_t rounds,
                           const double *noise_history, size_t history_len);

#endif
