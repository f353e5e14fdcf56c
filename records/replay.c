// SPDX-License-Identifier: Apache-2.0
#include "records/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/envrec.h"
#include "core/u64map.h"
#include "records/journal.h"
#include "records/profiling.h"
#include "records/space.h"

typedef struct replay_eval {
    kt_evaluator base;
    char *path;
    const kt_loaded_plugin *plugin; /* op's: work() is asked through it */
    const kt_operator *op;
    kt_journal_log log;
    size_t *first;    /* entry index of each recorded point, best first */
    double *duration; /* per entry: its share of its call's clock time */
    size_t num_points;
    kt_u64map by_hash; /* point hash -> newest position in first[] */
    size_t *same_hash; /* per position: the one before it under its hash */
    kt_device device;
    char device_name[256];
    int64_t sizes[KT_MAX_SIZES];
    uint64_t seed;
    kt_work work;
    double delay_s;
    double simulate;
} replay_eval;

static const kt_evaluator_ops replay_ops;

static replay_eval *self(const kt_evaluator *ev)
{
    return (replay_eval *)ev;
}

/* The hash decides only where a point is looked for. A test build sets a
 * narrower mask so that points collide, and proves they are told apart. */
#ifndef KT_REPLAY_HASH_MASK
#define KT_REPLAY_HASH_MASK UINT64_MAX
#endif
#define NO_POSITION ((size_t)-1)

static uint64_t point_hash(const kt_point *pt)
{
    return kt_point_hash(pt) & KT_REPLAY_HASH_MASK;
}

/* The points under pt's hash are chained (same_hash), so a collision
 * costs a comparison, and a point not recorded is known without a scan. */
static long find_point(const replay_eval *re, const kt_point *pt)
{
    uint64_t head;
    if (!kt_u64map_get(&re->by_hash, point_hash(pt), &head))
        return -1;
    for (size_t pos = (size_t)head; pos != NO_POSITION;
         pos = re->same_hash[pos])
        if (kt_point_equal(&re->log.entries[re->first[pos]].point, pt))
            return (long)pos;
    return -1;
}

static const kt_eval_result *lookup(const replay_eval *re, const kt_point *pt)
{
    long pos = find_point(re, pt);
    return pos < 0 ? NULL : &re->log.entries[re->first[pos]].result;
}

static kt_status replay_evaluate(kt_evaluator *ev, const kt_point *pts,
                                 size_t n, const kt_protocol *p,
                                 kt_eval_result *out, kt_err *err)
{
    replay_eval *re = self(ev);
    kt_status rc = KT_S_OK;

    memset(out, 0, n * sizeof *out);
    kt_clock_sleep(re->delay_s);
    if (re->simulate > 0) {
        double total = 0;
        for (size_t i = 0; i < n; ++i) {
            long pos = find_point(re, &pts[i]);
            total += pos < 0 ? 0 : re->duration[re->first[pos]];
        }
        kt_clock_sleep(total * re->simulate);
    }
    for (size_t i = 0; i < n && !rc; ++i) {
        const kt_eval_result *r = lookup(re, &pts[i]);
        if (!r) {
            out[i].status = KT_EVAL_ERROR;
            snprintf(out[i].reason, sizeof out[i].reason,
                     "not in the recording %s", re->path);
            continue;
        }
        out[i].status = r->status;
        out[i].shape = r->shape;
        snprintf(out[i].reason, sizeof out[i].reason, "%s", r->reason);
        if (r->status == KT_EVAL_OK)
            rc = kt_timing_copy(&r->timing, &out[i].timing, err);
        /* As recorded (none before energy was), where the call asks for
         * it, as a live call measures it. */
        if (p && p->energy)
            out[i].energy = r->energy;
        out[i].work = r->work; /* a point's own, where it had one */
        out[i].has_work = r->has_work;
    }
    if (rc)
        for (size_t i = 0; i < n; ++i)
            kt_eval_result_free(&out[i]);
    return rc;
}

static const kt_device *replay_device(kt_evaluator *ev)
{
    return &self(ev)->device;
}

