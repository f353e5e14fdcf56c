// SPDX-License-Identifier: Apache-2.0
/*
 * The callbacks of declared operators (declared/declared.h). A declaration's
 * descriptor is an ordinary one (ABI 1.3): its pure callbacks and setup()
 * find the declaration in their data (the operator's is the kt_declared,
 * a variant's its kt_decl_variant, which knows its index), and the
 * stateful ones in the state setup made; one set of functions serves
 * every variant of every declaration.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runctx.h"
#include "engine/declared_run.h"
#include "engine/nvrtc.h"

/* A compiled kernel of one configuration (its compile-time values). */
typedef struct memo {
    int64_t values[KT_MAX_PARAMS];
    const void *kernel;
    size_t smem_set; /* dynamic shared memory allowed so far */
    /* The variant's then-kernel (NULL until first launched): taken from
     * kernel's module when it is no template (then_sibling), else
     * compiled on its own. */
    const void *then_kernel;
    int then_sibling;
    size_t then_smem_set;
} memo;

typedef union scalar {
    void *p;
    int32_t i32;
    int64_t i64;
    uint32_t u32;
    uint64_t u64;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    float f32;
    double f64;
} scalar;

/* One reference answer: the outputs (and in-outs) of the reference
 * variant at one assignment of its followed parameters. */
typedef struct reference {
    int64_t key[KT_MAX_PARAMS];            /* the reference's values */
    double *want[KT_DECL_MAX_BUFFERS];     /* verified buffers */
    double *want_dev[KT_DECL_MAX_BUFFERS]; /* the same on the device */
} reference;

/* The last then-kernel launch made ready (enqueue_then): a point's timed
 * launches repeat it, so its kernel, shape and arguments are found and
 * evaluated once, not between the two kernels of every timed launch. */
typedef struct then_launch {
    int ready;
    size_t variant;
    int64_t values[KT_MAX_PARAMS]; /* the point's, as launched */
    const void *kernel;
    int sibling; /* from the first kernel's module */
    kt_shape shape;
    scalar val[KT_DECL_MAX_ARGS];
    void *argv[KT_DECL_MAX_ARGS];
} then_launch;

typedef struct state {
    const kt_declared *d;
    const kt_host *host;
    int64_t sizes[KT_MAX_SIZES];
    uint64_t seed;
    void *dev[KT_DECL_MAX_BUFFERS];
    size_t count[KT_DECL_MAX_BUFFERS];
    void *pristine[KT_DECL_MAX_BUFFERS]; /* device copies, for reset() */
    reference *refs;
    size_t num_refs;
    scalar argval[KT_DECL_MAX_ARGS];
    void *argv[KT_DECL_MAX_ARGS];
    memo **memos;      /* per variant: d->num_variants, owned */
    size_t *num_memos; /* per variant */
    then_launch then;
} state;

static kt_status eval_op(const kt_declared *d, const kt_expr *e,
                         const int64_t *sizes, int64_t *out, kt_err *err)
{
    return kt_declared_eval(NULL, e, sizes, d->num_sizes, NULL, out, err);
}

/* ------------------------------------------------------------ pure */

/* The work expression k (bytes_read, bytes_written, flops) of variant v
 * at the configuration's values into *out; 0 when it is given there. */
static int variant_work(const kt_declared *d, const kt_decl_variant *v, int k,
                        const kt_problem *p, const int64_t *values, double *out)
{
    int64_t x;
    if (!v || !v->work[k] ||
        kt_declared_eval(v, v->work[k], p->sizes, d->num_sizes, values, &x,
                         NULL))
        return 0;
    *out = (double)x;
    return 1;
}

/* The work of variant v at values (v NULL: the operator's, which for
 * expressions of parameters is the reference's at its defaults). */
static int work_at(const kt_declared *d, const kt_decl_variant *v,
                   const kt_problem *p, const int64_t *values, kt_work *out)
{
    double rd = 0, wr = 0, fl = 0;
    int64_t x, defaults[KT_MAX_PARAMS];
    kt_expr *const ops[3] = {d->bytes_read, d->bytes_written, d->flops};
    double *dst[3] = {&rd, &wr, &fl};

    if (!v && d->work_uses_params) {
        v = &d->variants[d->reference];
        for (size_t i = 0; i < KT_MAX_PARAMS; ++i)
            defaults[i] = v->params[i].default_value;
        values = defaults;
    }
    for (size_t i = 0; i < d->num_buffers; ++i) {
        const kt_decl_buffer *b = &d->buffers[i];
        double bytes;
        if (eval_op(d, b->count, p->sizes, &x, NULL))
            return KT_FAIL;
        bytes = (double)x * (double)kt_decl_type_size(b->type);
        /* Each input read once and each output written once, unless said;
         * an in-out buffer is both. */
        if (b->role == KT_MEM_INPUT || b->role == KT_DECL_ROLE_INOUT)
            rd += bytes;
        if (b->role == KT_MEM_OUTPUT || b->role == KT_DECL_ROLE_INOUT)
            wr += bytes;
    }
    for (int k = 0; k < 3; ++k)
        if (!variant_work(d, v, k, p, values, dst[k]) && ops[k] &&
            !eval_op(d, ops[k], p->sizes, &x, NULL))
            *dst[k] = (double)x;
    out->bytes_read = rd;
    out->bytes_written = wr;
    out->flops = fl;
    return KT_OK;
}

int kt_declared_work(const kt_declared *d, const kt_problem *p, kt_work *out)
{
    return work_at(d, NULL, p, NULL, out);
}

int kt_declared_work_of(const kt_declared *d, size_t vi, const kt_problem *p,
                        const kt_config *c, kt_work *out)
{
    return work_at(d, &d->variants[vi], p, c->values, out);
}

static int dim_of(const kt_decl_variant *v, kt_expr *const *e,
                  const kt_problem *p, const kt_config *c, uint32_t *out,
                  char *why, size_t why_size)
{
    kt_err err;
    for (int k = 0; k < 3; ++k) {
        int64_t x = 1;
        if (e[k] && kt_declared_eval(v, e[k], p->sizes, p->num_sizes, c->values,
                                     &x, &err)) {
            snprintf(why, why_size, "[%s]: %s", v->section, err.msg);
            return KT_INVALID;
        }
        if (x < 1 || x > UINT32_MAX) {
            snprintf(why, why_size, "[%s]: '%s' is %lld, expected 1..2^32-1",
                     v->section, kt_expr_text(e[k]), (long long)x);
            return KT_INVALID;
        }
        out[k] = (uint32_t)x;
    }
    return KT_OK;
}

