/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Variants and verification (include/ktune/ktune.h): the keys of
 * [variant.ID], the answers given as arrays, the tolerances.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libktune/session.h"

static int is_id(const char *s)
{
    if (!s || !*s || strlen(s) > 48 || strncmp(s, "ktune_", 6) == 0)
        return 0;
    for (; *s; ++s)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return 0;
    return 1;
}

/* The variant calls apply to; NULL (message set) before ktune_variant. */
static ktl_variant *current(ktune_session *s, const char *call)
{
    if (s->num_variants)
        return &s->variants[s->num_variants - 1];
    ktl_fail(s, KTUNE_E_INPUT,
             "%s: no variant yet; begin one with ktune_variant(session, id, "
             "kernel)",
             call);
    return NULL;
}

int ktune_variant(ktune_session *s, const char *id, const char *kernel)
{
    ktl_variant *grown, *v;

    if (!s)
        return KTUNE_E_INPUT;
    if (!is_id(id))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_variant: id '%s': expected letters, digits, "
                        "'_' or '-' (at most 48, not ktune_...)",
                        id ? id : "(null)");
    if (!ktl_is_line(kernel))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_variant: kernel '%s': expected the kernel's "
                        "name, with template arguments where it has some",
                        kernel ? kernel : "(null)");
    for (size_t i = 0; i < s->num_variants; ++i)
        if (strcmp(s->variants[i].id, id) == 0)
            return ktl_fail(s, KTUNE_E_INPUT,
                            "ktune_variant: variant '%s' is declared twice",
                            id);
    grown = realloc(s->variants, (s->num_variants + 1) * sizeof *grown);
    if (!grown)
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    s->variants = grown;
    v = &s->variants[s->num_variants];
    memset(v, 0, sizeof *v);
    v->id = strdup(id);
    v->kernel = strdup(kernel);
    if (!v->id || !v->kernel) {
        free(v->id);
        free(v->kernel);
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    }
    s->num_variants++;
    return ktl_ok(s);
}

/* Adds "key = value" to the current variant. */
static int add_key(ktune_session *s, const char *call, const char *key,
                   const char *value)
{
    ktl_variant *v = current(s, call);
    char *line;
    int rc;

    if (!v)
        return KTUNE_E_INPUT;
    if (!ktl_is_line(value))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "%s: '%s': expected text of one line, not empty", call,
                        value ? value : "(null)");
    if (!(line = malloc(strlen(key) + strlen(value) + 4)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    sprintf(line, "%s = %s", key, value);
    /* A key given again replaces its value (block, grid, a parameter). */
    for (size_t i = 0; i < v->keys.n; ++i)
        if (strncmp(v->keys.v[i], line, strlen(key) + 3) == 0) {
            free(v->keys.v[i]);
            v->keys.v[i] = line;
            return ktl_ok(s);
        }
    rc = ktl_strv_add(&v->keys, line);
    free(line);
    return rc ? ktl_fail(s, rc, "out of memory") : ktl_ok(s);
}

static int param_name_ok(ktune_session *s, const char *call, const char *name)
{
    const char *p = name;

    if (p && (isalpha((unsigned char)*p) || *p == '_'))
        while (*++p && (isalnum((unsigned char)*p) || *p == '_'))
            ;
    if (!p || p == name || *p || strlen(name) > 63)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "%s: parameter '%s': expected a C identifier", call,
                        name ? name : "(null)");
    return KTUNE_OK;
}

