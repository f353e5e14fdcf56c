// SPDX-License-Identifier: Apache-2.0
/*
 * kt_space: the points a tuning run may visit.
 *
 * The union over the chosen variants of the cartesian product of each
 * variant's parameters, every parameter narrowed to the values the job
 * lists. `variant` acts as one more parameter: moving along it keeps every
 * parameter the two variants share by name (when the value is allowed in the
 * new variant) and gives the others their start values.
 *
 * Points are numbered 0..size-1: variants in declaration order, then the
 * parameters of each variant as mixed-radix digits, the last parameter
 * varying fastest, then the device settings the job lists (nvml_gr_clock,
 * nvml_mem_clock, nvml_pwr_limit: ktune's dimensions, set on the point's
 * nvml, never a plugin parameter), fastest of all: a slot's size and
 * offset count its settings too. Values of a parameter are in an order of
 * their own, never the order they are listed in (numbers ascending,
 * enumeration labels by number where they read as one, else by text), so
 * no search depends on how a plugin or a recording happens to list them.
 * Whether a point can run is decided without a GPU (kt_point_feasible) against
 * the device the evaluator reports, bound with kt_space_bind().
 */
#ifndef KT_SPACE_H
#define KT_SPACE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/loader.h"
#include "core/nvml_set.h"
#include "core/point.h"

/* Spaces larger than this are refused: no strategy could say anything
 * about them, and indices must stay exact in a double. */
#define KT_SPACE_MAX_POINTS (UINT64_C(1) << 48)

typedef struct kt_space_variant {
    uint32_t variant; /* index into op->variants */
    uint32_t num_params;
    uint32_t count[KT_MAX_PARAMS];  /* allowed values of each parameter */
    int64_t *values[KT_MAX_PARAMS]; /* owned; sorted (sort_values) */
    uint64_t size;   /* product of count[], times the space's settings */
    uint64_t offset; /* index of this variant's first point */
} kt_space_variant;

typedef struct kt_space {
    /* op's plugin (kt_call_* ask it; NULL: op's code runs here, no
     * registry loaded it) and op: both must outlive the space. */
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    kt_space_variant *slots;
    size_t num_slots;
    uint64_t size;
    /* ktune's dimensions: the device settings the job lists, and how many
     * combinations of them there are (1 with none). */
    kt_nvml_choices nvml;
    uint64_t settings;
    int bound; /* kt_space_bind() was called */
    /* 1 (kt_space_init's): the operator's defaults are declared, a start
     * someone chose (a plugin's, a job's, a T1 Default). 0: they are only
     * the first values a recording lists (another tool's cache file), so
     * the search starts where it draws (kt_tune_start). */
    int start_declared;
    /* 1: the search starts at `start` ([strategy] start, a point of the
     * space someone named), whatever start_declared says. */
    int start_given;
    kt_point start;
    int64_t sizes[KT_MAX_SIZES];
    kt_device device;
    char device_name[256];
    kt_problem problem; /* points at sizes and device above */
    /* Each point's verdict at the bound problem once it was asked
     * (records/space.c), so that the tuner's several questions about one
     * point (the count, the strategy, the hints, the host's refusal) reach
     * the plugin's shape() once. Set by kt_space_bind for spaces of at most
     * KT_SPACE_MEMO_POINTS points (one byte each), forgotten by a later
     * bind or a change of the space; NULL otherwise. */
    struct kt_space_memo *memo;
} kt_space;

/* The largest space whose verdicts are kept: 64 MiB of memo. */
#define KT_SPACE_MEMO_POINTS (UINT64_C(1) << 26)

/* The whole declared space of op: every variant, every value. */
kt_status kt_space_init(kt_space *space, const kt_loaded_plugin *plugin,
                        const kt_operator *op, kt_err *err);

void kt_space_free(kt_space *space);

/* Keeps only the listed variants (indices into op->variants, no repeats).
 */
kt_status kt_space_keep_variants(kt_space *space, const uint32_t *variants,
                                 size_t count, kt_err *err);

/* Narrows parameter `name` to the listed values (as the user writes them:
 * integers, 2^k, labels) in every kept variant that has it. Each value must
 * be declared by at least one of them, and each of them must keep at least
 * one value. KT_S_INPUT says what is allowed. */
kt_status kt_space_narrow(kt_space *space, const char *name, char *const *items,
                          size_t count, kt_err *err);

/* Makes device setting w (kt_nvml_key) a dimension of the space with the
 * listed values (no repeats; at most KT_NVML_MAX_VALUES). KT_S_INPUT says
 * what is wrong. */
kt_status kt_space_set_nvml(kt_space *space, size_t w, const unsigned *values,
                            size_t count, kt_err *err);

/* Sets the problem feasibility is decided for. dev is copied. Forgets the
 * verdicts of an earlier bind. */
void kt_space_bind(kt_space *space, const int64_t *sizes, uint64_t seed,
                   const kt_device *dev);

