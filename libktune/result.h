/* SPDX-License-Identifier: Apache-2.0 */
/* libktune's results: made by the runs (libktune/commands.c). Internal. */
#ifndef KTUNE_LIB_RESULT_H
#define KTUNE_LIB_RESULT_H

#include <jansson.h>

#include "libktune/session.h"

/* A result over doc (a reference is taken) whose whole document is text
 * (copied), or doc without "points" when text is NULL; NULL when out of
 * memory. */
ktune_result *ktl_result_new(json_t *doc, const char *text);

#endif
