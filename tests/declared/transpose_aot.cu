// SPDX-License-Identifier: Apache-2.0
// The declared transpose's kernels (examples/declared_transpose), compiled
// ahead of time: `naive`, and `tiled` with every tile x pad x rows_per
// instantiated by hand, to compare the declared operator against. Variant
// `tiled_nvrtc` compiles the same kernels at run time through
// kt_host.compile, as a compiled plugin with compile-time parameters does.
#include <cuda_runtime.h>
#include <ktune/plugin_util.h>
#include <stdlib.h>

#include "examples/declared_transpose/transpose.cu"
#include "transpose_source.h"

namespace
{

struct state {
    const kt_host *host;
    int rows, cols;
    float *x, *y; // device, owned by the host
    double *want;
    const void *jit[3][2][5]; // tiled_nvrtc kernels, compiled on first use
};

const int64_t tiles[] = {16, 32, 64}, pads[] = {0, 1},
              rows_per[] = {1, 2, 4, 8, 16}, bxs[] = {16, 32, 64};

const kt_param_desc naive_params[] = {
    KT_PARAM_LIST("bx", "threads per block along a row", bxs, 16),
    KT_PARAM_LIST("by", "threads per block along a column", rows_per, 1),
};
const kt_param_desc tiled_params[] = {
    KT_PARAM_LIST("tile", "tile edge", tiles, 16),
    KT_PARAM_LIST("pad", "shared-memory row padding", pads, 0),
    KT_PARAM_LIST("rows_per", "threads per tile column", rows_per, 1),
};

int index_of(const int64_t *list, int n, int64_t v)
{
    for (int i = 0; i < n; ++i)
        if (list[i] == v)
            return i;
    return 0;
}

#define KT_R(t, p)                                                             \
    {                                                                          \
        (const void *)transpose_tiled<t, p, 1>,                                \
            (const void *)transpose_tiled<t, p, 2>,                            \
            (const void *)transpose_tiled<t, p, 4>,                            \
            (const void *)transpose_tiled<t, p, 8>,                            \
            (const void *)transpose_tiled<t, p, 16>                            \
    }
#define KT_P(t)                                                                \
    {                                                                          \
        KT_R(t, 0), KT_R(t, 1)                                                 \
    }
// Every compile-time combination, typed out: what NVRTC spares.
const void *const tiled_kernels[3][2][5] = {KT_P(16), KT_P(32), KT_P(64)};

int shape_naive(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    uint64_t bx = (uint64_t)c->values[0], by = (uint64_t)c->values[1];
    out->block[0] = (uint32_t)bx;
    out->block[1] = (uint32_t)by;
    out->block[2] = 1;
    out->grid[0] = (uint32_t)kt_div_up((uint64_t)p->sizes[1], bx);
    out->grid[1] = (uint32_t)kt_div_up((uint64_t)p->sizes[0], by);
    out->grid[2] = 1;
    out->kernel = (const void *)transpose_naive;
    return KT_OK;
}

int shape_tiled(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    uint64_t tile = (uint64_t)c->values[0];
    out->block[0] = (uint32_t)tile;
    out->block[1] = (uint32_t)c->values[2];
    out->block[2] = 1;
    out->grid[0] = (uint32_t)kt_div_up((uint64_t)p->sizes[1], tile);
    out->grid[1] = (uint32_t)kt_div_up((uint64_t)p->sizes[0], tile);
    out->grid[2] = 1;
    out->kernel = tiled_kernels[index_of(tiles, 3, c->values[0])][index_of(
        pads, 2, c->values[1])][index_of(rows_per, 5, c->values[2])];
    return KT_OK;
}

int shape_jit(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    int rc = shape_tiled(p, c, out);
    out->kernel = NULL; // compiled at run time
    return rc;
}

int check_tiled(const kt_problem *, const kt_config *c, char *why, size_t n)
{
    if (c->values[2] <= c->values[0])
        return KT_OK;
    snprintf(why, n, "rows_per %lld > tile %lld", (long long)c->values[2],
             (long long)c->values[0]);
    return KT_INVALID;
}

// One launch for every variant: the geometry comes from shape().
int launch_with(state *s, const void *kernel, const kt_shape *sh, void *stream)
{
    void *args[] = {&s->y, &s->x, &s->rows, &s->cols};
    dim3 grid(sh->grid[0], sh->grid[1]), block(sh->block[0], sh->block[1]);
    cudaLaunchKernel(kernel, grid, block, args, 0, (cudaStream_t)stream);
    return KT_OK; // ktune reads cudaGetLastError itself
}

int launch_aot(void *st, const kt_config *, const kt_shape *sh, void *stream)
{
    return launch_with((state *)st, sh->kernel, sh, stream);
}

int launch_jit(void *st, const kt_config *c, const kt_shape *sh, void *stream)
{
    state *s = (state *)st;
    int t = index_of(tiles, 3, c->values[0]),
        p = index_of(pads, 2, c->values[1]),
        r = index_of(rows_per, 5, c->values[2]);
    if (!s->jit[t][p][r]) {
        char name[64];
        snprintf(name, sizeof name, "transpose_tiled<%lld, %lld, %lld>",
                 (long long)c->values[0], (long long)c->values[1],
                 (long long)c->values[2]);
        kt_jit_request req = {KT_STRUCT_SIZE(kt_jit_request),
                              .source = transpose_source,
                              .source_name = "transpose.cu", .kernel = name};
        if (!KT_HOST_HAS(s->host, compile))
            return s->host->error(s->host, "this ktune cannot compile");
        int rc = s->host->compile(s->host, &req, &s->jit[t][p][r]);
        if (rc != KT_OK)
            return rc;
    }
    return launch_with(s, s->jit[t][p][r], sh, stream);
}

const void *kernel_jit(void *st, const kt_config *c)
{
    state *s = (state *)st;
    return s->jit[index_of(tiles, 3, c->values[0])][index_of(
        pads, 2, c->values[1])][index_of(rows_per, 5, c->values[2])];
}

int work(const kt_problem *p, kt_work *out)
{
    double n = (double)p->sizes[0] * (double)p->sizes[1];
    out->bytes_read = 4.0 * n;
    out->bytes_written = 4.0 * n;
    out->flops = 0;
    return KT_OK;
}

int setup(const kt_host *host, const kt_problem *p, void **out)
{
    state *s = (state *)calloc(1, sizeof(state));
    *out = s;
    if (!s)
        return host->error(host, "out of memory");
    s->host = host;
    s->rows = (int)p->sizes[0];
    s->cols = (int)p->sizes[1];
    size_t n = (size_t)s->rows * (size_t)s->cols;
    float *hx = NULL;
    int rc = kt_input_f32(host, "x", n, 0, -1.0f, 1.0f, &s->x, &hx);
    if (rc == KT_OK)
        rc = kt_output_f32(host, "y", n, &s->y);
    if (rc == KT_OK && !(s->want = (double *)malloc(n * sizeof(double) + 1)))
        rc = host->error(host, "out of host memory");
    for (size_t r = 0; rc == KT_OK && r < (size_t)s->rows; ++r)
        for (size_t c = 0; c < (size_t)s->cols; ++c)
            s->want[c * (size_t)s->rows + r] = hx[r * (size_t)s->cols + c];
    free(hx);
    return rc;
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    state *s = (state *)st;
    return s->host->check_f32(s->host, "y", s->y, s->want,
                              (size_t)s->rows * (size_t)s->cols, 0.0, 0.0);
}

void teardown(void *st)
{
    state *s = (state *)st;
    if (!s)
        return;
    if (s->x)
        s->host->free_device(s->host, s->x);
    if (s->y)
        s->host->free_device(s->host, s->y);
    free(s->want);
    free(s);
}

const kt_size_desc sizes[] = {
    {KT_STRUCT_SIZE(kt_size_desc), .name = "rows", .help = "rows of x",
     .default_value = 8192, .min = 1, .max = (int64_t)1 << 30},
    {KT_STRUCT_SIZE(kt_size_desc), .name = "cols", .help = "columns of x",
     .default_value = 8192, .min = 1, .max = (int64_t)1 << 30},
};

const kt_variant variants[] = {
    {KT_STRUCT_SIZE(kt_variant), .num_params = KT_COUNT(naive_params),
     .id = "naive", .summary = "one element per thread", .params = naive_params,
     .shape = shape_naive, .launch_shaped = launch_aot},
    {KT_STRUCT_SIZE(kt_variant), .num_params = KT_COUNT(tiled_params),
     .id = "tiled", .summary = "shared-memory tile, instantiated ahead of time",
     .params = tiled_params, .shape = shape_tiled, .check = check_tiled,
     .launch_shaped = launch_aot},
    {KT_STRUCT_SIZE(kt_variant), .num_params = KT_COUNT(tiled_params),
     .id = "tiled_nvrtc", .summary = "the same tile, compiled at run time",
     .params = tiled_params, .shape = shape_jit, .check = check_tiled,
     .launch_shaped = launch_jit, .kernel_of = kernel_jit},
};

const kt_operator operators[] = {
    {KT_STRUCT_SIZE(kt_operator), .id = "transpose",
     .summary = "y = x^T, rows x cols float", .sizes = sizes,
     .num_sizes = KT_COUNT(sizes), .num_variants = KT_COUNT(variants),
     .variants = variants, .work = work, .setup = setup, .verify = verify,
     .teardown = teardown},
};

const kt_plugin plugin = {
    KT_PLUGIN_HEADER,
    .name = "transpose_aot",
    .version = "1.0",
    .summary = "the declared transpose's kernels, compiled ahead of time",
    .operators = operators,
    .num_operators = KT_COUNT(operators),
};

} // namespace

KT_PLUGIN_EXPORT(plugin)
