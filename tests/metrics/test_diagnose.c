/* The diagnosis: ideal sectors per request for an access width, the
 * classification thresholds of the methodology, the roofline side, and the
 * coalescing verdict that names an uncoalesced mapping as the cause —
 * with the vector_add counts Nsight Compute measured on the H200. */
#include "tests/kt_test.h"

#include <math.h>

#include "metrics/diagnose.h"
#include "tests/support/fake_device.h"

#define N (1 << 24)

typedef struct counters {
    double m[KT_M_COUNT];
} counters;

static counters none(void)
{
    counters c;
    for (size_t i = 0; i < KT_M_COUNT; ++i)
        c.m[i] = NAN;
    return c;
}

/* vector_add at n = 2^24, block 256 (cupti.md's reference counts). */
static counters vector_add(int strided)
{
    counters c = none();
    c.m[KT_M_LD_REQUESTS] = 1048576;
    c.m[KT_M_LD_SECTORS] = strided ? 33554432 : 4194304;
    c.m[KT_M_ST_REQUESTS] = 524288;
    c.m[KT_M_ST_SECTORS] = strided ? 16777216 : 2097152;
    c.m[KT_M_ACHIEVED_OCCUPANCY] = strided ? 82.0 : 74.5;
    return c;
}

static kt_diag_input input(const counters *c, double time_us)
{
    kt_diag_input in;
    memset(&in, 0, sizeof in);
    in.work.struct_size = sizeof in.work;
    in.work.bytes_read = 8.0 * N;
    in.work.bytes_written = 4.0 * N;
    in.work.flops = N;
    in.time_us = time_us;
    in.copy_gbs = 4185;
    in.peak_bw_gbs = 4814;
    in.peak_gflops = 66908;
    in.m = c ? c->m : NULL;
    in.theoretical_occupancy = 100;
    in.warp_size = 32;
    return in;
}

static void ideal_sectors_follow_the_access_width(void **state)
{
    (void)state;
    assert_float_equal(kt_ideal_sectors_per_request(4, 32), 4, 0);
    assert_float_equal(kt_ideal_sectors_per_request(8, 32), 8, 0);
    assert_float_equal(kt_ideal_sectors_per_request(16, 32), 16, 0);
    assert_float_equal(kt_ideal_sectors_per_request(2, 32), 2, 0);
    assert_float_equal(kt_ideal_sectors_per_request(1, 32), 1, 0);
    assert_float_equal(kt_ideal_sectors_per_request(1, 16), 1, 0);
}

static void access_width_is_inferred_from_bytes_per_request(void **state)
{
    (void)state;
    /* Two 4-byte loads per thread: n/16 requests for 8n bytes. */
    assert_int_equal(kt_infer_access_bytes(8.0 * N, N / 16.0, 32), 4);
    /* float4: n/64 requests (n/4 threads, two loads) for 8n bytes. */
    assert_int_equal(kt_infer_access_bytes(8.0 * N, N / 64.0, 32), 16);
    /* Each byte loaded three times: 1.33 B per thread is no width. */
    assert_int_equal(kt_infer_access_bytes(4.0 * N, N / 8.0 * 3, 32), 0);
    assert_int_equal(kt_infer_access_bytes(0, 10, 32), 0);
    assert_int_equal(kt_infer_access_bytes(10, 0, 32), 0);
}

static void strided_mapping_is_named_as_the_cause(void **state)
{
    counters c = vector_add(1);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_MEMORY_THROUGHPUT] = 91.0; /* L1/L2 carry 8x the sectors */
    c.m[KT_M_DRAM_THROUGHPUT] = 21.0;
    c.m[KT_M_SM_THROUGHPUT] = 9.0;
    in = input(&c, 508);
    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_MEMORY);
    assert_string_equal(d.unit, "L1/L2");
    assert_int_equal(d.access_bytes, 4);
    assert_true(d.access_inferred);
    assert_float_equal(d.load.measured, 32.0, 0);
    assert_float_equal(d.load.ideal, 4.0, 0);
    assert_float_equal(d.load.excess, 8.0, 0);
    assert_true(d.load.uncoalesced && d.store.uncoalesced);
    assert_true(d.cause_uncoalesced);
    assert_contains(d.coalescing, "loads: 32.00 sectors/request, ideal 4 for "
                                  "4-byte accesses (8.0x): uncoalesced");
    assert_contains(d.coalescing, "This is the cause");
    assert_contains(d.why, "memory throughput 91.0%");
}

