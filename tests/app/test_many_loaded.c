// SPDX-License-Identifier: Apache-2.0
/* One process holds 40 Kernel Tuner recordings, 20 captures and a
 * declaration of 40 variants at once, and each one's callbacks answer
 * from its own descriptor's data (ABI 1.3): no table of slots caps how
 * many are open, and none answers for another. The inputs are written
 * here (no GPU: the declaration's kernels compile with NVRTC for the
 * check architecture, the captures are never launched). */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/operator.h"
#include "core/loader.h"
#include "core/point.h"
#include "records/extrec.h"
#include "records/ktcache.h"
#include "tests/support/fake_device.h"

#define RECORDINGS 40
#define CAPTURES 20
#define VARIANTS 40

static char dir[256];

static void path_of(char *out, size_t size, const char *name, int i)
{
    snprintf(out, size, "%s/%s%d", dir, name, i);
}

/* check() then shape() of pt through the host's call (kt_call_shape);
 * check's return code, with *shape set when it said KT_OK and shape did. */
static int shape_at(const kt_loaded_plugin *lp, const kt_operator *op,
                    const kt_problem *prob, const kt_point *pt, kt_shape *shape)
{
    kt_bound_config bc;
    char why[256];
    int check_rc, shape_rc;
    kt_err err;

    assert_int_equal(kt_call_shape(lp, op, pt->variant, prob,
                                   kt_point_bind(op, pt, &bc), &check_rc, why,
                                   sizeof why, &shape_rc, shape, &err),
                     KT_S_OK);
    if (check_rc == KT_OK)
        assert_int_equal(shape_rc, KT_OK);
    return check_rc;
}

/* Recording i: kernel k<i>, bx in {32, 64, 128}, 128 not recorded. */
static void write_recording(int i, char *path, size_t size)
{
    FILE *f;

    path_of(path, size, "rec", i);
    strncat(path, ".cache.json", size - strlen(path) - 1);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"device_name\": \"NVIDIA H200\", \"kernel_name\": \"k%d\", "
            "\"problem_size\": [1024], \"tune_params_keys\": [\"bx\"], "
            "\"tune_params\": {\"bx\": [32, 64, 128]}, \"objective\": "
            "\"time\", \"cache\": {",
            i);
    for (int b = 32; b <= 64; b *= 2)
        fprintf(f,
                "%s\"%d\": {\"bx\": %d, \"time\": %d.5, \"times\": [%d.5], "
                "\"compile_time\": 0.0, \"verification_time\": 0.0, "
                "\"benchmark_time\": 1.0, \"strategy_time\": 0, "
                "\"framework_time\": 0.0, \"timestamp\": "
                "\"2026-12-01T10:32:32Z\"}",
                b == 32 ? "" : ", ", b, b, i + b, i + b);
    fprintf(f, "}}\n");
    fclose(f);
}

static void recordings_answer_from_their_own_data(void **state)
{
    kt_extrec *rec[RECORDINGS];
    char path[512];
    kt_device dev = kt_test_h200();
    const int64_t n = 1024;
    kt_problem prob = {sizeof prob, 1, &n, 1, &dev, NULL};
    kt_shape shape;
    kt_err err;
    (void)state;

    for (int i = 0; i < RECORDINGS; ++i) {
        write_recording(i, path, sizeof path);
        if (kt_ktcache_load(path, &rec[i], &err))
            fail_msg("%s", err.msg);
    }
    for (int i = 0; i < RECORDINGS; ++i) {
        const kt_operator *op = &rec[i]->op;
        kt_point pt = {.variant = 0, .count = 1, .values = {64}};
        char id[16];
        snprintf(id, sizeof id, "k%d", i);
        assert_string_equal(op->id, id);
        assert_ptr_equal(kt_extrec_of(op), rec[i]);
        assert_int_equal(shape_at(&rec[i]->plugin, op, &prob, &pt, &shape),
                         KT_OK);
        assert_true(kt_extrec_find(rec[i], &pt)->time_ms == i + 64.5);
        pt.values[0] = 128; /* declared, never recorded */
        assert_int_equal(shape_at(&rec[i]->plugin, op, &prob, &pt, &shape),
                         KT_INVALID);
    }
    for (int i = 0; i < RECORDINGS; ++i)
        kt_extrec_free(rec[i]);
}

