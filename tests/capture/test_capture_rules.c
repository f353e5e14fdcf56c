// SPDX-License-Identifier: Apache-2.0
/* The launch-geometry rules of a capture (capture/rules.h): the default
 * keeps the threads of every dimension and rounds the grid up, lists the
 * powers of two of the dimensions the launch uses with the captured shape
 * among them; a geometry.ini replaces values and expressions, and its
 * mistakes name file:line and key. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/format.h"
#include "capture/rules.h"

static kt_capture make(const char *dir, uint32_t gx, uint32_t gy, uint32_t bx,
                       uint32_t by, uint32_t smem)
{
    kt_capture c;
    memset(&c, 0, sizeof c);
    snprintf(c.dir, sizeof c.dir, "%s", dir);
    c.grid[0] = gx, c.grid[1] = gy, c.grid[2] = 1;
    c.block[0] = bx, c.block[1] = by, c.block[2] = 1;
    c.dynamic_smem = smem;
    return c;
}

static void shape(const kt_cap_rules *r, const kt_capture *c, int64_t bx,
                  int64_t by, uint32_t grid[3], uint32_t *smem, int *ok)
{
    int64_t b[3] = {bx, by, 1};
    char why[256];
    kt_err err;
    assert_int_equal(
        kt_cap_rules_shape(r, c, b, grid, smem, ok, why, sizeof why, &err),
        KT_S_OK);
}

static void round_up_keeps_every_thread(void **state)
{
    (void)state;
    assert_int_equal(kt_cap_round_up_grid(4, 256, 128), 8);
    assert_int_equal(kt_cap_round_up_grid(4, 256, 1024), 1);
    /* 1000 blocks of 100 threads = 100000: 98 blocks of 1024 (100352). */
    assert_int_equal(kt_cap_round_up_grid(1000, 100, 1024), 98);
    assert_int_equal(kt_cap_round_up_grid(3, 1, 2), 2);
    /* Saturates instead of wrapping. */
    assert_int_equal(kt_cap_round_up_grid(UINT32_MAX, 1024, 1), UINT32_MAX);
}

static void
default_rule_lists_used_dimensions_and_the_captured_shape(void **state)
{
    kt_capture c = make("/nonexistent", 4, 1, 200, 1, 0);
    kt_cap_rules r;
    uint32_t g[3], smem;
    int ok;
    (void)state;
    assert_int_equal(kt_cap_rules_load(&c, &r, NULL), KT_S_OK);
    assert_int_equal(r.custom, 0);
    /* One dimension: 32..1024 and the captured 200, in order. */
    assert_int_equal(r.counts[0], 7);
    assert_int_equal(r.values[0][0], 32);
    assert_int_equal(r.values[0][3], 200);
    assert_int_equal(r.values[0][6], 1024);
    assert_int_equal(r.counts[1], 1);
    assert_int_equal(r.values[1][0], 1);
    shape(&r, &c, 128, 1, g, &smem, &ok);
    assert_true(ok);
    assert_int_equal(g[0], 7); /* 800 threads: 7 x 128 = 896 */
    assert_int_equal(g[1], 1);
    shape(&r, &c, 200, 1, g, &smem, &ok);
    assert_int_equal(g[0], 4);
    kt_cap_rules_free(&r);
}

static void default_rule_in_two_dimensions_refuses_tiny_blocks(void **state)
{
    kt_capture c = make("/nonexistent", 64, 64, 16, 16, 128);
    kt_cap_rules r;
    uint32_t g[3], smem;
    int ok;
    (void)state;
    assert_int_equal(kt_cap_rules_default(&c, &r, NULL), KT_S_OK);
    assert_int_equal(r.counts[0], 11); /* 1..1024 */
    assert_int_equal(r.counts[1], 11);
    shape(&r, &c, 32, 8, g, &smem, &ok);
    assert_true(ok);
    assert_int_equal(g[0], 32);
    assert_int_equal(g[1], 128);
    assert_int_equal(smem, 128); /* kept as captured */
    shape(&r, &c, 4, 4, g, &smem, &ok);
    assert_false(ok);
    shape(&r, &c, 64, 32, g, &smem, &ok);
    assert_false(ok); /* 2048 threads */
    kt_cap_rules_free(&r);
}

