// SPDX-License-Identifier: Apache-2.0
/* What declared inputs hold and what a point's work is, without a GPU:
 * each distribution from a seeded uniform source (a fake kt_host), the
 * .npy reader (dtype, count, data), f16 rounding, saturating integer
 * stores, and the per-configuration work (ABI 1.2 kt_variant.work) of
 * tests/declared/features, whose flops grow with its `steps`. */
#include "tests/kt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/loader.h"
#include "engine/declared_run.h"

/* A deterministic uniform source standing in for the host's. */
static void fake_random(const kt_host *h, uint64_t stream, float *dst, size_t n,
                        float lo, float hi)
{
    uint64_t x = 88172645463325252ull ^ (stream * 0x9e3779b97f4a7c15ull);
    (void)h;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        dst[i] = lo + (hi - lo) * (float)((x >> 40) * (1.0 / 16777216.0));
    }
}

static kt_host fake_host(void)
{
    kt_host h;
    memset(&h, 0, sizeof h);
    h.struct_size = sizeof h;
    h.random_f32 = fake_random;
    return h;
}

static void fill(const char *text, kt_decl_type t, void *dst, size_t n)
{
    kt_decl_fill f;
    kt_host h = fake_host();
    kt_err err;
    if (kt_decl_fill_parse(text, t, KT_SOURCE_DIR "/tests/declared/features",
                           &f, &err) ||
        kt_decl_fill_host(&f, t, &h, 3, dst, n, &err))
        fail_msg("%s: %s", text, err.msg);
}

