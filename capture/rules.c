// SPDX-License-Identifier: Apache-2.0
#include "capture/rules.h"

#include <iniparser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/iniloc.h"
#include "core/parse.h"

/* The names expressions read, in the order of the values array. */
static const char *const names[] = {
    "cap_grid_x",  "cap_grid_y", "cap_grid_z", "cap_block_x", "cap_block_y",
    "cap_block_z", "cap_smem",   "block_x",    "block_y",     "block_z"};
#define NUM_NAMES (sizeof names / sizeof names[0])
static const char *const block_keys[3] = {"block_x", "block_y", "block_z"};
static const char *const grid_keys[3] = {"grid_x", "grid_y", "grid_z"};

uint64_t kt_cap_round_up_grid(uint64_t grid, uint64_t block, uint64_t d)
{
    /* Both below 2^32: the product fits. */
    uint64_t threads = grid * block, g = threads / d + (threads % d != 0);
    return g > UINT32_MAX ? UINT32_MAX : g;
}

static int has_value(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; ++i)
        if (v[i] == x)
            return 1;
    return 0;
}

/* Keeps values in ascending order, so the space lists them that way. */
static void add_value(kt_cap_rules *r, int d, int64_t x)
{
    size_t n = r->counts[d], i = n;
    if (has_value(r->values[d], n, x) || n >= KT_CAP_MAX_VALUES)
        return;
    while (i > 0 && r->values[d][i - 1] > x) {
        r->values[d][i] = r->values[d][i - 1];
        --i;
    }
    r->values[d][i] = x;
    r->counts[d] = n + 1;
}

kt_status kt_cap_rules_default(const kt_capture *c, kt_cap_rules *r,
                               kt_err *err)
{
    int used[3], num_used = 0;
    (void)err;
    memset(r, 0, sizeof *r);
    for (int d = 0; d < 3; ++d)
        num_used += used[d] = c->block[d] > 1 || c->grid[d] > 1;
    for (int d = 0; d < 3; ++d) {
        /* One dimension alone: below a warp a block wastes lanes. */
        int64_t lo = num_used == 1 ? 32 : 1;
        add_value(r, d, c->block[d]);
        for (int64_t b = lo; used[d] && b <= 1024; b *= 2)
            add_value(r, d, b);
    }
    return KT_S_OK;
}

void kt_cap_rules_free(kt_cap_rules *r)
{
    for (int d = 0; d < 3; ++d)
        kt_expr_free(r->grid[d]);
    kt_expr_free(r->smem);
    kt_expr_free(r->require);
    memset(r, 0, sizeof *r);
}

/* "32, 64, 2^8" or "32..1024" (the powers of two from 32 to 1024). */
static kt_status parse_values(const char *where, const char *text,
                              kt_cap_rules *r, int d, kt_err *err)
{
    char **items = NULL, lo[64], hi[64];
    size_t n = 0;
    int64_t a, b;
    const char *dots = strstr(text, "..");
    kt_status st = KT_S_OK;

    r->counts[d] = 0;
    if (dots) {
        snprintf(lo, sizeof lo, "%.*s", (int)(dots - text), text);
        snprintf(hi, sizeof hi, "%s", dots + 2);
        if ((st = kt_parse_i64(kt_parse_trim(lo), where, &a, err)) ||
            (st = kt_parse_i64(kt_parse_trim(hi), where, &b, err)))
            return st;
        if (a < 1 || b > 1024 || a > b)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: %s: expected a range inside 1..1024", where,
                              text);
        for (int64_t x = 1; x <= b; x *= 2)
            if (x >= a)
                add_value(r, d, x);
        return KT_S_OK;
    }
    if ((st = kt_parse_list(text, &items, &n, err)))
        return st;
    for (size_t i = 0; i < n && !st; ++i) {
        if ((st = kt_parse_i64(items[i], where, &a, err)))
            break;
        if (a < 1 || a > 1024 || r->counts[d] >= KT_CAP_MAX_VALUES)
            st = kt_err_set(err, KT_S_INPUT,
                            "%s: %s: expected at most 64 values, each 1 to "
                            "1024",
                            where, items[i]);
        else
            add_value(r, d, a);
    }
    free(items);
    return st;
}

