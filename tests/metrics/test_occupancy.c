// SPDX-License-Identifier: Apache-2.0
/* Theoretical occupancy and its limiter from the device's facts and the
 * kernel's attributes, without a GPU: the H100/H200 SM (2048 threads, 32
 * blocks, 64K registers in 4 sub-partitions, 228 KiB shared memory, 1 KiB
 * reserved per block). */
#include "tests/kt_test.h"

#include "metrics/occupancy.h"
#include "tests/support/fake_device.h"

static kt_occupancy occ(int threads, int regs, int64_t smem)
{
    kt_device d = kt_test_h200();
    kt_occupancy o;
    kt_err err;
    if (kt_occupancy_compute(&d, threads, regs, smem, 1024, &o, &err))
        fail_msg("%s", err.msg);
    return o;
}

/* The methodology's example: 128 registers per thread on a 64K-register
 * SM leave room for 512 threads: 25%. */
static void registers_128_per_thread_give_25_percent(void **state)
{
    kt_occupancy o = occ(256, 128, 0);
    char text[64];
    (void)state;

    assert_int_equal(o.regs_per_warp, 4096);
    assert_int_equal(o.by_registers, 2);
    assert_int_equal(o.blocks_per_sm, 2);
    assert_int_equal(o.active_warps * 32, 512);
    assert_float_equal(o.theoretical, 25.0, 0);
    assert_int_equal(o.limiters, KT_OCC_REGISTERS);
    kt_occ_format_limiters(o.limiters, text, sizeof text);
    assert_string_equal(text, "registers");
}

static void a_light_kernel_is_limited_by_warp_slots(void **state)
{
    kt_occupancy o = occ(256, 16, 0);
    (void)state;

    assert_int_equal(o.by_warps, 8);
    assert_int_equal(o.by_registers, 16);
    assert_int_equal(o.by_shared, 228); /* 1 KiB reserved per block */
    assert_int_equal(o.by_blocks, 32);
    assert_float_equal(o.theoretical, 100.0, 0);
    assert_int_equal(o.limiters, KT_OCC_WARPS);
}

static void ties_name_every_binding_limit(void **state)
{
    kt_occupancy o = occ(1024, 32, 0);
    char text[64];
    (void)state;

    assert_int_equal(o.by_warps, 2);
    assert_int_equal(o.by_registers, 2);
    assert_int_equal(o.limiters, KT_OCC_WARPS | KT_OCC_REGISTERS);
    kt_occ_format_limiters(o.limiters, text, sizeof text);
    assert_string_equal(text, "registers and warps");
}

static void small_blocks_hit_the_block_limit(void **state)
{
    kt_occupancy o = occ(32, 16, 0);
    (void)state;

    assert_int_equal(o.by_warps, 64);
    assert_int_equal(o.blocks_per_sm, 32);
    assert_float_equal(o.theoretical, 50.0, 0);
    assert_int_equal(o.limiters, KT_OCC_BLOCKS);
}

static void shared_memory_counts_the_reservation(void **state)
{
    /* 48 KiB + 1 KiB reserved per block: 4 blocks of 128 threads fit in
     * 228 KiB, 16 of 64 warps. */
    kt_occupancy o = occ(128, 16, 49152);
    (void)state;

    assert_int_equal(o.smem_per_block, 50176);
    assert_int_equal(o.by_shared, 4);
    assert_float_equal(o.theoretical, 25.0, 0);
    assert_int_equal(o.limiters, KT_OCC_SHARED);
    /* Allocation granularity: 1 byte still takes 128, plus the reserve. */
    assert_int_equal(occ(128, 16, 1).smem_per_block, 1152);
}

static void registers_are_allocated_in_units_of_256_per_warp(void **state)
{
    /* 33 registers: 1056 per warp -> 1280; 16384 / 1280 = 12 warps per
     * sub-partition, 48 per SM, 6 blocks of 8 warps: 75%. */
    kt_occupancy o = occ(256, 33, 0);
    (void)state;

    assert_int_equal(o.regs_per_warp, 1280);
    assert_int_equal(o.by_registers, 6);
    assert_float_equal(o.theoretical, 75.0, 0);
}

static void blocks_that_cannot_run_are_invalid(void **state)
{
    kt_device d = kt_test_h200();
    kt_occupancy o;
    kt_err err;
    (void)state;

    assert_int_equal(kt_occupancy_compute(&d, 1024, 255, 0, 1024, &o, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "registers per block");
    assert_int_equal(kt_occupancy_compute(&d, 2048, 16, 0, 1024, &o, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "2048 threads per block");
    assert_int_equal(kt_occupancy_compute(&d, 128, 16, 240000, 1024, &o, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "shared memory");
    d.cc_major = 6;
    assert_int_equal(kt_occupancy_compute(&d, 128, 16, 0, 0, &o, &err),
                     KT_S_UNSUPPORTED);
}

static void kernel_facts_feed_the_same_arithmetic(void **state)
{
    kt_device d = kt_test_h200();
    kt_kernel_info k;
    kt_occupancy o;
    kt_err err;
    (void)state;

    memset(&k, 0, sizeof k);
    assert_int_equal(kt_occupancy_of_kernel(&d, &k, &o, &err),
                     KT_S_UNSUPPORTED);
    k.available = 1;
    k.block_threads = 256;
    k.num_regs = 128;
    k.reserved_smem_per_block = 1024;
    assert_int_equal(kt_occupancy_of_kernel(&d, &k, &o, &err), KT_S_OK);
    assert_float_equal(o.theoretical, 25.0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registers_128_per_thread_give_25_percent),
        cmocka_unit_test(a_light_kernel_is_limited_by_warp_slots),
        cmocka_unit_test(ties_name_every_binding_limit),
        cmocka_unit_test(small_blocks_hit_the_block_limit),
        cmocka_unit_test(shared_memory_counts_the_reservation),
        cmocka_unit_test(registers_are_allocated_in_units_of_256_per_warp),
        cmocka_unit_test(blocks_that_cannot_run_are_invalid),
        cmocka_unit_test(kernel_facts_feed_the_same_arithmetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
