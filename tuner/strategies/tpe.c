// SPDX-License-Identifier: Apache-2.0
/*
 * tpe: model-guided search with a tree-structured Parzen estimator
 * (tuner/strategies/tpe.h describes the model), and the model itself,
 * which one_at_a_time's survey also uses (its `guided` option).
 *
 * The strategy: `init` random feasible points, then, one proposal at a
 * time, the unvisited feasible point the model scores highest, the model
 * refitted after every measurement; with several workers a batch of the
 * top-scored points at a time. When kernels compile at run time it keeps
 * `ahead` proposals pending (one per compile thread by default), made
 * before their results come and counted bad in the fit until they do, so
 * their kernels compile while the GPU measures: the hub convolution's
 * 60 s default on the H200 went from 59 evaluations (GPU idle 84%, each
 * kernel compiled once its point was chosen) to 198
 * (docs/results/2026-12-03-h200-session16-hub.md). Per evaluation it
 * costs a little (docs/results/2026-12-03-tpe-ahead-replay.md). It stops when a
 * budget is spent or every feasible point is known. Each measurement is the
 * session's own (a median over interleaved-free repetitions); the answer is
 * confirmed, as for every strategy, by the session's closing round, where the
 * finalists are re-measured together in interleaved rounds.
 *
 * On the brute-forced spaces of the benchmark_hub's tuning set (A100 and
 * A4000 convolution and dedispersion) a prototype of this search scored
 * P = 0.58-0.87 under the methodology of Willemsen et al. against 0.3 for
 * Kernel Tuner's best (docs/search-methodology.md); gamma 0.15 and 10
 * random points were the best of the settings tried there. The branch
 * floor (kt_tpe.branch_floor) default 1 was chosen on that tuning set too
 * (docs/results/2026-12-02-tpe-branch-floor.md): without it every seed of
 * convolution/W6600 stayed in its shared-memory basin at 1.196 of the
 * optimum at 10% of the space. On an enumerated range the hints
 * (best_scored) come from the whole-space fit, so branch proposals are not
 * compiled ahead there; on a drawn range (coming_drawn) they are.
 */
#include "tuner/strategies/tpe.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/strategy.h"

static size_t slot_at(const kt_space *space, uint64_t index)
{
    for (size_t s = space->num_slots; s-- > 0;)
        if (index >= space->slots[s].offset)
            return s;
    return 0;
}

/* One branch of a two-valued parameter: the points of slot `slot` whose
 * parameter `param` is at value position `value`; `stride` is that
 * parameter's place value in a point's index. */
typedef struct branch {
    size_t slot;
    uint32_t param, value;
    uint64_t stride;
} branch;

/* 1 when index lies in br (NULL: every point does). */
static int in_branch(const kt_tpe *m, const branch *br, uint64_t index)
{
    const kt_space_variant *sv = &m->space->slots[br ? br->slot : 0];

    if (!br)
        return 1;
    if (slot_at(m->space, index) != br->slot)
        return 0;
    return (index - sv->offset) / br->stride % sv->count[br->param] ==
           br->value;
}

/* The k-th branch of the space (slot by slot, each slot's parameters
 * last first, value 0 before 1): 1 and *br, 0 when there are fewer. */
static int branch_at(const kt_space *space, size_t k, branch *br)
{
    for (size_t s = 0; s < space->num_slots; ++s) {
        const kt_space_variant *sv = &space->slots[s];
        uint64_t stride = space->settings;
        for (uint32_t p = sv->num_params; p-- > 0; stride *= sv->count[p]) {
            if (sv->count[p] != 2)
                continue;
            if (k < 2) {
                *br = (branch){s, p, (uint32_t)k, stride};
                return 1;
            }
            k -= 2;
        }
    }
    return 0;
}

/* Adds d (1 or -1) to the counts c (per value position, as lr) and cs
 * (per slot) of the point at index. */
static void tally(const kt_tpe *m, uint64_t index, double *c, double *cs,
                  double d)
{
    size_t s = slot_at(m->space, index);
    const kt_space_variant *sv = &m->space->slots[s];
    /* The device-setting digit (fastest, records/space.h) is not modelled. */
    uint64_t rest = (index - sv->offset) / m->space->settings;

    cs[s] += d;
    for (uint32_t p = sv->num_params; p-- > 0;) {
        size_t off = m->base[s];
        for (uint32_t q = 0; q < p; ++q)
            off += sv->count[q];
        c[off + rest % sv->count[p]] += d;
        rest /= sv->count[p];
    }
}

/* The number of the space's branches (branch_at), into *num, and a
 * zeroed count per branch (NULL: out of memory). */
static size_t *count_branches(const kt_space *space, size_t *num)
{
    branch br;

    *num = 0;
    while (branch_at(space, *num, &br))
        ++*num;
    return calloc(*num + 1, sizeof(size_t));
}

/* The position in m->ranked after every median at most us (binary
 * search): where a new observation of us goes, so ties keep their
 * observing order, and the number of observations at most us. */
static size_t ranked_after(const kt_tpe *m, double us)
{
    size_t lo = 0, hi = m->num_ranked;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->ranked[mid].us <= us)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Keeps the whole-space fit's counts (kt_tpe.all, ranked, branch_obs)
 * with a new observation of index, median us (INFINITY: did not run). A
 * ranked observation placed among the ones counted good is counted good
 * at once; settle_good moves the boundary to the threshold at fit time. */
