// @NAME@: a ktune kernel plugin, made by `ktune new-plugin @NAME@`.
//
// One operator, @NAME@:mul (z = x * y element by element, float32), and two
// variants that compute it with different thread-to-data mappings:
//   one_per_thread  one element per thread, as many threads as elements
//   grid_stride     blocks_per_sm x SMs blocks loop over the array
// Replace the kernels with yours and keep the contract (ktune's
// docs/plugin-abi.md):
//   work()    the bytes the *algorithm* must move and its flops, whatever a
//             variant does: effective bandwidth is derived from them
//   setup()   inputs from host->random_f32 (seeded, never zeros), device
//             memory from host->alloc_device, the reference in double
//   shape()   grid, block and shared memory of a configuration, pure: the
//             one place the geometry is derived
//   launch()  (launch_shaped) enqueue on the given stream with the shape
//             ktune computed from shape(), and return: no allocation, no
//             copy, no synchronisation (it runs inside the timed interval);
//             ktune checks the launch and the execution itself
//   verify()  every element against the reference (host->check_f32), with
//             a tolerance derived from the arithmetic
#include <ktune/plugin_util.h>

namespace
{

// ---------------------------------------------------------------- kernels

// Indices are size_t: n may be beyond 2^31 elements.
__global__ void mul_one_per_thread(const float *__restrict__ x,
                                   const float *__restrict__ y,
                                   float *__restrict__ z, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = x[i] * y[i];
}

__global__ void mul_grid_stride(const float *__restrict__ x,
                                const float *__restrict__ y,
                                float *__restrict__ z, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        z[i] = x[i] * y[i];
}

// ------------------------------------------------------------- parameters

// The tunable parameters of each variant, as data. A configuration comes
// back as one value per parameter in this order: cfg->values[P_BLOCK], ...
enum { P_BLOCK = 0, P_BLOCKS_PER_SM = 1 };

const int64_t blocks_per_sm_values[] = {1, 2, 4, 8, 16, 32};

const kt_param_desc one_per_thread_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
};
const kt_param_desc grid_stride_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("blocks_per_sm", "blocks per SM; grid = this x SMs",
                  blocks_per_sm_values, 4),
};

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    size_t n;
    float *x, *y, *z; // device memory, allocated through the host
    double *want;     // the reference, computed in double
};

// ----------------------------------------------------------------- shapes
//
// Grid and block of a configuration, computed without the GPU: ktune checks
// them against the device's limits before anything runs. one_per_thread's
// is plugin_util.h's kt_shape_per_element (sizes[0] threads, blocks of the
// first parameter).

int shape_grid_stride(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return kt_shape_1d(out, c->values[P_BLOCKS_PER_SM] * p->device->sm_count,
                       c->values[P_BLOCK], (const void *)mul_grid_stride);
}

// A constraint the shape cannot express: the whole grid should be resident
// at once. Refused points cost no GPU time and are reported with the reason.
int check_grid_stride(const kt_problem *p, const kt_config *c, char *why,
                      size_t why_size)
{
    return kt_check_resident(p, c->values[P_BLOCK], c->values[P_BLOCKS_PER_SM],
                             why, why_size);
}

// --------------------------------------------------------------- launches
//
// ktune hands each launch the shape it computed with the variant's shape()
// for this problem and configuration, so the geometry is written once.

int launch_one_per_thread(void *st, const kt_config *, const kt_shape *shape,
                          void *stream)
{
    const state *s = (const state *)st;
    return kt_launch(*shape, stream, mul_one_per_thread, s->x, s->y, s->z,
                     s->n);
}

int launch_grid_stride(void *st, const kt_config *, const kt_shape *shape,
                       void *stream)
{
    const state *s = (const state *)st;
    return kt_launch(*shape, stream, mul_grid_stride, s->x, s->y, s->z, s->n);
}

// -------------------------------------------------------------- lifecycle

int work(const kt_problem *p, kt_work *out)
{
    const double n = (double)p->sizes[0];
    out->bytes_read = 8.0 * n;    // x and y, each read once
    out->bytes_written = 4.0 * n; // z, written once
    out->flops = n;               // one multiplication per element
    return KT_OK;
}

void teardown(void *st)
{
    state *s = (state *)st;
    if (!s)
        return;
    float *const device[] = {s->x, s->y, s->z};
    for (float *dev : device)
        if (dev)
            s->host->free_device(s->host, dev);
    free(s->want);
    free(s);
}

int setup(const kt_host *host, const kt_problem *p, void **out)
{
    const size_t n = (size_t)p->sizes[0], bytes = n * sizeof(float);
    state *s = (state *)calloc(1, sizeof(state));
    float *hx = (float *)malloc(bytes), *hy = (float *)malloc(bytes);
    int rc = KT_OK;

    *out = s; // handed to teardown() even when setup fails
    if (s) {
        s->host = host;
        s->n = n;
        s->want = (double *)malloc(n * sizeof(double));
    }
    if (!s || !hx || !hy || !s->want)
        rc = host->error(host, "out of host memory for n = %zu", n);
    if (rc == KT_OK) {
        // Seeded random inputs, one stream number per buffer: the same
        // values for every configuration and on every machine.
        host->random_f32(host, 0, hx, n, -1.0f, 1.0f);
        host->random_f32(host, 1, hy, n, -1.0f, 1.0f);
        for (size_t i = 0; i < n; ++i)
            s->want[i] = (double)hx[i] * (double)hy[i];
        // Outputs are KT_MEM_OUTPUT: ktune fills them with NaN before each
        // verification, so an element no thread writes fails.
        rc = host->alloc_device(host, bytes, KT_MEM_INPUT, "x", (void **)&s->x);
    }
    if (rc == KT_OK)
        rc = host->alloc_device(host, bytes, KT_MEM_INPUT, "y", (void **)&s->y);
    if (rc == KT_OK)
        rc =
            host->alloc_device(host, bytes, KT_MEM_OUTPUT, "z", (void **)&s->z);
    if (rc == KT_OK)
        rc = host->upload(host, s->x, hx, bytes);
    if (rc == KT_OK)
        rc = host->upload(host, s->y, hy, bytes);
    free(hx);
    free(hy);
    return rc;
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    const state *s = (const state *)st;
    // The product of two floats is exact in double; the kernel rounds it
    // once, which moves it by at most 2^-24 of its magnitude.
    return s->host->check_f32(s->host, "z", s->z, s->want, s->n, 0x1p-24, 0.0);
}

// ------------------------------------------------------------ descriptors

const kt_size_desc sizes[] = {
    KT_SIZE("n", "number of elements", 1 << 24, 1, (int64_t)1 << 32),
};

const kt_variant variants[] = {
    KT_VARIANT("one_per_thread", "one element per thread",
               one_per_thread_params, kt_shape_per_element<mul_one_per_thread>,
               nullptr, launch_one_per_thread),
    KT_VARIANT("grid_stride", "blocks_per_sm x SMs blocks loop over the array",
               grid_stride_params, shape_grid_stride, check_grid_stride,
               launch_grid_stride),
};

const kt_operator operators[] = {
    KT_OPERATOR("mul",
                "z = x * y element by element, float32, inputs in [-1, 1)", 0,
                sizes, variants, work, setup, nullptr, verify, teardown),
};

const kt_plugin plugin = KT_PLUGIN(
    "@NAME@", "0.1.0",
    "@NAME@: z = x * y, one element per thread or grid-stride", operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