/* KT_S_OK, KT_S_INVALID with the reason, or KT_S_PLUGIN; the space must be
 * bound. A point of the space is asked of the plugin once: its verdict
 * (runs or cannot run; never a plugin's failure) is kept, and asked again
 * only for the reason of a point that cannot run when err wants it. Safe
 * to call from several threads at once (the pool's replay workers): a
 * verdict is one atomic byte, and two threads that decide one point store
 * the same answer. */
kt_status kt_space_feasible(const kt_space *space, const kt_point *pt,
                            kt_err *err);

/* Asks the plugin about the points numbered first..first+count-1 (those
 * below size) at once, so that kt_space_feasible on them is answered from
 * the oracle's memory (an isolated plugin's, isolation/oracle.h): one round
 * trip to its process for many points. Changes no answer; nothing for a plugin
 * mapped into this process or an unbound space. */
void kt_space_prefetch(const kt_space *space, uint64_t first, uint64_t count);

/* The point numbered index (< size). */
void kt_space_point(const kt_space *space, uint64_t index, kt_point *pt);

/* 1 and *index when pt lies in the space, else 0. */
int kt_space_index(const kt_space *space, const kt_point *pt, uint64_t *index);

/* The slot of variant index `variant`, or -1 when the space leaves it out. */
long kt_space_slot_of(const kt_space *space, uint32_t variant);

/* The start point of a slot: the named start (kt_space_set_start) when it
 * is of this slot's variant, else each parameter at its declared default,
 * or at the allowed value nearest to it (the lower on a tie) when the
 * job's list leaves the default out. */
void kt_space_slot_start(const kt_space *space, size_t slot, kt_point *pt);

/* 1 when slot's start was chosen by someone, not drawn: the space declares
 * its defaults, or the named start (kt_space_set_start) is of its variant. */
int kt_space_slot_start_chosen(const kt_space *space, size_t slot);

/* The start of the whole search: the point kt_space_set_start named, else
 * the operator's default configuration (variant 0's defaults), or the
 * nearest the space allows. */
void kt_space_start(const kt_space *space, kt_point *pt);

/* Makes pt the start of the search (start_given): kt_space_start returns
 * it, and kt_space_slot_start of its variant's slot too. KT_S_INPUT when pt
 * is not a point of the space. Call after the space is narrowed. */
kt_status kt_space_set_start(kt_space *space, const kt_point *pt, kt_err *err);

/* kt_space_set_start from text, "NAME=VALUE, ..." ([strategy] start):
 * variant=ID, wherever it is listed, picks the variant first; parameters
 * left out keep the start values of that variant's slot. KT_S_INPUT names
 * the item that is wrong and what is allowed. */
kt_status kt_space_parse_start(kt_space *space, const char *text, kt_err *err);

/* Moves pt to the variant of `slot`: shared parameters keep their values
 * where the new variant allows them, the others take start values. */
void kt_space_switch(const kt_space *space, const kt_point *pt, size_t slot,
                     kt_point *out);

/* Dimensions of the neighbourhood of pt: dimension 0 is `variant` when the
 * space has more than one, then pt's parameters in declared order, then
 * the device settings the job lists (nvml_gr_clock, ...). */
size_t kt_space_dims(const kt_space *space, const kt_point *pt);
const char *kt_space_dim_name(const kt_space *space, const kt_point *pt,
                              size_t dim);
/* Values along dim, and pt's position among them. */
size_t kt_space_dim_count(const kt_space *space, const kt_point *pt,
                          size_t dim);
size_t kt_space_dim_pos(const kt_space *space, const kt_point *pt, size_t dim);
/* pt with dim set to its k-th value (variant: kt_space_switch). */
void kt_space_dim_set(const kt_space *space, const kt_point *pt, size_t dim,
                      size_t k, kt_point *out);
/* pt's value along dim as the user writes it. */
void kt_space_dim_text(const kt_space *space, const kt_point *pt, size_t dim,
                       char *out, size_t out_size);

/* {"size": N, "variants": [{"id": "vec4", "params": {"block": [..]}}]}
 * (values in the declared order);
 * enumeration values as labels. Equal spaces give equal JSON. */
json_t *kt_space_to_json(const kt_space *space);

/* Counts the feasible points by checking each one; KT_S_UNSUPPORTED when
 * more than `limit` points would be checked. The space must be bound. For
 * a declared operator only the points its require allows are checked
 * (found by pruning), so the limit applies to those. */
kt_status kt_space_count_feasible(const kt_space *space, uint64_t limit,
                                  uint64_t *count, kt_err *err);

/* The points of a declared operator's space that pass each variant's
 * require (with a space file's Conditions) at sizes, per slot into
 * per_slot[] (may be NULL, else num_slots long) and in all; no device
 * needed: --check's count. Pruned (core/prune.h), so millions of points
 * take well under a second; where the walk would try more than 2^22
 * values (a condition reading every parameter of a huge space) the count
 * is estimated from random points and *estimated set, so --check answers
 * in seconds for spaces up to 2^64 points. KT_S_UNSUPPORTED for an
 * operator that is not declared (its constraints are its plugin's code). */
kt_status kt_space_count_required(const kt_space *space, const int64_t *sizes,
                                  uint64_t *per_slot, uint64_t *count,
                                  int *estimated, kt_err *err);

#endif
