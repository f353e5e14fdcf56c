// SPDX-License-Identifier: Apache-2.0
/*
 * kt_param: the values a declared parameter can take, and text <-> value.
 *
 * A parameter's value set is finite and ordered (ascending for numbers,
 * declaration order for enumerations); strategies walk it by index.
 */
#ifndef KT_PARAM_H
#define KT_PARAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "ktune/plugin.h"

/* Upper bounds that keep points fixed-size and spaces enumerable. Sizes
 * and parameters together stay within the 64 names an expression may read
 * (core/expr.h): a declared variant's expressions see both. */
#define KT_MAX_PARAMS 48
#define KT_MAX_PARAM_VALUES 4096
#define KT_MAX_SIZES 4
#ifdef KT_STATIC_ASSERT
KT_STATIC_ASSERT(KT_MAX_SIZES + KT_MAX_PARAMS <= 64,
                 "an expression reads at most 64 names");
#endif

/* Number of values the parameter can take (0 when the descriptor is bad). */
size_t kt_param_count(const kt_param_desc *param);

/* The index-th value in order; index < kt_param_count(). */
int64_t kt_param_value_at(const kt_param_desc *param, size_t index);

/* Index of value in the ordered set, or -1 when it is not a member. */
long kt_param_index_of(const kt_param_desc *param, int64_t value);

/* Checks a descriptor for the loader: kind known, bounds ordered, the set
 * non-empty and not larger than KT_MAX_PARAM_VALUES, the default a member.
 * The message names the field. */
kt_status kt_param_validate(const kt_param_desc *param, kt_err *err);

/* Parses a value as a user writes it: an integer, or an enumeration label.
 * Rejects values outside the declared set, listing what is allowed. */
kt_status kt_param_parse(const kt_param_desc *param, const char *text,
                         int64_t *out, kt_err *err);

/* Writes the value as the user would write it (label or integer). */
void kt_param_format(const kt_param_desc *param, int64_t value, char *out,
                     size_t out_size);

/* Writes the declared set compactly: "32..1024 (powers of two)",
 * "{coalesced, strided}", "{1, 2, 4}". */
void kt_param_describe(const kt_param_desc *param, char *out, size_t out_size);

#endif
