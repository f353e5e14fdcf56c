// SPDX-License-Identifier: Apache-2.0
/*
 * Counter-guided search: rules that order a strategy's candidate moves
 * from the incumbent's diagnosis. Pure: the tuner
 * describes each move (does it change the variant, the block size, is it
 * the same kernel, what theoretical occupancy would it have) and gets back
 * a priority and the reason. docs/metrics.md lists the rules.
 */
#ifndef KT_METRICS_GUIDE_H
#define KT_METRICS_GUIDE_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/diagnose.h"
#include "metrics/occupancy.h"

/* Within this share of the copy ceiling a memory-bound, coalesced kernel
 * has little left to gain from launch parameters. */
#define KT_GUIDE_NEAR_CEILING 90.0

typedef enum kt_guide_priority {
    KT_GUIDE_FIRST = 0,  /* the rules expect this move to help most */
    KT_GUIDE_NORMAL = 1, /* no rule speaks */
    KT_GUIDE_LATER = 2,  /* unlikely to help; try after the others */
    KT_GUIDE_SKIP = 3    /* cannot help under the rules: leave it out */
} kt_guide_priority;

/* What the rules know of the incumbent. */
typedef struct kt_guide_incumbent {
    const kt_diagnosis *diag;
    double theoretical_occupancy; /* percent; < 0 unknown */
} kt_guide_incumbent;

/* One candidate move from the incumbent. */
typedef struct kt_guide_move {
    int changes_variant; /* another thread-to-data mapping */
    int changes_block;   /* another number of threads per block */
    int changes_other;   /* any other parameter */
    /* The candidate's theoretical occupancy (percent), < 0 unknown. For a
     * block-size move of the same kernel it follows from the incumbent's
     * registers and shared memory (metrics/occupancy.h). */
    double theoretical_occupancy;
} kt_guide_move;

typedef struct kt_guide_verdict {
    kt_guide_priority priority;
    const char *rule; /* "uncoalesced", "latency", "ceiling" or NULL */
    char reason[256];
} kt_guide_verdict;

/* Rates moves[0..n) into out[0..n). */
void kt_guide_rate(const kt_guide_incumbent *inc, const kt_guide_move *moves,
                   size_t n, kt_guide_verdict *out);

/* The order to try the moves in: indices by priority (stable within one),
 * skipped moves left out. Returns how many were written to order. */
size_t kt_guide_order(const kt_guide_verdict *verdicts, size_t n,
                      size_t *order);

const char *kt_guide_priority_name(kt_guide_priority p);

/* The occupancy (percent) a launch of grid_blocks blocks can reach: the
 * theoretical occupancy occ allows, capped by the blocks the grid gives
 * each SM (ceil(grid_blocks / sm_count)). A grid-stride kernel launched
 * with one block per SM keeps one block's warps resident whatever the
 * block size allows, so its block-size moves are rated by what they can
 * really add. Pass it as kt_guide_incumbent/kt_guide_move
 * theoretical_occupancy (the same definition for both). < 0 when occ or
 * the grid is unknown. */
double kt_guide_launch_occupancy(const kt_occupancy *occ, uint64_t grid_blocks,
                                 int sm_count);

#endif
