// SPDX-License-Identifier: Apache-2.0
/*
 * A plugin descriptor as JSON: how a probe child hands the descriptor it
 * loaded and validated to a parent that never maps the plugin, and how the
 * verdict cache remembers it. Only data crosses: ids, texts, sizes and
 * parameter sets, plus which optional callbacks exist.
 */
#ifndef KT_DESC_JSON_H
#define KT_DESC_JSON_H

#include <jansson.h>

#include "core/error.h"
#include "ktune/plugin.h"

/* The normalised descriptor d as JSON (new reference), or NULL when a text
 * is not valid UTF-8 (err names the field). */
json_t *kt_desc_to_json(const kt_plugin *d, kt_err *err);

/* Builds a raw descriptor from j into memory from alloc(ctx, bytes) (zeroed
 * blocks the caller owns), with every callback pointing at a stub that
 * fails: the result is data for the loader to validate like a plugin's own
 * descriptor. KT_S_PLUGIN naming the field when j is not a descriptor. */
kt_status kt_desc_from_json(const json_t *j, void *(*alloc)(void *, size_t),
                            void *ctx, const kt_plugin **out, kt_err *err);

#endif
