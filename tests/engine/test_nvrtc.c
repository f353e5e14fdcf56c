// SPDX-License-Identifier: Apache-2.0
/* NVRTC needs no GPU: kernels compile here for sm_90, the cache answers
 * the second time, and its key moves with everything that decides the
 * binary. */
#include "tests/kt_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/hash.h"
#include "engine/compile_pool.h"
#include "engine/nvrtc.h"
#include "engine/nvrtc_code.h"
#include "tests/support/fresh_cache.h"

static const char source[] =
    "template <int N> __global__ void scale(float *y, const float *x)\n"
    "{ y[threadIdx.x] = N * x[threadIdx.x]; }\n";

/* b holds a's binary: the same bytes. */
static void same_image(const kt_nvrtc_output *a, const kt_nvrtc_output *b)
{
    assert_int_equal(b->image_size, a->image_size);
    assert_memory_equal(b->image, a->image, a->image_size);
}

static void compiles_for_sm90_without_a_gpu_then_reads_the_cache(void **state)
{
    const char *opts[] = {"-DUNUSED=1"};
    kt_nvrtc_request req = {source, "scale.cu", "scale<3>", "sm_90", opts, 1};
    kt_nvrtc_output a, b;
    kt_nvrtc_stats s0, s1;
    kt_err err;
    (void)state;

    kt_nvrtc_stats_get(&s0);
    assert_int_equal(kt_nvrtc_compile(&req, &a, &err), KT_S_OK);
    assert_true(a.compiled);
    assert_false(a.cached);
    assert_true(a.image_size > 100);
    assert_memory_equal(a.image, "\177ELF", 4); /* a cubin is an ELF file */
    assert_string_equal(a.lowered, "_Z5scaleILi3EEvPfPKf");
    assert_true(a.seconds > 0);
    assert_int_equal(kt_nvrtc_compile(&req, &b, &err), KT_S_OK);
    assert_true(b.compiled);
    assert_true(b.cached);
    assert_true(b.seconds == 0);
    same_image(&a, &b);
    assert_string_equal(b.key, a.key);
    kt_nvrtc_stats_get(&s1);
    assert_int_equal(s1.compiled - s0.compiled, 1);
    assert_int_equal(s1.cache_hits - s0.cache_hits, 1);
    kt_nvrtc_output_free(&a);
    kt_nvrtc_output_free(&b);
}

