// SPDX-License-Identifier: Apache-2.0
/*
 * C++ kernel names in the words of their source (kt_tl_demangle). The
 * demangler is libstdc++'s, loaded when first needed: ktune itself is C,
 * and a machine without libstdc++ simply shows the recorded names.
 */
#ifndef KT_TIMELINE_DEMANGLE_H
#define KT_TIMELINE_DEMANGLE_H

/* The demangled form of an Itanium-ABI name ("_Z..."), malloc'ed (the
 * caller frees it); NULL when name is not mangled, does not demangle, or
 * no demangler is available. */
char *kt_tl_demangle(const char *name);

#endif
