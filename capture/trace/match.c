// SPDX-License-Identifier: Apache-2.0
#include "match.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* timeline/demangle.c's lookup again: this file links nothing of ktune. */
static char *demangle(const char *name)
{
    static demangle_fn fn;
    static int looked;
    int status = -1;
    char *out;
    if (!looked) {
        void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        looked = 1;
        if (lib)
            *(void **)&fn = dlsym(lib, "__cxa_demangle");
    }
    if (!fn || name[0] != '_' || name[1] != 'Z')
        return NULL;
    out = fn(name, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static int opens(char c)
{
    return c == '(' || c == '<' || c == '[' || c == '{';
}

static int closes(char c)
{
    return c == ')' || c == '>' || c == ']' || c == '}';
}

/* The length of s without its trailing "(...)" parameter list. */
static size_t without_params(const char *s)
{
    size_t n = strlen(s);
    int depth = 0;
    if (n == 0 || s[n - 1] != ')')
        return n;
    for (size_t i = n; i-- > 0;) {
        if (s[i] == ')')
            ++depth;
        else if (s[i] == '(' && --depth == 0)
            return i;
    }
    return n; /* unbalanced: keep it all */
}

int kt_cap_base_name(const char *demangled, char *out, size_t size)
{
    size_t end = without_params(demangled), start = 0;
    int depth = 0;
    /* A return type ("void " of a template) ends at the last space that
     * is outside every bracket. */
    for (size_t i = 0; i < end; ++i) {
        if (opens(demangled[i]))
            ++depth;
        else if (closes(demangled[i]) && depth > 0)
            --depth;
        else if (demangled[i] == ' ' && depth == 0)
            start = i + 1;
    }
    if (end - start + 1 > size)
        return -1;
    memcpy(out, demangled + start, end - start);
    out[end - start] = '\0';
    return 0;
}

int kt_cap_names_make(const char *mangled, kt_cap_names *n)
{
    char *dm = demangle(mangled);
    n->mangled = mangled;
    n->demangled = dm ? dm : strdup(mangled);
    n->base = n->demangled ? malloc(strlen(n->demangled) + 1) : NULL;
    if (!n->base ||
        kt_cap_base_name(n->demangled, n->base, strlen(n->demangled) + 1)) {
        kt_cap_names_free(n);
        return -1;
    }
    return 0;
}

void kt_cap_names_free(kt_cap_names *n)
{
    free(n->demangled);
    free(n->base);
    n->demangled = n->base = NULL;
}

/* Which of the three names the expression matches, or NULL. */
static const char *matching_name(const regex_t *re, const kt_cap_names *n)
{
    if (regexec(re, n->mangled, 0, NULL, 0) == 0)
        return "mangled";
    if (regexec(re, n->demangled, 0, NULL, 0) == 0)
        return "demangled";
    if (regexec(re, n->base, 0, NULL, 0) == 0)
        return "base";
    return NULL;
}

int kt_cap_decide(const kt_cap_want *w, const kt_cap_names *n, uint64_t launch,
                  int *name_hit, char *why, size_t why_size)
{
    const char *which = w->re ? matching_name(w->re, n) : "any";
    *name_hit = which != NULL;
    if (!which) {
        snprintf(why, why_size,
                 "--kernel '%s' matches none of its names (mangled, "
                 "demangled, base '%s')",
                 w->re_text ? w->re_text : "", n->base);
        return 0;
    }
    if (w->launch != 0 && w->launch != launch) {
        snprintf(why, why_size,
                 "its %s name matches, but this is launch %" PRIu64
                 ", not --launch %" PRIu64,
                 which, launch, w->launch);
        return 0;
    }
    if (w->captures >= w->max) {
        snprintf(why, why_size,
                 "it matches, but --max %" PRIu64 " captures are taken",
                 w->max);
        return 0;
    }
    if (w->re)
        snprintf(why, why_size,
                 "taken: --kernel matches its %s name, launch %" PRIu64, which,
                 launch);
    else
        snprintf(why, why_size,
                 "taken: every kernel is (no --kernel), launch %" PRIu64,
                 launch);
    return 1;
}
