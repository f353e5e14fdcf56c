/* kt_plugin_bench: every variant of one built-in operator at its best found
 * configuration, measured side by side with the reference variant (cublas,
 * cub, memcpy) in interleaved rounds, in one process on one GPU.
 *
 *   kt_plugin_bench PLUGIN:OPERATOR NAME=VALUE... [--reference ID]
 *                   [--budget N] [--top K] [--json FILE]
 *
 * For each variant: its feasible points (all of them, or N drawn at random
 * when there are more, the default always included) are verified at the
 * requested size and screened with a short protocol; the best K and their
 * one-step neighbours are measured again; the best of those per variant and
 * the reference are then measured together under ktune's default protocol
 * (cold L2, clock probe, 0.5% noise target) with at least 15 samples and
 * 30 ms of GPU time per target. In spaces of more than 64 points, points
 * whose grid cannot fill the GPU are not screened. The speed-up
 * against the reference is the median of the per-round time ratios with its
 * 95% interval, so drift between rounds cancels.
 *
 * This is the benchmark behind the goals until `ktune compare`
 * exists; it is a tool for the H200 run (bench_h200.sh), not a test.
 * Prints a Markdown table; --json writes every row with its point and raw
 * samples. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/derive.h"
#include "core/envrec.h"
#include "core/evaluator.h"
#include "core/feasible.h"
#include "core/instance.h"
#include "core/loader.h"
#include "core/param.h"
#include "core/parse.h"
#include "core/result_json.h"
#include "core/rng.h"
#include "core/stats.h"

typedef struct args {
    const char *spec, *reference, *json_path;
    int64_t sizes[KT_MAX_SIZES];
    size_t budget, top;
} args;

typedef struct scored {
    kt_point pt;
    double median; /* us; INFINITY when it did not verify */
} scored;

/* The winner of one variant, measured in the final round. */
typedef struct row {
    uint32_t variant;
    kt_point pt;
    size_t screened;
    kt_eval_result result;
} row;

static void usage(void)
{
    fputs("usage: kt_plugin_bench PLUGIN:OPERATOR NAME=VALUE... "
          "[--reference ID] [--budget N] [--top K] [--json FILE]\n",
          stderr);
}

static int parse_args(int argc, char **argv, args *a, const kt_registry *reg,
                      const kt_operator **op_out,
                      const kt_loaded_plugin **lp_out)
{
    const kt_operator *op;
    kt_err err;
    int64_t v;

    memset(a, 0, sizeof *a);
    a->budget = 1000;
    a->top = 4;
    if (argc < 2) {
        usage();
        return 2;
    }
    a->spec = argv[1];
    if (kt_registry_resolve(reg, a->spec, lp_out, &op, &err)) {
        fprintf(stderr, "kt_plugin_bench: %s\n", err.msg);
        return 2;
    }
    *op_out = op;
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        a->sizes[i] = op->sizes[i].default_value;
    for (int i = 2; i < argc; ++i) {
        char buf[256], *name, *value;
        size_t index;
        if (!strcmp(argv[i], "--reference") && i + 1 < argc) {
            a->reference = argv[++i];
        } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
            a->json_path = argv[++i];
        } else if ((!strcmp(argv[i], "--budget") ||
                    !strcmp(argv[i], "--top")) &&
                   i + 1 < argc) {
            if (kt_parse_i64(argv[i + 1], argv[i], &v, &err) || v < 1) {
                fprintf(stderr, "kt_plugin_bench: %s: expected a count >= 1\n",
                        argv[i]);
                return 2;
            }
            *(!strcmp(argv[i], "--top") ? &a->top : &a->budget) = (size_t)v;
            ++i;
        } else {
            snprintf(buf, sizeof buf, "%s", argv[i]);
            if (kt_parse_assignment(buf, &name, &value, &err) ||
                kt_operator_find_size(op, name, &index, &err) ||
                kt_parse_i64(value, name, &a->sizes[index], &err)) {
                fprintf(stderr, "kt_plugin_bench: %s: %s\n", argv[i], err.msg);
                usage();
                return 2;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------ candidates */

typedef struct point_list {
    kt_point *pts;
    size_t count, cap;
} point_list;

static void list_push(point_list *l, const kt_point *pt)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        kt_point *grown = realloc(l->pts, cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "kt_plugin_bench: out of memory\n");
            exit(1);
        }
        l->pts = grown;
        l->cap = cap;
    }
    l->pts[l->count++] = *pt;
}

