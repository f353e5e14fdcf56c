// SPDX-License-Identifier: Apache-2.0
/* Shared set-up of the GPU tests: skip without a device, load plugins, open
 * an evaluator on one operator and size. */
#ifndef KT_GPU_UTIL_H
#define KT_GPU_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "core/evaluator.h"
#include "core/loader.h"
#include "engine/gpu.h"

#define KT_SKIP 77

static inline void kt_skip_without_gpu(void)
{
    if (kt_gpu_count() == 0) {
        printf("no CUDA device: skipped\n");
        exit(KT_SKIP);
    }
}

/* Loads the built-in plugins and the test fixtures. */
static inline void kt_test_registry(kt_registry *reg)
{
    kt_registry_init(reg);
    kt_registry_load_dir(reg, KT_BUILTIN_PLUGIN_DIR, 1);
    kt_registry_load_dir(reg, KT_TEST_PLUGIN_DIR, 1);
}

/* Opens a local evaluator on spec ("plugin:op") with size n; aborts the test
 * with a message on failure. */
static inline kt_evaluator *kt_test_open(const kt_registry *reg,
                                         const char *spec, int64_t n,
                                         const kt_operator **op_out)
{
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_eval_spec es = {0};
    kt_evaluator *ev;
    kt_err err;

    if (kt_registry_resolve(reg, spec, &lp, &op, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    es.plugin = lp;
    es.op = op;
    es.sizes[0] = n;
    es.seed = 1;
    es.check_boundaries = 1;
    es.log_level = KT_LOG_WARN;
    if (kt_local_open(&es, &ev, &err)) {
        fprintf(stderr, "opening %s at n=%lld: %s\n", spec, (long long)n,
                err.msg);
        exit(1);
    }
    *op_out = op;
    return ev;
}

/* A short protocol for tests that care about correctness, not precision. */
static inline kt_protocol kt_quick_protocol(void)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    p.warmups = 1;
    p.min_samples = 5;
    p.max_samples = 50;
    p.min_time_s = 0.0;
    p.max_time_s = 2.0;
    return p;
}

#endif
