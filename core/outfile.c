// SPDX-License-Identifier: Apache-2.0
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* The document's stream once stdout is reserved (a copy of the original
 * stdout), else NULL: stdout itself. */
static FILE *doc_stream;

int kt_out_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int kt_out_reserve_stdout(void)
{
    int fd;
    FILE *f;

    if (doc_stream)
        return 0;
    /* Close-on-exec: a worker process must not hold the reader's pipe
     * open after ktune is done. */
    if (fflush(stdout) != 0 ||
        (fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)) < 0)
        return -1;
    if (!(f = fdopen(fd, "w"))) {
        close(fd);
        return -1;
    }
    /* Everything else written to stdout from now on (tables, notes, a
     * plugin's own prints, child processes) lands on stderr. */
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        fclose(f);
        return -1;
    }
    doc_stream = f;
    return 0;
}

int kt_out_reserve_if_stdout(const char *path)
{
    return kt_out_is_stdout(path) ? kt_out_reserve_stdout() : 0;
}

FILE *kt_out_stdout(void)
{
    return doc_stream ? doc_stream : stdout;
}

FILE *kt_out_open(const char *path)
{
    return kt_out_is_stdout(path) ? kt_out_stdout() : fopen(path, "w");
}

int kt_out_close(FILE *f)
{
    if (f == stdout || (f && f == doc_stream))
        return fflush(f) != 0 || ferror(f) ? EOF : 0;
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