/* Appends pt unless the list has it already. */
static void list_add(point_list *l, const kt_point *pt)
{
    for (size_t i = 0; i < l->count; ++i)
        if (kt_point_equal(&l->pts[i], pt))
            return;
    list_push(l, pt);
}

/* Every feasible point of the variant, the default first. */
static void feasible_points(const kt_operator *op, uint32_t variant,
                            const kt_problem *problem, point_list *out)
{
    const kt_variant *v = &op->variants[variant];
    size_t index[KT_MAX_PARAMS] = {0};
    kt_point def, pt;
    kt_point_default(op, variant, &def);
    pt = def;
    if (kt_point_feasible(op, problem, &def, NULL, NULL) == KT_S_OK)
        list_push(out, &def);
    for (;;) {
        uint32_t k;
        for (k = 0; k < v->num_params; ++k)
            pt.values[k] = kt_param_value_at(&v->params[k], index[k]);
        if (!kt_point_equal(&pt, &def) &&
            kt_point_feasible(op, problem, &pt, NULL, NULL) == KT_S_OK)
            list_push(out, &pt);
        for (k = 0; k < v->num_params; ++k) {
            if (++index[k] < kt_param_count(&v->params[k]))
                break;
            index[k] = 0;
        }
        if (k == v->num_params)
            return;
    }
}

/* In a large space, points whose grid has fewer threads than two warps per
 * SM cannot fill the GPU; screening them costs the most time (one SM
 * streaming a whole matrix) for no chance of winning. The default stays. */
static void drop_tiny_grids(point_list *l, const kt_operator *op,
                            const kt_problem *problem)
{
    size_t kept = 1;
    uint64_t floor = 64 * (uint64_t)problem->device->sm_count;
    if (l->count <= 64)
        return;
    for (size_t i = 1; i < l->count; ++i) {
        kt_shape s;
        uint64_t threads;
        kt_point_feasible(op, problem, &l->pts[i], &s, NULL);
        threads = (uint64_t)s.grid[0] * s.grid[1] * s.grid[2] * s.block[0] *
                  s.block[1] * s.block[2];
        if (threads >= floor)
            l->pts[kept++] = l->pts[i];
    }
    l->count = kept;
}

/* Keeps the default (index 0) and `keep - 1` others drawn at random. */
static void subsample(point_list *l, size_t keep, uint64_t seed)
{
    kt_rng rng;
    if (l->count <= keep)
        return;
    kt_rng_seed(&rng, seed);
    for (size_t i = 1; i < keep; ++i) {
        size_t j = i + (size_t)kt_rng_below(&rng, l->count - i);
        kt_point t = l->pts[i];
        l->pts[i] = l->pts[j];
        l->pts[j] = t;
    }
    l->count = keep;
}

/* ------------------------------------------------------------ measuring */

static kt_protocol screen_protocol(void)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    p.warmups = 1;
    p.min_samples = 3;
    p.max_samples = 5;
    p.min_time_s = 0.0;
    p.max_time_s = 1.0;
    p.probe_ns = 0;
    return p;
}

static kt_protocol refine_protocol(void)
{
    kt_protocol p;
    kt_protocol_defaults(&p);
    p.min_samples = 10;
    p.max_samples = 40;
    p.min_time_s = 0.0;
    p.max_time_s = 5.0;
    p.target_noise = 0.01;
    return p;
}

/* Screens pts in chunks; scores[i].median is INFINITY for a point that did
 * not verify (the first few reasons are printed). Returns non-zero when
 * the evaluator cannot go on. */
