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
 * Thread safety: kt_settings_read reads the environment (getenv), as safe
 * as that is: ktune never changes its own environment
 * (tests/app/test_no_setenv.sh). The record holds pointers into the
 * environment, valid while the variable is not set again.
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

/* The environment now, into *s. */
void kt_settings_read(kt_settings *s);

/* KT_S_OK when every KTUNE_* variable of s that is set (and not empty)
 * holds a value it can take; KT_S_INPUT naming the first that does not,
 * what it takes and what it holds. */
kt_status kt_settings_check(const kt_settings *s, kt_err *err);

#endif
