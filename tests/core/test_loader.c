// SPDX-License-Identifier: Apache-2.0
/* The loader accepts a valid plugin and rejects each ABI violation with one
 * line naming the file and what was expected versus found, without letting
 * a bad plugin stop the others. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/loader.h"
#include "core/point.h"

static char path_buf[4096];

static const char *fixture(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s", KT_TEST_PLUGIN_DIR, name);
    return path_buf;
}

static void good_plugin_loads_and_is_normalised(void **state)
{
    kt_registry reg;
    kt_err err;
    const kt_operator *op;
    const kt_loaded_plugin *lp;
    (void)state;

    kt_registry_init(&reg);
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("good_plugin.so"), &err), KT_S_OK);
    assert_int_equal(reg.count, 1);
    assert_int_equal(kt_registry_resolve(&reg, "good:scale", &lp, &op, &err),
                     KT_S_OK);
    assert_string_equal(lp->desc.name, "good");
    assert_int_equal(op->num_variants, 2);
    assert_int_equal(op->variants[0].struct_size, sizeof(kt_variant));
    assert_string_equal(op->variants[0].params[3].labels[1], "cols");
    assert_int_equal(lp->desc.abi_major, KT_ABI_MAJOR);
    /* "plugin" alone resolves when it has exactly one operator. */
    assert_int_equal(kt_registry_resolve(&reg, "good", &lp, &op, &err),
                     KT_S_OK);
    kt_registry_free(&reg);
}

static void newer_minor_version_loads_at_its_stride(void **state)
{
    kt_registry reg;
    kt_err err;
    const kt_operator *op;
    const kt_loaded_plugin *lp;
    (void)state;

    kt_registry_init(&reg);
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("future_plugin.so"), &err),
        KT_S_OK);
    assert_int_equal(kt_registry_resolve(&reg, "future:op", &lp, &op, &err),
                     KT_S_OK);
    /* Read at the plugin's stride, stored at the host's. */
    assert_string_equal(op->variants[1].id, "second");
    assert_int_equal(op->variants[0].num_params, 2);
    assert_string_equal(op->variants[0].params[1].name, "depth");
    assert_int_equal(op->variants[0].params[1].max, 3);
    assert_int_equal(op->variants[1].struct_size, sizeof(kt_variant));
    kt_registry_free(&reg);
}

/* A plugin of ABI 1.1 (variants of 80 bytes, before kt_variant.work)
 * loads; its variants have no per-configuration work. */
static void an_abi_1_1_plugin_loads_without_per_point_work(void **state)
{
    kt_registry reg;
    kt_err err;
    const kt_operator *op;
    const kt_loaded_plugin *lp;
    (void)state;

    kt_registry_init(&reg);
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("abi11_plugin.so"), &err), KT_S_OK);
    assert_int_equal(kt_registry_resolve(&reg, "abi11:op", &lp, &op, &err),
                     KT_S_OK);
    assert_string_equal(op->variants[1].id, "second");
    assert_int_equal(op->variants[1].struct_size, sizeof(kt_variant));
    assert_null(op->variants[0].work);
    assert_null(op->variants[1].work);
    kt_registry_free(&reg);
}

static void expect_rejected(const char *file, const char *needle)
{
    kt_registry reg;
    kt_err err;

    kt_registry_init(&reg);
    kt_err_clear(&err);
    assert_int_not_equal(kt_registry_load_file(&reg, fixture(file), &err),
                         KT_S_OK);
    assert_int_equal(reg.count, 0);
    assert_contains(err.msg, file);
    assert_contains(err.msg, needle);
    assert_null(strchr(err.msg, '\n'));
    kt_registry_free(&reg);
}

static void missing_entry_symbol_is_not_a_plugin(void **state)
{
    (void)state;
    expect_rejected("bad_no_entry.so", "not a ktune plugin: no symbol "
                                       "'ktune_plugin_entry'");
}

static void wrong_magic_is_not_a_plugin(void **state)
{
    (void)state;
    expect_rejected("bad_bad_magic.so", "not a ktune plugin: magic is "
                                        "0x0000000000001234");
}

static void abi_major_mismatch_is_named(void **state)
{
    (void)state;
    expect_rejected("bad_abi_major.so", "ABI major version 2, expected 1");
}

