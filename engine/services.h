// SPDX-License-Identifier: Apache-2.0
/*
 * kt_services: the host side of the kt_host table a plugin receives in
 * setup(). One per problem instance: it owns every device allocation the
 * plugin makes, the problem's seed, and the last error text.
 */
#ifndef KT_SERVICES_H
#define KT_SERVICES_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "core/check.h"
#include "core/error.h"
#include "engine/gpu.h"
#include "ktune/plugin.h"

typedef struct kt_alloc {
    void *ptr;
    size_t bytes;
    kt_mem_role role;
    char name[32];
} kt_alloc;

typedef struct kt_services {
    kt_host host; /* handed to the plugin; host.host_private -> this */
    const kt_gpu *gpu;
    uint64_t seed;
    kt_alloc *allocs;
    size_t num_allocs;
    size_t bytes_in_use;
    double alloc_seconds; /* wall time spent in cudaMalloc */
    double check_seconds; /* wall time spent in check_f32(_device) */
    /* The stream the device comparison runs on (the caller's, set before
     * verify(); the outputs are complete when verify() is called). */
    cudaStream_t stream;
    kt_check_record *check_dev;  /* the comparison's record; made once */
    kt_check_record *check_host; /* pinned */
    int log_level;               /* messages at a higher level are dropped */
    char error[1024];            /* text from host->error() and check_f32() */
} kt_services;

/* gpu must outlive svc. log_level is a kt_log_level. host_only leaves the
 * device comparison out of the table (check_f32_device NULL), so plugins
 * take their host path: ktune's behaviour before the device services, for
 * comparison, and what an older host offers. */
void kt_services_init(kt_services *svc, const kt_gpu *gpu, uint64_t seed,
                      int log_level, int host_only);

/* Fills every KT_MEM_OUTPUT allocation with 0xFF bytes (NaN as float,
 * -1 as integers) on stream, so an element the kernel never writes fails
 * verification. */
kt_status kt_services_poison_outputs(kt_services *svc, cudaStream_t stream,
                                     kt_err *err);

/* Frees what the plugin left allocated; names each leftover in a warning
 * when warn is set. */
void kt_services_release(kt_services *svc, int warn);

/* The error text a plugin callback left; when it left none, one naming the
 * callback ("setup() failed without saying why") is set and returned. */
const char *kt_services_error(kt_services *svc, const char *callback);
void kt_services_clear_error(kt_services *svc);

/* The host side of check_f32, usable without a GPU: compares got[0..count)
 * with want; element i is reported as index_base + i. Returns KT_OK or
 * KT_MISMATCH and describes the first failures in msg. */
int kt_check_values_f32(const char *name, const float *got, const double *want,
                        size_t count, size_t index_base, double rtol,
                        double atol, char *msg, size_t msg_size);

#endif