static int screen(kt_evaluator *ev, const kt_operator *op, const kt_point *pts,
                  size_t n, const kt_protocol *p, scored *scores)
{
    enum { CHUNK = 48 };
    kt_eval_result r[CHUNK];
    static int reported;
    kt_err err;
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t m = n - at < CHUNK ? n - at : CHUNK;
        if (ev->ops->evaluate(ev, pts + at, m, p, r, &err)) {
            fprintf(stderr, "kt_plugin_bench: %s\n", err.msg);
            return 1;
        }
        for (size_t i = 0; i < m; ++i) {
            scores[at + i].pt = pts[at + i];
            scores[at + i].median = r[i].status == KT_EVAL_OK
                                        ? r[i].timing.kernel.median
                                        : INFINITY;
            if (r[i].status != KT_EVAL_OK && r[i].status != KT_EVAL_INVALID &&
                reported++ < 10) {
                char shown[512];
                kt_point_format(op, &pts[at + i], shown, sizeof shown);
                fprintf(stderr, "kt_plugin_bench: %s: %s: %s\n", shown,
                        kt_eval_status_name(r[i].status), r[i].reason);
            }
            kt_eval_result_free(&r[i]);
        }
    }
    return 0;
}

static int by_median(const void *a, const void *b)
{
    double x = ((const scored *)a)->median, y = ((const scored *)b)->median;
    return (x > y) - (x < y);
}

/* Adds the one-step neighbours (one parameter one value up or down) of pt
 * that are feasible. */
static void add_neighbours(const kt_operator *op, const kt_problem *problem,
                           const kt_point *pt, point_list *out)
{
    const kt_variant *v = &op->variants[pt->variant];
    for (uint32_t k = 0; k < v->num_params; ++k) {
        long at = kt_param_index_of(&v->params[k], pt->values[k]);
        for (int d = -1; d <= 1; d += 2) {
            kt_point nb = *pt;
            long to = at + d;
            if (at < 0 || to < 0 || (size_t)to >= kt_param_count(&v->params[k]))
                continue;
            nb.values[k] = kt_param_value_at(&v->params[k], (size_t)to);
            if (kt_point_feasible(op, problem, &nb, NULL, NULL) == KT_S_OK)
                list_add(out, &nb);
        }
    }
}

/* The best point of a variant: screen, then the top K and their
 * neighbours again under the refining protocol. */
static int best_of_variant(kt_evaluator *ev, const kt_operator *op,
                           uint32_t variant, const kt_problem *problem,
                           const args *a, kt_point *best, size_t *screened)
{
    point_list all = {0}, again = {0};
    scored *scores = NULL, *scores2 = NULL;
    kt_protocol sp = screen_protocol(), rp = refine_protocol();
    int rc = 1;

    feasible_points(op, variant, problem, &all);
    drop_tiny_grids(&all, op, problem);
    subsample(&all, a->budget, 0x6b74756e65ull + variant);
    *screened = all.count;
    if (all.count == 0)
        goto done;
    scores = calloc(all.count, sizeof *scores);
    if (!scores || screen(ev, op, all.pts, all.count, &sp, scores))
        goto done;
    qsort(scores, all.count, sizeof *scores, by_median);
    if (!isfinite(scores[0].median)) {
        rc = 2; /* nothing verified */
        goto done;
    }
    for (size_t i = 0; i < a->top && i < all.count; ++i) {
        if (!isfinite(scores[i].median))
            break;
        list_add(&again, &scores[i].pt);
        add_neighbours(op, problem, &scores[i].pt, &again);
    }
    scores2 = calloc(again.count, sizeof *scores2);
    if (!scores2 || screen(ev, op, again.pts, again.count, &rp, scores2))
        goto done;
    qsort(scores2, again.count, sizeof *scores2, by_median);
    *best = isfinite(scores2[0].median) ? scores2[0].pt : scores[0].pt;
    *screened += again.count;
    rc = 0;
done:
    free(all.pts);
    free(again.pts);
    free(scores);
    free(scores2);
    return rc;
}

