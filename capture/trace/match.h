// SPDX-License-Identifier: Apache-2.0
/*
 * Which launches the capturer takes (capture/trace/capturer.c): pure
 * logic, compiled into libktune_capture.so and into the CPU test
 * capture_launch_matching. Links nothing of ktune.
 *
 * A kernel has up to three names: the mangled one the driver reports
 * ("_Z9scale_addPKfS0_Pfif"), its demangled form ("scale_add(float
 * const*, float const*, float*, int, float)", "void k<int>(int*)") and
 * its base name, the demangled form without return type and parameter
 * list ("scale_add", "k<int>", "ns::k"). A --kernel regular expression
 * selects a launch when it matches any of the three, so '^scale_add$'
 * selects scale_add whether the program is C++ or extern "C".
 */
#ifndef KT_CAPTURE_TRACE_MATCH_H
#define KT_CAPTURE_TRACE_MATCH_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

/* The three names of one kernel; demangled and base are the mangled name
 * again when it is not a C++ name (extern "C", CuPy's RawKernel). */
typedef struct kt_cap_names {
    const char *mangled;
    char *demangled; /* malloc'd */
    char *base;      /* malloc'd */
} kt_cap_names;

/* Fills n from a mangled name (__cxa_demangle from libstdc++, looked up
 * with dlopen: a C program has none, and then the names stay mangled).
 * Returns 0, or -1 when out of memory. */
int kt_cap_names_make(const char *mangled, kt_cap_names *n);
void kt_cap_names_free(kt_cap_names *n);

/* The base name of a demangled name into out: the trailing parameter
 * list and a leading return type ("void ") removed, template arguments
 * and namespaces kept. Never cuts silently: returns -1 when out is too
 * small. */
int kt_cap_base_name(const char *demangled, char *out, size_t size);

/* What the capturer was asked for. */
typedef struct kt_cap_want {
    const regex_t *re; /* NULL: every kernel */
    const char *re_text;
    uint64_t launch; /* the Nth launch of each kernel; 0: all */
    uint64_t max, captures;
} kt_cap_want;

/* Whether launch number `launch` (1 for the kernel's first) of the kernel
 * named n is taken. *why says, in words, which name matched and why the
 * launch is or is not taken; *name_hit is 1 when the name matched (so a
 * miss on the launch number alone can be told apart). */
int kt_cap_decide(const kt_cap_want *w, const kt_cap_names *n, uint64_t launch,
                  int *name_hit, char *why, size_t why_size);

#endif
