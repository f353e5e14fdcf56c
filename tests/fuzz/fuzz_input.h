/* Fuzz inputs reach the parsers the way users' files do: through a path.
 * One scratch file per process, rewritten for every input. */
#ifndef KT_FUZZ_INPUT_H
#define KT_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

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

#endif
