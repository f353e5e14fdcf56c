// SPDX-License-Identifier: Apache-2.0
#include "core/feasible.h"

#include <string.h>

#include "core/loader.h"

kt_status kt_shape_within_limits(const kt_shape *shape, const kt_device *dev,
                                 kt_err *err)
{
    static const char axis[] = "xyz";
    uint64_t threads = 1;

    for (int i = 0; i < 3; ++i) {
        if (shape->block[i] == 0 || shape->grid[i] == 0)
            return kt_err_set(
                err, KT_S_INVALID,
                "launch shape has a zero "
                "dimension: grid (%u, %u, %u), block (%u, %u, %u)",
                shape->grid[0], shape->grid[1], shape->grid[2], shape->block[0],
                shape->block[1], shape->block[2]);
        if (dev->max_block[i] > 0 &&
            shape->block[i] > (uint32_t)dev->max_block[i])
            return kt_err_set(err, KT_S_INVALID,
                              "block.%c = %u > device limit "
                              "%d",
                              axis[i], shape->block[i], dev->max_block[i]);
        if (dev->max_grid[i] > 0 && shape->grid[i] > (uint32_t)dev->max_grid[i])
            return kt_err_set(err, KT_S_INVALID,
                              "grid.%c = %u > device limit "
                              "%d",
                              axis[i], shape->grid[i], dev->max_grid[i]);
        threads *= shape->block[i];
    }
    if (dev->max_threads_per_block > 0 &&
        threads > (uint64_t)dev->max_threads_per_block)
        return kt_err_set(err, KT_S_INVALID,
                          "block of %llu threads > device "
                          "limit %d",
                          (unsigned long long)threads,
                          dev->max_threads_per_block);
    if (dev->shared_mem_per_block_optin > 0 &&
        shape->dynamic_smem_bytes > (uint64_t)dev->shared_mem_per_block_optin)
        return kt_err_set(err, KT_S_INVALID,
                          "%u bytes of dynamic shared memory "
                          "> device limit %lld",
                          shape->dynamic_smem_bytes,
                          (long long)dev->shared_mem_per_block_optin);
    return KT_S_OK;
}

kt_status kt_point_feasible(const kt_loaded_plugin *plugin,
                            const kt_operator *op, const kt_problem *problem,
                            const kt_point *pt, kt_shape *shape, kt_err *err)
{
    const kt_variant *v = &op->variants[pt->variant];
    kt_bound_config bc;
    const kt_config *cfg = kt_point_bind(op, pt, &bc);
    kt_shape local;
    char why[512] = "";
    int check_rc, rc;
    kt_status st;

    memset(&local, 0, sizeof local);
    local.struct_size = sizeof local;
    /* Through the loader: an isolated plugin answers from another process,
     * so a shape() that faults costs this point, not the caller. */
    if ((st = kt_call_shape(plugin, op, pt->variant, problem, cfg, &check_rc,
                            why, sizeof why, &rc, &local, err)))
        return st;
    if (check_rc == KT_INVALID)
        return kt_err_set(err, KT_S_INVALID, "constraint: %s",
                          why[0] ? why : "the variant's check refused it");
    if (check_rc != KT_OK)
        return kt_err_set(err, KT_S_PLUGIN,
                          "variant '%s': check() "
                          "returned %d: %s",
                          v->id, check_rc, why);
    if (rc == KT_INVALID)
        return kt_err_set(err, KT_S_INVALID,
                          "constraint: variant '%s' has no "
                          "launch shape for this problem",
                          v->id);
    if (rc != KT_OK)
        return kt_err_set(err, KT_S_PLUGIN, "variant '%s': shape() returned %d",
                          v->id, rc);
    if (shape)
        *shape = local;
    return kt_shape_within_limits(&local, problem->device, err);
}
