// SPDX-License-Identifier: Apache-2.0
/* The diagnosis: the sectors the bytes asked for need against the sectors
 * moved, the classification thresholds of the methodology, the roofline
 * side, and the coalescing verdict that names an uncoalesced mapping as
 * the cause — on counts recorded on the H200 (vector_add as Nsight Compute
 * counted it, gemv:ax warp_row and gemv:atx thread_col as ktune and Nsight
 * Compute counted them). */
#include "tests/kt_test.h"

#include <jansson.h>
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
    /* 32 lanes x 4 bytes per request, whatever the mapping. */
    c.m[KT_M_LD_BYTES] = 8.0 * N;
    c.m[KT_M_ST_BYTES] = 4.0 * N;
    c.m[KT_M_ACHIEVED_OCCUPANCY] = strided ? 82.0 : 74.5;
    return c;
}

/* gemv:ax warp_row, m = n = 16384, block 256, on the H200: a warp per row
 * reads its row of A and the whole vector x (re-read by every warp from
 * the caches), lane 0 stores y[row]. Counts as ktune and Nsight Compute
 * agree on them; throughputs as Nsight Compute measured the kernel. */
static counters gemv_warp_row(void)
{
    counters c = none();
    c.m[KT_M_LD_REQUESTS] = 16777216;
    c.m[KT_M_LD_SECTORS] = 67108864;
    c.m[KT_M_LD_BYTES] = 2.0 * 16384.0 * 16384.0 * 4.0; /* A and x */
    c.m[KT_M_ST_REQUESTS] = 16384;
    c.m[KT_M_ST_SECTORS] = 16384;
    c.m[KT_M_ST_BYTES] = 16384.0 * 4.0;
    c.m[KT_M_ACHIEVED_OCCUPANCY] = 91.0;
    c.m[KT_M_DRAM_THROUGHPUT] = 90.0;
    c.m[KT_M_MEMORY_THROUGHPUT] = 90.0;
    c.m[KT_M_SM_THROUGHPUT] = 26.5;
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

static void needed_sectors_follow_the_bytes_asked_for(void **state)
{
    (void)state;
    assert_float_equal(kt_needed_sectors_per_request(128), 4, 0);
    assert_float_equal(kt_needed_sectors_per_request(512), 16, 0);
    /* One lane's 4 bytes still need a whole sector. */
    assert_float_equal(kt_needed_sectors_per_request(4), 1, 0);
    assert_float_equal(kt_needed_sectors_per_request(0), 1, 0);
}

/* The issue's own case: the old inference divided the algorithm's bytes by
 * the requests and called this kernel uncoalesced for "2-byte accesses". */
static void gemv_warp_row_is_coalesced_and_dram_bound(void **state)
{
    counters c = gemv_warp_row();
    kt_diag_input in = input(&c, 240);
    kt_diagnosis d;
    (void)state;

    in.work.bytes_read = 4.0 * (16384.0 * 16384.0 + 16384.0);
    in.work.bytes_written = 4.0 * 16384.0;
    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_MEMORY);
    assert_string_equal(d.unit, "DRAM");
    assert_float_equal(d.dram_pct, 90.0, 0);
    assert_float_equal(d.load.bytes_per_request, 128, 0);
    assert_float_equal(d.load.ideal, 4, 0);
    assert_float_equal(d.load.excess, 1, 0);
    assert_float_equal(d.store.ideal, 1, 0);
    assert_false(d.load.uncoalesced || d.store.uncoalesced);
    assert_false(d.cause_uncoalesced);
    assert_contains(d.coalescing, "loads: 4.00 sectors/request, 128 B asked "
                                  "for per request need 4.00 (100% of each "
                                  "sector's bytes used): coalesced");
    assert_contains(d.coalescing, "stores: 1.00 sectors/request, 4 B asked "
                                  "for per request need 1.00 (12% of each "
                                  "sector's bytes used): coalesced");
    assert_contains(d.why, "DRAM throughput 90.0%");
}

/* gemv:atx thread_col: each thread a column; per step a coalesced row of A
 * (4 sectors) and x[i], the same address for the whole warp (1 sector for
 * 128 bytes asked for). 2.5 sectors per request is below the need. */
