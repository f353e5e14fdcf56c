// SPDX-License-Identifier: Apache-2.0
#include "timeline/demangle.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* __cxa_demangle has C linkage in every libstdc++; it is looked up by
 * name so that ktune does not link the C++ runtime for it. */
static demangle_fn find_demangler(void)
{
    static int looked;
    static demangle_fn fn;
    void *lib;
    if (looked)
        return fn;
    looked = 1;
    lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (lib)
        *(void **)&fn = dlsym(lib, "__cxa_demangle");
    /* The library stays loaded: fn points into it. */
    return fn;
}

char *kt_tl_demangle(const char *name)
{
    demangle_fn fn;
    int status = -1;
    char *out;
    if (!name || name[0] != '_' || name[1] != 'Z' || !(fn = find_demangler()))
        return NULL;
    out = fn(name, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}
