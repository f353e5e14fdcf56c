// SPDX-License-Identifier: Apache-2.0
/*
 * libktune-select: picks a tuned launch configuration at run time from a
 * wisdom file that `ktune tune --wisdom FILE` wrote (docs/wisdom.md).
 *
 * C99, no CUDA, no ktune plugin and no ktune process needed: an application
 * opens the file once, then asks for the configuration of an operator on
 * its device at its problem size, and uses its own defaults when the answer
 * is "no wisdom".
 *
 *   kt_select_wisdom *w = NULL;
 *   kt_select_error e;
 *   if (kt_select_open("app.wisdom.jsonl", &w, &e) != KT_SELECT_OK)
 *       fprintf(stderr, "no wisdom: %s\n", e.msg);   // w stays NULL
 *   kt_select_config c;
 *   int64_t n = 1 << 24;
 *   int block = 256;                                 // the default
 *   if (kt_select(w, "myapp:vadd", prop.name, &n, 1, &c) >= 0 &&
 *       c.entry)
 *       block = (int)kt_select_get(&c, "block", block);
 *
 * The rule when no entry matches exactly (same operator, device and sizes),
 * in this order:
 *   1. the same device name (case-insensitive), else the same compute
 *      capability: a configuration tuned on another architecture is never
 *      used (its limits and its best shapes differ);
 *   2. among those, the entry nearest in log space: the smallest sum over
 *      the dimensions of |log2(wanted) - log2(tuned)|, so a factor of two
 *      counts the same in every dimension and at every scale (performance
 *      regimes — L2 fit, waves of blocks — change with ratios, not
 *      differences);
 *   3. on a tie, the larger tuned problem (the one whose sizes' product is
 *      larger), then file order.
 * Entries must have as many sizes as the query; there is no distance limit,
 * but the result says how far it is (distance, in factors of two).
 *
 * Thread safety: kt_select_open() builds an immutable table; everything
 * else only reads it, so any number of threads may call kt_select() on one
 * handle at once. kt_select_close() must not race with them.
 *
 * Errors never abort: every function returns a code, and kt_select_open()
 * also fills a kt_select_error with the line and a message. A damaged file
 * (truncated, wrong types, numbers out of range, too large) is refused as a
 * whole; no partial table is returned.
 */
#ifndef KTUNE_SELECT_H
#define KTUNE_SELECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The wisdom file format this library reads (docs/wisdom.md). */
#define KT_SELECT_FORMAT 1

/* Limits of a file (larger ones are refused with KT_SELECT_ELIMIT). */
#define KT_SELECT_MAX_ENTRIES (1u << 21)
#define KT_SELECT_MAX_LINE 65536
#define KT_SELECT_MAX_SIZES 8
#define KT_SELECT_MAX_PARAMS 64
#define KT_SELECT_MAX_TEXT 255

/* Return codes. Non-negative: kt_select()'s outcomes; negative: errors. */
enum {
    KT_SELECT_OK = 0,        /* opened; or an exact match */
    KT_SELECT_NEAREST = 1,   /* the nearest entry by the rule above */
    KT_SELECT_NO_WISDOM = 2, /* nothing applies: use your defaults */
    KT_SELECT_EARG = -1,     /* a NULL or malformed argument */
    KT_SELECT_EIO = -2,      /* the file cannot be read */
    KT_SELECT_EFORMAT = -3,  /* not a wisdom file, or a damaged one */
    KT_SELECT_EVERSION = -4, /* a format this library does not read */
    KT_SELECT_ENOMEM = -5,   /* out of memory */
    KT_SELECT_ELIMIT = -6    /* beyond one of the limits above */
};

typedef struct kt_select_wisdom kt_select_wisdom;

typedef struct kt_select_error {
    int code;      /* one of the negative codes, or KT_SELECT_OK */
    size_t line;   /* 1-based line of the file; 0: not about one line */
    char msg[512]; /* "app.wisdom.jsonl:3: sizes.n: expected an integer" */
} kt_select_error;

typedef struct kt_select_param {
    const char *name;
    int64_t value; /* enum parameters: the label's index */
} kt_select_param;

/* One answer of the file. Every pointer lives as long as the handle. */
typedef struct kt_select_entry {
    const char *op;             /* "plugin:operator" */
    const char *plugin_version; /* "" when not recorded */
    const char *device;         /* "NVIDIA H200" */
    int cc_major, cc_minor;     /* 9, 0 */
    size_t num_sizes;
    const char *const *size_names; /* in the operator's declared order */
    const int64_t *sizes;
    const char *variant;
    size_t num_params;
    const kt_select_param *params;
    double time_us, ci_lo_us, ci_hi_us; /* NaN when not recorded */
    const char *ktune_version, *date;   /* "" when not recorded */
    size_t line;                        /* where it is in the file */
} kt_select_entry;

typedef enum kt_select_match {
    KT_SELECT_MATCH_NONE = 0,
    KT_SELECT_MATCH_EXACT = 1,  /* same device name and sizes */
    KT_SELECT_MATCH_DEVICE = 2, /* same device name, nearest sizes */
    KT_SELECT_MATCH_CC = 3      /* same compute capability, nearest sizes */
} kt_select_match;

typedef struct kt_select_config {
    const kt_select_entry *entry; /* NULL: no wisdom */
    kt_select_match match;
    double distance; /* sum of |log2 ratio| over the sizes; 0 if exact */
    /* The configuration (copies of entry's fields; NULL/0: none). */
    const char *variant;
    size_t num_params;
    const kt_select_param *params;
} kt_select_config;

/* Reads the wisdom file at path. *out is NULL on any error (and err, which
 * may be NULL, says why); free a handle with kt_select_close(). */
int kt_select_open(const char *path, kt_select_wisdom **out,
                   kt_select_error *err);

/* The same from a buffer in memory (size bytes; need not be
 * NUL-terminated); name labels messages. */
int kt_select_open_buffer(const char *data, size_t size, const char *name,
                          kt_select_wisdom **out, kt_select_error *err);

void kt_select_close(kt_select_wisdom *w);

/* Entries in file order. */
size_t kt_select_count(const kt_select_wisdom *w);
const kt_select_entry *kt_select_entry_at(const kt_select_wisdom *w, size_t i);

/* The configuration of op on device at sizes[0..num_sizes) (in the
 * operator's declared order, as `ktune list` shows them). device is a
 * device name ("NVIDIA H200", as cudaDeviceProp.name) or a compute
 * capability ("9.0", "sm_90"); for a name, the compute capability is the
 * one the file records for that name. Returns KT_SELECT_OK (exact),
 * KT_SELECT_NEAREST, KT_SELECT_NO_WISDOM (also for w == NULL, so a failed
 * open falls back to defaults), or KT_SELECT_EARG. out is always filled
 * (entry NULL unless an entry was chosen). */
int kt_select(const kt_select_wisdom *w, const char *op, const char *device,
              const int64_t *sizes, size_t num_sizes, kt_select_config *out);

/* The same with the device's name and compute capability both known (what
 * cudaGetDeviceProperties gives): an unknown name still finds entries of
 * the same compute capability. name may be NULL. */
int kt_select_device(const kt_select_wisdom *w, const char *op,
                     const char *name, int cc_major, int cc_minor,
                     const int64_t *sizes, size_t num_sizes,
                     kt_select_config *out);

/* The value of parameter name in c, or fallback when c has none. */
int64_t kt_select_get(const kt_select_config *c, const char *name,
                      int64_t fallback);

/* A short description of a return code. */
const char *kt_select_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif
