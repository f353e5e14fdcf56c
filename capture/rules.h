// SPDX-License-Identifier: Apache-2.0
/*
 * Launch-geometry rules for a capture: which block shapes a captured
 * kernel is re-run at, and the grid and dynamic shared memory each one
 * gets.
 *
 * The default keeps the launch's thread count in every dimension (grid x
 * block as captured) and rounds the grid up to whole blocks: for a block
 * (bx, by, bz), grid_d = ceil(captured_grid_d * captured_block_d / b_d).
 * Block sizes are the powers of two (with the captured size) in the
 * dimensions the launch uses, 32 to 1024 threads in all, the captured
 * shape among them; the shared memory stays as captured. A kernel that
 * does not check its bounds, or that relies on its block size, gives the
 * wrong output at the other shapes, and verification says so.
 *
 * A user replaces any of that in a small INI file beside the capture
 * (geometry.ini, docs/capture.md):
 *
 *   [geometry]
 *   block_x = 32, 64, 128, 256       ; values, or 32..1024 (powers of 2)
 *   block_y = 1
 *   grid_x  = ceil_div(cap_grid_x * cap_block_x, block_x)
 *   smem    = block_x * 4
 *   require = block_x * block_y <= 512
 *
 * Expressions (core/expr.h, C syntax) read the captured geometry
 * (cap_grid_x..z, cap_block_x..z, cap_smem) and the block parameters
 * (block_x, block_y, block_z).
 */
#ifndef KT_CAPTURE_RULES_H
#define KT_CAPTURE_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "capture/format.h"
#include "core/error.h"
#include "core/expr.h"

#define KT_CAP_RULES_FILE "geometry.ini"
#define KT_CAP_MAX_VALUES 64

typedef struct kt_cap_rules {
    int64_t values[3][KT_CAP_MAX_VALUES]; /* block_x, block_y, block_z */
    size_t counts[3];
    kt_expr *grid[3], *smem, *require; /* NULL: the default rule */
    int custom;                        /* a rules file was read */
    char file[4200];                   /* its path, when custom */
} kt_cap_rules;

/* The rules of capture c: its folder's geometry.ini when there is one,
 * else the default. KT_S_INPUT names file:line, the key, what was found.
 * Free with kt_cap_rules_free (also after a failure). */
kt_status kt_cap_rules_load(const kt_capture *c, kt_cap_rules *r, kt_err *err);

/* The default rules alone (no file read). */
kt_status kt_cap_rules_default(const kt_capture *c, kt_cap_rules *r,
                               kt_err *err);

void kt_cap_rules_free(kt_cap_rules *r);

/* The geometry of block (bx, by, bz) under r: grid and shared memory, and
 * *ok 0 with why filled when the rules' require (or the default's thread
 * range) refuses it. KT_S_INPUT when an expression fails (overflow,
 * division by zero) or gives a grid outside 1..2^31-1. */
kt_status kt_cap_rules_shape(const kt_cap_rules *r, const kt_capture *c,
                             const int64_t block[3], uint32_t grid[3],
                             uint32_t *smem, int *ok, char *why,
                             size_t why_size, kt_err *err);

/* Every block shape of r evaluated (what --check does before a GPU is
 * near): *allowed counts those the rules accept. KT_S_INPUT when any
 * expression fails at any shape (division by zero, a grid or shared memory
 * out of range: the message names the shape), or when no shape is allowed
 * (a require that excludes them all). */
kt_status kt_cap_rules_check(const kt_cap_rules *r, const kt_capture *c,
                             size_t *allowed, kt_err *err);

/* ceil(a * b / d) for the default grid rule, saturated to UINT32_MAX;
 * d > 0. */
uint64_t kt_cap_round_up_grid(uint64_t grid, uint64_t block, uint64_t d);

#endif
