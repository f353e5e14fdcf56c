// SPDX-License-Identifier: Apache-2.0
/*
 * The code key's parts (engine/nvrtc_code.c): requests whose front end
 * gives the same IR share one compile; the options every compile gets.
 * Internal to the engine and its tests.
 */
#ifndef KT_NVRTC_CODE_H
#define KT_NVRTC_CODE_H

#include "core/error.h"
#include "engine/nvrtc.h"

/* Whether requests share compiles by code key: yes unless
 * KTUNE_NVRTC_SHARE=off. */
int kt_nvrtc_share_on(void);

/* 1 when opt reaches the preprocessor only (-DNAME[=V], -UNAME and their
 * long forms): the code key leaves it out. */
int kt_nvrtc_preprocessor_option(const char *opt);

/* "-no-cache" where this NVRTC has a cache of its own to switch off (12.9
 * and later; probed once per process), else NULL. Every compile and front
 * end passes it: ktune's cache is the only one (engine/nvrtc.c). */
const char *kt_nvrtc_no_cache_option(void);

/* "--include-path=DIR" of the toolkit's C++ libraries (CUB, Thrust,
 * libcu++), the folder of the toolkit whose NVRTC is loaded where it has
 * them, else CUDA_HOME's, CUDA_PATH's or /usr/local/cuda's; NULL when none
 * has (engine/nvrtc_code.c says why). Probed once per process. */
const char *kt_nvrtc_toolkit_option(void);

/* The options NVRTC gets for req: the architecture, -lineinfo, -no-cache
 * (kt_nvrtc_no_cache_option), req's own, the toolkit's include folder
 * (kt_nvrtc_toolkit_option),
 * then `extra` free slots; *n their count (without the slots). One list
 * for the compile and its front end, so that the code key is made of
 * what the compile sees. arch is the caller's buffer (64 bytes) for the
 * architecture option. Free the array; NULL when out of memory. */
const char **kt_nvrtc_options(const kt_nvrtc_request *req, size_t extra,
                              char arch[64], int *n);

/* req's front end (-dlto, with req's options and those kt_nvrtc_run_here adds):
 * the hash of its IR into fp (32 hex digits), "" when there is none (the
 * source does not compile, or no LTO IR). KT_S_NOMEM is the only
 * failure. */
kt_status kt_nvrtc_front_end(const kt_nvrtc_request *req, char fp[33],
                             kt_err *err);

#endif
