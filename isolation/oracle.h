// SPDX-License-Identifier: Apache-2.0
/*
 * kt_oracle: a child process that has loaded one plugin and answers its
 * pure callbacks, shape(), check() and work(), for a process that must
 * never run plugin code itself (ktune's own commands: list, tune, replay,
 * report). A callback that faults or hangs ends the child, not the caller:
 * the call fails with a message saying how, and the next call starts a new
 * child (up to KT_ORACLE_MAX_CRASHES times). An answer the callbacks gave
 * is remembered (isolation/oracle_memo.h, at most KT_ORACLE_MEMO_BYTES per
 * oracle): the same question asked again never reaches the child; a crash
 * or a timeout is never remembered.
 */
#ifndef KT_ORACLE_H
#define KT_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/loader.h"
#include "core/param.h"
#include "core/point.h"
#include "ktune/plugin.h"

#define KT_ORACLE_MAX_CRASHES 3

typedef struct kt_oracle kt_oracle;

/* A question for the plugin at path: which callback of which operator and
 * variant (indices into its descriptor), for which problem and values. */
typedef enum kt_oracle_call {
    KT_ORACLE_SHAPE = 1, /* check() when present, then shape() */
    KT_ORACLE_WORK = 2
} kt_oracle_call;

typedef struct kt_oracle_answer {
    int32_t check_rc; /* KT_OK when there is no check() */
    int32_t rc;       /* shape() or work() */
    kt_shape shape;   /* kernel is always NULL here */
    kt_work work;
    char why[512]; /* check()'s reason */
} kt_oracle_answer;

/* A handle for the plugin at path; starts no process yet. NULL: no memory. */
kt_oracle *kt_oracle_new(const char *path, int timeout_ms);
void kt_oracle_free(kt_oracle *o);

/* What an oracle was asked, and how much of it was answered from memory
 * (isolation/oracle_memo.h): the callbacks are pure, so a question asked before
 * is not sent to the child again. */
typedef struct kt_oracle_stats {
    uint64_t asked;       /* every kt_oracle_ask */
    uint64_t from_memory; /* answered without reaching the child */
    uint64_t sent;        /* questions that reached the child (both calls) */
    uint64_t emptied;     /* times the memo was emptied to stay in its cap */
    size_t memo_bytes;    /* what the memo holds now */
} kt_oracle_stats;

void kt_oracle_stats_get(const kt_oracle *o, kt_oracle_stats *out);

/* Replaces the memo by an empty one of at most max_bytes (every oracle
 * starts with KT_ORACLE_MEMO_BYTES; 0: remember nothing). -1: no memory
 * (the old memo is kept). */
int kt_oracle_set_memo_bytes(kt_oracle *o, size_t max_bytes);

/* Asks; KT_S_OK with the callbacks' own return codes in *a (from memory
 * when asked before), or KT_S_PLUGIN when the child crashed, hung
 * (timeout_ms) or could not load the plugin, err naming the callback and
 * how it ended. */
kt_status kt_oracle_ask(kt_oracle *o, kt_oracle_call call, uint32_t op,
                        uint32_t variant, const kt_problem *problem,
                        const kt_config *config, kt_oracle_answer *a,
                        kt_err *err);

/* Asks the child about the points pts[0..n) (their variants and values;
 * the config's names are not sent) in exchanges of several questions at
 * once, and remembers the answers, so that the kt_oracle_ask calls that
 * follow are answered from memory: one round trip for many points instead
 * of one each. Points remembered already are not asked again. Nothing to
 * report: a question that fails here (counted as a crash) is answered by
 * the next kt_oracle_ask of it with the same error, and the prefetch stops
 * there. Useful only while the memo can hold the answers. */
void kt_oracle_prefetch(kt_oracle *o, kt_oracle_call call, uint32_t op,
                        const kt_problem *problem, const kt_point *pts,
                        size_t n);

/* The oracle of a plugin the isolating kind adopted (a registry that maps
 * no plugin, isolation/oracle_kind.c), which its callbacks and its
 * prefetch ask: for what it was asked (kt_oracle_stats_get). NULL for any
 * other plugin. Owned by the plugin's registry. */
kt_oracle *kt_oracle_of(const kt_loaded_plugin *plugin);

#endif
