// SPDX-License-Identifier: Apache-2.0
/*
 * A declared operator run (docs/declared.md): the engine's side of a
 * declaration (declared/declared.h). kt_declared_load reads one and checks
 * its kernels with NVRTC; the descriptor's callbacks (engine/declared_run.c)
 * compile each compile-time assignment, allocate and fill the buffers,
 * compute the reference once per problem and verify against it; the
 * declared kind (engine/declared_kind.c) is how the loader reads
 * declarations.
 *
 * Thread safety: as the descriptor's callbacks (docs/plugin-abi.md).
 */
#ifndef KT_DECLARED_RUN_H
#define KT_DECLARED_RUN_H

#include "declared/declared.h"
#include "engine/nvrtc.h"

/* kt_declared_read with NVRTC as the check's compiler: each variant's
 * default kernel and each generator compiled for check_arch, no GPU
 * needed (a missing NVRTC is a warning: the GPU run says so per point). */
kt_status kt_declared_load(const char *path, kt_declared **out, kt_err *err);

/* ---- engine/declared_run.c: the callbacks ----------------------------- */

/* Fills d's descriptor (d->plugin), handed to the registry: an ordinary
 * one, whose callbacks find d in their data (ABI 1.3: the operator's data
 * is d, a variant's its kt_decl_variant) and call the kt_declared_*
 * functions below; the stateful callbacks find d in their state.
 * KT_S_NOMEM naming d's file when the variant table cannot be made. */
kt_status kt_declared_describe(kt_declared *d, kt_err *err);

/* The callbacks of d's operator and of its variant vi, with d. */
int kt_declared_work(const kt_declared *d, const kt_problem *p, kt_work *out);
int kt_declared_work_of(const kt_declared *d, size_t vi, const kt_problem *p,
                        const kt_config *c, kt_work *out);
int kt_declared_check(const kt_declared *d, size_t vi, const kt_problem *p,
                      const kt_config *c, char *why, size_t why_size);
int kt_declared_shape(const kt_declared *d, size_t vi, const kt_problem *p,
                      const kt_config *c, kt_shape *out);
int kt_declared_setup(const kt_declared *d, const kt_host *h,
                      const kt_problem *p, void **state);

/* The compile request of variant vi of the declared operator plugin
 * loaded, at values (the variant's parameters, in order) and sizes for
 * arch: 1 with *out pointing into *b (free b->src after use). 0 when
 * plugin is not a declaration (a compiled plugin, an isolated copy, NULL)
 * or the request cannot be made (the launch will say why). then 1: the
 * variant's then-kernel's, 0 when it has none to compile of its own (none,
 * or one taken from the first kernel's module). For the compile pool
 * (engine/compile_pool.h): what a point will compile, before its
 * verification asks. */
struct kt_loaded_plugin;
int kt_declared_compile_request(const struct kt_loaded_plugin *plugin,
                                size_t vi, const int64_t *sizes,
                                const int64_t *values, const char *arch,
                                int then, kt_decl_request *b,
                                kt_nvrtc_request *out);

/* The declaration a registry loaded as lp (engine/declared_kind.c), or
 * NULL when lp is not a declaration. */
const kt_declared *kt_declared_of_plugin(const struct kt_loaded_plugin *lp);

#endif
