/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel's declaration, call by call (include/ktune/ktune.h): each call
 * checks its own arguments (a NULL, a name that is no identifier, an
 * unknown buffer or type) and keeps the key it stands for; everything else
 * (expressions, values, the kernel's signature) is checked by the
 * declaration parser when the document is read, with its messages.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libktune/session.h"

#define NUM_TYPES 11
/* In ktune_type's order. */
static const char *const type_names[NUM_TYPES] = {
    "f32", "f64", "i32", "i64", "u32", "u64", "i8", "u8", "i16", "u16", "f16"};
static const char *const type_c[NUM_TYPES] = {
    "float",          "double",        "int",
    "long long",      "unsigned",      "unsigned long long",
    "signed char",    "unsigned char", "short",
    "unsigned short", "unsigned short"};
static const char *const type_npy[NUM_TYPES] = {"<f4", "<f8", "<i4", "<i8",
                                                "<u4", "<u8", "|i1", "|u1",
                                                "<i2", "<u2", "<f2"};
static const size_t type_sizes[NUM_TYPES] = {4, 8, 4, 8, 4, 8, 1, 1, 2, 2, 2};
/* In ktune_ctype's order: the names declarations take. */
static const char *const ctype_names[] = {
    "char",    "short",    "int",     "unsigned", "long",    "size_t",
    "float",   "double",   "int8_t",  "uint8_t",  "int16_t", "uint16_t",
    "int32_t", "uint32_t", "int64_t", "uint64_t"};
/* The C type each stands for in the checked source (the declared engine's
 * type of the scalar), for the answer kernel's signature. */
static const char *const ctype_c[] = {"signed char", "short",
                                      "int",         "unsigned",
                                      "long long",   "unsigned long long",
                                      "float",       "double",
                                      "signed char", "unsigned char",
                                      "short",       "unsigned short",
                                      "int",         "unsigned",
                                      "long long",   "unsigned long long"};
#define NUM_CTYPES (sizeof ctype_names / sizeof ctype_names[0])
static const char *const role_names[] = {"input", "output", "inout", "scratch"};

size_t ktl_type_size(int t)
{
    return t >= 0 && t < NUM_TYPES ? type_sizes[t] : 0;
}
const char *ktl_type_name(int t)
{
    return t >= 0 && t < NUM_TYPES ? type_names[t] : NULL;
}
const char *ktl_type_c(int t)
{
    return t >= 0 && t < NUM_TYPES ? type_c[t] : NULL;
}
const char *ktl_type_npy(int t)
{
    return t >= 0 && t < NUM_TYPES ? type_npy[t] : NULL;
}

/* A C identifier: what a declaration's names are. */
static int is_name(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (++s; *s; ++s)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int bad_name(ktune_session *s, const char *call, const char *what,
                    const char *name)
{
    return ktl_fail(s, KTUNE_E_INPUT,
                    "%s: %s '%s': expected a C identifier (letters, digits, "
                    "'_', not starting with a digit)",
                    call, what, name ? name : "(null)");
}

static int bad_text(ktune_session *s, const char *call, const char *what,
                    const char *text)
{
    return ktl_fail(s, KTUNE_E_INPUT,
                    "%s: %s '%s': expected text of one line, not empty", call,
                    what, text ? text : "(null)");
}

int ktune_declare(ktune_session *s, const char *name)
{
    if (!s)
        return KTUNE_E_INPUT;
    if (!is_name(name))
        return bad_name(s, "ktune_declare", "name", name);
    free(s->name);
    if (!(s->name = strdup(name)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    return ktl_ok(s);
}

int ktune_source_text(ktune_session *s, const char *text)
{
    if (!s)
        return KTUNE_E_INPUT;
    if (!text || !*text)
        return ktl_fail(
            s, KTUNE_E_INPUT,
            "ktune_source_text: the source is empty (NULL or \"\")");
    free(s->source_text);
    free(s->source_file);
    s->source_file = NULL;
    if (!(s->source_text = strdup(text)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    return ktl_ok(s);
}

int ktune_source_file(ktune_session *s, const char *path)
{
    char *real;

    if (!s)
        return KTUNE_E_INPUT;
    if (!path || !(real = realpath(path, NULL)))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_source_file: '%s': no such file",
                        path ? path : "(null)");
    free(s->source_text);
    free(s->source_file);
    s->source_text = NULL;
    s->source_file = real;
    return ktl_ok(s);
}

int ktune_header(ktune_session *s, const char *name, const char *text)
{
    char path[PATH_MAX + 256];
    FILE *f;
    int ok;

    if (!s)
        return KTUNE_E_INPUT;
    if (!name || !*name || strchr(name, '/') || name[0] == '.' || !text)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_header: '%s': expected a file name without "
                        "'/' (not starting with '.') and its text",
                        name ? name : "(null)");
    snprintf(path, sizeof path, "%s/%s", s->dir, name);
    if (!(f = fopen(path, "w")))
        return ktl_fail(s, KTUNE_E_IO, "ktune_header: cannot write %s", path);
    ok = fputs(text, f) >= 0;
    ok = fclose(f) == 0 && ok;
    return ok ? ktl_ok(s)
              : ktl_fail(s, KTUNE_E_IO, "ktune_header: cannot write %s", path);
}

int ktune_option(ktune_session *s, const char *option)
{
    if (!s)
        return KTUNE_E_INPUT;
    if (!ktl_is_line(option) || strchr(option, ' '))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_option: '%s': expected one NVRTC option "
                        "without spaces",
                        option ? option : "(null)");
    return ktl_add(s, &s->options, option);
}

int ktune_include_dir(ktune_session *s, const char *dir)
{
    char *real, *opt;
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    if (!dir || !(real = realpath(dir, NULL)))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_include_dir: '%s': no such folder",
                        dir ? dir : "(null)");
    if (strchr(real, ' ') || !(opt = malloc(strlen(real) + 3))) {
        rc = ktl_fail(s, KTUNE_E_INPUT,
                      "ktune_include_dir: '%s': a folder whose path has a "
                      "space cannot be an NVRTC option here",
                      real);
        free(real);
        return rc;
    }
    sprintf(opt, "-I%s", real);
    rc = ktune_option(s, opt);
    free(opt);
    free(real);
    return rc;
}

int ktune_size(ktune_session *s, const char *name, int64_t value, int pinned)
{
    char item[128];

    if (!s)
        return KTUNE_E_INPUT;
    if (!is_name(name) || strlen(name) > 63)
        return bad_name(s, "ktune_size", "name", name);
    snprintf(item, sizeof item, "%s=%lld%s", name, (long long)value,
             pinned ? " pinned" : "");
    return ktl_add(s, &s->sizes, item);
}

static ktl_buffer *find_buffer(ktune_session *s, const char *name)
{
    for (size_t i = 0; name && i < s->num_buffers; ++i)
        if (strcmp(s->buffers[i].name, name) == 0)
            return &s->buffers[i];
    return NULL;
}

/* The arguments of ktune_buffer, each checked. */
static int check_buffer(ktune_session *s, const char *name, int role, int type,
                        const void *data, size_t count, const char *fill)
{
    const char *c = "ktune_buffer";

    if (!is_name(name) || strlen(name) > 48 || strncmp(name, "ktune_", 6) == 0)
        return bad_name(s, c, "name (at most 48 characters, not ktune_...)",
                        name);
    if (find_buffer(s, name))
        return ktl_fail(s, KTUNE_E_INPUT, "%s: buffer '%s' is declared twice",
                        c, name);
    if (role < KTUNE_IN || role > KTUNE_SCRATCH)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "%s: buffer '%s': role %d: expected KTUNE_IN (0), "
                        "KTUNE_OUT (1), KTUNE_INOUT (2) or KTUNE_SCRATCH (3)",
                        c, name, role);
    if (!ktl_type_name(type))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "%s: buffer '%s': type %d: expected a ktune_type, "
                        "KTUNE_F32 (0) to KTUNE_F16 (10)",
                        c, name, type);
    if (count == 0)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "%s: buffer '%s': count 0: expected 1 or more", c,
                        name);
    if ((data || fill) && (role == KTUNE_OUT || role == KTUNE_SCRATCH))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "%s: buffer '%s': an %s buffer takes no data or fill "
                        "(give the expected values with ktune_answer)",
                        c, name, role_names[role]);
    if (data && fill)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "%s: buffer '%s': give data or a fill, not both", c,
                        name);
    return KTUNE_OK;
}