static void coalesced_dram_bound_kernel_is_memory_bound_and_clean(void **state)
{
    counters c = vector_add(0);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_MEMORY_THROUGHPUT] = 92.0;
    c.m[KT_M_DRAM_THROUGHPUT] = 92.0;
    c.m[KT_M_SM_THROUGHPUT] = 14.0;
    in = input(&c, 66);
    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_MEMORY);
    assert_string_equal(d.unit, "DRAM");
    assert_float_equal(d.load.measured, 4.0, 0);
    assert_false(d.load.uncoalesced);
    assert_false(d.cause_uncoalesced);
    assert_contains(d.coalescing, "loads: 4.00 sectors/request, ideal 4 for "
                                  "4-byte accesses: coalesced");
    assert_contains(d.why, "DRAM throughput 92.0% >= 80% of peak, SM "
                           "throughput 14.0% < 50%");
    /* Effective bandwidth from the unprofiled time. */
    assert_float_equal(d.derived.bandwidth_gbs, 12.0 * N / 66e-6 / 1e9, 1e-6);
    assert_contains(d.roofline, "below it, the memory side");
}

static void
dram_utilisation_comes_from_counted_bytes_over_kernel_time(void **state)
{
    /* The range-based counter reads 28.7% (the profiled range holds launch
     * and synchronisation time); 3.6 GB moved in 0.8 ms is 93.5% of a
     * 4814 GB/s peak, and that decides. */
    counters c = vector_add(0);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_DRAM_READ_BYTES] = 2.4e9;
    c.m[KT_M_DRAM_WRITE_BYTES] = 1.2e9;
    c.m[KT_M_DRAM_THROUGHPUT] = 28.7;
    c.m[KT_M_MEMORY_THROUGHPUT] = 28.7;
    c.m[KT_M_SM_THROUGHPUT] = 15.8;
    in = input(&c, 800);
    kt_diagnose(&in, &d);
    assert_float_equal(d.dram_pct, 100.0 * 3.6e9 / 800e-6 / 4814e9, 1e-9);
    assert_int_equal(d.bound, KT_BOUND_MEMORY);
    assert_contains(d.why, "DRAM throughput 93.5% >= 80% of peak");
    /* Without the byte counts, the counter is all there is. */
    c.m[KT_M_DRAM_READ_BYTES] = NAN;
    in = input(&c, 800);
    kt_diagnose(&in, &d);
    assert_float_equal(d.dram_pct, 28.7, 0);
    assert_int_not_equal(d.bound, KT_BOUND_MEMORY);
}

static void thresholds_are_the_methodology_rules_of_thumb(void **state)
{
    const struct {
        double dram, mem, sm, occ, stall;
        kt_bound want;
    } cases[] = {
        {80.0, 80.0, 49.9, 90, NAN, KT_BOUND_MEMORY},
        {79.9, 79.9, 49.9, 90, NAN, KT_BOUND_NONE},
        {80.0, 80.0, 50.0, 90, NAN, KT_BOUND_NONE},
        {49.9, 49.9, 80.0, 90, NAN, KT_BOUND_COMPUTE},
        {50.0, 50.0, 80.0, 90, NAN, KT_BOUND_NONE},
        {85.0, 85.0, 85.0, 90, NAN, KT_BOUND_BOTH},
        {20.0, 25.0, 20.0, 30, 60, KT_BOUND_LATENCY},
        {20.0, 25.0, 20.0, 30, NAN, KT_BOUND_LATENCY},
        {20.0, 25.0, 20.0, 30, 20, KT_BOUND_NONE},
        {20.0, 25.0, 20.0, 50, 60, KT_BOUND_NONE},
        {20.0, 55.0, 20.0, 30, 60, KT_BOUND_NONE},
    };
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        counters c = none();
        kt_diag_input in;
        kt_diagnosis d;
        c.m[KT_M_DRAM_THROUGHPUT] = cases[i].dram;
        c.m[KT_M_MEMORY_THROUGHPUT] = cases[i].mem;
        c.m[KT_M_SM_THROUGHPUT] = cases[i].sm;
        c.m[KT_M_ACHIEVED_OCCUPANCY] = cases[i].occ;
        c.m[KT_M_LONG_SCOREBOARD] = cases[i].stall;
        in = input(&c, 100);
        kt_diagnose(&in, &d);
        if (d.bound != cases[i].want)
            fail_msg("case %zu: %s, expected %s (%s)", i,
                     kt_bound_name(d.bound), kt_bound_name(cases[i].want),
                     d.why);
        assert_true(d.why[0] != '\0');
    }
}