/* A kernel's launch shape (block, grid, dynamic shared memory) of
 * variant v at c: the variant's own or its then-kernel's. */
static int shape_of(const kt_decl_variant *v, kt_expr *const *block,
                    kt_expr *const *grid, const kt_expr *smem,
                    const kt_problem *p, const kt_config *c, kt_shape *out,
                    char *why, size_t why_size)
{
    int64_t bytes = 0;
    kt_err err;

    if (dim_of(v, block, p, c, out->block, why, why_size) ||
        dim_of(v, grid, p, c, out->grid, why, why_size))
        return KT_INVALID;
    if (smem && kt_declared_eval(v, smem, p->sizes, p->num_sizes, c->values,
                                 &bytes, &err)) {
        snprintf(why, why_size, "[%s]: %s", v->section, err.msg);
        return KT_INVALID;
    }
    if (bytes < 0 || bytes > UINT32_MAX) {
        snprintf(why, why_size, "[%s]: '%s' is %lld bytes of shared memory",
                 v->section, kt_expr_text(smem), (long long)bytes);
        return KT_INVALID;
    }
    out->dynamic_smem_bytes = (uint32_t)bytes;
    out->kernel = NULL; /* compiled on first launch; see d_launch */
    return KT_OK;
}

int kt_declared_shape(const kt_declared *d, size_t vi, const kt_problem *p,
                      const kt_config *c, kt_shape *out)
{
    const kt_decl_variant *v = &d->variants[vi];
    char why[512];

    return shape_of(v, v->block, v->grid, v->smem, p, c, out, why, sizeof why);
}

int kt_declared_check(const kt_declared *d, size_t vi, const kt_problem *p,
                      const kt_config *c, char *why, size_t why_size)
{
    const kt_decl_variant *v = &d->variants[vi];
    int64_t ok = 1;
    kt_err err;

    if (!v->require)
        return KT_OK;
    if (kt_declared_eval(v, v->require, p->sizes, p->num_sizes, c->values, &ok,
                         &err)) {
        snprintf(why, why_size, "[%s] require: %s", v->section, err.msg);
        return KT_INVALID;
    }
    if (!ok) {
        snprintf(why, why_size, "[%s] require: '%s' is false", v->section,
                 kt_expr_text(v->require));
        return KT_INVALID;
    }
    return KT_OK;
}

/* A scalar argument of type t: x for integers, f for floating point. */
static void set_scalar(scalar *s, kt_decl_type t, int64_t x, double f)
{
    switch (t) {
    case KT_DECL_F32: s->f32 = (float)f; break;
    case KT_DECL_F64: s->f64 = f; break;
    case KT_DECL_I32: s->i32 = (int32_t)x; break;
    case KT_DECL_I64: s->i64 = x; break;
    case KT_DECL_U32: s->u32 = (uint32_t)x; break;
    case KT_DECL_U64: s->u64 = (uint64_t)x; break;
    case KT_DECL_I8: s->i8 = (int8_t)x; break;
    case KT_DECL_U8: s->u8 = (uint8_t)x; break;
    case KT_DECL_I16: s->i16 = (int16_t)x; break;
    case KT_DECL_U16: s->u16 = (uint16_t)x; break;
    case KT_DECL_F16: s->u16 = kt_decl_f16_from(f); break;
    }
}

/* ---------------------------------------------------------- kernels */

/* The memo of variant vi's compile-time values, or NULL. */
static memo *find_memo(state *st, size_t vi, const int64_t *values)
{
    const kt_decl_variant *v = &st->d->variants[vi];
    int64_t key[KT_MAX_PARAMS] = {0};
    size_t nv = v->num_names - st->d->num_sizes;

    /* Configurations that differ only in run-time values share a kernel. */
    for (size_t i = 0; i < nv && i < KT_MAX_PARAMS; ++i)
        if (v->compile_time_mask >> i & 1)
            key[i] = values[i];
    for (size_t i = 0; i < st->num_memos[vi]; ++i)
        if (memcmp(st->memos[vi][i].values, key, sizeof key) == 0)
            return &st->memos[vi][i];
    return NULL;
}

/* Compiles (the host's compile: pool, cache) the request b made. */
static int compile_request(state *st, kt_decl_request *b, const void **kernel)
{
    const kt_host *h = st->host;
    kt_jit_request req = {sizeof req, (uint32_t)b->num_opts,
                          b->src,     st->d->source_name,
                          b->name,    b->opts};
    int rc;

    if (!KT_HOST_HAS(h, compile) || !h->compile)
        return h->error(h, "this ktune cannot compile kernels");
    rc = h->compile(h, &req, kernel);
    free(b->src);
    b->src = NULL;
    return rc;
}

/* Above the default 48 KiB a kernel must opt in, once. */
static int allow_smem(state *st, const void *kernel, size_t smem, size_t *set)
{
    const kt_host *h = st->host;
    cudaError_t code;

    if (smem <= (size_t)h->device->shared_mem_per_block || smem <= *set)
        return KT_OK;
    code = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (code != cudaSuccess) {
        h->error(h, "cudaFuncSetAttribute(%zu bytes of shared memory): %s",
                 smem, cudaGetErrorString(code));
        return KT_INVALID;
    }
    *set = smem;
    return KT_OK;
}

