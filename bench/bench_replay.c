// SPDX-License-Identifier: Apache-2.0
/*
 * bench_replay: many tuning runs over one recording, in one process, for
 * bench/strategies.py. The recording is read once; each run is a fresh
 * tuning session (kt_tune_run) of one strategy with one seed, answered by
 * the replay evaluator. One JSON line per run on stdout:
 *
 *   {"strategy", "seed", "evaluations", "feasible", "optimum_us",
 *    "answer_us", "answer", "stop_reason", "sim_s",
 *    "best_us": [after each evaluation], "time_s": [after each evaluation]}
 *
 * best_us is the best recorded median found so far; answer_us the recorded
 * median of the answer (the closing round's winner). Time is simulated
 * from the recording: every point of every evaluate() call costs its
 * recorded wall time (a comparison measures the incumbent again), a point
 * new to the run costs `overhead` more (set-up and verification), a
 * profile `profile` seconds.
 *
 *   bench_replay --plugins DIR [--plugin FILE] --recording FILE
 *                --strategy NAME
 *                [--seeds N] [--first-seed K] [--max-evals N]
 *                [--option NAME=VALUE]... [--overhead S] [--profile S]
 *                [--space NAME=V1,V2,...]...
 *
 * The space is the recording's (its header's "space": a partial recording
 * is searched as recorded); --space narrows it further as a job's [space]
 * section does (variant = IDS keeps those variants; any other name narrows
 * that parameter).
 * --values prints, first, {"values": [...]}: the recorded median of every
 * point of the space that passes the host's checks (null: it failed or is
 * not recorded), for the calculated random-search baseline.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/loader.h"
#include "core/protocol.h"
#include "core/u64map.h"
#include "records/replay.h"
#include "tuner/tune.h"

typedef struct sim {
    kt_evaluator base;
    kt_evaluator *inner;
    kt_evaluator_ops ops;
    const kt_space *space;
    double overhead_s, profile_s, clock_s;
    kt_u64map seen;
    double *at; /* clock after each new point */
    size_t num_at, cap_at;
} sim;

static sim *self(kt_evaluator *ev)
{
    return (sim *)ev;
}

static kt_status note_new(sim *s, kt_err *err)
{
    if (s->num_at == s->cap_at) {
        size_t cap = s->cap_at ? 2 * s->cap_at : 256;
        double *grown = realloc(s->at, cap * sizeof *grown);
        if (!grown)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        s->at = grown;
        s->cap_at = cap;
    }
    s->at[s->num_at++] = s->clock_s;
    return KT_S_OK;
}

static kt_status sim_evaluate(kt_evaluator *ev, const kt_point *pts, size_t n,
                              const kt_protocol *p, kt_eval_result *out,
                              kt_err *err)
{
    sim *s = self(ev);
    size_t fresh = 0;
    kt_status rc = s->inner->ops->evaluate(s->inner, pts, n, p, out, err);

    if (rc)
        return rc;
    for (size_t i = 0; i < n; ++i) {
        uint64_t index;
        if (out[i].status == KT_EVAL_OK)
            s->clock_s += out[i].timing.wall_time_s;
        if (kt_space_index(s->space, &pts[i], &index) &&
            !kt_u64map_get(&s->seen, index, NULL)) {
            if ((rc = kt_u64map_put(&s->seen, index, 1, err)))
                return rc;
            s->clock_s += s->overhead_s;
            ++fresh;
        }
    }
    for (size_t i = 0; i < fresh && !rc; ++i)
        rc = note_new(s, err);
    return rc;
}

static kt_status sim_profile(kt_evaluator *ev, const kt_point *pt,
                             const kt_profile_request *req,
                             kt_profile_result *out, kt_err *err)
{
    sim *s = self(ev);
    s->clock_s += s->profile_s;
    return s->inner->ops->profile(s->inner, pt, req, out, err);
}

static const kt_device *sim_device(kt_evaluator *ev)
{
    return self(ev)->inner->ops->device(self(ev)->inner);
}

static kt_status sim_calibration(kt_evaluator *ev, int refresh,
                                 kt_calibration *out, kt_err *err)
{
    return self(ev)->inner->ops->calibration(self(ev)->inner, refresh, out,
                                             err);
}

static json_t *sim_environment(kt_evaluator *ev)
{
    return self(ev)->inner->ops->environment(self(ev)->inner);
}

static const kt_work *sim_work(kt_evaluator *ev)
{
    return self(ev)->inner->ops->work(self(ev)->inner);
}

static void sim_close(kt_evaluator *ev)
{
    (void)ev;
}

static void sim_reset(sim *s)
{
    kt_u64map_free(&s->seen);
    kt_u64map_init(&s->seen);
    s->clock_s = 0;
    s->num_at = 0;
}