static void latency_uses_theoretical_occupancy_without_the_counter(void **state)
{
    counters c = none();
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_DRAM_THROUGHPUT] = 10;
    c.m[KT_M_SM_THROUGHPUT] = 10;
    in = input(&c, 100);
    in.theoretical_occupancy = 25;
    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_LATENCY);
    assert_contains(d.why, "theoretical occupancy 25.0% < 50%");
    assert_contains(d.why, "stall reasons not collected");
}

static void uncoalesced_compute_bound_kernel_is_not_blamed(void **state)
{
    counters c = vector_add(1);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_DRAM_THROUGHPUT] = 20;
    c.m[KT_M_MEMORY_THROUGHPUT] = 30;
    c.m[KT_M_SM_THROUGHPUT] = 90;
    in = input(&c, 100);
    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_COMPUTE);
    assert_true(d.load.uncoalesced);
    assert_false(d.cause_uncoalesced);
    assert_contains(d.coalescing, "not the limit now");
}

static void a_given_access_width_overrides_the_inference(void **state)
{
    counters c = vector_add(0);
    kt_diag_input in = input(&c, 66);
    kt_diagnosis d;
    (void)state;

    in.access_bytes = 16;
    kt_diagnose(&in, &d);
    assert_int_equal(d.access_bytes, 16);
    assert_false(d.access_inferred);
    assert_float_equal(d.load.ideal, 16, 0);
    assert_false(d.load.uncoalesced);
}

static void without_counters_only_bandwidth_speaks(void **state)
{
    kt_diag_input in = input(NULL, 48.0); /* 4194 GB/s: the copy ceiling */
    kt_diagnosis d;
    (void)state;

    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_MEMORY);
    assert_contains(d.why, "without counters: effective bandwidth");
    assert_contains(d.coalescing, "no request/sector counters");
    in = input(NULL, 500.0);
    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_UNKNOWN);
    assert_contains(d.why, "profiling off or unavailable");
}

static void balance_point_comes_from_the_ceilings(void **state)
{
    kt_diag_input in = input(NULL, 66);
    kt_diagnosis d;
    kt_device dev;
    (void)state;

    kt_diagnose(&in, &d);
    assert_float_equal(d.balance, 66908.0 / 4185.0, 1e-9);
    assert_float_equal(d.derived.intensity, 1.0 / 12.0, 1e-12);
    in.work.flops = 1000.0 * in.work.bytes_read;
    kt_diagnose(&in, &d);
    assert_contains(d.roofline, "above it, the compute side");
    in.peak_gflops = 0;
    kt_diagnose(&in, &d);
    assert_contains(d.roofline, "balance point unknown");

    dev = kt_test_h200();
    assert_float_equal(kt_peak_gflops_fp32(&dev, 1980), 2.0 * 128 * 132 * 1.98,
                       1e-6);
    assert_int_equal(kt_fp32_lanes_per_sm(8, 0), 64);
    assert_int_equal(kt_fp32_lanes_per_sm(8, 6), 128);
    assert_int_equal(kt_fp32_lanes_per_sm(5, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ideal_sectors_follow_the_access_width),
        cmocka_unit_test(access_width_is_inferred_from_bytes_per_request),
        cmocka_unit_test(strided_mapping_is_named_as_the_cause),
        cmocka_unit_test(coalesced_dram_bound_kernel_is_memory_bound_and_clean),
        cmocka_unit_test(
            dram_utilisation_comes_from_counted_bytes_over_kernel_time),
        cmocka_unit_test(thresholds_are_the_methodology_rules_of_thumb),
        cmocka_unit_test(
            latency_uses_theoretical_occupancy_without_the_counter),
        cmocka_unit_test(uncoalesced_compute_bound_kernel_is_not_blamed),
        cmocka_unit_test(a_given_access_width_overrides_the_inference),
        cmocka_unit_test(without_counters_only_bandwidth_speaks),
        cmocka_unit_test(balance_point_comes_from_the_ceilings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
