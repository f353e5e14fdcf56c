// SPDX-License-Identifier: Apache-2.0
/*
 * libktune-select's run-time compilation (docs/capture.md, docs/wisdom.md):
 * an application that ships a kernel's .cu file and a wisdom file asks for
 * the configuration at its size (kt_select) and compiles that one
 * configuration here, with the entry's parameters as -DNAME=VALUE, instead
 * of shipping every variant precompiled.
 *
 *   kt_select_jit *j;
 *   kt_select_image img;
 *   if (kt_select_jit_open(NULL, &j, &e) == KT_SELECT_OK &&
 *       kt_select_jit_compile(j, src, "saxpy.cu", "saxpy<{items}>", &c,
 *                             prop.major, prop.minor, &img, &e) ==
 *           KT_SELECT_OK) {
 *       cudaLibraryLoadData(&lib, img.data, ...);
 *       cudaLibraryGetKernel(&k, lib, img.lowered_name);
 *   }
 *   kt_select_image_free(&img);
 *
 * NVRTC is loaded with dlopen when kt_select_jit_open is called, never
 * linked: an application that uses precompiled variants only needs no
 * NVRTC, and one without it gets KT_SELECT_ENOJIT and its defaults. The
 * compiled image (a cubin for sm_XY of the device given) is cached on disk
 * under a key of the source, the name expression, every option, the
 * architecture and NVRTC's version; a cache file that does not read back
 * whole is compiled again, never trusted.
 *
 * Thread safety: a kt_select_jit may be used by one thread at a time.
 */
#ifndef KTUNE_SELECT_JIT_H
#define KTUNE_SELECT_JIT_H

#include <stddef.h>

#include "ktune/select.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KT_SELECT_ENOJIT = -7,  /* NVRTC cannot be loaded here */
    KT_SELECT_ECOMPILE = -8 /* the source does not compile: msg has the log */
};

typedef struct kt_select_jit kt_select_jit;

typedef struct kt_select_jit_options {
    /* The cache folder; NULL: $KTUNE_SELECT_CACHE, else
     * $XDG_CACHE_HOME/ktune/jit, else ~/.cache/ktune/jit; "" : no cache. */
    const char *cache_dir;
    /* The NVRTC library; NULL: $KTUNE_SELECT_NVRTC, else libnvrtc.so,
     * libnvrtc.so.13, libnvrtc.so.12. */
    const char *nvrtc;
    /* More NVRTC options for every compile ("-I/path", "-std=c++17"). */
    const char *const *options;
    size_t num_options;
} kt_select_jit_options;

/* A compiled configuration: the image and the kernel's lowered (mangled)
 * name to look it up with. Owned by the caller: kt_select_image_free. */
typedef struct kt_select_image {
    void *data;
    size_t size;
    char *lowered_name;
    int from_cache;        /* 1: read from the disk cache, no compile ran */
    char cache_file[4096]; /* "" when not cached */
} kt_select_image;

/* Loads NVRTC (options may be NULL). KT_SELECT_OK, KT_SELECT_ENOJIT with
 * dlopen's reason in err, KT_SELECT_ENOMEM. */
int kt_select_jit_open(const kt_select_jit_options *options,
                       kt_select_jit **out, kt_select_error *err);

void kt_select_jit_close(kt_select_jit *j);

/* Compiles source (NUL-terminated; source_name labels the log) for
 * sm_<cc_major><cc_minor> with -DNAME=VALUE for every parameter of c
 * (c may be NULL or hold no entry: the source's own defaults) and
 * -DKTUNE_VARIANT_<variant>=1. kernel is a name expression in which
 * {NAME} is replaced by that parameter's value ("tiled<{tile}, 1>").
 * KT_SELECT_OK with *out filled, KT_SELECT_ECOMPILE with the log,
 * KT_SELECT_EARG (a {NAME} the configuration lacks), KT_SELECT_ENOMEM. */
int kt_select_jit_compile(kt_select_jit *j, const char *source,
                          const char *source_name, const char *kernel,
                          const kt_select_config *c, int cc_major, int cc_minor,
                          kt_select_image *out, kt_select_error *err);

void kt_select_image_free(kt_select_image *img);

#ifdef __cplusplus
}
#endif

#endif
