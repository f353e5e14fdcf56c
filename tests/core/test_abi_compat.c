// SPDX-License-Identifier: Apache-2.0
/* ABI compatibility across the plugin header split: a plugin compiled from
 * the header as it was before (tests/fixtures/abi_1_2, helpers and ABI in
 * one file) loads in this host, its descriptors read as they were written,
 * and its CPU path (check, shape, setup, launch, verify, teardown) runs. */
#include "tests/kt_test.h"

#include <ktune/plugin_util.h>
#include <stdlib.h>
#include <string.h>

#include "core/loader.h"
#include "tests/support/fake_device.h"

#ifndef KT_OLD_HEADER_PLUGIN
#error "KT_OLD_HEADER_PLUGIN: the path of old_header_plugin.so"
#endif

/* The fixture loaded into reg, and its one operator. */
static const kt_operator *load_old_header_plugin(kt_registry *reg,
                                                 const kt_loaded_plugin **lp)
{
    kt_err err;
    const kt_operator *op = NULL;

    kt_registry_init(reg);
    assert_int_equal(kt_registry_load_file(reg, KT_OLD_HEADER_PLUGIN, &err),
                     KT_S_OK);
    assert_int_equal(kt_registry_resolve(reg, "old_header:op", lp, &op, &err),
                     KT_S_OK);
    return op;
}

static void old_header_plugin_loads_and_reads_as_written(void **state)
{
    kt_registry reg;
    const kt_operator *op;
    const kt_loaded_plugin *lp;
    (void)state;

    op = load_old_header_plugin(&reg, &lp);
    assert_int_equal(lp->desc.abi_major, 1);
    assert_int_equal(lp->desc.abi_minor, 2);
    assert_string_equal(lp->desc.version, "1.0");
    assert_int_equal(op->num_sizes, 1);
    assert_string_equal(op->sizes[0].name, "n");
    assert_int_equal(op->num_variants, 1);
    assert_string_equal(op->variants[0].id, "grid");
    assert_int_equal(op->variants[0].num_params, 2);
    assert_string_equal(op->variants[0].params[1].name, "blocks_per_sm");
    assert_int_equal(op->variants[0].params[1].count, 3);
    /* The old initialiser fills launch, never launch_shaped. */
    assert_non_null(op->variants[0].launch);
    assert_null(op->variants[0].launch_shaped);
    kt_registry_free(&reg);
}

static void old_header_plugin_runs_its_cpu_path(void **state)
{
    kt_registry reg;
    kt_err err;
    const kt_operator *op;
    const kt_loaded_plugin *lp;
    kt_device dev = kt_test_h200();
    const int64_t n = 4096;
    kt_problem prob = {.struct_size = sizeof prob,
                       .num_sizes = 1,
                       .sizes = &n,
                       .device = &dev};
    const int64_t values[2] = {128, 2};
    const char *const names[2] = {"block", "blocks_per_sm"};
    kt_config cfg = {.struct_size = sizeof cfg,
                     .count = 2,
                     .values = values,
                     .names = names};
    kt_shape shape;
    int check_rc = -1, shape_rc = -1;
    char why[256] = "";
    void *st = NULL;
    (void)state;

    op = load_old_header_plugin(&reg, &lp);
    memset(&shape, 0, sizeof shape);
    shape.struct_size = sizeof shape;
    assert_int_equal(kt_call_shape(lp, op, 0, &prob, &cfg, &check_rc, why,
                                   sizeof why, &shape_rc, &shape, &err),
                     KT_S_OK);
    assert_int_equal(check_rc, KT_OK);
    assert_int_equal(shape_rc, KT_OK);
    assert_int_equal(shape.grid[0], 2 * 132);
    assert_int_equal(shape.block[0], 128);
    /* The whole lifecycle the host drives, without a device. */
    assert_int_equal(op->setup(NULL, &prob, &st), KT_OK);
    assert_int_equal(op->variants[0].launch(st, &cfg, NULL), KT_OK);
    /* kt_sizes_state has the same layout in both headers. */
    assert_int_equal(((const kt_sizes_state *)st)->sizes[0], n);
    assert_int_equal(((const kt_sizes_state *)st)->sizes[1], 128);
    assert_int_equal(op->verify(st, &cfg, &op->variants[0]), KT_OK);
    op->teardown(st);
    kt_registry_free(&reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(old_header_plugin_loads_and_reads_as_written),
        cmocka_unit_test(old_header_plugin_runs_its_cpu_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
