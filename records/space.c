// SPDX-License-Identifier: Apache-2.0
#include "records/space.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/feasible.h"
#include "core/loader.h"
#include "core/parse.h"
#include "core/prune.h"
#include "core/suggest.h"

static void free_slot(kt_space_variant *slot)
{
    for (uint32_t i = 0; i < slot->num_params; ++i)
        free(slot->values[i]);
    memset(slot, 0, sizeof *slot);
}

/* The combinations of the device settings the space lists. */
static uint64_t settings_of(const kt_space *space)
{
    uint64_t n = 1;
    for (size_t w = 0; w < 3; ++w)
        n *= space->nvml.count[w] ? space->nvml.count[w] : 1;
    return n;
}

/* ------------------------------------------------------ verdict memo */

/* A point's verdict: not asked yet, runs, cannot run (KT_S_INVALID). */
enum { VERDICT_UNKNOWN = 0, VERDICT_RUNS = 1, VERDICT_REFUSED = 2 };

struct kt_space_memo {
    _Atomic unsigned char *verdicts; /* one per point of the space */
};

static void memo_free(kt_space *space)
{
    if (space->memo)
        free((void *)space->memo->verdicts);
    free(space->memo);
    space->memo = NULL;
}

/* A fresh memo for the bound space; none (every question asked) when the
 * space is too large or memory is short: the memo only saves calls. */
static void memo_renew(kt_space *space)
{
    memo_free(space);
    if (space->size == 0 || space->size > KT_SPACE_MEMO_POINTS)
        return;
    if (!(space->memo = calloc(1, sizeof *space->memo)))
        return;
    space->memo->verdicts =
        calloc((size_t)space->size, sizeof *space->memo->verdicts);
    if (!space->memo->verdicts)
        memo_free(space);
}

