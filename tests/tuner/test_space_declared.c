// SPDX-License-Identifier: Apache-2.0
/* A declared operator's space counted by pruning on its require (a T1
 * file's Conditions, tests/declared/t1/scale.ini) gives what checking
 * every point one by one gives: without a device (--check's count, the
 * Conditions alone, python3's 6280) and with one whose limits cut more. */
#include "tests/kt_test.h"

#include <stdlib.h>

#include "core/loader.h"
#include "records/space.h"
#include "tests/support/fake_device.h"

static kt_registry reg;
static const kt_loaded_plugin *lp;
static const kt_operator *op;

static int load(void **state)
{
    kt_err err;
    (void)state;
    setenv("KTUNE_CACHE_DIR", "/tmp/ktune-test-space-declared-cache", 1);
    setenv("KT_T1_TEST_DIR", KT_SOURCE_DIR "/tests/core/t1", 1);
    kt_registry_init(&reg);
    if (kt_registry_load_file(
            &reg, KT_SOURCE_DIR "/tests/declared/t1/scale.ini", &err) ||
        kt_registry_resolve(&reg, "t1scale", &lp, &op, &err))
        fail_msg("%s", err.msg);
    return 0;
}

static int unload(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static uint64_t one_by_one(const kt_space *space)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < space->size; ++i) {
        kt_point pt;
        kt_err err;
        kt_status rc;
        kt_space_point(space, i, &pt);
        rc = kt_space_feasible(space, &pt, &err);
        if (rc != KT_S_OK && rc != KT_S_INVALID)
            fail_msg("%s", err.msg);
        n += rc == KT_S_OK;
    }
    return n;
}

static void required_count_needs_no_device(void **state)
{
    kt_space space;
    int64_t sizes[KT_MAX_SIZES] = {65536};
    uint64_t per_slot[1] = {0}, n = 0;
    int estimated = -1;
    kt_err err;
    (void)state;
    assert_int_equal(kt_space_init(&space, lp, op, &err), KT_S_OK);
    assert_int_equal(space.size, 19800);
    assert_int_equal(
        kt_space_count_required(&space, sizes, per_slot, &n, &estimated, &err),
        KT_S_OK);
    assert_int_equal(estimated, 0);
    assert_int_equal(n, 6280); /* python3 over the file's Conditions */
    assert_int_equal(per_slot[0], 6280);
    kt_space_free(&space);
}

static void pruned_count_equals_checking_each_point(void **state)
{
    kt_space space;
    int64_t sizes[KT_MAX_SIZES] = {65536};
    kt_device dev = kt_test_h200();
    uint64_t n = 0;
    kt_err err;
    (void)state;
    assert_int_equal(kt_space_init(&space, lp, op, &err), KT_S_OK);
    kt_space_bind(&space, sizes, 1, &dev);
    assert_int_equal(kt_space_count_feasible(&space, 1u << 20, &n, &err), 0);
    assert_int_equal(n, one_by_one(&space));
    assert_int_equal(n, 6280); /* the Conditions keep blocks <= 512 */
    /* A device of 128 threads per block cuts more. */
    dev.max_threads_per_block = 128;
    kt_space_bind(&space, sizes, 1, &dev);
    assert_int_equal(kt_space_count_feasible(&space, 1u << 20, &n, &err), 0);
    assert_int_equal(n, one_by_one(&space));
    assert_true(n < 6280 && n > 0);
    /* The limit applies to the points require allows. */
    assert_int_equal(kt_space_count_feasible(&space, 100, &n, &err),
                     KT_S_UNSUPPORTED);
    kt_space_free(&space);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(required_count_needs_no_device),
        cmocka_unit_test(pruned_count_equals_checking_each_point),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
