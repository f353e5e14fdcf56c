// SPDX-License-Identifier: Apache-2.0
/* The one diagnosis input (metrics/diag_facts.h) that profile, compare and
 * tune build their verdicts from: the same facts give what kt_diagnose
 * gives on a hand-built input, the compute ceiling is the measured FMA
 * rate when there is one, the --access-bytes override reaches the
 * coalescing ideal, and a point without kernel facts says why it has no
 * occupancy. */
#include "tests/kt_test.h"

#include <math.h>

#include "metrics/diag_facts.h"
#include "tests/support/fake_device.h"

#define N (1 << 24)

typedef struct fixture {
    kt_device dev;
    kt_work work;
    kt_kernel_info kernel;
    double m[KT_M_COUNT];
} fixture;

/* vector_add at 2^24, block 256: coalesced 4-byte loads and stores. */
static void setup(fixture *x)
{
    memset(x, 0, sizeof *x);
    x->dev = kt_test_h200();
    x->work.struct_size = sizeof x->work;
    x->work.bytes_read = 8.0 * N;
    x->work.bytes_written = 4.0 * N;
    x->work.flops = N;
    x->kernel.available = 1;
    x->kernel.block_threads = 256;
    x->kernel.num_regs = 16;
    for (size_t i = 0; i < KT_M_COUNT; ++i)
        x->m[i] = NAN;
    x->m[KT_M_LD_REQUESTS] = 1048576;
    x->m[KT_M_LD_SECTORS] = 4194304;
    x->m[KT_M_ST_REQUESTS] = 524288;
    x->m[KT_M_ST_SECTORS] = 2097152;
    x->m[KT_M_LD_BYTES] = 8.0 * N;
    x->m[KT_M_ST_BYTES] = 4.0 * N;
    x->m[KT_M_DRAM_THROUGHPUT] = 91;
    x->m[KT_M_MEMORY_THROUGHPUT] = 91;
    x->m[KT_M_SM_THROUGHPUT] = 20;
}

static void a_point_is_diagnosed_as_a_hand_built_input_is(void **state)
{
    fixture x;
    kt_diag_facts f;
    kt_diag_point p;
    kt_diag_input in;
    kt_diagnosis a, b;
    kt_occupancy occ;
    (void)state;
    setup(&x);
    kt_diag_facts_init(&f, &x.dev, &x.work);
    kt_diag_facts_ceilings(&f, 4185, 4814, 60000, 1980);
    p = (kt_diag_point){.median_us = 48, .kernel = &x.kernel, .by_id = x.m};
    assert_int_equal(kt_diagnose_point(&f, &p, &a, &occ, NULL), 1);
    assert_float_equal(occ.theoretical, 100, 1e-9);
    memset(&in, 0, sizeof in);
    in.work = x.work;
    in.time_us = 48;
    in.copy_gbs = 4185;
    in.peak_bw_gbs = 4814;
    in.peak_gflops = 60000;
    in.gflops_measured = 1;
    in.m = x.m;
    in.theoretical_occupancy = 100;
    in.warp_size = 32;
    kt_diagnose(&in, &b);
    assert_int_equal(a.bound, b.bound);
    assert_int_equal(a.bound, KT_BOUND_MEMORY);
    assert_string_equal(a.why, b.why);
    assert_string_equal(a.roofline, b.roofline);
    assert_string_equal(a.coalescing, b.coalescing);
}

static void the_compute_ceiling_is_measured_else_theoretical(void **state)
{
    fixture x;
    kt_diag_facts f;
    (void)state;
    setup(&x);
    kt_diag_facts_init(&f, &x.dev, &x.work);
    kt_diag_facts_ceilings(&f, 4185, 4814, 51234, 1980);
    assert_true(f.gflops_measured);
    assert_float_equal(f.peak_gflops, 51234, 0);
    kt_diag_facts_ceilings(&f, 0, 0, 0, 1980);
    assert_false(f.gflops_measured);
    assert_float_equal(f.peak_gflops, kt_peak_gflops_fp32(&x.dev, 1980), 0);
    assert_true(f.peak_gflops > 0);
    assert_float_equal(f.copy_gbs, 0, 0);
}

static void the_access_width_override_reaches_the_coalescing_ideal(void **state)
{
    fixture x;
    kt_diag_facts f;
    kt_diag_point p;
    kt_diagnosis counted, forced;
    (void)state;
    setup(&x);
    kt_diag_facts_init(&f, &x.dev, &x.work);
    kt_diag_facts_ceilings(&f, 4185, 4814, 60000, 1980);
    p = (kt_diag_point){.median_us = 48, .kernel = &x.kernel, .by_id = x.m};
    kt_diagnose_point(&f, &p, &counted, NULL, NULL);
    f.access_bytes = 16;
    kt_diagnose_point(&f, &p, &forced, NULL, NULL);
    assert_int_equal(counted.access_bytes, 0);
    assert_int_equal(forced.access_bytes, 16);
    assert_float_equal(counted.load.ideal, 4, 0);
    assert_float_equal(forced.load.ideal, 16, 0);
}

static void
a_point_without_kernel_facts_says_why_it_has_no_occupancy(void **state)
{
    fixture x;
    kt_diag_facts f;
    kt_diag_point p;
    kt_diagnosis d;
    kt_occupancy occ;
    kt_err err;
    (void)state;
    setup(&x);
    kt_diag_facts_init(&f, &x.dev, &x.work);
    p = (kt_diag_point){.median_us = 48, .kernel = NULL, .by_id = NULL};
    kt_err_clear(&err);
    assert_int_equal(kt_diagnose_point(&f, &p, &d, &occ, &err), 0);
    assert_true(strlen(err.msg) > 0);
    x.kernel.available = 0;
    p.kernel = &x.kernel;
    kt_err_clear(&err);
    assert_int_equal(kt_diagnose_point(&f, &p, &d, &occ, &err), 0);
    assert_non_null(strstr(err.msg, "kt_shape.kernel"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_point_is_diagnosed_as_a_hand_built_input_is),
        cmocka_unit_test(the_compute_ceiling_is_measured_else_theoretical),
        cmocka_unit_test(
            the_access_width_override_reaches_the_coalescing_ideal),
        cmocka_unit_test(
            a_point_without_kernel_facts_says_why_it_has_no_occupancy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