/* Recomputes sizes and offsets after the slots changed. */
static kt_status recount(kt_space *space, kt_err *err)
{
    uint64_t total = 0;

    /* Indices change with the slots: the verdicts are kept by index. */
    memo_free(space);

    space->settings = settings_of(space);
    for (size_t s = 0; s < space->num_slots; ++s) {
        kt_space_variant *slot = &space->slots[s];
        uint64_t size = space->settings;
        for (uint32_t i = 0; i < slot->num_params; ++i) {
            if (size > KT_SPACE_MAX_POINTS / slot->count[i])
                goto too_big;
            size *= slot->count[i];
        }
        slot->size = size;
        slot->offset = total;
        if (total > KT_SPACE_MAX_POINTS - size)
            goto too_big;
        total += size;
    }
    space->size = total;
    return KT_S_OK;
too_big:
    return kt_err_set(err, KT_S_INPUT,
                      "the space of operator '%s' has more than 2^48 "
                      "points; narrow it in [space]",
                      space->op->id);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* An enumeration value with its label, for sorting by the label. */
typedef struct labelled {
    int64_t value;
    const char *label;
} labelled;

/* Labels that read as numbers go by their number (before any that do
 * not), the others by their text: a rule of the labels themselves. */
static int cmp_label(const void *a, const void *b)
{
    const char *x = ((const labelled *)a)->label;
    const char *y = ((const labelled *)b)->label;
    char *ex, *ey;
    double dx = strtod(x, &ex), dy = strtod(y, &ey);
    int nx = ex != x && !*ex, ny = ey != y && !*ey;

    if (nx && ny && dx != dy)
        return (dx > dy) - (dx < dy);
    if (nx != ny)
        return ny - nx;
    return strcmp(x, y);
}

/* Puts a parameter's values in an order of their own, whatever order the
 * plugin, the declaration or the recording lists them in, so that no
 * strategy depends on the listing (point numbers, random draws and
 * one-step neighbours all follow this order): numbers ascending (ordinal
 * parameters keep their numeric order), enumeration labels as cmp_label
 * says (nominal ones have no order but this one). */
static kt_status sort_values(const kt_param_desc *pd, int64_t *values, size_t n,
                             kt_err *err)
{
    labelled *l;

    if (pd->kind != KT_PARAM_ENUM) {
        qsort(values, n, sizeof *values, cmp_i64);
        return KT_S_OK;
    }
    if (!(l = malloc((n ? n : 1) * sizeof *l)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t k = 0; k < n; ++k)
        l[k] = (labelled){values[k], pd->labels[values[k]]};
    qsort(l, n, sizeof *l, cmp_label);
    for (size_t k = 0; k < n; ++k)
        values[k] = l[k].value;
    free(l);
    return KT_S_OK;
}

static kt_status fill_slot(kt_space_variant *slot, const kt_operator *op,
                           uint32_t variant, kt_err *err)
{
    const kt_variant *v = &op->variants[variant];

    memset(slot, 0, sizeof *slot);
    slot->variant = variant;
    slot->num_params = v->num_params;
    for (uint32_t i = 0; i < v->num_params; ++i) {
        size_t n = kt_param_count(&v->params[i]);
        slot->values[i] = malloc((n ? n : 1) * sizeof(int64_t));
        if (!slot->values[i]) {
            free_slot(slot);
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        }
        for (size_t k = 0; k < n; ++k)
            slot->values[i][k] = kt_param_value_at(&v->params[i], k);
        slot->count[i] = (uint32_t)n;
        if (sort_values(&v->params[i], slot->values[i], n, err)) {
            free_slot(slot);
            return KT_S_NOMEM;
        }
    }
    return KT_S_OK;
}

kt_status kt_space_init(kt_space *space, const kt_loaded_plugin *plugin,
                        const kt_operator *op, kt_err *err)
{
    kt_status rc;

    memset(space, 0, sizeof *space);
    space->plugin = plugin;
    space->op = op;
    space->start_declared = 1;
    space->slots =
        calloc(op->num_variants ? op->num_variants : 1, sizeof *space->slots);
    if (!space->slots)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        if ((rc = fill_slot(&space->slots[v], op, v, err))) {
            kt_space_free(space);
            return rc;
        }
        space->num_slots = v + 1;
    }
    if ((rc = recount(space, err)))
        kt_space_free(space);
    return rc;
}

void kt_space_free(kt_space *space)
{
    for (size_t s = 0; s < space->num_slots; ++s)
        free_slot(&space->slots[s]);
    free(space->slots);
    space->slots = NULL;
    space->num_slots = 0;
    space->size = 0;
    memo_free(space);
}

kt_status kt_space_keep_variants(kt_space *space, const uint32_t *variants,
                                 size_t count, kt_err *err)
{
    size_t kept = 0;

    /* Slots stay in declaration order whatever order the list has. */
    for (size_t s = 0; s < space->num_slots; ++s) {
        int wanted = 0;
        for (size_t i = 0; i < count; ++i)
            wanted |= variants[i] == space->slots[s].variant;
        if (wanted)
            space->slots[kept++] = space->slots[s];
        else
            free_slot(&space->slots[s]);
    }
    space->num_slots = kept;
    if (kept == 0)
        return kt_err_set(err, KT_S_INPUT, "no variant left in the space");
    return recount(space, err);
}

/* Names of every parameter of the operator, once each, for suggestions. */
static size_t all_param_names(const kt_operator *op, const char **names,
                              size_t max)
{
    size_t n = 0;
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        const kt_variant *var = &op->variants[v];
        for (uint32_t i = 0; i < var->num_params; ++i) {
            int seen = 0;
            for (size_t k = 0; k < n; ++k)
                seen |= strcmp(names[k], var->params[i].name) == 0;
            if (!seen && n < max)
                names[n++] = var->params[i].name;
        }
    }
    return n;
}

static kt_status unknown_param(const kt_space *space, const char *name,
                               kt_err *err)
{
    const kt_operator *op = space->op;
    const char *names[64];
    char hint[512], owners[256] = "";
    size_t n;

    /* Declared by a variant the job left out? Say so. */
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        if (kt_variant_find_param(&op->variants[v], name) >= 0) {
            size_t used = strlen(owners);
            snprintf(owners + used, sizeof owners - used, "%s'%s'",
                     used ? ", " : "", op->variants[v].id);
        }
    }
    if (owners[0])
        return kt_err_set(err, KT_S_INPUT,
                          "'%s' is a parameter of %s, which the space "
                          "leaves out (see `variant`)",
                          name, owners);
    n = all_param_names(op, names, 63);
    names[n++] = "variant";
    kt_suggest(name, names, n, hint, sizeof hint);
    return kt_err_set(err, KT_S_INPUT, "operator '%s' has no parameter '%s'%s",
                      op->id, name, hint);
}