int ktune_buffer(ktune_session *s, const char *name, int role, int type,
                 const void *data, size_t count, const char *count_expr,
                 const char *fill)
{
    ktl_buffer *grown, *b;
    char path[PATH_MAX + 128];
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    if ((rc = check_buffer(s, name, role, type, data, count, fill)))
        return rc;
    if ((count_expr && !ktl_is_line(count_expr)) ||
        (fill && !ktl_is_line(fill)))
        return bad_text(s, "ktune_buffer", count_expr ? "count" : "fill",
                        count_expr ? count_expr : fill);
    if (data) {
        snprintf(path, sizeof path, "%s/%s.npy", s->dir, name);
        if ((rc = ktl_host_array(s, path, type, data, count)))
            return rc;
    }
    grown = realloc(s->buffers, (s->num_buffers + 1) * sizeof *grown);
    if (!grown)
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    s->buffers = grown;
    b = &s->buffers[s->num_buffers];
    memset(b, 0, sizeof *b);
    b->name = strdup(name);
    b->count_expr = count_expr ? strdup(count_expr) : NULL;
    b->fill = fill ? strdup(fill) : NULL;
    if (!b->name || (count_expr && !b->count_expr) || (fill && !b->fill)) {
        free(b->name);
        free(b->count_expr);
        free(b->fill);
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    }
    b->role = role;
    b->type = type;
    b->count = count;
    b->has_data = data != NULL;
    s->pinned_by_data |= b->has_data;
    s->num_buffers++;
    return ktl_ok(s);
}

