// SPDX-License-Identifier: Apache-2.0
/* Fuzz inputs reach the parsers the way users' files do: through a path.
 * One scratch file per process, rewritten for every input. */
#ifndef KT_FUZZ_INPUT_H
#define KT_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/loader.h"

static inline const char *kt_fuzz_file(const uint8_t *data, size_t size)
{
    static char path[64];
    FILE *f;

    if (!path[0])
        snprintf(path, sizeof path, "/tmp/ktune-fuzz-%d", (int)getpid());
    f = fopen(path, "wb");
    if (!f)
        return NULL;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return NULL;
    }
    fclose(f);
    return path;
}

/* The built-in plugins loaded in this process (no probe child per input)
 * and vector_add:add, the operator the journal targets read against. */
static inline const kt_operator *kt_fuzz_vector_add(kt_registry *reg,
                                                    const kt_loaded_plugin **lp)
{
    const kt_operator *op;
    kt_err err;

    kt_registry_init(reg);
    reg->probe_timeout_ms = 0;
    kt_registry_load_dir(reg, KT_BUILTIN_PLUGIN_DIR, 1);
    if (kt_registry_resolve(reg, "vector_add:add", lp, &op, &err))
        abort();
    return op;
}

#endif
