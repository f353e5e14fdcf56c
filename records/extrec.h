// SPDX-License-Identifier: Apache-2.0
/*
 * kt_extrec: another tool's recording of a brute-forced space — a Kernel
 * Tuner cache file or a T4 results file (records/ktcache.h reads both) — as
 * an operator ktune's strategies can search without a plugin or a GPU.
 *
 * The recording declares its parameters and their values; the operator it
 * becomes has one variant, named after the recorded kernel, with those
 * parameters in the recorded order (integers as lists, any other value —
 * a real, a string, a boolean — as an enumeration whose labels are the
 * values' JSON text). The points the file holds are the feasible ones: any
 * other point of the cartesian product is refused on the host (check()
 * says "not in the recording"), as Kernel Tuner's restrictions left it out
 * of the space that was recorded. A recorded point has the verdict the
 * file gives it (correct, or failed to compile, failed at run time,
 * refused by a constraint, wrong results, timed out) and, when correct,
 * the file's objective ("time", in ms).
 *
 * The recording owns everything: the parsed document (records borrow its
 * values), the operator and the plugin descriptor that present it, whose
 * callbacks find the recording in their data (ABI 1.3): any number may be
 * open at once. Files are read by records/ktcache.h (kt_ktcache_load).
 */
#ifndef KT_EXTREC_H
#define KT_EXTREC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/loader.h"
#include "core/point.h"
#include "core/u64map.h"
#include "records/space.h"

typedef enum kt_extrec_format {
    KT_EXTREC_KT_CACHE = 1, /* Kernel Tuner's cache file (--cache) */
    KT_EXTREC_T4 = 2        /* T4 results (schema 1.0.0) */
} kt_extrec_format;

/* A recorded verdict, as T4 names its invalidity classes. */
typedef enum kt_extrec_verdict {
    KT_EXTREC_CORRECT = 0,
    KT_EXTREC_CONSTRAINTS, /* Kernel Tuner's InvalidConfig */
    KT_EXTREC_COMPILE,     /* CompilationFailedConfig */
    KT_EXTREC_RUNTIME,     /* RuntimeFailedConfig */
    KT_EXTREC_CORRECTNESS, /* T4 only: the output was wrong */
    KT_EXTREC_TIMEOUT      /* T4 only */
} kt_extrec_verdict;

typedef struct kt_extrec_param {
    char *name; /* owned */
    uint32_t count;
    json_t **values;  /* the declared values in order, borrowed from doc */
    int integer;      /* every value is an integer: a list parameter */
    int64_t *ints;    /* integer: the values; owned */
    char **labels;    /* not integer: each value's JSON text; owned */
    kt_u64map by_key; /* integer value, or label hash -> position */
} kt_extrec_param;

typedef struct kt_extrec_record {
    /* Its point's mixed-radix rank (kt_extrec_point gives the point): a
     * kt_point held here was 408 of a record's 496 bytes, the tune's
     * entry holding the same point again (issue 54). */
    uint64_t rank;
    kt_extrec_verdict verdict;
    double time_ms; /* the objective, when correct */
    /* The file's own value when it is an error name (a reference owned
     * by the record), else NULL: a correct point's is time_ms. */
    json_t *objective;
    double *runs_ms;   /* the recorded runs in ms, owned; NULL: none */
    uint32_t num_runs; /* of them */
    /* What Kernel Tuner's simulation mode charges for a configuration's
     * first evaluation (ms): compilation, verification, benchmarking. */
    double compile_ms, verify_ms, bench_ms;
    /* Recorded, not charged: the recording's own overheads (ms). */
    double framework_ms, strategy_ms;
    size_t order; /* its position in the file, from 0 */
    char *key;    /* a cache file's key (owned), or NULL */
} kt_extrec_record;

/* Frees what a record owns (objective, runs, key); zeroes them. For a
 * record kt_extrec_add did not take. */
void kt_extrec_record_clear(kt_extrec_record *r);