static kt_status parse_expr(const char *where, const char *text, kt_expr **out,
                            kt_err *err)
{
    kt_status st = kt_expr_parse(text, names, NUM_NAMES, out, err);
    return st ? kt_err_prefix(err, "%s: ", where) : KT_S_OK;
}

/* One key of [geometry]. */
static kt_status apply_key(kt_cap_rules *r, const char *key, const char *val,
                           const char *where, kt_err *err)
{
    for (int d = 0; d < 3; ++d) {
        if (strcmp(key, block_keys[d]) == 0)
            return parse_values(where, val, r, d, err);
        if (strcmp(key, grid_keys[d]) == 0)
            return parse_expr(where, val, &r->grid[d], err);
    }
    if (strcmp(key, "smem") == 0)
        return parse_expr(where, val, &r->smem, err);
    if (strcmp(key, "require") == 0)
        return parse_expr(where, val, &r->require, err);
    return kt_err_set(err, KT_S_INPUT,
                      "%s: unknown key; expected block_x, block_y, block_z, "
                      "grid_x, grid_y, grid_z, smem or require",
                      where);
}

static kt_status check_sections(dictionary *ini, const char *file,
                                const kt_iniloc *loc, kt_err *err)
{
    int n = iniparser_getnsec(ini);
    for (int i = 0; i < n; ++i) {
        const char *s = iniparser_getsecname(ini, i);
        if (s && strcmp(s, "geometry") != 0)
            return kt_err_set(err, KT_S_INPUT,
                              "%s:%d: unknown section [%s]; a rules file "
                              "has [geometry] only",
                              file, kt_iniloc_line(loc, s, NULL), s);
    }
    return KT_S_OK;
}

static kt_status read_file(kt_cap_rules *r, dictionary *ini,
                           const kt_iniloc *loc, kt_err *err)
{
    int n = iniparser_getsecnkeys(ini, "geometry");
    const char **keys = n > 0 ? calloc((size_t)n, sizeof *keys) : NULL;
    char where[4400];
    kt_status st = check_sections(ini, r->file, loc, err);

    if (!st && n > 0 && !keys)
        st = kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (!st && n > 0)
        iniparser_getseckeys(ini, "geometry", keys);
    for (int i = 0; i < n && !st; ++i) {
        const char *key = keys[i] + strlen("geometry:");
        const char *val = iniparser_getstring(ini, keys[i], "");
        snprintf(where, sizeof where, "%s:%d: [geometry] %s", r->file,
                 kt_iniloc_line(loc, "geometry", key), key);
        st = apply_key(r, key, val, where, err);
    }
    free(keys);
    return st;
}

kt_status kt_cap_rules_load(const kt_capture *c, kt_cap_rules *r, kt_err *err)
{
    char file[4200];
    kt_iniloc loc = {0};
    dictionary *ini = NULL;
    kt_status st = kt_cap_rules_default(c, r, err);

    snprintf(file, sizeof file, "%s/%s", c->dir, KT_CAP_RULES_FILE);
    if (st || access(file, F_OK) != 0)
        return st;
    r->custom = 1;
    snprintf(r->file, sizeof r->file, "%s", file);
    if ((st = kt_iniloc_scan(file, &loc, err)))
        return st;
    if (!(ini = iniparser_load(file))) {
        st = kt_err_set(err, KT_S_INPUT, "%s: not an INI file", file);
        goto done;
    }
    st = read_file(r, ini, &loc, err);
    /* The captured shape is always a point: the default, the program's own
     * launch re-timed. */
    for (int d = 0; d < 3 && !st; ++d)
        add_value(r, d, c->block[d]);
done:
    if (ini)
        iniparser_freedict(ini);
    kt_iniloc_free(&loc);
    return st;
}

static void fill_values(const kt_capture *c, const int64_t block[3],
                        int64_t v[NUM_NAMES])
{
    for (int d = 0; d < 3; ++d) {
        v[d] = c->grid[d];
        v[3 + d] = c->block[d];
        v[7 + d] = block[d];
    }
    v[6] = c->dynamic_smem;
}