/* ------------------------------------------------------------ reporting */

static void print_table(const kt_operator *op, const char *spec,
                        const char *sizes_text, const row *rows, size_t n,
                        long ref, const kt_work *work,
                        const kt_calibration *calib, int have_calib,
                        const char *gpu)
{
    printf("\n### %s  %s  on %s\n\n", spec, sizes_text, gpu);
    if (have_calib)
        printf("copy ceiling %.0f GB/s (measured), launch floor %.1f us; "
               "cold L2, kernel time per sample\n\n",
               calib->copy_gbs, calib->launch_floor_us);
    printf("| variant | best configuration | median us | 95%% CI | GB/s | "
           "%% of copy | vs %s | screened |\n",
           ref >= 0 ? op->variants[rows[ref].variant].id : "-");
    printf("|---|---|---:|---|---:|---:|---|---:|\n");
    for (size_t i = 0; i < n; ++i) {
        const kt_eval_result *r = &rows[i].result;
        char shown[512], speed[96] = "-";
        kt_derived d;
        kt_point_format(op, &rows[i].pt, shown, sizeof shown);
        if (r->status != KT_EVAL_OK) {
            printf("| %s | %s | %s | | | | | %zu |\n",
                   op->variants[rows[i].variant].id, shown,
                   kt_eval_status_name(r->status), rows[i].screened);
            continue;
        }
        kt_derive(work, r->timing.kernel.median,
                  have_calib ? calib->copy_gbs : 0, 0, &d);
        if (ref >= 0 && (long)i != ref &&
            rows[ref].result.status == KT_EVAL_OK) {
            kt_ratio q;
            kt_stats_paired_ratio(
                rows[ref].result.timing.samples_us, r->timing.samples_us,
                r->timing.num_rounds < rows[ref].result.timing.num_rounds
                    ? r->timing.num_rounds
                    : rows[ref].result.timing.num_rounds,
                &q);
            /* q.ratio = t_variant / t_reference: speed-up is its inverse. */
            if (q.n)
                snprintf(speed, sizeof speed, "%.3fx [%.3f, %.3f]%s",
                         1.0 / q.ratio, 1.0 / q.hi, 1.0 / q.lo,
                         kt_stats_verdict(&q, 0.01) < 0   ? " faster"
                         : kt_stats_verdict(&q, 0.01) > 0 ? " slower"
                                                          : " tie");
        } else if ((long)i == ref) {
            snprintf(speed, sizeof speed, "reference");
        }
        if (work->bytes_read + work->bytes_written > 0)
            printf("| %s | %s | %.2f | [%.2f, %.2f] | %.0f | %.1f | %s | "
                   "%zu |\n",
                   op->variants[rows[i].variant].id, shown,
                   r->timing.kernel.median, r->timing.kernel.ci_lo,
                   r->timing.kernel.ci_hi, d.bandwidth_gbs, d.pct_of_copy,
                   speed, rows[i].screened);
        else
            printf("| %s | %s | %.2f | [%.2f, %.2f] | - | - | %s | %zu |\n",
                   op->variants[rows[i].variant].id, shown,
                   r->timing.kernel.median, r->timing.kernel.ci_lo,
                   r->timing.kernel.ci_hi, speed, rows[i].screened);
    }
    fflush(stdout);
}

/* One line for the run's summary: the fastest variant against the
 * reference. */