static void broadcast_loads_are_not_uncoalesced(void **state)
{
    counters c = none();
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_LD_REQUESTS] = 2.0 * 65536 * 128;
    c.m[KT_M_LD_SECTORS] = 2.5 * 2.0 * 65536 * 128;
    c.m[KT_M_LD_BYTES] = 128.0 * 2.0 * 65536 * 128;
    c.m[KT_M_ST_REQUESTS] = 128;
    c.m[KT_M_ST_SECTORS] = 512;
    c.m[KT_M_ST_BYTES] = 128.0 * 128;
    in = input(&c, 300);
    kt_diagnose(&in, &d);
    assert_float_equal(d.load.excess, 2.5 / 4, 1e-12);
    assert_float_equal(d.load.efficiency, 160, 1e-9);
    assert_false(d.load.uncoalesced || d.store.uncoalesced);
}

/* float4 loads: 512 bytes per request need 16 sectors. */
static void wide_loads_are_judged_by_their_width(void **state)
{
    counters c = vector_add(0);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_LD_REQUESTS] = 262144;
    c.m[KT_M_LD_SECTORS] = 4194304;
    c.m[KT_M_ST_REQUESTS] = 131072;
    c.m[KT_M_ST_SECTORS] = 2097152;
    in = input(&c, 66);
    kt_diagnose(&in, &d);
    assert_float_equal(d.load.ideal, 16, 0);
    assert_float_equal(d.store.ideal, 16, 0);
    assert_false(d.load.uncoalesced || d.store.uncoalesced);
}

/* Strided loads, coalesced stores: each direction its own verdict. */
static void loads_and_stores_are_judged_apart(void **state)
{
    counters c = vector_add(0);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_LD_SECTORS] = 8.0 * 1048576; /* stride 2: 2x */
    c.m[KT_M_DRAM_THROUGHPUT] = 85;
    c.m[KT_M_MEMORY_THROUGHPUT] = 85;
    c.m[KT_M_SM_THROUGHPUT] = 12;
    in = input(&c, 100);
    kt_diagnose(&in, &d);
    assert_true(d.load.uncoalesced);
    assert_false(d.store.uncoalesced);
    assert_float_equal(d.load.excess, 2, 0);
    assert_true(d.cause_uncoalesced);
    assert_contains(d.coalescing, "The loads are uncoalesced");
    assert_contains(d.coalescing, "2.0x the sectors the data needs");
}

static void without_bytes_asked_for_there_is_no_ideal(void **state)
{
    counters c = vector_add(1);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_LD_BYTES] = NAN;
    c.m[KT_M_ST_BYTES] = NAN;
    in = input(&c, 508);
    kt_diagnose(&in, &d);
    assert_float_equal(d.load.ideal, 0, 0);
    assert_false(d.cause_uncoalesced);
    assert_contains(d.coalescing, "bytes asked for not counted: no ideal");
}

static void a_kernel_without_stores_says_so(void **state)
{
    counters c = vector_add(0);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_ST_REQUESTS] = 0;
    c.m[KT_M_ST_SECTORS] = 0;
    c.m[KT_M_ST_BYTES] = 0;
    in = input(&c, 66);
    kt_diagnose(&in, &d);
    assert_contains(d.coalescing, "stores: none");
    assert_false(d.store.uncoalesced);
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
    assert_int_equal(d.access_bytes, 0);
    assert_float_equal(d.load.measured, 32.0, 0);
    assert_float_equal(d.load.ideal, 4.0, 0);
    assert_float_equal(d.load.excess, 8.0, 0);
    assert_true(d.load.uncoalesced && d.store.uncoalesced);
    assert_true(d.cause_uncoalesced);
    assert_contains(d.coalescing,
                    "loads: 32.00 sectors/request, 128 B asked for per "
                    "request need 4.00 (12% of each sector's bytes used): "
                    "8.0x the sectors the data needs, uncoalesced");
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
    assert_contains(d.coalescing, "loads: 4.00 sectors/request, 128 B asked "
                                  "for per request need 4.00");
    assert_contains(d.why, "DRAM throughput 92.0% >= 80% of peak, SM "
                           "throughput 14.0% < 50%");
    /* Effective bandwidth from the unprofiled time. */
    assert_float_equal(d.derived.bandwidth_gbs, 12.0 * N / 66e-6 / 1e9, 1e-6);
    assert_contains(d.roofline, "below it, the memory side");
}