kt_status kt_space_narrow(kt_space *space, const char *name, char *const *items,
                          size_t count, kt_err *err)
{
    const kt_param_desc *first = NULL;
    kt_status rc;

    if (count > 64)
        return kt_err_set(err, KT_S_INPUT,
                          "%zu values for '%s'; at most 64 can be listed",
                          count, name);
    for (size_t i = 0; i < count; ++i)
        for (size_t k = 0; k < i; ++k)
            if (strcmp(items[i], items[k]) == 0)
                return kt_err_set(err, KT_S_INPUT, "%s is listed twice",
                                  items[i]);
    /* Every value must be declared by some kept variant having the
     * parameter; the first such variant's message says what is allowed. */
    for (size_t i = 0; i < count; ++i) {
        int accepted = 0;
        for (size_t s = 0; s < space->num_slots && !accepted; ++s) {
            const kt_variant *v = &space->op->variants[space->slots[s].variant];
            long p = kt_variant_find_param(v, name);
            int64_t value;
            if (p < 0)
                continue;
            if (!first)
                first = &v->params[p];
            accepted = kt_param_parse(&v->params[p], items[i], &value, NULL) ==
                       KT_S_OK;
        }
        if (!first)
            return unknown_param(space, name, err);
        if (!accepted) {
            int64_t unused;
            rc = kt_param_parse(first, items[i], &unused, err);
            return rc ? rc
                      : kt_err_set(err, KT_S_INPUT, "'%s' is not allowed",
                                   items[i]);
        }
    }
    for (size_t s = 0; s < space->num_slots; ++s) {
        kt_space_variant *slot = &space->slots[s];
        const kt_variant *v = &space->op->variants[slot->variant];
        long p = kt_variant_find_param(v, name);
        size_t kept = 0;

        if (p < 0)
            continue;
        /* Keep the declared order: walk the allowed values, keep listed. */
        for (uint32_t k = 0; k < slot->count[p]; ++k) {
            int listed = 0;
            for (size_t i = 0; i < count && !listed; ++i) {
                int64_t value;
                listed = kt_param_parse(&v->params[p], items[i], &value,
                                        NULL) == KT_S_OK &&
                         value == slot->values[p][k];
            }
            if (listed)
                slot->values[p][kept++] = slot->values[p][k];
        }
        if (kept == 0) {
            char allowed[256];
            kt_param_describe(&v->params[p], allowed, sizeof allowed);
            return kt_err_set(err, KT_S_INPUT,
                              "none of the listed values is allowed in "
                              "variant '%s', which declares %s",
                              v->id, allowed);
        }
        slot->count[p] = (uint32_t)kept;
    }
    return recount(space, err);
}

void kt_space_bind(kt_space *space, const int64_t *sizes, uint64_t seed,
                   const kt_device *dev)
{
    memcpy(space->sizes, sizes, sizeof space->sizes);
    space->device = *dev;
    snprintf(space->device_name, sizeof space->device_name, "%s",
             dev->name ? dev->name : "");
    space->device.name = space->device_name;
    memset(&space->problem, 0, sizeof space->problem);
    space->problem.struct_size = sizeof space->problem;
    space->problem.num_sizes = space->op->num_sizes;
    space->problem.sizes = space->sizes;
    space->problem.seed = seed;
    space->problem.device = &space->device;
    space->bound = 1;
    memo_renew(space);
}

