// SPDX-License-Identifier: Apache-2.0
#include "tuner/job_print.h"

#include <stdlib.h>

#include "core/sizes.h"

/* Sizes the operator fixes (min = max, e.g. a declaration's `pinned`). */
static void print_pinned(FILE *out, const kt_operator *op)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        if (op->sizes[i].min == op->sizes[i].max)
            fprintf(out, "%s%s=%lld",
                    n++ ? ", "
                        : "pinned sizes (fixed by the operator; boundary-size "
                          "verification keeps them): ",
                    op->sizes[i].name, (long long)op->sizes[i].min);
    if (n)
        fputc('\n', out);
}

/* --check: the device settings the space lists, ktune's dimensions. */
static void print_settings_check(FILE *out, const kt_space *space)
{
    char what[2048];

    if (!kt_nvml_choices_any(&space->nvml))
        return;
    kt_nvml_choices_text(&space->nvml, what, sizeof what);
    fprintf(out,
            "  device settings (ktune's dimensions, in every variant, "
            "%llu combination(s)): %s\n",
            (unsigned long long)space->settings, what);
}

/* The counts as --check --json writes them (tuner/job_print.h); NULL
 * when out of memory. */
static json_t *check_json(const kt_job *job, const uint64_t *allowed,
                          int counted, uint64_t total, int estimated)
{
    json_t *variants = json_array();

    for (size_t s = 0; variants && s < job->space.num_slots; ++s) {
        const kt_space_variant *slot = &job->space.slots[s];
        json_t *v =
            json_pack("{s:s, s:I}", "id", job->op->variants[slot->variant].id,
                      "points", (json_int_t)slot->size);
        if (v && counted)
            json_object_set_new(v, "feasible",
                                json_integer((json_int_t)allowed[s]));
        if (!v || json_array_append_new(variants, v)) {
            json_decref(variants);
            variants = NULL;
        }
    }
    if (!variants)
        return NULL;
    return json_pack(
        "{s:s, s:s, s:{s:I, s:o, s:b, s:b}, s:o}", "kind", "ktune.check", "job",
        job->path, "space", "size", (json_int_t)job->space.size, "feasible",
        counted ? json_integer((json_int_t)total) : json_null(), "counted",
        counted, "estimated", estimated, "variants", variants);
}

/* One variant's line: its points, each parameter's values, and what its
 * require allows where that is fewer. */
static void print_slot(FILE *out, const kt_job *job, size_t s,
                       const uint64_t *allowed, int counted, const char *about)
{
    const kt_space_variant *slot = &job->space.slots[s];
    const kt_variant *v = &job->op->variants[slot->variant];

    fprintf(out, "  %-14s %llu point(s)", v->id,
            (unsigned long long)slot->size);
    for (uint32_t i = 0; i < slot->num_params; ++i) {
        fprintf(out, "%s%s {", i ? ", " : ": ", v->params[i].name);
        for (uint32_t k = 0; k < slot->count[i]; ++k) {
            char value[64];
            kt_param_format(&v->params[i], slot->values[i][k], value,
                            sizeof value);
            fprintf(out, "%s%s", k ? ", " : "", value);
        }
        fputc('}', out);
    }
    if (counted && allowed[s] != slot->size)
        fprintf(out, "; %s%llu after require", about,
                (unsigned long long)allowed[s]);
    fputc('\n', out);
}

/* --check's space: the Cartesian size, and for a declared operator the
 * points its require (and a space file's Conditions) allow, per variant
 * where it has one; no device is needed. The counts are made once, for
 * the text and (doc not NULL) the document. */
static void print_space_check(FILE *out, const kt_job *job, json_t **doc)
{
    uint64_t *allowed = calloc(job->space.num_slots + 1, sizeof *allowed);
    uint64_t total = 0;
    kt_err err;
    int estimated = 0;
    int counted =
        allowed && kt_space_count_required(&job->space, job->sizes, allowed,
                                           &total, &estimated, &err) == KT_S_OK;
    const char *about = estimated ? "about " : "";

    fprintf(out, "space %llu point(s) before device limits",
            (unsigned long long)job->space.size);
    if (counted)
        fprintf(out, ", %s%llu after require%s", about,
                (unsigned long long)total,
                estimated ? " (estimated from random points: too many to "
                            "count each in seconds)"
                          : "");
    fputs(":\n", out);
    for (size_t s = 0; s < job->space.num_slots; ++s)
        print_slot(out, job, s, allowed, counted, about);
    print_settings_check(out, &job->space);
    if (doc)
        *doc = check_json(job, allowed, counted, total, estimated);
    free(allowed);
}

void kt_job_print_check(FILE *out, const kt_job *job, json_t **doc)
{
    char sizes[256], screen[48] = "";
    kt_format_sizes(job->op, job->sizes, sizes, sizeof sizes);
    fprintf(out, "%s: %s  %s, input seed %llu\n", job->path, job->spec, sizes,
            (unsigned long long)job->input_seed);
    print_pinned(out, job->op);
    if (job->num_sweep > 1) {
        fprintf(out, "sweep of %zu sizes, one search each:", job->num_sweep);
        for (size_t i = 0; i < job->num_sweep; ++i) {
            kt_format_sizes(job->op, job->sweep[i], sizes, sizeof sizes);
            fprintf(out, "%s %s", i ? "," : "", sizes);
        }
        fputc('\n', out);
    }
    print_space_check(out, job, doc);
    fprintf(out,
            "strategy %s%s%s, seed %llu, max_evals %zu, max_seconds %g, "
            "finalists %zu, min_gain %g, objective %s\n",
            job->strategy_alias ? job->strategy_alias->name : "",
            job->strategy_alias ? " -> " : "", job->strategy->name,
            (unsigned long long)job->seed, job->max_evals, job->max_seconds,
            job->finalists, job->min_gain, kt_objective_name(job->objective));
    if (job->protocol.screen_samples)
        snprintf(screen, sizeof screen, ", screen_samples %zu",
                 job->protocol.screen_samples);
    fprintf(out,
            "measure warmups %d, samples %zu..%zu, time %g..%g s, noise %g, "
            "cache %s, race %g%s, verify on the %s\n",
            job->protocol.warmups, job->protocol.min_samples,
            job->protocol.max_samples, job->protocol.min_time_s,
            job->protocol.max_time_s, job->protocol.target_noise,
            kt_cache_mode_name(job->protocol.cache), job->protocol.race, screen,
            job->verify_host ? "host" : "device");
    fprintf(out, "journal %s\n", job->journal[0] ? job->journal : "none");
    if (job->metrics.points != KT_PROFILING_OFF) {
        fprintf(out, "metrics %s",
                kt_profiling_points_name(job->metrics.points));
        if (job->metrics.points == KT_PROFILING_TOP)
            fprintf(out, " %zu", job->metrics.top);
        fprintf(out, ", %zu metric(s), %zu raw counter(s)%s\n",
                job->metrics.set.num_items,
                job->metrics.counters ? job->metrics.set.num_raw : 0,
                job->metrics.counters ? "" : " (kernel facts only)");
    }
}
