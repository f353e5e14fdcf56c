// SPDX-License-Identifier: Apache-2.0
/*
 * kt_chints: hints for the compile pool (engine/compile_pool.h) from the
 * points a search will evaluate next, each point's compile keys kept.
 *
 * A search hints the same points again and again: tpe hints every pending
 * proposal at each step, so that a kernel still queued moves forward. Each
 * hint built the point's request (the declaration's checked source) and
 * hashed it whole, twice, to find its key: a third of the host's time per
 * evaluation on BAT's MD5Hash without a GPU (bench_compile_ahead). A point
 * hinted before now costs a look-up and its keys go to the pool alone; its
 * request is built again only when the pool no longer knows the key (left
 * out while its queue was full) or no key could be made.
 *
 * A key kept is the one the point's request had when first hinted. Should
 * a header change during the run, the hint names the old kernel; the
 * verification computes its key afresh and compiles the new one itself.
 */
#ifndef KT_COMPILE_HINTS_H
#define KT_COMPILE_HINTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/point.h"
#include "core/u64map.h"
#include "engine/compile_pool.h"

struct kt_loaded_plugin;

typedef struct kt_chint kt_chint;

/* Owns its entries; the plugin and pool are the caller's. */
typedef struct kt_chints {
    const struct kt_loaded_plugin *plugin; /* a declaration, else no hints */
    const int64_t *sizes;                  /* the problem's, outlive this */
    char arch[32];
    kt_u64map first; /* point hash -> 1 + position of its first entry */
    kt_chint *entries;
    size_t num, cap;
} kt_chints;

void kt_chints_init(kt_chints *h, const struct kt_loaded_plugin *plugin,
                    const int64_t *sizes, const char *arch);
void kt_chints_free(kt_chints *h);

/* Hands pool the kernels of pts[0..n) in order (each point's own, then
 * its then-kernel's where it compiles one): kt_cpool_hint's order and
 * effect. Out of memory, the points not kept are hinted as before. */
void kt_chints_give(kt_chints *h, kt_cpool *pool, const kt_point *pts,
                    size_t n);

#endif
