// SPDX-License-Identifier: Apache-2.0
/* Metric names: catalog names and raw counters resolve into one
 * de-duplicated counter list; unknown or malformed names are the user's
 * mistake (KT_S_INPUT, exit 2) with close matches — from the catalog
 * without a GPU, from the chip's own list (GH100 here, through the host
 * API) when a device is there. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdlib.h>

#include "metrics/cupti/chip.h"
#include "metrics/resolve.h"

static size_t raw_index(const kt_metric_set *set, const char *raw)
{
    for (size_t i = 0; i < set->num_raw; ++i)
        if (strcmp(set->raw[i], raw) == 0)
            return i;
    fail_msg("%s not in the set", raw);
    return 0;
}

static void defaults_share_counters_between_figures(void **state)
{
    kt_metric_set set;
    size_t count, distinct = 0;
    const kt_metric_def *cat = kt_metric_catalog(&count);
    const char *seen[2 * KT_M_COUNT];
    kt_err err;
    (void)state;

    assert_int_equal(kt_metrics_resolve(NULL, 0, 1, &set, &err), KT_S_OK);
    for (size_t i = 0; i < count; ++i)
        for (size_t r = 0; r < 2 && cat[i].in_default && cat[i].raw[r]; ++r) {
            int dup = 0;
            for (size_t j = 0; j < distinct; ++j)
                dup |= strcmp(seen[j], cat[i].raw[r]) == 0;
            if (!dup)
                seen[distinct++] = cat[i].raw[r];
        }
    assert_int_equal(set.num_raw, distinct);
    for (size_t k = 0; k < set.num_items; ++k)
        if (set.items[k].def &&
            set.items[k].def->id == KT_M_LD_SECTORS_PER_REQUEST) {
            assert_int_equal(
                set.items[k].raw[0],
                raw_index(&set,
                          "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
            assert_int_equal(
                set.items[k].raw[1],
                raw_index(&set,
                          "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"));
        }
}

static void catalog_and_raw_names_mix_and_repeats_drop(void **state)
{
    const char *names[] = {"l2_hit_rate", "smsp__inst_executed.sum",
                           "l2_hit_rate", "lts__t_sector_hit_rate.pct",
                           "registers_per_thread"};
    kt_metric_set set;
    kt_err err;
    (void)state;

    assert_int_equal(kt_metrics_resolve(names, 5, 0, &set, &err), KT_S_OK);
    assert_int_equal(set.num_items, 4);
    /* l2_hit_rate and the raw name it stands for share one counter; the
     * static entry needs none. */
    assert_int_equal(set.num_raw, 2);
    assert_string_equal(set.raw[0], "lts__t_sector_hit_rate.pct");
    assert_string_equal(set.raw[1], "smsp__inst_executed.sum");
    assert_null(set.items[1].def);
    assert_int_equal(set.items[3].num_raw, 0);
}