static int find_kernel(state *st, size_t vi, const int64_t *values, size_t smem,
                       const void **kernel)
{
    const kt_declared *d = st->d;
    const kt_decl_variant *v = &d->variants[vi];
    const kt_host *h = st->host;
    memo *m = find_memo(st, vi, values), *grown;
    kt_decl_request b;
    kt_err err;
    int rc;

    if (!m) {
        if (kt_declared_request(d, vi, st->sizes, values, &b, &err)) {
            free(b.src);
            return h->error(h, "[%s]: %s", v->section, err.msg);
        }
        if ((rc = compile_request(st, &b, kernel)) != KT_OK)
            return rc;
        grown = realloc(st->memos[vi], (st->num_memos[vi] + 1) * sizeof *grown);
        if (!grown)
            return h->error(h, "out of memory");
        st->memos[vi] = grown;
        m = &grown[st->num_memos[vi]++];
        memset(m, 0, sizeof *m);
        for (size_t i = 0; i < KT_MAX_PARAMS; ++i)
            m->values[i] = v->compile_time_mask >> i & 1 ? values[i] : 0;
        m->kernel = *kernel;
    }
    if ((rc = allow_smem(st, m->kernel, smem, &m->smem_set)) != KT_OK)
        return rc;
    *kernel = m->kernel;
    return KT_OK;
}

/* Fills the __constant__ symbols of kernel's module from st's buffers,
 * unless they hold st's already: uploaded after the load and again only
 * when another instance used the module in between, so timed launches of
 * one instance copy nothing. */
static int own_constants(state *st, const void *kernel)
{
    const kt_declared *d = st->d;
    const kt_host *h = st->host;

    if (!d->num_constants || kt_nvrtc_constants_owner(kernel) == st)
        return KT_OK;
    for (size_t i = 0; i < d->num_constants; ++i) {
        const kt_decl_constant *c = &d->constants[i];
        const kt_decl_buffer *buf = &d->buffers[c->buffer];
        size_t have = st->count[c->buffer] * kt_decl_type_size(buf->type);
        size_t bytes = 0;
        void *sym = NULL;
        kt_err err;
        cudaError_t code;
        if (kt_nvrtc_global(kernel, c->symbol, &sym, &bytes, &err))
            return h->error(h, "constant.%s: %s", c->symbol, err.msg);
        if (have > bytes)
            return h->error(h,
                            "constant.%s: buffer '%s' has %zu bytes; the "
                            "symbol holds %zu",
                            c->symbol, buf->name, have, bytes);
        code =
            cudaMemcpy(sym, st->dev[c->buffer], have, cudaMemcpyDeviceToDevice);
        if (code != cudaSuccess)
            return h->error(h, "constant.%s: cudaMemcpy: %s", c->symbol,
                            cudaGetErrorString(code));
    }
    kt_nvrtc_set_constants_owner(kernel, st);
    return KT_OK;
}

/* The then-kernel of variant vi at values: from the first kernel's module
 * when it is no template (and found there: an extern "C" name), else
 * compiled on its own, once per compile-time assignment. */
static int find_then(state *st, size_t vi, const int64_t *values,
                     const void **kernel)
{
    const kt_declared *d = st->d;
    const kt_decl_then *t = d->variants[vi].then;
    memo *m = find_memo(st, vi, values);
    kt_decl_request b;
    kt_err err;
    int rc;

    if (!m)
        return st->host->error(st->host,
                               "then = %s: its first kernel was not "
                               "loaded",
                               t->kernel);
    if (!m->then_kernel && !t->num_targs &&
        kt_nvrtc_sibling(m->kernel, t->kernel, &m->then_kernel, &err) ==
            KT_S_OK)
        m->then_sibling = 1;
    if (!m->then_kernel) {
        if (kt_declared_then_request(d, vi, st->sizes, values, &b, &err)) {
            free(b.src);
            return st->host->error(st->host, "[%s] then: %s",
                                   d->variants[vi].section, err.msg);
        }
        if ((rc = compile_request(st, &b, &m->then_kernel)) != KT_OK) {
            m->then_kernel = NULL;
            return rc;
        }
    }
    *kernel = m->then_kernel;
    return KT_OK;
}

/* The then-kernel's arguments at values into l's val and argv. */
static int then_args(state *st, const kt_decl_variant *v, const int64_t *values,
                     then_launch *l)
{
    const kt_decl_then *t = v->then;
    size_t ns = st->d->num_sizes, np = v->num_names - ns;
    int64_t env[KT_MAX_SIZES + KT_MAX_PARAMS];
    kt_err err;

    /* then.args were parsed against the sizes, then the parameters. */
    memcpy(env, st->sizes, ns * sizeof *env);
    memcpy(env + ns, values, np * sizeof *env);
    for (size_t i = 0; i < t->num_args; ++i) {
        const kt_decl_arg *a = &t->args[i];
        int64_t x = 0;
        double f = 0;
        int floating = a->type == KT_DECL_F32 || a->type == KT_DECL_F64 ||
                       a->type == KT_DECL_F16;
        l->argv[i] = &l->val[i];
        if (a->buffer >= 0) {
            l->val[i].p = st->dev[a->buffer];
            continue;
        }
        if (floating ? kt_declared_scalar(st->d, a, env, &f, &err)
                     : kt_expr_eval(a->value, env, &x, &err))
            return st->host->error(st->host, "[%s] then.args '%s': %s",
                                   v->section, a->text, err.msg);
        set_scalar(&l->val[i], a->type, x, f);
    }
    return KT_OK;
}

/* Makes st->then ready for variant vi's then-kernel at values: the
 * kernel (found or compiled), its shape, its arguments, its shared
 * memory allowed. */
static int then_ready(state *st, size_t vi, const int64_t *values)
{
    const kt_decl_variant *v = &st->d->variants[vi];
    const kt_decl_then *t = v->then;
    size_t np = v->num_names - st->d->num_sizes;
    kt_problem p = {sizeof p, (uint32_t)st->d->num_sizes, st->sizes, st->seed,
                    st->host->device};
    kt_config c = {sizeof c, (uint32_t)np, values, NULL};
    then_launch *l = &st->then;
    char why[512];
    memo *m;
    int rc;

    if (l->ready && l->variant == vi &&
        memcmp(l->values, values, np * sizeof *values) == 0)
        return KT_OK;
    l->ready = 0;
    if ((rc = find_then(st, vi, values, &l->kernel)) != KT_OK ||
        (rc = then_args(st, v, values, l)) != KT_OK)
        return rc;
    if (shape_of(v, t->block, t->grid, t->smem, &p, &c, &l->shape, why,
                 sizeof why) != KT_OK)
        return st->host->error(st->host, "then = %s: %s", t->kernel, why);
    m = find_memo(st, vi, values); /* find_then found it */
    if ((rc = allow_smem(st, l->kernel, l->shape.dynamic_smem_bytes,
                         &m->then_smem_set)) != KT_OK)
        return rc;
    l->sibling = m->then_sibling;
    l->variant = vi;
    memcpy(l->values, values, np * sizeof *values);
    l->ready = 1;
    return KT_OK;
}

