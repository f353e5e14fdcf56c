// SPDX-License-Identifier: Apache-2.0
#include "core/stop_rule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Racing looks at no more kept samples than this (core/protocol.h). */
#define RACE_LOOK_MAX 1024
/* The noise has stopped improving when the last checkpoints agree this
 * closely (relative range). */
#define STABLE_CHECKPOINTS 4
#define STABLE_RANGE 0.05

const char *kt_stop_reason(const kt_protocol *p, const kt_stats *s,
                           double gpu_time_s, double wall_s, size_t rounds,
                           const double *noise_history, size_t history_len)
{
    int enough = s->n >= p->min_samples && gpu_time_s >= p->min_time_s;

    if (enough && s->noise <= p->target_noise)
        return "noise target";
    if (enough && history_len >= STABLE_CHECKPOINTS) {
        const double *h = noise_history + history_len - STABLE_CHECKPOINTS;
        double lo = h[0], hi = h[0], mean = 0;
        for (int i = 0; i < STABLE_CHECKPOINTS; ++i) {
            lo = h[i] < lo ? h[i] : lo;
            hi = h[i] > hi ? h[i] : hi;
            mean += h[i] / STABLE_CHECKPOINTS;
        }
        if (mean > 0 && (hi - lo) / mean <= STABLE_RANGE)
            return "noise stable";
    }
    if (rounds >= p->max_samples)
        return "max samples";
    if (wall_s >= p->max_time_s)
        return "time cap";
    return NULL;
}

size_t kt_stop_race_rank(size_t min_samples, size_t n)
{
    double alpha, cdf = 0;
    if (min_samples == 0 || n > RACE_LOOK_MAX)
        return 0;
    if (n == min_samples)
        return 1;
    if (n != 4 * min_samples && n != 8 * min_samples)
        return 0;
    /* The largest r with P(Binomial(n, 1/2) <= r - 1) <= alpha. */
    alpha = ldexp(1.0, -(int)(min_samples < 60 ? min_samples : 60)) / 2;
    for (size_t i = 0; i <= n; ++i) {
        cdf += exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
                   lgamma((double)(n - i) + 1) - (double)n * log(2.0));
        if (cdf > alpha)
            return i;
    }
    return n;
}

int kt_stop_screen_look(const kt_protocol *p, size_t n)
{
    return n == 1 && p->screen_samples > 1 && p->min_samples > 1 &&
           p->race > 0 && p->race_bar_us > 0;
}

const char *kt_stop_race(const kt_protocol *p, const double *kept, size_t n)
{
    size_t r = kt_stop_race_rank(p->min_samples, n);
    double bar = p->race_bar_us * (1.0 + p->race), sorted[RACE_LOOK_MAX];

    if (kt_stop_screen_look(p, n))
        return kept[0] > KT_SCREEN_FIRST_RATIO * bar ? KT_STOP_SCREEN_FIRST
                                                     : NULL;
    if (p->race <= 0 || p->race_bar_us <= 0 || r == 0)
        return NULL;
    memcpy(sorted, kept, n * sizeof *sorted);
    kt_stats_sort(sorted, n);
    return sorted[r - 1] > bar ? "race: slower than the best" : NULL;
}

int kt_stop_round_may_stop(const kt_protocol *p, size_t num_kept,
                           size_t last_check, size_t rounds)
{
    size_t gap = rounds / 16 ? rounds / 16 : 1;

    if (rounds >= p->max_samples)
        return 1;
    if (p->race > 0 && p->race_bar_us > 0 &&
        (kt_stop_race_rank(p->min_samples, num_kept + 1) != 0 ||
         kt_stop_screen_look(p, num_kept + 1)))
        return 1;
    /* checkpoint looks at its statistics every gap rounds; below min_samples
     * only the caps can stop a target. */
    return rounds - last_check >= gap && num_kept + 1 >= p->min_samples;
}

static kt_status grow(double **array, size_t need, kt_err *err)
{
    double *grown = realloc(*array, need * sizeof *grown);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory for samples");
    *array = grown;
    return KT_S_OK;
}

void kt_stop_rule_init(kt_stop_rule *r, const kt_protocol *p)
{
    memset(r, 0, sizeof *r);
    r->p = p;
}

void kt_stop_rule_free(kt_stop_rule *r)
{
    free(r->kept);
    free(r->history);
    memset(r, 0, sizeof *r);
}

/* The protocol's own rule after r->rounds rounds: statistics cost a sort,
 * so they are checked at geometrically spaced rounds, about sixteen times
 * per doubling; between checkpoints only the caps stop. */
static kt_status checkpoint(kt_stop_rule *r, double wall_s, kt_err *err)
{
    const kt_protocol *p = r->p;
    size_t rounds = r->rounds, gap = rounds / 16 ? rounds / 16 : 1;
    kt_stats stats = {0};
    kt_status rc;

    if (r->reason)
        return KT_S_OK;
    if (rounds - r->last_check >= gap) {
        r->last_check = rounds;
        kt_stats_compute(r->kept, r->num_kept, &stats);
        if (r->num_kept >= p->min_samples) {
            if ((rc = grow(&r->history, r->history_len + 1, err)))
                return rc;
            r->history[r->history_len++] = stats.noise;
        }
        r->reason = kt_stop_reason(p, &stats, r->gpu_time_s, wall_s, rounds,
                                   r->history, r->history_len);
    } else if (rounds >= p->max_samples || wall_s >= p->max_time_s) {
        r->reason = rounds >= p->max_samples ? "max samples" : "time cap";
    }
    return KT_S_OK;
}

kt_status kt_stop_rule_add(kt_stop_rule *r, double sample_us, double wall_s,
                           kt_err *err)
{
    int kept = !isnan(sample_us);
    kt_status rc;

    ++r->rounds;
    if (kept) {
        if (r->num_kept == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 64;
            if ((rc = grow(&r->kept, cap, err)))
                return rc;
            r->cap = cap;
        }
        r->kept[r->num_kept++] = sample_us;
        r->gpu_time_s += sample_us * 1e-6;
        /* Racing first: a clear loser stops at its look. */
        if (!r->reason)
            r->reason = kt_stop_race(r->p, r->kept, r->num_kept);
    }
    return checkpoint(r, wall_s, err);
}

const char *kt_stop_rule_reason(const kt_stop_rule *r)
{
    return r->reason;
}

void kt_stop_rule_stop(kt_stop_rule *r, const char *reason)
{
    if (!r->reason)
        r->reason = reason;
}

int kt_stop_rule_may_stop(const kt_stop_rule *r)
{
    return !r->reason && kt_stop_round_may_stop(r->p, r->num_kept,
                                                r->last_check, r->rounds + 1);
}
