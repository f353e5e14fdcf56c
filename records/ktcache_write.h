// SPDX-License-Identifier: Apache-2.0
/*
 * A Kernel Tuner 1.5 cache file written from a tune run (--kt-cache FILE),
 * for Kernel Tuner's own reader, its simulation mode and the tools built on
 * caches. The format is Kernel Tuner's (util.process_cache/store_cache): a
 * header (device_name, kernel_name, problem_size, tune_params_keys,
 * tune_params, objective) and a "cache" object keyed by the parameter
 * values joined with commas, one entry per configuration: the parameters,
 * "time" (ms; ktune's median, see docs/kernel-tuner.md) or Kernel Tuner's
 * error name, "times" (every kept sample, ms), compile_time,
 * verification_time, benchmark_time, strategy_time, framework_time and
 * timestamp.
 *
 * Crash-safe as Kernel Tuner's own: the header (and any entries a resumed
 * file held) is put in place whole (written beside, renamed over), then
 * each entry is appended with one write() as the run records it, so a
 * killed run leaves an open file that Kernel Tuner and ktune read (a
 * trailing ","); closing swaps in the closed text whole. One writer per
 * file, used from the thread that runs the session.
 */
#ifndef KT_KTCACHE_WRITE_H
#define KT_KTCACHE_WRITE_H

#include "core/error.h"
#include "records/run.h"

typedef struct kt_ktcache_writer kt_ktcache_writer;

/* Starts path for the run f describes (its operator, space of one variant,
 * sizes and device; a replay of another tool's recording writes that
 * recording's parameters and values, f->cfg->ev its evaluator). An
 * existing file must be a Kernel Tuner cache of the same kernel, device,
 * problem size and parameters (as Kernel Tuner requires to continue one):
 * its entries
 * are kept and a configuration it holds is not written again. KT_S_INPUT
 * names the file and what differs, or a space of several variants. Free
 * with kt_ktcache_writer_close. f is copied; what it points to must
 * outlive the writer. */
kt_status kt_ktcache_writer_open(const char *path, const kt_tune_facts *f,
                                 kt_ktcache_writer **out, kt_err *err);

/* Appends e (a point the session recorded) unless the file holds its
 * configuration; a point another tool's recording does not hold (never in
 * its space) is not written. */
kt_status kt_ktcache_writer_add(kt_ktcache_writer *w, const kt_tune_entry *e,
                                kt_err *err);

/* Gives r's finalists their closing re-measurement's figures ("time" its
 * median, "times" its samples, ms) in place of the search's, when w is
 * closed: those figures decided r's answer, and Kernel Tuner (its
 * simulation mode, its best) takes the lowest "time". Where the file
 * still has a lower time than the answer's (a point the search measured
 * below the answer's closing median), closing notes on stderr which
 * configuration Kernel Tuner will pick and why. Nothing for a replay of
 * another tool's recording (its own figures are written) or a run without
 * a closing call. r is read now, not kept. */
kt_status kt_ktcache_writer_finals(kt_ktcache_writer *w,
                                   const kt_tune_result *r, kt_err *err);

/* Closes the file's JSON (when w is not NULL) and frees w. A failure
 * leaves the open file, which readers still take. */
kt_status kt_ktcache_writer_close(kt_ktcache_writer *w, kt_err *err);

/* An on_entry callback of kt_tune_config: ctx is the writer. */
kt_status kt_ktcache_writer_on_entry(void *ctx, const kt_tune_entry *e,
                                     kt_err *err);

#endif
