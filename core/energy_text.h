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

/* "against the best" line: the point's energy per byte and per flop over
 * the device's measured best (the calibration's copy and FMA kernel,
 * best_per_byte and best_per_flop in joules; 0: not measured); nothing
 * when e was not measured or neither compares. */
void kt_energy_print_best(FILE *out, const kt_energy *e, const kt_work *work,
                          double best_per_byte, double best_per_flop);

/* The same comparison in words ("3.1x the copy's 8.2 pJ/byte"), "" when
 * neither compares. */
void kt_energy_best_text(const kt_energy *e, const kt_work *work,
                         double best_per_byte, double best_per_flop, char *out,
                         size_t size);

/* "| Energy (J) | 95% CI | Power (W) | of limit | nJ/B | Window |" table,
 * one row; nothing when e was not measured. */
void kt_energy_markdown(FILE *out, const kt_energy *e, const kt_work *work);

#endif
