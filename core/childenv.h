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

#include <stddef.h>

#include "core/error.h"

/* environ without the names changes holds, then each entry of changes
 * that has a '=' ("NAME=VALUE" sets NAME; "NAME" alone removes it).
 * changes is NULL-terminated (NULL: none). The strings are borrowed from
 * environ and changes, which must outlive *out; the array itself is the
 * caller's to free(). KT_S_NOMEM. */
kt_status kt_childenv_build(const char *const *changes, char ***out,
                            kt_err *err);

/* The changes for kt_childenv_build, gathered one by one: entries are
 * malloc'd and owned by the list; a failed allocation or one change too
 * many is kept and said once by kt_childenv_changes_check. */
#define KT_CHILDENV_MAX_CHANGES 16u
typedef struct kt_childenv_changes {
    char *items[KT_CHILDENV_MAX_CHANGES + 1]; /* NULL-terminated */
    size_t n;
    int failed; /* an entry was not added */
} kt_childenv_changes;

/* Sets NAME to value in the child's environment; value NULL removes NAME. */
void kt_childenv_change(kt_childenv_changes *c, const char *name,
                        const char *value);

/* KT_S_NOMEM when a change was lost, else KT_S_OK. */
kt_status kt_childenv_changes_check(const kt_childenv_changes *c, kt_err *err);

/* c->items as kt_childenv_build takes them. */
const char *const *kt_childenv_changes_list(const kt_childenv_changes *c);

void kt_childenv_changes_free(kt_childenv_changes *c);

#endif
