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
#include <sys/types.h>

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

/* The same for the file open at fd (path names it in messages); fd is
 * not closed. */
kt_status kt_file_read_fd(int fd, const char *path, const char *what,
                          size_t max_bytes, char **text, size_t *len,
                          kt_err *err);

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

/* Writes size bytes of data to path whole or not at all: a new file made
 * with O_CREAT|O_EXCL|O_NOFOLLOW under a random name in path's own folder
 * (mode, less the umask), synced, then renamed over path, so a link planted
 * at path or at any temporary name is replaced or refused, never followed.
 * KT_S_IO naming path on failure; the temporary file never stays. */
kt_status kt_file_replace(const char *path, const void *data, size_t size,
                          mode_t mode, kt_err *err);

/* The same for name (no '/') in the folder open at dirfd; dir names that
 * folder in messages. */
kt_status kt_file_replace_at(int dirfd, const char *dir, const char *name,
                             const void *data, size_t size, mode_t mode,
                             kt_err *err);

/* Creates every missing folder of path's parent (mode 0755); 0 on success. */
int kt_make_parent_dirs(const char *path);

/* The folder of the running executable (/proc/self/exe) into dir: 1, or 0
 * when it is unknown or does not fit. Where ktune finds what it installs
 * beside itself (plugins, recordings, its NVRTC helper). */
int kt_exe_dir(char *dir, size_t size);

#endif