int ktune_constant(ktune_session *s, const char *symbol, const char *buffer)
{
    char item[256];

    if (!s)
        return KTUNE_E_INPUT;
    if (!is_name(symbol) || strlen(symbol) > 63)
        return bad_name(s, "ktune_constant", "symbol", symbol);
    if (!find_buffer(s, buffer))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_constant: '%s': no such buffer (declare it "
                        "first with ktune_buffer)",
                        buffer ? buffer : "(null)");
    snprintf(item, sizeof item, "constant.%s = %s", symbol, buffer);
    return ktl_add(s, &s->constants, item);
}

/* Appends argument text with its C type (for the answer kernel). */
static int add_arg(ktune_session *s, const char *text, const char *ctype)
{
    if (ktl_strv_add(&s->args, text))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    if (ktl_strv_add(&s->arg_ctypes, ctype)) {
        free(s->args.v[--s->args.n]);
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    }
    return ktl_ok(s);
}

int ktune_arg_buffer(ktune_session *s, const char *buffer, const char *view)
{
    const ktl_buffer *b;
    char text[256], ctype[128];

    if (!s)
        return KTUNE_E_INPUT;
    if (!(b = find_buffer(s, buffer)))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "ktune_arg_buffer: '%s': no such buffer (declare it "
                        "first with ktune_buffer)",
                        buffer ? buffer : "(null)");
    if (view && (!ktl_is_line(view) || strlen(view) > 60 || strchr(view, ',')))
        return bad_text(s, "ktune_arg_buffer", "view", view);
    snprintf(text, sizeof text, view ? "%s as %s" : "%s", buffer, view);
    snprintf(ctype, sizeof ctype, "%s *", view ? view : ktl_type_c(b->type));
    return add_arg(s, text, ctype);
}

static const char *ctype_name(ktune_session *s, const char *call, int ctype)
{
    if (ctype < 0 || (size_t)ctype >= NUM_CTYPES) {
        ktl_fail(s, KTUNE_E_INPUT,
                 "%s: C type %d: expected a ktune_ctype, KTUNE_C_CHAR (0) to "
                 "KTUNE_C_UINT64 (15)",
                 call, ctype);
        return NULL;
    }
    return ctype_names[ctype];
}

int ktune_arg_expr(ktune_session *s, int ctype, const char *expr)
{
    const char *c;
    char *text;
    int rc;

    if (!s)
        return KTUNE_E_INPUT;
    if (!(c = ctype_name(s, "ktune_arg_expr", ctype)))
        return KTUNE_E_INPUT;
    if (!ktl_is_line(expr) || strchr(expr, ','))
        return bad_text(s, "ktune_arg_expr", "expression (no top-level ',')",
                        expr);
    if (!(text = malloc(strlen(c) + strlen(expr) + 2)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    sprintf(text, "%s %s", c, expr);
    rc = add_arg(s, text, ctype_c[ctype]);
    free(text);
    return rc;
}

int ktune_arg_int(ktune_session *s, int ctype, int64_t value)
{
    char text[32];

    snprintf(text, sizeof text, "%lld", (long long)value);
    return ktune_arg_expr(s, ctype, text);
}

int ktune_arg_uint(ktune_session *s, int ctype, uint64_t value)
{
    char text[32];

    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    return ktune_arg_expr(s, ctype, text);
}

int ktune_arg_float(ktune_session *s, int ctype, double value)
{
    char text[40];

    /* %.17g: the double exactly, as a literal declarations read. */
    snprintf(text, sizeof text, "%.17g", value);
    return ktune_arg_expr(s, ctype, text);
}
