// SPDX-License-Identifier: Apache-2.0
/*
 * kt_results: the configurations `ktune compare --from FILE` takes from a
 * results file — for each variant of the operator, its best verified point
 * as the file records it:
 *
 *   tuner journal (first record kind "ktune.journal")
 *       the fastest ok record of the variant (lowest median of any of its
 *       measurements: alone, compared or final); ties: the earlier record;
 *   `ktune tune --json` summary (kind "ktune.tune")
 *       the run's answer ("best") for its variant; for the others the
 *       fastest finalist, else the fastest entry of "top" (a summary keeps
 *       only the top N, so a variant outside them is not in it);
 *   `ktune compare --json` record (kind "ktune.compare")
 *       each variant's compared point that measured ok.
 *
 * Points are read against the operator loaded now (kt_point_validate), so
 * a file of another plugin build that names values this build lacks fails
 * with the file's name. No GPU.
 */
#ifndef KT_COMPARE_RESULTS_H
#define KT_COMPARE_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/param.h"
#include "core/point.h"

typedef enum kt_pick_kind {
    KT_PICK_DEFAULTS = 0, /* the variant's declared defaults */
    KT_PICK_CONFIG,       /* given on the command line (--config) */
    KT_PICK_RESULTS       /* taken from a results file */
} kt_pick_kind;

/* Where one variant's configuration came from. Plain data. */
typedef struct kt_pick {
    int found; /* the file holds this variant */
    kt_point point;
    kt_pick_kind kind;
    size_t file;        /* KT_PICK_RESULTS: index of the file */
    char detail[128];   /* "fastest of 14 ok records", "best", "top #3" */
    double recorded_us; /* the file's median for it; NaN when unknown */
} kt_pick;

typedef enum kt_results_kind {
    KT_RESULTS_JOURNAL = 0,
    KT_RESULTS_SUMMARY,
    KT_RESULTS_COMPARE
} kt_results_kind;

/* One results file read for one operator. */
typedef struct kt_results {
    char *path; /* owned */
    kt_results_kind kind;
    int64_t sizes[KT_MAX_SIZES]; /* the problem it was measured at */
    int has_seed;
    uint64_t seed;       /* journal and compare records only */
    char device[256];    /* the GPU it was measured on; "" unknown */
    size_t records;      /* journal: eval records; else entries read */
    kt_pick *picks;      /* one per variant of the operator; owned */
    size_t num_variants; /* op->num_variants */
    char note[512];      /* what reading dropped (a torn journal), or "" */
} kt_results;

/* Reads path as a results file of plugin_name:op. KT_S_INPUT (naming the
 * file) when it is none of the three kinds, records another operator, or
 * holds a point the operator cannot represent; KT_S_IO when it cannot be
 * read. On failure *out is left empty. */
kt_status kt_results_load(const char *path, const char *plugin_name,
                          const kt_operator *op, kt_results *out, kt_err *err);

void kt_results_free(kt_results *r);

/* "journal", "summary", "compare record". */
const char *kt_results_kind_name(kt_results_kind kind);

/* The best pick of variant over files[0..n): the lowest recorded median
 * (the earlier file on a tie, and a pick without a recorded median only
 * when no file has one with it). 0 when no file holds the variant. */
int kt_results_best(const kt_results *files, size_t n, uint32_t variant,
                    kt_pick *out);

#endif