kt_status kt_space_feasible(const kt_space *space, const kt_point *pt,
                            kt_err *err)
{
    _Atomic unsigned char *verdict = NULL;
    uint64_t index;
    kt_status rc;

    if (!space->bound)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "the space has no device to check points against");
    if (space->memo && kt_space_index(space, pt, &index)) {
        unsigned char known;
        verdict = &space->memo->verdicts[index];
        known = atomic_load_explicit(verdict, memory_order_relaxed);
        if (known == VERDICT_RUNS)
            return KT_S_OK;
        /* The reason is not kept: asked again when the caller wants it. */
        if (known == VERDICT_REFUSED && !err)
            return KT_S_INVALID;
    }
    rc = kt_point_feasible(space->plugin, space->op, &space->problem, pt, NULL,
                           err);
    if (verdict && (rc == KT_S_OK || rc == KT_S_INVALID))
        atomic_store_explicit(verdict,
                              rc == KT_S_OK ? VERDICT_RUNS : VERDICT_REFUSED,
                              memory_order_relaxed);
    return rc;
}

/* Points handed to the oracle at a time. */
#define PREFETCH 64

void kt_space_prefetch(const kt_space *space, uint64_t first, uint64_t count)
{
    kt_point pts[PREFETCH];
    uint64_t end = first + count < space->size ? first + count : space->size;

    if (!space->bound)
        return;
    while (first < end) {
        size_t n = 0;
        for (; first < end && n < PREFETCH; ++first)
            kt_space_point(space, first, &pts[n++]);
        kt_call_shape_prefetch(space->plugin, space->op, &space->problem, pts,
                               n);
    }
}

static size_t slot_at(const kt_space *space, uint64_t index)
{
    size_t s = 0;
    while (s + 1 < space->num_slots && index >= space->slots[s + 1].offset)
        ++s;
    return s;
}

/* Combination `combo` of the listed settings into s, the last fastest. */
static void nvml_decode(const kt_space *space, uint64_t combo,
                        kt_nvml_setting *s)
{
    memset(s, 0, sizeof *s);
    for (size_t w = 3; w-- > 0;) {
        uint32_t c = space->nvml.count[w];
        if (!c)
            continue;
        *kt_nvml_field(s, w) = space->nvml.values[w][combo % c];
        combo /= c;
    }
}

static long nvml_pos(const kt_space *space, size_t w, unsigned v)
{
    for (uint32_t k = 0; k < space->nvml.count[w]; ++k)
        if (space->nvml.values[w][k] == v)
            return (long)k;
    return -1;
}

/* s's combination; 0 when s sets what the space does not list. */
static int nvml_encode(const kt_space *space, const kt_nvml_setting *s,
                       uint64_t *combo)
{
    kt_nvml_setting copy = *s;
    uint64_t r = 0;

    for (size_t w = 0; w < 3; ++w) {
        uint32_t c = space->nvml.count[w];
        long k = nvml_pos(space, w, *kt_nvml_field(&copy, w));
        if (!c && *kt_nvml_field(&copy, w))
            return 0;
        if (!c)
            continue;
        if (k < 0)
            return 0;
        r = r * c + (uint64_t)k;
    }
    *combo = r;
    return 1;
}

kt_status kt_space_set_nvml(kt_space *space, size_t w, const unsigned *values,
                            size_t count, kt_err *err)
{
    kt_nvml_choices was = space->nvml;

    if (count == 0 || count > KT_NVML_MAX_VALUES)
        return kt_err_set(err, KT_S_INPUT, "%zu values, expected 1 to %d",
                          count, KT_NVML_MAX_VALUES);
    for (size_t i = 0; i < count; ++i)
        for (size_t k = 0; k < i; ++k)
            if (values[k] == values[i])
                return kt_err_set(err, KT_S_INPUT, "%u is listed twice",
                                  values[i]);
    space->nvml.count[w] = (uint32_t)count;
    memcpy(space->nvml.values[w], values, count * sizeof *values);
    if (recount(space, err)) {
        space->nvml = was;
        recount(space, NULL);
        return KT_S_INPUT;
    }
    return KT_S_OK;
}

void kt_space_point(const kt_space *space, uint64_t index, kt_point *pt)
{
    const kt_space_variant *slot = &space->slots[slot_at(space, index)];
    uint64_t rest = index - slot->offset;

    memset(pt, 0, sizeof *pt);
    pt->variant = slot->variant;
    pt->count = slot->num_params;
    nvml_decode(space, rest % space->settings, &pt->nvml);
    rest /= space->settings;
    for (uint32_t i = slot->num_params; i-- > 0;) {
        pt->values[i] = slot->values[i][rest % slot->count[i]];
        rest /= slot->count[i];
    }
}