/* Launches variant vi's then-kernel at values after its first kernel. */
static int enqueue_then(state *st, size_t vi, const int64_t *values,
                        void *stream)
{
    then_launch *l = &st->then;
    int rc;

    /* The constants are the first kernel's own when it shares its module;
     * another instance may have filled a module of its own since. */
    if ((rc = then_ready(st, vi, values)) != KT_OK ||
        (!l->sibling && (rc = own_constants(st, l->kernel)) != KT_OK))
        return rc;
    (void)cudaLaunchKernel(
        l->kernel, (dim3){l->shape.grid[0], l->shape.grid[1], l->shape.grid[2]},
        (dim3){l->shape.block[0], l->shape.block[1], l->shape.block[2]},
        l->argv, l->shape.dynamic_smem_bytes, (cudaStream_t)stream);
    return KT_OK;
}

/* Variant vi's kernel, and its then-kernel where that is timed with it (or
 * always, for the reference: with_then). */
static int enqueue(state *st, size_t vi, const int64_t *values,
                   const kt_shape *shape, void *stream, int with_then)
{
    const kt_decl_then *t = st->d->variants[vi].then;
    const void *kernel = NULL;
    int rc = find_kernel(st, vi, values, shape->dynamic_smem_bytes, &kernel);
    dim3 grid = {shape->grid[0], shape->grid[1], shape->grid[2]};
    dim3 block = {shape->block[0], shape->block[1], shape->block[2]};

    if (rc != KT_OK || (rc = own_constants(st, kernel)) != KT_OK)
        return rc;
    /* An error here is also the runtime's last error, which the host reads
     * and classifies (refused launch or fault). */
    (void)cudaLaunchKernel(kernel, grid, block, st->argv,
                           shape->dynamic_smem_bytes, (cudaStream_t)stream);
    if (t && (t->timed || with_then))
        return enqueue_then(st, vi, values, stream);
    return KT_OK;
}

/* The kernel a verified configuration launched (no compiling here). */
static const void *d_kernel_of(size_t vi, void *s, const kt_config *c)
{
    state *st = s;
    const kt_decl_variant *v = &st->d->variants[vi];
    int64_t key[KT_MAX_PARAMS] = {0};

    for (size_t i = 0; i < c->count && i < KT_MAX_PARAMS; ++i)
        if (v->compile_time_mask >> i & 1)
            key[i] = c->values[i];
    for (size_t i = 0; i < st->num_memos[vi]; ++i)
        if (memcmp(st->memos[vi][i].values, key, sizeof key) == 0)
            return st->memos[vi][i].kernel;
    return NULL;
}

static int ensure_reference(state *st, const kt_config *c);

static int d_launch(size_t vi, void *s, const kt_config *c,
                    const kt_shape *shape, void *stream)
{
    int rc;
    /* A reference that follows the point is computed before the point's
     * first launch, which is its verification (untimed). */
    if ((rc = ensure_reference((state *)s, c)) != KT_OK)
        return rc;
    return enqueue((state *)s, vi, c->values, shape, stream, 0);
}

/* ------------------------------------------------------- lifecycle */

/* Whether buffer b is verified against the reference. */
static int verified(const kt_decl_buffer *b)
{
    return b->role == KT_MEM_OUTPUT || b->role == KT_DECL_ROLE_INOUT;
}

/* Whether buffer b is filled before the kernels run. */
static int filled(const kt_decl_buffer *b)
{
    return b->role == KT_MEM_INPUT || b->role == KT_DECL_ROLE_INOUT;
}

/* Whether input b is made by the host's device generator (f32 inputs of
 * the default fill only). */
static int device_rng(const state *st, size_t b)
{
    const kt_decl_buffer *buf = &st->d->buffers[b];
    return buf->type == KT_DECL_F32 && buf->fill.kind == KT_FILL_DEFAULT &&
           KT_HOST_HAS(st->host, random_f32_device);
}

/* Runs buffer b's generator kernel: gen(out, count, seed), one thread per
 * element in blocks of 256, and waits for it. */
static int run_generator(state *st, size_t b)
{
    const kt_declared *d = st->d;
    const kt_host *h = st->host;
    const kt_decl_buffer *buf = &d->buffers[b];
    unsigned long long count = st->count[b], seed = st->seed;
    void *args[3] = {&st->dev[b], &count, &seed};
    uint64_t blocks = (count + 255) / 256;
    const void *kernel = NULL;
    const char *name = d->gen_source ? d->gen_source_name : d->source_name;
    kt_jit_request req;
    kt_decl_gen g;
    kt_err err;
    cudaError_t code;
    int rc;

    if (kt_declared_gen_request(d, b, st->sizes, &g, &err))
        rc = h->error(h, "buffer.%s: %s", buf->name, err.msg);
    else if (!KT_HOST_HAS(h, compile) || !h->compile)
        rc = h->error(h, "this ktune cannot compile kernels");
    else {
        req = (kt_jit_request){sizeof req, (uint32_t)g.num_opts, g.src,
                               name,       buf->fill.kernel,     g.opts};
        rc = h->compile(h, &req, &kernel);
    }
    kt_decl_gen_free(&g);
    if (rc != KT_OK)
        return rc == KT_INVALID ? KT_FAIL : rc;
    if (count == 0)
        return KT_OK;
    if (blocks > 0x7fffffffu)
        return h->error(h, "buffer.%s: too many elements for a generator",
                        buf->name);
    code = cudaLaunchKernel(kernel, (dim3){(unsigned)blocks, 1, 1},
                            (dim3){256, 1, 1}, args, 0, NULL);
    if (code == cudaSuccess)
        code = cudaDeviceSynchronize();
    if (code != cudaSuccess)
        return h->error(h, "buffer.%s: generator %s: %s", buf->name,
                        buf->fill.kernel, cudaGetErrorString(code));
    return KT_OK;
}

