// SPDX-License-Identifier: Apache-2.0
/*
 * A capture as a ktune operator: plugin "cap-FOLDER" (the capture
 * folder's name), operator "launch", variant "captured" with parameters
 * block_x, block_y, block_z (capture/rules.h; the captured block is the
 * default, so `ktune bench CAPTURE` re-times the program's own launch).
 * One pinned size, "bytes": the captured allocations' total.
 *
 * setup loads the captured module image (cudaLibraryLoadData: cubin or
 * PTX), allocates a working copy and a pristine copy of every captured
 * allocation through the host and fills them with the bytes from before
 * the launch; the argument bytes are the captured ones with each pointer
 * moved to the same offset of the new allocation. reset restores every
 * working copy from its pristine one (the operator modifies its inputs, so
 * the host resets before every timed launch), and verify compares every
 * allocation byte for byte with the captured bytes after the launch: a
 * geometry whose output differs is wrong there (KT_MISMATCH).
 *
 * Limits: a pointer stored inside an allocation (an array of pointers, a
 * struct holding one) is not moved; texture and surface objects, and
 * memory the kernel reaches without an argument (globals, __constant__
 * set by the program) are not captured.
 */
#ifndef KT_CAPTURE_OPERATOR_H
#define KT_CAPTURE_OPERATOR_H

#include "capture/format.h"
#include "capture/rules.h"
#include "core/error.h"
#include "ktune/plugin.h"

typedef struct kt_cap_op kt_cap_op;

/* Reads the capture at path (folder or capture.json) and its rules, and
 * makes its descriptor, whose callbacks find the capture in their data
 * (ABI 1.3): any number may be loaded at once. *desc stays valid until
 * kt_cap_op_free(*out). KT_S_INPUT for a damaged capture or bad rules. */
kt_status kt_cap_op_load(const char *path, kt_cap_op **out,
                         const kt_plugin **desc, kt_err *err);

void kt_cap_op_free(kt_cap_op *op);

/* The capture behind op (for messages). */
const kt_capture *kt_cap_op_capture(const kt_cap_op *op);

/* The plugin name a capture folder gets: "cap-" and the folder's name with
 * every character other than letters, digits, '_', '-' and '.' as '_'. */
void kt_cap_plugin_name(const char *dir, char *out, size_t size);

/* Whether path is a capture: a folder holding capture.json, or a file
 * named capture.json. */
int kt_cap_is_capture(const char *path);

/* Whether path is a folder. */
int kt_cap_is_dir(const char *path);

#endif
