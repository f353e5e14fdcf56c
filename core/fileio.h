// SPDX-License-Identifier: Apache-2.0
/*
 * Reading input files safely: only regular files, and only up to a stated
 * size, so a directory, a FIFO or a device named as a job or a journal is
 * refused with a message instead of spinning, blocking or reading without
 * bound.
 */
#ifndef KT_FILEIO_H
#define KT_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

/* The largest job file and journal read (bytes). */
#define KT_FILE_MAX_BYTES ((size_t)4 << 30)

/* KT_S_OK when path is a regular file (following symlinks); KT_S_INPUT
 * naming what it is instead ("is a directory, expected a regular file"),
 * or that it does not exist. what names the file's role ("journal"). */
kt_status kt_file_check_regular(const char *path, const char *what,
                                kt_err *err);

/* Reads all of regular file path into *text (NUL-terminated, malloc'ed,
 * the caller frees) and its length into *len. Refuses (KT_S_INPUT) a file
 * that is not regular or holds more than max_bytes. Opening never blocks
 * (a FIFO is refused, not waited on). */
kt_status kt_file_read(const char *path, const char *what, size_t max_bytes,
                       char **text, size_t *len, kt_err *err);

/* path opened for reading as a stream (mode "r" or "rb"), NULL with err
 * set (KT_S_INPUT) when it is missing or not a regular file: opening never
 * blocks and a device or FIFO is refused by name before a byte is read.
 * The caller fcloses the stream. */
FILE *kt_file_open_regular(const char *path, const char *what, const char *mode,
                           kt_err *err);

/* KT_S_OK when an output file may be written at path: it does not exist
 * yet (and its folder does), or it is a regular file or a device or FIFO
 * (written in place); KT_S_INPUT for a directory or a missing folder,
 * naming the option (what, e.g. "--json"). Checked before a run so a typo
 * does not cost the run. */
kt_status kt_file_check_output(const char *path, const char *what, kt_err *err);

/* The path of name in ktune's cache folder: KTUNE_CACHE_DIR, else
 * $XDG_CACHE_HOME/ktune, else ~/.cache/ktune. */
void kt_cache_path(const char *name, char *out, size_t out_size);

/* Creates every missing folder of path's parent (mode 0755); 0 on success. */
int kt_make_parent_dirs(const char *path);

/* The folder of the running executable (/proc/self/exe) into dir: 1, or 0
 * when it is unknown or does not fit. Where ktune finds what it installs
 * beside itself (plugins, recordings, its NVRTC helper). */
int kt_exe_dir(char *dir, size_t size);

#endif
