/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runs (include/ktune/ktune.h): each writes the declaration document
 * and runs the CLI's command over it (`ktune tune DECL.ini --json -
 * --journal J`, `ktune bench NAME --plugin DECL.ini ...`), so the
 * orchestration, isolation and messages are the CLI's; the result is the
 * document it wrote (--json -: in memory, libktune/run.c), with the
 * journal's entries as "points".
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libktune/result.h"

#define MAX_ARGS 256

typedef struct argv_b {
    const char *v[MAX_ARGS + 1];
    size_t n;
    char num[4][32];
} argv_b;

static int push(ktune_session *s, argv_b *a, const char *arg)
{
    if (a->n >= MAX_ARGS)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "more than %d options for ktune: fewer settings",
                        MAX_ARGS);
    a->v[a->n++] = arg;
    a->v[a->n] = NULL;
    return KTUNE_OK;
}

/* The session's job keys as --set, but the library's own. */
static int push_sets(ktune_session *s, argv_b *a)
{
    int rc = KTUNE_OK;

    for (size_t i = 0; i < s->sets.n && !rc; ++i)
        if (strncmp(s->sets.v[i], "libktune.", 9) != 0 &&
            !(rc = push(s, a, "--set")))
            rc = push(s, a, s->sets.v[i]);
    return rc;
}

static double fraction_of(const ktune_session *s)
{
    for (size_t i = 0; i < s->sets.n; ++i)
        if (strncmp(s->sets.v[i], "libktune.fraction=", 18) == 0)
            return atof(s->sets.v[i] + 18);
    return 0;
}

/* The journal's entries (lines holding "point"), in order. */
static json_t *read_points(const char *path)
{
    json_t *points = json_array();
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;

    while (points && f && getline(&line, &cap, f) > 0) {
        json_t *e = json_loads(line, 0, NULL);
        if (json_is_object(e) && json_object_get(e, "point"))
            json_array_append(points, e);
        json_decref(e);
    }
    free(line);
    if (f)
        fclose(f);
    return points;
}

/* bench's and profile's one evaluation as the only point (profile's
 * counters with it, by name), so the point accessors read it; none for
 * another tool's replay. */
static json_t *one_point_of(json_t *doc)
{
    json_t *points = json_array(), *r = json_object_get(doc, "result"), *p;
    json_t *metrics =
        json_object_get(json_object_get(doc, "counters"), "metrics");

    if (!points || !json_is_object(r) || !(p = json_deep_copy(r)))
        return points;
    if (json_is_object(metrics))
        json_object_set(p, "counters", metrics);
    json_array_append_new(points, p);
    return points;
}

/* The result of a run whose --json document is text (owned, freed here;
 * journal: its points, may be NULL). */
static int finish(ktune_session *s, char *text, const char *journal,
                  ktune_result **out)
{
    json_error_t je;
    json_t *doc = text ? json_loads(text, 0, &je) : NULL;

    if (!json_is_object(doc)) {
        json_decref(doc);
        free(text);
        return ktl_fail(s, KTUNE_E_IO, "the run's --json document: %s",
                        text ? je.text : "none");
    }
    json_object_set_new(doc, "points",
                        journal ? read_points(journal) : one_point_of(doc));
    *out = ktl_result_new(doc, text);
    json_decref(doc);
    free(text);
    return *out ? ktl_ok(s) : ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
}

/* check's result: the document `--check --json FILE` wrote (the counts,
 * tuner/job_print.h; none scraped from the text, whose counts may read
 * "about N"), with the text and no points. */
static int check_doc(ktune_session *s, const char *path, const char *text,
                     ktune_result **out)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);

    if (!json_is_object(doc)) {
        json_decref(doc);
        return ktl_fail(s, KTUNE_E_IO, "the check's --json document %s: %s",
                        path, je.text);
    }
    if (json_object_set_new(doc, "text", json_string(text ? text : "")) ||
        json_object_set_new(doc, "points", json_array()) ||
        !(*out = ktl_result_new(doc, NULL))) {
        json_decref(doc);
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    }
    json_decref(doc);
    return ktl_ok(s);
}

int ktune_check(ktune_session *s, ktune_result **out)
{
    char ini[PATH_MAX + 128], json[PATH_MAX + 64], *text = NULL;
    argv_b a = {.n = 0};
    int rc;

    if (!s || !out)
        return s ? ktl_fail(s, KTUNE_E_INPUT, "ktune_check: out is NULL")
                 : KTUNE_E_INPUT;
    *out = NULL;
    snprintf(json, sizeof json, "%s/check.json", s->dir);
    if ((rc = ktl_write_document(s, ini, sizeof ini)) ||
        (rc = push(s, &a, "ktune")) || (rc = push(s, &a, "tune")) ||
        (rc = push(s, &a, ini)) || (rc = push(s, &a, "--check")) ||
        (rc = push(s, &a, "--json")) || (rc = push(s, &a, json)) ||
        (rc = push_sets(s, &a)) || (rc = ktl_run(s, a.v, &text)))
        return rc;
    rc = check_doc(s, json, text, out);
    free(text);
    return rc;
}

/* The options every run of tune takes from the session (journal NULL:
 * none, as for another tool's recording). */
static int push_tune(ktune_session *s, argv_b *a, const char *journal)
{
    int rc;

    if ((rc = push(s, a, "--json")) || (rc = push(s, a, "-")) ||
        (journal &&
         ((rc = push(s, a, "--journal")) || (rc = push(s, a, journal)))) ||
        (!s->verbose && !s->log && (rc = push(s, a, "--quiet"))) ||
        ((!s->isolation || s->verify) && (rc = push(s, a, "--in-process"))))
        return rc;
    if (s->device >= 0) {
        snprintf(a->num[0], sizeof a->num[0], "%d", s->device);
        if ((rc = push(s, a, "--devices")) || (rc = push(s, a, a->num[0])))
            return rc;
    }
    return push_sets(s, a);
}

/* The fraction of the space as max_evals (the smaller of the two). */
static int push_fraction(ktune_session *s, argv_b *a)
{
    double f = fraction_of(s), feasible;
    ktune_result *c = NULL;
    int rc;

    if (f <= 0)
        return KTUNE_OK;
    if ((rc = ktune_check(s, &c)))
        return rc;
    rc = ktune_result_number(c, "space.feasible", &feasible);
    ktune_result_free(c);
    if (rc)
        return ktl_fail(s, KTUNE_E_FAILURE, "the space's count is unknown");
    for (size_t i = 0; i < s->sets.n; ++i)
        if (strncmp(s->sets.v[i], "strategy.max_evals=", 19) == 0 &&
            atof(s->sets.v[i] + 19) > 0 &&
            atof(s->sets.v[i] + 19) < ceil(f * feasible))
            return KTUNE_OK;
    snprintf(a->num[1], sizeof a->num[1], "strategy.max_evals=%.0f",
             fmax(1, ceil(f * feasible)));
    if ((rc = push(s, a, "--set")))
        return rc;
    return push(s, a, a->num[1]);
}

static void run_paths(ktune_session *s, char *journal, size_t size)
{
    ++s->runs;
    if (s->journal)
        snprintf(journal, size, "%s", s->journal);
    else
        snprintf(journal, size, "%s/run%d.journal.jsonl", s->dir, s->runs);
}

/* tune, or its replay of recording (NULL: live). */
static int tune_or_replay(ktune_session *s, const char *recording,
                          ktune_result **out)
{
    char ini[PATH_MAX + 128], journal[PATH_MAX + 64], *text = NULL;
    int declared = s->source_text || s->source_file;
    argv_b a = {.n = 0};
    int rc;

    if (!out)
        return ktl_fail(s, KTUNE_E_INPUT, "ktune_tune: out is NULL");
    *out = NULL;
    if (recording && !declared && s->num_variants)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_replay: variants declared but no source");
    run_paths(s, journal, sizeof journal);
    if ((declared && (rc = ktl_write_document(s, ini, sizeof ini))) ||
        (rc = push(s, &a, "ktune")) || (rc = push(s, &a, "tune")) ||
        (declared && (rc = push(s, &a, ini))))
        return rc;
    if (recording &&
        ((rc = push(s, &a, "--replay")) || (rc = push(s, &a, recording))))
        return rc;
    /* Without a declaration the recording is the job: another tool's
     * writes no journal (the CLI refuses one), so its points are the
     * summary's alone. */
    if ((rc = push_tune(s, &a, declared ? journal : NULL)) ||
        (declared && (rc = push_fraction(s, &a))) ||
        (rc = ktl_run(s, a.v, &text)))
        return rc;
    return finish(s, text, declared ? journal : NULL, out);
}

int ktune_tune(ktune_session *s, ktune_result **out)
{
    if (!s)
        return KTUNE_E_INPUT;
    if (!s->source_text && !s->source_file)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_tune: no kernel source: give it with "
                        "ktune_source_text or ktune_source_file");
    return tune_or_replay(s, NULL, out);
}

int ktune_replay(ktune_session *s, const char *recording, ktune_result **out)
{
    if (!s)
        return KTUNE_E_INPUT;
    if (!recording || !*recording)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_replay: no recording (a ktune journal, Kernel "
                        "Tuner cache or T4 file)");
    return tune_or_replay(s, recording, out);
}

/* bench or profile of one configuration: "tile=32,pad=1" as --set each. */
static int one_point(ktune_session *s, const char *cmd, const char *variant,
                     const char *config, ktune_result **out)
{
    char ini[PATH_MAX + 128], journal[PATH_MAX + 64];
    char *items = NULL, *save = NULL, *text = NULL;
    argv_b a = {.n = 0};
    int rc;

    if (!out)
        return ktl_fail(s, KTUNE_E_INPUT, "ktune_%s: out is NULL", cmd);
    *out = NULL;
    run_paths(s, journal, sizeof journal);
    if ((rc = ktl_write_document(s, ini, sizeof ini)) ||
        (rc = push(s, &a, "ktune")) || (rc = push(s, &a, cmd)) ||
        (rc = push(s, &a, s->name ? s->name : "kernel")) ||
        (rc = push(s, &a, "--plugin")) || (rc = push(s, &a, ini)) ||
        (rc = push(s, &a, "--json")) || (rc = push(s, &a, "-")) ||
        (variant &&
         ((rc = push(s, &a, "--variant")) || (rc = push(s, &a, variant)))) ||
        ((!s->isolation || s->verify) && (rc = push(s, &a, "--in-process"))))
        return rc;
    if (s->device >= 0) {
        snprintf(a.num[0], sizeof a.num[0], "%d", s->device);
        if ((rc = push(s, &a, "--device")) || (rc = push(s, &a, a.num[0])))
            return rc;
    }
    if (config && *config && !(items = strdup(config)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    for (char *t = items ? strtok_r(items, ", ", &save) : NULL; t && !rc;
         t = strtok_r(NULL, ", ", &save))
        if (!(rc = push(s, &a, "--set")))
            rc = push(s, &a, t);
    if (!rc && !(rc = ktl_run(s, a.v, &text)))
        rc = finish(s, text, NULL, out);
    free(items);
    return rc;
}

int ktune_bench(ktune_session *s, const char *variant, const char *config,
                ktune_result **out)
{
    return s ? one_point(s, "bench", variant, config, out) : KTUNE_E_INPUT;
}

int ktune_profile(ktune_session *s, const char *variant, const char *config,
                  ktune_result **out)
{
    return s ? one_point(s, "profile", variant, config, out) : KTUNE_E_INPUT;
}

int ktune_report(ktune_session *s, const char *json, const char *path)
{
    char src[PATH_MAX + 64];
    const char *argv[] = {"ktune", "report", src, "-o", path, NULL};
    FILE *f;
    int ok, rc;

    if (!s)
        return KTUNE_E_INPUT;
    if (!json || !*json || !path || !*path || strcmp(path, "-") == 0)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_report: expected a result document (JSON text) "
                        "and the path of the report to write");
    snprintf(src, sizeof src, "%s/report%d.json", s->dir, ++s->runs);
    if (!(f = fopen(src, "w")))
        return ktl_fail(s, KTUNE_E_IO, "cannot write %s", src);
    ok = fputs(json, f) >= 0;
    if (fclose(f) != 0 || !ok) {
        remove(src);
        return ktl_fail(s, KTUNE_E_IO, "cannot write %s", src);
    }
    rc = ktl_run(s, argv, NULL);
    remove(src);
    return rc;
}
