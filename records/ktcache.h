// SPDX-License-Identifier: Apache-2.0
/*
 * Readers of Kernel Tuner's two recording formats, into a kt_extrec
 * (records/extrec.h): the cache file Kernel Tuner writes with `cache=`
 * (tune_params, tune_params_keys, and a cache object keyed by the values
 * joined with commas, each entry holding time, times, compile_time,
 * verification_time, benchmark_time, framework_time, strategy_time, or an
 * error name as its time: InvalidConfig, CompilationFailedConfig,
 * RuntimeFailedConfig), and T4 results (schema 1.0.0: a results list of
 * configuration, times, invalidity and measurements, the time unit in
 * metadata.timeunit). docs/replay.md lists every field read and what is
 * refused.
 */
#ifndef KT_KTCACHE_H
#define KT_KTCACHE_H

#include <jansson.h>

#include "core/error.h"
#include "records/extrec.h"

/* The largest recording read (bytes, uncompressed). */
#define KT_KTCACHE_MAX_BYTES ((size_t)2 << 30)

/* The longest time a recording may hold, after its unit is applied: 10^12
 * ms (about 32 years). Larger, it is a damaged file, and its microseconds
 * would overflow to infinity in what ktune prints. */
#define KT_KTCACHE_MAX_MS 1e12

/* Reads a Kernel Tuner cache file or a T4 results file (plain JSON or
 * gzip-compressed; the format is told by its keys, not its name) and
 * builds the operator. A cache is read entry by entry (records/jscan.h):
 * what is held is its points, not its text; a key written twice in an
 * object is refused; a cache left open by an interrupted run (a trailing
 * "," or "{", no closing braces) is closed as Kernel Tuner closes it.
 * KT_S_INPUT names the file and the field for a damaged or odd file (a key
 * missing, a value of the wrong type, a point outside the declared values, a
 * point or key twice). Any number may be open at once. Free with
 * kt_extrec_free(). */
kt_status kt_ktcache_load(const char *path, kt_extrec **out, kt_err *err);

/* As kt_ktcache_load, every cache entry parsed whole by jansson: the fast
 * reading of plain entries (records/ktentry.h) off. For the tests that pin
 * both readings to the same records and the same messages. */
kt_status kt_ktcache_load_whole(const char *path, kt_extrec **out, kt_err *err);

/* 1 when the file at path (plain or gzip) looks like another tool's
 * recording: a regular file that starts with a JSON object and whose first
 * 4 KiB do not name "ktune.journal" (a ktune journal's first line does);
 * 0 for anything else. A damaged recording still counts: its reader then
 * says what is wrong. */
int kt_ktcache_is_external(const char *path);

/* Fills rec (from kt_extrec_begin, its doc the file's) from a Kernel Tuner
 * cache document. */
kt_status kt_ktcache_read_cache(kt_extrec *rec, kt_err *err);

/* Fills rec from a T4 results document. */
kt_status kt_ktcache_read_t4(kt_extrec *rec, kt_err *err);

#endif
