// SPDX-License-Identifier: Apache-2.0
#include "engine/instance.h"

#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "engine/cuda_check.h"

static kt_status check_sizes(const kt_operator *op, const int64_t *sizes,
                             kt_err *err)
{
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        if (sizes[i] < op->sizes[i].min || sizes[i] > op->sizes[i].max)
            return kt_err_set(err, KT_S_INPUT,
                              "size %s = %lld is outside "
                              "%lld..%lld for operator '%s'",
                              op->sizes[i].name, (long long)sizes[i],
                              (long long)op->sizes[i].min,
                              (long long)op->sizes[i].max, op->id);
    return KT_S_OK;
}

kt_status kt_instance_setup(kt_instance *in, const kt_loaded_plugin *plugin,
                            const kt_operator *op, const kt_gpu *gpu,
                            const int64_t *sizes, uint64_t seed, int log_level,
                            int host_only, kt_err *err)
{
    size_t free_bytes = 0, total = 0;
    double need, t0;
    char shown[160];
    kt_status rc;
    int prc;

    memset(in, 0, sizeof *in);
    in->plugin = plugin;
    in->op = op;
    memcpy(in->sizes, sizes, op->num_sizes * sizeof *sizes);
    in->problem.struct_size = sizeof in->problem;
    in->problem.num_sizes = op->num_sizes;
    in->problem.sizes = in->sizes;
    in->problem.seed = seed;
    in->problem.device = &gpu->dev;
    in->work.struct_size = sizeof in->work;
    kt_format_sizes(op, sizes, shown, sizeof shown);
    if ((rc = check_sizes(op, sizes, err)))
        return rc;
    if ((rc = kt_call_work(plugin, op, &in->problem, &in->work, &prc, err)))
        return rc;
    if (prc != KT_OK)
        return kt_err_set(err, KT_S_PLUGIN,
                          "operator '%s': work() failed for "
                          "%s",
                          op->id, shown);
    /* The algorithm's own bytes are a lower bound of what setup allocates. */
    need = in->work.bytes_read + in->work.bytes_written;
    if ((rc = KT_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total), err)))
        return rc;
    if (need > (double)free_bytes)
        return kt_err_set(err, KT_S_INPUT,
                          "%s needs at least %.2f GiB of "
                          "device memory; %.2f GiB of %.2f GiB are free",
                          shown, need / 1073741824.0, free_bytes / 1073741824.0,
                          total / 1073741824.0);
    kt_services_init(&in->svc, gpu, seed, log_level, host_only);
    t0 = kt_clock_seconds();
    prc = kt_call_setup(plugin, op, &in->svc.host, &in->problem, &in->state);
    in->setup_seconds = kt_clock_seconds() - t0;
    if (prc != KT_OK) {
        rc = kt_err_set(err, KT_S_PLUGIN, "operator '%s': setup(%s) failed: %s",
                        op->id, shown, kt_services_error(&in->svc, "setup"));
        if (in->state)
            op->teardown(in->state);
        kt_services_release(&in->svc, 0);
        return rc;
    }
    in->live = 1;
    return KT_S_OK;
}

void kt_instance_teardown(kt_instance *in)
{
    if (!in->live)
        return;
    in->op->teardown(in->state);
    kt_services_release(&in->svc, 1);
    in->live = 0;
    in->state = NULL;
}

kt_status kt_instance_reset(kt_instance *in, kt_err *err)
{
    if (!in->op->reset)
        return KT_S_OK;
    kt_services_clear_error(&in->svc);
    if (in->op->reset(in->state) != KT_OK)
        return kt_err_set(err, KT_S_PLUGIN, "operator '%s': reset() failed: %s",
                          in->op->id, kt_services_error(&in->svc, "reset"));
    return KT_S_OK;
}

kt_status kt_instance_launch(kt_instance *in, uint32_t variant,
                             const kt_config *cfg, const kt_shape *shape,
                             cudaStream_t stream, kt_err *err)
{
    const kt_variant *v = &in->op->variants[variant];
    int prc;
    cudaError_t code;

    kt_services_clear_error(&in->svc);
    /* The same shape the host checked, computed once for the point. */
    prc = v->launch_shaped ? v->launch_shaped(in->state, cfg, shape, stream)
                           : v->launch(in->state, cfg, stream);
    code = cudaGetLastError();
    /* An error reported at launch, before anything ran, is the device
     * refusing this configuration (too many threads, too much shared
     * memory, ...): the point is invalid, the context intact. Faults of
     * earlier work stay what they are. */
    if (code != cudaSuccess && kt_cuda_classify(code) != KT_S_EXEC)
        return kt_err_set(err, KT_S_INVALID, "launch refused: %s (%s)",
                          cudaGetErrorString(code), cudaGetErrorName(code));
    if (code != cudaSuccess)
        return kt_cuda_status(code, "launch", err);
    if (prc == KT_INVALID)
        return kt_err_set(err, KT_S_INVALID,
                          "variant '%s' refused to launch: "
                          "%s",
                          v->id, kt_services_error(&in->svc, "launch"));
    if (prc != KT_OK)
        return kt_err_set(err, KT_S_PLUGIN, "variant '%s': launch() failed: %s",
                          v->id, kt_services_error(&in->svc, "launch"));
    return KT_S_OK;
}

kt_status kt_instance_run_verified(kt_instance *in, const kt_point *pt,
                                   const kt_shape *shape, cudaStream_t stream,
                                   kt_err *err)
{
    const kt_variant *v = &in->op->variants[pt->variant];
    kt_bound_config bc;
    const kt_config *cfg = kt_point_bind(in->op, pt, &bc);
    kt_status rc;
    int prc;

    /* Inputs change only when the kernels write them; restoring otherwise
     * would re-upload gigabytes for every configuration. */
    if (((in->op->flags & KT_OP_MODIFIES_INPUTS) &&
         (rc = kt_instance_reset(in, err))) ||
        (rc = kt_services_poison_outputs(&in->svc, stream, err)) ||
        (rc = kt_instance_launch(in, pt->variant, cfg, shape, stream, err)) ||
        (rc = kt_cuda_status(cudaStreamSynchronize(stream),
                             "running the kernel", err)))
        return rc;
    kt_services_clear_error(&in->svc);
    in->svc.stream = stream;
    prc = in->op->verify(in->state, cfg, v);
    if (prc == KT_MISMATCH)
        return kt_err_set(err, KT_S_MISMATCH, "%s",
                          kt_services_error(&in->svc, "verify"));
    if (prc != KT_OK)
        return kt_err_set(err, KT_S_PLUGIN,
                          "operator '%s': verify() failed: "
                          "%s",
                          in->op->id, kt_services_error(&in->svc, "verify"));
    /* A fault can surface at the copies inside verify(); check once more. */
    return kt_cuda_status(cudaGetLastError(), "after verification", err);
}
