// SPDX-License-Identifier: Apache-2.0
/*
 * The environment of a program ktune starts (a worker, a traced or
 * captured program): ktune's own with named changes, built as an array
 * before fork and given to execve. ktune never changes its own
 * environment (setenv would leak the change into everything it starts
 * later, and malloc after fork in a process with threads may deadlock).
 */
#ifndef KT_CORE_CHILDENV_H
#define KT_CORE_CHILDENV_H

#include "core/error.h"

/* environ without the names changes holds, then each entry of changes
 * that has a '=' ("NAME=VALUE" sets NAME; "NAME" alone removes it).
 * changes is NULL-terminated (NULL: none). The strings are borrowed from
 * environ and changes, which must outlive *out; the array itself is the
 * caller's to free(). KT_S_NOMEM. */
kt_status kt_childenv_build(const char *const *changes, char ***out,
                            kt_err *err);

/* "NAME=VALUE", malloc'd (NULL when out of memory), for changes. */
char *kt_childenv_entry(const char *name, const char *value);

#endif
