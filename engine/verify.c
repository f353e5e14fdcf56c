// SPDX-License-Identifier: Apache-2.0
#include "engine/verify.h"

#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/feasible.h"

/* Clamps v into dimension d's bounds and never above its requested size. */
static int64_t clamp_dim(const kt_operator *op, const int64_t *requested,
                         uint32_t d, int64_t v)
{
    if (v > requested[d])
        v = requested[d];
    if (v < op->sizes[d].min)
        v = op->sizes[d].min;
    if (v > op->sizes[d].max)
        v = op->sizes[d].max;
    return v;
}

/* Adds cand unless it is the requested problem or already listed. */
static size_t add_boundary(const kt_operator *op, const int64_t *requested,
                           kt_boundary *cand, kt_boundary *out, size_t count)
{
    int same = 1;
    for (uint32_t d = 0; d < op->num_sizes; ++d) {
        cand->sizes[d] = clamp_dim(op, requested, d, cand->sizes[d]);
        same &= cand->sizes[d] == requested[d];
    }
    for (size_t j = 0; j < count; ++j)
        if (memcmp(out[j].sizes, cand->sizes, sizeof cand->sizes) == 0)
            return count;
    if (same)
        return count;
    out[count] = *cand;
    return count + 1;
}

/* Several dimensions vary independently: a square problem cannot tell rows
 * from columns, so a kernel that swaps them would pass. One dimension at 1
 * with the others long (1 x N, N x 1), different tails per dimension both
 * ways round, whole blocks of different counts, and small primes. */
static size_t several_dimensions(const kt_operator *op,
                                 const int64_t *requested, int64_t b,
                                 kt_boundary *out, size_t max)
{
    static const int64_t primes[] = {31, 17, 23, 13};
    const int64_t tail = 4 * b + 5, under = b / 2 + 1;
    size_t count = 0;
    uint32_t n = op->num_sizes;

    for (int k = 0; k < 6 + (int)n && count < max; ++k) {
        kt_boundary c;
        memset(&c, 0, sizeof c);
        for (uint32_t d = 0; d < n; ++d) {
            int odd = (d % 2) == 1;
            switch (k) {
            case 0: c.sizes[d] = 1; break;
            case 1: c.sizes[d] = odd ? under : tail; break;
            case 2: c.sizes[d] = odd ? tail : under; break;
            case 3: c.sizes[d] = (int64_t)(d + 1) * b; break;
            case 4: c.sizes[d] = primes[d % 4]; break;
            case 5: c.sizes[d] = primes[(d + 1) % 4]; break;
            default: c.sizes[d] = d == (uint32_t)(k - 6) ? 1 : tail; break;
            }
        }
        c.label = k == 0   ? "one element"
                  : k <= 2 ? "different tails per dimension"
                  : k == 3 ? "whole blocks, a different count per dimension"
                  : k <= 5 ? "small primes, a different one per dimension"
                           : "one dimension 1, the others a tail";
        count = add_boundary(op, requested, &c, out, count);
    }
    return count;
}

size_t kt_boundary_sizes(const kt_operator *op, const int64_t *requested,
                         uint64_t threads, kt_boundary *out, size_t max)
{
    const int64_t b = threads ? (int64_t)threads : 1;
    const struct {
        int64_t value;
        const char *label;
    } picks[] = {
        {1, "one element"},
        {b / 2 + 1, "under one block"},
        {b, "exactly one block"},
        {4 * b, "a multiple of the block"},
        {4 * b + 5, "a tail after whole blocks"},
    };
    size_t count = 0;

    if (op->num_sizes > 1)
        return several_dimensions(op, requested, b, out, max);
    for (size_t p = 0; p < sizeof picks / sizeof picks[0] && count < max; ++p) {
        kt_boundary cand;
        memset(&cand, 0, sizeof cand);
        cand.label = picks[p].label;
        cand.sizes[0] = picks[p].value;
        count = add_boundary(op, requested, &cand, out, count);
    }
    return count;
}

/* The set-up instance for sizes, set up now when it is not kept yet; the
 * oldest kept ones give way when the cache holds too many or too much. */