static void item_values_follow_their_formulas(void **state)
{
    const char *names[] = {"global_load_sectors_per_request",
                           "global_load_requests", "smsp__inst_executed.sum",
                           "theoretical_occupancy"};
    kt_metric_set set;
    double raw[KT_METRICS_RAW_MAX], items[KT_METRICS_MAX], by_id[KT_M_COUNT];
    kt_err err;
    (void)state;

    assert_int_equal(kt_metrics_resolve(names, 4, 0, &set, &err), KT_S_OK);
    raw[raw_index(&set, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")] =
        4194304;
    raw[raw_index(&set, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")] =
        1048576;
    raw[raw_index(&set, "smsp__inst_executed.sum")] = 123;
    kt_metric_set_values(&set, raw, items, by_id);
    assert_float_equal(items[0], 4.0, 0);
    assert_float_equal(items[1], 1048576, 0);
    assert_float_equal(items[2], 123, 0);
    assert_true(isnan(items[3]));
    assert_float_equal(by_id[KT_M_LD_SECTORS_PER_REQUEST], 4.0, 0);
    assert_true(isnan(by_id[KT_M_DRAM_THROUGHPUT]));
}

static void unknown_catalog_names_get_close_matches(void **state)
{
    kt_metric_set set;
    kt_err err;
    const char *bad[] = {"occupncy"}, *bad2[] = {"dram_read"};
    (void)state;

    assert_int_equal(kt_metrics_resolve(bad, 1, 1, &set, &err), KT_S_INPUT);
    assert_contains(err.msg, "unknown metric 'occupncy'");
    assert_contains(err.msg, "did you mean 'achieved_occupancy'");
    assert_int_equal(kt_metrics_resolve(bad2, 1, 0, &set, &err), KT_S_INPUT);
    assert_contains(err.msg, "did you mean 'dram_bytes_read'?");
    assert_int_equal(kt_status_exit_code(err.status), 2);
}

static void malformed_raw_names_say_what_is_wrong(void **state)
{
    const struct {
        const char *name, *expect;
    } cases[] = {
        {"dram__bytes_read", "no rollup or ratio suffix"},
        {"DRAM__bytes_read.sum", "character 'D'"},
        {"dram__bytes read.sum", "character ' '"},
        {"__bytes.sum", "starts with UNIT__COUNTER"},
        {"dram__.sum", "starts with UNIT__COUNTER"},
        {"dram.x__y.sum", "starts with UNIT__COUNTER"},
        {"dram__bytes_read..sum", "empty suffix"},
        {"dram__bytes_read.sum.", "empty suffix"},
    };
    kt_err err;
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        kt_metric_set set;
        const char *one[] = {cases[i].name};
        assert_int_equal(kt_metrics_resolve(one, 1, 0, &set, &err), KT_S_INPUT);
        assert_contains(err.msg, cases[i].expect);
    }
    assert_int_equal(
        kt_metric_name_check("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                             &err),
        KT_S_OK);
}

static void lists_split_on_commas(void **state)
{
    kt_metric_set set;
    kt_err err;
    (void)state;

    assert_int_equal(kt_metrics_resolve_list(
                         " l1_hit_rate , dram__bytes_read.sum", 0, &set, &err),
                     KT_S_OK);
    assert_int_equal(set.num_items, 2);
    assert_int_equal(kt_metrics_resolve_list("l1_hit_rate,,x", 0, &set, &err),
                     KT_S_INPUT);
    assert_int_equal(kt_metrics_resolve_list(NULL, 0, &set, &err), KT_S_OK);
    assert_int_equal(set.num_items, 0);
}

static kt_chip *gh100(void)
{
    kt_chip *chip;
    kt_err err;
    if (kt_chip_open("GH100", NULL, &chip, &err))
        fail_msg("GH100: %s", err.msg);
    return chip;
}

static void chip_suggests_the_counter_meant(void **state)
{
    kt_chip *chip = gh100();
    const char *typo[] = {"dram__bytes_read.sum",
                          "l1tex__t_sector_pipe_lsu_mem_global_op_ld.sum"};
    kt_err err;
    (void)state;

    assert_int_equal(kt_chip_check(chip, typo, 2, &err), KT_S_INPUT);
    assert_contains(err.msg, "unknown metric "
                             "'l1tex__t_sector_pipe_lsu_mem_global_op_ld.sum' "
                             "for chip GH100");
    assert_contains(err.msg,
                    "'l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'");
    kt_chip_close(chip);
}

static void chip_suggests_the_suffix_meant(void **state)
{
    kt_chip *chip = gh100();
    const char *typo[] = {"dram__bytes_read.summ"};
    kt_err err;
    (void)state;

    assert_int_equal(kt_chip_check(chip, typo, 1, &err), KT_S_INPUT);
    assert_contains(err.msg, "did you mean 'dram__bytes_read.sum'");
    kt_chip_close(chip);
}

static void chip_without_close_match_says_so_plainly(void **state)
{
    kt_chip *chip = gh100();
    const char *typo[] = {"qqqqqq__zzzzzzzzzzzz.sum"};
    kt_err err;
    (void)state;

    assert_int_equal(kt_chip_check(chip, typo, 1, &err), KT_S_INPUT);
    assert_contains(err.msg, "unknown metric 'qqqqqq__zzzzzzzzzzzz.sum' for "
                             "chip GH100");
    assert_null(strstr(err.msg, "did you mean"));
    kt_chip_close(chip);
}

static void an_unknown_chip_means_no_counters(void **state)
{
    kt_chip *chip = NULL;
    kt_err err;
    (void)state;

    assert_int_equal(kt_chip_open("GX999", NULL, &chip, &err),
                     KT_S_UNSUPPORTED);
    assert_null(chip);
    assert_contains(err.msg, "chip 'GX999'");
    assert_contains(err.msg, "GH100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_share_counters_between_figures),
        cmocka_unit_test(catalog_and_raw_names_mix_and_repeats_drop),
        cmocka_unit_test(item_values_follow_their_formulas),
        cmocka_unit_test(unknown_catalog_names_get_close_matches),
        cmocka_unit_test(malformed_raw_names_say_what_is_wrong),
        cmocka_unit_test(lists_split_on_commas),
        cmocka_unit_test(chip_suggests_the_counter_meant),
        cmocka_unit_test(chip_suggests_the_suffix_meant),
        cmocka_unit_test(chip_without_close_match_says_so_plainly),
        cmocka_unit_test(an_unknown_chip_means_no_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