/* One number per quantity: the class is decided on the dram_throughput
 * counter the table shows (per kernel, as Nsight Compute's), not on a
 * figure of its own. */
static void dram_utilisation_is_the_counter_itself(void **state)
{
    counters c = vector_add(0);
    kt_diag_input in;
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_DRAM_READ_BYTES] = 2.4e9;
    c.m[KT_M_DRAM_WRITE_BYTES] = 1.2e9;
    c.m[KT_M_DRAM_THROUGHPUT] = 67.0;
    c.m[KT_M_MEMORY_THROUGHPUT] = 67.4;
    c.m[KT_M_SM_THROUGHPUT] = 22.9;
    in = input(&c, 800);
    kt_diagnose(&in, &d);
    assert_float_equal(d.dram_pct, 67.0, 0);
    /* Not saturated, but DRAM carries 2.9x the SM's share. */
    assert_int_equal(d.bound, KT_BOUND_MEMORY);
    assert_string_equal(d.unit, "DRAM");
    assert_contains(d.why, "DRAM 67.0%");
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
        /* memory carrying 2.75x the SM's share, not busy, warps waiting
         * on it: latency on memory (the rule below) */
        {20.0, 55.0, 20.0, 30, 60, KT_BOUND_LATENCY},
        /* busy, unsaturated memory carrying 1.75x the SM's share (the
         * H200's stride-32 stream), and cases just outside that rule */
        {78.6, 78.6, 6.9, 88, NAN, KT_BOUND_MEMORY},
        {60.0, 60.0, 34.2, 90, NAN, KT_BOUND_MEMORY},
        {59.9, 59.9, 10.0, 90, NAN, KT_BOUND_NONE},
        {72.9, 72.9, 48.6, 93, NAN, KT_BOUND_NONE},
        /* latency on memory at any occupancy, as the H200 measured them:
         * copy one float per thread (DRAM 55.9%, SM 24.6%, 84.6% of warp
         * cycles on long scoreboard); just outside on each bound; matrix
         * add along columns (SM 76.3% > DRAM) and a warp-unrolled reduction
         * (SM 61.7%) are not */
        {55.9, 55.9, 24.6, 70.7, 84.6, KT_BOUND_LATENCY},
        {55.9, 55.9, 24.6, 70.7, 49.9, KT_BOUND_NONE},
        {55.9, 55.9, 32.0, 70.7, 84.6, KT_BOUND_NONE},
        {55.9, 55.9, 24.6, 70.7, NAN, KT_BOUND_NONE},
        {52.4, 52.4, 76.3, 77.7, 48.0, KT_BOUND_NONE},
        {47.0, 47.0, 61.7, 74.0, 51.0, KT_BOUND_NONE},
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

static void a_given_access_width_overrides_the_bytes(void **state)
{
    counters c = vector_add(0);
    kt_diag_input in = input(&c, 66);
    kt_diagnosis d;
    (void)state;

    in.access_bytes = 16;
    kt_diagnose(&in, &d);
    assert_int_equal(d.access_bytes, 16);
    assert_float_equal(d.load.ideal, 16, 0);
    assert_contains(d.coalescing, "(--access-bytes)");
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
    /* Arithmetic at the measured FMA ceiling: compute-bound. */
    in.work.flops = 0.9 * 60000e9 * 500e-6;
    in.peak_gflops = 60000;
    in.gflops_measured = 1;
    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_COMPUTE);
    assert_contains(d.why, "90.0% of the measured FMA ceiling");
    /* A theoretical peak is no evidence. */
    in.gflops_measured = 0;
    kt_diagnose(&in, &d);
    assert_int_equal(d.bound, KT_BOUND_UNKNOWN);
}

