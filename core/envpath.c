// SPDX-License-Identifier: Apache-2.0
#include "core/envpath.h"

#include <stdlib.h>
#include <string.h>

/* What the variables ktune's own files use should point to. */
static const char *meaning(const char *name)
{
    static const struct {
        const char *name, *what;
    } known[] = {
        {"KTUNE_HUB_DIR", "a checkout of AutoTuningAssociation/benchmark_hub"},
        {"KTUNE_BAT_DIR", "a checkout of NTNU-HPC-Lab/BAT"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
        if (strcmp(name, known[i].name) == 0)
            return known[i].what;
    return "the folder the path expects";
}

kt_status kt_envpath_expand(const char *text, char *out, size_t out_size,
                            kt_err *err)
{
    size_t used = 0;

    for (const char *p = text; *p;) {
        const char *piece = p, *close;
        size_t len = 1;
        char name[128];
        if (p[0] == '$' && p[1] == '{') {
            if (!(close = strchr(p + 2, '}')) ||
                (size_t)(close - p - 2) >= sizeof name || close == p + 2)
                return kt_err_set(err, KT_S_INPUT,
                                  "'%s': '${' without a variable name and "
                                  "'}'",
                                  text);
            memcpy(name, p + 2, (size_t)(close - p - 2));
            name[close - p - 2] = '\0';
            piece = getenv(name);
            if (!piece || !*piece)
                return kt_err_set(err, KT_S_INPUT,
                                  "'%s': ${%s} is not set: point it at %s",
                                  text, name, meaning(name));
            len = strlen(piece);
            p = close + 1;
        } else {
            ++p;
        }
        if (used + len >= out_size)
            return kt_err_set(err, KT_S_INPUT,
                              "'%s': longer than %zu characters once "
                              "expanded",
                              text, out_size - 1);
        memcpy(out + used, piece, len);
        used += len;
    }
    out[used] = '\0';
    return KT_S_OK;
}