typedef struct args {
    const char *plugins, *recording, *strategy;
    const char *declared; /* --plugin FILE: a declared operator's INI */
    long seeds, first_seed, max_evals;
    char *options[KT_STRATEGY_MAX_OPTIONS];
    size_t num_options;
    char *narrow[KT_MAX_PARAMS + 1]; /* --space NAME=V1,V2,... */
    size_t num_narrow;
    double overhead_s, profile_s;
    int values; /* print the recorded medians of the feasible points */
} args;

static int usage(void)
{
    fprintf(stderr,
            "usage: bench_replay --plugins DIR [--plugin FILE] "
            "--recording FILE --strategy NAME [--seeds N] [--first-seed K] "
            "[--max-evals N] [--option NAME=VALUE]... [--overhead S] "
            "[--profile S] [--space NAME=V1,V2,...]... [--values]\n");
    return 2;
}

static int parse(int argc, char **argv, args *a)
{
    static const struct option longs[] = {
        {"plugins", required_argument, NULL, 'p'},
        {"plugin", required_argument, NULL, 'P'},
        {"recording", required_argument, NULL, 'r'},
        {"strategy", required_argument, NULL, 's'},
        {"seeds", required_argument, NULL, 'n'},
        {"first-seed", required_argument, NULL, 'f'},
        {"max-evals", required_argument, NULL, 'm'},
        {"option", required_argument, NULL, 'o'},
        {"overhead", required_argument, NULL, 'v'},
        {"profile", required_argument, NULL, 'q'},
        {"space", required_argument, NULL, 'S'},
        {"values", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    int c;

    memset(a, 0, sizeof *a);
    a->seeds = 1;
    a->first_seed = 1;
    a->overhead_s = 0.02;
    a->profile_s = 0.1;
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (c) {
        case 'p': a->plugins = optarg; break;
        case 'P': a->declared = optarg; break;
        case 'r': a->recording = optarg; break;
        case 's': a->strategy = optarg; break;
        case 'n': a->seeds = strtol(optarg, NULL, 10); break;
        case 'f': a->first_seed = strtol(optarg, NULL, 10); break;
        case 'm': a->max_evals = strtol(optarg, NULL, 10); break;
        case 'v': a->overhead_s = strtod(optarg, NULL); break;
        case 'q': a->profile_s = strtod(optarg, NULL); break;
        case 'V': a->values = 1; break;
        case 'S':
            if (a->num_narrow == KT_MAX_PARAMS + 1)
                return usage();
            a->narrow[a->num_narrow++] = optarg;
            break;
        case 'o':
            if (a->num_options == KT_STRATEGY_MAX_OPTIONS)
                return usage();
            a->options[a->num_options++] = optarg;
            break;
        default: return usage();
        }
    }
    if (!a->plugins || !a->recording || !a->strategy || a->seeds < 1 ||
        a->max_evals < 0)
        return usage();
    return 0;
}

/* Strategy defaults, then --option NAME=VALUE. */
static int set_options(const args *a, const kt_strategy *st, double *opt)
{
    for (size_t i = 0; i < st->num_options; ++i)
        opt[i] = st->options[i].default_value;
    for (size_t k = 0; k < a->num_options; ++k) {
        const char *eq = strchr(a->options[k], '=');
        size_t i, len = eq ? (size_t)(eq - a->options[k]) : 0;
        for (i = 0; i < st->num_options; ++i)
            if (eq && strlen(st->options[i].name) == len &&
                strncmp(st->options[i].name, a->options[k], len) == 0)
                break;
        if (i == st->num_options) {
            fprintf(stderr, "bench_replay: %s has no option '%s'\n", st->name,
                    a->options[k]);
            return 2;
        }
        opt[i] = strtod(eq + 1, NULL);
    }
    return 0;
}

static double recorded_us(kt_evaluator *replay, const kt_point *pt)
{
    const kt_eval_result *r = kt_replay_lookup(replay, pt);
    return r && r->status == KT_EVAL_OK ? r->timing.kernel.median : NAN;
}

/* One run as a JSON line. */
static void report(const args *a, const kt_operator *op, sim *s,
                   kt_evaluator *replay, uint64_t seed, uint64_t feasible,
                   double optimum_us, const kt_tune_result *r)
{
    json_t *line = json_object(), *best = json_array(), *time = json_array();
    char answer[512] = "";
    char *text;

    for (size_t i = 0; i < r->evaluations; ++i) {
        double b = r->trace[i];
        json_array_append_new(best, isfinite(b) ? json_real(b) : json_null());
        json_array_append_new(time,
                              json_real(i < s->num_at ? s->at[i] : s->clock_s));
    }
    if (r->has_best)
        kt_point_format(op, &r->finals[0].point, answer, sizeof answer);
    json_object_set_new(line, "strategy", json_string(a->strategy));
    json_object_set_new(line, "seed", json_integer((json_int_t)seed));
    json_object_set_new(line, "evaluations",
                        json_integer((json_int_t)r->evaluations));
    json_object_set_new(line, "feasible", json_integer((json_int_t)feasible));
    json_object_set_new(line, "optimum_us", json_real(optimum_us));
    json_object_set_new(
        line, "answer_us",
        r->has_best ? json_real(recorded_us(replay, &r->finals[0].point))
                    : json_null());
    json_object_set_new(line, "answer", json_string(answer));
    json_object_set_new(line, "stop_reason", json_string(r->stop_reason));
    json_object_set_new(line, "sim_s", json_real(s->clock_s));
    json_object_set_new(line, "best_us", best);
    json_object_set_new(line, "time_s", time);
    text = json_dumps(line, JSON_COMPACT);
    if (text)
        puts(text);
    free(text);
    json_decref(line);
}

/* --space items, as a job's [space] keys. */
static kt_status narrow(const args *a, const kt_operator *op, kt_space *space,
                        kt_err *err)
{
    for (size_t k = 0; k < a->num_narrow; ++k) {
        char buf[1024], *items[256], *eq, *tok, *save = NULL;
        size_t n = 0;
        kt_status rc;
        snprintf(buf, sizeof buf, "%s", a->narrow[k]);
        if (!(eq = strchr(buf, '=')))
            return kt_err_set(err, KT_S_INPUT, "--space %s: expected NAME=V,..",
                              a->narrow[k]);
        *eq = '\0';
        for (tok = strtok_r(eq + 1, ",", &save); tok && n < 256;
             tok = strtok_r(NULL, ",", &save))
            items[n++] = tok;
        if (strcmp(buf, "variant") == 0) {
            uint32_t ids[256];
            for (size_t i = 0; i < n; ++i) {
                size_t id;
                if ((rc = kt_operator_find_variant(op, items[i], &id, err)))
                    return rc;
                ids[i] = (uint32_t)id;
            }
            rc = kt_space_keep_variants(space, ids, n, err);
        } else {
            rc = kt_space_narrow(space, buf, items, n, err);
        }
        if (rc)
            return rc;
    }
    return KT_S_OK;
}

/* --values: the line of recorded medians of the feasible points. */
static void print_values(const kt_space *space, kt_evaluator *replay)
{
    json_t *line = json_object(), *values = json_array();
    char *text;
    for (uint64_t i = 0; i < space->size; ++i) {
        kt_point pt;
        double us;
        kt_space_point(space, i, &pt);
        if (kt_space_feasible(space, &pt, NULL) != KT_S_OK)
            continue;
        us = recorded_us(replay, &pt);
        json_array_append_new(values,
                              isfinite(us) ? json_real(us) : json_null());
    }
    json_object_set_new(line, "values", values);
    text = json_dumps(line, JSON_COMPACT);
    if (text)
        puts(text);
    free(text);
    json_decref(line);
}

/* The space the recording covers (its header's "space": variants and the
 * values of each parameter), so that a partial recording is searched as
 * recorded. Values of a parameter are the union over the variants. */
static kt_status narrow_to_recording(const json_t *head, const kt_operator *op,
                                     kt_space *space, kt_err *err)
{
    const json_t *vars =
        json_object_get(json_object_get(head, "space"), "variants");
    json_t *by_name = json_object(), *v, *vals;
    uint32_t ids[256];
    size_t n = 0, i;
    const char *name;
    kt_status rc = KT_S_OK;

    json_array_foreach (vars, i, v) {
        size_t id;
        const char *pname;
        json_t *list;
        if (n == 256 ||
            (rc = kt_operator_find_variant(
                 op, json_string_value(json_object_get(v, "id")), &id, err)))
            goto done;
        ids[n++] = (uint32_t)id;
        json_object_foreach (json_object_get(v, "params"), pname, list) {
            size_t k;
            json_t *x, *u = json_object_get(by_name, pname);
            if (!u)
                json_object_set_new(by_name, pname, u = json_object());
            json_array_foreach (list, k, x) {
                char text[64];
                if (json_is_string(x))
                    snprintf(text, sizeof text, "%s", json_string_value(x));
                else
                    snprintf(text, sizeof text, "%lld",
                             (long long)json_integer_value(x));
                json_object_set_new(u, text, json_true());
            }
        }
    }
    if (n && (rc = kt_space_keep_variants(space, ids, n, err)))
        goto done;
    json_object_foreach (by_name, name, vals) {
        char *items[1024];
        size_t m = 0;
        const char *text;
        json_t *unused;
        json_object_foreach (vals, text, unused) {
            if (m < 1024)
                items[m++] = (char *)text;
        }
        if ((rc = kt_space_narrow(space, name, items, m, err)))
            goto done;
    }
done:
    json_decref(by_name);
    return rc;
}

static kt_status open_all(const args *a, kt_registry *reg, kt_space *space,
                          const kt_operator **op, kt_evaluator **replay,
                          kt_err *err)
{
    const kt_loaded_plugin *plugin;
    json_t *head = NULL;
    char spec[256];
    kt_status rc;

    kt_registry_load_dir(reg, a->plugins, 1);
    if (a->declared && (rc = kt_registry_load_file(reg, a->declared, err)))
        return rc;
    if ((rc = kt_journal_read_header(a->recording, &head, err)))
        return rc;
    snprintf(spec, sizeof spec, "%s:%s",
             json_string_value(
                 json_object_get(json_object_get(head, "plugin"), "name")),
             json_string_value(json_object_get(head, "operator")));
    if ((rc = kt_registry_resolve(reg, spec, &plugin, op, err)) ||
        (rc = kt_space_init(space, plugin, *op, err)) ||
        (rc = narrow_to_recording(head, *op, space, err)) ||
        (rc = narrow(a, *op, space, err)) ||
        (rc = kt_replay_open(a->recording, plugin, *op, NULL, replay, err)))
        goto done;
    kt_space_bind(space, kt_replay_sizes(*replay), kt_replay_seed(*replay),
                  (*replay)->ops->device(*replay));
done:
    json_decref(head);
    return rc;
}

int main(int argc, char **argv)
{
    args a;
    kt_registry reg;
    kt_space space;
    const kt_operator *op = NULL;
    const kt_strategy *st;
    kt_evaluator *replay = NULL;
    kt_point opt_pt;
    kt_stats opt_stats;
    uint64_t feasible = 0;
    sim s;
    kt_err err;
    int rc = 1;

    if (parse(argc, argv, &a))
        return 2;
    if (!(st = kt_strategy_find(a.strategy))) {
        fprintf(stderr, "bench_replay: unknown strategy %s\n", a.strategy);
        return 2;
    }
    memset(&space, 0, sizeof space);
    memset(&s, 0, sizeof s);
    kt_registry_init(&reg);
    kt_u64map_init(&s.seen);
    if (open_all(&a, &reg, &space, &op, &replay, &err) ||
        kt_space_count_feasible(&space, UINT64_C(1) << 22, &feasible, &err) ||
        kt_replay_optimum(replay, &space, &opt_pt, &opt_stats, &err)) {
        fprintf(stderr, "bench_replay: %s: %s\n", a.recording, err.msg);
        goto done;
    }
    if (a.values)
        print_values(&space, replay);
    s.inner = replay;
    s.space = &space;
    s.overhead_s = a.overhead_s;
    s.profile_s = a.profile_s;
    s.ops = *replay->ops;
    s.ops.evaluate = sim_evaluate;
    s.ops.profile = replay->ops->profile ? sim_profile : NULL;
    s.ops.device = sim_device;
    s.ops.calibration = sim_calibration;
    s.ops.environment = sim_environment;
    s.ops.work = sim_work;
    s.ops.close = sim_close;
    s.base.ops = &s.ops;
    for (long k = 0; k < a.seeds; ++k) {
        kt_tune_config cfg;
        kt_tune_result r;
        memset(&cfg, 0, sizeof cfg);
        cfg.op = op;
        cfg.space = &space;
        cfg.ev = &s.base;
        cfg.strategy = st;
        if ((rc = set_options(&a, st, cfg.options)))
            goto done;
        cfg.seed = (uint64_t)(a.first_seed + k);
        cfg.max_evals = (size_t)a.max_evals;
        cfg.finalists = 3;
        cfg.min_gain = 0.005;
        kt_protocol_defaults(&cfg.protocol);
        sim_reset(&s);
        if (kt_tune_run(&cfg, &r, &err)) {
            fprintf(stderr, "bench_replay: %s seed %llu: %s\n", a.strategy,
                    (unsigned long long)cfg.seed, err.msg);
            kt_tune_result_free(&r);
            rc = 1;
            goto done;
        }
        report(&a, op, &s, replay, cfg.seed, feasible, opt_stats.median, &r);
        kt_tune_result_free(&r);
    }
    rc = 0;
done:
    kt_u64map_free(&s.seen);
    free(s.at);
    if (replay)
        replay->ops->close(replay);
    if (op)
        kt_space_free(&space);
    kt_registry_free(&reg);
    return rc;
}
