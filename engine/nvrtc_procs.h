// SPDX-License-Identifier: Apache-2.0
/*
 * kt_nvrtc_procs: NVRTC in helper processes (the ktune-nvrtc executable),
 * a kt_nvrtc_runner (engine/nvrtc.h) for the compile pool.
 *
 * Why: NVRTC's compiles in threads of one process do not scale. On the
 * H200 machine's 16-core host, 96 hub-gemm kernels compiled at 18.6 per
 * second on 16 threads (4.9 cores busy) and at 45.3 per second on 16
 * helpers (12.6 cores busy), the same kernels, ktune's and NVRTC's own
 * caches off (docs/results/2026-12-03-h200-session14-hub.md).
 *
 * Each helper serves one request at a time over a socket pair (its fd 3):
 * a compile (the image, lowered name and log) or a front end (the IR
 * hash). A caller takes an idle helper, starting one when fewer than the
 * set's size run, and waits when all are busy. A helper that dies on a
 * request (a compiler crash) answers it with KT_S_CRASHED naming the
 * signal, is reaped, and the next request starts a new one; the crash
 * costs that kernel, never the caller's process. Writes to a dead helper
 * never raise SIGPIPE.
 *
 * The helper: $KTUNE_NVRTC_HELPER when set ("off": none), else
 * ktune-nvrtc beside the running executable (the build folder), else
 * where the install puts it relative to the binary (libexec/ktune).
 */
#ifndef KT_NVRTC_PROCS_H
#define KT_NVRTC_PROCS_H

#include <stddef.h>

#include "core/error.h"
#include "engine/nvrtc.h"

typedef struct kt_nvrtc_procs kt_nvrtc_procs;

/* The helper executable's path into out: 1 when one is found, 0 when
 * there is none or KTUNE_NVRTC_HELPER is "off". */
int kt_nvrtc_procs_helper(char *out, size_t size);

/* A set of at most n helpers of helper_path, started as requests come.
 * Free with kt_nvrtc_procs_close(). */
kt_status kt_nvrtc_procs_open(int n, const char *helper_path,
                              kt_nvrtc_procs **out, kt_err *err);

/* The runner that sends prepare's and finish's NVRTC work to p. */
kt_nvrtc_runner kt_nvrtc_procs_runner(kt_nvrtc_procs *p);

/* Kills every helper now (their requests fail at once); later requests
 * fail too. For a pool closing with compiles nobody will take. */
void kt_nvrtc_procs_cancel(kt_nvrtc_procs *p);

/* Kills and reaps the helpers, frees p; no request may be in flight.
 * Safe on NULL. */
void kt_nvrtc_procs_close(kt_nvrtc_procs *p);

/* Helpers started so far (a crash replaced counts again). */
size_t kt_nvrtc_procs_started(kt_nvrtc_procs *p);

/* The helper's side: serves requests on fd until it closes; 0 on a clean
 * end. */
int kt_nvrtc_procs_serve(int fd);

#endif