static long value_pos(const kt_space_variant *slot, uint32_t param,
                      int64_t value)
{
    for (uint32_t k = 0; k < slot->count[param]; ++k)
        if (slot->values[param][k] == value)
            return (long)k;
    return -1;
}

long kt_space_slot_of(const kt_space *space, uint32_t variant)
{
    for (size_t s = 0; s < space->num_slots; ++s)
        if (space->slots[s].variant == variant)
            return (long)s;
    return -1;
}

int kt_space_index(const kt_space *space, const kt_point *pt, uint64_t *index)
{
    long s = kt_space_slot_of(space, pt->variant);
    const kt_space_variant *slot;
    uint64_t rest = 0, combo;

    if (s < 0 || !nvml_encode(space, &pt->nvml, &combo))
        return 0;
    slot = &space->slots[s];
    if (pt->count != slot->num_params)
        return 0;
    for (uint32_t i = 0; i < slot->num_params; ++i) {
        long k = value_pos(slot, i, pt->values[i]);
        if (k < 0)
            return 0;
        rest = rest * slot->count[i] + (uint64_t)k;
    }
    *index = slot->offset + rest * space->settings + combo;
    return 1;
}

/* The allowed value nearest to the declared default, by position in the
 * declared set; the lower one on a tie. */
static int64_t start_value(const kt_space *space, const kt_space_variant *slot,
                           uint32_t param)
{
    const kt_param_desc *pd = &space->op->variants[slot->variant].params[param];
    long want = kt_param_index_of(pd, pd->default_value);
    long best_dist = -1;
    int64_t best = slot->values[param][0];

    for (uint32_t k = 0; k < slot->count[param]; ++k) {
        long at = kt_param_index_of(pd, slot->values[param][k]);
        long dist = at > want ? at - want : want - at;
        if (best_dist < 0 || dist < best_dist) {
            best_dist = dist;
            best = slot->values[param][k];
        }
    }
    return best;
}

void kt_space_slot_start(const kt_space *space, size_t slot, kt_point *pt)
{
    const kt_space_variant *sv = &space->slots[slot];

    if (space->start_given && space->start.variant == sv->variant) {
        *pt = space->start;
        return;
    }
    memset(pt, 0, sizeof *pt);
    pt->variant = sv->variant;
    pt->count = sv->num_params;
    for (uint32_t i = 0; i < sv->num_params; ++i)
        pt->values[i] = start_value(space, sv, i);
    nvml_decode(space, 0, &pt->nvml); /* each setting's first value */
}

int kt_space_slot_start_chosen(const kt_space *space, size_t slot)
{
    return space->start_declared ||
           (space->start_given &&
            space->slots[slot].variant == space->start.variant);
}

void kt_space_start(const kt_space *space, kt_point *pt)
{
    long s = kt_space_slot_of(space, 0);
    if (space->start_given)
        *pt = space->start;
    else
        kt_space_slot_start(space, s < 0 ? 0 : (size_t)s, pt);
}

kt_status kt_space_set_start(kt_space *space, const kt_point *pt, kt_err *err)
{
    uint64_t index;

    if (!kt_space_index(space, pt, &index))
        return kt_err_set(err, KT_S_INPUT,
                          "the start is not a point of the space (a value "
                          "the space leaves out?)");
    space->start = *pt;
    space->start_given = 1;
    return KT_S_OK;
}

void kt_space_switch(const kt_space *space, const kt_point *pt, size_t slot,
                     kt_point *out)
{
    const kt_space_variant *to = &space->slots[slot];
    const kt_variant *from_v = &space->op->variants[pt->variant];
    const kt_variant *to_v = &space->op->variants[to->variant];
    kt_point result;

    kt_space_slot_start(space, slot, &result);
    for (uint32_t i = 0; i < to->num_params; ++i) {
        long j = kt_variant_find_param(from_v, to_v->params[i].name);
        if (j >= 0 && (uint32_t)j < pt->count &&
            value_pos(to, i, pt->values[j]) >= 0)
            result.values[i] = pt->values[j];
    }
    result.nvml = pt->nvml; /* the device setting is no variant's */
    *out = result;
}

