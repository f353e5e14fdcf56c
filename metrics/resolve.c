// SPDX-License-Identifier: Apache-2.0
#include "metrics/resolve.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "core/suggest.h"

static int ident_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

kt_status kt_metric_name_check(const char *name, kt_err *err)
{
    const char *dot = strchr(name, '.'), *sep = strstr(name, "__");
    size_t len = strlen(name);

    if (len == 0)
        return kt_err_set(err, KT_S_INPUT, "empty metric name");
    if (len >= KT_METRIC_NAME_MAX)
        return kt_err_set(err, KT_S_INPUT,
                          "metric '%.40s...': longer than %d characters", name,
                          KT_METRIC_NAME_MAX - 1);
    for (const char *p = name; *p; ++p)
        if (!ident_char((unsigned char)*p) && *p != '.')
            return kt_err_set(err, KT_S_INPUT,
                              "metric '%s': character '%c' at %zu; raw counter "
                              "names use lowercase letters, digits, '_' and "
                              "'.'",
                              name, *p, (size_t)(p - name) + 1);
    if (!sep || (dot && sep > dot) || sep == name || sep[2] == '\0' ||
        sep[2] == '.')
        return kt_err_set(err, KT_S_INPUT,
                          "metric '%s': a raw counter name starts with "
                          "UNIT__COUNTER, e.g. dram__bytes_read.sum",
                          name);
    if (!dot)
        return kt_err_set(err, KT_S_INPUT,
                          "metric '%s': no rollup or ratio suffix; write e.g. "
                          "%s.sum, %s.avg or %s.ratio",
                          name, name, name, name);
    for (const char *p = dot; *p; ++p)
        if (*p == '.' && (p[1] == '.' || p[1] == '\0'))
            return kt_err_set(err, KT_S_INPUT,
                              "metric '%s': empty suffix after '.'", name);
    return KT_S_OK;
}

static size_t add_raw(kt_metric_set *set, const char *raw, kt_err *err,
                      kt_status *rc)
{
    for (size_t i = 0; i < set->num_raw; ++i)
        if (strcmp(set->raw[i], raw) == 0)
            return i;
    if (set->num_raw == KT_METRICS_RAW_MAX) {
        *rc = kt_err_set(err, KT_S_INPUT, "more than %d raw counters requested",
                         KT_METRICS_RAW_MAX);
        return 0;
    }
    snprintf(set->raw[set->num_raw], KT_METRIC_NAME_MAX, "%s", raw);
    return set->num_raw++;
}

static kt_status add_item(kt_metric_set *set, const char *name,
                          const kt_metric_def *def, kt_err *err)
{
    kt_metric_item *item;
    kt_status rc = KT_S_OK;

    for (size_t i = 0; i < set->num_items; ++i)
        if (strcmp(set->items[i].name, name) == 0)
            return KT_S_OK;
    if (set->num_items == KT_METRICS_MAX)
        return kt_err_set(err, KT_S_INPUT, "more than %d metrics requested",
                          KT_METRICS_MAX);
    item = &set->items[set->num_items];
    memset(item, 0, sizeof *item);
    snprintf(item->name, sizeof item->name, "%s", name);
    item->def = def;
    if (!def) {
        item->raw[0] = add_raw(set, name, err, &rc);
        item->num_raw = 1;
    } else if (def->kind == KT_MK_COUNTER) {
        for (size_t r = 0; r < 2 && def->raw[r] && !rc; ++r)
            item->raw[item->num_raw++] = add_raw(set, def->raw[r], err, &rc);
    }
    if (!rc)
        ++set->num_items;
    return rc;
}

/* A catalog name is close when it holds every word of the name
 * ("dram_read" ~ "dram_bytes_read"), contains the name, or is within a
 * third of the name's length in edits of it or of one of its
 * '_'-separated tails ("occupncy" ~ "achieved_occupancy"). */
static int words_in(const char *name, const char *candidate)
{
    char buf[KT_METRIC_NAME_MAX], *save = NULL;
    int words = 0;

    snprintf(buf, sizeof buf, "%s", name);
    for (char *w = strtok_r(buf, "_", &save); w;
         w = strtok_r(NULL, "_", &save)) {
        if (strlen(w) < 2 || !strstr(candidate, w))
            return 0;
        ++words;
    }
    return words >= 2;
}

