// SPDX-License-Identifier: Apache-2.0
/*
 * kt_settings: every environment variable ktune's libraries and commands
 * read, in one record and one table (core/settings.c): the environment is
 * read here and nowhere else in the libraries (beyond ${VAR} expansion in
 * files, core/envpath.h, and libktune-select's own variables), and the
 * same table is what `ktune` checks before a command runs (app/envcheck.c)
 * and what docs/cli.md lists (tests/app/test_env_lists.sh compares the
 * three). Each field is the variable's text as the environment holds it,
 * NULL when unset; what a value means is said where it is used.
 *
 * A worker process does not read its environment: its parent's record
 * comes in the open message (kt_settings_to_json, kt_settings_install), so
 * a parent's record reaches every library of the worker.
 *
 * Thread safety: kt_settings_read reads the environment (getenv), as safe
 * as that is: ktune never changes its own environment
 * (tests/app/test_no_setenv.sh). The record holds pointers into the
 * environment, valid while the variable is not set again (or into an
 * installed record, valid to the process's end).
 */
#ifndef KT_SETTINGS_H
#define KT_SETTINGS_H

#include "core/error.h"

typedef struct kt_settings {
    const char *ktune_plugin_path;    /* KTUNE_PLUGIN_PATH */
    const char *ktune_plugin_timeout; /* KTUNE_PLUGIN_TIMEOUT */
    const char *ktune_plugin_cache;   /* KTUNE_PLUGIN_CACHE */
    const char *ktune_cache_dir;      /* KTUNE_CACHE_DIR */
    const char *ktune_nvrtc_cache;    /* KTUNE_NVRTC_CACHE */
    const char *ktune_nvrtc_share;    /* KTUNE_NVRTC_SHARE */
    const char *ktune_nvrtc_helper;   /* KTUNE_NVRTC_HELPER */
    const char *ktune_nvml_library;   /* KTUNE_NVML_LIBRARY */
    const char *ktune_nvml_restore;   /* KTUNE_NVML_RESTORE */
    const char *ktune_profile_flush;  /* KTUNE_PROFILE_FLUSH */
    const char *ktune_round_sync;     /* KTUNE_ROUND_SYNC */
    const char *ktune_worker_times;   /* KTUNE_WORKER_TIMES */
    const char *ktune_cupti_range;    /* KTUNE_CUPTI_RANGE */
    const char *ktune_tracer;         /* KTUNE_TRACER */
    const char
        *ktune_timeline_driver; /* KTUNE_TIMELINE_DRIVER (the tracer's) */
    const char
        *ktune_timeline_flush_ms; /* KTUNE_TIMELINE_FLUSH_MS (the tracer's) */
    const char *ktune_exe;        /* KTUNE_EXE (libktune's worker program) */
    /* The system's, read the same way. */
    const char *xdg_cache_home;              /* XDG_CACHE_HOME */
    const char *home;                        /* HOME */
    const char *cuda_home;                   /* CUDA_HOME */
    const char *cuda_path;                   /* CUDA_PATH */
    const char *columns;                     /* COLUMNS */
    const char *path;                        /* PATH */
    const char *tmpdir;                      /* TMPDIR */
    const char *cuda_device_max_connections; /* CUDA_DEVICE_MAX_CONNECTIONS */
} kt_settings;

/* The process's record, into *s: the environment now, or, once a parent
 * process installed its own (kt_settings_install: a worker's open
 * message), that record, whatever this process's environment holds. */
void kt_settings_read(kt_settings *s);

/* The record as the JSON object a worker's open message carries: each
 * variable that is set, {"NAME": "value"} (a new reference; NULL when out
 * of memory). */
struct json_t;
struct json_t *kt_settings_to_json(const kt_settings *s);

/* The record of such an object into *s, whose strings point into obj (valid
 * while obj is). KT_S_IO naming what is wrong: not an object, a name that
 * is no variable of the table, a value that is not a string. A variable
 * the object does not name is unset. */
kt_status kt_settings_from_json(const struct json_t *obj, kt_settings *s,
                                kt_err *err);

/* Makes the record of obj (kt_settings_to_json's, from a parent process)
 * this process's: every kt_settings_read after it gives that record, not
 * the environment, so a worker reads what its parent read (isolation/,
 * docs/hacking.md). obj is copied, and the record stays valid to the
 * process's end. Once per process: installing the same record again
 * changes nothing, a different one is KT_S_INPUT. Errors as
 * kt_settings_from_json's, and nothing is installed. Thread safety: safe
 * with kt_settings_read (which takes no lock: a forked child may call
 * it); a worker installs at its open, before threads of its own. */
kt_status kt_settings_install(const struct json_t *obj, kt_err *err);

/* KT_S_OK when every KTUNE_* variable of s that is set (and not empty)
 * holds a value it can take; KT_S_INPUT naming the first that does not,
 * what it takes and what it holds. */
kt_status kt_settings_check(const kt_settings *s, kt_err *err);

#endif