static void the_key_changes_with_source_options_kernel_and_arch(void **state)
{
    const char *o1[] = {"-DTILE=16"}, *o2[] = {"-DTILE=32"};
    kt_nvrtc_request base = {source, "scale.cu", "scale<3>", "sm_90", o1, 1};
    kt_nvrtc_request r;
    char k0[33], k[33];
    kt_err err;
    (void)state;

    assert_int_equal(kt_nvrtc_key(&base, k0, &err), KT_S_OK);
    assert_int_equal(strlen(k0), 32);
    assert_int_equal(kt_nvrtc_key(&base, k, &err), KT_S_OK);
    assert_string_equal(k, k0); /* deterministic */
    r = base;
    r.source = "template <int N> __global__ void scale(float *y, const float "
               "*x) { y[0] = N; }\n";
    kt_nvrtc_key(&r, k, &err);
    assert_string_not_equal(k, k0);
    r = base;
    r.options = o2;
    kt_nvrtc_key(&r, k, &err);
    assert_string_not_equal(k, k0);
    r = base;
    r.num_options = 0;
    kt_nvrtc_key(&r, k, &err);
    assert_string_not_equal(k, k0);
    r = base;
    r.name_expr = "scale<4>";
    kt_nvrtc_key(&r, k, &err);
    assert_string_not_equal(k, k0);
    r = base;
    r.arch = "sm_80";
    kt_nvrtc_key(&r, k, &err);
    assert_string_not_equal(k, k0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A request for src (k.cu, kernel k, sm_90) whose one option is -I of a
 * new folder, where its headers are written. */
typedef struct header_case {
    char dir[64], opt[80], path[160];
    const char *opts[1];
    kt_nvrtc_request req;
} header_case;

static void header_case_open(header_case *h, const char *src)
{
    snprintf(h->dir, sizeof h->dir, "/tmp/ktune-test-headers-XXXXXX");
    assert_non_null(mkdtemp(h->dir));
    snprintf(h->opt, sizeof h->opt, "-I%s", h->dir);
    h->opts[0] = h->opt;
    h->req = (kt_nvrtc_request){src, "k.cu", "k", "sm_90", h->opts, 1};
}

/* name's path in h's folder (kept in h->path), written with text unless
 * text is NULL. */
static const char *header_file(header_case *h, const char *name,
                               const char *text)
{
    snprintf(h->path, sizeof h->path, "%s/%s", h->dir, name);
    if (text)
        write_file(h->path, text);
    return h->path;
}

static void key_of(const kt_nvrtc_request *req, char key[33])
{
    kt_err err;
    if (kt_nvrtc_key(req, key, &err))
        fail_msg("%s", err.msg);
}

/* A declared kernel's headers decide its binary too: the key names every
 * header the compile reads (quoted from the including file's folder, then
 * -I; <> from -I; nested ones included), by content. Changing a header
 * two includes deep gives a new key (no stale cached binary); the same
 * content again, the same key; a header the source does not reach
 * changes nothing. */
static void the_key_changes_with_the_content_of_included_headers(void **state)
{
    char k0[33], k[33];
    header_case h;
    (void)state;

    header_case_open(&h, "#include \"a.h\"\n  #  include <c.h>\n"
                         "__global__ void k(float *y) { y[0] = A + C; }\n");
    assert_int_equal(mkdir(header_file(&h, "sub", NULL), 0700), 0);
    header_file(&h, "a.h", "#include \"sub/b.h\"\n#define A B\n");
    header_file(&h, "sub/b.h", "#define B 1.0f\n");
    header_file(&h, "c.h", "#define C 2.0f\n");
    header_file(&h, "unused.h", "#define U 1\n");
    key_of(&h.req, k0);
    key_of(&h.req, k);
    assert_string_equal(k, k0); /* unchanged headers: the same key */
    header_file(&h, "unused.h", "#define U 2\n");
    key_of(&h.req, k);
    assert_string_equal(k, k0);
    header_file(&h, "sub/b.h", "#define B 3.0f\n"); /* two includes deep */
    key_of(&h.req, k);
    assert_string_not_equal(k, k0);
    header_file(&h, "sub/b.h",
                "#define B 1.0f\n"); /* the content, not the time */
    key_of(&h.req, k);
    assert_string_equal(k, k0);
    header_file(&h, "c.h", "#define C 4.0f\n"); /* <> through -I */
    key_of(&h.req, k);
    assert_string_not_equal(k, k0);
}

/* path's times set to t, or to `ago` seconds before now when t is NULL;
 * the time set, into *set when given. */
static void age_file(const char *path, long ago, const struct timespec *t,
                     struct timespec *set)
{
    struct timespec ts[2];
    if (t)
        ts[0] = *t;
    else {
        assert_int_equal(clock_gettime(CLOCK_REALTIME, &ts[0]), 0);
        ts[0].tv_sec -= ago;
    }
    ts[1] = ts[0];
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
    if (set)
        *set = ts[0];
}

/* The headers read are kept for the process (engine/nvrtc_headers.c): a
 * header whose file has been still for a while is taken from the memo
 * while its file looks the same (device, inode, size, time), which a
 * rewrite that puts size and time back shows by its stale key; any change
 * that moves the time gives the new content's key. One just rewritten is
 * read every time, so a rewrite within the clock's granularity, even one
 * that puts an old time on the file, still shows. */
static void a_kept_header_is_read_again_once_its_file_changes(void **state)
{
    char k0[33], k[33];
    struct timespec old;
    header_case h;
    const char *path;
    (void)state;

    header_case_open(&h, "#include <h.h>\n"
                         "__global__ void k(float *y) { y[0] = H; }\n");
    path = header_file(&h, "h.h", "#define H 1.0f\n");
    age_file(path, 3600, NULL, &old);
    key_of(&h.req, k0);
    write_file(path, "#define H 5.0f\n");
    age_file(path, 0, &old, NULL); /* looks unchanged: the memo serves */
    key_of(&h.req, k);
    assert_string_equal(k, k0);
    write_file(path, "#define H 2.0f\n"); /* same size, a new time */
    key_of(&h.req, k);
    assert_string_not_equal(k, k0);
    write_file(path, "#define H 1.0f\n");
    age_file(path, 3600, NULL, NULL); /* an old time again: read all the same */
    key_of(&h.req, k);
    assert_string_equal(k, k0);
}

/* Headers that include each other (guarded), just written so that the
 * memo trusts neither: each is read once per key, and the key is stable.
 * Reading one again while the scan still searches its text would free
 * that text under it (AddressSanitizer's pass runs this test). */
static void an_include_cycle_of_new_headers_is_read_once_each(void **state)
{
    char k0[33], k[33];
    header_case h;
    (void)state;

    header_case_open(&h, "#include \"a.h\"\n"
                         "__global__ void k(float *y) { y[0] = A + B; }\n");
    header_file(&h, "a.h", "#pragma once\n#include \"b.h\"\n#define A 1.0f\n");
    header_file(&h, "b.h", "#pragma once\n#include \"a.h\"\n#define B 2.0f\n");
    key_of(&h.req, k0);
    key_of(&h.req, k);
    assert_string_equal(k, k0);
}

/* Cached binaries are found by name: the name is the two FNV-1a passes
 * (bases as pinned in test_hash) over the identity text, so a cache that
 * an earlier build wrote is read again. */
static void the_key_is_fnv1a_of_the_identity_under_two_bases(void **state)
{
    const char *opts[] = {"-DTILE=16"};
    kt_nvrtc_request req = {source, "scale.cu", "scale<3>", "sm_90", opts, 1};
    const char *toolkit = kt_nvrtc_toolkit_option();
    char key[33], want[33], text[2048];
    int major = 0, minor = 0, n;
    kt_err err;
    (void)state;

    assert_int_equal(kt_nvrtc_version(&major, &minor, &err), KT_S_OK);
    n = snprintf(text, sizeof text,
                 "ktune-nvrtc 1\nnvrtc %d.%d\narch sm_90\nname scale<3>\n"
                 "opt -DTILE=16\n%s%s%ssource\n%s",
                 major, minor, toolkit ? "opt " : "", toolkit ? toolkit : "",
                 toolkit ? "\n" : "", source);
    assert_true(n > 0 && (size_t)n < sizeof text);
    snprintf(
        want, sizeof want, "%016llx%016llx",
        (unsigned long long)kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, text, (size_t)n),
        (unsigned long long)kt_hash_fnv1a(UINT64_C(0x84222325cbf29ce4), text,
                                          (size_t)n));
    assert_int_equal(kt_nvrtc_key(&req, key, &err), KT_S_OK);
    assert_string_equal(key, want);
}

static void a_compile_error_keeps_the_log_and_is_cached_too(void **state)
{
    kt_nvrtc_request req = {"__global__ void k(int *p) { p[0] = undefined; }",
                            "bad.cu",
                            "k",
                            "sm_90",
                            NULL,
                            0};
    kt_nvrtc_output a, b;
    char first[512];
    kt_err err;
    (void)state;

    assert_int_equal(kt_nvrtc_compile(&req, &a, &err), KT_S_OK);
    assert_false(a.compiled);
    assert_null(a.image);
    assert_contains(a.log, "undefined");
    kt_nvrtc_first_error(a.log, first, sizeof first);
    assert_contains(first, "bad.cu(1): error");
    assert_int_equal(kt_nvrtc_compile(&req, &b, &err), KT_S_OK);
    assert_false(b.compiled);
    assert_true(b.cached);
    assert_string_equal(b.log, a.log);
    kt_nvrtc_output_free(&a);
    kt_nvrtc_output_free(&b);
}

static void an_unknown_kernel_does_not_compile(void **state)
{
    kt_nvrtc_request req = {source,       "scale.cu", "scael<3>",
                            "compute_80", NULL,       0};
    kt_nvrtc_output out;
    kt_err err;
    (void)state;
    assert_int_equal(kt_nvrtc_compile(&req, &out, &err), KT_S_OK);
    assert_false(out.compiled);
    assert_contains(out.log, "scael");
    kt_nvrtc_output_free(&out);
}

static void ptx_for_a_virtual_architecture(void **state)
{
    kt_nvrtc_request req = {source,       "scale.cu", "scale<2>",
                            "compute_80", NULL,       0};
    kt_nvrtc_output out;
    kt_err err;
    (void)state;
    assert_int_equal(kt_nvrtc_compile(&req, &out, &err), KT_S_OK);
    assert_true(out.compiled);
    assert_non_null(strstr(out.image, ".entry"));
    kt_nvrtc_output_free(&out);
}

/* Hinted kernels compile on the pool's threads; taking them counts each
 * as compiled once by this process, with its CPU time. */
static void pooled_kernels_count_as_compiled_once(void **state)
{
    const char *n[] = {"scale<11>", "scale<12>", "scale<13>"};
    kt_cpool_options opt = {2, "", NULL, NULL};
    kt_nvrtc_request reqs[3];
    kt_nvrtc_stats s0, s1;
    kt_cpool_stats ps;
    kt_cpool *pool;
    kt_err err;
    (void)state;

    for (int i = 0; i < 3; ++i)
        reqs[i] =
            (kt_nvrtc_request){source, "scale.cu", n[i], "sm_90", NULL, 0};
    assert_int_equal(kt_cpool_open(&opt, &pool, &err), KT_S_OK);
    kt_nvrtc_stats_get(&s0);
    assert_int_equal(kt_cpool_hint(pool, reqs, 3), 3);
    assert_int_equal(kt_cpool_hint(pool, reqs, 3), 0); /* known: joined */
    for (int i = 0; i < 3; ++i) {
        kt_nvrtc_output out;
        assert_int_equal(kt_cpool_compile(pool, &reqs[i], &out, NULL, &err),
                         KT_S_OK);
        assert_true(out.compiled);
        assert_false(out.cached); /* compiled by this process */
        assert_non_null(out.image);
        assert_true(out.cpu_seconds > 0);
        kt_nvrtc_output_free(&out);
    }
    kt_nvrtc_stats_get(&s1);
    assert_int_equal(s1.compiled - s0.compiled, 3);
    assert_int_equal(s1.cache_hits - s0.cache_hits, 0);
    assert_true(s1.cpu_seconds > s0.cpu_seconds);
    kt_cpool_stats_get(pool, &ps);
    assert_int_equal(ps.compiled, 3);
    assert_int_equal(ps.threads, 2);
    assert_true(ps.busy_s > 0 && ps.cpu_s > 0);
    kt_cpool_close(pool);
}

static const char tiled[] = "__global__ void k(float *y)\n"
                            "{\n"
                            "#if TILE > 2\n"
                            "    y[threadIdx.x] = 2.0f * y[threadIdx.x];\n"
                            "#else\n"
                            "    y[threadIdx.x] = TILE;\n"
                            "#endif\n"
                            "}\n";

static void prepared(const char *src, const char **opts, size_t n,
                     kt_nvrtc_output *out)
{
    kt_nvrtc_request req = {src, "tiled.cu", "k", "sm_90", opts, n};
    kt_err err;
    if (kt_nvrtc_prepare(&req, out, &err))
        fail_msg("%s", err.msg);
    assert_false(out->cached);
}

/* The code key is what the front end makes of a request: -D values the
 * source never reads (UNUSED), or that select the same code (TILE 3 and 4),
 * give one code key under different cache keys; a value that changes the
 * code, or an option past the front end, gives another. */
static void requests_of_one_front_end_output_share_a_code_key(void **state)
{
    const char *a[] = {"-DTILE=3", "-DUNUSED=1"}, *b[] = {"-DTILE=4", "-UX"},
               *c[] = {"-DTILE=2"}, *d[] = {"-DTILE=3", "-maxrregcount=32"};
    kt_nvrtc_output oa, ob, oc, od;
    (void)state;

    prepared(tiled, a, 2, &oa);
    prepared(tiled, b, 2, &ob);
    prepared(tiled, c, 1, &oc);
    prepared(tiled, d, 2, &od);
    assert_int_equal(strlen(oa.code), 32);
    assert_string_not_equal(oa.key, ob.key);
    assert_string_equal(oa.code, ob.code);
    assert_string_not_equal(oa.code, oc.code);
    assert_string_not_equal(oa.code, od.code);
    assert_true(oa.cpu_seconds > 0); /* the front end ran */
    setenv("KTUNE_NVRTC_SHARE", "off", 1);
    prepared(tiled, a, 2, &oa);
    unsetenv("KTUNE_NVRTC_SHARE");
    assert_string_equal(oa.code, "");
}

/* A second request of one code key is answered from the first's entry
 * (shared, the same image, no compile), then from its own. */
static void a_request_of_a_compiled_code_key_compiles_nothing(void **state)
{
    const char *a[] = {"-DTILE=5"}, *b[] = {"-DTILE=6"};
    kt_nvrtc_request ra = {tiled, "tiled.cu", "k", "sm_90", a, 1};
    kt_nvrtc_request rb = {tiled, "tiled.cu", "k", "sm_90", b, 1};
    kt_nvrtc_output oa, ob, again;
    kt_nvrtc_stats s0, s1;
    kt_err err;
    (void)state;

    kt_nvrtc_stats_get(&s0);
    assert_int_equal(kt_nvrtc_compile(&ra, &oa, &err), KT_S_OK);
    assert_int_equal(kt_nvrtc_compile(&rb, &ob, &err), KT_S_OK);
    assert_true(oa.compiled && ob.compiled);
    assert_false(oa.shared);
    assert_true(ob.shared);
    assert_false(ob.cached);
    same_image(&oa, &ob);
    assert_string_equal(ob.lowered, oa.lowered);
    kt_nvrtc_stats_get(&s1);
    assert_int_equal(s1.compiled - s0.compiled, 1);
    assert_int_equal(s1.shared - s0.shared, 1);
    assert_int_equal(kt_nvrtc_build(&rb, &again, &err), KT_S_OK);
    assert_true(again.cached); /* its own entry now */
    kt_nvrtc_output_free(&oa);
    kt_nvrtc_output_free(&ob);
    kt_nvrtc_output_free(&again);
}

/* The front end runs with -dlto, which defines __CUDACC_RDC__; the real
 * compile does not. A source that reads X only without it must not have
 * X hidden from the code key. */
static void the_front_end_sees_the_macros_the_compile_sees(void **state)
{
    const char *src = "__global__ void k(float *y)\n"
                      "{\n"
                      "#ifndef __CUDACC_RDC__\n"
                      "    y[0] = X;\n"
                      "#endif\n"
                      "}\n";
    const char *a[] = {"-DX=1"}, *b[] = {"-DX=2"};
    kt_nvrtc_output oa, ob;
    (void)state;

    prepared(src, a, 1, &oa);
    prepared(src, b, 1, &ob);
    assert_int_equal(strlen(oa.code), 32);
    assert_string_not_equal(oa.code, ob.code);
}

/* NVRTC 12.9 and later cache compiles in the driver's compute cache
 * behind the caller's back; every compile switches that off, so that a
 * compile with ktune's cache off or fresh is a compile. */
static void every_compile_switches_nvrtcs_own_cache_off(void **state)
{
    kt_nvrtc_request req = {
        "__global__ void k(void) {}\n", "k.cu", "k", "sm_90", NULL, 0};
    int major = 0, minor = 0, n = 0, found = 0;
    char arch[64];
    const char **opts;
    (void)state;

    assert_int_equal(kt_nvrtc_version(&major, &minor, NULL), KT_S_OK);
    if (major * 10 + minor < 129) {
        assert_null(kt_nvrtc_no_cache_option());
        return;
    }
    assert_string_equal(kt_nvrtc_no_cache_option(), "-no-cache");
    opts = kt_nvrtc_options(&req, 0, arch, &n);
    assert_non_null(opts);
    for (int i = 0; i < n; ++i)
        found += strcmp(opts[i], "-no-cache") == 0;
    assert_int_equal(found, 1);
    free(opts);
}

/* Whether this machine's CUDA toolkit ships CUB (CUDA 13: include/cccl). */
static int toolkit_has_cub(void)
{
    return access("/usr/local/cuda/include/cccl/cub/cub.cuh", R_OK) == 0 ||
           access("/usr/local/cuda/include/cub/cub.cuh", R_OK) == 0;
}

/* A kernel includes the toolkit's C++ libraries by angle brackets (CUB's
 * block primitives, which CCCL supports under NVRTC); NVRTC alone does not
 * find them. The toolkit's folder is the last option, after the request's
 * own. */
static void a_kernel_including_cubs_block_reduce_compiles(void **state)
{
    static const char src[] =
        "#include <cub/block/block_reduce.cuh>\n"
        "extern \"C\" __global__ void sum(const double *x, double *y) {\n"
        "    typedef cub::BlockReduce<double, 128> R;\n"
        "    __shared__ typename R::TempStorage t;\n"
        "    double s = R(t).Sum(x[threadIdx.x]);\n"
        "    if (threadIdx.x == 0) *y = s;\n"
        "}\n";
    const char *own[] = {"-DUNUSED=1"};
    kt_nvrtc_request req = {src, "sum.cu", "sum", "sm_90", own, 1};
    kt_nvrtc_output out = {0};
    const char **opts;
    char arch[64];
    int n = 0;
    kt_err err;
    (void)state;

    if (!kt_nvrtc_toolkit_option()) {
        /* Only where no toolkit here ships CUB. */
        assert_false(toolkit_has_cub());
        skip();
    }
    opts = kt_nvrtc_options(&req, 0, arch, &n);
    assert_non_null(opts);
    assert_string_equal(opts[n - 1], kt_nvrtc_toolkit_option());
    assert_string_equal(opts[n - 2], "-DUNUSED=1");
    free(opts);
    assert_int_equal(kt_nvrtc_run_here(&req, &out, &err), KT_S_OK);
    if (!out.compiled)
        print_message("%s\n", out.log);
    assert_true(out.compiled);
    assert_true(out.image_size > 0);
    kt_nvrtc_output_free(&out);
}

/* <cub/cub.cuh> holds host code, which NVRTC refuses ("not allowed in
 * JIT mode", from deep inside Thrust): the one-line message says what to
 * include instead. */
static void including_all_of_cub_says_to_include_its_block_headers(void **state)
{
    static const char src[] = "#include <cub/cub.cuh>\n"
                              "extern \"C\" __global__ void k(int *x) {}\n";
    kt_nvrtc_request req = {src, "k.cu", "k", "sm_90", NULL, 0};
    kt_nvrtc_output out = {0};
    char first[600];
    kt_err err;
    (void)state;

    if (!kt_nvrtc_toolkit_option()) {
        assert_false(toolkit_has_cub());
        skip();
    }
    assert_int_equal(kt_nvrtc_run_here(&req, &out, &err), KT_S_OK);
    assert_false(out.compiled);
    kt_nvrtc_first_error(out.log, first, sizeof first);
    assert_non_null(strstr(first, "not allowed in JIT mode"));
    assert_non_null(strstr(first, "<cub/block/block_reduce.cuh>"));
    kt_nvrtc_output_free(&out);
    /* Host code of the source's own keeps NVRTC's advice alone. */
    kt_nvrtc_first_error("k.cu(1): error: A function without execution space "
                         "annotations (__host__/__device__/__global__) is "
                         "considered a host function, and host functions are "
                         "not allowed in JIT mode. Consider using "
                         "-default-device flag\n",
                         first, sizeof first);
    assert_null(strstr(first, "cub"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compiles_for_sm90_without_a_gpu_then_reads_the_cache),
        cmocka_unit_test(the_key_changes_with_source_options_kernel_and_arch),
        cmocka_unit_test(the_key_changes_with_the_content_of_included_headers),
        cmocka_unit_test(a_kept_header_is_read_again_once_its_file_changes),
        cmocka_unit_test(an_include_cycle_of_new_headers_is_read_once_each),
        cmocka_unit_test(the_key_is_fnv1a_of_the_identity_under_two_bases),
        cmocka_unit_test(a_compile_error_keeps_the_log_and_is_cached_too),
        cmocka_unit_test(an_unknown_kernel_does_not_compile),
        cmocka_unit_test(ptx_for_a_virtual_architecture),
        cmocka_unit_test(pooled_kernels_count_as_compiled_once),
        cmocka_unit_test(requests_of_one_front_end_output_share_a_code_key),
        cmocka_unit_test(a_request_of_a_compiled_code_key_compiles_nothing),
        cmocka_unit_test(the_front_end_sees_the_macros_the_compile_sees),
        cmocka_unit_test(every_compile_switches_nvrtcs_own_cache_off),
        cmocka_unit_test(a_kernel_including_cubs_block_reduce_compiles),
        cmocka_unit_test(
            including_all_of_cub_says_to_include_its_block_headers),
    };
    return cmocka_run_group_tests(tests, kt_test_use_fresh_cache,
                                  kt_test_remove_cache);
}
