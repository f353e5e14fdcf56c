// SPDX-License-Identifier: Apache-2.0
/*
 * The human forms of a point's energy measurement: the lines `ktune bench`
 * prints and the Markdown table beside a result's timing table.
 */
#ifndef KT_ENERGY_TEXT_H
#define KT_ENERGY_TEXT_H

#include <stdio.h>

#include "core/energy.h"
#include <ktune/plugin.h>

/* Joules per launch with its interval, average power against the limit,
 * energy per byte and per flop (when the work declares them), the window
 * and the counter's step, clocks and temperature, the cross-check; or the
 * one line saying why energy was not measured. */
void kt_energy_print(FILE *out, const kt_energy *e, const kt_work *work);

/* "| Energy (J) | 95% CI | Power (W) | of limit | nJ/B | Window |" table,
 * one row; nothing when e was not measured. */
void kt_energy_markdown(FILE *out, const kt_energy *e, const kt_work *work);

#endif