static kt_status replay_calibration(kt_evaluator *ev, int refresh,
                                    kt_calibration *out, kt_err *err)
{
    replay_eval *re = self(ev);
    const json_t *c = json_object_get(
        json_object_get(re->log.header, "environment"), "calibration");
    (void)refresh;
    if (!c)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "the recording %s has no calibration", re->path);
    return kt_calib_from_json(c, out, err);
}

static json_t *replay_environment(kt_evaluator *ev)
{
    replay_eval *re = self(ev);
    json_t *env =
        json_deep_copy(json_object_get(re->log.header, "environment"));
    if (!env)
        env = json_object();
    json_object_del(env, "id");
    json_object_set_new(
        env, "replay",
        json_pack(
            "{s:s,s:s?}", "recording", re->path, "recorded",
            json_string_value(json_object_get(re->log.header, "created"))));
    return env;
}

static const kt_work *replay_work(kt_evaluator *ev)
{
    return &self(ev)->work;
}

static void replay_close(kt_evaluator *ev)
{
    replay_eval *re = self(ev);
    if (!re)
        return;
    kt_journal_log_free(&re->log);
    kt_u64map_free(&re->by_hash);
    free(re->same_hash);
    free(re->first);
    free(re->duration);
    free(re->path);
    free(re);
}

/* Counters as recorded: a point's latest profile record serves any subset
 * of what it holds; anything else is "not recorded", never made up. */
static kt_status replay_profile(kt_evaluator *ev, const kt_point *pt,
                                const kt_profile_request *req,
                                kt_profile_result *out, kt_err *err)
{
    replay_eval *re = self(ev);
    const kt_journal_profile *p;
    const kt_eval_result *r;

    memset(out, 0, sizeof *out);
    out->counters = KT_S_UNSUPPORTED;
    if (req->check_only) {
        for (size_t i = 0; i < re->log.num_profiles; ++i) {
            const char *word = json_string_value(
                json_object_get(re->log.profiles[i].record, "counters"));
            if (word && strcmp(word, "ok") == 0) {
                out->counters = KT_S_OK;
                return KT_S_OK;
            }
        }
        snprintf(out->note, sizeof out->note,
                 "the recording %s holds no counters (it was recorded "
                 "without a [metrics] section)",
                 re->path);
        return KT_S_OK;
    }
    if ((p = kt_journal_find_profile(&re->log, pt)))
        return kt_profiling_result(p->record, req->metrics, req->num_metrics,
                                   out, err);
    if (!(r = lookup(re, pt))) {
        out->status = KT_EVAL_ERROR;
        snprintf(out->reason, sizeof out->reason, "not in the recording %s",
                 re->path);
        snprintf(out->note, sizeof out->note, "not in the recording %s",
                 re->path);
        return KT_S_OK;
    }
    out->status = r->status;
    out->shape = r->shape;
    snprintf(out->reason, sizeof out->reason, "%s", r->reason);
    snprintf(out->note, sizeof out->note,
             "not recorded: %s holds no profile of this point", re->path);
    return KT_S_OK;
}

static const kt_evaluator_ops replay_ops = {
    .kind = "replay",
    .evaluate = replay_evaluate,
    .device = replay_device,
    .calibration = replay_calibration,
    .environment = replay_environment,
    .work = replay_work,
    .close = replay_close,
    .profile = replay_profile,
};

/* Single-point measurements are the recording proper; a point seen only in
 * a comparison or the final round still counts. */
static int rank_of(const kt_journal_entry *e)
{
    return strcmp(e->purpose, "measure") == 0 ? 0 : 1;
}

/* Each entry's share of its call's time on the run's clock: from the end
 * of the call before to the end of its own, split over its points. */
static void call_durations(replay_eval *re)
{
    double before = 0;
    for (size_t i = 0; i < re->log.count;) {
        const kt_journal_entry *e = &re->log.entries[i];
        size_t n = e->of ? e->of : 1;
        double d = e->elapsed_s - before;
        for (size_t k = i; k < i + n && k < re->log.count; ++k)
            re->duration[k] = d > 0 ? d / (double)n : 0;
        before = e->elapsed_s > before ? e->elapsed_s : before;
        i += n;
    }
}