static void uniform_stays_in_its_range_and_spreads(void **s)
{
    enum { N = 100000 };
    float *x = malloc(N * sizeof *x);
    double lo = 1e9, hi = -1e9;
    (void)s;
    fill("uniform(2, 5)", KT_DECL_F32, x, N);
    for (size_t i = 0; i < N; ++i) {
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    assert_true(lo >= 2 && lo < 2.01);
    assert_true(hi < 5 && hi > 4.99);
    free(x);
}

static void normal_has_its_mean_and_sigma(void **s)
{
    enum { N = 200000 };
    double *x = malloc(N * sizeof *x), sum = 0, sq = 0;
    (void)s;
    fill("normal(3, 0.5)", KT_DECL_F64, x, N);
    for (size_t i = 0; i < N; ++i) {
        sum += x[i];
        sq += x[i] * x[i];
    }
    sum /= N;
    assert_true(fabs(sum - 3) < 0.01);
    assert_true(fabs(sqrt(sq / N - sum * sum) - 0.5) < 0.01);
    free(x);
}

static void integers_hit_every_value_of_the_range_and_no_other(void **s)
{
    enum { N = 100000 };
    uint8_t *x = malloc(N);
    int seen[256] = {0}, count = 0;
    (void)s;
    fill("integers(0, 256)", KT_DECL_U8, x, N);
    for (size_t i = 0; i < N; ++i)
        count += seen[x[i]]++ == 0;
    assert_int_equal(count, 256);
    fill("integers(-3, 4)", KT_DECL_I16, x, N / 2);
    for (size_t i = 0; i < N / 2; ++i)
        assert_true(((int16_t *)x)[i] >= -3 && ((int16_t *)x)[i] < 4);
    free(x);
}

static void constant_and_arange_are_exact(void **s)
{
    int32_t a[5];
    uint16_t h[3];
    (void)s;
    fill("arange(10, -3)", KT_DECL_I32, a, 5);
    assert_int_equal(a[4], -2);
    fill("arange", KT_DECL_I32, a, 5);
    assert_int_equal(a[3], 3);
    fill("constant(1.5)", KT_DECL_F16, h, 3);
    assert_int_equal(h[2], 0x3e00);
}

static void the_same_seed_gives_the_same_bytes(void **s)
{
    float a[64], b[64];
    (void)s;
    fill("normal(0, 1)", KT_DECL_F32, a, 64);
    fill("normal(0, 1)", KT_DECL_F32, b, 64);
    assert_memory_equal(a, b, sizeof a);
}

static void f16_rounds_to_nearest_even_and_back(void **s)
{
    (void)s;
    assert_int_equal(kt_decl_f16_from(1.0), 0x3c00);
    assert_int_equal(kt_decl_f16_from(-2.0), 0xc000);
    assert_int_equal(kt_decl_f16_from(65504.0), 0x7bff);
    assert_int_equal(kt_decl_f16_from(1e6), 0x7c00); /* overflow: inf */
    assert_int_equal(kt_decl_f16_from(1.0 + 1.0 / 2048), 0x3c00); /* tie */
    assert_int_equal(kt_decl_f16_from(5.960464477539063e-08), 0x0001);
    assert_true(kt_decl_f16_to(0x3555) > 0.333 &&
                kt_decl_f16_to(0x3555) < 0.3334);
    assert_true(kt_decl_f16_to(0x0001) == 5.960464477539063e-08);
}

static void integer_stores_saturate(void **s)
{
    uint8_t u[2];
    int8_t i[2];
    (void)s;
    kt_decl_store(u, KT_DECL_U8, 0, -5);
    kt_decl_store(u, KT_DECL_U8, 1, 300);
    kt_decl_store(i, KT_DECL_I8, 0, -1.5);
    kt_decl_store(i, KT_DECL_I8, 1, 127.9);
    assert_int_equal(u[0], 0);
    assert_int_equal(u[1], 255);
    assert_int_equal(i[0], -2);
    assert_int_equal(i[1], 127);
}

static void npy_files_are_read_with_dtype_and_count_checked(void **s)
{
    const char *path = KT_SOURCE_DIR "/tests/declared/features/weights.npy";
    size_t n = 0;
    long offset = 0;
    float w[16];
    kt_err err;
    (void)s;
    assert_int_equal(kt_decl_npy_header(path, KT_DECL_F32, &n, &offset, &err),
                     KT_S_OK);
    assert_int_equal(n, 16);
    assert_int_equal(offset, 128);
    fill("from weights.npy", KT_DECL_F32, w, 16);
    assert_true(w[0] == 0.125f && w[15] == 2.0f);
    assert_int_equal(kt_decl_npy_header(path, KT_DECL_I32, &n, &offset, &err),
                     KT_S_INPUT);
    assert_non_null(strstr(err.msg, "holds dtype '<f4'"));
}

/* The mapped read (what the worker uploads from, with no host copy):
 * the same elements, and the same refusal of a wrong count. */
static void npy_files_are_mapped_with_count_checked(void **s)
{
    kt_decl_fill f = {.kind = KT_FILL_NPY};
    const void *data = NULL;
    void *map = NULL;
    size_t len = 0;
    kt_err err;
    (void)s;
    snprintf(f.path, sizeof f.path, "%s",
             KT_SOURCE_DIR "/tests/declared/features/weights.npy");
    assert_int_equal(
        kt_decl_npy_map(&f, KT_DECL_F32, 16, &data, &map, &len, &err), KT_S_OK);
    assert_true(((const float *)data)[0] == 0.125f &&
                ((const float *)data)[15] == 2.0f);
    assert_int_equal(len, 128 + 16 * sizeof(float));
    kt_decl_npy_unmap(map, len);
    assert_int_equal(
        kt_decl_npy_map(&f, KT_DECL_F32, 15, &data, &map, &len, &err),
        KT_S_INPUT);
    assert_null(map);
    assert_non_null(strstr(err.msg, "holds 16 elements; the buffer has 15"));
}

/* A version 1 .npy of float32 with this order and shape and data_bytes of
 * data (zeros) at path. */
static void write_npy(const char *path, const char *order, const char *shape,
                      size_t data_bytes)
{
    char hdr[128];
    FILE *f = fopen(path, "wb");
    int n = snprintf(hdr, sizeof hdr,
                     "{'descr': '<f4', 'fortran_order': %s, 'shape': %s, }",
                     order, shape);
    assert_non_null(f);
    memset(hdr + n, ' ', sizeof hdr - 10 - (size_t)n);
    hdr[sizeof hdr - 11] = '\n';
    fwrite("\x93NUMPY\x01\x00\x76\x00", 1, 10, f);
    fwrite(hdr, 1, sizeof hdr - 10, f);
    for (size_t i = 0; i < data_bytes; ++i)
        fputc(0, f);
    fclose(f);
}

/* Issue 53, N21 and N25: a FIFO or a device named as an input blocked or
 * spun; fortran_order True reached the kernel transposed; a shape whose
 * product wraps was taken for the count it wraps to; a file cut short or
 * holding its header alone passed. Each is refused by name. */
static void hostile_npy_files_are_refused_by_name(void **s)
{
    static const struct {
        const char *order, *shape;
        size_t bytes;
        const char *want; /* NULL: accepted */
    } cases[] = {
        {"False", "(4, 4)", 64, NULL},
        {"True", "(16,)", 64, NULL},
        {"True", "(1, 16)", 64, NULL},
        {"True", "(4, 4)", 64, "fortran_order True (column-major)"},
        {"False", "(4, 4)", 0, "cut short"},
        {"False", "(4, 4)", 10, "cut short"},
        {"False", "(4, 4)", 80, "needs 192"},
        {"False", "(4611686018427387908, 4)", 64, "product fits 64 bits"},
        {"False", "(4, x)", 64, "not a list of sizes"},
        {"maybe", "(16,)", 64, "expected True or False"},
    };
    char path[] = "/tmp/ktune-npy-XXXXXX", fifo[64];
    size_t n = 0;
    long offset = 0;
    kt_err err;
    int fd = mkstemp(path);
    (void)s;
    assert_true(fd >= 0);
    close(fd);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        kt_status rc;
        write_npy(path, cases[k].order, cases[k].shape, cases[k].bytes);
        rc = kt_decl_npy_header(path, KT_DECL_F32, &n, &offset, &err);
        if (!cases[k].want && rc)
            fail_msg("case %zu refused: %s", k, err.msg);
        if (cases[k].want &&
            (rc != KT_S_INPUT || !strstr(err.msg, cases[k].want)))
            fail_msg("case %zu: '%s' lacks '%s'", k, rc ? err.msg : "accepted",
                     cases[k].want);
    }
    unlink(path);
    snprintf(fifo, sizeof fifo, "%s.fifo", path);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(20); /* an older ktune blocked here */
    assert_int_equal(kt_decl_npy_header(fifo, KT_DECL_F32, &n, &offset, &err),
                     KT_S_INPUT);
    alarm(0);
    assert_non_null(strstr(err.msg, "FIFO"));
    unlink(fifo);
    assert_int_equal(
        kt_decl_npy_header("/dev/zero", KT_DECL_F32, &n, &offset, &err),
        KT_S_INPUT);
    assert_non_null(strstr(err.msg, "character device"));
}