typedef struct kt_extrec {
    char *path; /* owned */
    kt_extrec_format format;
    char kernel[128]; /* the recorded kernel's name: the variant's id */
    char device[256]; /* the recorded device's name, or "unknown" */
    /* The parsed file; owned. A Kernel Tuner cache read entry by entry
     * (records/ktcache.c) keeps everything but its cache here: the records
     * own what they keep of their entries, so the memory held is the
     * points', not the file's text. */
    json_t *doc;
    size_t num_params;
    kt_extrec_param params[KT_MAX_PARAMS];
    uint64_t space_size; /* product of the parameters' counts */
    kt_extrec_record *records;
    size_t num_records, cap_records;
    kt_u64map by_rank; /* the point's mixed-radix rank -> record */
    /* Once finished, a recording that holds at least half of its space
     * finds a record by its rank in this array instead (record index + 1,
     * 0: not recorded; by_rank is then freed): the hash map's probes were
     * a tenth of a 1e6-point exhaustive replay, its slots larger. NULL:
     * by_rank serves. */
    uint32_t *dense;
    /* T4 files that record no benchmark time: the sum of the runtimes
     * stands for it (said in the summary). */
    int bench_from_runtimes;
    /* A cache's entries read by the fast reading (records/ktentry.h), the
     * others parsed whole: said for the tests. */
    size_t plain_entries;
    /* Milliseconds per unit of the file's times (T4's metadata.timeunit;
     * 1 for a cache file); records hold milliseconds. */
    double unit_ms;
    /* The operator and plugin that present the recording; both carry it
     * as their data (kt_operator.data, kt_variant.data). */
    kt_param_desc descs[KT_MAX_PARAMS];
    kt_variant variant;
    kt_operator op;
    kt_loaded_plugin plugin;
} kt_extrec;

/* Frees rec; NULL is fine. */
void kt_extrec_free(kt_extrec *rec);

/* The recording op presents (op is rec->op, or a registry's copy of it),
 * read from its data; NULL for any other operator. */
const kt_extrec *kt_extrec_of(const kt_operator *op);

/* "Kernel Tuner cache file" or "T4 results file". Static text. */
const char *kt_extrec_format_name(kt_extrec_format format);

/* The point of the recording's operator (variant 0) r stands for. */
void kt_extrec_point(const kt_extrec *rec, const kt_extrec_record *r,
                     kt_point *pt);

/* The recorded point pt, or NULL (not recorded, or not of this
 * recording's operator). Valid until kt_extrec_free(). */
const kt_extrec_record *kt_extrec_find(const kt_extrec *rec,
                                       const kt_point *pt);

/* The fastest correct record (the file's own optimum; the first recorded
 * on a tie), or NULL when none is correct. */
const kt_extrec_record *kt_extrec_optimum(const kt_extrec *rec);

/* ---- Building (the readers in records/ktcache.c) ---- */

/* Starts an empty recording of path in format; doc (a new reference) is
 * kept and freed with it. */
kt_status kt_extrec_begin(const char *path, kt_extrec_format format,
                          json_t *doc, kt_extrec **out, kt_err *err);

/* Declares parameter name with the values of the JSON array values
 * (scalars, no value twice, at least one). `where` names the field in
 * messages. */
kt_status kt_extrec_add_param(kt_extrec *rec, const char *name, json_t *values,
                              const char *where, kt_err *err);

/* The position of value among parameter p's declared values: 1 and *pos,
 * or 0. Integers and reals compare by value (2 and 2.0 are one value),
 * everything else by its JSON text. */
int kt_extrec_value_pos(const kt_extrec *rec, size_t p, const json_t *value,
                        uint32_t *pos);

/* Adds a record (before kt_extrec_finish); its point's values are positions
 * (pos[0..num_params)) and become the operator's values. A point recorded twice
 * is KT_S_INPUT naming `where` and the first. */
kt_status kt_extrec_add(kt_extrec *rec, const uint32_t *pos,
                        const kt_extrec_record *r, const char *where,
                        kt_err *err);

/* Builds the operator once every parameter and record is in. */
kt_status kt_extrec_finish(kt_extrec *rec, kt_err *err);

#endif
