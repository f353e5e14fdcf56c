// SPDX-License-Identifier: Apache-2.0
/*
 * A session resumed from its journal (kt_tune_config.resume): the recorded
 * calls a strategy asks for again are answered from the log in place of
 * a measurement, a point that failed there is not run again, and the
 * points the log holds are known before they are asked for, so that hints
 * (tuner/tune_hint.c) compile only what the log cannot answer.
 */
#include "tuner/tune_impl.h"

#include <stdlib.h>

static int same_points(const kt_journal_log *log, const resume_call *c,
                       const kt_point *pts, size_t n)
{
    if (c->used || c->n != n)
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!kt_point_equal(&log->entries[c->first + i].point, &pts[i]))
            return 0;
    return 1;
}

resume_call *kt_tune_find_call(kt_tune *t, const kt_point *pts, size_t n)
{
    const kt_journal_log *log = t->cfg->resume;
    if (!log)
        return NULL;
    /* A deterministic strategy asks in the recorded order, so the cursor
     * usually hits at once. */
    if (t->call_cursor < t->num_calls &&
        same_points(log, &t->calls[t->call_cursor], pts, n))
        return &t->calls[t->call_cursor++];
    for (size_t i = 0; i < t->num_calls; ++i)
        if (same_points(log, &t->calls[i], pts, n)) {
            t->call_cursor = i + 1;
            return &t->calls[i];
        }
    return NULL;
}

const kt_journal_entry *kt_tune_recorded_failure(const kt_tune *t,
                                                 uint64_t index)
{
    uint64_t at;
    if (!t->cfg->resume || !kt_u64map_get(&t->recorded_failures, index, &at))
        return NULL;
    return &t->cfg->resume->entries[at];
}

int kt_tune_recorded(const kt_tune *t, uint64_t index)
{
    return t->cfg->resume && kt_u64map_get(&t->recorded, index, NULL);
}

/* Entry k of the log (of space index `index`) into the maps: the first
 * entry of each point, and its first failure. */
static kt_status note_entry(kt_tune *t, const kt_journal_entry *e,
                            uint64_t index, size_t k, kt_err *err)
{
    kt_status rc = KT_S_OK;
    if (!kt_u64map_get(&t->recorded, index, NULL))
        rc = kt_u64map_put(&t->recorded, index, k, err);
    if (!rc && e->result.status != KT_EVAL_OK &&
        !kt_u64map_get(&t->recorded_failures, index, NULL))
        rc = kt_u64map_put(&t->recorded_failures, index, k, err);
    return rc;
}

kt_status kt_tune_prepare_resume(kt_tune *t, kt_err *err)
{
    const kt_journal_log *log = t->cfg->resume;
    kt_status rc = KT_S_OK;

    if (!log)
        return KT_S_OK;
    t->calls = calloc(log->count ? log->count : 1, sizeof *t->calls);
    if (!t->calls)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; !rc && i < log->count;) {
        size_t n = log->entries[i].of;
        uint64_t index;
        t->calls[t->num_calls].first = i;
        t->calls[t->num_calls++].n = n;
        for (size_t k = i; !rc && k < i + n && k < log->count; ++k)
            if (kt_space_index(t->cfg->space, &log->entries[k].point, &index))
                rc = note_entry(t, &log->entries[k], index, k, err);
        i += n;
    }
    for (size_t i = 0; !rc && i < log->num_checked; ++i) {
        uint64_t index;
        if (kt_space_index(t->cfg->space, &log->checked[i], &index))
            rc = kt_u64map_put(&t->checked, index, 1, err);
    }
    /* The clock goes on from where the journal stopped. */
    if (!rc && log->count)
        kt_tune_set_clock(t, log->entries[log->count - 1].elapsed_s);
    return rc;
}
