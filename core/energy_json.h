// SPDX-License-Identifier: Apache-2.0
/*
 * The JSON form of a point's energy measurement (kt_energy), as results,
 * the journal and the worker's wire carry it: {"measured": false, "note"}
 * where it was not measured, else the per-round samples and every figure
 * of the window (docs/schemas: "energy").
 */
#ifndef KT_ENERGY_JSON_H
#define KT_ENERGY_JSON_H

#include <jansson.h>

#include "core/energy.h"
#include "core/error.h"

/* New reference. */
json_t *kt_energy_to_json(const kt_energy *e);

/* Rebuilds e (statistics recomputed from the samples); j NULL: not
 * measured, no note (a record made before energy was). KT_S_INPUT naming
 * the field otherwise. */
kt_status kt_energy_from_json(const json_t *j, kt_energy *e, kt_err *err);

#endif
