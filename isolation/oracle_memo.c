// SPDX-License-Identifier: Apache-2.0
#include "isolation/oracle_memo.h"

#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/u64map.h"

/* The hash decides only where a key is looked for. A test build sets a
 * narrower mask so that keys collide, and proves they are told apart. */
#ifndef KT_ORACLE_MEMO_HASH_MASK
#define KT_ORACLE_MEMO_HASH_MASK UINT64_MAX
#endif

#define NONE UINT64_MAX

/* One answer; its key, then its reason (when not empty) with its
 * terminator, lie at text[at]. */
typedef struct entry {
    size_t at;
    uint32_t key_size;
    uint32_t why_size; /* strlen(why) + 1, or 0 for "" */
    uint64_t next;     /* the entry put before it under the same hash */
    int32_t check_rc;
    int32_t rc;
    kt_shape shape;
    kt_work work;
} entry;

struct kt_oracle_memo {
    size_t max_bytes;
    entry *entries;
    size_t count, capacity;
    unsigned char *text;
    size_t used, text_capacity;
    kt_u64map by_hash; /* hash -> newest entry under it */
    uint64_t emptied;
};

static uint64_t hash_of(const void *key, size_t size)
{
    return kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, key, size) &
           KT_ORACLE_MEMO_HASH_MASK;
}

kt_oracle_memo *kt_oracle_memo_new(size_t max_bytes)
{
    kt_oracle_memo *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->max_bytes = max_bytes;
    kt_u64map_init(&m->by_hash);
    return m;
}

static void empty(kt_oracle_memo *m)
{
    free(m->entries);
    free(m->text);
    kt_u64map_free(&m->by_hash);
    m->entries = NULL;
    m->text = NULL;
    m->count = m->capacity = m->used = m->text_capacity = 0;
}

void kt_oracle_memo_free(kt_oracle_memo *m)
{
    if (!m)
        return;
    empty(m);
    free(m);
}

size_t kt_oracle_memo_bytes(const kt_oracle_memo *m)
{
    return m->capacity * sizeof *m->entries + m->text_capacity +
           kt_u64map_bytes(&m->by_hash);
}

uint64_t kt_oracle_memo_emptied(const kt_oracle_memo *m)
{
    return m->emptied;
}

int kt_oracle_memo_get(const kt_oracle_memo *m, const void *key, size_t size,
                       size_t hashed, kt_oracle_answer *a)
{
    uint64_t i;

    if (!kt_u64map_get(&m->by_hash, hash_of(key, hashed), &i))
        return 0;
    for (; i != NONE; i = m->entries[i].next) {
        const entry *e = &m->entries[i];
        if (e->key_size != size || memcmp(m->text + e->at, key, size) != 0)
            continue;
        if (!a)
            return 1;
        memset(a, 0, sizeof *a);
        a->check_rc = e->check_rc;
        a->rc = e->rc;
        a->shape = e->shape;
        a->work = e->work;
        memcpy(a->why, m->text + e->at + size, e->why_size);
        return 1;
    }
    return 0;
}

/* The sizes the arrays grow to for one more entry of need text bytes, and
 * the memo's bytes after that growth. */
static size_t bytes_after(const kt_oracle_memo *m, size_t need,
                          size_t *capacity, size_t *text_capacity)
{
    *capacity = m->capacity;
    *text_capacity = m->text_capacity;
    if (m->count == *capacity)
        *capacity = *capacity ? 2 * *capacity : 64;
    while (*text_capacity - m->used < need)
        *text_capacity = *text_capacity ? 2 * *text_capacity : 4096;
    return *capacity * sizeof *m->entries + *text_capacity +
           kt_u64map_bytes_after_put(&m->by_hash);
}

static int reserve(kt_oracle_memo *m, size_t need)
{
    size_t capacity, text_capacity;

    if (bytes_after(m, need, &capacity, &text_capacity) > m->max_bytes) {
        if (m->count == 0)
            return -1; /* alone it passes the cap */
        empty(m);
        ++m->emptied;
        if (bytes_after(m, need, &capacity, &text_capacity) > m->max_bytes)
            return -1;
    }
    if (capacity != m->capacity) {
        entry *e = realloc(m->entries, capacity * sizeof *e);
        if (!e)
            return -1;
        m->entries = e;
        m->capacity = capacity;
    }
    if (text_capacity != m->text_capacity) {
        unsigned char *t = realloc(m->text, text_capacity);
        if (!t)
            return -1;
        m->text = t;
        m->text_capacity = text_capacity;
    }
    return 0;
}

void kt_oracle_memo_put(kt_oracle_memo *m, const void *key, size_t size,
                        size_t hashed, const kt_oracle_answer *a)
{
    size_t why = strnlen(a->why, sizeof a->why - 1);
    size_t why_size = why ? why + 1 : 0;
    uint64_t h = hash_of(key, hashed), head;
    entry *e;

    if (size > UINT32_MAX || reserve(m, size + why_size) != 0)
        return;
    e = &m->entries[m->count];
    memset(e, 0, sizeof *e);
    e->at = m->used;
    e->key_size = (uint32_t)size;
    e->why_size = (uint32_t)why_size;
    e->next = kt_u64map_get(&m->by_hash, h, &head) ? head : NONE;
    e->check_rc = a->check_rc;
    e->rc = a->rc;
    e->shape = a->shape;
    e->work = a->work;
    if (kt_u64map_put(&m->by_hash, h, m->count, NULL) != KT_S_OK)
        return;
    memcpy(m->text + m->used, key, size);
    memcpy(m->text + m->used + size, a->why, why);
    if (why_size)
        m->text[m->used + size + why] = '\0';
    m->used += size + why_size;
    ++m->count;
}