static int close_to(const char *name, const char *candidate)
{
    size_t limit = strlen(name) / 3 + 1;

    if (words_in(name, candidate))
        return 1;

    if (strlen(name) >= 3 && strstr(candidate, name))
        return 1;
    for (const char *tail = candidate; tail; tail = strchr(tail + 1, '_')) {
        const char *t = *tail == '_' ? tail + 1 : tail;
        if (kt_edit_distance(name, t) <= limit)
            return 1;
    }
    return 0;
}

static kt_status unknown_name(const char *name, kt_err *err)
{
    const char *names[KT_M_COUNT];
    char hint[768] = "";
    size_t count, matches = 0;
    const kt_metric_def *cat = kt_metric_catalog(&count);

    for (size_t i = 0; i < count; ++i)
        if (close_to(name, cat[i].name))
            names[matches++] = cat[i].name;
    if (matches) {
        for (size_t i = 0; i < matches; ++i) {
            size_t used = strlen(hint);
            snprintf(hint + used, sizeof hint - used, "%s'%s'",
                     i ? " or " : "; did you mean ", names[i]);
        }
        strncat(hint, "?", sizeof hint - strlen(hint) - 1);
    } else {
        for (size_t i = 0; i < count; ++i)
            names[i] = cat[i].name;
        kt_suggest(name, names, count, hint, sizeof hint);
    }
    return kt_err_set(err, KT_S_INPUT,
                      "unknown metric '%s'%s (catalog: 'ktune profile "
                      "--list-metrics'; raw counters are written "
                      "UNIT__COUNTER.ROLLUP)",
                      name, hint);
}

kt_status kt_metrics_resolve(const char *const *names, size_t n,
                             int with_defaults, kt_metric_set *out, kt_err *err)
{
    size_t count;
    const kt_metric_def *cat = kt_metric_catalog(&count);
    kt_status rc;

    memset(out, 0, sizeof *out);
    for (size_t i = 0; with_defaults && i < count; ++i)
        if (cat[i].in_default &&
            (rc = add_item(out, cat[i].name, &cat[i], err)))
            return rc;
    for (size_t i = 0; i < n; ++i) {
        const kt_metric_def *def = kt_metric_find(names[i]);
        if (!def) {
            /* A name without UNIT__ is meant as a catalog name: suggest
             * catalog entries, not counter syntax. */
            if (!strstr(names[i], "__"))
                return unknown_name(names[i], err);
            if ((rc = kt_metric_name_check(names[i], err)))
                return rc;
        }
        if ((rc = add_item(out, names[i], def, err)))
            return rc;
    }
    return KT_S_OK;
}

kt_status kt_metrics_resolve_list(const char *list, int with_defaults,
                                  kt_metric_set *out, kt_err *err)
{
    char **items = NULL;
    size_t n = 0;
    kt_status rc;

    if (!list || !*list)
        return kt_metrics_resolve(NULL, 0, with_defaults, out, err);
    if ((rc = kt_parse_list(list, &items, &n, err)))
        return rc;
    rc = kt_metrics_resolve((const char *const *)items, n, with_defaults, out,
                            err);
    free(items);
    return rc;
}

size_t kt_metric_set_raw_names(const kt_metric_set *set,
                               const char *raw_names[KT_METRICS_RAW_MAX])
{
    for (size_t i = 0; i < set->num_raw; ++i)
        raw_names[i] = set->raw[i];
    return set->num_raw;
}

void kt_metric_set_values(const kt_metric_set *set, const double *raw,
                          double *item_values, double by_id[KT_M_COUNT])
{
    if (by_id)
        for (size_t i = 0; i < KT_M_COUNT; ++i)
            by_id[i] = NAN;
    for (size_t k = 0; k < set->num_items; ++k) {
        const kt_metric_item *item = &set->items[k];
        double v = NAN, r[2] = {NAN, NAN};
        for (size_t j = 0; j < item->num_raw; ++j)
            r[j] = raw ? raw[item->raw[j]] : NAN;
        if (!item->def)
            v = r[0];
        else if (item->def->kind == KT_MK_COUNTER)
            v = kt_metric_compute(item->def, r);
        if (item_values)
            item_values[k] = v;
        if (by_id && item->def)
            by_id[item->def->id] = v;
    }
}