static kt_status keep_count(kt_tpe *m, uint64_t index, double us, kt_err *err)
{
    branch br;
    size_t at;

    tally(m, index, m->all, m->all_slot, 1);
    for (size_t k = 0; k < m->num_branches; ++k)
        m->branch_obs[k] +=
            branch_at(m->space, k, &br) && in_branch(m, &br, index);
    if (!isfinite(us))
        return KT_S_OK;
    if (m->num_ranked == m->ranked_cap) {
        size_t cap = m->ranked_cap ? 2 * m->ranked_cap : 64;
        kt_tpe_ranked *r = realloc(m->ranked, cap * sizeof *r);
        if (!r)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        m->ranked = r;
        m->ranked_cap = cap;
    }
    at = ranked_after(m, us);
    /* A move of at most the observations (16 bytes each): no search
     * reaches the size where it shows beside the scoring. */
    memmove(m->ranked + at + 1, m->ranked + at,
            (m->num_ranked - at) * sizeof *m->ranked);
    m->ranked[at] = (kt_tpe_ranked){us, index};
    ++m->num_ranked;
    if (at < m->num_good) {
        tally(m, index, m->good, m->good_slot, 1);
        ++m->num_good;
    }
    return KT_S_OK;
}

/* Counts good exactly the observations at most the threshold (the
 * ceil(gamma * k)-th smallest of the k that ran, as threshold() finds
 * for a branch), moving the boundary from where it was. */
static void settle_good(kt_tpe *m)
{
    size_t k = m->num_ranked, want = (size_t)ceil(m->gamma * (double)k);
    size_t target =
        k ? ranked_after(m, m->ranked[(want ? want : 1) - 1].us) : 0;

    for (; m->num_good < target; ++m->num_good)
        tally(m, m->ranked[m->num_good].index, m->good, m->good_slot, 1);
    while (m->num_good > target) {
        --m->num_good;
        tally(m, m->ranked[m->num_good].index, m->good, m->good_slot, -1);
    }
}

kt_status kt_tpe_init(kt_tpe *m, kt_tune *t, uint64_t lo, uint64_t hi,
                      double gamma, double prior, size_t init, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);

    memset(m, 0, sizeof *m);
    m->t = t;
    m->space = space;
    m->lo = lo;
    m->hi = hi;
    m->gamma = gamma;
    m->prior = prior;
    m->init = init;
    m->base = calloc(space->num_slots + 1, sizeof *m->base);
    m->lr_slot = calloc(space->num_slots, sizeof *m->lr_slot);
    if (!m->base || !m->lr_slot)
        goto nomem;
    for (size_t s = 0; s < space->num_slots; ++s) {
        m->base[s] = m->table;
        for (uint32_t p = 0; p < space->slots[s].num_params; ++p)
            m->table += space->slots[s].count[p];
    }
    m->base[space->num_slots] = m->table;
    m->lr = calloc(m->table ? m->table : 1, sizeof *m->lr);
    /* all, good, all_slot, good_slot: one block. */
    m->all = calloc(2 * m->table + 2 * space->num_slots + 1, sizeof *m->all);
    if (!m->lr || !m->all)
        goto nomem;
    m->good = m->all + m->table;
    m->all_slot = m->good + m->table;
    m->good_slot = m->all_slot + space->num_slots;
    kt_u64map_init(&m->seen);
    if (!(m->branch_obs = count_branches(space, &m->num_branches)))
        goto nomem;
    /* calloc'ed: the pages a search never draws from stay untouched. */
    if (hi - lo > KT_TPE_ENUMERATE && hi - lo <= KT_TPE_DRAWN_MAX &&
        !(m->drawn = calloc((size_t)((hi - lo + 3) / 4), 1)))
        goto nomem;
    if (hi - lo <= KT_TPE_ENUMERATE) {
        m->state = calloc(hi - lo ? hi - lo : 1, 1);
        if (!m->state)
            goto nomem;
        for (uint64_t i = lo; i < hi; ++i) {
            kt_point pt;
            kt_space_point(space, i, &pt);
            if (kt_space_feasible(space, &pt, NULL) != KT_S_OK)
                m->state[i - lo] = 2;
        }
    }
    return KT_S_OK;
nomem:
    kt_tpe_free(m);
    return kt_err_set(err, KT_S_NOMEM, "out of memory");
}

void kt_tpe_free(kt_tpe *m)
{
    free(m->idx);
    free(m->us);
    free(m->state);
    free(m->lr);
    free(m->lr_slot);
    free(m->base);
    free(m->branch_share);
    free(m->drawn);
    free(m->all);
    free(m->ranked);
    free(m->branch_obs);
    kt_u64map_free(&m->seen);
    memset(m, 0, sizeof *m);
}

kt_status kt_tpe_observe(kt_tpe *m, const kt_point *pt, const kt_tune_obs *obs,
                         kt_err *err)
{
    uint64_t index, seen;
    kt_status rc;

    if (!obs->known || !kt_space_index(m->space, pt, &index))
        return KT_S_OK;
    if (m->state && index >= m->lo && index < m->hi && !m->state[index - m->lo])
        m->state[index - m->lo] = 1;
    if (kt_u64map_get(&m->seen, index, &seen))
        return KT_S_OK;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        uint64_t *idx = realloc(m->idx, cap * sizeof *idx);
        double *us = idx ? realloc(m->us, cap * sizeof *us) : NULL;
        if (idx)
            m->idx = idx;
        if (!idx || !us)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        m->us = us;
        m->cap = cap;
    }
    if ((rc = kt_u64map_put(&m->seen, index, 1, err)))
        return rc;
    m->idx[m->n] = index;
    m->us[m->n++] = obs->status == KT_EVAL_OK ? obs->median_us : INFINITY;
    m->valid += obs->status == KT_EVAL_OK;
    return keep_count(m, index, m->us[m->n - 1], err);
}

