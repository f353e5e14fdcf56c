// SPDX-License-Identifier: Apache-2.0
/*
 * What a journal record may say: the numbers a measurement can produce and
 * the ids a run can give. kt_journal_read refuses anything else with the
 * line, so a record edited, spliced in from another journal or made up
 * never changes a resumed or replayed answer.
 */
#ifndef KT_JOURNAL_CHECK_H
#define KT_JOURNAL_CHECK_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "records/journal.h"

/* The length of a run id: 16 lower-case hexadecimal digits. */
#define KT_JOURNAL_RUN_LEN 16

/* A fresh run id into out (KT_JOURNAL_RUN_LEN + 1 bytes). */
void kt_journal_new_run(char *out);

/* The header's own fields: "run" (when present) a run id, "seed" an
 * integer >= 0, and its environment's numbers (kt_journal_check_env). */
kt_status kt_journal_check_header(const json_t *header, kt_err *err);

/* An environment (the header's, or an environment record's): device and
 * calibration numbers a GPU can have (sm_count and thread limits >= 1,
 * bandwidths > 0, all finite). NULL is fine. */
kt_status kt_journal_check_env(const json_t *env, kt_err *err);

/* An evaluation record read into e from rec: its environment one of the
 * num_envs written before it, elapsed_s a run's clock, the shape one a
 * launch can have, the timing's numbers a measurement can give, and no
 * numeric parameter written as text. */
kt_status kt_journal_check_eval(const kt_operator *op, const json_t *rec,
                                const kt_journal_entry *e, int num_envs,
                                kt_err *err);

/* The header record (line 1) as every reader of a journal takes it — the
 * tuner's (kt_journal_read, kt_journal_read_header) and the report's
 * (report/sources.c): kind "ktune.journal", a format this ktune reads
 * (KT_JOURNAL_FORMAT to KT_JOURNAL_FORMAT_MAX), an operator, sizes that are
 * integers >= 1, and kt_journal_check_header's fields. KT_S_INPUT starting
 * "path:1: ". */
kt_status kt_journal_check_head(const json_t *rec, const char *path,
                                kt_err *err);

/* timing.kernel's statistics a point record may give, in this order:
 * KT_JOURNAL_NUM_TIMES times (microseconds), then the spreads. Every reader
 * of a point record takes them by this list and kt_journal_stat_holds:
 * kt_journal_check_point over a record parsed whole, and
 * records/journal_slim.h's pass over its text. */
#define KT_JOURNAL_NUM_TIMES 8
#define KT_JOURNAL_NUM_STATS 12
extern const char *const kt_journal_kernel_stats[KT_JOURNAL_NUM_STATS];

/* Whether v may be statistic i of kt_journal_kernel_stats in a point
 * recorded ok: a time finite and > 0, a spread >= 0 (NaN holds neither). */
int kt_journal_stat_holds(size_t i, double v);

/* Whether status (NULL: none) names a point measured ok: the one word
 * kt_journal_eval writes for KT_EVAL_OK. */
int kt_journal_status_ok(const char *status);

/* An eval or check record's point and verdict as written, before any
 * operator reads them: a point ("variant" and "params"), a "status", and
 * for status ok a timing.kernel with a median whose statistics hold
 * (kt_journal_stat_holds). Every reader applies it (kt_journal_read and
 * the report), so a record one refuses the other refuses too. */
kt_status kt_journal_check_point(const json_t *rec, kt_err *err);

/* Its first part alone: the point and a "status" (the report checks the
 * statistics of the records records/journal_slim.h reads from their text,
 * by the same rules, where it reads them). */
kt_status kt_journal_check_point_head(const json_t *rec, kt_err *err);

#endif
