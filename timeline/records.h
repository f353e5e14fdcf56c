// SPDX-License-Identifier: Apache-2.0
/*
 * kt_tl_trace: what the tracer (timeline/trace) recorded, read back from
 * its record files, one per traced process. Pure C.
 *
 * Record file format, version 1 (trace-PID.tsv; one record per line,
 * fields separated by tabs, the free-text field last so it may hold
 * spaces; times in ns on CUPTI's clock):
 *   ktune-trace 1                       first line: format and version
 *   P pid ppid cupti_ns mono_ns exe     the process; the two clocks read at
 *                                       the same moment (CLOCK_MONOTONIC is
 *                                       the clock ktune times the program
 *                                       with)
 *   A R|D start end cbid tid corr ret name      a runtime/driver API call
 *   K start end dev ctx stream corr gx gy gz bx by bz regs ssmem dsmem name
 *                                       a kernel (name as the record has
 *                                       it: mangled for C++)
 *   C start end dev ctx stream corr copykind srckind dstkind bytes
 *                                       a copy (CUPTI memcpy kinds)
 *   S start end dev ctx stream corr bytes value  a memset
 *   Y start end type ctx stream corr    a synchronisation (CUPTI types)
 *   D dropped                           records CUPTI dropped so far
 *   E code call result [tool libs]      a CUPTI call that failed
 *   X cupti_ns mono_ns how              the end: "exit" or "signal N"
 * A file without X belongs to a process that ended without its exit
 * handlers (killed, _exit, a crash the tracer could not catch): its records
 * up to the last flush are there. A last line without its newline is a
 * write cut short and is left out.
 */
#ifndef KT_TIMELINE_RECORDS_H
#define KT_TIMELINE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define KT_TL_RECORD_VERSION 1

typedef enum kt_tl_op_kind {
    KT_TL_KERNEL = 0,
    KT_TL_MEMCPY,
    KT_TL_MEMSET
} kt_tl_op_kind;

/* CUPTI's memcpy kinds (CUpti_ActivityMemcpyKind), as recorded. */
enum {
    KT_TL_COPY_UNKNOWN = 0,
    KT_TL_COPY_HTOD = 1,
    KT_TL_COPY_DTOH = 2,
    KT_TL_COPY_HTOA = 3,
    KT_TL_COPY_ATOH = 4,
    KT_TL_COPY_ATOA = 5,
    KT_TL_COPY_ATOD = 6,
    KT_TL_COPY_DTOA = 7,
    KT_TL_COPY_DTOD = 8,
    KT_TL_COPY_HTOH = 9,
    KT_TL_COPY_PTOP = 10
};

/* One operation on the GPU. Strings point into the trace's name table. */
typedef struct kt_tl_op {
    kt_tl_op_kind kind;
    uint32_t proc; /* index in kt_tl_trace.procs */
    uint64_t start, end;
    uint32_t device, context, stream, correlation;
    /* kernels */
    int32_t grid[3], block[3];
    uint32_t registers;
    int32_t static_smem, dynamic_smem;
    const char *name;      /* as recorded */
    const char *demangled; /* name demangled, or name itself */
    /* copies (copy_kind) and memsets */
    uint32_t copy_kind, src_kind, dst_kind;
    uint64_t bytes;
} kt_tl_op;

typedef struct kt_tl_api {
    uint32_t proc;
    char domain; /* 'R' runtime, 'D' driver */
    uint64_t start, end;
    uint32_t cbid, thread, correlation, result;
    const char *name;
} kt_tl_api;

typedef struct kt_tl_sync {
    uint32_t proc;
    uint64_t start, end;
    uint32_t type, context, stream, correlation;
} kt_tl_sync;

typedef struct kt_tl_error {
    int code;
    const char *call, *result, *tools; /* tools: "" when none named */
} kt_tl_error;

typedef struct kt_tl_proc {
    long pid, ppid;
    const char *exe, *file;
    uint64_t init_cupti, init_mono; /* the clocks at CUDA initialisation */
    int ended;                      /* an X record was read */
    uint64_t end_cupti, end_mono;
    const char *end_how; /* "exit", "signal N"; "" without X */
    uint64_t dropped;
    size_t truncated; /* partial last lines left out */
    kt_tl_error *errors;
    size_t num_errors;
} kt_tl_proc;

typedef struct kt_tl_names kt_tl_names;

typedef struct kt_tl_trace {
    kt_tl_proc *procs;
    size_t num_procs;
    kt_tl_op *ops; /* in file order; kt_tl_summarise sorts a copy */
    size_t num_ops, cap_ops;
    kt_tl_api *apis;
    size_t num_apis, cap_apis;
    kt_tl_sync *syncs;
    size_t num_syncs, cap_syncs;
    kt_tl_names *names; /* owns every string above */
} kt_tl_trace;

void kt_tl_trace_init(kt_tl_trace *t);
void kt_tl_trace_free(kt_tl_trace *t);

/* Appends the records of one file (one process). KT_S_INPUT naming the
 * file, line and field for a record that does not parse, or a file that
 * is not a version-1 record file; KT_S_IO when it cannot be read. */
kt_status kt_tl_read_file(kt_tl_trace *t, const char *path, kt_err *err);

/* Every trace-*.tsv in dir, in name order. No file is not an error
 * (num_procs stays 0: the program never initialised CUDA). */
kt_status kt_tl_read_dir(kt_tl_trace *t, const char *dir, kt_err *err);

/* The text a CUPTI memcpy kind names, nsys-style: "Host-to-Device". */
const char *kt_tl_copy_kind_name(uint32_t kind);

/* CUPTI synchronisation types: "stream synchronize", ... */
const char *kt_tl_sync_type_name(uint32_t type);

#endif
