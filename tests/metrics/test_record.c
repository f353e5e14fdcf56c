// SPDX-License-Identifier: Apache-2.0
/* JSON records of metrics: every figure by catalog and raw name with its
 * unit, NaN (not collected) as null, the kernel facts with the computed
 * occupancy and its limiter, the collection's cost and the diagnosis. */
#include "tests/kt_test.h"

#include <math.h>

#include "metrics/record.h"

static void metrics_carry_units_raw_names_and_nulls(void **state)
{
    const char *names[] = {"global_load_sectors_per_request",
                           "smsp__inst_executed.sum", "registers_per_thread"};
    kt_metric_set set;
    double raw[3] = {4194304, 1048576, NAN};
    json_t *list, *obj;
    kt_err err;
    (void)state;

    assert_int_equal(kt_metrics_resolve(names, 3, 0, &set, &err), KT_S_OK);
    assert_int_equal(set.num_raw, 3);
    list = kt_metrics_json(&set, raw);
    assert_non_null(list);
    assert_int_equal(json_array_size(list), 3);
    obj = json_array_get(list, 0);
    assert_string_equal(json_string_value(json_object_get(obj, "name")),
                        "global_load_sectors_per_request");
    assert_float_equal(json_real_value(json_object_get(obj, "value")), 4.0, 0);
    assert_string_equal(json_string_value(json_object_get(obj, "unit")),
                        "sectors/request");
    assert_int_equal(json_array_size(json_object_get(obj, "raw")), 2);
    assert_string_equal(json_string_value(json_object_get(obj, "kind")),
                        "catalog");
    obj = json_array_get(list, 1);
    assert_true(json_is_null(json_object_get(obj, "value")));
    assert_string_equal(json_string_value(json_object_get(obj, "kind")), "raw");
    obj = json_array_get(list, 2);
    assert_string_equal(json_string_value(json_object_get(obj, "kind")),
                        "static");
    json_decref(list);
    obj = kt_metrics_raw_json(&set, raw);
    assert_float_equal(
        json_real_value(json_object_get(
            obj, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")),
        1048576, 0);
    assert_true(json_is_null(json_object_get(obj, "smsp__inst_executed.sum")));
    json_decref(obj);
}

static void kernel_facts_and_cost(void **state)
{
    kt_kernel_info k;
    kt_occupancy occ;
    kt_counter_stats cost = {10, 0.2, 0.01, 0.005, 0.3};
    json_t *j, *o;
    (void)state;

    memset(&k, 0, sizeof k);
    memset(&occ, 0, sizeof occ);
    j = kt_kernel_info_json(&k, NULL);
    assert_false(json_is_true(json_object_get(j, "available")));
    json_decref(j);
    k.available = 1;
    k.num_regs = 128;
    k.block_threads = 256;
    k.api_blocks_per_sm = 2;
    occ.max_warps_per_sm = 64;
    occ.blocks_per_sm = 2;
    occ.warps_per_block = 8;
    occ.active_warps = 16;
    occ.theoretical = 25;
    occ.by_registers = 2;
    occ.limiters = KT_OCC_REGISTERS;
    j = kt_kernel_info_json(&k, &occ);
    assert_non_null(j);
    assert_int_equal(
        json_integer_value(json_object_get(j, "registers_per_thread")), 128);
    o = json_object_get(j, "occupancy");
    assert_float_equal(json_real_value(json_object_get(o, "theoretical_pct")),
                       25, 0);
    assert_string_equal(json_string_value(json_object_get(o, "limited_by")),
                        "registers");
    json_decref(j);
    j = kt_counter_stats_json(&cost);
    assert_int_equal(json_integer_value(json_object_get(j, "passes")), 10);
    assert_float_equal(json_real_value(json_object_get(j, "per_pass_s")), 0.001,
                       1e-12);
    json_decref(j);
}

static void diagnosis_record(void **state)
{
    kt_diagnosis d;
    json_t *j, *c;
    (void)state;

    memset(&d, 0, sizeof d);
    d.bound = KT_BOUND_MEMORY;
    d.unit = "L1/L2";
    d.dram_pct = 21.0;
    d.load.have = 1;
    d.load.requests = 1048576;
    d.load.sectors = 33554432;
    d.load.bytes = 134217728;
    d.load.bytes_per_request = 128;
    d.load.efficiency = 12.5;
    d.load.measured = 32;
    d.load.ideal = 4;
    d.load.excess = 8;
    d.load.uncoalesced = 1;
    d.cause_uncoalesced = 1;
    snprintf(d.why, sizeof d.why, "because");
    j = kt_diagnosis_json(&d);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "bound")),
                        "memory-bound");
    assert_true(json_is_null(json_object_get(j, "balance")));
    c = json_object_get(j, "coalescing");
    assert_true(json_is_true(json_object_get(c, "cause_uncoalesced")));
    assert_true(json_is_null(json_object_get(c, "stores")));
    assert_float_equal(
        json_real_value(json_object_get(json_object_get(c, "loads"), "excess")),
        8, 0);
    assert_float_equal(json_real_value(json_object_get(
                           json_object_get(c, "loads"), "efficiency_pct")),
                       12.5, 0);
    assert_true(json_is_null(json_object_get(c, "access_bytes")));
    assert_float_equal(json_real_value(json_object_get(j, "dram_pct")), 21.0,
                       0);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(metrics_carry_units_raw_names_and_nulls),
        cmocka_unit_test(kernel_facts_and_cost),
        cmocka_unit_test(diagnosis_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