static int has_variant_dim(const kt_space *space)
{
    return space->num_slots > 1;
}

/* The device setting of dimension dim (already past `variant`) when it is
 * one, else -1 (a parameter). */
static long setting_dim(const kt_space *space, const kt_point *pt, size_t dim)
{
    if (dim < pt->count)
        return -1;
    dim -= pt->count;
    for (size_t w = 0; w < 3; ++w)
        if (space->nvml.count[w] && dim-- == 0)
            return (long)w;
    return -1;
}

size_t kt_space_dims(const kt_space *space, const kt_point *pt)
{
    size_t n = (size_t)has_variant_dim(space) + pt->count;
    for (size_t w = 0; w < 3; ++w)
        n += space->nvml.count[w] != 0;
    return n;
}

const char *kt_space_dim_name(const kt_space *space, const kt_point *pt,
                              size_t dim)
{
    long w;
    if (has_variant_dim(space)) {
        if (dim == 0)
            return "variant";
        --dim;
    }
    if ((w = setting_dim(space, pt, dim)) >= 0)
        return kt_nvml_key((size_t)w);
    return space->op->variants[pt->variant].params[dim].name;
}

size_t kt_space_dim_count(const kt_space *space, const kt_point *pt, size_t dim)
{
    long s = kt_space_slot_of(space, pt->variant), w;
    if (has_variant_dim(space)) {
        if (dim == 0)
            return space->num_slots;
        --dim;
    }
    if ((w = setting_dim(space, pt, dim)) >= 0)
        return space->nvml.count[w];
    return s < 0 ? 0 : space->slots[s].count[dim];
}

size_t kt_space_dim_pos(const kt_space *space, const kt_point *pt, size_t dim)
{
    long s = kt_space_slot_of(space, pt->variant), k, w;
    kt_nvml_setting copy = pt->nvml;
    if (s < 0)
        return 0;
    if (has_variant_dim(space)) {
        if (dim == 0)
            return (size_t)s;
        --dim;
    }
    if ((w = setting_dim(space, pt, dim)) >= 0)
        k = nvml_pos(space, (size_t)w, *kt_nvml_field(&copy, (size_t)w));
    else
        k = value_pos(&space->slots[s], (uint32_t)dim, pt->values[dim]);
    return k < 0 ? 0 : (size_t)k;
}

void kt_space_dim_set(const kt_space *space, const kt_point *pt, size_t dim,
                      size_t k, kt_point *out)
{
    long s = kt_space_slot_of(space, pt->variant), w;
    if (has_variant_dim(space)) {
        if (dim == 0) {
            kt_space_switch(space, pt, k, out);
            return;
        }
        --dim;
    }
    *out = *pt;
    if ((w = setting_dim(space, pt, dim)) >= 0)
        *kt_nvml_field(&out->nvml, (size_t)w) = space->nvml.values[w][k];
    else if (s >= 0)
        out->values[dim] = space->slots[s].values[dim][k];
}

void kt_space_dim_text(const kt_space *space, const kt_point *pt, size_t dim,
                       char *out, size_t out_size)
{
    const kt_variant *v = &space->op->variants[pt->variant];
    kt_nvml_setting copy = pt->nvml;
    long w;
    if (has_variant_dim(space)) {
        if (dim == 0) {
            snprintf(out, out_size, "%s", v->id);
            return;
        }
        --dim;
    }
    if ((w = setting_dim(space, pt, dim)) >= 0)
        snprintf(out, out_size, "%u", *kt_nvml_field(&copy, (size_t)w));
    else
        kt_param_format(&v->params[dim], pt->values[dim], out, out_size);
}

/* The listed settings as {"nvml_gr_clock": [1410, 1755], ...}. */
static json_t *nvml_to_json(const kt_space *space)
{
    json_t *j = json_object();
    for (size_t w = 0; w < 3; ++w) {
        json_t *values = json_array();
        for (uint32_t k = 0; k < space->nvml.count[w]; ++k)
            json_array_append_new(values,
                                  json_integer(space->nvml.values[w][k]));
        if (space->nvml.count[w])
            json_object_set_new(j, kt_nvml_key(w), values);
        else
            json_decref(values);
    }
    return j;
}