static void print_summary(const kt_operator *op, const char *spec,
                          const char *sizes_text, const row *rows, size_t n,
                          long ref, const kt_work *work)
{
    long best = -1;
    kt_derived d;
    for (size_t i = 0; i < n; ++i)
        if ((long)i != ref && rows[i].result.status == KT_EVAL_OK &&
            (best < 0 || rows[i].result.timing.kernel.median <
                             rows[best].result.timing.kernel.median))
            best = (long)i;
    if (best < 0) {
        printf("summary: %s %s: no variant verified\n", spec, sizes_text);
        return;
    }
    kt_derive(work, rows[best].result.timing.kernel.median, 0, 0, &d);
    printf("summary: %s %s: best %s %.2f us %.0f GB/s", spec, sizes_text,
           op->variants[rows[best].variant].id,
           rows[best].result.timing.kernel.median, d.bandwidth_gbs);
    if (ref >= 0 && rows[ref].result.status == KT_EVAL_OK) {
        kt_ratio q;
        const kt_timing *a = &rows[ref].result.timing,
                        *b = &rows[best].result.timing;
        kt_stats_paired_ratio(
            a->samples_us, b->samples_us,
            a->num_rounds < b->num_rounds ? a->num_rounds : b->num_rounds, &q);
        kt_derive(work, a->kernel.median, 0, 0, &d);
        printf("; %s %.2f us %.0f GB/s; speed-up %.3fx [%.3f, %.3f]",
               op->variants[rows[ref].variant].id, a->kernel.median,
               d.bandwidth_gbs, q.n ? 1.0 / q.ratio : 0.0,
               q.n ? 1.0 / q.hi : 0.0, q.n ? 1.0 / q.lo : 0.0);
    }
    printf("\n");
    fflush(stdout);
}

