// SPDX-License-Identifier: Apache-2.0
/* One code path: tests/libktune/rich/rich.ini and the same operator
 * declared through libktune, each read by the declaration parser
 * (kt_declared_load), are the same operator: sizes, buffers (roles, types,
 * fills), arguments, constant symbols, options, verification (reference
 * variant, rtol, atol), and per variant the kernel, parameters, defaults,
 * compile-time parameters, and block, grid, smem and require evaluated at
 * every point of its space. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <string.h>

#include "engine/declared_run.h"
#include "ktune/ktune.h"

static void declare(ktune_session *s)
{
    static const int64_t b2[] = {32, 64}, b4[] = {32, 64, 128, 256},
                         u[] = {1, 2, 4};
    assert_int_equal(ktune_declare(s, "rich"), KTUNE_OK);
    assert_int_equal(
        ktune_source_file(s, KT_SOURCE_DIR "/tests/libktune/rich/rich.cu"),
        KTUNE_OK);
    assert_int_equal(ktune_size(s, "n", 4096, 0), KTUNE_OK);
    assert_int_equal(
        ktune_buffer(s, "x", KTUNE_IN, KTUNE_F32, NULL, 1, "n", "normal(0, 1)"),
        KTUNE_OK);
    assert_int_equal(ktune_buffer(s, "w", KTUNE_IN, KTUNE_F32, NULL, 16, NULL,
                                  "uniform(-1, 1)"),
                     KTUNE_OK);
    assert_int_equal(
        ktune_buffer(s, "y", KTUNE_INOUT, KTUNE_F32, NULL, 1, "n", NULL),
        KTUNE_OK);
    assert_int_equal(ktune_constant(s, "cw", "w"), KTUNE_OK);
    assert_int_equal(ktune_arg_buffer(s, "y", NULL) ||
                         ktune_arg_buffer(s, "x", NULL) ||
                         ktune_arg_expr(s, KTUNE_C_INT, "n") ||
                         ktune_arg_float(s, KTUNE_C_FLOAT, 0.5),
                     KTUNE_OK);
    assert_int_equal(ktune_tolerance(s, 1e-5, 1e-6), KTUNE_OK);
    assert_int_equal(ktune_option(s, "-use_fast_math"), KTUNE_OK);
    assert_int_equal(ktune_variant(s, "base", "rich_kernel") ||
                         ktune_reference(s) || ktune_param(s, "bx", b2, 2) ||
                         ktune_block(s, "bx") ||
                         ktune_grid_divisors(s, "n", "bx"),
                     KTUNE_OK);
    assert_int_equal(
        ktune_variant(s, "fast", "rich_kernel") ||
            ktune_param(s, "bx", b4, 4) || ktune_param(s, "unroll", u, 3) ||
            ktune_param_default(s, "bx", 64) ||
            ktune_define(s, "UNROLL", "unroll") || ktune_block(s, "bx") ||
            ktune_grid_divisors(s, "n", "bx * unroll") ||
            ktune_smem(s, "bx * 4") || ktune_require(s, "bx * unroll <= 512"),
        KTUNE_OK);
}

/* e of a and b's variant vi evaluated at the same point: equal. */
static void same_value(const kt_declared *a, const kt_declared *b, size_t vi,
                       const kt_expr *ea, const kt_expr *eb,
                       const int64_t *values)
{
    int64_t sizes[1] = {4096}, va = 0, vb = 0;
    kt_err err;

    assert_int_equal(ea == NULL, eb == NULL);
    if (!ea)
        return;
    assert_int_equal(
        kt_declared_eval(&a->variants[vi], ea, sizes, 1, values, &va, &err),
        KT_S_OK);
    assert_int_equal(
        kt_declared_eval(&b->variants[vi], eb, sizes, 1, values, &vb, &err),
        KT_S_OK);
    assert_int_equal(va, vb);
}

