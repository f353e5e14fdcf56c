// SPDX-License-Identifier: Apache-2.0
/*
 * The inside of a kt_select_wisdom handle, shared by the reader
 * (select/read.c) and the lookup (select/select.c). Not installed.
 *
 * One handle is an arena of text and arrays (strings interned: a file
 * repeats the same operator, device and parameter names on every line),
 * the entries in file order, and an index sorted by operator for lookups.
 * Nothing changes after kt_select_open() returns.
 */
#ifndef KT_SELECT_INTERNAL_H
#define KT_SELECT_INTERNAL_H

#include <stddef.h>

#include "ktune/select.h"

typedef struct kt_sel_chunk kt_sel_chunk;

/* What the lookup needs of an entry, computed once: log2 of each size and
 * their sum (the log of the problem's volume). */
typedef struct kt_sel_logs {
    const double *log2;
    double volume;
} kt_sel_logs;

struct kt_select_wisdom {
    kt_sel_chunk *chunks; /* the arena */
    const char **strings; /* the intern table (open addressing) */
    size_t num_strings, string_slots;
    kt_select_entry *entries;
    size_t num_entries, cap_entries;
    size_t *by_op;     /* entry indices sorted by (operator, device, sizes) */
    kt_sel_logs *logs; /* per entry, in file order */
};

/* Orders entries by operator, device (case-insensitive), sizes. */
int kt_sel_compare(const kt_select_entry *a, const kt_select_entry *b);

#endif