/* Capture i: a launch of 4 x 256 threads (make_capture.py) whose grid
 * rule reads the capture's own launch. */
static void captures_answer_from_their_own_data(void **state)
{
    kt_cap_op *cap[CAPTURES];
    const kt_plugin *desc[CAPTURES];
    char path[512], cmd[1200];
    kt_device dev = kt_test_h200();
    int64_t bytes;
    kt_shape shape;
    kt_err err;
    (void)state;

    for (int i = 0; i < CAPTURES; ++i) {
        path_of(path, sizeof path, "cap", i);
        snprintf(cmd, sizeof cmd, "python3 %s/tests/capture/make_capture.py %s",
                 KT_SOURCE_DIR, path);
        assert_int_equal(system(cmd), 0);
        if (kt_cap_op_load(path, &cap[i], &desc[i], &err))
            fail_msg("%s", err.msg);
    }
    for (int i = 0; i < CAPTURES; ++i) {
        const kt_operator *op = &desc[i]->operators[0];
        kt_point pt;
        char name[64];
        kt_problem prob = {sizeof prob, 1, &bytes, 1, &dev, NULL};
        snprintf(name, sizeof name, "cap-cap%d", i);
        assert_string_equal(desc[i]->name, name);
        bytes = op->sizes[0].default_value;
        kt_point_default(op, 0, &pt);
        assert_int_equal(shape_at(NULL, op, &prob, &pt, &shape), KT_OK);
        assert_int_equal(shape.grid[0], 4);
        assert_int_equal(shape.block[0], 256);
    }
    for (int i = 0; i < CAPTURES; ++i)
        kt_cap_op_free(cap[i]);
}

/* Variant v<i> launches ceil_div(n, bx) + i blocks: its shape must come
 * from its own data. */
static void write_declaration(char *path, size_t size)
{
    FILE *f;

    snprintf(path, size, "%s/many.ini", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "[operator]\nname = many\nsource = %s/many.cu\nsizes = n=1024\n"
            "buffer.x = input f32[n]\nbuffer.y = output f32[n]\n"
            "args = y, x, int n\n",
            dir);
    for (int i = 0; i < VARIANTS; ++i)
        fprintf(f,
                "[variant.v%d]\n%skernel = copy\nparam.bx = 32, 64\n"
                "block = bx\ngrid = ceil_div(n, bx) + %d\n",
                i, i == 0 ? "reference = yes\n" : "", i);
    fclose(f);
    snprintf(path, size, "%s/many.cu", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "extern \"C\" __global__ void copy(float *y, const float *x, "
               "int n)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;"
               "\n    if (i < n)\n        y[i] = x[i];\n}\n");
    fclose(f);
    snprintf(path, size, "%s/many.ini", dir);
}

static void declared_variants_answer_from_their_own_data(void **state)
{
    kt_registry reg;
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    char path[512];
    kt_device dev = kt_test_h200();
    const int64_t n = 1024;
    kt_problem prob = {sizeof prob, 1, &n, 1, &dev, NULL};
    kt_shape shape;
    kt_err err;
    (void)state;

    write_declaration(path, sizeof path);
    kt_registry_init(&reg);
    if (kt_registry_load_file(&reg, path, &err) ||
        kt_registry_resolve(&reg, "many", &lp, &op, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(op->num_variants, VARIANTS);
    for (uint32_t i = 0; i < VARIANTS; ++i) {
        kt_point pt;
        kt_point_default(op, i, &pt);
        pt.values[0] = 64;
        assert_int_equal(shape_at(lp, op, &prob, &pt, &shape), KT_OK);
        assert_int_equal(shape.grid[0], 1024 / 64 + i);
        assert_int_equal(shape.block[0], 64);
    }
    kt_registry_free(&reg);
}

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ktune-many-loaded-%ld", (long)getpid());
    return mkdir(dir, 0700);
}

static int remove_dir(void **state)
{
    char cmd[300];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recordings_answer_from_their_own_data),
        cmocka_unit_test(captures_answer_from_their_own_data),
        cmocka_unit_test(declared_variants_answer_from_their_own_data),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
