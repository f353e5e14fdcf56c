// SPDX-License-Identifier: Apache-2.0
/* saxpy, copy, matrix_add and the empty kernel run and verify at boundary
 * and odd sizes across each value of each parameter: tails after whole
 * blocks and whole float4s, one element, and (matrix_add) grids taller than
 * grid.y allows, in both mappings of threadIdx.x. saxpy writes its input,
 * so each of its points also proves that reset() restores y before the
 * launch it verifies. */
#include "tests/kt_test.h"

#include "engine/instance.h"
#include "tests/gpu/gpu_util.h"
#include "tests/plugins/plugin_test.h"

static kt_registry reg;

static int sweep_at(const char *spec, const int64_t *sizes, int boundaries,
                    int *checked)
{
    enum { MAX_POINTS = 64 };
    static kt_point pts[MAX_POINTS];
    const kt_operator *op;
    kt_evaluator *ev = kt_open_at(&reg, spec, sizes, boundaries, &op);
    int failures = 0;
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        char where[128], sz[64];
        int ok_default = 0;
        size_t n = boundaries ? 1 : kt_one_at_a_time(op, v, pts, MAX_POINTS);
        if (boundaries)
            kt_point_default(op, v, &pts[0]);
        kt_format_sizes(op, sizes, sz, sizeof sz);
        snprintf(where, sizeof where, "%s %s", spec, sz);
        failures +=
            kt_verify_points(ev, op, pts, n, where, checked, &ok_default);
        if (!ok_default) {
            fprintf(stderr, "FAIL %s: %s at its defaults did not verify\n",
                    where, op->variants[v].id);
            ++failures;
        }
    }
    ev->ops->close(ev);
    return failures;
}

static void vectors_at_every_size(void **state)
{
    static const int64_t sizes[] = {
        1, 2, 3, 5, 31, 33, 255, 257, 1023, 1025, 4099, 65537, (1 << 20) + 3};
    static const char *const specs[] = {"saxpy:saxpy", "copy:copy",
                                        "empty:launch"};
    int failures = 0, checked = 0;
    (void)state;
    for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
            failures += sweep_at(specs[i], &sizes[s], 0, &checked);
    printf("saxpy, copy, empty: verified %d points\n", checked);
    assert_int_equal(failures, 0);
    assert_true(checked > 400);
}

static void matrix_add_at_every_shape(void **state)
{
    static const int64_t shapes[][2] = {
        {1, 1},    {1, 33},     {33, 1},      {3, 5},     {31, 129},
        {129, 31}, {257, 1023}, {1000, 1001}, {70000, 3}, {3, 70000}};
    int failures = 0, checked = 0;
    (void)state;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s)
        failures += sweep_at("matrix_add:add", shapes[s], 0, &checked);
    printf("matrix_add: verified %d points\n", checked);
    assert_int_equal(failures, 0);
    assert_true(checked > 150);
}

static void defaults_at_the_host_boundary_sizes(void **state)
{
    static const int64_t n = 100003, mn[2] = {1029, 1031};
    int failures = 0, checked = 0;
    (void)state;
    failures += sweep_at("saxpy:saxpy", &n, 1, &checked);
    failures += sweep_at("copy:copy", &n, 1, &checked);
    failures += sweep_at("empty:launch", &n, 1, &checked);
    failures += sweep_at("matrix_add:add", mn, 1, &checked);
    assert_int_equal(failures, 0);
    assert_int_equal(checked, 3 + 4 + 2 + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vectors_at_every_size),
        cmocka_unit_test(matrix_add_at_every_shape),
        cmocka_unit_test(defaults_at_the_host_boundary_sizes),
    };
    kt_skip_without_gpu();
    kt_registry_init(&reg);
    kt_load_builtin(&reg, "saxpy");
    kt_load_builtin(&reg, "copy");
    kt_load_builtin(&reg, "matrix_add");
    kt_load_builtin(&reg, "empty");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
