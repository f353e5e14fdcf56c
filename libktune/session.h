/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libktune's session (include/ktune/ktune.h): what the caller declared, kept
 * as the key/value lines of the declaration document an INI file would hold
 * (docs/declared.md), written to the session folder before each run
 * (libktune/document.c) and run by the CLI's command code in process
 * (libktune/run.c). Internal to libktune.
 */
#ifndef KTUNE_LIB_SESSION_H
#define KTUNE_LIB_SESSION_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "ktune/ktune.h"

/* A growable list of owned strings. */
typedef struct ktl_strv {
    char **v;
    size_t n;
} ktl_strv;

int ktl_strv_add(ktl_strv *l, const char *s);
/* Adds item to l: KTUNE_OK with s's message cleared, or the failure. */
int ktl_add(ktune_session *s, ktl_strv *l, const char *item);
/* Text that fits on one line of the document, not empty. */
int ktl_is_line(const char *text);
void ktl_strv_free(ktl_strv *l);

typedef struct ktl_buffer {
    char *name;
    int role, type;
    size_t count;
    char *count_expr; /* NULL: count */
    char *fill;       /* FILL text, NULL: default or the .npy */
    int has_data;     /* NAME.npy written */
    int has_answer;   /* NAME.answer.npy written */
} ktl_buffer;

/* A host array held in shared memory: its link in the folder, its fd. */
typedef struct ktl_array {
    char *path;
    int fd;
} ktl_array;

typedef struct ktl_variant {
    char *id, *kernel;
    ktl_strv keys;     /* "key = value" lines of [variant.ID] */
    ktl_strv requires; /* ANDed into require */
    int reference;
} ktl_variant;

struct ktune_session {
    char dir[PATH_MAX];
    char *errmsg; /* "" or the last failure's message */
    size_t errmsg_size;
    char *exe;
    ktl_strv sets; /* "section.key=value", as --set takes them */
    char *name;
    char *source_text, *source_file;
    ktl_strv options, sizes, constants, args;
    ktl_strv arg_ctypes; /* each argument's C type, for the answer kernel */
    ktl_buffer *buffers;
    size_t num_buffers;
    ktl_variant *variants;
    size_t num_variants;
    double rtol, atol;
    int verbose, isolation, device, runs, pinned_by_data;
    ktune_log_fn log;
    void *log_user;
    ktune_verify_fn verify; /* NULL: the tolerances */
    void *verify_user;
    char *journal;
    ktl_array *arrays; /* the host arrays given (libktune/arrays.c) */
    size_t num_arrays;
};

/* Sets s's message and returns code (printf format). */
int ktl_fail(ktune_session *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clears s's message; KTUNE_OK. */
int ktl_ok(ktune_session *s);

/* The element size and names of a ktune_type; NULL/0 when out of range. */
size_t ktl_type_size(int type);
const char *ktl_type_name(int type); /* "f32" */
const char *ktl_type_c(int type);    /* "float" */
const char *ktl_type_npy(int type);  /* "<f4" */

/* Writes count elements of type at data to path as a .npy file. */
int ktl_write_npy(ktune_session *s, const char *path, int type,
                  const void *data, size_t count);
/* Copies count elements of type at data into shared memory the session
 * keeps, laid out as a .npy file that path (a symbolic link) names
 * (libktune/arrays.c); a regular file where there is no memfd_create. */
int ktl_host_array(ktune_session *s, const char *path, int type,
                   const void *data, size_t count);
/* Closes the session's arrays (the links go with its folder). */
void ktl_arrays_free(ktune_session *s);

/* Writes the declaration document to s->dir/NAME.ini (path into out). */
int ktl_write_document(ktune_session *s, char *out, size_t size);

/* Runs argv (the ktune command line: "ktune", "tune", ...) in this process
 * through the CLI's command code (app/embed.h); its stdout into *out_text
 * (owned by the caller, may be NULL). KTUNE_OK on exit 0, else the CLI's
 * exit code with its message. */
int ktl_run(ktune_session *s, const char *const *argv, char **out_text);

#endif
