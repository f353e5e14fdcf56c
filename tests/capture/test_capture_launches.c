// SPDX-License-Identifier: Apache-2.0
/* The launch callbacks the capturer listens to (capture/trace/launches.h)
 * and what it reads from each one's parameters. CUPTI reports a call only
 * in the layer it was made in, so a runtime program's launches (<<< >>>:
 * __cudaLaunchKernel from CUDA 13 on, cudaLaunchKernel before) never
 * reach a driver-API callback: without the runtime ids the capturer sees
 * none of them (the H200 run of 2026-12-02 matched no launch). */
#include "tests/kt_test.h"

#include "capture/trace/launches.h"

static int listens(CUpti_CallbackDomain dom, CUpti_CallbackId id)
{
    for (size_t i = 0; i < kt_cap_num_callbacks; ++i)
        if (kt_cap_callbacks[i].domain == dom && kt_cap_callbacks[i].id == id)
            return 1;
    return 0;
}

static void runtime_and_driver_launches_are_both_enabled(void **state)
{
    (void)state;
#if CUDA_VERSION >= 13000
    assert_true(listens(CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000));
    assert_true(
        listens(CUPTI_CB_DOMAIN_RUNTIME_API,
                CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000));
#endif
    assert_true(listens(CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
    assert_true(listens(CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060));
    assert_true(listens(CUPTI_CB_DOMAIN_RUNTIME_API,
                        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000));
    assert_true(listens(CUPTI_CB_DOMAIN_DRIVER_API,
                        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    assert_true(listens(CUPTI_CB_DOMAIN_DRIVER_API,
                        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
}

static void a_runtime_launch_gives_its_geometry_and_arguments(void **state)
{
    void *args[2] = {(void *)0x10, (void *)0x20};
    cudaLaunchKernel_v7000_params p = {
        (const void *)0x1234, {64, 2, 1}, {256, 1, 1}, args, 512, NULL};
    kt_cap_launch li;
    (void)state;
    assert_int_equal(
        kt_cap_launch_of(CUPTI_CB_DOMAIN_RUNTIME_API,
                         CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &p,
                         &li),
        1);
    assert_true(li.runtime);
    assert_ptr_equal(li.stub, (const void *)0x1234);
    assert_null(li.f);
    assert_int_equal(li.grid[0], 64);
    assert_int_equal(li.grid[1], 2);
    assert_int_equal(li.block[0], 256);
    assert_int_equal(li.smem, 512);
    assert_ptr_equal(li.params, args);
    assert_null(li.stream);
    assert_null(li.refused);
    /* the per-thread default stream */
    assert_int_equal(
        kt_cap_launch_of(CUPTI_CB_DOMAIN_RUNTIME_API,
                         CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                         &p, &li),
        1);
    assert_ptr_equal(li.stream, CU_STREAM_PER_THREAD);
#if CUDA_VERSION >= 13000
    /* <<< >>> in CUDA 13: a kernel handle where the stub was */
    assert_int_equal(
        kt_cap_launch_of(CUPTI_CB_DOMAIN_RUNTIME_API,
                         CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &p,
                         &li),
        1);
    assert_ptr_equal(li.kernel, (CUkernel)0x1234);
    assert_null(li.stub);
    assert_int_equal(li.block[0], 256);
#endif
}

static void runtime_ex_cooperative_and_graph_launches_are_refused(void **state)
{
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t c = {{8, 1, 1}, {128, 1, 1}, 0, NULL, &attr, 1};
    cudaLaunchKernelExC_v11060_params p = {&c, (const void *)0x1, NULL};
    cudaGraphLaunch_v10000_params g = {NULL, NULL};
    kt_cap_launch li;
    (void)state;
    memset(&attr, 0, sizeof attr);
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    assert_int_equal(
        kt_cap_launch_of(CUPTI_CB_DOMAIN_RUNTIME_API,
                         CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                         &p, &li),
        1);
    assert_int_equal(li.grid[0], 8);
    assert_int_equal(li.block[0], 128);
    assert_non_null(li.refused);
    assert_contains(li.refused, "cooperative");
    assert_int_equal(
        kt_cap_launch_of(CUPTI_CB_DOMAIN_RUNTIME_API,
                         CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, &g,
                         &li),
        1);
    assert_true(li.graph);
    /* not a launch */
    assert_int_equal(kt_cap_launch_of(CUPTI_CB_DOMAIN_RUNTIME_API,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
                                      &g, &li),
                     0);
}

static void a_driver_launch_gives_its_function(void **state)
{
    void *args[1] = {(void *)0x10};
    cuLaunchKernel_params p = {
        (CUfunction)0x99, 4, 1, 1, 32, 1, 1, 0, NULL, args, NULL};
    kt_cap_launch li;
    (void)state;
    assert_int_equal(kt_cap_launch_of(CUPTI_CB_DOMAIN_DRIVER_API,
                                      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                      &p, &li),
                     1);
    assert_false(li.runtime);
    assert_ptr_equal(li.f, (CUfunction)0x99);
    assert_int_equal(li.grid[0], 4);
    assert_int_equal(li.block[0], 32);
    assert_ptr_equal(li.params, args);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runtime_and_driver_launches_are_both_enabled),
        cmocka_unit_test(a_runtime_launch_gives_its_geometry_and_arguments),
        cmocka_unit_test(runtime_ex_cooperative_and_graph_launches_are_refused),
        cmocka_unit_test(a_driver_launch_gives_its_function),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
