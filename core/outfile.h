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

/* Keeps stdout for the document alone: the original stdout is kept as the
 * document's stream (kt_out_stdout) and file descriptor 1 becomes a copy
 * of stderr, so whatever else the process prints goes to stderr. Called
 * once an output option says "-" (again: no effect). 0, or -1 with errno
 * set (stdout unchanged). */
int kt_out_reserve_stdout(void);

/* kt_out_reserve_stdout when path is "-"; 0 otherwise. */
int kt_out_reserve_if_stdout(const char *path);

/* The document's stream: the reserved stdout, or stdout. Not to be
 * closed; kt_out_close flushes it. */
FILE *kt_out_stdout(void);

/* path opened for writing, or the document's stream for "-". NULL with errno
 * set on failure. Close with kt_out_close (or kt_out_discard).
 *
 * A regular file (or a new one) is written through a temporary file beside
 * it (path.tmp.XXXXXX) renamed over path by kt_out_close, so an existing
 * file is either the old one or the whole new one, never a fragment (a
 * full disk, a crash); SIGINT and SIGTERM remove the temporary file before
 * the signal takes its course (the handler that was installed runs after).
 * A device, a FIFO or a symlink is written in place: renaming would
 * replace the node or the link itself. */
FILE *kt_out_open(const char *path);

/* Flushes stdout or closes a file kt_out_open opened, putting it in place.
 * 0, or EOF with errno set when the data did not reach the file (then the
 * temporary file is removed and the old file, if any, is left as it was). */
int kt_out_close(FILE *f);

/* Closes f without putting it in place: for a writer that failed. Its
 * temporary file is removed; stdout is only flushed. */
void kt_out_discard(FILE *f);

/* j written with JSON_INDENT(2) and a newline to path ("-": stdout).
 * 0, or -1 with errno set. Does not take the reference. */
int kt_out_json(const json_t *j, const char *path);

#endif
