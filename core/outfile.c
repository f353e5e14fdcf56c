// SPDX-License-Identifier: Apache-2.0
#include "core/outfile.h"

#include <errno.h>
#include <string.h>

int kt_out_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

FILE *kt_out_open(const char *path)
{
    return kt_out_is_stdout(path) ? stdout : fopen(path, "w");
}

int kt_out_close(FILE *f)
{
    if (f == stdout)
        return fflush(stdout) != 0 || ferror(stdout) ? EOF : 0;
    return fclose(f);
}

int kt_out_json(const json_t *j, const char *path)
{
    FILE *f = kt_out_open(path);
    int rc;

    if (!f)
        return -1;
    rc =
        json_dumpf(j, f, JSON_INDENT(2)) == 0 && fputc('\n', f) != EOF ? 0 : -1;
    if (kt_out_close(f) != 0)
        rc = -1;
    return rc;
}