static kt_status boundary_instance(kt_verifier *v,
                                   const kt_loaded_plugin *plugin,
                                   const kt_operator *op, const int64_t *sizes,
                                   kt_instance **out, kt_err *err)
{
    kt_instance *in, **grown;
    double t0;
    kt_status rc;

    *out = NULL;
    for (size_t i = 0; i < v->count; ++i)
        if (memcmp(v->items[i]->sizes, sizes, op->num_sizes * sizeof *sizes) ==
            0) {
            *out = v->items[i];
            return KT_S_OK;
        }
    while (v->count &&
           (v->count >= KT_VERIFY_KEEP || v->bytes > KT_VERIFY_KEEP_BYTES)) {
        v->bytes -= v->items[0]->svc.bytes_in_use;
        kt_instance_teardown(v->items[0]);
        free(v->items[0]);
        memmove(v->items, v->items + 1, --v->count * sizeof *v->items);
        ++v->evicted;
    }
    grown = realloc(v->items, (v->count + 1) * sizeof *grown);
    in = malloc(sizeof *in);
    if (grown)
        v->items = grown;
    if (!grown || !in) {
        free(in);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    t0 = kt_clock_seconds();
    rc = kt_instance_setup(in, plugin, op, v->gpu, sizes, v->seed, v->log_level,
                           v->host_only, err);
    v->setup_s += kt_clock_seconds() - t0;
    if (rc) {
        free(in);
        return rc;
    }
    v->items[v->count++] = in;
    v->bytes += in->svc.bytes_in_use;
    ++v->setups;
    *out = in;
    return KT_S_OK;
}

static kt_status verify_boundary(kt_verifier *v, const kt_instance *main,
                                 const kt_boundary *b, const kt_point *pt,
                                 cudaStream_t stream, kt_err *err)
{
    const kt_operator *op = main->op;
    kt_instance *in;
    char shown[160];
    kt_status rc;
    kt_problem problem = {sizeof problem, op->num_sizes, b->sizes, v->seed,
                          &v->gpu->dev};
    kt_shape shape;
    kt_err why;

    /* An instance's operator runs in this process (its setup did), so its
     * callbacks are asked here, through its plugin: once at this size, the
     * shape then handed to the launch. */
    memset(&shape, 0, sizeof shape);
    kt_err_clear(&why);
    rc = kt_point_feasible(main->plugin, op, &problem, pt, &shape, &why);
    if (rc == KT_S_INVALID)
        return KT_S_OK; /* cannot run at this size: nothing to verify */
    kt_format_sizes(op, b->sizes, shown, sizeof shown);
    if (rc) /* a callback failed: no shape to launch with */
        return kt_err_set(err, rc, "verifying at %s (%s): %s", shown, b->label,
                          why.msg);
    if ((rc = boundary_instance(v, main->plugin, op, b->sizes, &in, err)))
        return kt_err_prefix(err, "verifying at %s (%s): ", shown, b->label);
    if ((rc = kt_instance_run_verified(in, pt, &shape, stream, err)))
        kt_err_prefix(err, "verifying at %s (%s): ", shown, b->label);
    return rc;
}

void kt_verifier_init(kt_verifier *v, const kt_gpu *gpu, uint64_t seed,
                      int log_level, int host_only)
{
    memset(v, 0, sizeof *v);
    v->gpu = gpu;
    v->seed = seed;
    v->log_level = log_level;
    v->host_only = host_only;
}

void kt_verifier_close(kt_verifier *v, int lost)
{
    for (size_t i = 0; i < v->count; ++i) {
        /* After a fault the context is gone: nothing to give back. */
        if (!lost)
            kt_instance_teardown(v->items[i]);
        free(v->items[i]);
    }
    free(v->items);
    memset(v, 0, sizeof *v);
}

kt_status kt_verify_point(kt_verifier *v, kt_instance *main, const kt_point *pt,
                          const kt_shape *shape, cudaStream_t stream,
                          int boundaries, kt_err *err)
{
    const kt_operator *op = main->op;
    char shown[160];
    kt_status rc;

    if (boundaries) {
        kt_boundary list[KT_MAX_BOUNDARIES];
        uint64_t threads =
            (uint64_t)shape->block[0] * shape->block[1] * shape->block[2];
        size_t n = kt_boundary_sizes(op, main->sizes, threads, list,
                                     KT_MAX_BOUNDARIES);
        for (size_t i = 0; i < n; ++i)
            if ((rc = verify_boundary(v, main, &list[i], pt, stream, err)))
                return rc;
    }
    kt_format_sizes(op, main->sizes, shown, sizeof shown);
    if ((rc = kt_instance_run_verified(main, pt, shape, stream, err)))
        return kt_err_prefix(err, "verifying at %s: ", shown);
    return KT_S_OK;
}
