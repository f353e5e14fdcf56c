// SPDX-License-Identifier: Apache-2.0
/*
 * kt_iniloc: where each section and key of an INI file is written.
 *
 * iniparser gives values but no line numbers, and silently keeps the last of
 * two equal keys. The tuning job reads values through iniparser and uses
 * this scan of the same text for `file:line` in its messages; the scan also
 * catches what iniparser lets through: a key outside any section and a key
 * written twice.
 */
#ifndef KT_INILOC_H
#define KT_INILOC_H

#include <iniparser.h>
#include <stddef.h>

#include "core/error.h"

typedef struct kt_iniloc_entry {
    char section[64]; /* lower case, as iniparser stores it */
    char key[64];     /* lower case; empty for a section header */
    int line;         /* 1-based */
} kt_iniloc_entry;

/* Sections a job file or a declaration may have (they have a few): the
 * 1025th is refused where it is read, before the rest of the file. */
#define KT_INI_MAX_SECTIONS 1024
/* Keys a job file or a declaration may have: iniparser inserts each in
 * time linear in what it holds, so the 16385th is refused before it reads
 * any. */
#define KT_INI_MAX_KEYS 16384

typedef struct kt_iniloc {
    char *path; /* owned copy, as the user wrote it */
    kt_iniloc_entry *entries;
    size_t count, cap; /* entries in use, and room for */
} kt_iniloc;

/* Reads path and records every section header and key line. A key before the
 * first section, the same key twice in one section, or more than
 * KT_INI_MAX_SECTIONS sections is KT_S_INPUT with file:line (linear in the
 * file: repeats are found through a hashed set). On failure loc holds
 * nothing. */
kt_status kt_iniloc_scan(const char *path, kt_iniloc *loc, kt_err *err);

/* Line of [section] key (key NULL: of the first [section] header), or 0 when
 * the file does not write it. Case-insensitive. */
int kt_iniloc_line(const kt_iniloc *loc, const char *section, const char *key);

void kt_iniloc_free(kt_iniloc *loc);

/* iniparser_load() with its syntax errors as KT_S_INPUT "path:line: cannot
 * read '...'" (iniparser reports them through a process-wide callback, so
 * not thread-safe); KT_S_IO when the file cannot be read. The caller frees
 * *out with iniparser_freedict(). */
kt_status kt_ini_load(const char *path, dictionary **out, kt_err *err);

#endif
