// SPDX-License-Identifier: Apache-2.0
// matrix_add: C = A + B for row-major float32 matrices of m rows and n
// columns, with a 2D block of block_x x block_y threads. The experiment is
// the mapping of threadIdx.x: to columns (`x_cols`: a warp reads consecutive
// floats of one row, coalesced) or to rows (`x_rows`: a warp's 32 loads are
// n floats apart, one sector each). Same grid arithmetic, same work.
#include <cuda_runtime.h>
#include <ktune/plugin_util.h>

#include <stdio.h>
#include <stdlib.h>

namespace
{

// grid.y is limited to 65535: a taller grid loops over y instead.
constexpr uint64_t MAX_GRID_Y = 65535;

// ---------------------------------------------------------------- kernels

// threadIdx.x -> column, threadIdx.y -> row.
__global__ void add_x_cols(const float *__restrict__ a,
                           const float *__restrict__ b, float *__restrict__ c,
                           int m, int n)
{
    const long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= n)
        return;
    for (long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
         row < m; row += (long long)gridDim.y * blockDim.y) {
        const size_t i = (size_t)row * n + col;
        c[i] = a[i] + b[i];
    }
}

// threadIdx.x -> row, threadIdx.y -> column.
__global__ void add_x_rows(const float *__restrict__ a,
                           const float *__restrict__ b, float *__restrict__ c,
                           int m, int n)
{
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;
    for (long long col = (long long)blockIdx.y * blockDim.y + threadIdx.y;
         col < n; col += (long long)gridDim.y * blockDim.y) {
        const size_t i = (size_t)row * n + col;
        c[i] = a[i] + b[i];
    }
}

// ------------------------------------------------------------- parameters

enum { P_BX = 0, P_BY = 1 };

const kt_param_desc block_params[] = {
    KT_PARAM_POW2("block_x", "threads along threadIdx.x", 1, 1024, 32),
    KT_PARAM_POW2("block_y", "threads along threadIdx.y", 1, 1024, 8),
};

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    int m, n;
    size_t count;
    float *a, *b, *c;
    float *ha, *hb;
    double *want;     // reference, host (the host path)
    double *want_dev; // reference, device (the device path)
};

// ---------------------------------------------------------------- shapes

// x_cols: grid.x over columns, grid.y over rows; x_rows the other way.
int shape_2d(uint64_t along_x, uint64_t along_y, const kt_config *c,
             kt_shape *out, const void *kernel)
{
    uint64_t bx = (uint64_t)c->values[P_BX], by = (uint64_t)c->values[P_BY];
    uint64_t gx = kt_div_up(along_x, bx), gy = kt_div_up(along_y, by);
    return kt_shape_2d(out, gx, gy < MAX_GRID_Y ? gy : MAX_GRID_Y, bx, by, 0,
                       kernel);
}

int shape_x_cols(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return shape_2d((uint64_t)p->sizes[1], (uint64_t)p->sizes[0], c, out,
                    (const void *)add_x_cols);
}

int shape_x_rows(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    return shape_2d((uint64_t)p->sizes[0], (uint64_t)p->sizes[1], c, out,
                    (const void *)add_x_rows);
}

// The core checks the device limits (block_x x block_y <= 1024 threads);
// this keeps whole warps, below which half the lanes of every warp idle.
int check_block(const kt_problem *, const kt_config *c, char *why,
                size_t why_size)
{
    int64_t threads = c->values[P_BX] * c->values[P_BY];
    if (threads < 32) {
        snprintf(why, why_size,
                 "block_x x block_y = %lld threads, less than one warp",
                 (long long)threads);
        return KT_INVALID;
    }
    return KT_OK;
}

// --------------------------------------------------------------- launches

// The geometry is the shape's (the host computed it with shape()).
int launch_x_cols(void *st, const kt_config *, const kt_shape *sh, void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, add_x_cols, s->a, s->b, s->c, s->m, s->n);
}

int launch_x_rows(void *st, const kt_config *, const kt_shape *sh, void *stream)
{
    state *s = (state *)st;
    return kt_launch(*sh, stream, add_x_rows, s->a, s->b, s->c, s->m, s->n);
}

// -------------------------------------------------------------- lifecycle

int work(const kt_problem *p, kt_work *out)
{
    double count = (double)p->sizes[0] * (double)p->sizes[1];
    out->bytes_read = 8.0 * count;
    out->bytes_written = 4.0 * count;
    out->flops = count;
    return KT_OK;
}

void teardown(void *st)
{
    state *s = (state *)st;
    if (!s)
        return;
    if (s->a)
        s->host->free_device(s->host, s->a);
    if (s->b)
        s->host->free_device(s->host, s->b);
    if (s->c)
        s->host->free_device(s->host, s->c);
    if (s->want_dev)
        s->host->free_device(s->host, s->want_dev);
    free(s->ha);
    free(s->hb);
    free(s->want);
    free(s);
}