static void same_variant(const kt_declared *a, const kt_declared *b, size_t vi)
{
    const kt_decl_variant *x = &a->variants[vi], *y = &b->variants[vi];
    int64_t values[8] = {0};
    size_t idx[8] = {0}, np = x->num_names - a->num_sizes;

    assert_string_equal(x->id, y->id);
    assert_string_equal(x->kernel, y->kernel);
    assert_int_equal(x->num_names, y->num_names);
    assert_int_equal(x->compile_time_mask, y->compile_time_mask);
    assert_int_equal(x->num_defines, y->num_defines);
    for (size_t p = 0; p < np; ++p) {
        assert_string_equal(x->param_names[p], y->param_names[p]);
        assert_int_equal(x->params[p].default_value,
                         y->params[p].default_value);
        assert_int_equal(x->params[p].count, y->params[p].count);
        assert_memory_equal(x->values[p], y->values[p],
                            x->params[p].count * sizeof(int64_t));
    }
    /* Every point of the variant's space, odometer order. */
    for (;;) {
        for (size_t p = 0; p < np; ++p)
            values[p] = x->values[p][idx[p]];
        for (int k = 0; k < 3; ++k) {
            same_value(a, b, vi, x->block[k], y->block[k], values);
            same_value(a, b, vi, x->grid[k], y->grid[k], values);
        }
        same_value(a, b, vi, x->smem, y->smem, values);
        same_value(a, b, vi, x->require, y->require, values);
        size_t p = 0;
        while (p < np && ++idx[p] == x->params[p].count)
            idx[p++] = 0;
        if (p == np)
            break;
    }
}

static void the_ini_and_the_api_declare_the_same_operator(void **state)
{
    ktune_session *s;
    ktune_result *r = NULL;
    kt_declared *a = NULL, *b = NULL;
    char doc[4096];
    kt_err err;

    (void)state;
    assert_int_equal(ktune_session_new(&s), KTUNE_OK);
    ktune_session_set_exe(s, KT_KTUNE_EXE);
    declare(s);
    /* The check writes the document the runs read, and checks it. */
    if (ktune_check(s, &r))
        fail_msg("%s", ktune_session_errmsg(s));
    ktune_result_free(r);
    snprintf(doc, sizeof doc, "%s/rich.ini", ktune_session_dir(s));
    if (kt_declared_load(KT_SOURCE_DIR "/tests/libktune/rich/rich.ini", &a,
                         &err) ||
        kt_declared_load(doc, &b, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(a->num_sizes, b->num_sizes);
    assert_string_equal(a->size_names[0], b->size_names[0]);
    assert_int_equal(a->sizes[0].default_value, b->sizes[0].default_value);
    assert_int_equal(a->num_buffers, b->num_buffers);
    for (size_t i = 0; i < a->num_buffers; ++i) {
        assert_string_equal(a->buffers[i].name, b->buffers[i].name);
        assert_int_equal(a->buffers[i].type, b->buffers[i].type);
        assert_int_equal(a->buffers[i].role, b->buffers[i].role);
        assert_int_equal(a->buffers[i].fill.kind, b->buffers[i].fill.kind);
        assert_true(a->buffers[i].fill.a == b->buffers[i].fill.a &&
                    a->buffers[i].fill.b == b->buffers[i].fill.b);
    }
    assert_int_equal(a->num_args, b->num_args);
    for (size_t i = 0; i < a->num_args; ++i) {
        assert_int_equal(a->args[i].buffer, b->args[i].buffer);
        assert_int_equal(a->args[i].type, b->args[i].type);
        assert_true(a->args[i].literal == b->args[i].literal);
    }
    assert_int_equal(a->num_constants, b->num_constants);
    assert_string_equal(a->constants[0].symbol, b->constants[0].symbol);
    assert_int_equal(a->num_options, b->num_options);
    assert_true(a->rtol == b->rtol && a->atol == b->atol && a->rtol > 0);
    assert_int_equal(a->reference, b->reference);
    assert_int_equal(a->num_variants, b->num_variants);
    for (size_t vi = 0; vi < a->num_variants; ++vi)
        same_variant(a, b, vi);
    kt_declared_free(a);
    kt_declared_free(b);
    ktune_session_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_ini_and_the_api_declare_the_same_operator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