static int write_json(const char *path, const kt_operator *op, const args *a,
                      const row *rows, size_t n, long ref, kt_evaluator *ev,
                      const kt_calibration *calib, int have_calib)
{
    json_t *root = json_object(), *sizes = json_object(), *list = json_array();
    const kt_work *work = ev->ops->work(ev);
    int rc;
    for (uint32_t i = 0; i < op->num_sizes; ++i)
        json_object_set_new(sizes, op->sizes[i].name,
                            json_integer(a->sizes[i]));
    for (size_t i = 0; i < n; ++i) {
        json_t *r = kt_eval_result_to_json(op, &rows[i].pt, &rows[i].result, 1);
        kt_derived d;
        memset(&d, 0, sizeof d);
        if (rows[i].result.status == KT_EVAL_OK)
            kt_derive(work, rows[i].result.timing.kernel.median,
                      have_calib ? calib->copy_gbs : 0,
                      have_calib ? calib->peak_bw_gbs : 0, &d);
        json_object_set_new(r, "screened",
                            json_integer((json_int_t)rows[i].screened));
        json_object_set_new(r, "bandwidth_gbs", json_real(d.bandwidth_gbs));
        json_object_set_new(r, "pct_of_copy", json_real(d.pct_of_copy));
        json_object_set_new(r, "reference", json_boolean((long)i == ref));
        json_array_append_new(list, r);
    }
    json_object_set_new(root, "kind", json_string("ktune.plugin_bench"));
    json_object_set_new(root, "operator", json_string(a->spec));
    json_object_set_new(root, "sizes", sizes);
    json_object_set_new(root, "work",
                        json_pack("{s:f,s:f,s:f}", "bytes_read",
                                  work->bytes_read, "bytes_written",
                                  work->bytes_written, "flops", work->flops));
    json_object_set_new(root, "environment", ev->ops->environment(ev));
    if (have_calib)
        json_object_set_new(root, "calibration", kt_calib_to_json(calib));
    json_object_set_new(root, "rows", list);
    rc = json_dump_file(root, path, JSON_INDENT(1));
    json_decref(root);
    if (rc)
        fprintf(stderr, "kt_plugin_bench: cannot write %s\n", path);
    return rc ? 1 : 0;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    kt_registry reg;
    const kt_operator *op = NULL;
    const kt_loaded_plugin *lp = NULL;
    kt_evaluator *ev = NULL;
    kt_eval_spec es;
    kt_calibration calib;
    kt_problem problem;
    kt_point *finals = NULL;
    kt_eval_result *results = NULL;
    row *rows = NULL;
    size_t nrows = 0;
    long ref = -1;
    int have_calib = 0, rc = 1;
    char sizes_text[160];
    args a;
    kt_err err;

    kt_registry_init(&reg);
    kt_registry_load_dir(&reg, KT_BUILTIN_PLUGIN_DIR, 1);
    if ((rc = parse_args(argc, argv, &a, &reg, &op, &lp)))
        goto done;
    rc = 1;
    memset(&es, 0, sizeof es);
    es.plugin = lp;
    es.op = op;
    memcpy(es.sizes, a.sizes, sizeof es.sizes);
    es.seed = 1;
    es.check_boundaries = 0; /* the GPU tests verify the boundary sizes */
    es.log_level = KT_LOG_WARN;
    if (kt_local_open(&es, &ev, &err)) {
        fprintf(stderr, "kt_plugin_bench: %s\n", err.msg);
        rc = err.status == KT_S_NO_DEVICE ? 77 : 1;
        goto done;
    }
    if (ev->ops->calibration(ev, 0, &calib, &err) == KT_S_OK)
        have_calib = 1;
    else
        fprintf(stderr, "kt_plugin_bench: no calibration: %s\n", err.msg);
    memset(&problem, 0, sizeof problem);
    problem.struct_size = sizeof problem;
    problem.num_sizes = op->num_sizes;
    problem.sizes = a.sizes;
    problem.seed = 1;
    problem.device = ev->ops->device(ev);
    kt_format_sizes(op, a.sizes, sizes_text, sizeof sizes_text);

    rows = calloc(op->num_variants, sizeof *rows);
    finals = calloc(op->num_variants, sizeof *finals);
    results = calloc(op->num_variants, sizeof *results);
    if (!rows || !finals || !results)
        goto done;
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        row *r = &rows[nrows];
        int brc =
            best_of_variant(ev, op, v, &problem, &a, &r->pt, &r->screened);
        if (brc == 1)
            goto done;
        if (brc == 2) {
            fprintf(stderr,
                    "kt_plugin_bench: %s: no point of '%s' verified at %s\n",
                    a.spec, op->variants[v].id, sizes_text);
            continue;
        }
        r->variant = v;
        if (a.reference && !strcmp(op->variants[v].id, a.reference))
            ref = (long)nrows;
        finals[nrows++] = r->pt;
        fprintf(stderr, "kt_plugin_bench: %s %s: best of %zu points found\n",
                a.spec, op->variants[v].id, r->screened);
    }
    if (a.reference && ref < 0)
        fprintf(stderr, "kt_plugin_bench: reference '%s' missing or failed\n",
                a.reference);
    {
        /* ktune's defaults (cold L2, clock probe, 0.5% noise target) with
         * less GPU time per target: every target is sampled in every round
         * until all are done, and a slow variant makes every round long. */
        kt_protocol p;
        kt_protocol_defaults(&p);
        p.min_samples = 15;
        p.max_samples = 2000;
        p.min_time_s = 0.03;
        p.max_time_s = 6.0;
        if (ev->ops->evaluate(ev, finals, nrows, &p, results, &err)) {
            fprintf(stderr, "kt_plugin_bench: %s\n", err.msg);
            goto done;
        }
        for (size_t i = 0; i < nrows; ++i)
            rows[i].result = results[i];
    }
    print_table(op, a.spec, sizes_text, rows, nrows, ref, ev->ops->work(ev),
                &calib, have_calib, ev->ops->device(ev)->name);
    print_summary(op, a.spec, sizes_text, rows, nrows, ref, ev->ops->work(ev));
    rc = a.json_path ? write_json(a.json_path, op, &a, rows, nrows, ref, ev,
                                  &calib, have_calib)
                     : 0;
done:
    for (size_t i = 0; rows && i < nrows; ++i)
        kt_eval_result_free(&rows[i].result);
    free(rows);
    free(finals);
    free(results);
    if (ev)
        ev->ops->close(ev);
    kt_registry_free(&reg);
    return rc;
}
