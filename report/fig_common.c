// SPDX-License-Identifier: Apache-2.0
/* What the chart sections share: the device's ceilings, the variants'
 * colours, ranking and derived bandwidth. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/diagnose.h"
#include "report/figures.h"
#include "report/plot.h"

static void add_variant(kt_fig_ctx *c, const char *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < c->num_variants; ++i)
        if (strcmp(c->variants[i], v) == 0)
            return;
    if (c->num_variants < KT_FIG_MAX_VARIANTS)
        c->variants[c->num_variants++] = v;
}

/* A number from the calibration, else from the device record. */
static double either(const json_t *a, const json_t *b, const char *key)
{
    double v = kt_src_num(a, key);
    return isfinite(v) && v > 0 ? v : kt_src_num(b, key);
}

void kt_fig_ctx_init(kt_fig_ctx *c, FILE *out, const kt_sources *src)
{
    const json_t *space, *x, *rows;
    size_t i;
    double measured;

    memset(c, 0, sizeof *c);
    c->out = out;
    c->src = src;
    c->env = kt_sources_environment(src);
    c->device = json_object_get(c->env, "device");
    c->calib = json_object_get(c->env, "calibration");
    if (!json_is_object(c->calib))
        c->calib = NULL;
    c->copy_gbs = kt_src_num(c->calib, "copy_gbs");
    c->peak_bw_gbs = either(c->calib, c->device, "peak_bw_gbs");
    c->l2_bytes = either(c->calib, c->device, "l2_bytes");
    /* A calibration that measures the compute ceiling records it as
     * compute_gflops; until then the FP32 peak is the datasheet's. */
    measured = kt_src_num(c->calib, "compute_gflops");
    if (isfinite(measured) && measured > 0) {
        c->peak_gflops = measured;
        c->gflops_measured = 1;
    } else {
        double major = kt_src_num(c->device, "cc_major");
        double minor = kt_src_num(c->device, "cc_minor");
        /* Cast only what an int holds. */
        int lanes = major >= 0 && major < 100 && minor >= 0 && minor < 100
                        ? kt_fp32_lanes_per_sm((int)major, (int)minor)
                        : 0;
        double sms = kt_src_num(c->device, "sm_count");
        double mhz = kt_src_num(c->device, "sm_clock_mhz");
        c->peak_gflops = lanes > 0 && sms > 0 && mhz > 0
                             ? 2.0 * lanes * sms * mhz / 1e3
                             : NAN;
    }
    space = json_object_get(src->header, "space");
    json_array_foreach (json_object_get(space, "variants"), i, x)
        add_variant(c, kt_src_text(x, "id", NULL));
    rows = json_object_get(src->compare, "variants");
    json_array_foreach ((json_t *)rows, i, x)
        add_variant(c, kt_src_text(x, "variant", NULL));
    for (i = 0; i < src->num_points; ++i)
        add_variant(c, src->points[i].variant);
}

const char *kt_fig_variant_color(const kt_fig_ctx *c, const char *variant)
{
    for (size_t i = 0; i < c->num_variants; ++i)
        if (strcmp(c->variants[i], variant) == 0)
            return kt_plot_color(i);
    return kt_plot_color(c->num_variants);
}

static int by_median(const void *a, const void *b)
{
    const kt_src_point *x = *(const kt_src_point *const *)a;
    const kt_src_point *y = *(const kt_src_point *const *)b;
    if (x->kernel.median != y->kernel.median)
        return x->kernel.median < y->kernel.median ? -1 : 1;
    return x < y ? -1 : x > y; /* stable: first seen first */
}

const kt_src_point **kt_fig_ranked(const kt_sources *s, size_t *count)
{
    const kt_src_point **r = calloc(s->num_points + 1, sizeof *r);
    size_t n = 0;
    if (!r) {
        *count = 0;
        return NULL;
    }
    for (size_t i = 0; i < s->num_points; ++i)
        if (s->points[i].ok)
            r[n++] = &s->points[i];
    qsort(r, n, sizeof *r, by_median);
    *count = n;
    return r;
}

double kt_fig_bandwidth(const kt_fig_ctx *c, double median_us)
{
    const kt_work *w = &c->src->work;
    if (!c->src->have_work || !(median_us > 0))
        return NAN;
    return (w->bytes_read + w->bytes_written) / (median_us * 1e-6) / 1e9;
}
