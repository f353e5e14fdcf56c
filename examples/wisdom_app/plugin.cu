// SPDX-License-Identifier: Apache-2.0
// wisdom_app: the ktune plugin that wraps the application's kernels
// (kernels.cuh) so that ktune can tune them: wisdom_app:vadd and
// wisdom_app:gemv. Variant 0 of each operator, at its defaults, is the
// application's default configuration, so ktune's "vs default" is the
// application's own speed-up.
#include <cuda_runtime.h>
#include <ktune/plugin_util.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.cuh"

namespace
{

const int64_t blocks_per_sm_values[] = {1, 2, 4, 8, 16, 32};
const int64_t vec_values[] = {1, 4};

const kt_param_desc block_only[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
};
const kt_param_desc grid_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("blocks_per_sm", "grid = this x SMs", blocks_per_sm_values,
                  4),
};
const kt_param_desc row_params[] = {
    KT_PARAM_POW2("block", "threads per block", 32, 1024, 256),
    KT_PARAM_LIST("vec", "floats per load (4: float4, needs n % 4 == 0)",
                  vec_values, 1),
};

int64_t value(const kt_config *c, uint32_t i, int64_t fallback)
{
    return i < c->count ? c->values[i] : fallback;
}

// Configurations of the application (kernels.cuh) from ktune's values,
// in the order of the variant's parameters.
template <int VARIANT> wa::vadd_config vadd_cfg(const kt_config *c)
{
    return wa::vadd_config{VARIANT, (int)value(c, 0, 256), (int)value(c, 1, 4)};
}

template <int VARIANT> wa::gemv_config gemv_cfg(const kt_config *c)
{
    return wa::gemv_config{VARIANT, (int)value(c, 0, 256), (int)value(c, 1, 1)};
}

// ------------------------------------------------------------------ state

struct state {
    const kt_host *host;
    int64_t m, n;     // vadd: n only (m = 1)
    float *a, *b, *c; // device: vadd a, b, c; gemv A, x, y
    double *want;     // reference, in double
    double atol;
};

int fail_launch(state *s, cudaError_t e)
{
    return e == cudaSuccess
               ? KT_OK
               : s->host->error(s->host, "%s", cudaGetErrorString(e));
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
    free(s->want);
    free(s);
}

int verify(void *st, const kt_config *, const kt_variant *)
{
    state *s = (state *)st;
    return s->host->check_f32(s->host, "out", s->c, s->want, (size_t)s->m, 1e-6,
                              s->atol);
}

// ------------------------------------------------------------------ vadd

template <int VARIANT>
int vadd_shape(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    wa::vadd_config cfg = vadd_cfg<VARIANT>(c);
    uint64_t grid =
        wa::vadd_grid_size(cfg, (size_t)p->sizes[0], p->device->sm_count);
    if (!grid)
        return KT_INVALID;
    return kt_shape_1d(out, grid, (uint64_t)cfg.block, wa::vadd_kernel(cfg));
}

int vadd_check(const kt_problem *p, const kt_config *c, char *why, size_t size)
{
    return kt_check_resident(p, value(c, 0, 256), value(c, 1, 4), why, size);
}

// The launch tuned is the application's own (wa::vadd_launch, the one it
// calls with the wisdom it reads), so the plugin hands it the configuration
// and not the shape: the geometry comes from wa::vadd_grid_size in both,
// the application's single definition of it.
template <int VARIANT>
int vadd_launch(void *st, const kt_config *c, const kt_shape *, void *s)
{
    state *x = (state *)st;
    return fail_launch(
        x, wa::vadd_launch(vadd_cfg<VARIANT>(c), x->a, x->b, x->c, (size_t)x->n,
                           x->host->device->sm_count, (cudaStream_t)s));
}

int vadd_work(const kt_problem *p, kt_work *out)
{
    double n = (double)p->sizes[0];
    out->bytes_read = 8.0 * n;
    out->bytes_written = 4.0 * n;
    out->flops = n;
    return KT_OK;
}

