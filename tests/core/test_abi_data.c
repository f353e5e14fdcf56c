// SPDX-License-Identifier: Apache-2.0
/* ABI 1.3 (kt_operator.data, kt_variant.data): a plugin whose callbacks
 * know nothing but their data answers through the host's calls with the
 * context its descriptors carry (the operator's in every kt_problem the
 * host makes, the variant's in every kt_config), and a 1.2 plugin, whose
 * descriptors end before the field, still loads with no data. */
#include "tests/kt_test.h"

#include <string.h>

#include "core/loader.h"
#include "core/point.h"
#include "tests/support/fake_device.h"

#if !defined(KT_DATA_PLUGIN) || !defined(KT_OLD_HEADER_PLUGIN)
#error "KT_DATA_PLUGIN, KT_OLD_HEADER_PLUGIN: the fixtures' paths"
#endif

/* What the fixture's setup() makes: its first field is the operator's
 * mark, its second the grid the last launch read from its variant. */
typedef struct fixture_state {
    int64_t mark;
    uint32_t launched_grid;
} fixture_state;

static const kt_operator *load(kt_registry *reg, const char *path,
                               const char *spec, const kt_loaded_plugin **lp)
{
    kt_err err;
    const kt_operator *op = NULL;

    kt_registry_init(reg);
    reg->probe_timeout_ms = 0; /* map here: the callbacks are asked here */
    if (kt_registry_load_file(reg, path, &err) ||
        kt_registry_resolve(reg, spec, lp, &op, &err))
        fail_msg("%s", err.msg);
    return op;
}

/* The host's problem carries no data of its own: kt_call_* set it. */
static void callbacks_of_a_1_3_plugin_see_their_data(void **state)
{
    kt_registry reg;
    const kt_loaded_plugin *lp;
    const kt_operator *op = load(&reg, KT_DATA_PLUGIN, "data_plugin:op", &lp);
    kt_device dev = kt_test_h200();
    const int64_t n = 1000;
    kt_problem prob = {sizeof prob, 1, &n, 1, &dev, NULL};
    kt_point pt = {.variant = 0, .count = 1, .values = {256}};
    kt_bound_config bc;
    kt_work work;
    kt_shape shape;
    char why[128];
    int rc, check_rc, shape_rc;
    void *st = NULL;
    kt_err err;
    (void)state;

    assert_int_equal(lp->desc.abi_minor, 3);
    assert_non_null(op->data);
    assert_non_null(op->variants[1].data);
    assert_int_equal(kt_call_work(lp, op, &prob, &work, &rc, &err), KT_S_OK);
    assert_int_equal(rc, KT_OK);
    assert_true(work.bytes_read == 4000.0);
    /* Each variant answers from its own data: narrow allows 128 threads,
     * wide 1024; their grids are 2 and 8. */
    assert_int_equal(kt_call_shape(lp, op, 0, &prob,
                                   kt_point_bind(op, &pt, &bc), &check_rc, why,
                                   sizeof why, &shape_rc, &shape, &err),
                     KT_S_OK);
    assert_int_equal(check_rc, KT_INVALID);
    pt.variant = 1;
    assert_int_equal(kt_call_shape(lp, op, 1, &prob,
                                   kt_point_bind(op, &pt, &bc), &check_rc, why,
                                   sizeof why, &shape_rc, &shape, &err),
                     KT_S_OK);
    assert_int_equal(check_rc, KT_OK);
    assert_int_equal(shape_rc, KT_OK);
    assert_int_equal(shape.grid[0], 8);
    /* setup() reads the operator's data, launch() the variant's, from the
     * configuration kt_point_bind makes. */
    assert_int_equal(kt_call_setup(lp, op, NULL, &prob, &st), KT_OK);
    assert_int_equal(((fixture_state *)st)->mark, 77);
    assert_int_equal(op->variants[1].launch_shaped(
                         st, kt_point_bind(op, &pt, &bc), &shape, NULL),
                     KT_OK);
    assert_int_equal(((fixture_state *)st)->launched_grid, 8);
    assert_int_equal(
        op->verify(st, kt_point_bind(op, &pt, &bc), &op->variants[1]), KT_OK);
    op->teardown(st);
    kt_registry_free(&reg);
}

static void a_1_2_plugin_loads_with_no_data(void **state)
{
    kt_registry reg;
    const kt_loaded_plugin *lp;
    const kt_operator *op =
        load(&reg, KT_OLD_HEADER_PLUGIN, "old_header:op", &lp);
    (void)state;

    assert_int_equal(lp->desc.abi_minor, 2);
    assert_null(op->data);
    assert_null(op->variants[0].data);
    kt_registry_free(&reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(callbacks_of_a_1_3_plugin_see_their_data),
        cmocka_unit_test(a_1_2_plugin_loads_with_no_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
