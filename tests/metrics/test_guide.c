// SPDX-License-Identifier: Apache-2.0
/* Counter-guided search rules: an uncoalesced incumbent tries other
 * mappings first; a latency-bound one skips block sizes that cannot raise
 * its theoretical occupancy; a memory-bound one at the copy ceiling puts
 * everything later. */
#include "tests/kt_test.h"

#include <math.h>

#include "metrics/guide.h"

static kt_diagnosis diag(kt_bound bound, int uncoalesced, double pct_of_copy)
{
    kt_diagnosis d;
    memset(&d, 0, sizeof d);
    d.bound = bound;
    d.derived.pct_of_copy = pct_of_copy;
    d.load.have = 1;
    d.load.measured = uncoalesced ? 32 : 4;
    d.load.ideal = 4;
    d.load.excess = d.load.measured / d.load.ideal;
    d.load.uncoalesced = uncoalesced;
    return d;
}

static const kt_guide_move variant_move = {1, 0, 0, -1};

static kt_guide_move block_move(double occupancy)
{
    kt_guide_move m = {0, 1, 0, occupancy};
    return m;
}

static void uncoalesced_incumbent_tries_mappings_first(void **state)
{
    kt_diagnosis d = diag(KT_BOUND_MEMORY, 1, 9.5);
    kt_guide_incumbent inc = {&d, 100};
    kt_guide_move moves[3] = {block_move(100), variant_move, block_move(50)};
    kt_guide_verdict v[3];
    size_t order[3];
    (void)state;

    kt_guide_rate(&inc, moves, 3, v);
    assert_int_equal(v[1].priority, KT_GUIDE_FIRST);
    assert_string_equal(v[1].rule, "uncoalesced");
    assert_contains(v[1].reason, "8.0x the ideal sectors per request");
    assert_int_equal(v[0].priority, KT_GUIDE_LATER);
    assert_int_equal(v[2].priority, KT_GUIDE_LATER);
    assert_int_equal(kt_guide_order(v, 3, order), 3);
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 0);
    assert_int_equal(order[2], 2);
}

static void latency_bound_incumbent_skips_blocks_that_cannot_help(void **state)
{
    kt_diagnosis d = diag(KT_BOUND_LATENCY, 0, 30);
    kt_guide_incumbent inc = {&d, 25};
    kt_guide_move moves[4] = {block_move(25), block_move(50), block_move(12.5),
                              variant_move};
    kt_guide_verdict v[4];
    size_t order[4];
    (void)state;

    kt_guide_rate(&inc, moves, 4, v);
    assert_int_equal(v[0].priority, KT_GUIDE_SKIP);
    assert_contains(v[0].reason, "25.0% theoretical occupancy, not more");
    assert_int_equal(v[1].priority, KT_GUIDE_FIRST);
    assert_contains(v[1].reason, "from 25.0% to 50.0%");
    assert_int_equal(v[2].priority, KT_GUIDE_SKIP);
    assert_int_equal(v[3].priority, KT_GUIDE_NORMAL);
    assert_int_equal(kt_guide_order(v, 4, order), 2);
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 3);
}

static void unknown_occupancy_never_skips(void **state)
{
    kt_diagnosis d = diag(KT_BOUND_LATENCY, 0, 30);
    kt_guide_incumbent inc = {&d, 25};
    kt_guide_move moves[2] = {block_move(-1), {0, 1, 1, 10}};
    kt_guide_verdict v[2];
    (void)state;

    kt_guide_rate(&inc, moves, 2, v);
    /* No occupancy for the candidate, or a move that changes more than the
     * block: the rule does not know enough. */
    assert_int_equal(v[0].priority, KT_GUIDE_NORMAL);
    assert_int_equal(v[1].priority, KT_GUIDE_NORMAL);
}

static void at_the_copy_ceiling_everything_waits(void **state)
{
    kt_diagnosis d = diag(KT_BOUND_MEMORY, 0, 95);
    kt_guide_incumbent inc = {&d, 100};
    kt_guide_move moves[2] = {variant_move, block_move(50)};
    kt_guide_verdict v[2];
    (void)state;

    kt_guide_rate(&inc, moves, 2, v);
    assert_int_equal(v[0].priority, KT_GUIDE_LATER);
    assert_int_equal(v[1].priority, KT_GUIDE_LATER);
    assert_string_equal(v[0].rule, "ceiling");
    assert_contains(v[0].reason,
                    "95.0% of the copy ceiling: at most 5.3% left");
    /* The same incumbent uncoalesced is not at a ceiling: it moves 8x the
     * sectors, whatever its bandwidth. */
    d = diag(KT_BOUND_MEMORY, 1, 95);
    kt_guide_rate(&inc, moves, 2, v);
    assert_int_equal(v[0].priority, KT_GUIDE_FIRST);
}

static void no_diagnosis_no_opinion(void **state)
{
    kt_guide_incumbent inc = {NULL, -1};
    kt_guide_verdict v;
    (void)state;

    kt_guide_rate(&inc, &variant_move, 1, &v);
    assert_int_equal(v.priority, KT_GUIDE_NORMAL);
    assert_null(v.rule);
    assert_string_equal(kt_guide_priority_name(KT_GUIDE_SKIP), "skip");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uncoalesced_incumbent_tries_mappings_first),
        cmocka_unit_test(latency_bound_incumbent_skips_blocks_that_cannot_help),
        cmocka_unit_test(unknown_occupancy_never_skips),
        cmocka_unit_test(at_the_copy_ceiling_everything_waits),
        cmocka_unit_test(no_diagnosis_no_opinion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