int ktune_param(ktune_session *s, const char *name, const int64_t *values,
                size_t count)
{
    char key[80], *text;
    size_t len = 0;
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    if ((rc = param_name_ok(s, "ktune_param", name)))
        return rc;
    if (!values || count == 0)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_param: parameter '%s': no values (expected "
                        "an array of 1 or more)",
                        name);
    if (!(text = malloc(count * 24 + 1)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    text[0] = '\0';
    for (size_t i = 0; i < count; ++i)
        len += (size_t)sprintf(text + len, "%s%lld", i ? ", " : "",
                               (long long)values[i]);
    snprintf(key, sizeof key, "param.%s", name);
    rc = add_key(s, "ktune_param", key, text);
    free(text);
    return rc;
}

int ktune_param_default(ktune_session *s, const char *name, int64_t value)
{
    char key[80], text[32];
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    if ((rc = param_name_ok(s, "ktune_param_default", name)))
        return rc;
    snprintf(key, sizeof key, "default.%s", name);
    snprintf(text, sizeof text, "%lld", (long long)value);
    return add_key(s, "ktune_param_default", key, text);
}

int ktune_block(ktune_session *s, const char *xyz)
{
    return s ? add_key(s, "ktune_block", "block", xyz) : KTUNE_E_INPUT;
}

int ktune_grid(ktune_session *s, const char *xyz)
{
    return s ? add_key(s, "ktune_grid", "grid", xyz) : KTUNE_E_INPUT;
}

int ktune_smem(ktune_session *s, const char *expr)
{
    return s ? add_key(s, "ktune_smem", "smem", expr) : KTUNE_E_INPUT;
}

int ktune_space_file(ktune_session *s, const char *path)
{
    return s ? add_key(s, "ktune_space_file", "space", path) : KTUNE_E_INPUT;
}

/* Splits a comma-separated list at top-level commas into items[max]. */
static size_t split(char *text, char **items, size_t max)
{
    size_t n = 0;
    int depth = 0;
    char *start = text;

    for (char *p = text;; ++p) {
        if (*p == '(' || *p == '<')
            ++depth;
        else if ((*p == ')' || *p == '>') && depth > 0)
            --depth;
        if ((*p == ',' && depth == 0) || *p == '\0') {
            int end = *p == '\0';
            *p = '\0';
            if (n < max)
                items[n] = start;
            ++n;
            if (end)
                return n;
            start = p + 1;
        }
    }
}

int ktune_grid_divisors(ktune_session *s, const char *problem,
                        const char *divisors)
{
    char *p = NULL, *d = NULL, *pi[4], *di[4], grid[2048];
    size_t np, nd, len = 0;
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    if (!ktl_is_line(problem) || !ktl_is_line(divisors))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_grid_divisors: expected the problem's and the "
                        "divisors' expressions, comma-separated");
    if (!(p = strdup(problem)) || !(d = strdup(divisors))) {
        rc = ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
        goto done;
    }
    np = split(p, pi, 4);
    nd = split(d, di, 4);
    if (np > 3 || nd != np) {
        rc = ktl_fail(s, KTUNE_E_INPUT,
                      "ktune_grid_divisors: %zu problem dimension(s) and %zu "
                      "divisor(s): expected as many of each, 1 to 3",
                      np, nd);
        goto done;
    }
    grid[0] = '\0';
    for (size_t i = 0; i < np; ++i)
        len +=
            (size_t)snprintf(grid + len, sizeof grid - len,
                             "%sceil_div(%s, %s)", i ? ", " : "", pi[i], di[i]);
    rc = len >= sizeof grid ? ktl_fail(s, KTUNE_E_INPUT,
                                       "ktune_grid_divisors: longer than %zu "
                                       "characters",
                                       sizeof grid - 1)
                            : add_key(s, "ktune_grid_divisors", "grid", grid);
done:
    free(p);
    free(d);
    return rc;
}

int ktune_require(ktune_session *s, const char *expr)
{
    ktl_variant *v;

    if (!s)
        return KTUNE_E_INPUT;
    if (!(v = current(s, "ktune_require")))
        return KTUNE_E_INPUT;
    if (!ktl_is_line(expr))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_require: '%s': expected an expression of one "
                        "line",
                        expr ? expr : "(null)");
    return ktl_add(s, &v->requires, expr);
}

int ktune_define(ktune_session *s, const char *macro, const char *expr)
{
    char item[2048];
    ktl_variant *v;

    if (!s)
        return KTUNE_E_INPUT;
    if (param_name_ok(s, "ktune_define", macro) || !ktl_is_line(expr) ||
        strchr(expr, ','))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_define: '%s' = '%s': expected a macro name "
                        "and an expression without a top-level ','",
                        macro ? macro : "(null)", expr ? expr : "(null)");
    snprintf(item, sizeof item, "%s=%s", macro, expr);
    if (!(v = current(s, "ktune_define")))
        return KTUNE_E_INPUT;
    /* defines is one key, MACRO=EXPR, ...: appended to the one there. */
    for (size_t i = 0; i < v->keys.n; ++i) {
        if (strncmp(v->keys.v[i], "defines = ", 10) == 0) {
            char *line = malloc(strlen(v->keys.v[i]) + strlen(item) + 3);
            if (!line)
                return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
            sprintf(line, "%s, %s", v->keys.v[i], item);
            free(v->keys.v[i]);
            v->keys.v[i] = line;
            return ktl_ok(s);
        }
    }
    return add_key(s, "ktune_define", "defines", item);
}

int ktune_reference(ktune_session *s)
{
    ktl_variant *v;

    if (!s)
        return KTUNE_E_INPUT;
    if (!(v = current(s, "ktune_reference")))
        return KTUNE_E_INPUT;
    v->reference = 1;
    return ktl_ok(s);
}

int ktune_tolerance(ktune_session *s, double rtol, double atol)
{
    if (!s)
        return KTUNE_E_INPUT;
    if (!(rtol >= 0) || !(atol >= 0))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_tolerance: rtol %g, atol %g: expected numbers "
                        ">= 0",
                        rtol, atol);
    s->rtol = rtol;
    s->atol = atol;
    return ktl_ok(s);
}

int ktune_answer(ktune_session *s, const char *buffer, const void *data,
                 size_t count)
{
    ktl_buffer *b = NULL;
    char path[PATH_MAX + 128];
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    for (size_t i = 0; buffer && i < s->num_buffers; ++i)
        if (strcmp(s->buffers[i].name, buffer) == 0)
            b = &s->buffers[i];
    if (!b || (b->role != KTUNE_OUT && b->role != KTUNE_INOUT))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_answer: '%s': expected an output or in-out "
                        "buffer declared with ktune_buffer",
                        buffer ? buffer : "(null)");
    if (!data || count != b->count)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_answer: '%s': %zu element(s) given; the buffer "
                        "has %zu",
                        buffer, data ? count : 0, b->count);
    snprintf(path, sizeof path, "%s/%s.answer.npy", s->dir, buffer);
    if ((rc = ktl_host_array(s, path, b->type, data, count)))
        return rc;
    b->has_answer = 1;
    s->pinned_by_data = 1;
    return ktl_ok(s);
}
