// SPDX-License-Identifier: Apache-2.0
/* libktune-select's run-time compile path (ktune/select_jit.h) against a
 * fake NVRTC (fake_nvrtc.c): the wisdom entry's parameters reach the
 * compiler as defines and the name expression, the image is cached on disk
 * and read back without a compile, a damaged cache file is compiled again,
 * a compile error comes back with its log, and without NVRTC the library
 * says so (the precompiled path stays usable). */
#include "tests/kt_test.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktune/select.h"
#include "ktune/select_jit.h"

static const char wisdom[] =
    "{\"ktune_wisdom\":1,\"entries\":1}\n"
    "{\"operator\":\"app:saxpy\",\"device\":\"NVIDIA H200\",\"cc\":\"9.0\","
    "\"sizes\":{\"n\":1048576},\"variant\":\"vec\",\"params\":{\"block\":"
    "512,\"items\":4},\"time_us\":5.0}\n";

static const char source[] = "template <int I> __global__ void saxpy() {}\n";

typedef struct fixture {
    kt_select_wisdom *w;
    kt_select_config c;
    kt_select_jit *j;
    char cache[64];
} fixture;

static int *compiles(void)
{
    void *lib = dlopen(KT_FAKE_NVRTC, RTLD_NOW | RTLD_NOLOAD);
    int *n = lib ? dlsym(lib, "fake_nvrtc_compiles") : NULL;
    assert_non_null(n);
    dlclose(lib);
    return n;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    kt_select_jit_options o = {0};
    kt_select_error e;
    int64_t n = 1048576;
    snprintf(f->cache, sizeof f->cache, "/tmp/kt-jit-XXXXXX");
    assert_non_null(mkdtemp(f->cache));
    assert_int_equal(
        kt_select_open_buffer(wisdom, sizeof wisdom - 1, "w", &f->w, &e),
        KT_SELECT_OK);
    assert_int_equal(kt_select(f->w, "app:saxpy", "NVIDIA H200", &n, 1, &f->c),
                     KT_SELECT_OK);
    o.cache_dir = f->cache;
    o.nvrtc = KT_FAKE_NVRTC;
    assert_int_equal(kt_select_jit_open(&o, &f->j, &e), KT_SELECT_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[128];
    kt_select_jit_close(f->j);
    kt_select_close(f->w);
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->cache);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

static char *text_of(const kt_select_image *img)
{
    char *t = calloc(1, img->size + 1);
    memcpy(t, img->data, img->size);
    return t;
}

static void entry_parameters_become_defines_and_name(void **state)
{
    fixture *f = *state;
    kt_select_image img;
    kt_select_error e;
    char *t;
    assert_int_equal(kt_select_jit_compile(f->j, source, "saxpy.cu",
                                           "saxpy<{items}>", &f->c, 9, 0, &img,
                                           &e),
                     KT_SELECT_OK);
    t = text_of(&img);
    assert_contains(t, "-arch=sm_90");
    assert_contains(t, "-Dblock=512");
    assert_contains(t, "-Ditems=4");
    assert_contains(t, "-DKTUNE_VARIANT_vec=1");
    assert_contains(t, "saxpy<4>");
    assert_string_equal(img.lowered_name, "_Z6loweredv");
    assert_int_equal(img.from_cache, 0);
    free(t);
    kt_select_image_free(&img);
}

static void second_compile_comes_from_the_disk_cache(void **state)
{
    fixture *f = *state;
    kt_select_image a, b;
    kt_select_error e;
    int before;
    assert_int_equal(kt_select_jit_compile(f->j, source, "saxpy.cu",
                                           "saxpy<{items}>", &f->c, 9, 0, &a,
                                           &e),
                     KT_SELECT_OK);
    before = *compiles();
    assert_int_equal(kt_select_jit_compile(f->j, source, "saxpy.cu",
                                           "saxpy<{items}>", &f->c, 9, 0, &b,
                                           &e),
                     KT_SELECT_OK);
    assert_int_equal(*compiles(), before);
    assert_int_equal(b.from_cache, 1);
    assert_int_equal(b.size, a.size);
    assert_memory_equal(b.data, a.data, a.size);
    assert_string_equal(b.lowered_name, a.lowered_name);
    assert_int_equal(access(b.cache_file, R_OK), 0);
    /* Another architecture is another image. */
    kt_select_image_free(&b);
    assert_int_equal(kt_select_jit_compile(f->j, source, "saxpy.cu",
                                           "saxpy<{items}>", &f->c, 8, 0, &b,
                                           &e),
                     KT_SELECT_OK);
    assert_int_equal(b.from_cache, 0);
    assert_int_equal(*compiles(), before + 1);
    kt_select_image_free(&a);
    kt_select_image_free(&b);
}

static void a_damaged_cache_file_is_compiled_again(void **state)
{
    fixture *f = *state;
    kt_select_image a, b;
    kt_select_error e;
    FILE *fp;
    int before;
    assert_int_equal(kt_select_jit_compile(f->j, source, "s.cu", "saxpy<1>",
                                           NULL, 9, 0, &a, &e),
                     KT_SELECT_OK);
    fp = fopen(a.cache_file, "r+");
    assert_non_null(fp);
    assert_int_equal(ftruncate(fileno(fp), 20), 0);
    fclose(fp);
    before = *compiles();
    assert_int_equal(kt_select_jit_compile(f->j, source, "s.cu", "saxpy<1>",
                                           NULL, 9, 0, &b, &e),
                     KT_SELECT_OK);
    assert_int_equal(b.from_cache, 0);
    assert_int_equal(*compiles(), before + 1);
    assert_memory_equal(b.data, a.data, a.size);
    kt_select_image_free(&a);
    kt_select_image_free(&b);
}

/* Issue 53, N17/N18 in libktune-select's cache: an image others may
 * write, or one reached through a link, is never loaded; the write goes
 * through an exclusive temporary file, so a link planted at the name an
 * older library used (FILE.PID.tmp) leaves its target as it was. */
static void a_planted_cache_file_is_never_loaded(void **state)
{
    fixture *f = *state;
    kt_select_image a, b;
    kt_select_error e;
    char tmp[4300], victim[128], got[16] = "";
    FILE *fp;
    int before;
    assert_int_equal(kt_select_jit_compile(f->j, source, "s.cu", "saxpy<2>",
                                           NULL, 9, 0, &a, &e),
                     KT_SELECT_OK);
    assert_int_equal(chmod(a.cache_file, 0666), 0);
    before = *compiles();
    assert_int_equal(kt_select_jit_compile(f->j, source, "s.cu", "saxpy<2>",
                                           NULL, 9, 0, &b, &e),
                     KT_SELECT_OK);
    assert_int_equal(b.from_cache, 0);
    assert_int_equal(*compiles(), before + 1);
    kt_select_image_free(&b);
    snprintf(victim, sizeof victim, "%s/victim", f->cache);
    fp = fopen(victim, "w");
    assert_non_null(fp);
    fputs("precious", fp);
    fclose(fp);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", a.cache_file, (long)getpid());
    assert_int_equal(unlink(a.cache_file), 0);
    assert_int_equal(symlink(victim, tmp), 0);
    assert_int_equal(kt_select_jit_compile(f->j, source, "s.cu", "saxpy<2>",
                                           NULL, 9, 0, &b, &e),
                     KT_SELECT_OK);
    fp = fopen(victim, "r");
    assert_non_null(fp);
    assert_non_null(fgets(got, sizeof got, fp));
    fclose(fp);
    assert_string_equal(got, "precious");
    kt_select_image_free(&b);
    /* the image itself a link to a good one: not followed */
    assert_int_equal(kt_select_jit_compile(f->j, source, "s.cu", "saxpy<2>",
                                           NULL, 9, 0, &b, &e),
                     KT_SELECT_OK);
    assert_int_equal(rename(b.cache_file, victim), 0);
    assert_int_equal(symlink(victim, b.cache_file), 0);
    kt_select_image_free(&b);
    assert_int_equal(kt_select_jit_compile(f->j, source, "s.cu", "saxpy<2>",
                                           NULL, 9, 0, &b, &e),
                     KT_SELECT_OK);
    assert_int_equal(b.from_cache, 0);
    kt_select_image_free(&a);
    kt_select_image_free(&b);
}

static void compile_errors_and_bad_names_are_reported(void **state)
{
    fixture *f = *state;
    kt_select_image img;
    kt_select_error e;
    assert_int_equal(kt_select_jit_compile(f->j, "#error no\n", "bad.cu", "k",
                                           &f->c, 9, 0, &img, &e),
                     KT_SELECT_ECOMPILE);
    assert_contains(e.msg, "bad.cu does not compile");
    assert_contains(e.msg, "the source said #error");
    assert_null(img.data);
    assert_int_equal(kt_select_jit_compile(f->j, source, "s.cu",
                                           "saxpy<{tile}>", &f->c, 9, 0, &img,
                                           &e),
                     KT_SELECT_EARG);
    assert_contains(e.msg, "{tile} is not a parameter");
    assert_int_equal(kt_select_jit_compile(f->j, "missing_kernel", "s.cu", "k",
                                           NULL, 9, 0, &img, &e),
                     KT_SELECT_ECOMPILE);
    assert_contains(e.msg, "no such kernel");
    assert_int_equal(
        kt_select_jit_compile(NULL, source, "s.cu", "k", NULL, 9, 0, &img, &e),
        KT_SELECT_EARG);
}

static void without_nvrtc_the_library_says_so(void **state)
{
    kt_select_jit_options o = {.nvrtc = "/nonexistent/libnvrtc.so"};
    kt_select_jit *j = (kt_select_jit *)1;
    kt_select_error e;
    (void)state;
    assert_int_equal(kt_select_jit_open(&o, &j, &e), KT_SELECT_ENOJIT);
    assert_null(j);
    assert_contains(e.msg, "NVRTC cannot be loaded");
    assert_contains(kt_select_strerror(KT_SELECT_ENOJIT), "no NVRTC");
    /* Not NVRTC at all: a library without its entry points. */
    o.nvrtc = "libm.so.6";
    assert_int_equal(kt_select_jit_open(&o, &j, &e), KT_SELECT_ENOJIT);
    assert_contains(e.msg, "has no nvrtc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            entry_parameters_become_defines_and_name, setup, teardown),
        cmocka_unit_test_setup_teardown(
            second_compile_comes_from_the_disk_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(a_planted_cache_file_is_never_loaded,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_damaged_cache_file_is_compiled_again,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            compile_errors_and_bad_names_are_reported, setup, teardown),
        cmocka_unit_test(without_nvrtc_the_library_says_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