/* The k-th smallest of v[0..n) (0-based; v reordered), by selection:
 * linear on average, where sorting every observation at every proposal
 * made tpe's cost per proposal grow as n log n (issue 54: 44% of its host
 * time at 10,000 evaluations of a 100k-point replay). The same value as
 * the sorted array's v[k], so every path is unchanged. */
static double kth_smallest(double *v, size_t n, size_t k)
{
    /* Wirth's selection; signed indices, which step below 0. */
    ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, at = (ptrdiff_t)k;

    while (l < r) {
        double x = v[at];
        ptrdiff_t i = l, j = r;
        do {
            while (v[i] < x)
                ++i;
            while (x < v[j])
                --j;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (j < at)
            l = i;
        if (at < i)
            r = j;
    }
    return v[at];
}

/* The median below which (inclusive) an observation of br is good;
 * -INFINITY when none of br ran. */
static double threshold(const kt_tpe *m, const branch *br, kt_status *rc,
                        kt_err *err)
{
    double *v = malloc(m->n * sizeof *v), thr;
    size_t k = 0, want;

    if (!v) {
        *rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        return 0;
    }
    for (size_t i = 0; i < m->n; ++i)
        if (isfinite(m->us[i]) && in_branch(m, br, m->idx[i]))
            v[k++] = m->us[i];
    want = (size_t)ceil(m->gamma * (double)k);
    thr = k ? kth_smallest(v, k, (want ? want : 1) - 1) : -INFINITY;
    free(v);
    return thr;
}

/* Adds the point at index to the counts (good or bad). */
static void count(const kt_tpe *m, uint64_t index, int good, double *g,
                  double *b, double *gs, double *bs)
{
    tally(m, index, good ? g : b, good ? gs : bs, 1);
}

/* The good and bad counts of br's observations (NULL: all) into g, b
 * (per value position) and gs, bs (per slot), zeroed: of all, from the
 * counts kept up to date (keep_count); of a branch, counted afresh. */
static kt_status counts_of(kt_tpe *m, const branch *br, double *g, double *b,
                           double *gs, double *bs, kt_err *err)
{
    size_t ns = m->space->num_slots;
    kt_status rc = KT_S_OK;
    double thr;

    if (!br) {
        settle_good(m);
        for (size_t i = 0; i < m->table; ++i) {
            g[i] = m->good[i];
            b[i] = m->all[i] - m->good[i];
        }
        for (size_t s = 0; s < ns; ++s) {
            gs[s] = m->good_slot[s];
            bs[s] = m->all_slot[s] - m->good_slot[s];
        }
        return KT_S_OK;
    }
    thr = threshold(m, br, &rc, err);
    for (size_t i = 0; !rc && i < m->n; ++i)
        if (in_branch(m, br, m->idx[i]))
            count(m, m->idx[i], isfinite(m->us[i]) && m->us[i] <= thr, g, b, gs,
                  bs);
    return rc;
}

/* Refits the log-ratio tables on the observations of br (NULL: all). */
static kt_status fit(kt_tpe *m, const branch *br, kt_err *err)
{
    size_t ns = m->space->num_slots;
    double *g = calloc(2 * m->table + 2 * ns + 1, sizeof *g);
    double *b = g ? g + m->table : NULL, *gs = b ? b + m->table : NULL;
    double *bs = gs ? gs + ns : NULL, gt = 0, bt = 0;
    kt_status rc = KT_S_OK;

    if (!g)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    rc = counts_of(m, br, g, b, gs, bs, err);
    /* Pending proposals count as bad until their results come (a
     * pessimistic "liar"): the fit made while they are out would otherwise
     * propose their neighbours in the same few parameters again. */
    for (size_t i = 0; !rc && i < m->num_queued; ++i)
        if (m->queued[i] != UINT64_MAX && in_branch(m, br, m->queued[i]))
            count(m, m->queued[i], 0, g, b, gs, bs);
    for (size_t s = 0; !rc && s < ns; ++s) {
        const kt_space_variant *sv = &m->space->slots[s];
        size_t off = m->base[s];
        gt += gs[s];
        bt += bs[s];
        for (uint32_t p = 0; p < sv->num_params; ++p) {
            double k = sv->count[p];
            for (uint32_t v = 0; v < sv->count[p]; ++v, ++off)
                m->lr[off] = log((g[off] + m->prior) / (gs[s] + m->prior * k)) -
                             log((b[off] + m->prior) / (bs[s] + m->prior * k));
        }
    }
    for (size_t s = 0; !rc && s < ns; ++s)
        m->lr_slot[s] = log((gs[s] + m->prior) / (gt + m->prior * ns)) -
                        log((bs[s] + m->prior) / (bt + m->prior * ns));
    free(g);
    return rc;
}

/* A point index with its slot, device-setting digit and every
 * parameter's value position, stepped to the next index without a
 * division: scoring an enumerated range by index alone divided once per
 * parameter per point, most of tpe's host time on BAT's MD5Hash (165,888
 * points, each proposal scanning them all). */
typedef struct cursor {
    uint64_t index;
    size_t slot;
    uint64_t setting;
    uint32_t at[KT_MAX_PARAMS];
} cursor;

static void cursor_at(const kt_space *space, uint64_t index, cursor *c)
{
    const kt_space_variant *sv;
    uint64_t rest;

    c->index = index;
    c->slot = slot_at(space, index);
    sv = &space->slots[c->slot];
    rest = index - sv->offset;
    c->setting = rest % space->settings;
    rest /= space->settings;
    for (uint32_t p = sv->num_params; p-- > 0; rest /= sv->count[p])
        c->at[p] = (uint32_t)(rest % sv->count[p]);
}

/* The next index: the last parameter varies fastest after the settings
 * (records/space.h); past a slot's last point, the next slot's first. */
static void cursor_next(const kt_space *space, cursor *c)
{
    const kt_space_variant *sv = &space->slots[c->slot];

    ++c->index;
    if (++c->setting < space->settings)
        return;
    c->setting = 0;
    for (uint32_t p = sv->num_params; p-- > 0; c->at[p] = 0)
        if (++c->at[p] < sv->count[p])
            return;
    if (c->index < space->size)
        cursor_at(space, c->index, c);
}

/* The model's score of c's point: the slot's term, then each parameter's,
 * the last parameter first (the order fixes the rounding, and so the
 * ties the generator breaks). */
static double cursor_score(const kt_tpe *m, const cursor *c)
{
    const kt_space_variant *sv = &m->space->slots[c->slot];
    size_t end = m->base[c->slot + 1];
    double sum = m->lr_slot[c->slot];

    for (uint32_t p = sv->num_params; p-- > 0;) {
        end -= sv->count[p];
        sum += m->lr[end + c->at[p]];
    }
    return sum;
}

static int cursor_in_branch(const branch *br, const cursor *c)
{
    return !br || (c->slot == br->slot && c->at[br->param] == br->value);
}

static double score(const kt_tpe *m, uint64_t index)
{
    cursor c = {0};

    cursor_at(m->space, index, &c);
    return cursor_score(m, &c);
}

/* What the memo knows of index i (0: nothing, or no memo). */
static unsigned drawn_known(const kt_tpe *m, uint64_t i)
{
    uint64_t d = i - m->lo;
    return m->drawn ? (m->drawn[d / 4] >> (2 * (d % 4))) & 3u : 0;
}

static void drawn_remember(kt_tpe *m, uint64_t i, int feasible)
{
    uint64_t d = i - m->lo;
    if (m->drawn)
        m->drawn[d / 4] |=
            (uint8_t)((feasible ? KT_TPE_DRAWN_FEASIBLE : KT_TPE_DRAWN_REFUSED)
                      << (2 * (d % 4)));
}

/* Whether the drawn candidate i is open: not visited, not pending (a
 * proposal made and not measured yet), nor, while looking ahead, taken by
 * an earlier look-ahead pick, and feasible (the memo answers for a
 * candidate drawn before). A candidate is only scored, so nothing is
 * recorded for it (kt_tune_seen, not kt_tune_known): a proposal draws
 * KT_TPE_DRAWS of them. */
static int drawn_open(kt_tpe *m, uint64_t i)
{
    kt_point pt;
    unsigned known;
    int feasible;

    for (size_t k = 0; k < m->num_queued; ++k)
        if (m->queued[k] == i)
            return 0;
    if ((known = drawn_known(m, i)) == KT_TPE_DRAWN_REFUSED)
        return 0;
    kt_space_point(m->space, i, &pt);
    if (m->ahead) {
        for (size_t k = 0; k < m->num_ahead; ++k)
            if (m->ahead[k] == i)
                return 0;
        if (kt_tune_visited(m->t, &pt))
            return 0;
    } else if (kt_tune_seen(m->t, &pt)) {
        return 0;
    }
    if (known == KT_TPE_DRAWN_FEASIBLE)
        return 1;
    feasible = kt_space_feasible(m->space, &pt, NULL) == KT_S_OK;
    drawn_remember(m, i, feasible);
    return feasible;
}

/* A candidate of br (NULL: any) not yet visited and feasible, drawn or
 * scanned: 1 and *index, 0 when none. With use_model, the highest score
 * (ties by the generator); without, uniformly. */
static int pick(kt_tpe *m, int use_model, const branch *br, uint64_t *index)
{
    kt_rng *rng = kt_tune_rng(m->t);
    uint64_t span = m->hi - m->lo, ties = 0;
    double best = -INFINITY;
    int found = 0;
    cursor c = {0};

    if (m->state)
        cursor_at(m->space, m->lo, &c);
    for (uint64_t d = 0; d < (m->state ? span : KT_TPE_DRAWS);
         ++d, m->state ? cursor_next(m->space, &c) : (void)0) {
        double v;
        if (!m->state)
            cursor_at(m->space, m->lo + kt_rng_below(rng, span), &c);
        if ((m->state && m->state[d]) || !cursor_in_branch(br, &c))
            continue;
        if (!m->state && !drawn_open(m, c.index))
            continue;
        v = use_model ? cursor_score(m, &c) : 0;
        if (v > best) {
            best = v;
            ties = 0;
        }
        if (v == best && kt_rng_below(rng, ++ties) == 0) {
            *index = c.index;
            found = 1;
        }
    }
    return found;
}

/* How far c is from the points visited or queued, higher farther
 * (kt_tpe.spread's pick), INFINITY when there are none. Per parameter x,
 * the value positions' difference over the count less one (1 to a point
 * of another variant). design 0 (maximin): the nearest point's sum of
 * x^2. design 1: minus the maximum-projection criterion (Joseph, Gul and
 * Ba, Biometrika 2015), log sum over the points of prod over the
 * parameters of 1 / (x^2 + 1/count^2): each parameter's own spread
 * counts, so the design covers its interior values, not the corners. */
static double farness(const kt_tpe *m, const cursor *c)
{
    const kt_space_variant *sv = &m->space->slots[c->slot];
    double near = INFINITY, top = -INFINITY, sum = 0;

    for (size_t i = 0; i < m->n + m->num_queued; ++i) {
        uint64_t j = i < m->n ? m->idx[i] : m->queued[i - m->n];
        cursor o;
        double d = 0, v = 0;
        if (j >= m->space->size)
            continue;
        cursor_at(m->space, j, &o);
        for (uint32_t p = 0; p < sv->num_params; ++p) {
            double w = sv->count[p] > 1 ? sv->count[p] - 1 : 1;
            double x = o.slot != c->slot ? 1 : ((double)c->at[p] - o.at[p]) / w;
            d += x * x;
            v -= log(x * x + 1.0 / ((double)sv->count[p] * sv->count[p]));
        }
        near = d < near ? d : near;
        /* The log of the sum as top + log(sum), top the largest term: no
         * term overflows however close the points. */
        sum = v > top ? sum * exp(top - v) + 1 : sum + exp(v - top);
        top = v > top ? v : top;
    }
    return !m->design ? near : sum > 0 ? -(top + log(sum)) : INFINITY;
}

/* A proposal without the model: uniform, or with spread above 1 the best
 * of spread uniform draws by the design criterion (kt_tpe.design; ties:
 * the first). 1 and *index, 0 when none. */
static int pick_random(kt_tpe *m, uint64_t *index)
{
    double far = -INFINITY;
    int found = 0;

    if (m->spread <= 1)
        return pick(m, 0, NULL, index);
    for (size_t k = 0; k < m->spread; ++k) {
        uint64_t i;
        cursor c;
        double d;
        if (!pick(m, 0, NULL, &i))
            break;
        cursor_at(m->space, i, &c);
        if ((d = farness(m, &c)) > far) {
            far = d;
            *index = i;
            found = 1;
        }
    }
    return found;
}

/* 1 when index (of the candidates) is neither visited nor refused. */
static int open_candidate(kt_tpe *m, uint64_t i)
{
    if (i < m->lo || i >= m->hi)
        return 0;
    if (m->state)
        return !m->state[i - m->lo];
    return drawn_open(m, i);
}

/* The index of the earliest observed of the fastest observations of br
 * (NULL: of all) into *index: 1, or 0 when none of them ran. */
static int fastest(const kt_tpe *m, const branch *br, uint64_t *index)
{
    size_t b = m->n;

    /* Of all: the first ranked, in constant time. */
    if (!br) {
        if (m->num_ranked)
            *index = m->ranked[0].index;
        return m->num_ranked > 0;
    }
    for (size_t i = 0; i < m->n; ++i)
        if (isfinite(m->us[i]) && in_branch(m, br, m->idx[i]) &&
            (b == m->n || m->us[i] < m->us[b]))
            b = i;
    if (b < m->n)
        *index = m->idx[b];
    return b < m->n;
}

/* The best-scored open neighbour of the fastest observation of br (NULL:
 * of all; one parameter one value up or down, br's own parameter kept):
 * 1 and *index, 0 when none. */
static int pick_local(kt_tpe *m, const branch *br, uint64_t *index)
{
    uint64_t from;
    double best = -INFINITY;
    int found = 0;

    if (!fastest(m, br, &from))
        return 0;
    size_t s = slot_at(m->space, from);
    const kt_space_variant *sv = &m->space->slots[s];
    uint64_t rest = (from - sv->offset) / m->space->settings,
             stride = m->space->settings;
    for (uint32_t p = sv->num_params; p-- > 0;) {
        uint64_t at = rest % sv->count[p];
        for (int dir = -1; dir <= 1; dir += 2) {
            uint64_t i;
            if ((dir < 0 && at == 0) || (dir > 0 && at + 1 >= sv->count[p]) ||
                (br && p == br->param))
                continue;
            i = dir < 0 ? from - stride : from + stride;
            if (open_candidate(m, i) && score(m, i) > best) {
                best = score(m, i);
                *index = i;
                found = 1;
            }
        }
        rest /= sv->count[p];
        stride *= sv->count[p];
    }
    return found;
}

/* The share of the candidates that br's slot holds, halved: a drawn
 * range's estimate of br's share of the feasible points. */
static double drawn_share(const kt_tpe *m, const branch *br)
{
    const kt_space_variant *sv = &m->space->slots[br->slot];
    uint64_t a = sv->offset > m->lo ? sv->offset : m->lo;
    uint64_t b = sv->offset + sv->size < m->hi ? sv->offset + sv->size : m->hi;

    return b > a ? 0.5 * (double)(b - a) / (double)(m->hi - m->lo) : 0;
}

/* Each branch's share of the candidates' feasible points, into
 * m->branch_share, once. */
static kt_status branch_shares(kt_tpe *m, kt_err *err)
{
    branch br = {0};
    uint64_t span = m->hi - m->lo, feasible = 0;

    if (m->branch_share)
        return KT_S_OK;
    m->branch_share = calloc(m->num_branches + 1, sizeof *m->branch_share);
    if (!m->branch_share)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (uint64_t d = 0; m->state && d < span; ++d)
        feasible += m->state[d] != 2;
    for (size_t k = 0; k < m->num_branches; ++k) {
        uint64_t in = 0;
        cursor c = {0};
        branch_at(m->space, k, &br);
        if (m->state)
            cursor_at(m->space, m->lo, &c);
        for (uint64_t d = 0; m->state && d < span;
             ++d, cursor_next(m->space, &c))
            in += m->state[d] != 2 && cursor_in_branch(&br, &c);
        m->branch_share[k] = !m->state  ? drawn_share(m, &br)
                             : feasible ? (double)in / (double)feasible
                                        : 0;
    }
    return KT_S_OK;
}

/* The branch whose share of the observations, over its share of the
 * feasible points, is lowest and below m->branch_floor: its position,
 * m->num_branches when none is. */
static size_t neglected(const kt_tpe *m)
{
    size_t want = m->num_branches;
    double low = m->branch_floor;

    for (size_t k = 0; k < m->num_branches; ++k) {
        double r;
        if (m->branch_share[k] <= 0)
            continue;
        r = (double)m->branch_obs[k] / (double)m->n / m->branch_share[k];
        if (r < low) {
            low = r;
            want = k;
        }
    }
    return want;
}

/* A point of the most neglected branch (neglected()), by the model
 * fitted on that branch alone: the best-scored open neighbour of the
 * branch's fastest point (a walk from the best of each branch), else the
 * branch's best-scored open point. 1 and *index, 0 when no branch is
 * below the floor or it has no open point. The whole-space fit is
 * restored after. */
static int pick_branch(kt_tpe *m, uint64_t *index, kt_status *rc, kt_err *err)
{
    branch br = {0};
    size_t k;
    int found;

    if ((*rc = branch_shares(m, err)) || (k = neglected(m)) == m->num_branches)
        return 0;
    branch_at(m->space, k, &br);
    if ((*rc = fit(m, &br, err)))
        return 0;
    found = pick_local(m, &br, index) || pick(m, 1, &br, index);
    return !(*rc = fit(m, NULL, err)) && found;
}

/* The next proposal of the model (a local or a branch turn first, when
 * one is due): 1 and *index, 0 when none (or *rc). */
static int propose(kt_tpe *m, int use_model, uint64_t *index, kt_status *rc,
                   kt_err *err)
{
    size_t turn = use_model && m->local_every ? ++m->proposals : 0;

    if (turn && turn % m->local_every == 0 && pick_local(m, NULL, index))
        return 1;
    if (use_model && m->branch_floor > 0 && m->n &&
        pick_branch(m, index, rc, err))
        return 1;
    if (!use_model)
        return pick_random(m, index);
    return !*rc && pick(m, use_model, NULL, index);
}

int kt_tpe_next(kt_tpe *m, kt_point *pt, kt_status *rc, kt_err *err)
{
    int use_model = m->valid >= m->init && m->valid >= 2;

    *rc = KT_S_OK;
    if (use_model && (*rc = fit(m, NULL, err)))
        return 0;
    for (;;) {
        uint64_t index;
        kt_tune_obs obs;
        if (!propose(m, use_model, &index, rc, err))
            return 0;
        kt_space_point(m->space, index, pt);
        if (m->state)
            m->state[index - m->lo] = 1;
        if (!kt_tune_known(m->t, pt, &obs))
            return 1;
        /* Known already (measured by another part of the search, or
         * refused on the host): it teaches the model, then the next. */
        if ((*rc = kt_tpe_observe(m, pt, &obs, err)))
            return 0;
        if (use_model && (*rc = fit(m, NULL, err)))
            return 0;
    }
}

/* ----------------------------------------------------------------------- */
/* The strategy.                                                            */

#define MAX_BATCH 64
#define MAX_AHEAD 64

enum {
    OPT_GAMMA,
    OPT_PRIOR,
    OPT_INIT,
    OPT_LOCAL,
    OPT_BRANCH,
    OPT_AHEAD,
    OPT_SPREAD,
    OPT_DESIGN
};

static const kt_strategy_option options[] = {
    {"gamma", "share of the points that ran counted as good", 0.15, 0.01, 0.5,
     0},
    {"prior", "pseudo-count of each value among the good and the bad", 1, 0.01,
     100, 0},
    {"init", "random feasible points before the model is used", 10, 1, 10000,
     1},
    {"local",
     "every this many proposals one is the best-scored unvisited neighbour "
     "of the fastest point (one parameter moved one value; 0: never)",
     0, 0, 1000, 1},
    {"branch",
     "floor on each branch of a two-valued parameter: while its share of "
     "the points visited is below this fraction of its share of the "
     "feasible points, the proposal is the branch's own, by the model "
     "fitted on that branch alone (0: never)",
     1, 0, 1, 0},
    {"ahead",
     "proposals committed ahead of the one measured, their kernels compiling "
     "meanwhile, each chosen on the results in when it is made (-1: one per "
     "compile thread when the kernels compile at run time, else 0; 0: each "
     "proposal waits for every result before it)",
     -1, -1, MAX_AHEAD, 1},
    {"spread",
     "each random point before the model is the farthest of this many "
     "uniform draws from the points visited (a space-filling start; 1: "
     "uniform)",
     1, 1, 1000, 1},
    {"design",
     "how spread picks among its draws: 0 the farthest from the nearest "
     "point visited (maximin), 1 the lowest maximum-projection criterion "
     "(every parameter's own values spread)",
     0, 0, 1, 1},
};

/* Proposals hinted ahead of the one measured on an enumerated range: on
 * the hub convolution with a sleeping 1 s compiler (bench_compile_ahead,
 * 100 evaluations), 16 ran fastest on 16 threads (26 s; 32: 30 s, 8:
 * 32 s) and as fast as any on 8. More are compiles nobody takes: the
 * proposals change with every result. */
#define HINT_NEXT 16

/* The random proposals still to come before the model is used, drawn
 * ahead on a copy of the visited marks with the generator rewound after
 * (the same draws are made again): into out, at most max; an enumerated
 * range only. */
static size_t coming_random(kt_tpe *m, kt_point *out, size_t max)
{
    kt_rng saved = *kt_tune_rng(m->t);
    uint8_t *real = m->state, *copy = NULL;
    size_t n = 0, left = m->init > m->valid ? m->init - m->valid : 0;
    uint64_t index;

    /* A drawn range has no state to copy: coming_drawn looks ahead
     * there. */
    if (!real || !(copy = malloc((size_t)(m->hi - m->lo))))
        return 0;
    memcpy(copy, real, (size_t)(m->hi - m->lo));
    m->state = copy;
    for (; n < left && n < max && pick_random(m, &index); ++n) {
        kt_space_point(m->space, index, &out[n]);
        copy[index - m->lo] = 1;
    }
    m->state = real;
    *kt_tune_rng(m->t) = saved;
    free(copy);
    return n;
}

/* Proposals looked ahead on a drawn range (too large to enumerate): the
 * next proposals made now, with the batch being measured taken, each
 * from the draws the real one will make (generator and turn counter
 * rewound after), under the current fit. The fit moves after each
 * result, so the first is the next proposal most often and later ones
 * less; a proposal costs KT_TPE_DRAWS feasibility checks, so a few, not
 * HINT_NEXT. */
#define HINT_DRAWN 6

static size_t coming_drawn(kt_tpe *m, int model, const kt_point *batch,
                           size_t k, kt_point *out, size_t max)
{
    kt_rng saved = *kt_tune_rng(m->t);
    size_t proposals = m->proposals, n = 0;
    uint64_t *taken = malloc((k + HINT_DRAWN) * sizeof *taken), index;
    kt_status rc = KT_S_OK;
    kt_err err;

    if (!taken)
        return 0;
    m->ahead = taken;
    m->num_ahead = 0;
    for (size_t i = 0; i < k; ++i)
        if (kt_space_index(m->space, &batch[i], &index))
            taken[m->num_ahead++] = index;
    max = max < HINT_DRAWN ? max : HINT_DRAWN;
    for (; n < max && propose(m, model, &index, &rc, &err); ++n) {
        kt_space_point(m->space, index, &out[n]);
        taken[m->num_ahead++] = index;
    }
    m->ahead = NULL;
    m->num_ahead = 0;
    m->proposals = proposals;
    *kt_tune_rng(m->t) = saved;
    free(taken);
    return n;
}

/* The open candidates the current fit scores highest, best first (ties
 * in index order): the next fits move the ranking little, so these are
 * what the model proposes next. Into out, at most max; an enumerated
 * range only. */
static size_t best_scored(const kt_tpe *m, kt_point *out, size_t max)
{
    uint64_t top[HINT_NEXT];
    double val[HINT_NEXT];
    size_t n = 0;
    cursor c = {0};

    max = max < HINT_NEXT ? max : HINT_NEXT;
    if (m->state)
        cursor_at(m->space, m->lo, &c);
    for (uint64_t d = 0; m->state && d < m->hi - m->lo;
         ++d, cursor_next(m->space, &c)) {
        double v;
        size_t at;
        if (m->state[d])
            continue;
        v = cursor_score(m, &c);
        if (n == max && v <= val[n - 1])
            continue;
        at = n < max ? n++ : n - 1;
        for (; at > 0 && val[at - 1] < v; --at) {
            top[at] = top[at - 1];
            val[at] = val[at - 1];
        }
        top[at] = c.index;
        val[at] = v;
    }
    for (size_t i = 0; i < n; ++i)
        kt_space_point(m->space, top[i], &out[i]);
    return n;
}

/* The points pts[0..k) coming next (the batch about to be measured, or
 * every pending proposal) and the proposals likely to follow them,
 * hinted (kt_tune_hint), so their kernels compile at once while the
 * first are measured. Behind the pending proposals the likely next ones
 * keep the pool busy when a slow compile holds the oldest: on the H200 a
 * few convolution kernels compile for 10-16 s, and the pool had gone
 * idle behind them. */
static void hint_next(kt_tpe *m, const kt_point *pts, size_t k)
{
    kt_point *ahead;
    size_t n = k;
    int model = m->valid >= m->init && m->valid >= 2;

    if (!kt_tune_hints_wanted(m->t) ||
        !(ahead = malloc((k + HINT_NEXT) * sizeof *ahead)))
        return;
    memcpy(ahead, pts, k * sizeof *pts);
    if (!m->state)
        n += coming_drawn(m, model, pts, k, &ahead[n], HINT_NEXT);
    else
        n += model ? best_scored(m, &ahead[n], HINT_NEXT)
                   : coming_random(m, &ahead[n], HINT_NEXT);
    kt_tune_hint(m->t, ahead, n);
    free(ahead);
}

/* The search's proposals made and not measured yet, oldest first, and
 * its incumbent. With depth above 0 the search commits to its next depth
 * proposals before their results come, so their kernels compile while
 * the ones before them are measured: each is still the model's choice
 * given every result in when it was made. */
typedef struct pending {
    kt_point pts[MAX_AHEAD + MAX_BATCH];
    uint64_t idx[MAX_AHEAD + MAX_BATCH]; /* their indices, which later
                                            proposals skip */
    size_t n, depth;
    kt_point best;
    double best_us;
} pending;

/* Proposals appended until depth plus one batch of width are pending;
 * fewer when the model has no candidate left. */
static kt_status fill(kt_tpe *m, pending *q, size_t width, kt_err *err)
{
    kt_status rc = KT_S_OK;

    m->queued = q->idx;
    while (q->n < q->depth + width) {
        m->num_queued = q->n;
        if (!kt_tpe_next(m, &q->pts[q->n], &rc, err))
            break;
        if (!kt_space_index(m->space, &q->pts[q->n], &q->idx[q->n]))
            q->idx[q->n] = UINT64_MAX;
        ++q->n;
    }
    m->queued = NULL;
    m->num_queued = 0;
    return rc;
}

/* Measures the oldest pending proposals, up to `width` at once, teaches
 * the model and moves the incumbent; *none when no candidate was left. */
static kt_status step(kt_tpe *m, pending *q, int *none, kt_err *err)
{
    size_t width = kt_tune_width(m->t), k;
    kt_tune_obs obs[MAX_BATCH];
    kt_status rc;

    width = width < MAX_BATCH ? width : MAX_BATCH;
    if ((rc = fill(m, q, width, err)) || (*none = q->n == 0))
        return rc;
    k = q->n < width ? q->n : width;
    hint_next(m, q->pts, q->depth ? q->n : k);
    if ((rc = kt_tune_measure_batch(m->t, q->pts, k, obs, err)))
        return rc;
    for (size_t i = 0; !rc && i < k; ++i) {
        rc = kt_tpe_observe(m, &q->pts[i], &obs[i], err);
        if (obs[i].known && obs[i].status == KT_EVAL_OK &&
            obs[i].median_us < q->best_us) {
            q->best_us = obs[i].median_us;
            q->best = q->pts[i];
            kt_tune_set_incumbent(m->t, &q->best);
        }
    }
    q->n -= k;
    memmove(q->pts, q->pts + k, q->n * sizeof *q->pts);
    memmove(q->idx, q->idx + k, q->n * sizeof *q->idx);
    return rc;
}

/* The proposals kept ahead: the option's, else (-1) one per thread of the
 * compile pool when kernels compile at run time, none otherwise. */
static size_t depth_of(kt_tune *t, double opt)
{
    size_t d = opt < 0 ? kt_tune_compile_ahead(t) : (size_t)opt;
    return d < MAX_AHEAD ? d : MAX_AHEAD;
}

/* The start (kt_tune_start: the declared default, else a drawn point): measured
 * alone first without a pipeline; with one, the first pending proposal, so the
 * first ones compile while its kernel does. */
static kt_status start_with_default(kt_tpe *m, pending *q, kt_err *err)
{
    kt_point start;
    kt_tune_obs obs;
    uint64_t index;
    kt_status rc;

    kt_tune_start(m->t, &start);
    if (q->depth) {
        q->pts[0] = start;
        q->idx[0] = UINT64_MAX;
        if (kt_space_index(m->space, &start, &index)) {
            q->idx[0] = index;
            if (m->state && index >= m->lo && index < m->hi)
                m->state[index - m->lo] = 1;
        }
        q->n = 1;
        return KT_S_OK;
    }
    if (!(rc = kt_tune_measure(m->t, &start, &obs, err)))
        rc = kt_tpe_observe(m, &start, &obs, err);
    if (!rc && obs.known && obs.status == KT_EVAL_OK) {
        q->best = start;
        q->best_us = obs.median_us;
        kt_tune_set_incumbent(m->t, &q->best);
    }
    return rc;
}

static kt_status run(kt_tune *t, const double *opt, kt_err *err)
{
    const kt_space *space = kt_tune_space(t);
    pending *q = calloc(1, sizeof *q);
    kt_tpe m;
    int none = 0;
    kt_status rc;

    if (!q)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if ((rc = kt_tpe_init(&m, t, 0, space->size, opt[OPT_GAMMA], opt[OPT_PRIOR],
                          (size_t)opt[OPT_INIT], err))) {
        free(q);
        return rc;
    }
    m.local_every = (size_t)opt[OPT_LOCAL];
    m.branch_floor = opt[OPT_BRANCH];
    m.spread = (size_t)opt[OPT_SPREAD];
    m.design = (int)opt[OPT_DESIGN];
    q->depth = depth_of(t, opt[OPT_AHEAD]);
    q->best_us = INFINITY;
    rc = start_with_default(&m, q, err);
    while (!rc && !none && !kt_tune_stop(t))
        rc = step(&m, q, &none, err);
    if (!rc && none)
        kt_tune_finished(t, "every feasible point the model could reach "
                            "was evaluated");
    kt_tpe_free(&m);
    free(q);
    return rc;
}

const kt_strategy kt_strategy_tpe = {
    .name = "tpe",
    .summary = "model-guided: a tree-structured Parzen estimator over the "
               "parameters' values proposes the next point",
    .options = options,
    .num_options = sizeof options / sizeof options[0],
    .run = run,
};
