// SPDX-License-Identifier: Apache-2.0
/*
 * ktune's cache folder: calibration results, compiled kernels (nvrtc/),
 * plugin probe verdicts (plugins/). What is read from it is trusted enough
 * to be loaded on the GPU, so the folder must be the user's alone: every
 * folder of the cache is created 0700 and used only while it is a folder
 * (not a link) owned by the effective user with no group or other access
 * (one of ours left wider by an older ktune is narrowed; anyone else's is
 * refused with a message). Entries are written whole through exclusive,
 * randomly named temporary files (core/fileio.h kt_file_replace_at) and
 * carry a content hash written last; an entry is used only while it is a
 * regular file, owned by the user, writable by nobody else and whole.
 * There is no shared fallback such as /tmp: without a home the cache is
 * refused.
 */
#ifndef KT_CACHEDIR_H
#define KT_CACHEDIR_H

#include <stddef.h>

#include "core/error.h"

/* The root of the cache into out (not created): KTUNE_CACHE_DIR, else
 * $XDG_CACHE_HOME/ktune, else $HOME/.cache/ktune, else .cache/ktune in
 * the user's home from the password database. KT_S_INPUT when no home is
 * known or the path does not fit. */
kt_status kt_cache_root(char *out, size_t size, kt_err *err);

/* The folder sub of the cache (NULL or "": the root) into out, made
 * (0700) where missing and checked private (see above). KT_S_INPUT naming
 * the folder, its owner or its mode when it cannot be used. */
kt_status kt_cache_dir(const char *sub, char *out, size_t size, kt_err *err);

/* dir (any path) made where missing, mode 0700, and checked private. */
kt_status kt_cache_check_dir(const char *dir, kt_err *err);

/* Stores size bytes of data as entry name (no '/') of the checked folder
 * dir, with its content hash; atomic, never through a link. */
kt_status kt_cache_put(const char *dir, const char *name, const void *data,
                       size_t size, kt_err *err);

/* Reads entry name of dir into *data (malloc'ed, NUL-terminated, the
 * caller frees) and *size, without its hash. A missing entry is KT_S_OK
 * with *data NULL. KT_S_INPUT, naming why, for an entry that is not to be
 * trusted or used: a link, not a regular file (never blocks on a FIFO),
 * owned by another user, writable by group or others, more than max
 * bytes, or whose content does not match its hash (cut short, forged, or
 * written by an older ktune). */
kt_status kt_cache_get(const char *dir, const char *name, size_t max,
                       char **data, size_t *size, kt_err *err);

#endif