static void balance_point_comes_from_the_ceilings(void **state)
{
    kt_diag_input in = input(NULL, 66);
    kt_diagnosis d;
    kt_device dev;
    (void)state;

    kt_diagnose(&in, &d);
    assert_float_equal(d.balance, 66908.0 / 4185.0, 1e-9);
    assert_false(d.balance_measured);
    assert_contains(d.roofline, "theoretical FP32 peak, measured copy");
    in.gflops_measured = 1;
    kt_diagnose(&in, &d);
    assert_true(d.balance_measured);
    assert_contains(d.roofline, "measured FMA and copy ceilings");
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

/* The catalog values ktune profiled on the H200 for one point of
 * tests/data/h200-profiles.json, diagnosed as profile does. */
static void diagnose_recorded(size_t which, kt_diagnosis *d)
{
    json_error_t jerr;
    json_t *root = json_load_file(
        KT_SOURCE_DIR "/tests/data/h200-profiles.json", 0, &jerr);
    json_t *p, *metrics, *work;
    counters c = none();
    kt_diag_input in;
    size_t count;
    const kt_metric_def *cat = kt_metric_catalog(&count);

    if (!root)
        fail_msg("h200-profiles.json: %s", jerr.text);
    p = json_array_get(json_object_get(root, "profiles"), which);
    metrics = json_object_get(p, "metrics");
    work = json_object_get(p, "work");
    for (size_t i = 0; i < count; ++i) {
        json_t *v = json_object_get(metrics, cat[i].name);
        if (json_is_number(v))
            c.m[i] = json_number_value(v);
    }
    in = input(&c, json_number_value(json_object_get(p, "time_us")));
    in.work.bytes_read = json_number_value(json_object_get(work, "bytes_read"));
    in.work.bytes_written =
        json_number_value(json_object_get(work, "bytes_written"));
    in.work.flops = json_number_value(json_object_get(work, "flops"));
    in.copy_gbs = 4254;
    in.peak_bw_gbs = 4814;
    in.peak_gflops = 60478;
    in.gflops_measured = 1;
    kt_diagnose(&in, d);
    json_decref(root);
}

/* The Done-when line of the issue, on the H200's own counters. */
static void recorded_gemv_warp_row_is_coalesced_and_dram_bound(void **state)
{
    kt_diagnosis d;
    (void)state;

    diagnose_recorded(0, &d);
    assert_int_equal(d.bound, KT_BOUND_MEMORY);
    assert_string_equal(d.unit, "DRAM");
    assert_float_equal(d.dram_pct, 89.45810706078372, 0);
    assert_false(d.load.uncoalesced || d.store.uncoalesced);
    assert_float_equal(d.load.excess, 1.0, 0);
    assert_float_equal(d.store.excess, 1.0, 0);
    assert_true(d.balance_measured);
}

/* A 50 us stream at 2^24: coalesced, DRAM at 54.5% of peak over the
 * kernel, warps waiting on memory: latency-bound on memory (the ramp and
 * the tail of so short a kernel keep too little in flight), as Nsight
 * Compute reads memory and SM both below 60%. */
static void recorded_short_stream_is_coalesced_and_unsaturated(void **state)
{
    kt_diagnosis d;
    (void)state;

    diagnose_recorded(1, &d);
    assert_int_equal(d.bound, KT_BOUND_LATENCY);
    assert_contains(d.why, "memory throughput 54.5%");
    assert_contains(d.why, "too few bytes in flight");
    assert_false(d.load.uncoalesced || d.store.uncoalesced);
    assert_float_equal(d.load.ideal, 4, 0);
}

/* The profiled launch against the unprofiled median, as measured on the
 * H200 this session: reduce shuffle profiled at 293.60 us against a timed
 * median of 279.36 us (+5.1%, its percentages read ~3 points under Nsight
 * Compute's), gemv:ax warp_row at 188.80 against 188.74 us. */
static void a_slow_profiled_launch_is_said_to_read_low(void **state)
{
    counters c = gemv_warp_row();
    kt_diag_input in = input(&c, 279.36);
    kt_diagnosis d;
    (void)state;

    c.m[KT_M_DURATION] = 293600;
    kt_diagnose(&in, &d);
    assert_float_equal(d.profiled_us, 293.6, 1e-9);
    assert_float_equal(d.profiled_ratio, 293.6 / 279.36, 1e-12);
    assert_contains(d.profiled, "293.60 us, 5.1% longer than the unprofiled "
                                "median 279.36 us");
    assert_contains(d.profiled, "read about that much low");

    c.m[KT_M_DURATION] = 188800;
    in.time_us = 188.74;
    kt_diagnose(&in, &d);
    assert_contains(d.profiled, "within 2% of the unprofiled median");

    c.m[KT_M_DURATION] = 45000;
    in.time_us = 47.0;
    kt_diagnose(&in, &d);
    assert_contains(d.profiled, "4.3% shorter");
    assert_contains(d.profiled, "read about that much high");

    /* A 1.4 us kernel against a 3.0 us event interval: overhead, not a
     * slow launch. */
    c.m[KT_M_DURATION] = 1376;
    in.time_us = 2.98;
    kt_diagnose(&in, &d);
    assert_contains(d.profiled, "for a launch this short");
}

static void without_the_duration_counter_nothing_is_said(void **state)
{
    counters c = gemv_warp_row();
    kt_diag_input in = input(&c, 240);
    kt_diagnosis d;
    (void)state;

    kt_diagnose(&in, &d);
    assert_true(isnan(d.profiled_us) && isnan(d.profiled_ratio));
    assert_string_equal(d.profiled, "");
    in = input(NULL, 240);
    kt_diagnose(&in, &d);
    assert_string_equal(d.profiled, "");
}

/* The empty kernel on the H200: no global loads or stores, L2 hit rate
 * 95.3% in ktune and 33.9% in Nsight Compute (which invalidates the L2):
 * the rate is said to be of instruction and parameter fetches; a kernel
 * that moves data gets no such note. */
static void
a_hit_rate_without_global_data_is_said_to_be_of_fetches(void **state)
{
    counters c = gemv_warp_row();
    kt_diag_input in = input(&c, 240);
    kt_diagnosis d;
    (void)state;

    kt_diagnose(&in, &d);
    assert_string_equal(d.l2_hit_note, "");
    c.m[KT_M_LD_SECTORS] = 0;
    c.m[KT_M_ST_SECTORS] = 0;
    c.m[KT_M_L2_HIT_RATE] = 95.32;
    kt_diagnose(&in, &d);
    assert_contains(d.l2_hit_note, "l2_hit_rate 95.3% is of instruction and "
                                   "parameter fetches only");
    c.m[KT_M_L2_HIT_RATE] = NAN;
    kt_diagnose(&in, &d);
    assert_string_equal(d.l2_hit_note, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ideal_sectors_follow_the_access_width),
        cmocka_unit_test(
            a_hit_rate_without_global_data_is_said_to_be_of_fetches),
        cmocka_unit_test(needed_sectors_follow_the_bytes_asked_for),
        cmocka_unit_test(gemv_warp_row_is_coalesced_and_dram_bound),
        cmocka_unit_test(recorded_gemv_warp_row_is_coalesced_and_dram_bound),
        cmocka_unit_test(recorded_short_stream_is_coalesced_and_unsaturated),
        cmocka_unit_test(broadcast_loads_are_not_uncoalesced),
        cmocka_unit_test(wide_loads_are_judged_by_their_width),
        cmocka_unit_test(loads_and_stores_are_judged_apart),
        cmocka_unit_test(without_bytes_asked_for_there_is_no_ideal),
        cmocka_unit_test(a_kernel_without_stores_says_so),
        cmocka_unit_test(strided_mapping_is_named_as_the_cause),
        cmocka_unit_test(coalesced_dram_bound_kernel_is_memory_bound_and_clean),
        cmocka_unit_test(dram_utilisation_is_the_counter_itself),
        cmocka_unit_test(thresholds_are_the_methodology_rules_of_thumb),
        cmocka_unit_test(
            latency_uses_theoretical_occupancy_without_the_counter),
        cmocka_unit_test(uncoalesced_compute_bound_kernel_is_not_blamed),
        cmocka_unit_test(a_given_access_width_overrides_the_bytes),
        cmocka_unit_test(without_counters_only_bandwidth_speaks),
        cmocka_unit_test(balance_point_comes_from_the_ceilings),
        cmocka_unit_test(a_slow_profiled_launch_is_said_to_read_low),
        cmocka_unit_test(without_the_duration_counter_nothing_is_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
