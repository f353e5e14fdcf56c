// SPDX-License-Identifier: Apache-2.0
/*
 * The capture file format, version 1 (docs/capture.md, schema in
 * docs/schemas/capture.schema.json): one launch of one kernel of an
 * unmodified program, as `ktune capture` saw it, in a folder of its own:
 *
 *   capture.json     the manifest (format "ktune-capture", version 1)
 *   module.bin       the module image the driver loaded (cubin, fatbin
 *                    or PTX)
 *   args.bin         the launch's argument bytes, laid out at the offsets
 *                    the driver's parameter info gave
 *   alloc-K.before   allocation K's bytes just before the launch
 *   alloc-K.after    the same just after it (the reference output)
 *
 * The reader checks every field (type, range, that offsets and sizes fit,
 * that each named file exists with the size the manifest states) so that a
 * damaged capture is refused before any byte reaches a GPU: KT_S_INPUT
 * (exit 2) naming the file, the field, what was expected and what was
 * found. Pure C and jansson: no CUDA.
 */
#ifndef KT_CAPTURE_FORMAT_H
#define KT_CAPTURE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define KT_CAP_FORMAT "ktune-capture"
#define KT_CAP_VERSION 1
#define KT_CAP_MANIFEST "capture.json"
/* The driver's own limit on kernel parameter bytes is 32764 (CUDA 12.1+). */
#define KT_CAP_MAX_ARG_BYTES 32768
#define KT_CAP_MAX_PARAMS 4096
#define KT_CAP_MAX_ALLOCS 256
/* The largest manifest read (bytes): 4096 parameters and 256 allocations
 * take well under a megabyte. */
#define KT_CAPTURE_MANIFEST_MAX ((size_t)16 << 20)

/* One allocation's bytes at most (256 TiB, past any device's memory): 256
 * of them, twice over (before and after), still sum without wrapping. */
#define KT_CAP_MAX_ALLOC_BYTES ((uint64_t)1 << 48)

/* One kernel parameter: where its bytes lie in args.bin, and, when its
 * value is an address inside a captured allocation, which one and where. */
typedef struct kt_cap_param {
    uint64_t offset, size;
    int alloc;             /* index into kt_capture.allocs, or -1 */
    uint64_t alloc_offset; /* the address minus the allocation's base */
} kt_cap_param;

/* One device allocation an argument points into. */
typedef struct kt_cap_alloc {
    uint64_t base, bytes;       /* as the program had it */
    char before[64], after[64]; /* file names inside the capture folder */
} kt_cap_alloc;

/* A capture as read (owned by whoever called kt_capture_read). */
typedef struct kt_capture {
    char dir[4096];  /* the capture folder */
    char *mangled;   /* the kernel's symbol */
    char *demangled; /* its C++ name, or a copy of mangled */
    char module_file[64];
    char module_kind[16]; /* "cubin", "fatbin" or "ptx" */
    uint64_t module_bytes;
    uint32_t grid[3], block[3];
    uint32_t dynamic_smem;
    uint64_t stream;       /* the program's stream handle, as a number */
    uint64_t launch_index; /* 1: the kernel's first launch in the program */
    char args_file[64];
    uint64_t args_bytes;
    kt_cap_param *params;
    size_t num_params;
    kt_cap_alloc *allocs;
    size_t num_allocs;
    char device[256]; /* the GPU it was captured on */
    int cc_major, cc_minor;
} kt_capture;

/* Reads and checks the capture at path (its folder, or its capture.json).
 * KT_S_INPUT names the file, the field, expected and found; KT_S_NOMEM.
 * *out is filled in every case and freed with kt_capture_free. */
kt_status kt_capture_read(const char *path, kt_capture *out, kt_err *err);

void kt_capture_free(kt_capture *c);

/* Reads the capture's file name (one of its blobs) into dst[0..bytes),
 * which must be its whole size. KT_S_INPUT when the file is shorter,
 * longer or missing; KT_S_IO when reading fails. */
kt_status kt_capture_read_blob(const kt_capture *c, const char *name, void *dst,
                               uint64_t bytes, kt_err *err);

/* Bytes of device data the capture holds (before and after of every
 * allocation). */
uint64_t kt_capture_data_bytes(const kt_capture *c);

#endif