/* Uploads input b from its .npy file, mapped: no host copy (a large
 * array given from Python or C is not copied again here). */
static int upload_npy(state *st, size_t b, size_t bytes)
{
    const kt_decl_buffer *buf = &st->d->buffers[b];
    const kt_host *h = st->host;
    const void *data = NULL;
    void *map;
    size_t map_len;
    kt_err err;
    int rc;

    if (kt_decl_npy_map(&buf->fill, buf->type, st->count[b], &data, &map,
                        &map_len, &err))
        return h->error(h, "buffer.%s: %s", buf->name, err.msg);
    rc = h->upload(h, st->dev[b], data, bytes);
    kt_decl_npy_unmap(map, map_len);
    return rc;
}

/* Fills input (or in-out) b as declared. */
static int fill_buffer(state *st, size_t b, size_t bytes)
{
    const kt_decl_buffer *buf = &st->d->buffers[b];
    const kt_host *h = st->host;
    void *host;
    kt_err err;
    int rc;

    if (device_rng(st, b))
        /* The same values, made on the device: no host copy. */
        return h->random_f32_device(h, b, (float *)st->dev[b], st->count[b],
                                    -1.0f, 1.0f);
    if (buf->fill.kind == KT_FILL_KERNEL)
        return run_generator(st, b);
    if (buf->fill.kind == KT_FILL_NPY)
        return upload_npy(st, b, bytes);
    if (!(host = malloc(bytes + 1)))
        return h->error(h, "out of host memory for '%s'", buf->name);
    if (kt_decl_fill_host(&buf->fill, buf->type, h, b, host, st->count[b],
                          &err))
        rc = h->error(h, "buffer.%s: %s", buf->name, err.msg);
    else
        rc = h->upload(h, st->dev[b], host, bytes);
    free(host);
    return rc;
}

/* A device copy of b's filled bytes, for reset(): in-outs always, inputs
 * when the kernels write them. */
static int keep_pristine(state *st, size_t b, size_t bytes)
{
    const kt_decl_buffer *buf = &st->d->buffers[b];
    char name[80];
    int rc;

    if (buf->role != KT_DECL_ROLE_INOUT && !st->d->modifies_inputs)
        return KT_OK;
    snprintf(name, sizeof name, "%s (as filled)", buf->name);
    if ((rc = st->host->alloc_device(st->host, bytes, KT_MEM_SCRATCH, name,
                                     &st->pristine[b])))
        return rc;
    if (cudaMemcpy(st->pristine[b], st->dev[b], bytes,
                   cudaMemcpyDeviceToDevice) != cudaSuccess)
        return st->host->error(st->host, "copying '%s' failed", buf->name);
    return KT_OK;
}

static int alloc_buffers(state *st)
{
    const kt_declared *d = st->d;
    const kt_host *h = st->host;
    kt_err err;

    for (size_t b = 0; b < d->num_buffers; ++b) {
        const kt_decl_buffer *buf = &d->buffers[b];
        /* In-outs are never poisoned: they hold their inputs. */
        kt_mem_role role =
            buf->role == KT_DECL_ROLE_INOUT ? KT_MEM_INPUT : buf->role;
        int64_t n;
        size_t bytes;
        int rc;
        if (eval_op(d, buf->count, st->sizes, &n, &err))
            return h->error(h, "buffer.%s: %s", buf->name, err.msg);
        if (n < 0 || __builtin_mul_overflow(
                         (size_t)n, kt_decl_type_size(buf->type), &bytes))
            return h->error(h, "buffer.%s: %lld elements", buf->name,
                            (long long)n);
        st->count[b] = (size_t)n;
        if ((rc = h->alloc_device(h, bytes, role, buf->name, &st->dev[b])))
            return rc;
        if (!filled(buf)) {
            if (cudaMemset(st->dev[b], 0, bytes) != cudaSuccess)
                return h->error(h, "cudaMemset('%s') failed", buf->name);
            continue;
        }
        if ((rc = fill_buffer(st, b, bytes)) ||
            (rc = keep_pristine(st, b, bytes)))
            return rc;
    }
    return KT_OK;
}

static int bind_args(state *st)
{
    const kt_declared *d = st->d;
    kt_err err;

    for (size_t i = 0; i < d->num_args; ++i) {
        const kt_decl_arg *a = &d->args[i];
        scalar *s = &st->argval[i];
        int64_t x = 0;
        double f = 0;
        st->argv[i] = s;
        if (a->buffer >= 0) {
            s->p = st->dev[a->buffer];
            continue;
        }
        if (a->type == KT_DECL_F32 || a->type == KT_DECL_F64 ||
            a->type == KT_DECL_F16) {
            if (kt_declared_scalar(d, a, st->sizes, &f, &err))
                return st->host->error(st->host, "args '%s': %s", a->text,
                                       err.msg);
        } else if (eval_op(d, a->value, st->sizes, &x, &err))
            return st->host->error(st->host, "args '%s': %s", a->text, err.msg);
        set_scalar(s, a->type, x, f);
    }
    return KT_OK;
}

/* Restores the in-outs (and inputs the kernels write) from their copies. */
static int restore(state *st)
{
    int copied = 0;
    for (size_t b = 0; b < st->d->num_buffers; ++b) {
        size_t bytes = st->count[b] * kt_decl_type_size(st->d->buffers[b].type);
        copied |= st->pristine[b] != NULL;
        if (st->pristine[b] &&
            cudaMemcpy(st->dev[b], st->pristine[b], bytes,
                       cudaMemcpyDeviceToDevice) != cudaSuccess)
            return st->host->error(st->host, "restoring '%s' failed",
                                   st->d->buffers[b].name);
    }
    /* Complete before the host's stream launches on them: a stream made
     * non-blocking does not wait for the legacy default stream. */
    if (copied && cudaDeviceSynchronize() != cudaSuccess)
        return st->host->error(st->host, "restoring the inputs failed");
    return KT_OK;
}

/* Poisons the outputs as the host does (0xFF bytes) after a reference ran
 * in them, so a point that leaves an element unwritten cannot pass on the
 * reference's value. */
