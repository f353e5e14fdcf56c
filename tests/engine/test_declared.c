// SPDX-License-Identifier: Apache-2.0
/* A declared operator's pure callbacks, without a GPU: the descriptor the
 * registry builds from examples/declared_transpose, its work, launch shape
 * and device-limit check, a require that refuses a point, and the source
 * NVRTC compiles (with its argument checks). */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/feasible.h"
#include "core/loader.h"
#include "core/point.h"
#include "engine/declared_run.h"
#include "tests/support/fake_device.h"

static kt_registry reg;
static const kt_loaded_plugin *lp;
static const kt_operator *op;
static char extra[256];

static int load(void **state)
{
    FILE *f;
    kt_err err;
    (void)state;
    setenv("KTUNE_CACHE_DIR", "/tmp/ktune-test-declared-cache", 1);
    kt_registry_init(&reg);
    if (kt_registry_load_file(
            &reg, KT_SOURCE_DIR "/examples/declared_transpose/transpose.ini",
            &err) ||
        kt_registry_resolve(&reg, "transpose", &lp, &op, &err))
        fail_msg("%s", err.msg);
    /* A second declaration, next to the example's source: a require. */
    snprintf(extra, sizeof extra, "/tmp/ktune-test-declared-%ld.ini",
             (long)getpid());
    f = fopen(extra, "w");
    fprintf(f,
            "[operator]\nname = twice2\nsource = %s\nsizes = rows=64, "
            "cols=64\nbuffer.x = input f32[rows * cols]\nbuffer.y = "
            "output f32[rows * cols]\nargs = y, x, int rows, int cols\n"
            "[variant.v]\nreference = yes\nkernel = transpose_naive\n"
            "param.bx = 16, 32\nparam.by = 1, 64\nblock = bx, by\n"
            "grid = ceil_div(cols, bx), ceil_div(rows, by)\n"
            "require = bx * by <= 1024 && by < 64\n",
            KT_SOURCE_DIR "/examples/declared_transpose/transpose.cu");
    fclose(f);
    if (kt_registry_load_file(&reg, extra, &err))
        fail_msg("%s", err.msg);
    return 0;
}

static int unload(void **state)
{
    (void)state;
    unlink(extra);
    kt_registry_free(&reg);
    return 0;
}

static void the_descriptor_has_the_declared_sizes_variants_and_params(void **s)
{
    size_t v;
    kt_err err;
    (void)s;
    assert_int_equal(op->num_sizes, 2);
    assert_string_equal(op->sizes[0].name, "rows");
    assert_int_equal(op->sizes[1].default_value, 8192);
    assert_int_equal(op->num_variants, 2);
    assert_int_equal(kt_operator_find_variant(op, "tiled", &v, &err), KT_S_OK);
    assert_int_equal(op->variants[v].num_params, 3);
    assert_string_equal(op->variants[v].params[2].name, "rows_per");
    assert_int_equal(op->variants[v].params[0].count, 3);
    assert_non_null(op->variants[v].launch_shaped);
    assert_non_null(op->variants[v].kernel_of);
}

static void work_counts_each_input_read_and_output_written_once(void **s)
{
    int64_t sizes[] = {1000, 3001};
    kt_device dev = kt_test_h200();
    kt_problem p = {sizeof p, 2, sizes, 1, &dev};
    kt_work w = {sizeof w, 0, 0, 0, 0};
    int rc = KT_FAIL;
    (void)s;
    assert_int_equal(kt_call_work(lp, op, &p, &w, &rc, NULL), KT_S_OK);
    assert_int_equal(rc, KT_OK);
    assert_true(w.bytes_read == 4.0 * 1000 * 3001);
    assert_true(w.bytes_written == 4.0 * 1000 * 3001);
    assert_true(w.flops == 0);
}

/* The shape the H200 run printed for this point: grid (94, 32, 1), block
 * (32, 8, 1). */
static void the_shape_comes_from_the_expressions(void **s)
{
    int64_t sizes[] = {1000, 3001};
    kt_device dev = kt_test_h200();
    kt_problem p = {sizeof p, 2, sizes, 1, &dev};
    kt_point pt;
    kt_shape shape;
    kt_err err;
    (void)s;
    kt_point_default(op, 1, &pt);
    assert_int_equal(kt_point_set(op, &pt, "tile", "32", &err), KT_S_OK);
    assert_int_equal(kt_point_set(op, &pt, "pad", "1", &err), KT_S_OK);
    assert_int_equal(kt_point_set(op, &pt, "rows_per", "8", &err), KT_S_OK);
    assert_int_equal(kt_point_feasible(lp, op, &p, &pt, &shape, &err), KT_S_OK);
    assert_int_equal(shape.grid[0], 94);
    assert_int_equal(shape.grid[1], 32);
    assert_int_equal(shape.grid[2], 1);
    assert_int_equal(shape.block[0], 32);
    assert_int_equal(shape.block[1], 8);
    assert_int_equal(shape.dynamic_smem_bytes, 0);
    /* naive at by = 1 over 100000 rows: more than 65535 blocks in y. */
    sizes[0] = 100000;
    kt_point_default(op, 0, &pt);
    assert_int_equal(kt_point_feasible(lp, op, &p, &pt, &shape, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "grid");
}

static void require_refuses_a_point_with_the_expression(void **s)
{
    const kt_loaded_plugin *lp2;
    const kt_operator *op2;
    int64_t sizes[] = {64, 64};
    kt_device dev = kt_test_h200();
    kt_problem p = {sizeof p, 2, sizes, 1, &dev};
    kt_point pt;
    kt_err err;
    (void)s;
    assert_int_equal(kt_registry_resolve(&reg, "twice2", &lp2, &op2, &err),
                     KT_S_OK);
    kt_point_default(op2, 0, &pt);
    assert_int_equal(kt_point_feasible(lp2, op2, &p, &pt, NULL, &err), KT_S_OK);
    assert_int_equal(kt_point_set(op2, &pt, "by", "64", &err), KT_S_OK);
    assert_int_equal(kt_point_feasible(lp2, op2, &p, &pt, NULL, &err),
                     KT_S_INVALID);
    assert_contains(err.msg, "[variant.v] require: 'bx * by <= 1024 && by < "
                             "64' is false");
}

static void the_compiled_source_checks_the_arguments(void **s)
{
    const kt_loaded_plugin *tp;
    const kt_operator *o;
    char *src;
    kt_err err;
    (void)s;
    assert_int_equal(kt_registry_resolve(&reg, "transpose", &tp, &o, &err),
                     KT_S_OK);
    src = kt_declared_source(
        kt_declared_of_plugin(tp), "transpose_tiled<32, 1, 8>",
        kt_declared_of_plugin(tp)->args, kt_declared_of_plugin(tp)->num_args);
    assert_non_null(src);
    assert_contains(src, "template <int TILE, int PAD, int ROWS>");
    assert_contains(src, "ktune_sig<decltype(transpose_tiled<32, 1, 8>)>::"
                         "ktune_count == "
                         "4");
    assert_contains(src, "argument 3 of transpose_tiled<32, 1, 8> is not int");
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            the_descriptor_has_the_declared_sizes_variants_and_params),
        cmocka_unit_test(work_counts_each_input_read_and_output_written_once),
        cmocka_unit_test(the_shape_comes_from_the_expressions),
        cmocka_unit_test(require_refuses_a_point_with_the_expression),
        cmocka_unit_test(the_compiled_source_checks_the_arguments),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