static char *temp_dir(void)
{
    char *d = strdup("/tmp/kt-rules-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static void write_rules(const char *dir, const char *text)
{
    char path[4200];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, KT_CAP_RULES_FILE);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_dir(char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, KT_CAP_RULES_FILE);
    unlink(path);
    rmdir(dir);
    free(dir);
}

static void rules_file_replaces_values_grid_and_smem(void **state)
{
    char *dir = temp_dir();
    kt_capture c = make(dir, 10, 1, 128, 1, 512);
    kt_cap_rules r;
    uint32_t g[3], smem;
    int ok;
    kt_err err;
    (void)state;
    write_rules(dir, "[geometry]\nblock_x = 64..256\n"
                     "grid_x = ceil_div(cap_grid_x * cap_block_x, 2 * "
                     "block_x)\nsmem = block_x * 4\n"
                     "require = block_x != 128\n");
    assert_int_equal(kt_cap_rules_load(&c, &r, &err), KT_S_OK);
    assert_int_equal(r.custom, 1);
    /* The captured 128 stays a value: the default must be one. */
    assert_int_equal(r.counts[0], 3);
    assert_int_equal(r.values[0][1], 128);
    shape(&r, &c, 64, 1, g, &smem, &ok);
    assert_true(ok);
    assert_int_equal(g[0], 10);
    assert_int_equal(smem, 256);
    shape(&r, &c, 128, 1, g, &smem, &ok);
    assert_false(ok);
    kt_cap_rules_free(&r);
    remove_dir(dir);
}

static void rules_file_mistakes_name_line_and_key(void **state)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[geometry]\nblock_q = 32\n", ":2: [geometry] block_q: unknown key"},
        {"[geometry]\n\nblock_x = 32, 4096\n", ":3: [geometry] block_x"},
        {"[geometry]\ngrid_x = block_x +\n", ":2: [geometry] grid_x"},
        {"[geometry]\nsmem = threads\n", ":2: [geometry] smem"},
        {"[space]\nblock = 32\n", "unknown section [space]"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char *dir = temp_dir();
        kt_capture c = make(dir, 10, 1, 128, 1, 0);
        kt_cap_rules r;
        kt_err err;
        write_rules(dir, cases[i].text);
        assert_int_equal(kt_cap_rules_load(&c, &r, &err), KT_S_INPUT);
        assert_contains(err.msg, cases[i].want);
        kt_cap_rules_free(&r);
        remove_dir(dir);
    }
}

static void a_grid_expression_out_of_range_is_an_error(void **state)
{
    char *dir = temp_dir();
    kt_capture c = make(dir, 10, 1, 128, 1, 0);
    kt_cap_rules r;
    int64_t b[3] = {128, 1, 1};
    uint32_t g[3], smem;
    int ok;
    char why[128];
    kt_err err;
    (void)state;
    write_rules(dir, "[geometry]\ngrid_x = cap_grid_x - 10\n");
    assert_int_equal(kt_cap_rules_load(&c, &r, &err), KT_S_OK);
    assert_int_equal(
        kt_cap_rules_shape(&r, &c, b, g, &smem, &ok, why, sizeof why, &err),
        KT_S_INPUT);
    assert_contains(err.msg, "gives 0");
    kt_cap_rules_free(&r);
    remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_up_keeps_every_thread),
        cmocka_unit_test(
            default_rule_lists_used_dimensions_and_the_captured_shape),
        cmocka_unit_test(default_rule_in_two_dimensions_refuses_tiny_blocks),
        cmocka_unit_test(rules_file_replaces_values_grid_and_smem),
        cmocka_unit_test(rules_file_mistakes_name_line_and_key),
        cmocka_unit_test(a_grid_expression_out_of_range_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
