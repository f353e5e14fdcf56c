// SPDX-License-Identifier: Apache-2.0
/*
 * kt_hash: FNV-1a over 64 bits, the one hash of ktune's host code. It names
 * cache files (NVRTC binaries, plugin probe verdicts) and keys the hash maps
 * of recorded points and of the oracle's memo. It is not a cryptographic
 * hash: every user either compares the keys in full or reads a collision
 * as a miss. Its values are part of file names on disk: they never change.
 */
#ifndef KT_HASH_H
#define KT_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a's offset basis: the hash of nothing. */
#define KT_HASH_FNV1A_BASIS UINT64_C(0xcbf29ce484222325)

/* h continued over size bytes of data (h = KT_HASH_FNV1A_BASIS to start;
 * another base gives an independent second hash). */
uint64_t kt_hash_fnv1a(uint64_t h, const void *data, size_t size);

/* The same over the characters of s, without its terminator; s may be
 * NULL (nothing: h). */
uint64_t kt_hash_fnv1a_str(uint64_t h, const char *s);

/* The second base of kt_hash_hex128. */
#define KT_HASH_FNV1A_SECOND_BASIS UINT64_C(0x84222325cbf29ce4)

/* size bytes of data hashed from both bases, as 32 hex digits (the first
 * hash, then the second): the NVRTC cache's keys, header hashes and IR
 * hashes. */
void kt_hash_hex128(const void *data, size_t size, char out[33]);

#endif