/* The default's range: 32 to 1024 threads, or the captured shape. */
static int default_ok(const kt_capture *c, const int64_t block[3], char *why,
                      size_t why_size)
{
    int64_t t = block[0] * block[1] * block[2];
    if (block[0] == c->block[0] && block[1] == c->block[1] &&
        block[2] == c->block[2])
        return 1;
    if (t >= 32 && t <= 1024)
        return 1;
    snprintf(why, why_size,
             "%lld threads per block: the default rule takes "
             "32 to 1024",
             (long long)t);
    return 0;
}

static kt_status eval_dims(const kt_cap_rules *r, const kt_capture *c,
                           const int64_t *v, const int64_t block[3],
                           uint32_t grid[3], kt_err *err)
{
    for (int d = 0; d < 3; ++d) {
        int64_t g;
        kt_status st;
        if (!r->grid[d]) {
            grid[d] = (uint32_t)kt_cap_round_up_grid(c->grid[d], c->block[d],
                                                     (uint64_t)block[d]);
            continue;
        }
        if ((st = kt_expr_eval(r->grid[d], v, &g, err)))
            return kt_err_prefix(err, "%s: [geometry] %s: ", r->file,
                                 grid_keys[d]);
        if (g < 1 || g > INT32_MAX)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: [geometry] %s = %s gives %lld at block "
                              "%lldx%lldx%lld, expected 1 to 2147483647",
                              r->file, grid_keys[d], kt_expr_text(r->grid[d]),
                              (long long)g, (long long)block[0],
                              (long long)block[1], (long long)block[2]);
        grid[d] = (uint32_t)g;
    }
    return KT_S_OK;
}

kt_status kt_cap_rules_shape(const kt_cap_rules *r, const kt_capture *c,
                             const int64_t block[3], uint32_t grid[3],
                             uint32_t *smem, int *ok, char *why,
                             size_t why_size, kt_err *err)
{
    int64_t v[NUM_NAMES], x;
    kt_status st;

    fill_values(c, block, v);
    *ok = 1;
    if (r->require) {
        if ((st = kt_expr_eval(r->require, v, &x, err)))
            return kt_err_prefix(err, "%s: [geometry] require: ", r->file);
        if (!x) {
            snprintf(why, why_size, "[geometry] require = %s is false",
                     kt_expr_text(r->require));
            *ok = 0;
            return KT_S_OK;
        }
    } else if (!default_ok(c, block, why, why_size)) {
        *ok = 0;
        return KT_S_OK;
    }
    if ((st = eval_dims(r, c, v, block, grid, err)))
        return st;
    *smem = c->dynamic_smem;
    if (r->smem) {
        if ((st = kt_expr_eval(r->smem, v, &x, err)))
            return kt_err_prefix(err, "%s: [geometry] smem: ", r->file);
        if (x < 0 || x > UINT32_MAX)
            return kt_err_set(err, KT_S_INPUT,
                              "%s: [geometry] smem = %s gives %lld, expected "
                              "0 to 4294967295 bytes",
                              r->file, kt_expr_text(r->smem), (long long)x);
        *smem = (uint32_t)x;
    }
    return KT_S_OK;
}

kt_status kt_cap_rules_check(const kt_cap_rules *r, const kt_capture *c,
                             size_t *allowed, kt_err *err)
{
    size_t n = r->counts[0] * r->counts[1] * r->counts[2];
    char why[256];
    kt_status st = KT_S_OK;

    *allowed = 0;
    for (size_t i = 0; i < n && !st; ++i) {
        int64_t block[3] = {r->values[0][i % r->counts[0]],
                            r->values[1][i / r->counts[0] % r->counts[1]],
                            r->values[2][i / r->counts[0] / r->counts[1]]};
        uint32_t grid[3], smem;
        int ok = 0;
        st = kt_cap_rules_shape(r, c, block, grid, &smem, &ok, why, sizeof why,
                                err);
        *allowed += !st && ok;
    }
    if (!st && *allowed == 0)
        st = kt_err_set(err, KT_S_INPUT,
                        "%s: no block shape is allowed: each of the %zu is "
                        "refused (the last: %s)",
                        r->custom ? r->file : "the default geometry rule", n,
                        why);
    return st;
}