static int poison(state *st)
{
    for (size_t b = 0; b < st->d->num_buffers; ++b)
        if (st->d->buffers[b].role == KT_MEM_OUTPUT &&
            cudaMemset(st->dev[b], 0xFF,
                       st->count[b] *
                           kt_decl_type_size(st->d->buffers[b].type)) !=
                cudaSuccess)
            return st->host->error(st->host, "poisoning '%s' failed",
                                   st->d->buffers[b].name);
    return cudaDeviceSynchronize() == cudaSuccess
               ? KT_OK
               : st->host->error(st->host, "cudaDeviceSynchronize failed");
}

/* With the host's device compare, the reference of an f32 buffer also
 * lives on the device, so verifying reads nothing back. */
static int reference_on_device(state *st, reference *r, size_t b)
{
    const kt_host *h = st->host;
    const kt_decl_buffer *buf = &st->d->buffers[b];
    size_t bytes = st->count[b] * sizeof(double);
    char name[80];
    int rc;

    if (buf->type != KT_DECL_F32 || !KT_HOST_HAS(h, check_f32_device))
        return KT_OK;
    snprintf(name, sizeof name, "%s (reference)", buf->name);
    if ((rc = h->alloc_device(h, bytes, KT_MEM_SCRATCH, name,
                              (void **)&r->want_dev[b])))
        return rc;
    return h->upload(h, r->want_dev[b], r->want[b], bytes);
}

/* Downloads the verified buffers into r. */
static int keep_answer(state *st, reference *r)
{
    const kt_declared *d = st->d;
    const kt_host *h = st->host;

    for (size_t b = 0; b < d->num_buffers; ++b) {
        const kt_decl_buffer *buf = &d->buffers[b];
        size_t n = st->count[b], es = kt_decl_type_size(buf->type);
        void *tmp;
        int rc;
        if (!verified(buf))
            continue;
        r->want[b] = malloc(n * sizeof(double) + 1);
        tmp = malloc(n * es + 1);
        rc = !r->want[b] || !tmp
                 ? h->error(h, "out of host memory for '%s'", buf->name)
                 : h->download(h, tmp, st->dev[b], n * es);
        for (size_t i = 0; i < n && rc == KT_OK; ++i)
            r->want[b][i] = kt_decl_load(tmp, buf->type, i);
        free(tmp);
        if (rc || (rc = reference_on_device(st, r, b)))
            return rc;
    }
    return KT_OK;
}

/* The reference variant at vals, run once on the buffers as filled: its
 * verified buffers become reference r's answer; the in-outs are restored
 * and the outputs poisoned after it. */
static int run_reference(state *st, const int64_t *vals, reference *r)
{
    const kt_declared *d = st->d;
    const kt_host *h = st->host;
    const kt_decl_variant *v = &d->variants[d->reference];
    const char *names[KT_MAX_PARAMS];
    kt_problem p = {sizeof p, (uint32_t)d->num_sizes, st->sizes, st->seed,
                    h->device};
    kt_config cfg = {sizeof cfg, (uint32_t)(v->num_names - d->num_sizes), vals,
                     names};
    kt_shape shape = {sizeof shape, 0, {1, 1, 1}, {1, 1, 1}, NULL};
    cudaError_t code;
    int rc;

    for (size_t i = 0; i < KT_MAX_PARAMS; ++i)
        names[i] = v->params[i].name;
    memcpy(r->key, vals, sizeof r->key);
    if (kt_declared_shape(d, (size_t)d->reference, &p, &cfg, &shape) != KT_OK)
        return h->error(h, "reference [%s]: no launch shape at these sizes",
                        v->section);
    /* The host's stream (poisoning, the last point) has finished first. */
    if (cudaDeviceSynchronize() != cudaSuccess)
        return h->error(h, "reference [%s]: the device is in error",
                        v->section);
    /* A failure keeps the compiler's text: the reference must compile. */
    if ((rc = restore(st)) != KT_OK ||
        (rc = enqueue(st, (size_t)d->reference, vals, &shape, NULL, 1)) !=
            KT_OK)
        return rc;
    if ((code = cudaGetLastError()) != cudaSuccess ||
        (code = cudaDeviceSynchronize()) != cudaSuccess)
        return h->error(h, "reference [%s]: %s", v->section,
                        cudaGetErrorString(code));
    if ((rc = keep_answer(st, r)) != KT_OK || (rc = restore(st)) != KT_OK)
        return rc;
    return poison(st);
}

/* The reference's values for configuration c: its defaults, with each
 * followed parameter at c's value of the same name (when c has one). */
static void reference_values(const state *st, const kt_config *c, int64_t *vals)
{
    const kt_decl_variant *v = &st->d->variants[st->d->reference];
    for (size_t i = 0; i < KT_MAX_PARAMS; ++i)
        vals[i] = v->params[i].default_value;
    for (size_t f = 0; c && f < v->num_follows; ++f) {
        size_t p = (size_t)v->follows[f];
        for (uint32_t i = 0; i < c->count; ++i)
            if (c->names && strcmp(c->names[i], v->param_names[p]) == 0)
                vals[p] = c->values[i];
    }
}

static reference *find_reference(state *st, const int64_t *vals)
{
    for (size_t i = 0; i < st->num_refs; ++i)
        if (memcmp(st->refs[i].key, vals, sizeof st->refs[i].key) == 0)
            return &st->refs[i];
    return NULL;
}

/* The reference configuration c is verified against, computed now when it
 * is the first of its followed values. */
static int ensure_reference(state *st, const kt_config *c)
{
    int64_t vals[KT_MAX_PARAMS];
    reference *grown;

    reference_values(st, c, vals);
    if (find_reference(st, vals))
        return KT_OK;
    grown = realloc(st->refs, (st->num_refs + 1) * sizeof *grown);
    if (!grown)
        return st->host->error(st->host, "out of memory");
    st->refs = grown;
    memset(&grown[st->num_refs], 0, sizeof *grown);
    return run_reference(st, vals, &grown[st->num_refs++]);
}