static void struct_too_small_is_named(void **state)
{
    (void)state;
    expect_rejected("bad_small_struct.so",
                    "descriptor.operators[0].struct_size is 16, expected at "
                    "least 88");
}

static void null_required_fields_are_named(void **state)
{
    (void)state;
    expect_rejected("bad_null_launch.so", "('nolaunch').launch is NULL");
    expect_rejected("bad_null_setup.so", "operator 'scale'.setup is NULL");
    expect_rejected("bad_null_descriptor.so", "returned NULL");
}

static void duplicate_ids_are_named(void **state)
{
    (void)state;
    expect_rejected("bad_dup_variant.so", "duplicate variant id 'same'");
    expect_rejected("bad_dup_operator.so", "duplicate operator id 'twice'");
}

static void bad_declarations_are_named(void **state)
{
    (void)state;
    expect_rejected("bad_bad_default.so",
                    "'default_value' 100 is not one of 32..256");
    expect_rejected("bad_bad_id.so", "'has space' has ' '");
    expect_rejected("bad_zero_variants.so", "num_variants is 0");
    expect_rejected("bad_bad_size_range.so",
                    "expected 1 <= min <= default <= max");
}

static void entry_points_that_crash_hang_or_exit_are_contained(void **state)
{
    kt_registry reg;
    kt_err err;
    (void)state;

    kt_registry_init(&reg);
    reg.probe_timeout_ms = 1000;
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("bad_crash_entry.so"), &err),
        KT_S_PLUGIN);
    assert_contains(err.msg, "bad_crash_entry.so: loading it killed by signal "
                             "11 (Segmentation fault)");
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("bad_wild_pointer.so"), &err),
        KT_S_PLUGIN);
    assert_contains(err.msg,
                    "bad_wild_pointer.so: loading it killed by signal");
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("bad_exit_entry.so"), &err),
        KT_S_PLUGIN);
    assert_contains(err.msg, "bad_exit_entry.so: loading it exited with "
                             "status 3");
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("bad_hang_entry.so"), &err),
        KT_S_PLUGIN);
    assert_contains(err.msg, "bad_hang_entry.so: did not finish loading within "
                             "1 s");
    /* This process is unharmed and still loads a good plugin. */
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("good_plugin.so"), &err), KT_S_OK);
    assert_int_equal(reg.count, 1);
    kt_registry_free(&reg);
}

static void dlopen_failure_carries_its_text(void **state)
{
    (void)state;
    expect_rejected("not_elf.so", "cannot load:");
    expect_rejected("does_not_exist.so", "No such file");
}

static void duplicate_plugin_name_is_rejected(void **state)
{
    kt_registry reg;
    kt_err err;
    (void)state;

    kt_registry_init(&reg);
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("good_plugin.so"), &err), KT_S_OK);
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("good_plugin_copy.so"), &err),
        KT_S_PLUGIN);
    assert_contains(err.msg, "duplicate plugin name 'good', already loaded "
                             "from");
    assert_int_equal(reg.count, 1);
    kt_registry_free(&reg);
}

static void bad_plugins_do_not_stop_the_good_ones(void **state)
{
    kt_registry reg;
    int saw_dup = 0;
    (void)state;

    kt_registry_init(&reg);
    reg.probe_timeout_ms = 1000; /* bad_hang_entry.so waits this long */
    kt_registry_load_dir(&reg, KT_TEST_PLUGIN_DIR, 1);
    /* good_plugin.so, future_plugin.so, abi11_plugin.so, doc_example.so,
     * gpu_faults.so,
     * diag_corpus.so, transpose_bug.so and scaffold.so (the new-plugin
     * template) load; every bad_*.so, every hostile_*.so (15), not_elf.so and
     * the duplicate copy are reported one line each. */
    assert_non_null(kt_registry_find(&reg, "good"));
    assert_non_null(kt_registry_find(&reg, "gpu_faults"));
    assert_non_null(kt_registry_find(&reg, "future"));
    assert_non_null(kt_registry_find(&reg, "example")); /* docs/plugin-abi.md */
    assert_non_null(kt_registry_find(&reg, "diag_corpus"));
    assert_non_null(kt_registry_find(&reg, "transpose_bug"));
    /* scaffold.so is built in some configurations only. */
    assert_non_null(kt_registry_find(&reg, "abi11"));
    assert_int_equal(reg.count,
                     7 + (kt_registry_find(&reg, "scaffold") != NULL));
    assert_int_equal(reg.num_failures, 17 + 15 + 1 + 1);
    for (size_t i = 0; i < reg.num_failures; ++i) {
        assert_null(strchr(reg.failures[i], '\n'));
        saw_dup |= strstr(reg.failures[i], "good_plugin_copy.so") != NULL;
    }
    assert_true(saw_dup);
    kt_registry_free(&reg);
}