json_t *kt_space_to_json(const kt_space *space)
{
    json_t *variants = json_array();

    for (size_t s = 0; s < space->num_slots; ++s) {
        const kt_space_variant *slot = &space->slots[s];
        const kt_variant *v = &space->op->variants[slot->variant];
        json_t *params = json_object();
        for (uint32_t i = 0; i < slot->num_params; ++i) {
            const kt_param_desc *pd = &v->params[i];
            json_t *values = json_array();
            size_t declared = kt_param_count(pd);
            /* In the declared order, as journals have always recorded the
             * space (resuming compares them), whatever order searches use. */
            for (size_t k = 0; k < declared; ++k) {
                int64_t x = kt_param_value_at(pd, k);
                if (value_pos(slot, i, x) < 0)
                    continue;
                json_array_append_new(values, pd->kind == KT_PARAM_ENUM
                                                  ? json_string(pd->labels[x])
                                                  : json_integer(x));
            }
            json_object_set_new(params, pd->name, values);
        }
        json_array_append_new(
            variants, json_pack("{s:s,s:I,s:o}", "id", v->id, "points",
                                (json_int_t)slot->size, "params", params));
    }
    json_t *j = json_pack("{s:I,s:o}", "size", (json_int_t)space->size,
                          "variants", variants);
    if (j && kt_nvml_choices_any(&space->nvml))
        json_object_set_new(j, "nvml", nvml_to_json(space));
    return j;
}

/* A declared variant's points that its require allows, each checked
 * with kt_space_feasible when the space is bound (at most limit of
 * them). */
typedef struct declared_count {
    const kt_space *space;
    uint32_t variant, num_params;
    uint64_t checked, limit;
} declared_count;

static kt_status check_allowed(void *ctx, const int64_t *values, kt_err *err)
{
    declared_count *dc = ctx;
    kt_point pt;

    if (++dc->checked > dc->limit)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "more than %" PRIu64 " points: too many to check "
                          "each",
                          dc->limit);
    memset(&pt, 0, sizeof pt);
    pt.variant = dc->variant;
    pt.count = dc->num_params;
    memcpy(pt.values, values, dc->num_params * sizeof *values);
    return kt_space_feasible(dc->space, &pt, err);
}

static kt_status not_declared(const kt_operator *op, kt_err *err)
{
    return kt_err_set(err, KT_S_UNSUPPORTED,
                      "operator '%s' is not declared: its constraints "
                      "are its plugin's code",
                      op->id);
}

/* Whether op's constraints are expressions the space can count with (a
 * declared operator's require, kt_call_require). */
static int is_declared(const kt_space *space)
{
    kt_expr *const *parts;
    size_t n;
    return kt_call_require(space->plugin, space->op, 0, &parts, &n);
}

/* Values --check's count may try before it estimates instead: a few
 * seconds of walking. */
#define COUNT_BUDGET (UINT64_C(1) << 22)

/* Counts slot s: with check, every allowed point visited; else within
 * COUNT_BUDGET, *estimated set when the count is an estimate. */
static kt_status count_declared_slot(const kt_space *space, size_t s,
                                     const int64_t *sizes,
                                     declared_count *check, uint64_t *n,
                                     int *estimated, kt_err *err)
{
    const kt_space_variant *slot = &space->slots[s];
    kt_prune_dim dims[KT_MAX_PARAMS];
    kt_prune_spec spec = {0};

    for (uint32_t i = 0; i < slot->num_params; ++i)
        dims[i] = (kt_prune_dim){slot->values[i], slot->count[i]};
    if (!kt_call_require(space->plugin, space->op, slot->variant,
                         &spec.constraints, &spec.num_constraints))
        return not_declared(space->op, err);
    spec.dims = dims;
    spec.num_dims = slot->num_params;
    spec.fixed = sizes;
    spec.num_fixed = space->op->num_sizes;
    if (check) {
        check->variant = slot->variant;
        check->num_params = slot->num_params;
        spec.visit = check_allowed;
        spec.ctx = check;
        return kt_prune_count(&spec, n, err);
    }
    return kt_prune_count_within(&spec, COUNT_BUDGET, n, estimated, err);
}