int kt_declared_setup(const kt_declared *d, const kt_host *h,
                      const kt_problem *p, void **out)
{
    state *st = calloc(1, sizeof *st);
    int rc;

    *out = st;
    if (!st)
        return h->error(h, "out of memory");
    st->d = d;
    st->host = h;
    st->seed = p->seed;
    st->memos = calloc(d->num_variants, sizeof *st->memos);
    st->num_memos = calloc(d->num_variants, sizeof *st->num_memos);
    if (!st->memos || !st->num_memos)
        return h->error(h, "out of memory");
    memcpy(st->sizes, p->sizes, p->num_sizes * sizeof *p->sizes);
    if ((rc = alloc_buffers(st)) || (rc = bind_args(st)))
        return rc;
    /* A reference that follows parameters waits for its first point. */
    if (d->variants[d->reference].num_follows)
        return KT_OK;
    rc = ensure_reference(st, NULL);
    return rc == KT_INVALID ? KT_FAIL : rc;
}

static int compare_host(state *st, const reference *r, size_t b)
{
    const kt_declared *d = st->d;
    const kt_decl_buffer *buf = &d->buffers[b];
    size_t n = st->count[b], es = kt_decl_type_size(buf->type), bad = 0,
           first = 0;
    void *tmp = malloc(n * es + 1);
    double got0 = 0, want0 = 0;
    int rc;

    if (!tmp)
        return st->host->error(st->host, "out of host memory");
    rc = st->host->download(st->host, tmp, st->dev[b], n * es);
    for (size_t i = 0; i < n && rc == KT_OK; ++i) {
        double got = kt_decl_load(tmp, buf->type, i), want = r->want[b][i];
        double e = got > want ? got - want : want - got;
        if (!(e <= d->atol + d->rtol * (want < 0 ? -want : want)) &&
            bad++ == 0) {
            first = i;
            got0 = got;
            want0 = want;
        }
    }
    free(tmp);
    if (rc == KT_OK && bad) {
        st->host->error(st->host,
                        "%s: %zu of %zu elements differ from the reference "
                        "(first at %zu: got %.9g want %.9g)",
                        buf->name, bad, n, first, got0, want0);
        return KT_MISMATCH;
    }
    return rc;
}

/* A then-kernel that is not timed runs where the outputs are read: after
 * the point's launch (its verification), before they are compared. */
static int untimed_then(state *st, const kt_config *c, const kt_variant *v)
{
    const kt_declared *d = st->d;
    cudaError_t code;
    size_t vi = 0;
    int rc;

    while (vi < d->num_variants && strcmp(d->variants[vi].id, v->id) != 0)
        ++vi;
    if (vi == d->num_variants || !d->variants[vi].then ||
        d->variants[vi].then->timed)
        return KT_OK;
    /* After the host's stream: the first kernel's outputs are its input. */
    if (cudaDeviceSynchronize() != cudaSuccess)
        return st->host->error(st->host, "then = %s: the device is in error",
                               d->variants[vi].then->kernel);
    if ((rc = enqueue_then(st, vi, c->values, NULL)) != KT_OK)
        return rc;
    if ((code = cudaGetLastError()) != cudaSuccess ||
        (code = cudaDeviceSynchronize()) != cudaSuccess)
        return st->host->error(st->host, "then = %s: %s",
                               d->variants[vi].then->kernel,
                               cudaGetErrorString(code));
    return KT_OK;
}

/* The outputs of the point and the reference's handed to the run's
 * verification callback (core/runctx.h) on the host: KT_OK when it passes
 * them, KT_MISMATCH with its message when not. */
static int verify_by_callback(state *st, const reference *r,
                              const kt_run_ctx *ctx)
{
    const kt_declared *d = st->d;
    kt_run_output outs[KT_DECL_MAX_BUFFERS];
    void *got[KT_DECL_MAX_BUFFERS] = {NULL};
    char msg[1024] = "";
    size_t n = 0;
    int rc = KT_OK;

    for (size_t b = 0; b < d->num_buffers && rc == KT_OK; ++b) {
        const kt_decl_buffer *buf = &d->buffers[b];
        size_t bytes = st->count[b] * kt_decl_type_size(buf->type);
        if (!verified(buf))
            continue;
        if (!(got[n] = malloc(bytes + 1))) {
            rc = st->host->error(st->host, "out of host memory");
            break;
        }
        outs[n] = (kt_run_output){buf->name, kt_decl_type_name(buf->type),
                                  st->count[b], got[n], r->want[b]};
        rc = st->host->download(st->host, got[n++], st->dev[b], bytes);
    }
    if (rc == KT_OK &&
        !ctx->verify(ctx->verify_user, outs, n, msg, sizeof msg)) {
        st->host->error(st->host,
                        "the verification callback failed the "
                        "outputs%s%s",
                        msg[0] ? ": " : "", msg);
        rc = KT_MISMATCH;
    }
    for (size_t i = 0; i < n; ++i)
        free(got[i]);
    return rc;
}

static int d_verify(void *s, const kt_config *c, const kt_variant *v)
{
    const kt_run_ctx *ctx = kt_run_ctx_get();
    state *st = s;
    const kt_declared *d = st->d;
    int64_t vals[KT_MAX_PARAMS];
    const reference *r;
    int rc;

    if (v && (rc = untimed_then(st, c, v)) != KT_OK)
        return rc;
    reference_values(st, c, vals);
    if (!(r = find_reference(st, vals)))
        return st->host->error(st->host,
                               "no reference for this configuration (it "
                               "was not launched first)");
    if (ctx && ctx->verify)
        return verify_by_callback(st, r, ctx);
    for (size_t b = 0; b < d->num_buffers; ++b) {
        const kt_decl_buffer *buf = &d->buffers[b];
        if (!verified(buf))
            continue;
        rc = r->want_dev[b]
                 ? st->host->check_f32_device(st->host, buf->name, st->dev[b],
                                              r->want_dev[b], NULL,
                                              st->count[b], d->rtol, d->atol)
             : buf->type == KT_DECL_F32
                 ? st->host->check_f32(st->host, buf->name, st->dev[b],
                                       r->want[b], st->count[b], d->rtol,
                                       d->atol)
                 : compare_host(st, r, b);
        if (rc != KT_OK)
            return rc;
    }
    return KT_OK;
}

static int d_reset(void *s)
{
    return restore(s);
}

