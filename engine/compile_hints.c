// SPDX-License-Identifier: Apache-2.0
#include "engine/compile_hints.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/declared_run.h"

#define NO_POSITION ((size_t)-1)

/* A point hinted before: its kernels' keys ("" where none was made). */
struct kt_chint {
    kt_point point;
    size_t same_hash; /* the next entry under the same hash */
    int num_keys;
    int stale; /* the pool did not know a key: build the requests again */
    char key[2][33];
};

void kt_chints_init(kt_chints *h, const struct kt_loaded_plugin *plugin,
                    const int64_t *sizes, const char *arch)
{
    memset(h, 0, sizeof *h);
    h->plugin = plugin;
    h->sizes = sizes;
    snprintf(h->arch, sizeof h->arch, "%s", arch);
    kt_u64map_init(&h->first);
}

void kt_chints_free(kt_chints *h)
{
    kt_u64map_free(&h->first);
    free(h->entries);
    memset(h, 0, sizeof *h);
}

static kt_chint *find(const kt_chints *h, const kt_point *pt)
{
    uint64_t head;

    if (!kt_u64map_get(&h->first, kt_point_hash(pt), &head))
        return NULL;
    for (size_t at = (size_t)head - 1; at != NO_POSITION;
         at = h->entries[at].same_hash)
        if (kt_point_equal(&h->entries[at].point, pt))
            return &h->entries[at];
    return NULL;
}

/* The position of a new entry for pt, its keys unset; NO_POSITION out of
 * memory. */
static size_t keep(kt_chints *h, const kt_point *pt)
{
    uint64_t hash = kt_point_hash(pt), head;
    size_t next =
        kt_u64map_get(&h->first, hash, &head) ? (size_t)head - 1 : NO_POSITION;

    if (h->num == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        kt_chint *grown = realloc(h->entries, cap * sizeof *grown);
        if (!grown)
            return NO_POSITION;
        h->entries = grown;
        h->cap = cap;
    }
    if (kt_u64map_put(&h->first, hash, h->num + 1, NULL))
        return NO_POSITION;
    memset(&h->entries[h->num], 0, sizeof *h->entries);
    h->entries[h->num].point = *pt;
    h->entries[h->num].same_hash = next;
    return h->num++;
}

/* One call's requests for the pool, each with its key and the entry and
 * key slot it fills (at NO_POSITION: a point not kept). */
typedef struct batch {
    kt_nvrtc_request *reqs;
    kt_decl_request *bs;
    char (*keys)[33];
    unsigned char *unknown;
    size_t *at;
    int *slot;
    size_t m;
} batch;

static int batch_open(batch *b, size_t n)
{
    size_t cap = n ? 2 * n : 1;
    memset(b, 0, sizeof *b);
    b->reqs = calloc(cap, sizeof *b->reqs);
    b->bs = calloc(cap, sizeof *b->bs);
    b->keys = calloc(cap, sizeof *b->keys);
    b->unknown = calloc(cap, 1);
    b->at = calloc(cap, sizeof *b->at);
    b->slot = calloc(cap, sizeof *b->slot);
    return b->reqs && b->bs && b->keys && b->unknown && b->at && b->slot;
}

static void batch_close(batch *b)
{
    for (size_t i = 0; b->bs && i < b->m; ++i)
        free(b->bs[i].src);
    free(b->reqs);
    free(b->bs);
    free(b->keys);
    free(b->unknown);
    free(b->at);
    free(b->slot);
}

/* The point's kernels by the keys kept (a request without source). */
static void add_keys(kt_chints *h, batch *b, size_t at)
{
    for (int k = 0; k < h->entries[at].num_keys; ++k, ++b->m) {
        memcpy(b->keys[b->m], h->entries[at].key[k], 33);
        b->at[b->m] = at;
        b->slot[b->m] = k;
    }
}

/* The point's kernels by their requests, built (at: its entry, whose keys
 * the pool's come back into, or NO_POSITION). */
static void add_requests(kt_chints *h, batch *b, const kt_point *pt, size_t at)
{
    if (at != NO_POSITION)
        h->entries[at].num_keys = h->entries[at].stale = 0;
    for (int then = 0; then < 2; ++then) {
        if (!kt_declared_compile_request(h->plugin, pt->variant, h->sizes,
                                         pt->values, h->arch, then,
                                         &b->bs[b->m], &b->reqs[b->m]))
            continue;
        b->at[b->m] = at;
        b->slot[b->m] = at == NO_POSITION ? 0 : h->entries[at].num_keys++;
        ++b->m;
    }
}

void kt_chints_give(kt_chints *h, kt_cpool *pool, const kt_point *pts, size_t n)
{
    batch b;

    if (!batch_open(&b, n))
        goto done;
    for (size_t i = 0; i < n; ++i) {
        kt_chint *e = find(h, &pts[i]);
        size_t at = e ? (size_t)(e - h->entries) : keep(h, &pts[i]);
        if (e && !e->stale)
            add_keys(h, &b, at);
        else
            add_requests(h, &b, &pts[i], at);
    }
    kt_cpool_hint_keyed(pool, b.reqs, b.keys, b.unknown, b.m);
    for (size_t j = 0; j < b.m; ++j) {
        kt_chint *e = b.at[j] == NO_POSITION ? NULL : &h->entries[b.at[j]];
        if (e && b.reqs[j].source)
            memcpy(e->key[b.slot[j]], b.keys[j], 33);
        /* A key the pool did not know, or none made (kt_nvrtc_key failed):
         * the requests are built again at the next hint, as before keys
         * were kept, never dropped for the rest of the run. */
        if (e && (b.unknown[j] || !b.keys[j][0]))
            e->stale = 1;
    }
done:
    batch_close(&b);
}
