// SPDX-License-Identifier: Apache-2.0
/*
 * kt_journal: the append-only record of a tuning run, one JSON object per
 * line (docs/configs.md, "The journal").
 *
 *   {"kind":"ktune.journal", ...}   header: plugin build, operator, sizes,
 *                                   seed, space, protocol, strategy and the
 *                                   environment record with "id": 0
 *   {"kind":"eval", ...}            one per point of every evaluate() call:
 *                                   call, slot, of, purpose, env, elapsed_s,
 *                                   point, status, reason, shape, timing
 *                                   (raw samples included)
 *   {"kind":"check", ...}           a point refused on the host (constraint
 *                                   or device limit), never sent to the GPU
 *   {"kind":"environment", ...}     a resumed session's environment record
 *   {"kind":"profile", ...}         (format 2) the kernel facts and hardware
 *                                   counters of one point, from launches of
 *                                   their own (records/profiling.h)
 *
 * Every line is written with one write(); evaluation records are synced to
 * disk (fdatasync) before the tuner goes on, so a killed run, or a machine
 * that loses power, loses at most the line being written. Reading drops a
 * torn last line and the records of an evaluate() call that did not finish,
 * and says so.
 */
#ifndef KT_JOURNAL_H
#define KT_JOURNAL_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "core/evaluator.h"
#include "core/loader.h"
#include "core/point.h"
#include "core/protocol.h"
#include "records/space.h"

/* Format 1: header, eval, check and environment records. Format 2 adds
 * profile records and the header's "metrics"; a run writes 2 only when it
 * profiles points (kt_journal_header_metrics), so a journal without
 * counters stays readable by builds that know format 1 only. Both are read.
 */
#define KT_JOURNAL_FORMAT 1
#define KT_JOURNAL_FORMAT_COUNTERS 2
#define KT_JOURNAL_FORMAT_MAX 2

/* One evaluation read back. */
typedef struct kt_journal_entry {
    size_t call;      /* the evaluate() call it came from, from 1 */
    size_t slot, of;  /* its place in that call, and the call's size */
    char purpose[16]; /* "measure", "compare" or "final" */
    int env;          /* environment record it was measured under */
    double elapsed_s; /* the run's clock when the call ended */
    kt_point point;
    kt_eval_result result; /* timing samples owned by the log */
} kt_journal_entry;

/* One profile record read back: the point and the whole record (its
 * fields are read by records/profiling.h). */
typedef struct kt_journal_profile {
    kt_point point;
    int env;
    double elapsed_s;
    json_t *record; /* owned reference */
} kt_journal_profile;

/* What a journal file holds. */
typedef struct kt_journal_log {
    json_t *header;            /* owned reference */
    kt_journal_entry *entries; /* complete calls only, in file order */
    size_t count;
    kt_point *checked; /* points refused on the host */
    size_t num_checked;
    int num_envs;                 /* environment records: ids 0..num_envs-1 */
    size_t max_call;              /* highest complete call number */
    long long keep_bytes;         /* length of the part worth keeping */
    char note[512];               /* what reading dropped and why, or "" */
    int format;                   /* the header's format */
    kt_journal_profile *profiles; /* profile records, in file order */
    size_t num_profiles;
    long long read_bytes; /* the file's length when it was read */
    char run[24]; /* the header's run id (every record carries it), or "" */
} kt_journal_log;

/* Reads a journal; points are read against op (the operator loaded now), so
 * a record the plugin cannot represent fails with the line number. A
 * complete line that is not a record is KT_S_INPUT with path:line. */
kt_status kt_journal_read(const char *path, const kt_operator *op,
                          kt_journal_log *log, kt_err *err);
void kt_journal_log_free(kt_journal_log *log);

/* The whole text of a journal, or of any file a run wrote (a summary, a
 * compare record): decompressed when gzip (zlib passes a plain file
 * through unchanged), refused when not a regular file or over
 * KT_FILE_MAX_BYTES; NUL-terminated, owned by the caller. What
 * kt_journal_read reads, and what the report reads its inputs with. */
kt_status kt_journal_text(const char *path, char **text, size_t *len,
                          kt_err *err);

/* The header record alone (new reference), so a journal of another plugin
 * or operator can be refused before its points are read. */