static void a_parameter_that_changes_the_work_reaches_each_point(void **s)
{
    kt_registry reg;
    const kt_loaded_plugin *lp;
    int rc = KT_FAIL;
    const kt_operator *op;
    const kt_variant *v;
    int64_t sizes[2] = {4096, 16}, vals[3] = {3, 2, 64};
    const char *names[3] = {"steps", "vec", "block"};
    kt_problem p = {sizeof p, 2, sizes, 1, NULL};
    kt_config c = {sizeof c, 3, vals, names};
    kt_work w = {sizeof w, 0, 0, 0, 0};
    kt_err err;
    (void)s;
    kt_registry_init(&reg);
    if (kt_registry_load_file(
            &reg, KT_SOURCE_DIR "/tests/declared/features/features.ini",
            &err) ||
        kt_registry_resolve(&reg, "features", &lp, &op, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(op->sizes[1].min, 16);
    assert_int_equal(op->sizes[1].max, 16);
    assert_true(op->flags & KT_OP_MODIFIES_INPUTS); /* the in-out buffer */
    v = &op->variants[1];
    assert_string_equal(v->id, "vec");
    assert_non_null(v->work);
    assert_true(kt_call_work_of(lp, op, 1, &p, &c, &w));
    assert_true(w.flops == 6.0 * 4096 * 3);
    /* x, bytes, w, r read; c read and written; y written. */
    assert_true(w.bytes_read == 4096 * 4 + 4096 + 16 * 4 + 4096 * 4 + 4096 * 4);
    assert_true(w.bytes_written == 4096 * 4 * 2);
    /* The operator's own work: the reference at its defaults (steps 1). */
    assert_int_equal(kt_call_work(lp, op, &p, &w, &rc, NULL), KT_S_OK);
    assert_int_equal(rc, KT_OK);
    assert_true(w.flops == 6.0 * 4096);
    kt_registry_free(&reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uniform_stays_in_its_range_and_spreads),
        cmocka_unit_test(normal_has_its_mean_and_sigma),
        cmocka_unit_test(integers_hit_every_value_of_the_range_and_no_other),
        cmocka_unit_test(constant_and_arange_are_exact),
        cmocka_unit_test(the_same_seed_gives_the_same_bytes),
        cmocka_unit_test(f16_rounds_to_nearest_even_and_back),
        cmocka_unit_test(integer_stores_saturate),
        cmocka_unit_test(npy_files_are_read_with_dtype_and_count_checked),
        cmocka_unit_test(npy_files_are_mapped_with_count_checked),
        cmocka_unit_test(hostile_npy_files_are_refused_by_name),
        cmocka_unit_test(a_parameter_that_changes_the_work_reaches_each_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
