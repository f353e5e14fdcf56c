// SPDX-License-Identifier: Apache-2.0
/* Objectives other than time: costs, paired ratios on energy windows, the
 * energy-delay product's interval, throughput by declared (per-point)
 * work, and the figures an objective lacks. */
#include "tests/kt_test.h"

#include <math.h>

#include "records/objective.h"

/* A timing of n rounds at us each (+ a little noise by round), and an
 * energy of n rounds at j each. */
static void point(kt_timing *t, double *samples, kt_energy *e, size_t n,
                  double us, double j)
{
    memset(t, 0, sizeof *t);
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < n; ++i) {
        samples[i] = us * (1 + 0.001 * (double)(i % 3));
        e->samples_j[i] = j * (1 + 0.002 * (double)(i % 2));
    }
    t->samples_us = samples;
    t->num_rounds = n;
    kt_stats_compute(samples, n, &t->kernel);
    e->rounds = n;
    kt_stats_compute(e->samples_j, n, &e->joules);
    e->measured = 1;
}

static void names_parse_and_an_unknown_one_lists_them(void **state)
{
    kt_objective o;
    kt_err err;
    (void)state;
    assert_int_equal(kt_objective_parse("energy", &o, &err), KT_S_OK);
    assert_int_equal(o, KT_OBJ_ENERGY);
    assert_int_equal(kt_objective_parse("EDP", &o, &err), KT_S_OK);
    assert_int_equal(o, KT_OBJ_EDP);
    assert_int_equal(kt_objective_parse("watts", &o, &err), KT_S_INPUT);
    assert_contains(err.msg, "'watts' is not an objective");
    assert_contains(err.msg, "gbs_w");
    assert_string_equal(kt_objective_name(KT_OBJ_TIME), "time");
    assert_false(kt_objective_needs_energy(KT_OBJ_TIME));
    assert_false(kt_objective_needs_energy(KT_OBJ_GFLOPS));
    assert_true(kt_objective_needs_energy(KT_OBJ_GBS_W));
}

static void faster_but_hungrier_wins_on_time_and_loses_on_energy(void **state)
{
    double sa[20], sb[20];
    kt_timing ta, tb;
    kt_energy ea, eb;
    kt_objective_side a = {&ta, &ea, NULL}, b = {&tb, &eb, NULL};
    kt_ratio r;
    (void)state;

    /* b: 10% faster, 20% more energy per launch. */
    point(&ta, sa, &ea, 20, 100, 0.030);
    point(&tb, sb, &eb, 20, 90, 0.036);
    kt_objective_ratio(KT_OBJ_TIME, &a, &b, &r);
    assert_float_equal(r.ratio, 0.9, 0.002);
    assert_int_equal(kt_stats_verdict(&r, 0.005), -1);
    kt_objective_ratio(KT_OBJ_ENERGY, &a, &b, &r);
    assert_float_equal(r.ratio, 1.2, 0.003);
    assert_int_equal(kt_stats_verdict(&r, 0.005), 1);
    /* EDP: 1.2 x 0.9 = 1.08, still worse. */
    kt_objective_ratio(KT_OBJ_EDP, &a, &b, &r);
    assert_float_equal(r.ratio, 1.08, 0.005);
    assert_true(r.lo <= r.ratio && r.ratio <= r.hi);
    assert_int_equal(kt_stats_verdict(&r, 0.005), 1);
    assert_float_equal(kt_objective_cost(KT_OBJ_ENERGY, &b), 0.036, 1e-4);
    assert_float_equal(kt_objective_cost(KT_OBJ_EDP, &a),
                       (ea.joules.median * 1e-6 * ta.kernel.median), 1e-12);
}

static void energy_within_the_noise_is_a_tie(void **state)
{
    double sa[12], sb[12];
    kt_timing ta, tb;
    kt_energy ea, eb;
    kt_objective_side a = {&ta, &ea, NULL}, b = {&tb, &eb, NULL};
    kt_ratio r;
    (void)state;

    point(&ta, sa, &ea, 12, 100, 0.030);
    point(&tb, sb, &eb, 12, 80, 0.030);
    kt_objective_ratio(KT_OBJ_ENERGY, &a, &b, &r);
    assert_int_equal(kt_stats_verdict(&r, 0.01), 0);
}

static void throughput_divides_by_each_points_own_work(void **state)
{
    double sa[10], sb[10];
    kt_timing ta, tb;
    kt_energy ea, eb;
    kt_work wa = {sizeof wa, 0, 1e9, 0, 2e9}, wb = wa;
    kt_objective_side a = {&ta, &ea, &wa}, b = {&tb, &eb, &wb};
    kt_ratio r;
    (void)state;

    /* Same time, but b does twice the flops (a point's own work): twice
     * the GFLOP/s, half the cost. */
    point(&ta, sa, &ea, 10, 100, 0.030);
    point(&tb, sb, &eb, 10, 100, 0.030);
    wb.flops = 4e9;
    kt_objective_ratio(KT_OBJ_GFLOPS, &a, &b, &r);
    assert_float_equal(r.ratio, 0.5, 1e-6);
    kt_objective_ratio(KT_OBJ_GFLOPS_W, &a, &b, &r);
    assert_float_equal(r.ratio, 0.5, 1e-6);
    kt_objective_ratio(KT_OBJ_GBS, &a, &b, &r);
    assert_float_equal(r.ratio, 1.0, 1e-6);
    assert_float_equal((kt_objective_cost(KT_OBJ_GFLOPS, &a) * 2e9 /
                        (1e-6 * ta.kernel.median)),
                       1.0, 1e-6);
}

static void an_objective_lacking_its_figures_decides_nothing(void **state)
{
    double sa[10], sb[10];
    kt_timing ta, tb;
    kt_energy ea, eb;
    kt_work none = {sizeof none, 0, 1e9, 0, 0};
    kt_objective_side a = {&ta, &ea, &none}, b = {&tb, &eb, &none};
    kt_ratio r;
    (void)state;

    point(&ta, sa, &ea, 10, 100, 0.030);
    point(&tb, sb, &eb, 10, 90, 0.030);
    eb.measured = 0; /* no NVML for b */
    kt_objective_ratio(KT_OBJ_ENERGY, &a, &b, &r);
    assert_int_equal(r.n, 0);
    assert_true(isnan(kt_objective_cost(KT_OBJ_ENERGY, &b)));
    /* No flops declared: no GFLOP/s objective. */
    kt_objective_ratio(KT_OBJ_GFLOPS, &a, &b, &r);
    assert_int_equal(r.n, 0);
    /* Time needs neither. */
    kt_objective_ratio(KT_OBJ_TIME, &a, &b, &r);
    assert_int_equal(r.n, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_parse_and_an_unknown_one_lists_them),
        cmocka_unit_test(faster_but_hungrier_wins_on_time_and_loses_on_energy),
        cmocka_unit_test(energy_within_the_noise_is_a_tie),
        cmocka_unit_test(throughput_divides_by_each_points_own_work),
        cmocka_unit_test(an_objective_lacking_its_figures_decides_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
