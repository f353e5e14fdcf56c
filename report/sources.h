// SPDX-License-Identifier: Apache-2.0
/*
 * kt_sources: what a report is drawn from — the result files `ktune report`
 * was given, read without the plugin (a report can be made on any machine)
 * and tolerantly (fields it does not know are ignored, fields it misses
 * leave their section out with a note):
 *
 *   `ktune tune --json` summary   kind "ktune.tune": the answer, finalists,
 *                                 path, trace, top, environment;
 *   tuner journal                 first record kind "ktune.journal": every
 *                                 evaluation with its statistics;
 *   `ktune compare --json`        kind "ktune.compare": variants side by
 *                                 side (docs/compare.md).
 *
 * A summary may be joined by a journal of the same operator, problem size
 * and device (kt_sources_add_journal), which then supplies the per-point
 * data. Points are kept as borrowed views into the JSON documents, which
 * the sources own.
 */
#ifndef KT_REPORT_SOURCES_H
#define KT_REPORT_SOURCES_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "ktune/plugin.h"
#include "records/journal_slim.h"

#define KT_SOURCES_MAX_NOTES 16

/* One configuration with its measurement (the one chosen for it, see
 * kt_sources_add_journal), or the reason it could not run. */
typedef struct kt_src_point {
    const char *variant;  /* borrowed */
    const json_t *params; /* object: name -> integer or label; borrowed */
    /* The device setting it was measured under ({gr_clock_mhz,
     * mem_clock_mhz, power_limit_w}, docs/energy.md); NULL: none. */
    const json_t *nvml;
    /* "vec4 block=256 items=1 nvml_gr_clock=1410", whole; borrowed: the
     * record's "config", or a text the kt_sources owns (set once the point
     * is added; NULL before). */
    const char *config;
    const char *status; /* "ok", "invalid", "mismatch", ...; borrowed */
    const char *reason; /* borrowed; "" when none */
    const char *source; /* "measure", "compare", "final", "check", "top" */
    int ok;             /* status "ok" with a median */
    /* Its kernel time's statistics (us; NaN unknown; samples -1 unknown). */
    kt_journal_kernel kernel;
    const json_t *record; /* the record it was read from; borrowed */
    /* Hardware counters of the point when the results hold them: a
     * journal's "profile" record (metrics as [{name, value, unit}]) or a
     * summary entry with "counters" ({name: value}); else NULL. */
    const json_t *profile;
    /* Its energy figures (the record's "energy"; a journal's eval
     * records keep them only here). */
    kt_journal_energy energy;
} kt_src_point;

typedef struct kt_sources {
    json_t *summary; /* kind "ktune.tune", or NULL; owned */
    json_t *header;  /* the journal's header record, or NULL; owned */
    json_t *compare; /* kind "ktune.compare", or NULL; owned */
    char summary_path[1024], journal_path[1024], compare_path[1024];
    json_t *records;      /* journal: every record read, kept for the
                             points' borrowed views; owned */
    json_t *index;        /* configuration key -> index into points */
    json_t *texts;        /* config texts made for points; owned */
    json_t *environments; /* journal: environment records by id; owned */
    kt_src_point *points; /* per unique configuration, in first-seen order */
    size_t num_points, cap_points;
    size_t num_records; /* journal: eval and check records read */
    /* The algorithm's work (for derived figures and the roofline). */
    int have_work;
    kt_work work;
    char work_source[256];
    char notes[KT_SOURCES_MAX_NOTES][512]; /* shown in the report */
    size_t num_notes;
} kt_sources;

/* Reads path, whichever of the three kinds it is, into a zeroed s.
 * KT_S_INPUT naming the file (and line, for a journal) when it is none of
 * them or is malformed; KT_S_IO when it cannot be read. A torn last
 * journal line is dropped with a note. */
kt_status kt_sources_load(kt_sources *s, const char *path, kt_err *err);

/* Adds a journal to a summary: it must record the same operator, problem
 * size and device model (KT_S_INPUT saying what differs); a journal of
 * another run of them (another strategy, another date) is accepted with a
 * note. Its evaluations replace the summary's top list as the per-point
 * data. */
kt_status kt_sources_add_journal(kt_sources *s, const char *path, kt_err *err);

/* Sets the work when the results do not record it; source says where it
 * came from ("plugin vector_add 1.0.0"). */
void kt_sources_set_work(kt_sources *s, const kt_work *w, const char *source);

/* Appends a note (dropped beyond the limit). */
void kt_sources_note(kt_sources *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void kt_sources_free(kt_sources *s);

/* The main document: the summary, else the compare record, else the
 * journal header. Borrowed. */
const json_t *kt_sources_main(const kt_sources *s);

/* "plugin:operator" as recorded, or "" */
const char *kt_sources_spec(const kt_sources *s);

/* The environment record to show: the summary's or compare record's, else
 * the journal's first. Borrowed; NULL when none is recorded. */
const json_t *kt_sources_environment(const kt_sources *s);

/* 1 when the results replay another tool's recording (a Kernel Tuner
 * cache, T4 results): one time per configuration, no work, no plugin, no
 * journal; advice that needs one of those cannot be followed. */
int kt_sources_external(const kt_sources *s);

/* The problem sizes object ({"n": 268435456}); borrowed, NULL unknown. */
const json_t *kt_sources_sizes(const kt_sources *s);

/* A counter of a point by catalog name (e.g. "achieved_occupancy"), from
 * its profile in either form; NaN when not collected. */
double kt_src_counter(const kt_src_point *p, const char *name);

/* Number of the object's field, or NaN (integers and reals alike). */
double kt_src_num(const json_t *obj, const char *key);

/* String field, or fallback. */
const char *kt_src_text(const json_t *obj, const char *key,
                        const char *fallback);

#endif