// The reference on the device path, element by element in double: the
// exact sum of two floats, the same bits as the host's loop.
__global__ void reference_add(const float *__restrict__ a,
                              const float *__restrict__ b,
                              double *__restrict__ want, size_t count)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        want[i] = __dadd_rn((double)a[i], (double)b[i]);
}

// The host copies of the inputs: made in setup on the host path, and on the
// device path only when reset() first needs them (the end-to-end scope's
// host-to-device copy); the same values either way.
int host_inputs(state *s)
{
    size_t bytes = s->count * sizeof(float);
    if (s->ha)
        return KT_OK;
    s->ha = (float *)malloc(bytes);
    s->hb = (float *)malloc(bytes);
    if (!s->ha || !s->hb)
        return s->host->error(s->host, "out of host memory for m = %d, n = %d",
                              s->m, s->n);
    s->host->random_f32(s->host, 0, s->ha, s->count, -1.0f, 1.0f);
    s->host->random_f32(s->host, 1, s->hb, s->count, -1.0f, 1.0f);
    return KT_OK;
}

int reset(void *st)
{
    state *s = (state *)st;
    size_t bytes = s->count * sizeof(float);
    if (host_inputs(s) != KT_OK ||
        s->host->upload(s->host, s->a, s->ha, bytes) != KT_OK ||
        s->host->upload(s->host, s->b, s->hb, bytes) != KT_OK)
        return KT_FAIL;
    return KT_OK;
}

// The device path: inputs made and the reference computed on the GPU,
// nothing in host memory.
int inputs_on_device(state *s)
{
    const kt_host *host = s->host;
    cudaError_t e;

    if (host->random_f32_device(host, 0, s->a, s->count, -1.0f, 1.0f) ||
        host->random_f32_device(host, 1, s->b, s->count, -1.0f, 1.0f) ||
        host->alloc_device(host, s->count * sizeof(double), KT_MEM_SCRATCH,
                           "C (reference)", (void **)&s->want_dev))
        return KT_FAIL;
    reference_add<<<1024, 256>>>(s->a, s->b, s->want_dev, s->count);
    if ((e = cudaGetLastError()) != cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess)
        return host->error(host, "reference: %s", cudaGetErrorString(e));
    return KT_OK;
}

int setup(const kt_host *host, const kt_problem *p, void **out)
{
    state *s = (state *)calloc(1, sizeof(state));
    size_t count, bytes;
    *out = s;
    if (!s)
        return host->error(host, "out of host memory");
    s->host = host;
    s->m = (int)p->sizes[0];
    s->n = (int)p->sizes[1];
    count = (size_t)s->m * (size_t)s->n;
    bytes = count * sizeof(float);
    s->count = count;
    if (host->alloc_device(host, bytes, KT_MEM_INPUT, "A", (void **)&s->a) ||
        host->alloc_device(host, bytes, KT_MEM_INPUT, "B", (void **)&s->b) ||
        host->alloc_device(host, bytes, KT_MEM_OUTPUT, "C", (void **)&s->c))
        return KT_FAIL;
    if (KT_HOST_HAS(host, check_f32_device) &&
        KT_HOST_HAS(host, random_f32_device))
        return inputs_on_device(s);
    if (reset(s) != KT_OK)
        return KT_FAIL;
    s->want = (double *)malloc(count * sizeof(double));
    if (!s->want)
        return host->error(host, "out of host memory for m = %d, n = %d", s->m,
                           s->n);
    for (size_t i = 0; i < count; ++i)
        s->want[i] = (double)s->ha[i] + (double)s->hb[i];
    return kt_reference_to_device(host, "C (reference)", &s->want, count,
                                  &s->want_dev);
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    state *s = (state *)st;
    // a + b in float is the correctly rounded exact sum: relative error at
    // most 2^-24.
    return kt_check_kept(s->host, "C", s->c, s->want, s->want_dev, s->count,
                         1e-6, 0.0);
}

const kt_size_desc sizes[] = {
    KT_SIZE("m", "rows", 8192, 1, (int64_t)1 << 30),
    /* Not square by default: rows and columns must not be confusable. */
    KT_SIZE("n", "columns (row-major)", 6144, 1, (int64_t)1 << 30),
};

const kt_variant variants[] = {
    KT_VARIANT("x_cols",
               "threadIdx.x -> column (coalesced), threadIdx.y -> row",
               block_params, shape_x_cols, check_block, launch_x_cols),
    KT_VARIANT("x_rows",
               "threadIdx.x -> row (uncoalesced), threadIdx.y -> column",
               block_params, shape_x_rows, check_block, launch_x_rows),
};

const kt_operator operators[] = {
    KT_OPERATOR("add",
                "C = A + B, row-major m x n, float32, inputs uniform in "
                "[-1, 1)",
                0, sizes, variants, work, setup, reset, verify, teardown),
};

const kt_plugin plugin = KT_PLUGIN(
    "matrix_add", "1.0.0",
    "C = A + B with a 2D block: x mapped to columns or to rows", operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
