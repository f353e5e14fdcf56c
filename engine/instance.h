// SPDX-License-Identifier: Apache-2.0
/*
 * kt_instance: one problem instance of an operator on the GPU — the
 * plugin's state after setup(), with the host services that own its device
 * memory. The requested size gets one instance for a whole session, and so
 * does each boundary size verification uses (engine/verify.h keeps them).
 */
#ifndef KT_INSTANCE_H
#define KT_INSTANCE_H

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "core/loader.h"
#include "core/point.h"
#include "core/sizes.h"
#include "engine/gpu.h"
#include "engine/services.h"

typedef struct kt_instance {
    const kt_loaded_plugin *plugin; /* op's, or NULL (kt_call_*) */
    const kt_operator *op;
    int64_t sizes[KT_MAX_SIZES];
    kt_problem problem;
    kt_work work;
    kt_services svc;
    void *state;
    int live;
    double setup_seconds;
} kt_instance;

/* Checks the sizes against the operator's bounds and the device's free
 * memory (before allocating anything), then calls setup(). op's callbacks
 * are asked through plugin, the one that loaded it (kt_call_*; NULL for an
 * operator this process made). gpu, plugin and op must outlive the
 * instance, which must not move in memory once set up (the
 * plugin keeps a pointer to its services). host_only: the plugin gets no
 * device comparison and verifies on the host (kt_services_init). On
 * failure nothing stays allocated. */
kt_status kt_instance_setup(kt_instance *in, const kt_loaded_plugin *plugin,
                            const kt_operator *op, const kt_gpu *gpu,
                            const int64_t *sizes, uint64_t seed, int log_level,
                            int host_only, kt_err *err);

/* Calls teardown() and frees whatever the plugin left. Safe to call twice. */
void kt_instance_teardown(kt_instance *in);

/* Restores the inputs when the operator has reset(); otherwise a no-op. */
kt_status kt_instance_reset(kt_instance *in, kt_err *err);

/* Enqueues the launch of cfg, a configuration of variant (kt_point_bind),
 * and checks the launch itself. shape is the configuration's shape() at
 * this instance's problem, computed once for the point (kt_point_feasible)
 * and handed to launch_shaped: shape() is pure, so neither a timed launch
 * nor a verification asks it again. cfg and shape are the caller's. */
kt_status kt_instance_launch(kt_instance *in, uint32_t variant,
                             const kt_config *cfg, const kt_shape *shape,
                             cudaStream_t stream, kt_err *err);

/* One verified run of pt, whose shape at this instance's problem is shape
 * (kt_point_feasible's): reset (when the kernels modify their inputs),
 * poison outputs, launch, synchronise, verify.
 * KT_S_OK, KT_S_INVALID (launch refused), KT_S_MISMATCH, KT_S_EXEC (the
 * kernel faulted), KT_S_PLUGIN or KT_S_CUDA. */
kt_status kt_instance_run_verified(kt_instance *in, const kt_point *pt,
                                   const kt_shape *shape, cudaStream_t stream,
                                   kt_err *err);

#endif
