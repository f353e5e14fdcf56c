// empty: a kernel that does nothing, launched over n threads — the launch
// floor every other measurement stands on. Its work is zero bytes and zero
// flops: derived bandwidth and flop rate are then 0 (core/derive.c divides
// the work by the time, never by the work), not infinite or NaN.
#include <cuda_runtime.h>
#include <ktune/plugin.h>

#include <stdlib.h>

namespace
{

__global__ void empty_kernel()
{
}

// The same, with the arguments a typical kernel receives (three pointers
// and a size): whether passing parameters moves the floor.
__global__ void empty_args(const float *, const float *, float *, size_t)
{
}

const kt_param_desc block_only[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
};

struct state {
    const kt_host *host;
    size_t n;
};

int shape_of(const kt_problem *p, const kt_config *c, kt_shape *out,
             const void *kernel)
{
    uint64_t block = (uint64_t)c->values[0];
    uint64_t grid = kt_div_up((uint64_t)p->sizes[0], block);
    if (grid > 0x7fffffffu)
        return KT_INVALID;
    out->grid[0] = (uint32_t)(grid ? grid : 1);
    out->grid[1] = out->grid[2] = 1;
    out->block[0] = (uint32_t)block;
    out->block[1] = out->block[2] = 1;
    out->kernel = kernel;
    return KT_OK;
}

int shape_empty(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return shape_of(p, c, out, (const void *)empty_kernel);
}

int shape_args(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return shape_of(p, c, out, (const void *)empty_args);
}

int launch_status(const state *s)
{
    cudaError_t e = cudaPeekAtLastError();
    return e == cudaSuccess ? KT_OK
                            : s->host->error(s->host, "kernel launch: %s",
                                             cudaGetErrorString(e));
}

unsigned grid_of(const state *s, const kt_config *c)
{
    size_t block = (size_t)c->values[0];
    size_t grid = (s->n + block - 1) / block;
    return (unsigned)(grid ? grid : 1);
}

int launch_empty(void *st, const kt_config *c, void *stream)
{
    state *s = (state *)st;
    empty_kernel<<<grid_of(s, c), (unsigned)c->values[0], 0,
                   (cudaStream_t)stream>>>();
    return launch_status(s);
}

int launch_args(void *st, const kt_config *c, void *stream)
{
    state *s = (state *)st;
    empty_args<<<grid_of(s, c), (unsigned)c->values[0], 0,
                 (cudaStream_t)stream>>>(nullptr, nullptr, nullptr, s->n);
    return launch_status(s);
}

int work(const kt_problem *, kt_work *out)
{
    out->bytes_read = 0.0;
    out->bytes_written = 0.0;
    out->flops = 0.0;
    return KT_OK;
}

void teardown(void *st)
{
    free(st);
}

int setup(const kt_host *host, const kt_problem *p, void **out)
{
    state *s = (state *)calloc(1, sizeof(state));
    *out = s;
    if (!s)
        return host->error(host, "out of host memory");
    s->host = host;
    s->n = (size_t)p->sizes[0];
    return KT_OK;
}

// Nothing is computed, so nothing can be wrong: a launch that failed or
// faulted is caught by the host's own checks around launch and
// synchronisation, before verify() is called.
int verify(void *, const kt_config *, const kt_variant *)
{
    return KT_OK;
}

const kt_size_desc sizes[] = {
    {KT_STRUCT_SIZE(kt_size_desc), .reserved = 0, .name = "n",
     .help = "threads launched (rounded up to whole blocks)",
     .default_value = 1, .min = 1, .max = (int64_t)1 << 40},
};

const kt_variant variants[] = {
    {KT_STRUCT_SIZE(kt_variant), .num_params = KT_COUNT(block_only),
     .id = "empty", .summary = "__global__ void k() {}", .params = block_only,
     .shape = shape_empty, .check = nullptr, .launch = launch_empty},
    {KT_STRUCT_SIZE(kt_variant), .num_params = KT_COUNT(block_only),
     .id = "empty_args",
     .summary = "empty body, three pointers and a size as arguments",
     .params = block_only, .shape = shape_args, .check = nullptr,
     .launch = launch_args},
};

const kt_operator operators[] = {
    {KT_STRUCT_SIZE(kt_operator), .flags = 0, .id = "launch",
     .summary = "an empty kernel over n threads: the launch floor",
     .sizes = sizes, .num_sizes = KT_COUNT(sizes),
     .num_variants = KT_COUNT(variants), .variants = variants, .work = work,
     .setup = setup, .reset = nullptr, .verify = verify, .teardown = teardown},
};

const kt_plugin plugin = {
    KT_PLUGIN_HEADER,
    .name = "empty",
    .version = "1.0.0",
    .summary = "the empty kernel: launch overhead, zero work",
    .operators = operators,
    .num_operators = KT_COUNT(operators),
};

} // namespace

KT_PLUGIN_EXPORT(plugin)