static kt_status index_points(replay_eval *re, kt_err *err)
{
    kt_status rc;
    size_t cap = re->log.count ? re->log.count : 1;

    re->first = malloc(cap * sizeof *re->first);
    re->same_hash = malloc(cap * sizeof *re->same_hash);
    re->duration = calloc(cap, sizeof *re->duration);
    if (!re->first || !re->same_hash || !re->duration)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    call_durations(re);
    for (size_t i = 0; i < re->log.count; ++i) {
        const kt_journal_entry *e = &re->log.entries[i];
        uint64_t h = point_hash(&e->point), head;
        long pos = find_point(re, &e->point);
        if (pos >= 0) {
            if (rank_of(e) < rank_of(&re->log.entries[re->first[pos]]))
                re->first[pos] = i;
            continue;
        }
        re->first[re->num_points] = i;
        re->same_hash[re->num_points] =
            kt_u64map_get(&re->by_hash, h, &head) ? (size_t)head : NO_POSITION;
        if ((rc = kt_u64map_put(&re->by_hash, h, re->num_points, err)))
            return rc;
        ++re->num_points;
    }
    return KT_S_OK;
}

static kt_status read_problem(replay_eval *re, const kt_operator *op,
                              kt_err *err)
{
    const json_t *h = re->log.header;
    const json_t *sizes = json_object_get(h, "sizes");
    const json_t *env = json_object_get(h, "environment");
    kt_problem problem;
    kt_status rc;

    for (uint32_t i = 0; i < op->num_sizes; ++i) {
        const json_t *v = json_object_get(sizes, op->sizes[i].name);
        if (!json_is_integer(v))
            return kt_err_set(err, KT_S_INPUT,
                              "%s: the header gives no size '%s'", re->path,
                              op->sizes[i].name);
        re->sizes[i] = json_integer_value(v);
        if (re->sizes[i] < op->sizes[i].min || re->sizes[i] > op->sizes[i].max)
            return kt_err_set(
                err, KT_S_INPUT,
                "%s: the header's size %s is %lld, expected "
                "%lld to %lld",
                re->path, op->sizes[i].name, (long long)re->sizes[i],
                (long long)op->sizes[i].min, (long long)op->sizes[i].max);
    }
    re->seed = (uint64_t)json_integer_value(json_object_get(h, "seed"));
    if ((rc = kt_env_device_from_json(json_object_get(env, "device"),
                                      &re->device, re->device_name,
                                      sizeof re->device_name, err)))
        return kt_err_prefix(err, "%s: environment: ", re->path);
    memset(&problem, 0, sizeof problem);
    problem.struct_size = sizeof problem;
    problem.num_sizes = op->num_sizes;
    problem.sizes = re->sizes;
    problem.seed = re->seed;
    problem.device = &re->device;
    {
        int wrc = KT_OK;
        if ((rc = kt_call_work(re->plugin, op, &problem, &re->work, &wrc, err)))
            return kt_err_prefix(err, "%s: ", re->path);
        if (wrc != KT_OK)
            return kt_err_set(err, KT_S_PLUGIN,
                              "operator '%s': work() failed for the recorded "
                              "problem",
                              op->id);
    }
    return KT_S_OK;
}

