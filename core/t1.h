// SPDX-License-Identifier: Apache-2.0
/*
 * kt_t1: a reader of T1 space files, the JSON the AutoTuningAssociation
 * benchmark hub and BAT describe a kernel's tuning space with:
 *
 *   ConfigurationSpace.TuningParameters[]: Name, Type ("int", "uint"),
 *       Values (a JSON list of integers, or a string of Python: "[16, 32]",
 *       "list(range(32, 1024+1, 32))", "[2**i for i in range(6)]", lists
 *       joined with +), Default (an integer or a one-element list)
 *   ConfigurationSpace.Conditions[]: Expression (Python, core/expr.h),
 *       Parameters (the names it reads)
 *   KernelSpecification: KernelName, KernelFile, Language, LocalSize and
 *       GlobalSize ({X, Y, Z} as text), GlobalSizeType, ProblemSize,
 *       CompilerOptions, Arguments
 *
 * Pure host code, no CUDA. A damaged file is refused with its path, the
 * JSON path of the value, what was expected and what was found:
 * "gemm.json: ConfigurationSpace.TuningParameters[3].Values: expected a
 * list of integers or a string of Python, found true".
 */
#ifndef KT_T1_H
#define KT_T1_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/expr.h"

/* The limits of a T1 file, each refused (KT_S_INPUT, exit 2) by name when
 * passed, never a crash nor a silent cut: the file's size
 * (KT_T1_MAX_BYTES), its parameters (the conditions' names fit one
 * kt_expr), the values of one parameter (KT_MAX_PARAM_VALUES, core/param.h),
 * its conditions, the nesting of a value list (list(list(...)), [..for..]
 * within [..]), and a condition's nesting (KT_EXPR_MAX_NESTING); JSON
 * nested deeper than jansson's 2048 levels is "not JSON". */
#define KT_T1_MAX_BYTES ((size_t)256 << 20)
#define KT_T1_MAX_PARAMS 64
#define KT_T1_MAX_CONDITIONS ((size_t)1 << 22)
#define KT_T1_MAX_NESTING 64

typedef struct kt_t1_param {
    char *name;
    char *type;      /* as written ("int"); "int" when absent */
    int64_t *values; /* in the file's order, no repeats */
    size_t num_values;
    int has_default; /* Default given */
    int64_t default_value;
} kt_t1_param;

typedef struct kt_t1_condition {
    char *text;    /* Expression as written */
    kt_expr *expr; /* parsed in Python syntax against kt_t1_space.names */
} kt_t1_condition;

/* One entry of KernelSpecification.Arguments; absent fields are NULL, -1
 * (size) or 0. A Size written as text ("ProblemSize[0]*ProblemSize[1]")
 * is kept in size_text. */
typedef struct kt_t1_arg {
    char *name, *type, *memory_type, *access_type, *fill_type, *size_text;
    int64_t size;
    double fill_value;
    int has_fill_value, output;
} kt_t1_arg;

typedef struct kt_t1_space {
    char *path;
    kt_t1_param *params;
    size_t num_params;
    const char *names[KT_T1_MAX_PARAMS]; /* params[i].name */
    kt_t1_condition *conditions;
    size_t num_conditions;
    /* KernelSpecification (every field may be NULL / 0 when absent) */
    char *kernel_name, *kernel_file, *language, *global_size_type;
    char *local_size[3], *global_size[3]; /* X, Y, Z as text */
    int64_t *problem_size;
    size_t num_problem_size;
    char **compiler_options;
    size_t num_compiler_options;
    kt_t1_arg *args;
    size_t num_args;
} kt_t1_space;

/* Reads and checks the T1 file at path (a regular file; every value list
 * expanded, every condition parsed). KT_S_INPUT names the file, the JSON
 * path, what was expected and what was found. Free with kt_t1_free(). */
kt_status kt_t1_load(const char *path, kt_t1_space **out, kt_err *err);

void kt_t1_free(kt_t1_space *space);

/* Index of parameter name, or -1. */
long kt_t1_find(const kt_t1_space *space, const char *name);

/* Expands a Values string ("[1, 2] + list(range(4, 9))") into *values
 * (malloc'ed, the caller frees), at most KT_MAX_PARAM_VALUES of them.
 * KT_S_INPUT: "'text': what is wrong at column N". */
kt_status kt_t1_parse_values(const char *text, int64_t **values, size_t *count,
                             kt_err *err);

/* The points of the Cartesian product that satisfy every condition, as
 * Python would count them (a condition that raises counts as false),
 * found by pruning: seconds for millions of points. */
kt_status kt_t1_count(const kt_t1_space *space, uint64_t *count, kt_err *err);

#endif