int vadd_setup(const kt_host *host, const kt_problem *p, void **out)
{
    state *s = (state *)calloc(1, sizeof(state));
    size_t n = (size_t)p->sizes[0], bytes = n * sizeof(float);
    float *ha = NULL, *hb = NULL;
    int rc = KT_FAIL;
    *out = s;
    if (!s)
        return host->error(host, "out of host memory");
    s->host = host;
    s->m = s->n = (int64_t)n;
    ha = (float *)malloc(bytes);
    hb = (float *)malloc(bytes);
    s->want = (double *)malloc(n * sizeof(double));
    if (!ha || !hb || !s->want) {
        rc = host->error(host, "out of host memory for n = %zu", n);
        goto done;
    }
    host->random_f32(host, 0, ha, n, -1.0f, 1.0f);
    host->random_f32(host, 1, hb, n, -1.0f, 1.0f);
    for (size_t i = 0; i < n; ++i)
        s->want[i] = (double)ha[i] + (double)hb[i];
    if (host->alloc_device(host, bytes, KT_MEM_INPUT, "a", (void **)&s->a) ||
        host->alloc_device(host, bytes, KT_MEM_INPUT, "b", (void **)&s->b) ||
        host->alloc_device(host, bytes, KT_MEM_OUTPUT, "c", (void **)&s->c) ||
        host->upload(host, s->a, ha, bytes) ||
        host->upload(host, s->b, hb, bytes))
        goto done;
    rc = KT_OK;
done:
    free(ha);
    free(hb);
    return rc;
}

// ------------------------------------------------------------------ gemv

template <int VARIANT>
int gemv_shape(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    wa::gemv_config cfg = gemv_cfg<VARIANT>(c);
    uint64_t grid = wa::gemv_grid_size(cfg, p->sizes[0], p->sizes[1]);
    if (!grid)
        return KT_INVALID;
    return kt_shape_1d(out, grid, (uint64_t)cfg.block, wa::gemv_kernel(cfg));
}

int gemv_check(const kt_problem *p, const kt_config *c, char *why, size_t size)
{
    if (value(c, 1, 1) == 4 && p->sizes[1] % 4) {
        snprintf(why, size, "vec = 4 needs n %% 4 == 0, n = %lld",
                 (long long)p->sizes[1]);
        return KT_INVALID;
    }
    return KT_OK;
}

// As vadd_launch: the application's launch, its geometry from
// wa::gemv_grid_size.
template <int VARIANT>
int gemv_launch(void *st, const kt_config *c, const kt_shape *, void *s)
{
    state *x = (state *)st;
    return fail_launch(x,
                       wa::gemv_launch(gemv_cfg<VARIANT>(c), x->a, x->b, x->c,
                                       (int)x->m, (int)x->n, (cudaStream_t)s));
}

int gemv_work(const kt_problem *p, kt_work *out)
{
    double m = (double)p->sizes[0], n = (double)p->sizes[1];
    out->bytes_read = 4.0 * (m * n + n);
    out->bytes_written = 4.0 * m;
    out->flops = 2.0 * m * n;
    return KT_OK;
}