kt_status kt_replay_open(const char *path, const kt_loaded_plugin *plugin,
                         const kt_operator *op, const kt_replay_options *opt,
                         kt_evaluator **out, kt_err *err)
{
    replay_eval *re = calloc(1, sizeof *re);
    const char *rec_plugin, *rec_op;
    json_t *header = NULL;
    kt_status rc;

    *out = NULL;
    if (!re)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    re->base.ops = &replay_ops;
    re->plugin = plugin;
    re->op = op;
    re->delay_s = opt ? opt->delay_s : 0;
    re->simulate = opt ? opt->simulate : 0;
    kt_u64map_init(&re->by_hash);
    re->path = strdup(path);
    if (!re->path) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto fail;
    }
    /* The header first: a recording of another operator is refused by
     * name, not by the first point it cannot read. */
    if ((rc = kt_journal_read_header(path, &header, err)))
        goto fail;
    rec_plugin = json_string_value(
        json_object_get(json_object_get(header, "plugin"), "name"));
    rec_op = json_string_value(json_object_get(header, "operator"));
    if (!rec_plugin || !rec_op || strcmp(rec_plugin, plugin->desc.name) != 0 ||
        strcmp(rec_op, op->id) != 0) {
        rc = kt_err_set(err, KT_S_INPUT,
                        "%s records %s:%s, not %s:%s; replay it with a "
                        "config for %s:%s",
                        path, rec_plugin ? rec_plugin : "?",
                        rec_op ? rec_op : "?", plugin->desc.name, op->id,
                        rec_plugin ? rec_plugin : "?", rec_op ? rec_op : "?");
        goto fail;
    }
    if ((rc = kt_journal_read(path, op, &re->log, err)) ||
        (rc = read_problem(re, op, err)) || (rc = index_points(re, err)))
        goto fail;
    json_decref(header);
    *out = &re->base;
    return KT_S_OK;
fail:
    json_decref(header);
    replay_close(&re->base);
    return rc;
}

int kt_replay_is(const kt_evaluator *ev)
{
    return ev && ev->ops == &replay_ops;
}

const int64_t *kt_replay_sizes(const kt_evaluator *ev)
{
    return self(ev)->sizes;
}

uint64_t kt_replay_seed(const kt_evaluator *ev)
{
    return self(ev)->seed;
}

double kt_replay_duration(const kt_evaluator *ev, const kt_point *pt)
{
    const replay_eval *re = self(ev);
    long pos = find_point(re, pt);
    return pos < 0 ? 0 : re->duration[re->first[pos]];
}

const kt_eval_result *kt_replay_lookup(const kt_evaluator *ev,
                                       const kt_point *pt)
{
    return lookup(self(ev), pt);
}

kt_status kt_replay_optimum(const kt_evaluator *ev, const kt_space *space,
                            kt_point *pt, kt_stats *stats, kt_err *err)
{
    double cost;
    return kt_replay_optimum_by(ev, space, KT_OBJ_TIME, pt, stats, &cost, err);
}

/* r's cost under o, with its own work where it has one; +inf when o lacks
 * a figure. */
static double recorded_cost(const replay_eval *re, kt_objective o,
                            const kt_eval_result *r)
{
    kt_objective_side s = {&r->timing, &r->energy,
                           r->has_work ? &r->work : &re->work};
    double c = kt_objective_cost(o, &s);
    return isnan(c) ? INFINITY : c;
}

kt_status kt_replay_optimum_by(const kt_evaluator *ev, const kt_space *space,
                               kt_objective o, kt_point *pt, kt_stats *stats,
                               double *cost, kt_err *err)
{
    const replay_eval *re = self(ev);
    uint64_t at = 0;
    int found = 0;

    /* The recorded points, not the space's: a sample of a space of
     * millions (the hub hotspot's Cartesian space) is walked in its own
     * length. Ties go to the lower index, as a walk of the space would. */
    for (size_t k = 0; k < re->num_points; ++k) {
        const kt_journal_entry *e = &re->log.entries[re->first[k]];
        uint64_t index;
        double c;
        if (e->result.status != KT_EVAL_OK ||
            !kt_space_index(space, &e->point, &index) ||
            kt_space_feasible(space, &e->point, NULL) != KT_S_OK)
            continue;
        c = recorded_cost(re, o, &e->result);
        if (!found || c < *cost || (c == *cost && index < at)) {
            *pt = e->point;
            *stats = e->result.timing.kernel;
            *cost = c;
            at = index;
            found = 1;
        }
    }
    if (!found)
        return kt_err_set(err, KT_S_INPUT,
                          "%s records no valid point of this space", re->path);
    return KT_S_OK;
}
