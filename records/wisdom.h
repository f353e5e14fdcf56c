// SPDX-License-Identifier: Apache-2.0
/*
 * kt_wisdom: the file of tuned answers applications select from at run
 * time (docs/wisdom.md; read by libktune-select, select/).
 *
 * JSON Lines: a header line {"ktune_wisdom": 1, "entries": N, ...}, then
 * one entry per line: operator, plugin version, device name and compute
 * capability, sizes, variant and parameters, time and interval, ktune
 * version and date. An entry's key is (operator, device, sizes): a newer
 * answer for a key replaces the older, other devices live side by side.
 *
 * Merging rewrites the file whole — read, merge, write a temporary file in
 * the same folder, fsync, rename over the original — under an exclusive
 * lock on FILE.lock, so concurrent tuning runs merge one after the other
 * and a reader never sees half a file. Only a regular file is replaced; a
 * damaged file is refused, never overwritten.
 */
#ifndef KT_WISDOM_H
#define KT_WISDOM_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "core/loader.h"
#include "core/point.h"
#include "ktune/select.h"

/* One answer of a tuning run. Everything is borrowed. */
typedef struct kt_wisdom_answer {
    const char *spec; /* "plugin:operator" */
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    const char *device_name;
    int cc_major, cc_minor;
    const int64_t *sizes; /* op->num_sizes */
    kt_point point;
    double time_us, ci_lo_us, ci_hi_us;
} kt_wisdom_answer;

/* The entry line of an answer (new reference); date is ISO 8601 UTC. */
json_t *kt_wisdom_answer_json(const kt_wisdom_answer *a, const char *date);

/* Merges answers[0..n) into the file at path (created when missing), as
 * the header says. *added and *replaced (may be NULL) count what changed.
 * KT_S_INPUT for a damaged file or one that is not a regular file,
 * KT_S_IO when it cannot be written. */
kt_status kt_wisdom_merge(const char *path, const kt_wisdom_answer *answers,
                          size_t n, size_t *added, size_t *replaced,
                          kt_err *err);

/* Reads path through libktune-select; KT_S_INPUT with its message. Close
 * with kt_select_close(). */
kt_status kt_wisdom_open(const char *path, kt_select_wisdom **out, kt_err *err);

typedef enum kt_wisdom_state {
    KT_WISDOM_CURRENT = 0, /* plugin, variant and parameters as loaded now */
    KT_WISDOM_STALE = 1,   /* plugin version changed, or no longer valid */
    KT_WISDOM_UNKNOWN = 2  /* its plugin or operator is not loaded */
} kt_wisdom_state;

/* Checks one entry against the plugins in reg; why says what is stale or
 * unknown ("" when current). */
kt_wisdom_state kt_wisdom_check(const kt_registry *reg,
                                const kt_select_entry *e, char *why,
                                size_t why_size);

#endif
