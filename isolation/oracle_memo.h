// SPDX-License-Identifier: Apache-2.0
/*
 * kt_oracle_memo: the oracle's answers, remembered by question. A plugin's
 * shape(), check() and work() are pure (core/include/ktune/plugin.h): the
 * same question gets the same answer, so one asked before is answered from
 * memory instead of by a round trip to the child. The tuner asks about the
 * same points again and again (counting a space's feasible points, finding
 * the recorded optimum, then walking the space).
 *
 * A key is the question's bytes as the oracle sends them (isolation/oracle.c),
 * compared in full: the hash only says where to look, and covers only the
 * key's first `hashed` bytes (the oracle puts what varies between its
 * questions there, and the device, the same for all of them, after). Memory is
 * bounded: keys, answers, reasons and the index together stay within the cap
 * given to kt_oracle_memo_new (KT_ORACLE_MEMO_BYTES for every oracle); an
 * answer that would pass it empties the memo first, which costs later questions
 * only their round trips again.
 */
#ifndef KT_ORACLE_MEMO_H
#define KT_ORACLE_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "isolation/oracle.h"

/* 32 MiB: about 80,000 answers (gemv:ax's 15,937 points take 6.2 MiB). */
#define KT_ORACLE_MEMO_BYTES ((size_t)32 << 20)

typedef struct kt_oracle_memo kt_oracle_memo;

/* An empty memo of at most max_bytes (0: it remembers nothing). NULL: no
 * memory. Freed with kt_oracle_memo_free. */
kt_oracle_memo *kt_oracle_memo_new(size_t max_bytes);
void kt_oracle_memo_free(kt_oracle_memo *m);

/* 1 with the remembered answer in *a (why as check() wrote it, up to its
 * terminator; a may be NULL) when the key of size bytes was put before,
 * else 0. hashed <= size, the same for every call about one key. */
int kt_oracle_memo_get(const kt_oracle_memo *m, const void *key, size_t size,
                       size_t hashed, kt_oracle_answer *a);

/* Remembers a's answer to key (a copy of both). Only answers the callbacks
 * gave belong here: never a crash or a timeout. Best effort: out of memory,
 * or a key that alone passes the cap, is simply not remembered. */
void kt_oracle_memo_put(kt_oracle_memo *m, const void *key, size_t size,
                        size_t hashed, const kt_oracle_answer *a);

/* The bytes it holds now (never above its cap), and how many times it
 * was emptied to stay within it. */
size_t kt_oracle_memo_bytes(const kt_oracle_memo *m);
uint64_t kt_oracle_memo_emptied(const kt_oracle_memo *m);

#endif
