// SPDX-License-Identifier: Apache-2.0
/*
 * kt_fake_capture_prog: the capture library's own code (capturer.c,
 * compiled in) driven without a GPU, as a program `ktune capture` runs.
 * A stand-in CUPTI hands its callback what the real one would for a CUDA
 * 13 program (capture_prog.cu's kernels) and a CuPy one, and a stand-in
 * driver keeps "device" memory in host buffers:
 *   1. scale_add through <<< >>> (runtime __cudaLaunchKernel, a kernel
 *      handle), its module loaded before;
 *   2. bump the same way, its module loaded lazily: cuKernelGetFunction
 *      loads it, and the module callback comes in nested;
 *   3. scale_add through cudaLaunchKernel and its host stub in a program
 *      with a static runtime (no cudaGetFuncBySymbol to ask): the handle
 *      comes from the library's own load of the module image, whose load
 *      callback is not kept; a driver launch callback inside it (the
 *      runtime's own driver call, were CUPTI to report it) is not counted;
 *   4. saxpy through the driver's cuLaunchKernel (CuPy's RawKernel);
 *   5. a kernel --kernel does not match, then a graph launch;
 *   6. scale_add with CUPTI naming another kernel (parameters misread);
 *   7. a host stub the program's runtime refuses (a stand-in shared
 *      runtime, exported): the program's last error is left as it was.
 * Each "kernel" changes its output between the enter and exit callbacks.
 * tests/capture/test_fake_capture.sh checks what ktune makes of it.
 */
#include "capture/trace/capturer.c"

/* ---- stand-in device memory -------------------------------------------- */

#define N_ELEMS 1024
static float mem_a[N_ELEMS], mem_b[N_ELEMS], mem_c[N_ELEMS], mem_x[N_ELEMS];

typedef struct fake_alloc {
    void *p;
    size_t bytes;
} fake_alloc;
static const fake_alloc allocs[] = {{mem_a, sizeof mem_a},
                                    {mem_b, sizeof mem_b},
                                    {mem_c, sizeof mem_c},
                                    {mem_x, sizeof mem_x}};