int gemv_setup(const kt_host *host, const kt_problem *p, void **out)
{
    state *s = (state *)calloc(1, sizeof(state));
    size_t m = (size_t)p->sizes[0], n = (size_t)p->sizes[1];
    float *hA = NULL, *hx = NULL;
    int rc = KT_FAIL;
    *out = s;
    if (!s)
        return host->error(host, "out of host memory");
    s->host = host;
    s->m = (int64_t)m;
    s->n = (int64_t)n;
    // float sums of n products in [-1, 1): far inside n * 2^-20.
    s->atol = (double)n * 1e-6;
    hA = (float *)malloc(m * n * sizeof(float));
    hx = (float *)malloc(n * sizeof(float));
    s->want = (double *)malloc(m * sizeof(double));
    if (!hA || !hx || !s->want) {
        rc = host->error(host, "out of host memory for %zu x %zu", m, n);
        goto done;
    }
    host->random_f32(host, 0, hA, m * n, -1.0f, 1.0f);
    host->random_f32(host, 1, hx, n, -1.0f, 1.0f);
    for (size_t i = 0; i < m; ++i) {
        double acc = 0;
        for (size_t j = 0; j < n; ++j)
            acc += (double)hA[i * n + j] * (double)hx[j];
        s->want[i] = acc;
    }
    if (host->alloc_device(host, m * n * sizeof(float), KT_MEM_INPUT, "A",
                           (void **)&s->a) ||
        host->alloc_device(host, n * sizeof(float), KT_MEM_INPUT, "x",
                           (void **)&s->b) ||
        host->alloc_device(host, m * sizeof(float), KT_MEM_OUTPUT, "y",
                           (void **)&s->c) ||
        host->upload(host, s->a, hA, m * n * sizeof(float)) ||
        host->upload(host, s->b, hx, n * sizeof(float)))
        goto done;
    rc = KT_OK;
done:
    free(hA);
    free(hx);
    return rc;
}

// ------------------------------------------------------------ descriptors

const kt_size_desc vadd_sizes[] = {
    KT_SIZE("n", "number of elements", 1 << 22, 1, (int64_t)1 << 30),
};
const kt_size_desc gemv_sizes[] = {
    KT_SIZE("m", "rows of A", 4096, 1, 1 << 20),
    KT_SIZE("n", "columns of A", 4096, 1, 1 << 20),
};

// Index 0 of each is the application's default.
const kt_variant vadd_variants[] = {
    KT_VARIANT("one_per_thread", "one element per thread", block_only,
               vadd_shape<wa::VADD_ONE_PER_THREAD>, nullptr,
               vadd_launch<wa::VADD_ONE_PER_THREAD>),
    KT_VARIANT("grid_stride", "blocks_per_sm x SMs blocks loop", grid_params,
               vadd_shape<wa::VADD_GRID_STRIDE>, vadd_check,
               vadd_launch<wa::VADD_GRID_STRIDE>),
    KT_VARIANT("vec4", "grid-stride float4 loads, scalar tail", grid_params,
               vadd_shape<wa::VADD_VEC4>, vadd_check,
               vadd_launch<wa::VADD_VEC4>),
};
const kt_variant gemv_variants[] = {
    KT_VARIANT("warp_row", "a warp per row, shuffle reduction", row_params,
               gemv_shape<wa::GEMV_WARP_ROW>, gemv_check,
               gemv_launch<wa::GEMV_WARP_ROW>),
    KT_VARIANT("thread_row", "a thread per row (uncoalesced)", block_only,
               gemv_shape<wa::GEMV_THREAD_ROW>, nullptr,
               gemv_launch<wa::GEMV_THREAD_ROW>),
    KT_VARIANT("block_row", "a block per row, shared reduction", row_params,
               gemv_shape<wa::GEMV_BLOCK_ROW>, gemv_check,
               gemv_launch<wa::GEMV_BLOCK_ROW>),
};

const kt_operator operators[] = {
    KT_OPERATOR("vadd", "c = a + b, float32", 0, vadd_sizes, vadd_variants,
                vadd_work, vadd_setup, nullptr, verify, teardown),
    KT_OPERATOR("gemv", "y = A x, A row-major float32", 0, gemv_sizes,
                gemv_variants, gemv_work, gemv_setup, nullptr, verify,
                teardown),
};

const kt_plugin plugin =
    KT_PLUGIN("wisdom_app", "1.0.0",
              "the example application's kernels, for tuning", operators);

} // namespace

KT_PLUGIN_EXPORT(plugin)
