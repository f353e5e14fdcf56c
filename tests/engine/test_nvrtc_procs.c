// SPDX-License-Identifier: Apache-2.0
/* NVRTC in helper processes (engine/nvrtc_procs.h), with the real NVRTC
 * and no GPU: a helper's compile and front end give what this process's
 * would, byte for byte; a source that does not compile comes back with its
 * log; a helper that dies costs its request, not the caller, and the next
 * request starts another; a compile pool on helpers gives the kernels a
 * pool on threads gives, its CPU time the helpers'. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/compile_pool.h"
#include "engine/nvrtc.h"
#include "engine/nvrtc_code.h"
#include "engine/nvrtc_procs.h"
#include "tests/support/fresh_cache.h"

static const char source[] =
    "template <int N> __global__ void scale(float *y, const float *x)\n"
    "{ y[threadIdx.x] = N * x[threadIdx.x]; }\n";

static kt_nvrtc_procs *open_helpers(int n, const char *path)
{
    kt_nvrtc_procs *p;
    kt_err err;
    if (kt_nvrtc_procs_open(n, path, &p, &err))
        fail_msg("%s", err.msg);
    return p;
}

static void a_helper_compiles_what_this_process_would(void **state)
{
    const char *opts[] = {"-DUNUSED=1"};
    kt_nvrtc_request req = {source, "scale.cu", "scale<3>", "sm_90", opts, 1};
    kt_nvrtc_procs *p = open_helpers(1, KT_NVRTC_HELPER);
    kt_nvrtc_runner run = kt_nvrtc_procs_runner(p);
    kt_nvrtc_output here, there;
    char fp_here[33], fp_there[33];
    double cpu = 0;
    kt_err err;
    (void)state;

    memset(&here, 0, sizeof here);
    memset(&there, 0, sizeof there);
    assert_int_equal(kt_nvrtc_run_here(&req, &here, &err), KT_S_OK);
    assert_int_equal(run.compile(run.ctx, &req, &there, &err), KT_S_OK);
    assert_true(here.compiled);
    assert_true(there.compiled);
    assert_string_equal(there.lowered, here.lowered);
    assert_int_equal(there.image_size, here.image_size);
    assert_memory_equal(there.image, here.image, here.image_size);
    /* The helper's own CPU time, not this thread's (which only waited). */
    assert_true(there.cpu_seconds > 0);
    assert_int_equal(kt_nvrtc_front_end(&req, fp_here, &err), KT_S_OK);
    assert_int_equal(run.front_end(run.ctx, &req, fp_there, &cpu, &err),
                     KT_S_OK);
    assert_int_equal(strlen(fp_here), 32);
    assert_string_equal(fp_there, fp_here);
    assert_true(cpu > 0);
    /* One helper served all three. */
    assert_int_equal(kt_nvrtc_procs_started(p), 1);
    kt_nvrtc_output_free(&here);
    kt_nvrtc_output_free(&there);
    kt_nvrtc_procs_close(p);
}

static void a_source_that_does_not_compile_comes_back_with_its_log(void **state)
{
    kt_nvrtc_request req = {"__global__ void k(int *p) { p[0] = undefined; }",
                            "bad.cu",
                            "k",
                            "sm_90",
                            NULL,
                            0};
    kt_nvrtc_procs *p = open_helpers(1, KT_NVRTC_HELPER);
    kt_nvrtc_runner run = kt_nvrtc_procs_runner(p);
    kt_nvrtc_output out;
    kt_err err;
    (void)state;

    memset(&out, 0, sizeof out);
    assert_int_equal(run.compile(run.ctx, &req, &out, &err), KT_S_OK);
    assert_false(out.compiled);
    assert_null(out.image);
    assert_non_null(strstr(out.log, "undefined"));
    kt_nvrtc_output_free(&out);
    kt_nvrtc_procs_close(p);
}

/* /bin/true stands for a helper that crashes on its request: it ends
 * before it answers. */
static void a_helper_that_dies_costs_its_request_not_the_caller(void **state)
{
    kt_nvrtc_request req = {source, "scale.cu", "scale<3>", "sm_90", NULL, 0};
    kt_nvrtc_procs *p = open_helpers(2, "/bin/true");
    kt_nvrtc_runner run = kt_nvrtc_procs_runner(p);
    kt_nvrtc_output out;
    char fp[33];
    double cpu;
    kt_err err;
    (void)state;

    memset(&out, 0, sizeof out);
    assert_int_equal(run.compile(run.ctx, &req, &out, &err), KT_S_CRASHED);
    assert_non_null(
        strstr(err.msg, "died on this kernel: exited with status 0"));
    kt_nvrtc_output_free(&out);
    assert_int_equal(run.front_end(run.ctx, &req, fp, &cpu, &err),
                     KT_S_CRASHED);
    assert_string_equal(fp, "");
    /* Each request started a helper of its own: the dead are replaced. */
    assert_int_equal(kt_nvrtc_procs_started(p), 2);
    kt_nvrtc_procs_close(p);
}