CUresult cuMemGetAddressRange(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
    for (size_t i = 0; i < sizeof allocs / sizeof allocs[0]; ++i) {
        uintptr_t b = (uintptr_t)allocs[i].p;
        if (p >= b && p < b + allocs[i].bytes) {
            *base = b;
            *size = allocs[i].bytes;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute a, CUdeviceptr p)
{
    (void)p;
    if (a == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
        *(unsigned *)data = CU_MEMORYTYPE_DEVICE;
    else
        *(unsigned *)data = 0;
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

/* ---- stand-in CUPTI ---------------------------------------------------- */

static CUpti_CallbackFunc subscriber;
static size_t runtime_ids_on;
/* What the library enabled: CUPTI calls back for those only. */
static struct {
    CUpti_CallbackDomain d;
    CUpti_CallbackId id;
} enabled[64];
static size_t num_enabled;

static int is_enabled(CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    for (size_t i = 0; i < num_enabled; ++i)
        if (enabled[i].d == d && enabled[i].id == id)
            return 1;
    return 0;
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc f,
                           void *userdata)
{
    (void)userdata;
    *s = (CUpti_SubscriberHandle)(uintptr_t)1;
    subscriber = f;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(uint32_t on, CUpti_SubscriberHandle s,
                                CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    (void)s;
    if (!on || num_enabled == sizeof enabled / sizeof enabled[0])
        return CUPTI_ERROR_INVALID_PARAMETER;
    enabled[num_enabled].d = d;
    enabled[num_enabled++].id = id;
    runtime_ids_on += d == CUPTI_CB_DOMAIN_RUNTIME_API;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
    (void)r;
    *s = "fake";
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t id,
                                 const char **name)
{
    if (d == CUPTI_CB_DOMAIN_RUNTIME_API &&
        id == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000)
        *name = "__cudaLaunchKernel_v13000";
    else if (d == CUPTI_CB_DOMAIN_RUNTIME_API &&
             id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
        *name = "cudaLaunchKernel_v7000";
    else if (d == CUPTI_CB_DOMAIN_DRIVER_API &&
             id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)
        *name = "cuLaunchKernel";
    else
        *name = "other";
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetVersion(uint32_t *v)
{
    *v = 999;
    return CUPTI_SUCCESS;
}

/* ---- modules and functions --------------------------------------------- */

#define MOD_SCALE 1
#define MOD_BUMP 2
#define MOD_SAXPY 3
#define MOD_OWN 99
static const char cubin_scale[] = "\x7f"
                                  "ELF....._Z9scale_addPKfS0_Pfif...";
static const char cubin_bump[] = "\x7f"
                                 "ELF....._Z4bumpPfi...";
static const char cubin_saxpy[] = "\x7f"
                                  "ELF.....saxpy...";

static void module_loaded(uint32_t id, const char *bytes, size_t n)
{
    CUpti_ModuleResourceData m = {
        .moduleId = id, .cubinSize = n, .pCubin = bytes};
    CUpti_ResourceData rd = {.resourceDescriptor = &m};
    if (!is_enabled(CUPTI_CB_DOMAIN_RESOURCE,
                    CUPTI_CBID_RESOURCE_MODULE_LOADED))
        return;
    subscriber(NULL, CUPTI_CB_DOMAIN_RESOURCE,
               CUPTI_CBID_RESOURCE_MODULE_LOADED, &rd);
}

/* Function handles are small numbers: 1 scale_add, 2 bump, 3 saxpy, 4
 * other; 11 scale_add in our own module load. */
static const char *const fn_names[] = {"", "_Z9scale_addPKfS0_Pfif",
                                       "_Z4bumpPfi", "saxpy", "_Z5otherv"};
#define FN(i) ((CUfunction)(uintptr_t)(i))

CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
    uintptr_t i = (uintptr_t)k;
    if (i == 2) /* bump: lazily loaded, here */
        module_loaded(MOD_BUMP, cubin_bump, sizeof cubin_bump);
    *f = FN(i);
    return i >= 1 && i <= 4 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuFuncGetName(const char **name, CUfunction f)
{
    uintptr_t i = (uintptr_t)f;
    *name = fn_names[i == 11 ? 1 : i];
    return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size)
{
    static const size_t scale[][2] = {
        {0, 8}, {8, 8}, {16, 8}, {24, 4}, {28, 4}};
    static const size_t bump[][2] = {{0, 8}, {8, 4}};
    static const size_t saxpy[][2] = {{0, 4}, {8, 8}, {16, 8}, {24, 4}};
    uintptr_t k = (uintptr_t)f;
    const size_t(*t)[2] = k == 2 ? bump : k == 3 ? saxpy : scale;
    size_t n = k == 2 ? 2 : k == 3 ? 4 : k == 4 ? 0 : 5;
    if (i >= n)
        return CUDA_ERROR_INVALID_VALUE;
    *off = t[i][0];
    *size = t[i][1];
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    /* The driver reports our own load too: it must not be kept. */
    module_loaded(MOD_OWN, image, 8);
    *m = (CUmodule)(uintptr_t)0x99;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    (void)m;
    if (strcmp(name, fn_names[1]) != 0)
        return CUDA_ERROR_NOT_FOUND;
    *f = FN(11);
    return CUDA_SUCCESS;
}

/* ---- the rest of the driver ---------------------------------------------- */

CUresult cuCtxGetCurrent(CUcontext *c)
{
    *c = (CUcontext)(uintptr_t)0x1;
    return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext c)
{
    (void)c;
    return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent(CUcontext *c)
{
    *c = NULL;
    return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void)
{
    return CUDA_SUCCESS;
}
CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *cs)
{
    (void)s;
    *cs = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice *d)
{
    *d = 0;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    (void)d;
    snprintf(name, (size_t)len, "Fake GPU");
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
    return CUDA_SUCCESS;
}

/* ---- the program -----------------------------------------------------------
 */

static int status;

/* ---- stand-in shared runtime -------------------------------------------- */
/* The program's per-thread last error, and a cudaGetFuncBySymbol that
 * refuses every stub (as the H200's runtime did inside the launch
 * callback): the library must leave the program's last error as it was. */
static cudaError_t last_error;
static int getfunc_calls;

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *f, const void *stub)
{
    (void)f;
    (void)stub;
    ++getfunc_calls;
    return last_error = cudaErrorInvalidDeviceFunction;
}

cudaError_t cudaPeekAtLastError(void)
{
    return last_error;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

static void api(CUpti_CallbackDomain d, CUpti_CallbackId id,
                CUpti_ApiCallbackSite site, const void *params,
                const char *symbol)
{
    CUpti_CallbackData cd = {.callbackSite = site,
                             .functionName = "fake",
                             .functionParams = params,
                             .functionReturnValue = &status,
                             .symbolName = symbol,
                             .context = (CUcontext)(uintptr_t)0x1};
    if (is_enabled(d, id))
        subscriber(NULL, d, id, &cd);
}

/* A runtime launch of kernel handle or stub `handle`: enter, the kernel's
 * effect, exit. */
static void runtime_launch(CUpti_CallbackId id, uintptr_t handle, void **args,
                           const char *symbol, void (*effect)(void))
{
    cudaLaunchKernel_v7000_params p = {
        (const void *)handle, {4, 1, 1}, {256, 1, 1}, args, 0, NULL};
    api(CUPTI_CB_DOMAIN_RUNTIME_API, id, CUPTI_API_ENTER, &p, symbol);
    effect();
    api(CUPTI_CB_DOMAIN_RUNTIME_API, id, CUPTI_API_EXIT, &p, symbol);
}

static float scale = 2.0f;
static int n = N_ELEMS;

static void scale_add(void)
{
    for (int i = 0; i < N_ELEMS; ++i)
        mem_c[i] = scale * mem_a[i] + mem_b[i];
}

static void bump(void)
{
    for (int i = 0; i < N_ELEMS; ++i)
        mem_x[i] = mem_x[i] * 2.0f + 1.0f;
}

/* scale_add again, with the runtime's own driver call inside it. */
static void scale_add_via_driver(void)
{
    cuLaunchKernel_params p = {FN(1), 4, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL};
    api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_API_ENTER, &p, fn_names[1]);
    scale_add();
    api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_API_EXIT, &p, fn_names[1]);
}

static void saxpy_launch(void)
{
    float a = 0.5f;
    CUdeviceptr x = (uintptr_t)mem_a, y = (uintptr_t)mem_x;
    void *args[] = {&a, &x, &y, &n};
    cuLaunchKernel_params p = {FN(3), 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL};
    api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_API_ENTER, &p, "saxpy");
    for (int i = 0; i < N_ELEMS; ++i)
        mem_x[i] += a * mem_a[i];
    api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_API_EXIT, &p, "saxpy");
}

static void nothing(void)
{
}

int main(void)
{
    CUdeviceptr a = (uintptr_t)mem_a, b = (uintptr_t)mem_b,
                c = (uintptr_t)mem_c, x = (uintptr_t)mem_x;
    void *scale_args[] = {&a, &b, &c, &n, &scale};
    void *bump_args[] = {&x, &n};
    cudaGraphLaunch_v10000_params g = {NULL, NULL};

    for (int i = 0; i < N_ELEMS; ++i)
        mem_a[i] = (float)i, mem_b[i] = 1.0f, mem_x[i] = (float)(i % 7);
    InitializeInjection();
    if (!subscriber || runtime_ids_on == 0) {
        fprintf(stderr, "the capture library enabled no runtime callback\n");
        return 1;
    }
    module_loaded(MOD_SCALE, cubin_scale, sizeof cubin_scale);
    module_loaded(MOD_SAXPY, cubin_saxpy, sizeof cubin_saxpy);
    runtime_launch(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, 1,
                   scale_args, NULL, scale_add);
    runtime_launch(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, 2,
                   bump_args, NULL, bump);
    runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0x5151,
                   scale_args, fn_names[1], scale_add_via_driver);
    saxpy_launch();
    runtime_launch(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, 4, NULL,
                   NULL, nothing);
    api(CUPTI_CB_DOMAIN_RUNTIME_API,
        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_API_ENTER, &g,
        NULL);
    api(CUPTI_CB_DOMAIN_RUNTIME_API,
        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_API_EXIT, &g,
        NULL);
    /* CUPTI names another kernel than the handle does: refused */
    runtime_launch(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, 1,
                   scale_args, fn_names[2], scale_add);
    /* 7. a host stub CUPTI names no kernel for, the runtime refusing it:
     * asked once, its failure taken back; with the program's own error
     * pending, not asked at all, the error kept */
    runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0x5252,
                   scale_args, NULL, scale_add);
    printf("runtime asked %d time(s); the program's last error after: %d\n",
           getfunc_calls, (int)last_error);
    last_error = cudaErrorMemoryAllocation;
    runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0x5252,
                   scale_args, NULL, scale_add);
    printf("with an error pending: runtime asked %d time(s); last error: %d\n",
           getfunc_calls, (int)last_error);
    printf("fake program done\n");
    return 0;
}