static void d_teardown(void *s)
{
    state *st = s;
    if (!st)
        return;
    kt_nvrtc_forget_constants_owner(st);
    for (size_t b = 0; b < st->d->num_buffers; ++b) {
        if (st->dev[b])
            st->host->free_device(st->host, st->dev[b]);
        if (st->pristine[b])
            st->host->free_device(st->host, st->pristine[b]);
        for (size_t r = 0; r < st->num_refs; ++r) {
            if (st->refs[r].want_dev[b])
                st->host->free_device(st->host, st->refs[r].want_dev[b]);
            free(st->refs[r].want[b]);
        }
    }
    free(st->refs);
    for (size_t v = 0; st->memos && v < st->d->num_variants; ++v)
        free(st->memos[v]);
    free(st->memos);
    free(st->num_memos);
    free(st);
}

/* ------------------------------------------- the descriptor's callbacks */

/* Every callback finds its declaration in its data (ABI 1.3): the
 * operator's is the kt_declared, a variant's its kt_decl_variant, which
 * knows its declaration and index (kt_declared_describe). */
static const kt_decl_variant *variant_of(const kt_config *c)
{
    return KT_CONFIG_DATA(c);
}

static int c_work(const kt_problem *p, kt_work *out)
{
    return kt_declared_work(KT_PROBLEM_DATA(p), p, out);
}

static int c_setup(const kt_host *h, const kt_problem *p, void **s)
{
    return kt_declared_setup(KT_PROBLEM_DATA(p), h, p, s);
}

static int c_shape(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    const kt_decl_variant *v = variant_of(c);
    return kt_declared_shape(v->decl, v->index, p, c, out);
}

static int c_check(const kt_problem *p, const kt_config *c, char *why, size_t n)
{
    const kt_decl_variant *v = variant_of(c);
    return kt_declared_check(v->decl, v->index, p, c, why, n);
}

static int c_work_of(const kt_problem *p, const kt_config *c, kt_work *out)
{
    const kt_decl_variant *v = variant_of(c);
    return kt_declared_work_of(v->decl, v->index, p, c, out);
}

static int c_launch(void *s, const kt_config *c, const kt_shape *sh,
                    void *stream)
{
    return d_launch(variant_of(c)->index, s, c, sh, stream);
}

static const void *c_kernel_of(void *s, const kt_config *c)
{
    return d_kernel_of(variant_of(c)->index, s, c);
}

/* Whether reset() has buffers to restore before each launch that counts:
 * in-outs, or inputs the kernels write. */
static int restores(const kt_declared *d)
{
    for (size_t b = 0; b < d->num_buffers; ++b)
        if (d->buffers[b].role == KT_DECL_ROLE_INOUT)
            return 1;
    return d->modifies_inputs;
}

kt_status kt_declared_describe(kt_declared *d, kt_err *err)
{
    int major = 0, minor = 0;

    free(d->vdesc);
    if (!(d->vdesc = calloc(d->num_variants, sizeof *d->vdesc)))
        return kt_err_set(err, KT_S_NOMEM, "%s: out of memory", d->path);
    for (size_t i = 0; i < d->num_variants; ++i) {
        kt_decl_variant *v = &d->variants[i];
        kt_variant *out = &d->vdesc[i];
        uint32_t np = (uint32_t)(v->num_names - d->num_sizes);
        v->decl = d;
        v->index = i;
        *out = (kt_variant){.struct_size = sizeof *out,
                            .num_params = np,
                            .id = v->id,
                            .summary = v->reference ? "declared (reference)"
                                                    : "declared",
                            .params = np ? v->params : NULL,
                            .shape = c_shape,
                            .check = c_check,
                            .launch_shaped = c_launch,
                            .kernel_of = c_kernel_of,
                            /* Only when a parameter changes the work. */
                            .work = d->work_uses_params ? c_work_of : NULL,
                            .data = v};
    }
    d->op = (kt_operator){.struct_size = sizeof d->op,
                          .flags = restores(d) ? KT_OP_MODIFIES_INPUTS : 0,
                          .id = d->name,
                          .summary = d->summary,
                          .sizes = d->sizes,
                          .num_sizes = (uint32_t)d->num_sizes,
                          .num_variants = (uint32_t)d->num_variants,
                          .variants = d->vdesc,
                          .work = c_work,
                          .setup = c_setup,
                          .reset = restores(d) ? d_reset : NULL,
                          .verify = d_verify,
                          .teardown = d_teardown,
                          .data = d};
    kt_nvrtc_version(&major, &minor, NULL);
    snprintf(d->compiler, sizeof d->compiler, "nvrtc %d.%d", major, minor);
    d->plugin = (kt_plugin){.magic = KT_PLUGIN_MAGIC,
                            .struct_size = sizeof d->plugin,
                            .abi_major = KT_ABI_MAJOR,
                            .abi_minor = KT_ABI_MINOR,
                            .cuda_runtime_version = CUDART_VERSION,
                            .cuda_archs = "nvrtc",
                            .compiler = d->compiler,
                            .build_date = "",
                            .name = d->name,
                            .version = "declared",
                            .summary = d->summary,
                            .operators = &d->op,
                            .num_operators = 1};
    return KT_S_OK;
}

int kt_declared_compile_request(const struct kt_loaded_plugin *plugin,
                                size_t vi, const int64_t *sizes,
                                const int64_t *values, const char *arch,
                                int then, kt_decl_request *b,
                                kt_nvrtc_request *out)
{
    const kt_declared *d = kt_declared_of_plugin(plugin);
    kt_err err;

    b->src = NULL;
    /* A then-kernel with no template arguments is in the first kernel's
     * module: nothing of its own to compile. */
    if (!d || vi >= d->num_variants ||
        (then && (!d->variants[vi].then || !d->variants[vi].then->num_targs)))
        return 0;
    if (then ? kt_declared_then_request(d, vi, sizes, values, b, &err)
             : kt_declared_request(d, vi, sizes, values, b, &err)) {
        free(b->src);
        b->src = NULL;
        return 0;
    }
    *out = (kt_nvrtc_request){b->src, d->source_name, b->name,
                              arch,   b->opts,        b->num_opts};
    return 1;
}
