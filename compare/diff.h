// SPDX-License-Identifier: Apache-2.0
/*
 * kt_diff: two results files of one operator, configuration by
 * configuration — what `ktune diff A B` reports for CI. A file is a
 * `ktune bench --json` record (one configuration), a `ktune tune --json`
 * summary (its top entries, and its answer) or a `ktune compare --json`
 * record (each variant measured). Configurations are matched by variant
 * and parameter values; the change is time(B) / time(A) with its 95%
 * interval from the raw samples (kt_stats_unpaired_ratio: the two runs
 * are independent, nothing pairs their samples), or, for a configuration
 * a file has no samples of, the conservative interval of the two medians'
 * intervals. A change is a regression or an improvement when its interval
 * excludes 1 and it is larger than the threshold (kt_stats_verdict).
 * Environment fields that differ between the files (device, driver,
 * clocks, protocol, machine) are listed: the comparison then crosses
 * sessions. Needs no plugin and no GPU.
 */
#ifndef KT_DIFF_H
#define KT_DIFF_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "core/stats.h"

/* One configuration of one file. Owns samples_us. */
typedef struct kt_diff_config {
    char key[512]; /* "variant name=value ...", the parameters in file order */
    double median_us, ci_lo_us, ci_hi_us;
    double *samples_us; /* NULL: the file kept none */
    size_t num_samples;
    const char *source; /* "result", "top", "best", "variants": static */
} kt_diff_config;

/* One file read. Owns everything. */
typedef struct kt_diff_file {
    char *path;
    char kind[32];  /* "ktune.bench", "ktune.tune", "ktune.compare" */
    char spec[256]; /* plugin:operator */
    char sizes[256];
    char device[256];
    json_t *environment; /* the file's device, plugin, protocol, host */
    char answer[512];    /* a tune summary's answer ("best"), else "" */
    kt_diff_config *configs;
    size_t num_configs;
} kt_diff_file;

typedef enum kt_diff_verdict {
    KT_DIFF_SAME = 0,    /* no change beyond the threshold with confidence */
    KT_DIFF_REGRESSION,  /* B slower */
    KT_DIFF_IMPROVEMENT, /* B faster */
    KT_DIFF_ONLY_A,      /* the configuration is not in B */
    KT_DIFF_ONLY_B
} kt_diff_verdict;

typedef struct kt_diff_row {
    const kt_diff_config *a, *b; /* NULL for the side it is missing from */
    kt_ratio change;             /* time(B) / time(A); n == 0: none */
    int from_samples;            /* the interval came from the samples */
    kt_diff_verdict verdict;
} kt_diff_row;

/* One differing environment field. */
typedef struct kt_diff_env {
    char field[64];
    char a[160], b[160];
} kt_diff_env;

typedef struct kt_diff {
    kt_diff_file a, b;
    double threshold; /* relative, e.g. 0.02 */
    kt_diff_row *rows;
    size_t num_rows;
    kt_diff_env *env; /* differing fields */
    size_t num_env;
    size_t count[KT_DIFF_ONLY_B + 1]; /* rows per verdict */
    /* The columns kt_diff_print fits (core/term.h: the configuration last
     * and wrapped, lines wrapped); 0: the wide form, configuration first. */
    int width;
} kt_diff;

/* Reads path. KT_S_INPUT naming the file when it is not JSON, not one of
 * the three kinds, or a field is missing or not what it should be;
 * KT_S_IO when it cannot be read. On failure *out is left empty. */
kt_status kt_diff_load(const char *path, kt_diff_file *out, kt_err *err);

void kt_diff_file_free(kt_diff_file *f);

/* Diffs *a against *b (both taken over: out owns them, and they are left
 * empty, also on failure). KT_S_INPUT when the files measure different
 * operators or share no configuration. Free with kt_diff_free. */
kt_status kt_diff_run(kt_diff_file *a, kt_diff_file *b, double threshold,
                      kt_diff *out, kt_err *err);

void kt_diff_free(kt_diff *d);

/* "same", "regression", "improvement", "only in A", "only in B". */
const char *kt_diff_verdict_name(kt_diff_verdict v);

/* The outputs (compare/diff_out.c): the table for a terminal, Markdown, and
 * the JSON record (kind "ktune.diff", new reference). */
void kt_diff_print(FILE *out, const kt_diff *d);
void kt_diff_markdown(FILE *out, const kt_diff *d);
json_t *kt_diff_json(const kt_diff *d);

/* The warning about differing environments, on out (nothing when they
 * agree). */
void kt_diff_warn_env(FILE *out, const kt_diff *d);

#endif
