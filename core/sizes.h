// SPDX-License-Identifier: Apache-2.0
/*
 * A problem's sizes in words, as results and summaries show them.
 */
#ifndef KT_SIZES_H
#define KT_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "ktune/plugin.h"

/* "n=1048576" or "m=4096 n=65536". */
void kt_format_sizes(const kt_operator *op, const int64_t *sizes, char *out,
                     size_t out_size);

#endif
