// SPDX-License-Identifier: Apache-2.0
/* The metric catalog: every entry well-formed, every counter it names known
 * to the H200's chip (GH100) — checked through the CUPTI Profiler Host API,
 * which needs no GPU — and the formulas that turn counters into figures. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "metrics/catalog.h"
#include "metrics/cupti/chip.h"
#include "metrics/resolve.h"

static void entries_are_in_id_order_with_unique_names(void **state)
{
    size_t count;
    const kt_metric_def *cat = kt_metric_catalog(&count);
    (void)state;

    assert_int_equal(count, KT_M_COUNT);
    for (size_t i = 0; i < count; ++i) {
        assert_int_equal(cat[i].id, i);
        assert_ptr_equal(kt_metric_find(cat[i].name), &cat[i]);
        assert_true(cat[i].description[0] && cat[i].unit[0]);
        for (size_t j = 0; j < i; ++j)
            assert_string_not_equal(cat[i].name, cat[j].name);
    }
    assert_null(kt_metric_find("achieved"));
}

static void counter_entries_name_well_formed_raw_counters(void **state)
{
    size_t count;
    const kt_metric_def *cat = kt_metric_catalog(&count);
    kt_err err;
    (void)state;

    for (size_t i = 0; i < count; ++i) {
        const kt_metric_def *d = &cat[i];
        if (d->kind == KT_MK_STATIC) {
            assert_null(d->raw[0]);
            assert_false(d->in_default);
            continue;
        }
        assert_non_null(d->raw[0]);
        assert_int_equal(kt_metric_name_check(d->raw[0], &err), KT_S_OK);
        if (d->formula == KT_MF_VALUE)
            assert_null(d->raw[1]);
        else
            assert_int_equal(kt_metric_name_check(d->raw[1], &err), KT_S_OK);
    }
}

/* The names the brief verified on the H200 with Nsight Compute. */
static void issue_metrics_use_the_nsight_compute_names(void **state)
{
    (void)state;
    assert_string_equal(kt_metric_find("achieved_occupancy")->raw[0],
                        "sm__warps_active.avg.pct_of_peak_sustained_active");
    assert_string_equal(kt_metric_find("global_load_requests")->raw[0],
                        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    assert_string_equal(kt_metric_find("global_store_sectors")->raw[0],
                        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    assert_string_equal(kt_metric_find("dram_bytes_written")->raw[0],
                        "dram__bytes_write.sum");
    assert_string_equal(kt_metric_find("l2_hit_rate")->raw[0],
                        "lts__t_sector_hit_rate.pct");
}

static void every_counter_is_known_to_gh100(void **state)
{
    size_t count;
    const kt_metric_def *cat = kt_metric_catalog(&count);
    kt_chip *chip;
    kt_err err;
    (void)state;

    kt_err_clear(&err);
    if (kt_chip_open("GH100", NULL, &chip, &err) != KT_S_OK)
        fail_msg("the CUPTI host API cannot open GH100: %s", err.msg);
    for (size_t i = 0; i < count; ++i)
        for (size_t r = 0; r < 2 && cat[i].raw[r]; ++r) {
            kt_chip_metric info;
            if (kt_chip_describe(chip, cat[i].raw[r], &info, &err) != KT_S_OK)
                fail_msg("%s: %s", cat[i].name, err.msg);
        }
    kt_chip_close(chip);
}

/* The default set fits a handful of replay passes on GH100 (the number is
 * the cost of every profile; docs/results records it). */
static void default_set_configures_on_gh100(void **state)
{
    kt_metric_set set;
    const char *raw[KT_METRICS_RAW_MAX];
    size_t n, image_size, passes;
    uint8_t *image;
    kt_chip *chip;
    kt_err err;
    (void)state;

    assert_int_equal(kt_metrics_resolve(NULL, 0, 1, &set, &err), KT_S_OK);
    n = kt_metric_set_raw_names(&set, raw);
    assert_int_equal(kt_chip_open("GH100", NULL, &chip, &err), KT_S_OK);
    if (kt_chip_config(chip, raw, n, &image, &image_size, &passes, &err))
        fail_msg("%s", err.msg);
    printf("default set: %zu raw counters, %zu passes on GH100, %zu-byte "
           "config image\n",
           n, passes, image_size);
    assert_true(passes >= 1 && passes <= 32);
    assert_true(image_size > 0);
    free(image);
    kt_chip_close(chip);
}

static void formulas_turn_counters_into_figures(void **state)
{
    const kt_metric_def *spr =
        kt_metric_find("global_load_sectors_per_request");
    const kt_metric_def *ls = kt_metric_find("long_scoreboard_stalls");
    const kt_metric_def *occ = kt_metric_find("achieved_occupancy");
    double a[2] = {33554432.0, 1048576.0}, z[2] = {5, 0}, o[2] = {74.5, NAN};
    double s[2] = {300, 400};
    (void)state;

    assert_float_equal(kt_metric_compute(spr, a), 32.0, 0);
    assert_true(isnan(kt_metric_compute(spr, z)));
    assert_float_equal(kt_metric_compute(ls, s), 75.0, 1e-12);
    assert_float_equal(kt_metric_compute(occ, o), 74.5, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entries_are_in_id_order_with_unique_names),
        cmocka_unit_test(counter_entries_name_well_formed_raw_counters),
        cmocka_unit_test(issue_metrics_use_the_nsight_compute_names),
        cmocka_unit_test(every_counter_is_known_to_gh100),
        cmocka_unit_test(default_set_configures_on_gh100),
        cmocka_unit_test(formulas_turn_counters_into_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
