// SPDX-License-Identifier: Apache-2.0
#include "records/recording.h"

#include "records/replay_ext.h"

kt_status kt_recording_open(const char *path, const kt_loaded_plugin *plugin,
                            const kt_operator *op, const kt_replay_options *opt,
                            kt_evaluator **out, kt_err *err)
{
    const kt_extrec *ext = kt_extrec_of(op);
    if (ext)
        return kt_replay_ext_open(ext, out, err);
    return kt_replay_open(path, plugin, op, opt, out, err);
}

int kt_recording_is(const kt_evaluator *ev)
{
    return kt_replay_is(ev) || kt_replay_ext_is(ev);
}

int kt_recording_optimum(const kt_evaluator *ev, const kt_space *space,
                         kt_objective o, kt_point *pt, kt_stats *stats,
                         double *cost)
{
    if (kt_replay_ext_is(ev))
        return kt_replay_ext_optimum(ev, pt, stats);
    return kt_replay_is(ev) &&
           kt_replay_optimum_by(ev, space, o, pt, stats, cost, NULL) == KT_S_OK;
}

int kt_recording_note(const kt_evaluator *ev, char *out, size_t size)
{
    if (size)
        out[0] = '\0';
    if (!kt_replay_ext_is(ev))
        return 0;
    kt_replay_ext_note(ev, out, size);
    return 1;
}

const int64_t *kt_recording_sizes(const kt_evaluator *ev)
{
    return kt_replay_is(ev) ? kt_replay_sizes(ev) : NULL;
}

uint64_t kt_recording_seed(const kt_evaluator *ev)
{
    return kt_replay_is(ev) ? kt_replay_seed(ev) : 0;
}

const kt_extrec *kt_recording_external(const kt_evaluator *ev)
{
    return kt_replay_ext_is(ev) ? kt_replay_ext_recording(ev) : NULL;
}