static void shape_for(const kt_loaded_plugin *lp, kt_status want_st,
                      int want_rc)
{
    const kt_operator *op = &lp->desc.operators[0];
    kt_point pt;
    kt_bound_config bc;
    int64_t n = 1000;
    kt_device dev = {.struct_size = sizeof dev, .name = "test"};
    kt_problem prob = {sizeof prob, 1, &n, 1, &dev};
    kt_shape shape;
    char why[128];
    int check_rc = -1, rc = -1;
    kt_err err;

    kt_point_default(op, 0, &pt);
    assert_int_equal(kt_call_shape(lp, op, 0, &prob,
                                   kt_point_bind(op, &pt, &bc), &check_rc, why,
                                   sizeof why, &rc, &shape, &err),
                     want_st);
    if (want_st == KT_S_OK) {
        assert_int_equal(rc, want_rc);
        assert_int_equal(shape.block[0], 128);
        assert_int_equal(shape.grid[0], 8);
    } else {
        assert_contains(err.msg, "variant 'tiled'");
        assert_contains(err.msg, "killed by signal 11");
    }
}

static void an_isolated_registry_never_maps_a_plugin(void **state)
{
    kt_registry reg;
    kt_work w;
    int64_t n = 1000;
    kt_problem prob = {sizeof prob, 1, &n, 1, NULL};
    int rc = -1;
    kt_err err;
    (void)state;

    kt_registry_init(&reg);
    reg.isolated = 1;
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("good_plugin.so"), &err), KT_S_OK);
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("hostile_shape_fault.so"), &err),
        KT_S_PLUGIN); /* "good" again: a duplicate name */
    assert_null(reg.plugins[0]->handle);
    assert_string_equal(reg.plugins[0]->desc.summary, "test plugin");
    /* The callbacks answer from a child: the same answers as in-process. */
    shape_for(reg.plugins[0], KT_S_OK, KT_OK);
    assert_int_equal(kt_call_work(reg.plugins[0],
                                  &reg.plugins[0]->desc.operators[0], &prob, &w,
                                  &rc, &err),
                     KT_S_OK);
    assert_int_equal(rc, KT_OK);
    assert_true(w.bytes_read == 4000.0);
    kt_registry_free(&reg);
    /* A shape() that faults costs the call, not this process. */
    kt_registry_init(&reg);
    reg.isolated = 1;
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("hostile_shape_fault.so"), &err),
        KT_S_OK);
    shape_for(reg.plugins[0], KT_S_PLUGIN, 0);
    shape_for(reg.plugins[0], KT_S_PLUGIN, 0);
    kt_registry_free(&reg);
}

/* A probe's verdict is remembered under the FNV-1a of the plugin's real
 * path (values pinned in test_hash), so verdicts an earlier build wrote are
 * found again. */
static void probe_verdicts_are_cached_under_the_fnv1a_of_the_path(void **state)
{
    const char *dir = getenv("KTUNE_CACHE_DIR");
    char *real = realpath(fixture("good_plugin.so"), NULL);
    char file[8192];
    struct stat st;
    kt_registry reg;
    kt_err err;
    (void)state;

    assert_non_null(dir);
    assert_non_null(real);
    snprintf(file, sizeof file, "%s/plugins/%016llx.json", dir,
             (unsigned long long)kt_hash_fnv1a_str(KT_HASH_FNV1A_BASIS, real));
    free(real);
    unlink(file);
    kt_registry_init(&reg);
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("good_plugin.so"), &err), KT_S_OK);
    kt_registry_free(&reg);
    assert_int_equal(stat(file, &st), 0);
}

