// SPDX-License-Identifier: Apache-2.0
/*
 * `space = PATH` in a declared variant (docs/declared.md, "Importing a T1
 * space"): a T1 file's parameters, defaults and Conditions become the
 * variant's, and its parameters its macros; and `default.NAME = VALUE`.
 * Private to declared/declared.c, which adds file:line to the messages (each
 * is KT_S_INPUT with what is wrong, or KT_S_NOMEM).
 */
#ifndef KT_DECLARED_T1_H
#define KT_DECLARED_T1_H

#include <iniparser.h>

#include "core/t1.h"
#include "declared/declared.h"

/* Reads the file text names (${VAR}s expanded, relative to the folder of
 * the declaration at decl_path) into *t1, which the caller frees with
 * kt_t1_free (also after a failure), and adds its parameters to v after
 * the declared ones: values ascending, the file's Default as the default;
 * a declared param.NAME of the same name (in any case) keeps its values
 * and takes the file's spelling. A file parameter named like a size is
 * refused. */
kt_status kt_decl_t1_import(const char *decl_path,
                            const char *const *size_names, size_t num_sizes,
                            kt_decl_variant *v, const char *text,
                            kt_t1_space **t1, kt_err *err);

/* Without `defines` (v->num_defines 0), each parameter of the file as a
 * macro of its own value (-DNAME=value). Nothing without a file. */
kt_status kt_decl_t1_defines(kt_decl_variant *v, const kt_t1_space *t1,
                             kt_err *err);

/* v->require becomes the declared require ANDed with each of the file's
 * Conditions (parsed in Python syntax against v->names), kept one by one
 * in v->parts. Nothing without a file. */
kt_status kt_decl_t1_conditions(kt_decl_variant *v, const kt_t1_space *t1,
                                kt_err *err);

/* default.NAME = VALUE keys of v's section: another default for a
 * parameter. On a mistake *bad_key names the key (owned by ini). */
kt_status kt_decl_defaults(kt_decl_variant *v, dictionary *ini,
                           const char **bad_key, kt_err *err);

#endif
