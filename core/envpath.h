// SPDX-License-Identifier: Apache-2.0
/*
 * Paths that name environment variables: "${KTUNE_HUB_DIR}/kernels/x.json".
 * Declarations find third-party checkouts this way (the benchmark hub,
 * BAT) instead of holding a machine's absolute paths.
 */
#ifndef KT_ENVPATH_H
#define KT_ENVPATH_H

#include <stddef.h>

#include "core/error.h"

/* Expands every ${NAME} in text into out[out_size]. KT_S_INPUT when a
 * variable is unset or empty ("${KTUNE_HUB_DIR} is not set: point it at a
 * checkout of AutoTuningAssociation/benchmark_hub"), when a "${" is not
 * closed, or when the result does not fit (never cut). */
kt_status kt_envpath_expand(const char *text, char *out, size_t out_size,
                            kt_err *err);

#endif