static void a_missing_helper_is_a_clear_error(void **state)
{
    kt_nvrtc_request req = {source, "scale.cu", "scale<3>", "sm_90", NULL, 0};
    kt_nvrtc_procs *p = open_helpers(1, "/nonexistent/ktune-nvrtc");
    kt_nvrtc_runner run = kt_nvrtc_procs_runner(p);
    kt_nvrtc_output out;
    kt_err err;
    (void)state;

    memset(&out, 0, sizeof out);
    assert_int_not_equal(run.compile(run.ctx, &req, &out, &err), KT_S_OK);
    assert_non_null(strstr(err.msg, "/nonexistent/ktune-nvrtc"));
    kt_nvrtc_output_free(&out);
    kt_nvrtc_procs_close(p);
}

static void
a_pool_on_helpers_gives_the_kernels_of_a_pool_on_threads(void **state)
{
    enum { N = 4 };
    const char *names[N] = {"scale<1>", "scale<2>", "scale<5>", "scale<7>"};
    kt_nvrtc_request reqs[N];
    kt_cpool_options opt = {2, "", NULL, NULL, NULL, NULL};
    kt_cpool_stats st;
    kt_cpool *pool;
    kt_err err;
    double here_cpu = 0;
    (void)state;

    setenv("KTUNE_NVRTC_CACHE", "off", 1);
    for (size_t i = 0; i < N; ++i) {
        kt_nvrtc_request r = {source, "scale.cu", names[i], "sm_90", NULL, 0};
        reqs[i] = r;
    }
    opt.procs = open_helpers(2, KT_NVRTC_HELPER);
    assert_int_equal(kt_cpool_open(&opt, &pool, &err), KT_S_OK);
    kt_cpool_hint(pool, reqs, N);
    for (size_t i = 0; i < N; ++i) {
        kt_nvrtc_output got, want;
        memset(&want, 0, sizeof want);
        assert_int_equal(kt_cpool_compile(pool, &reqs[i], &got, NULL, &err),
                         KT_S_OK);
        assert_int_equal(kt_nvrtc_run_here(&reqs[i], &want, &err), KT_S_OK);
        assert_true(got.compiled);
        assert_string_equal(got.lowered, want.lowered);
        assert_int_equal(got.image_size, want.image_size);
        assert_memory_equal(got.image, want.image, want.image_size);
        here_cpu += want.cpu_seconds;
        kt_nvrtc_output_free(&got);
        kt_nvrtc_output_free(&want);
    }
    kt_cpool_stats_get(pool, &st);
    assert_int_equal(st.compiled, N);
    /* The helpers' CPU, counted: about what the same compiles cost here;
     * the pool's own threads only wait on their sockets. */
    assert_true(here_cpu > 0);
    if (st.cpu_s < 0.3 * here_cpu)
        fail_msg("the pool counted %.3f s of CPU for compiles that cost "
                 "%.3f s here",
                 st.cpu_s, here_cpu);
    kt_cpool_close(pool); /* closes the helpers too */
    unsetenv("KTUNE_NVRTC_CACHE");
}

static void the_helper_run_by_hand_says_what_it_is(void **state)
{
    char cmd[600];
    (void)state;
    snprintf(cmd, sizeof cmd, "'%s' </dev/null >/dev/null 2>&1",
             KT_NVRTC_HELPER);
    assert_int_equal(WEXITSTATUS(system(cmd)), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_helper_compiles_what_this_process_would),
        cmocka_unit_test(
            a_source_that_does_not_compile_comes_back_with_its_log),
        cmocka_unit_test(a_helper_that_dies_costs_its_request_not_the_caller),
        cmocka_unit_test(a_missing_helper_is_a_clear_error),
        cmocka_unit_test(
            a_pool_on_helpers_gives_the_kernels_of_a_pool_on_threads),
        cmocka_unit_test(the_helper_run_by_hand_says_what_it_is),
    };
    return cmocka_run_group_tests(tests, kt_test_use_fresh_cache,
                                  kt_test_remove_cache);
}