kt_status kt_journal_read_header(const char *path, json_t **header,
                                 kt_err *err);

/* 1 when path is a regular file without one complete line: a run stopped
 * between creating its journal and writing the header. kt_journal_create
 * writes such a file afresh instead of refusing it. */
int kt_journal_is_empty(const char *path);

/* The header record of a run. Steals the references to strategy and
 * environment (environment gets "id": 0). */
json_t *kt_journal_header(const kt_loaded_plugin *plugin, const char *spec,
                          const kt_operator *op, const int64_t *sizes,
                          uint64_t seed, const kt_space *space,
                          const kt_protocol *protocol, json_t *strategy,
                          json_t *environment);

/* Marks a header as written by a run that profiles points: "format"
 * becomes KT_JOURNAL_FORMAT_COUNTERS and "metrics" describes what is
 * collected (steals metrics). */
void kt_journal_header_metrics(json_t *header, json_t *metrics);

/* The latest profile record of pt in log, or NULL. */
const kt_journal_profile *kt_journal_find_profile(const kt_journal_log *log,
                                                  const kt_point *pt);

/* Whether a recorded header allows resuming with the header of now: same
 * plugin build, operator, sizes, input seed, device, space and protocol.
 * KT_S_INPUT saying what differs and what to do. A different physical GPU
 * of the same model only writes a note. */
kt_status kt_journal_compatible(const json_t *recorded, const json_t *now,
                                const char *path, char *note, size_t note_size,
                                kt_err *err);

/* A journal open for appending. */
typedef struct kt_journal {
    char *path; /* owned */
    int fd;
    int env;          /* this session's environment record */
    int next_env;     /* the id the next environment record gets */
    size_t next_call; /* number of the next evaluate() call */
    /* Durable records are written at once (a killed process loses none)
     * and synced to disk at most every KT_JOURNAL_SYNC_S seconds and at
     * close (a machine that crashes loses at most that much). */
    double last_sync; /* monotonic seconds of the last fdatasync */
    int unsynced;     /* durable records written since */
    double written_s; /* wall time spent encoding, writing and syncing */
    char run[24];     /* the run id every record carries, or "" (a journal
                         written before run ids, continued as it was) */
} kt_journal;

#define KT_JOURNAL_SYNC_S 0.5

/* Appends a record of another kind (e.g. "run": where a session's time
 * went); readers skip kinds they do not know. Steals fields. */
kt_status kt_journal_record(kt_journal *j, const char *kind, json_t *fields,
                            kt_err *err);

/* Creates path (which must not exist, or be empty as kt_journal_is_empty
 * says) and writes the header. The journal is locked (flock) until closed;
 * another writer is refused (KT_S_INPUT). */
kt_status kt_journal_create(kt_journal *j, const char *path,
                            const json_t *header, kt_err *err);

/* Continues the journal log was read from: locks it (refused, KT_S_INPUT,
 * when another writer holds it or it grew since it was read), cuts what
 * reading dropped, then appends this session's environment record (steals
 * environment). */
kt_status kt_journal_continue(kt_journal *j, const char *path,
                              const kt_journal_log *log, json_t *environment,
                              kt_err *err);

/* Appends another environment record of this session (another worker's
 * device and calibration; steals environment) and says its id. Records
 * written with j->env set to it belong to that worker. */
kt_status kt_journal_environment(kt_journal *j, json_t *environment, int *id,
                                 kt_err *err);

/* Appends the result of one point of one evaluate() call. */
kt_status kt_journal_eval(kt_journal *j, const kt_operator *op, size_t call,
                          size_t slot, size_t of, const char *purpose,
                          double elapsed_s, const kt_point *pt,
                          const kt_eval_result *r, kt_err *err);

/* Appends a profile record: `fields` (records/profiling.h's record of the
 * point) with kind, env, elapsed_s and time added; synced like an
 * evaluation. fields is not modified. */
kt_status kt_journal_profile_record(kt_journal *j, const json_t *fields,
                                    double elapsed_s, kt_err *err);

/* Appends a point refused on the host. */
kt_status kt_journal_check(kt_journal *j, const kt_operator *op,
                           const kt_point *pt, const char *reason, kt_err *err);

void kt_journal_close(kt_journal *j);

#endif
