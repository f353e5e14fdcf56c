// SPDX-License-Identifier: Apache-2.0
#include "metrics/guide.h"

#include <stdio.h>
#include <string.h>

const char *kt_guide_priority_name(kt_guide_priority p)
{
    switch (p) {
    case KT_GUIDE_FIRST: return "first";
    case KT_GUIDE_NORMAL: return "normal";
    case KT_GUIDE_LATER: return "later";
    case KT_GUIDE_SKIP: return "skip";
    }
    return "?";
}

static int at_ceiling(const kt_diagnosis *d)
{
    const kt_coalescing *ld = &d->load, *st = &d->store;
    return d->bound == KT_BOUND_MEMORY && d->derived.pct_of_copy > 0 &&
           d->derived.pct_of_copy >= KT_GUIDE_NEAR_CEILING &&
           !(ld->have && ld->uncoalesced) && !(st->have && st->uncoalesced);
}

static int uncoalesced(const kt_diagnosis *d)
{
    return (d->load.have && d->load.uncoalesced) ||
           (d->store.have && d->store.uncoalesced);
}

static void rate(const kt_guide_incumbent *inc, const kt_guide_move *mv,
                 kt_guide_verdict *v)
{
    const kt_diagnosis *d = inc->diag;

    memset(v, 0, sizeof *v);
    v->priority = KT_GUIDE_NORMAL;
    if (!d)
        return;
    /* Rule 1: at the copy ceiling nothing a launch parameter changes can
     * gain much; everything waits behind moves other rules favour. */
    if (at_ceiling(d)) {
        v->priority = KT_GUIDE_LATER;
        v->rule = "ceiling";
        snprintf(v->reason, sizeof v->reason,
                 "incumbent is memory-bound at %.1f%% of the copy ceiling: at "
                 "most %.1f%% left to gain",
                 d->derived.pct_of_copy,
                 100.0 * (100.0 / d->derived.pct_of_copy - 1.0));
        return;
    }
    /* Rule 2: an uncoalesced incumbent is fixed by its mapping, which only
     * another variant changes; block sizes move the same sectors. */
    if (uncoalesced(d)) {
        double excess =
            d->load.excess > d->store.excess ? d->load.excess : d->store.excess;
        v->rule = "uncoalesced";
        if (mv->changes_variant) {
            v->priority = KT_GUIDE_FIRST;
            snprintf(v->reason, sizeof v->reason,
                     "incumbent moves %.1fx the ideal sectors per request: "
                     "try other mappings first",
                     excess);
            return;
        }
        v->priority = KT_GUIDE_LATER;
        snprintf(v->reason, sizeof v->reason,
                 "incumbent is uncoalesced (%.1fx the ideal sectors per "
                 "request); this move keeps the mapping",
                 excess);
        /* Rule 3 may still skip it below. */
    }
    /* Rule 3: a latency-bound incumbent needs more warps in flight; a block
     * size that cannot raise the theoretical occupancy cannot help. */
    if (d->bound == KT_BOUND_LATENCY && mv->changes_block &&
        !mv->changes_variant && !mv->changes_other &&
        inc->theoretical_occupancy >= 0 && mv->theoretical_occupancy >= 0) {
        if (mv->theoretical_occupancy <= inc->theoretical_occupancy) {
            v->priority = KT_GUIDE_SKIP;
            v->rule = "latency";
            snprintf(v->reason, sizeof v->reason,
                     "incumbent is latency-bound; this block size allows "
                     "%.1f%% theoretical occupancy, not more than its %.1f%%",
                     mv->theoretical_occupancy, inc->theoretical_occupancy);
        } else if (v->priority != KT_GUIDE_LATER) {
            v->priority = KT_GUIDE_FIRST;
            v->rule = "latency";
            snprintf(v->reason, sizeof v->reason,
                     "incumbent is latency-bound; this block size raises "
                     "theoretical occupancy from %.1f%% to %.1f%%",
                     inc->theoretical_occupancy, mv->theoretical_occupancy);
        }
    }
}

void kt_guide_rate(const kt_guide_incumbent *inc, const kt_guide_move *moves,
                   size_t n, kt_guide_verdict *out)
{
    for (size_t i = 0; i < n; ++i)
        rate(inc, &moves[i], &out[i]);
}

size_t kt_guide_order(const kt_guide_verdict *verdicts, size_t n, size_t *order)
{
    size_t count = 0;
    for (int p = KT_GUIDE_FIRST; p < KT_GUIDE_SKIP; ++p)
        for (size_t i = 0; i < n; ++i)
            if ((int)verdicts[i].priority == p)
                order[count++] = i;
    return count;
}

double kt_guide_launch_occupancy(const kt_occupancy *occ, uint64_t grid_blocks,
                                 int sm_count)
{
    uint64_t per_sm, blocks;

    if (!occ || occ->max_warps_per_sm <= 0 || occ->blocks_per_sm <= 0 ||
        grid_blocks == 0 || sm_count <= 0)
        return -1;
    per_sm = (grid_blocks + (uint64_t)sm_count - 1) / (uint64_t)sm_count;
    blocks = per_sm < (uint64_t)occ->blocks_per_sm
                 ? per_sm
                 : (uint64_t)occ->blocks_per_sm;
    return 100.0 * (double)blocks * occ->warps_per_block /
           occ->max_warps_per_sm;
}