kt_status kt_space_count_required(const kt_space *space, const int64_t *sizes,
                                  uint64_t *per_slot, uint64_t *count,
                                  int *estimated, kt_err *err)
{
    kt_status rc;

    *count = 0;
    *estimated = 0;
    if (!is_declared(space))
        return not_declared(space->op, err);
    for (size_t s = 0; s < space->num_slots; ++s) {
        uint64_t n;
        int est = 0;
        if ((rc = count_declared_slot(space, s, sizes, NULL, &n, &est, err)))
            return rc;
        *estimated |= est;
        n *= space->settings; /* a setting changes no requirement */
        if (per_slot)
            per_slot[s] = n;
        *count += n;
    }
    return KT_S_OK;
}

static kt_status count_declared(const kt_space *space, uint64_t limit,
                                uint64_t *count, kt_err *err)
{
    declared_count dc = {space, 0, 0, 0, limit};
    kt_status rc;

    *count = 0;
    for (size_t s = 0; s < space->num_slots; ++s) {
        uint64_t n;
        if ((rc = count_declared_slot(space, s, space->sizes, &dc, &n, NULL,
                                      err)))
            return rc;
        *count += n * space->settings;
    }
    return KT_S_OK;
}

kt_status kt_space_count_feasible(const kt_space *space, uint64_t limit,
                                  uint64_t *count, kt_err *err)
{
    uint64_t n = 0;

    if (space->bound && is_declared(space))
        return count_declared(space, limit, count, err);

    if (space->size > limit)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "%" PRIu64 " points: too many to check each",
                          space->size);
    for (uint64_t i = 0; i < space->size; ++i) {
        kt_point pt;
        kt_status rc;
        if (i % PREFETCH == 0)
            kt_space_prefetch(space, i, PREFETCH);
        kt_space_point(space, i, &pt);
        rc = kt_space_feasible(space, &pt, err);
        if (rc == KT_S_OK)
            ++n;
        else if (rc != KT_S_INVALID)
            return rc;
    }
    *count = n;
    return KT_S_OK;
}

/* variant=ID: the slot start of that variant into *pt. */
static kt_status start_variant(const kt_space *space, const char *id,
                               kt_point *pt, kt_err *err)
{
    size_t index;
    long slot;
    kt_status rc;

    if ((rc = kt_operator_find_variant(space->op, id, &index, err)))
        return rc;
    if ((slot = kt_space_slot_of(space, (uint32_t)index)) < 0)
        return kt_err_set(err, KT_S_INPUT,
                          "variant '%s' is not in the space ([space] variant)",
                          id);
    kt_space_slot_start(space, (size_t)slot, pt);
    return KT_S_OK;
}

/* One NAME=VALUE item into *pt; pass 0 takes variant=, pass 1 the rest. */
static kt_status start_item(const kt_space *space, char *item, int pass,
                            kt_point *pt, kt_err *err)
{
    char *eq = strchr(item, '=');
    int is_variant;
    kt_status rc = KT_S_OK;

    if (!eq || eq == item)
        return kt_err_set(err, KT_S_INPUT,
                          "'%s': expected NAME=VALUE, e.g. block=256", item);
    *eq = '\0';
    is_variant = strcasecmp(item, "variant") == 0;
    if (pass == 0 && is_variant)
        rc = start_variant(space, eq + 1, pt, err);
    else if (pass == 1 && !is_variant)
        rc = kt_point_set(space->op, pt, item, eq + 1, err);
    *eq = '=';
    return rc;
}

kt_status kt_space_parse_start(kt_space *space, const char *text, kt_err *err)
{
    char **items = NULL;
    size_t count = 0;
    kt_point pt;
    kt_status rc;

    if ((rc = kt_parse_list(text, &items, &count, err)))
        return rc;
    kt_space_start(space, &pt);
    for (int pass = 0; pass < 2 && !rc; ++pass)
        for (size_t i = 0; i < count && !rc; ++i)
            rc = start_item(space, items[i], pass, &pt, err);
    if (!rc)
        rc = kt_space_set_start(space, &pt, err);
    free(items);
    return rc;
}
