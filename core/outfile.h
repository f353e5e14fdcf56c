// SPDX-License-Identifier: Apache-2.0
/*
 * Output files named on the command line, where "-" means stdout (as for
 * every output option: --json -, --csv -, --t4 -, --markdown -).
 */
#ifndef KT_OUTFILE_H
#define KT_OUTFILE_H

#include <stdio.h>

#include <jansson.h>

/* 1 when path is "-" (stdout). */
int kt_out_is_stdout(const char *path);

/* path opened for writing, or stdout for "-". NULL with errno set on
 * failure. Close with kt_out_close. */
FILE *kt_out_open(const char *path);

/* Flushes stdout or closes a file kt_out_open opened. 0, or EOF with errno
 * set when the data did not reach the file. */
int kt_out_close(FILE *f);

/* j written with JSON_INDENT(2) and a newline to path ("-": stdout).
 * 0, or -1 with errno set. Does not take the reference. */
int kt_out_json(const json_t *j, const char *path);

#endif
