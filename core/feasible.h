// SPDX-License-Identifier: Apache-2.0
/*
 * Whether a point can run at all, decided without a GPU: the variant's own
 * constraint callback, then its launch shape against the device's limits.
 * Strategies skip infeasible points without spending a measurement.
 */
#ifndef KT_FEASIBLE_H
#define KT_FEASIBLE_H

#include "core/error.h"
#include "core/loader.h"
#include "core/point.h"
#include "ktune/plugin.h"

/* KT_S_OK and the shape in *shape (may be NULL), or KT_S_INVALID with the
 * reason ("block 2048 threads > device limit 1024"), or KT_S_PLUGIN when a
 * callback failed outright. plugin is op's (kt_call_shape asks it), NULL
 * for an operator whose code runs here and that no registry loaded. */
kt_status kt_point_feasible(const kt_loaded_plugin *plugin,
                            const kt_operator *op, const kt_problem *problem,
                            const kt_point *pt, kt_shape *shape, kt_err *err);

/* The device-limit part alone, for a given shape. */
kt_status kt_shape_within_limits(const kt_shape *shape, const kt_device *dev,
                                 kt_err *err);

#endif
