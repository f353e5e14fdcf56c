#include "core/verify.h"

#include <string.h>

#include "core/feasible.h"

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

    for (size_t p = 0; p < sizeof picks / sizeof picks[0] && count < max; ++p) {
        kt_boundary cand;
        int same_as_requested = 1, duplicate = 0;
        memset(&cand, 0, sizeof cand);
        cand.label = picks[p].label;
        for (uint32_t d = 0; d < op->num_sizes; ++d) {
            int64_t v = picks[p].value;
            if (v > requested[d])
                v = requested[d];
            if (v < op->sizes[d].min)
                v = op->sizes[d].min;
            if (v > op->sizes[d].max)
                v = op->sizes[d].max;
            cand.sizes[d] = v;
            same_as_requested &= v == requested[d];
        }
        for (size_t j = 0; j < count && !duplicate; ++j)
            duplicate =
                memcmp(out[j].sizes, cand.sizes, sizeof cand.sizes) == 0;
        if (!same_as_requested && !duplicate)
            out[count++] = cand;
    }
    return count;
}

static kt_status verify_boundary(const kt_operator *op, const kt_gpu *gpu,
                                 const kt_boundary *b, uint64_t seed,
                                 const kt_point *pt, cudaStream_t stream,
                                 int log_level, kt_err *err)
{
    kt_instance in;
    char shown[160];
    kt_status rc;
    kt_problem problem = {sizeof problem, op->num_sizes, b->sizes, seed,
                          &gpu->dev};

    if (kt_point_feasible(op, &problem, pt, NULL, NULL) == KT_S_INVALID)
        return KT_S_OK; /* cannot run at this size: nothing to verify */
    kt_format_sizes(op, b->sizes, shown, sizeof shown);
    if ((rc = kt_instance_setup(&in, op, gpu, b->sizes, seed, log_level, err)))
        return kt_err_prefix(err, "verifying at %s (%s): ", shown, b->label);
    rc = kt_instance_run_verified(&in, pt, stream, err);
    kt_instance_teardown(&in);
    if (rc)
        kt_err_prefix(err, "verifying at %s (%s): ", shown, b->label);
    return rc;
}

kt_status kt_verify_point(kt_instance *main, const kt_gpu *gpu,
                          const kt_point *pt, cudaStream_t stream,
                          int boundaries, int log_level, kt_err *err)
{
    const kt_operator *op = main->op;
    kt_shape shape;
    char shown[160];
    kt_status rc;

    if ((rc = kt_point_feasible(op, &main->problem, pt, &shape, err)))
        return rc;
    if (boundaries) {
        kt_boundary list[KT_MAX_BOUNDARIES];
        uint64_t threads =
            (uint64_t)shape.block[0] * shape.block[1] * shape.block[2];
        size_t n = kt_boundary_sizes(op, main->sizes, threads, list,
                                     KT_MAX_BOUNDARIES);
        for (size_t i = 0; i < n; ++i)
            if ((rc = verify_boundary(op, gpu, &list[i], main->problem.seed, pt,
                                      stream, log_level, err)))
                return rc;
    }
    kt_format_sizes(op, main->sizes, shown, sizeof shown);
    if ((rc = kt_instance_run_verified(main, pt, stream, err)))
        return kt_err_prefix(err, "verifying at %s: ", shown);
    return KT_S_OK;
}