static void plugin_path_entries_load_and_report(void **state)
{
    kt_registry reg;
    char env[8192];
    const char *files[] = {"/nonexistent/extra.so"};
    (void)state;

    snprintf(env, sizeof env, "%s/good_plugin.so:/nonexistent/folder",
             KT_TEST_PLUGIN_DIR);
    setenv("KTUNE_PLUGIN_PATH", env, 1);
    kt_registry_init(&reg);
    kt_registry_load_default(&reg, NULL, files, 1);
    assert_int_equal(reg.count, 1);
    assert_int_equal(reg.num_failures, 2);
    assert_contains(reg.failures[0], "/nonexistent/folder: in "
                                     "KTUNE_PLUGIN_PATH, but no such file");
    assert_contains(reg.failures[1], "/nonexistent/extra.so: cannot load");
    kt_registry_free(&reg);
    unsetenv("KTUNE_PLUGIN_PATH");
}

static void unknown_names_suggest_close_matches(void **state)
{
    kt_registry reg;
    kt_err err;
    const kt_operator *op;
    const kt_loaded_plugin *lp;
    size_t index;
    (void)state;

    kt_registry_init(&reg);
    assert_int_equal(
        kt_registry_load_file(&reg, fixture("good_plugin.so"), &err), KT_S_OK);
    assert_int_equal(kt_registry_resolve(&reg, "goood:scale", &lp, &op, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "unknown plugin 'goood'; did you mean 'good'?");
    assert_int_equal(kt_registry_resolve(&reg, "good:scal", &lp, &op, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "no operator 'scal'; did you mean 'scale'?");
    assert_int_equal(kt_registry_resolve(&reg, "good:scale", &lp, &op, &err),
                     KT_S_OK);
    assert_int_equal(kt_operator_find_variant(op, "tilde", &index, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "did you mean 'tiled'?");
    assert_int_equal(kt_operator_find_variant(op, "plain", &index, &err),
                     KT_S_OK);
    assert_int_equal(index, 1);
    kt_registry_free(&reg);
}

/* A plugin whose every architecture is newer than the device is refused at
 * first use with the rebuild setting; older ones (PTX or same-major machine
 * code) and unknown lists are left to the driver. */
static void a_plugin_without_code_for_the_device_is_named(void **state)
{
    kt_err err;
    (void)state;
    assert_int_equal(kt_plugin_check_arch("p.so", "900", 9, 0, &err), KT_S_OK);
    assert_int_equal(kt_plugin_check_arch("p.so", "800", 9, 0, &err), KT_S_OK);
    assert_int_equal(kt_plugin_check_arch("p.so", "800,900", 8, 0, &err),
                     KT_S_OK);
    assert_int_equal(kt_plugin_check_arch("p.so", "", 7, 5, &err), KT_S_OK);
    assert_int_equal(kt_plugin_check_arch("p.so", NULL, 7, 5, &err), KT_S_OK);
    assert_int_equal(kt_plugin_check_arch("p.so", "900,1000", 8, 6, &err),
                     KT_S_PLUGIN);
    assert_string_equal(err.msg,
                        "p.so: no kernel image for sm_86 (this device): built "
                        "for 900,1000 (__CUDA_ARCH_LIST__); rebuild with "
                        "CMAKE_CUDA_ARCHITECTURES=86");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_plugin_loads_and_is_normalised),
        cmocka_unit_test(newer_minor_version_loads_at_its_stride),
        cmocka_unit_test(an_abi_1_1_plugin_loads_without_per_point_work),
        cmocka_unit_test(missing_entry_symbol_is_not_a_plugin),
        cmocka_unit_test(wrong_magic_is_not_a_plugin),
        cmocka_unit_test(abi_major_mismatch_is_named),
        cmocka_unit_test(struct_too_small_is_named),
        cmocka_unit_test(null_required_fields_are_named),
        cmocka_unit_test(duplicate_ids_are_named),
        cmocka_unit_test(bad_declarations_are_named),
        cmocka_unit_test(entry_points_that_crash_hang_or_exit_are_contained),
        cmocka_unit_test(dlopen_failure_carries_its_text),
        cmocka_unit_test(duplicate_plugin_name_is_rejected),
        cmocka_unit_test(bad_plugins_do_not_stop_the_good_ones),
        cmocka_unit_test(an_isolated_registry_never_maps_a_plugin),
        cmocka_unit_test(probe_verdicts_are_cached_under_the_fnv1a_of_the_path),
        cmocka_unit_test(plugin_path_entries_load_and_report),
        cmocka_unit_test(unknown_names_suggest_close_matches),
        cmocka_unit_test(a_plugin_without_code_for_the_device_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
