// SPDX-License-Identifier: Apache-2.0
#include "declared/declared.h"
#include "declared/declared_t1.h"

#include <ctype.h>
#include <float.h>
#include <iniparser.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/envpath.h"
#include "core/fileio.h"
#include "core/iniloc.h"
#include "core/msg.h"
#include "core/parse.h"
#include "core/suggest.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const operator_keys[] = {
    "name",          "summary",
    "source",        "sizes",
    "args",          "bytes_read",
    "bytes_written", "flops",
    "rtol",          "atol",
    "options",       "modifies_inputs",
    "check_arch",    "generator_source"};
static const char *const variant_keys[] = {
    "kernel",     "block",     "grid",      "smem",      "require", "reference",
    "defines",    "summary",   "follows",   "space",     "then",    "then.args",
    "then.block", "then.grid", "then.smem", "then.timed"};
/* The keys of a variant's second kernel, after "then" (kt_decl_then). */
static const char *const then_keys[] = {"then.args", "then.block", "then.grid",
                                        "then.smem", "then.timed"};
/* Sections of a tuning job, which may share the file. */
static const char *const job_sections[] = {"job",     "space",  "strategy",
                                           "measure", "output", "metrics"};
/* In kt_decl_type's order. */
static const char *const type_names[] = {
    "f32", "f64", "i32", "i64", "u32", "u64", "i8", "u8", "i16", "u16", "f16"};
static const char *const type_c[] = {
    "float",          "double",        "int",
    "long long",      "unsigned",      "unsigned long long",
    "signed char",    "unsigned char", "short",
    "unsigned short", "__half"};
static const size_t type_sizes[] = {4, 8, 4, 8, 4, 8, 1, 1, 2, 2, 2};
#define KT_DECL_TYPE_LIST "f32 f64 f16 i8 u8 i16 u16 i32 u32 i64 u64"

typedef struct reader {
    kt_declared *d;
    dictionary *ini;
    kt_iniloc loc;
    kt_err *err;
    kt_t1_space *t1;            /* the variant's space file while it is read */
    kt_decl_compile_fn compile; /* the check's compiler, or NULL */
} reader;

size_t kt_decl_type_size(kt_decl_type t)
{
    return type_sizes[t];
}

const char *kt_decl_type_c(kt_decl_type t)
{
    return type_c[t];
}

const char *kt_decl_type_name(kt_decl_type t)
{
    return type_names[t];
}

static kt_status bad(const reader *rd, const char *section, const char *key,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* KT_S_INPUT: "file:line: [section] key: message". */
static kt_status bad(const reader *rd, const char *section, const char *key,
                     const char *fmt, ...)
{
    char msg[900];
    int line = kt_iniloc_line(&rd->loc, section, key);
    va_list ap;

    if (!line)
        line = kt_iniloc_line(&rd->loc, section, NULL);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (key)
        return kt_err_set(rd->err, KT_S_INPUT, "%s:%d: [%s] %s: %s",
                          rd->d->path, line, section, key, msg);
    return kt_err_set(rd->err, KT_S_INPUT, "%s:%d: [%s]: %s", rd->d->path, line,
                      section, msg);
}

/* Rewrites the message an expression or value parser left with file:line. */
static kt_status bad_from(const reader *rd, const char *section,
                          const char *key)
{
    char msg[sizeof rd->err->msg];
    snprintf(msg, sizeof msg, "%s", rd->err->msg);
    return bad(rd, section, key, "%s", msg);
}

/* Copies src into dst[size]; text that does not fit is refused, never
 * cut. */
static kt_status copy_checked(const reader *rd, const char *section,
                              const char *key, char *dst, size_t size,
                              const char *src)
{
    if (strlen(src) >= size)
        return bad(rd, section, key, "'%.40s...' is longer than %zu characters",
                   src, size - 1);
    memcpy(dst, src, strlen(src) + 1);
    return KT_S_OK;
}

static const char *value_of(const reader *rd, const char *section,
                            const char *key)
{
    char full[200];
    snprintf(full, sizeof full, "%s:%s", section, key);
    return iniparser_getstring(rd->ini, full, NULL);
}

static int find_type(const char *word, size_t len)
{
    for (size_t i = 0; i < COUNT(type_names); ++i)
        if (strlen(type_names[i]) == len &&
            strncmp(word, type_names[i], len) == 0)
            return (int)i;
    return -1;
}

/* The scalar types of [operator] args, as written in C. */
static int find_c_type(const char *word)
{
    static const struct {
        const char *name;
        kt_decl_type t;
    } map[] = {{"float", KT_DECL_F32},    {"double", KT_DECL_F64},
               {"int", KT_DECL_I32},      {"long", KT_DECL_I64},
               {"int64_t", KT_DECL_I64},  {"unsigned", KT_DECL_U32},
               {"uint32_t", KT_DECL_U32}, {"size_t", KT_DECL_U64},
               {"uint64_t", KT_DECL_U64}, {"int32_t", KT_DECL_I32},
               {"short", KT_DECL_I16},    {"int16_t", KT_DECL_I16},
               {"uint16_t", KT_DECL_U16}, {"char", KT_DECL_I8},
               {"int8_t", KT_DECL_I8},    {"uint8_t", KT_DECL_U8}};
    for (size_t i = 0; i < COUNT(map); ++i)
        if (strcmp(word, map[i].name) == 0)
            return (int)map[i].t;
    return -1;
}

/* Splits at top-level commas (not inside parentheses or <>). Returns the
 * count; items point into buf. */
static size_t split_top(char *buf, char **items, size_t max)
{
    size_t n = 0;
    int depth = 0;
    char *start = buf;

    for (char *p = buf;; ++p) {
        if (*p == '(' || *p == '<')
            ++depth;
        else if ((*p == ')' || *p == '>') && depth > 0)
            --depth;
        if ((*p == ',' && depth == 0) || *p == '\0') {
            int last = *p == '\0';
            *p = '\0';
            if (n < max)
                items[n] = kt_parse_trim(start);
            ++n;
            if (last)
                return n;
            start = p + 1;
        }
    }
}

/* text split at top-level commas into items[0..*n) (pointing into buf);
 * refused when missing ("expected WHAT") or past max items. */
static kt_status split_list(const reader *rd, const char *section,
                            const char *key, const char *text, char *buf,
                            size_t buf_size, char **items, size_t max,
                            const char *what, size_t *n)
{
    *n = 0;
    if (!text || !*text)
        return bad(rd, section, key, "missing; expected %s", what);
    if (copy_checked(rd, section, key, buf, buf_size, text))
        return rd->err->status;
    *n = split_top(buf, items, max + 1);
    if (*n > max)
        return bad(rd, section, key, "%zu items, at most %zu", *n, max);
    return KT_S_OK;
}

static kt_status parse_expr(const reader *rd, const char *section,
                            const char *key, const char *text,
                            const char *const *names, size_t num_names,
                            kt_expr **out)
{
    if (kt_expr_parse(text, names, num_names, out, rd->err))
        return bad_from(rd, section, key);
    return KT_S_OK;
}

/* Reads the file at text (${VAR} expanded, relative to the declaration)
 * into *out (owned), its name as written into name[256] and its resolved
 * path into path[4096]. */
static kt_status read_text(reader *rd, const char *key, const char *text,
                           char **out, char *name, char *path)
{
    size_t size = 0;
    kt_err ferr;

    if (copy_checked(rd, "operator", key, name, 256, text))
        return rd->err->status;
    if (kt_decl_path(rd->d->dir, text, path, 4096, rd->err))
        return bad_from(rd, "operator", key);
    if (kt_decl_read_file(path, out, &size, &ferr))
        return bad(rd, "operator", key, "cannot read '%s': %s", path, ferr.msg);
    return KT_S_OK;
}

/* source (and generator_source): their folders join the include path, as
 * a compiler run on the file itself would search them. */
static kt_status read_source(reader *rd, const char *file)
{
    kt_declared *d = rd->d;
    const char *gen = value_of(rd, "operator", "generator_source");
    char path[4096];
    kt_status rc;

    if ((rc =
             read_text(rd, "source", file, &d->source, d->source_name, path)) ||
        (rc = kt_decl_add_include(d, path, rd->err)))
        return rc;
    if (!gen || !*gen)
        return KT_S_OK;
    if ((rc = read_text(rd, "generator_source", gen, &d->gen_source,
                        d->gen_source_name, path)))
        return rc;
    return kt_decl_add_include(d, path, rd->err);
}

/* Strips a trailing " pinned" (or " fixed") from value in place: 1 when
 * there was one, 0 when not, -1 for another word after the number. */
static int pinned_word(char *value)
{
    char *space = strpbrk(value, " \t");
    const char *word;

    if (!space)
        return 0;
    *space = '\0';
    word = kt_parse_trim(space + 1);
    return strcmp(word, "pinned") == 0 || strcmp(word, "fixed") == 0 ? 1 : -1;
}

/* sizes = rows=4096, cols=4096 pinned: names and defaults. */
static kt_status read_sizes(reader *rd)
{
    kt_declared *d = rd->d;
    const char *text = value_of(rd, "operator", "sizes");
    char buf[1024], *items[KT_MAX_SIZES + 1];
    size_t n;

    if (split_list(rd, "operator", "sizes", text, buf, sizeof buf, items,
                   KT_MAX_SIZES, "sizes as NAME=DEFAULT, e.g. 'n=1048576'", &n))
        return rd->err->status;
    for (size_t i = 0; i < n; ++i) {
        char *name, *value;
        kt_size_desc *s = &d->sizes[i];
        int pinned = 0;
        if (kt_parse_assignment(items[i], &name, &value, rd->err) ||
            (pinned = pinned_word(value)) < 0 ||
            kt_parse_i64(value, name, &s->default_value, rd->err))
            return pinned < 0 ? bad(rd, "operator", "sizes",
                                    "'%s': expected 'NAME=DEFAULT' or "
                                    "'NAME=VALUE pinned'",
                                    items[i])
                              : bad_from(rd, "operator", "sizes");
        if (copy_checked(rd, "operator", "sizes", d->size_names[i],
                         sizeof d->size_names[i], name))
            return rd->err->status;
        s->struct_size = sizeof *s;
        s->name = d->size_names[i];
        s->help = "declared size";
        s->min = 1;
        s->max = (int64_t)1 << 40;
        if (s->default_value < 1 || s->default_value > s->max)
            return bad(rd, "operator", "sizes", "%s = %lld, expected 1..2^40",
                       name, (long long)s->default_value);
        if (pinned) {
            /* min = max: a job cannot move it, and boundary sizes keep it. */
            s->min = s->max = s->default_value;
            s->help = "pinned: the source compiles it in";
            d->pinned_mask |= 1u << i;
        }
        d->size_name_list[i] = d->size_names[i];
    }
    d->num_sizes = n;
    return KT_S_OK;
}

/* The role word opening a buffer's text: kt_mem_role or
 * KT_DECL_ROLE_INOUT; -1 when none. */
static int find_role(const char *p, size_t *len)
{
    static const struct {
        const char *word;
        int role;
    } roles[] = {{"input", KT_MEM_INPUT},
                 {"output", KT_MEM_OUTPUT},
                 {"inout", KT_DECL_ROLE_INOUT},
                 {"scratch", KT_MEM_SCRATCH}};
    for (size_t i = 0; i < COUNT(roles); ++i) {
        size_t n = strlen(roles[i].word);
        if (strncmp(p, roles[i].word, n) == 0 && isspace((unsigned char)p[n])) {
            *len = n;
            return roles[i].role;
        }
    }
    return -1;
}

/* buffer.x = input f32[rows * cols] [FILL] */
static kt_status read_buffer(reader *rd, const char *key, const char *text)
{
    kt_declared *d = rd->d;
    kt_decl_buffer *b;
    char buf[512], *p, *open, *close, *fill;
    size_t role_len = 0;
    int role, type;

    if (d->num_buffers == KT_DECL_MAX_BUFFERS)
        return bad(rd, "operator", key, "more than %d buffers",
                   KT_DECL_MAX_BUFFERS);
    b = &d->buffers[d->num_buffers];
    if (copy_checked(rd, "operator", key, b->name, sizeof b->name,
                     key + strlen("buffer.")) ||
        copy_checked(rd, "operator", key, buf, sizeof buf, text))
        return rd->err->status;
    p = kt_parse_trim(buf);
    role = find_role(p, &role_len);
    open = strchr(p, '[');
    close = open ? strchr(open, ']') : NULL;
    if (role < 0 || !open || !close)
        return bad(rd, "operator", key,
                   "'%s': expected ROLE TYPE[COUNT] [FILL], e.g. 'input "
                   "f32[n]' (roles input, output, inout, scratch; types "
                   "%s)",
                   text, KT_DECL_TYPE_LIST);
    p = kt_parse_trim(p + role_len);
    type = find_type(p, (size_t)(open - p));
    if (type < 0)
        return bad(rd, "operator", key, "'%.*s' is not an element type (%s)",
                   (int)(open - p), p, KT_DECL_TYPE_LIST);
    *close = '\0';
    fill = kt_parse_trim(close + 1);
    b->type = (kt_decl_type)type;
    b->role = role;
    if (*fill && role != KT_MEM_INPUT && role != KT_DECL_ROLE_INOUT)
        return bad(rd, "operator", key,
                   "'%s': only input and inout buffers are filled", fill);
    if (*fill && kt_decl_fill_parse(fill, b->type, d->dir, &b->fill, rd->err))
        return bad_from(rd, "operator", key);
    if (parse_expr(rd, "operator", key, open + 1, d->size_name_list,
                   d->num_sizes, &b->count))
        return rd->err->status;
    ++d->num_buffers;
    return KT_S_OK;
}

/* Where a list of arguments is read, and the names its expressions may
 * use: [operator] args (sizes), or a variant's then.args (sizes and
 * parameters). */
typedef struct arg_site {
    const char *section, *key;
    const char *const *names;
    size_t num_names;
} arg_site;

/* "NAME" or "NAME as TYPE" (the buffer's bytes as the kernel's TYPE):
 * sets a->buffer and a->view; 0 when item names no buffer. */
static int buffer_arg(reader *rd, kt_decl_arg *a, char *item)
{
    const kt_declared *d = rd->d;
    char *as = strstr(item, " as ");

    if (as) {
        *as = '\0';
        snprintf(a->view, sizeof a->view, "%s", kt_parse_trim(as + 4));
    }
    for (size_t b = 0; b < d->num_buffers; ++b)
        if (strcmp(d->buffers[b].name, kt_parse_trim(item)) == 0)
            a->buffer = (int)b;
    if (as && a->buffer < 0)
        *as = ' ';
    return a->buffer >= 0;
}

/* A view's type: a C++ type name ("float4", "unsigned char", a typedef
 * of the source such as "realM"), checked by NVRTC against the kernel. */
static kt_status check_view(reader *rd, const arg_site *at,
                            const kt_decl_arg *a)
{
    if (!a->view[0])
        return KT_S_OK;
    for (const char *p = a->view; *p; ++p)
        if (!isalnum((unsigned char)*p) && !strchr("_: ", *p))
            return bad(rd, at->section, at->key,
                       "'%s': '%s' is not a C++ type name", a->text, a->view);
    return KT_S_OK;
}

/* A scalar's value: a floating-point literal (float and double only) or
 * an integer expression of the site's names. */
static kt_status scalar_value(reader *rd, const arg_site *at, kt_decl_arg *a,
                              char *text)
{
    char *end;
    double x = strtod(text, &end);

    if (end != text && !*kt_parse_trim(end) && strpbrk(text, ".eEnN")) {
        if (a->type != KT_DECL_F32 && a->type != KT_DECL_F64)
            return bad(rd, at->section, at->key,
                       "'%s': %s takes an integer expression, not %s", a->text,
                       type_c[a->type], text);
        a->is_literal = 1;
        a->literal = x;
        return KT_S_OK;
    }
    if (a->type == KT_DECL_F32 || a->type == KT_DECL_F64) {
        /* Floats of sizes: Python's arithmetic, / dividing truly. */
        a->is_float_expr = 1;
        if (kt_expr_parse_as(text, KT_EXPR_PYTHON, at->names, at->num_names,
                             &a->value, rd->err))
            return bad_from(rd, at->section, at->key);
        return KT_S_OK;
    }
    return parse_expr(rd, at->section, at->key, text, at->names, at->num_names,
                      &a->value);
}

/* KT_S_INPUT unless x is a value of type t: a float past FLT_MAX would
 * reach the kernel as infinity, an int past its range wrapped. */
static kt_status scalar_fits(kt_decl_type t, double x, kt_err *err)
{
    static const struct {
        double lo, hi;
    } range[] = {
        [KT_DECL_F32] = {-FLT_MAX, FLT_MAX},
        [KT_DECL_F64] = {-DBL_MAX, DBL_MAX},
        [KT_DECL_F16] = {-65504.0, 65504.0},
        [KT_DECL_I32] = {INT32_MIN, INT32_MAX},
        [KT_DECL_I64] = {-0x1p63, 0x1p63},
        [KT_DECL_U32] = {0, UINT32_MAX},
        [KT_DECL_U64] = {0, 0x1p64},
        [KT_DECL_I8] = {INT8_MIN, INT8_MAX},
        [KT_DECL_U8] = {0, UINT8_MAX},
        [KT_DECL_I16] = {INT16_MIN, INT16_MAX},
        [KT_DECL_U16] = {0, UINT16_MAX},
    };
    if (isfinite(x) && x >= range[t].lo && x <= range[t].hi)
        return KT_S_OK;
    return kt_err_set(err, KT_S_INPUT,
                      "%g does not fit a %s (expected %g to %g)", x, type_c[t],
                      range[t].lo, range[t].hi);
}

kt_status kt_declared_scalar(const kt_declared *d, const kt_decl_arg *a,
                             const int64_t *sizes, double *out, kt_err *err)
{
    kt_expr_value v;
    int64_t x;
    kt_status rc;

    (void)d;
    if (a->is_literal) {
        *out = a->literal;
    } else if (a->is_float_expr) {
        if ((rc = kt_expr_eval_value(a->value, sizes, &v, err)))
            return rc;
        *out = v.is_float ? v.f : (double)v.i;
    } else {
        if ((rc = kt_expr_eval(a->value, sizes, &x, err)))
            return rc;
        *out = (double)x;
    }
    return scalar_fits(a->type, *out, err);
}

/* args = y, x, int rows: buffers by name (or `NAME as TYPE`), scalars as
 * "TYPE EXPR", into args[0..*n). */
static kt_status parse_args(reader *rd, const arg_site *at, const char *text,
                            kt_decl_arg *args, size_t *n)
{
    char buf[2048], *items[KT_DECL_MAX_ARGS + 1];
    size_t count;

    if (split_list(rd, at->section, at->key, text, buf, sizeof buf, items,
                   KT_DECL_MAX_ARGS,
                   "the kernel's arguments in order, e.g. 'y, x, int n'",
                   &count))
        return rd->err->status;
    for (size_t i = 0; i < count; ++i) {
        kt_decl_arg *a = &args[i];
        char *space;
        *n = i + 1; /* freed with the declaration from now on */
        if (copy_checked(rd, at->section, at->key, a->text, sizeof a->text,
                         items[i]))
            return rd->err->status;
        a->buffer = -1;
        if (buffer_arg(rd, a, items[i])) {
            if (check_view(rd, at, a))
                return rd->err->status;
            continue;
        }
        if (!(space = strpbrk(items[i], " \t")))
            return bad(rd, at->section, at->key,
                       "'%s' is not a buffer (declare it as buffer.%s = "
                       "ROLE TYPE[COUNT]) nor a scalar 'TYPE EXPR'",
                       items[i], items[i]);
        *space = '\0';
        if (find_c_type(items[i]) < 0)
            return bad(rd, at->section, at->key,
                       "'%s': '%s' is not a scalar type (int, unsigned, "
                       "long, size_t, float, double, short, char, ...)",
                       a->text, items[i]);
        a->type = (kt_decl_type)find_c_type(items[i]);
        if (scalar_value(rd, at, a, kt_parse_trim(space + 1)))
            return rd->err->status;
    }
    *n = count;
    return KT_S_OK;
}

static kt_status read_args(reader *rd)
{
    kt_declared *d = rd->d;
    arg_site at = {"operator", "args", d->size_name_list, d->num_sizes};
    return parse_args(rd, &at, value_of(rd, "operator", "args"), d->args,
                      &d->num_args);
}

static kt_status read_double(reader *rd, const char *section, const char *key,
                             double fallback, double *out)
{
    const char *text = value_of(rd, section, key);
    *out = fallback;
    if (text && kt_parse_double(text, key, out, rd->err))
        return bad_from(rd, section, key);
    if (*out < 0)
        return bad(rd, section, key, "%g is negative", *out);
    return KT_S_OK;
}

static int read_bool(const char *text)
{
    return text && (strcasecmp(text, "yes") == 0 ||
                    strcasecmp(text, "true") == 0 || strcmp(text, "1") == 0);
}

/* options: split at spaces, ${VAR} expanded; include folders (-I DIR,
 * -IDIR, --include-path=DIR) resolved against the declaration's folder. */
static kt_status read_options(reader *rd)
{
    kt_declared *d = rd->d;
    const char *text = value_of(rd, "operator", "options");
    char *copy, *save = NULL;
    kt_status rc = KT_S_OK;
    int path_next = 0;

    if (!text || !*text)
        return KT_S_OK;
    if (!(copy = strdup(text)))
        return kt_err_set(rd->err, KT_S_NOMEM, "out of memory");
    for (char *tok = strtok_r(copy, " \t", &save); tok && !rc;
         tok = strtok_r(NULL, " \t", &save)) {
        if (strcmp(tok, "-I") == 0) {
            path_next = 1;
            continue;
        }
        rc = kt_decl_add_option(d, tok, path_next, rd->err);
        path_next = 0;
    }
    free(copy);
    if (!rc && path_next)
        return bad(rd, "operator", "options", "'-I' without a folder");
    return rc ? bad_from(rd, "operator", "options") : KT_S_OK;
}

static kt_status check_keys(reader *rd, const char *section,
                            const char *const *known, size_t n,
                            const char *prefix)
{
    int count = iniparser_getsecnkeys(rd->ini, section);
    const char **keys = count > 0 ? calloc((size_t)count, sizeof *keys) : NULL;
    kt_status rc = KT_S_OK;

    if (count > 0 && !keys)
        return kt_err_set(rd->err, KT_S_NOMEM, "out of memory");
    if (count > 0)
        iniparser_getseckeys(rd->ini, section, keys);
    for (int i = 0; i < count && !rc; ++i) {
        const char *key = strchr(keys[i], ':') + 1;
        int known_key =
            strncmp(key, prefix, strlen(prefix)) == 0 ||
            (prefix[0] == 'b' && strncmp(key, "constant.", 9) == 0) ||
            (prefix[0] == 'p' && strncmp(key, "default.", 8) == 0);
        char hint[256];
        for (size_t k = 0; k < n && !known_key; ++k)
            known_key = strcmp(key, known[k]) == 0;
        if (known_key)
            continue;
        kt_suggest(key, known, n, hint, sizeof hint);
        rc = bad(rd, section, key, "unknown key%s (%ss are written %sNAME%s)",
                 hint, prefix[0] == 'p' ? "parameter" : "buffer", prefix,
                 prefix[0] == 'p' ? ""
                                  : ", constant memory constant.SYMBOL = "
                                    "BUFFER");
    }
    free(keys);
    return rc;
}

/* The [operator] keys of the work, in kt_declared's work_text order. */
static const char *const work_keys[] = {"bytes_read", "bytes_written", "flops"};

/* bytes_read, bytes_written, flops: expressions of sizes, or of sizes and
 * parameters (then read per variant, read_variant_work). */
static kt_status read_work(reader *rd)
{
    kt_declared *d = rd->d;
    const char *const *keys = work_keys;
    kt_expr **exprs[] = {&d->bytes_read, &d->bytes_written, &d->flops};
    for (size_t i = 0; i < COUNT(work_keys); ++i) {
        const char *text = value_of(rd, "operator", keys[i]);
        kt_err perr;
        if (!text || !*text)
            continue;
        if (copy_checked(rd, "operator", keys[i], d->work_text[i],
                         sizeof d->work_text[i], text))
            return rd->err->status;
        if (kt_expr_parse(text, d->size_name_list, d->num_sizes, exprs[i],
                          &perr) == KT_S_OK)
            continue;
        /* Not of sizes alone: each variant reads it with its parameters. */
        d->work_uses_params = 1;
    }
    return KT_S_OK;
}

/* The work expressions with v's names; one that reads a name v lacks is
 * the declaration's mistake. */
static kt_status read_variant_work(reader *rd, kt_decl_variant *v)
{
    const char *const *keys = work_keys;
    const kt_declared *d = rd->d;
    for (size_t i = 0; i < COUNT(work_keys); ++i) {
        if (!d->work_text[i][0])
            continue;
        if (kt_expr_parse(d->work_text[i], v->names, v->num_names, &v->work[i],
                          rd->err))
            return bad(rd, "operator", keys[i], "with the names of [%s]: %s",
                       v->section, rd->err->msg);
    }
    return KT_S_OK;
}

/* constant.SYMBOL = BUFFER */
static kt_status read_constant(reader *rd, const char *key, const char *text)
{
    kt_declared *d = rd->d;
    kt_decl_constant *c = &d->constants[d->num_constants];
    const char *sym = key + strlen("constant.");

    if (d->num_constants == KT_DECL_MAX_CONSTANTS)
        return bad(rd, "operator", key, "more than %d constant symbols",
                   KT_DECL_MAX_CONSTANTS);
    if (copy_checked(rd, "operator", key, c->symbol, sizeof c->symbol, sym))
        return rd->err->status;
    for (const char *p = sym; *p; ++p)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return bad(rd, "operator", key,
                       "'%s' is not a C++ name (a __constant__ symbol at "
                       "namespace scope)",
                       sym);
    c->buffer = -1;
    for (size_t b = 0; b < d->num_buffers; ++b)
        if (text && strcmp(d->buffers[b].name, text) == 0)
            c->buffer = (int)b;
    if (c->buffer < 0)
        return bad(rd, "operator", key,
                   "'%s' is not a buffer; expected constant.%s = BUFFER",
                   text ? text : "", sym);
    if (d->buffers[c->buffer].role != KT_MEM_INPUT)
        return bad(rd, "operator", key,
                   "buffer '%s' is not an input: constant memory is read-only",
                   text);
    ++d->num_constants;
    return KT_S_OK;
}

static kt_status read_operator(reader *rd)
{
    kt_declared *d = rd->d;
    const char *name = value_of(rd, "operator", "name");
    const char *source = value_of(rd, "operator", "source");
    const char *arch = value_of(rd, "operator", "check_arch");
    const char *summary = value_of(rd, "operator", "summary");
    int count = iniparser_getsecnkeys(rd->ini, "operator");
    const char **keys;
    kt_status rc;

    if ((rc = check_keys(rd, "operator", operator_keys, COUNT(operator_keys),
                         "buffer.")))
        return rc;
    if (!name || !*name)
        return bad(rd, "operator", "name", "missing");
    for (const char *p = name; *p; ++p)
        if (!isalnum((unsigned char)*p) && !strchr("_-.", *p))
            return bad(rd, "operator", "name",
                       "'%s' has '%c'; expected letters, digits, '_', '-' "
                       "or '.'",
                       name, *p);
    if (copy_checked(rd, "operator", "name", d->name, sizeof d->name, name))
        return rd->err->status;
    snprintf(d->summary, sizeof d->summary, "%s",
             summary ? summary : "declared operator");
    snprintf(d->check_arch, sizeof d->check_arch, "%s",
             arch ? arch : "compute_80");
    d->modifies_inputs = read_bool(value_of(rd, "operator", "modifies_inputs"));
    if (!source || !*source)
        return bad(rd, "operator", "source", "missing; expected a .cu file");
    if ((rc = read_source(rd, source)) || (rc = read_sizes(rd)))
        return rc;
    keys = calloc((size_t)count, sizeof *keys);
    if (!keys)
        return kt_err_set(rd->err, KT_S_NOMEM, "out of memory");
    iniparser_getseckeys(rd->ini, "operator", keys);
    for (int i = 0; i < count && !rc; ++i) {
        const char *key = strchr(keys[i], ':') + 1;
        if (strncmp(key, "buffer.", 7) == 0)
            rc = read_buffer(rd, key, value_of(rd, "operator", key));
    }
    for (int i = 0; i < count && !rc; ++i) {
        const char *key = strchr(keys[i], ':') + 1;
        if (strncmp(key, "constant.", 9) == 0)
            rc = read_constant(rd, key, value_of(rd, "operator", key));
    }
    free(keys);
    if (rc || (rc = read_args(rd)) || (rc = read_work(rd)) ||
        (rc = read_double(rd, "operator", "rtol", 0.0, &d->rtol)) ||
        (rc = read_double(rd, "operator", "atol", 0.0, &d->atol)))
        return rc;
    if (d->num_buffers == 0)
        return bad(rd, "operator", NULL,
                   "no buffers; declare at least one output as buffer.NAME "
                   "= output TYPE[COUNT]");
    return read_options(rd);
}

/* param.tile = 16, 32, 64: an ascending list; the first is the default. */
static kt_status read_param(reader *rd, kt_decl_variant *v, const char *key,
                            const char *text)
{
    size_t i = v->params[0].struct_size ? 0 : 0;
    char **items = NULL;
    size_t n = 0;
    kt_param_desc *p;
    kt_status rc = KT_S_OK;
    kt_err perr;

    for (i = 0; i < KT_MAX_PARAMS && v->params[i].struct_size; ++i)
        ;
    if (i == KT_MAX_PARAMS)
        return bad(rd, v->section, key, "more than %d parameters",
                   KT_MAX_PARAMS);
    p = &v->params[i];
    if (copy_checked(rd, v->section, key, v->param_names[i],
                     sizeof v->param_names[i], key + strlen("param.")))
        return rd->err->status;
    if (kt_parse_list(text, &items, &n, rd->err))
        return bad_from(rd, v->section, key);
    if (!(v->values[i] = calloc(n ? n : 1, sizeof *v->values[i])))
        rc = kt_err_set(rd->err, KT_S_NOMEM, "out of memory");
    for (size_t k = 0; k < n && !rc; ++k)
        if (kt_parse_i64(items[k], v->param_names[i], &v->values[i][k],
                         rd->err))
            rc = bad_from(rd, v->section, key);
    free(items);
    if (rc)
        return rc;
    *p = (kt_param_desc){.struct_size = sizeof *p,
                         .kind = KT_PARAM_LIST,
                         .name = v->param_names[i],
                         .help = "declared parameter",
                         .default_value = n ? v->values[i][0] : 0,
                         .values = v->values[i],
                         .count = (uint32_t)n};
    if (kt_param_validate(p, &perr))
        return bad(rd, v->section, key, "%s", perr.msg);
    return KT_S_OK;
}

/* kernel = tiled<tile, pad>: the name into name[name_size], then each
 * template argument as an expression of sizes and parameters (v's names)
 * into targs[0..*num). */
static kt_status parse_kernel(reader *rd, const kt_decl_variant *v,
                              const char *key, const char *text, char *name,
                              size_t name_size, kt_expr **targs, size_t *num)
{
    char buf[512], *open, *close, *items[KT_DECL_MAX_TARGS + 1];
    size_t n;

    if (!text || !*text)
        return bad(rd, v->section, key,
                   "missing; expected the __global__ function's name");
    if (copy_checked(rd, v->section, key, buf, sizeof buf, text))
        return rd->err->status;
    open = strchr(buf, '<');
    close = strrchr(buf, '>');
    if (open && (!close || kt_parse_trim(close + 1)[0]))
        return bad(rd, v->section, key, "'%s': expected NAME or NAME<ARG, ...>",
                   text);
    if (open)
        *open = *close = '\0';
    if (copy_checked(rd, v->section, key, name, name_size, kt_parse_trim(buf)))
        return rd->err->status;
    for (const char *p = name; *p; ++p)
        if (!isalnum((unsigned char)*p) && !strchr("_:", *p))
            return bad(rd, v->section, key, "'%s' is not a C++ name", name);
    if (!open)
        return KT_S_OK;
    n = split_top(open + 1, items, KT_DECL_MAX_TARGS + 1);
    if (n > KT_DECL_MAX_TARGS)
        return bad(rd, v->section, key, "more than %d template arguments",
                   KT_DECL_MAX_TARGS);
    for (size_t i = 0; i < n; ++i) {
        if (parse_expr(rd, v->section, key, items[i], v->names, v->num_names,
                       &targs[i]))
            return rd->err->status;
        *num = i + 1;
    }
    return KT_S_OK;
}

static kt_status read_kernel(reader *rd, kt_decl_variant *v)
{
    return parse_kernel(rd, v, "kernel", value_of(rd, v->section, "kernel"),
                        v->kernel, sizeof v->kernel, v->targs, &v->num_targs);
}

static kt_status read_defines(reader *rd, kt_decl_variant *v)
{
    const char *text = value_of(rd, v->section, "defines");
    char buf[8192], *items[KT_DECL_MAX_DEFINES + 1];
    size_t n;

    if (!text || !*text)
        return KT_S_OK;
    if (split_list(rd, v->section, "defines", text, buf, sizeof buf, items,
                   KT_DECL_MAX_DEFINES, "macros", &n))
        return rd->err->status;
    for (size_t i = 0; i < n; ++i) {
        char *name, *value;
        if (kt_parse_assignment(items[i], &name, &value, rd->err))
            return bad_from(rd, v->section, "defines");
        if (copy_checked(rd, v->section, "defines", v->define_names[i],
                         sizeof v->define_names[i], name))
            return rd->err->status;
        if (parse_expr(rd, v->section, "defines", value, v->names, v->num_names,
                       &v->defines[i]))
            return rd->err->status;
    }
    v->num_defines = n;
    return KT_S_OK;
}

/* The hooks of space = PATH and default.NAME (declared/declared_t1.c), with
 * file:line added to their messages. */
static kt_status t1_said(reader *rd, const kt_decl_variant *v, const char *key,
                         kt_status rc)
{
    if (rc == KT_S_INPUT)
        return bad_from(rd, v->section, key);
    return rc;
}

static kt_status t1_params(reader *rd, kt_decl_variant *v)
{
    const char *text = value_of(rd, v->section, "space");
    if (!text)
        return KT_S_OK;
    return t1_said(rd, v, "space",
                   kt_decl_t1_import(rd->d->path, rd->d->size_name_list,
                                     rd->d->num_sizes, v, text, &rd->t1,
                                     rd->err));
}

static kt_status t1_defaults(reader *rd, kt_decl_variant *v)
{
    const char *key = "default";
    kt_status rc = kt_decl_defaults(v, rd->ini, &key, rd->err);
    return t1_said(rd, v, key, rc);
}

static kt_status t1_finish(reader *rd, kt_decl_variant *v)
{
    kt_status rc =
        t1_said(rd, v, "space", kt_decl_t1_conditions(v, rd->t1, rd->err));
    kt_t1_free(rd->t1);
    rd->t1 = NULL;
    return rc;
}

/* block = tile, 8: up to three expressions; missing ones are 1. */
static kt_status read_dims(reader *rd, kt_decl_variant *v, const char *key,
                           kt_expr **out)
{
    const char *text = value_of(rd, v->section, key);
    char buf[1024], *items[4];
    size_t n;

    if (split_list(rd, v->section, key, text, buf, sizeof buf, items, 3,
                   "1 to 3 expressions (x, y, z), e.g. 'ceil_div(n, 256)'", &n))
        return rd->err->status;
    for (size_t i = 0; i < n; ++i)
        if (parse_expr(rd, v->section, key, items[i], v->names, v->num_names,
                       &out[i]))
            return rd->err->status;
    return KT_S_OK;
}

/* follows = tf, ...: on the reference only, parameters of its own that
 * take the verified point's value (a parameter that changes the answer,
 * such as a number of time steps), one reference per assignment. */
static kt_status read_follows(reader *rd, kt_decl_variant *v)
{
    const char *text = value_of(rd, v->section, "follows");
    char buf[1024], *items[KT_MAX_PARAMS + 1];
    size_t n;

    if (!text || !*text)
        return KT_S_OK;
    if (!v->reference)
        return bad(rd, v->section, "follows",
                   "only the reference variant follows parameters of the "
                   "verified point");
    if (split_list(rd, v->section, "follows", text, buf, sizeof buf, items,
                   KT_MAX_PARAMS, "parameter names", &n))
        return rd->err->status;
    for (size_t i = 0; i < n; ++i) {
        size_t p = 0;
        while (p < KT_MAX_PARAMS && v->params[p].struct_size &&
               strcmp(v->param_names[p], items[i]) != 0)
            ++p;
        if (p == KT_MAX_PARAMS || !v->params[p].struct_size)
            return bad(rd, v->section, "follows",
                       "'%s' is not a parameter of [%s] (declare it as "
                       "param.%s)",
                       items[i], v->section, items[i]);
        v->follows[v->num_follows++] = (int)p;
    }
    return KT_S_OK;
}

/* then.timed = yes | no (default yes). */
static kt_status read_then_timed(reader *rd, const kt_decl_variant *v,
                                 int *timed)
{
    const char *text = value_of(rd, v->section, "then.timed");

    *timed = 1;
    if (!text)
        return KT_S_OK;
    if (!read_bool(text) && strcasecmp(text, "no") != 0 &&
        strcasecmp(text, "false") != 0 && strcmp(text, "0") != 0)
        return bad(rd, v->section, "then.timed", "'%s': expected yes or no",
                   text);
    *timed = read_bool(text);
    return KT_S_OK;
}

/* then = KERNEL with then.args, then.block, then.grid (required), then.smem
 * and then.timed: the variant's second kernel (kt_decl_then), whose
 * expressions read the sizes and the variant's parameters. */
static kt_status read_then(reader *rd, kt_decl_variant *v)
{
    const char *text = value_of(rd, v->section, "then");
    arg_site at = {v->section, "then.args", v->names, v->num_names};
    kt_decl_then *t;
    kt_status rc;

    if (!text) {
        for (size_t k = 0; k < COUNT(then_keys); ++k)
            if (value_of(rd, v->section, then_keys[k]))
                return bad(rd, v->section, then_keys[k],
                           "without 'then = KERNEL', the second kernel it "
                           "belongs to");
        return KT_S_OK;
    }
    if (!(t = v->then = calloc(1, sizeof *t)))
        return kt_err_set(rd->err, KT_S_NOMEM, "out of memory");
    if ((rc = parse_kernel(rd, v, "then", text, t->kernel, sizeof t->kernel,
                           t->targs, &t->num_targs)) ||
        (rc = parse_args(rd, &at, value_of(rd, v->section, "then.args"),
                         t->args, &t->num_args)) ||
        (rc = read_dims(rd, v, "then.block", t->block)) ||
        (rc = read_dims(rd, v, "then.grid", t->grid)) ||
        (rc = read_then_timed(rd, v, &t->timed)))
        return rc;
    if ((text = value_of(rd, v->section, "then.smem")))
        return parse_expr(rd, v->section, "then.smem", text, v->names,
                          v->num_names, &t->smem);
    return KT_S_OK;
}

static kt_status read_variant(reader *rd, const char *section)
{
    kt_declared *d = rd->d;
    kt_decl_variant *v;
    int count = iniparser_getsecnkeys(rd->ini, section);
    const char **keys, *text;
    kt_status rc = KT_S_OK;

    /* read_sections made room for every [variant.*] section. */
    v = &d->variants[d->num_variants++];
    if (copy_checked(rd, section, NULL, v->section, sizeof v->section,
                     section) ||
        copy_checked(rd, section, NULL, v->id, sizeof v->id,
                     section + strlen("variant.")))
        return rd->err->status;
    if ((rc = check_keys(rd, section, variant_keys, COUNT(variant_keys),
                         "param.")))
        return rc;
    if (!(keys = calloc((size_t)(count > 0 ? count : 1), sizeof *keys)))
        return kt_err_set(rd->err, KT_S_NOMEM, "out of memory");
    iniparser_getseckeys(rd->ini, section, keys);
    for (int i = 0; i < count && !rc; ++i) {
        const char *key = strchr(keys[i], ':') + 1;
        if (strncmp(key, "param.", 6) == 0)
            rc = read_param(rd, v, key, value_of(rd, section, key));
    }
    free(keys);
    if (rc || (rc = t1_params(rd, v)))
        return rc;
    for (size_t i = 0; i < d->num_sizes; ++i)
        v->names[v->num_names++] = d->size_names[i];
    for (size_t i = 0; i < KT_MAX_PARAMS && v->params[i].struct_size; ++i)
        v->names[v->num_names++] = v->param_names[i];
    if ((rc = t1_defaults(rd, v)) || (rc = read_kernel(rd, v)) ||
        (rc = read_defines(rd, v)) ||
        (rc =
             t1_said(rd, v, "space", kt_decl_t1_defines(v, rd->t1, rd->err))) ||
        (rc = read_dims(rd, v, "block", v->block)) ||
        (rc = read_dims(rd, v, "grid", v->grid)))
        return rc;
    if ((text = value_of(rd, section, "smem")) &&
        (rc = parse_expr(rd, section, "smem", text, v->names, v->num_names,
                         &v->smem)))
        return rc;
    if ((text = value_of(rd, section, "require")) &&
        (rc = parse_expr(rd, section, "require", text, v->names, v->num_names,
                         &v->require)))
        return rc;
    if ((rc = read_then(rd, v)) || (rc = t1_finish(rd, v)))
        return rc;
    v->reference = read_bool(value_of(rd, section, "reference"));
    if ((rc = read_follows(rd, v)) || (rc = read_variant_work(rd, v)))
        return rc;
    for (size_t i = 0; i < v->num_targs; ++i)
        v->compile_time_mask |= kt_expr_uses(v->targs[i]) >> d->num_sizes;
    for (size_t i = 0; i < v->num_defines; ++i)
        v->compile_time_mask |= kt_expr_uses(v->defines[i]) >> d->num_sizes;
    for (size_t i = 0; v->then && i < v->then->num_targs; ++i)
        v->compile_time_mask |= kt_expr_uses(v->then->targs[i]) >> d->num_sizes;
    return KT_S_OK;
}

kt_status kt_declared_eval(const kt_decl_variant *v, const kt_expr *e,
                           const int64_t *sizes, size_t num_sizes,
                           const int64_t *values, int64_t *out, kt_err *err)
{
    int64_t env[KT_MAX_SIZES + KT_MAX_PARAMS];
    size_t np = v ? v->num_names - num_sizes : 0;
    memcpy(env, sizes, num_sizes * sizeof *env);
    if (np)
        memcpy(env + num_sizes, values, np * sizeof *env);
    return kt_expr_eval(e, env, out, err);
}

/* NAME<targ, ...> of a kernel of variant v at sizes and values into
 * expr[expr_size]. */
static kt_status name_expr(const kt_declared *d, const kt_decl_variant *v,
                           const char *kernel, kt_expr *const *targs,
                           size_t num_targs, const int64_t *sizes,
                           const int64_t *values, char *expr, size_t expr_size,
                           kt_err *err)
{
    size_t used = (size_t)snprintf(expr, expr_size, "%s", kernel);
    int64_t x;
    kt_status rc;

    for (size_t i = 0; i < num_targs; ++i) {
        if ((rc = kt_declared_eval(v, targs[i], sizes, d->num_sizes, values, &x,
                                   err)))
            return rc;
        if (used < expr_size)
            used += (size_t)snprintf(expr + used, expr_size - used, "%s%lld",
                                     i ? ", " : "<", (long long)x);
    }
    if (num_targs && used < expr_size)
        used += (size_t)snprintf(expr + used, expr_size - used, ">");
    if (used >= expr_size)
        return kt_err_set(err, KT_S_INPUT, "kernel name of '%s' too long",
                          v->id);
    return KT_S_OK;
}

kt_status kt_declared_kernel_name(const kt_declared *d, size_t vi,
                                  const int64_t *sizes, const int64_t *values,
                                  char *expr, size_t expr_size,
                                  char defs[][KT_DECL_DEFINE_LEN], kt_err *err)
{
    const kt_decl_variant *v = &d->variants[vi];
    int64_t x;
    kt_status rc;

    if ((rc = name_expr(d, v, v->kernel, v->targs, v->num_targs, sizes, values,
                        expr, expr_size, err)))
        return rc;
    for (size_t i = 0; i < v->num_defines; ++i) {
        if ((rc = kt_declared_eval(v, v->defines[i], sizes, d->num_sizes,
                                   values, &x, err)))
            return rc;
        snprintf(defs[i], KT_DECL_DEFINE_LEN, "-D%s=%lld", v->define_names[i],
                 (long long)x);
    }
    return KT_S_OK;
}

/* Static checks appended to the source: the kernel takes exactly the
 * declared arguments, pointers to the declared element types and scalars
 * of the declared types. Every name in them is ktune_-prefixed: the
 * source's own macros are still defined here (#define T 4, value, count
 * would otherwise rewrite the checks and refuse a valid kernel). Caught by
 * NVRTC, without a GPU, and before a launch could pass bytes the kernel reads
 * as something else. */
static const char check_prelude[] =
    "\n#line 1 \"ktune-declared-check\"\n"
    "namespace ktune_check {\n"
    "template <class ktune_A, class ktune_B> struct ktune_same { enum { "
    "ktune_value = 0 }; };\n"
    "template <class ktune_A> struct ktune_same<ktune_A, ktune_A> { enum { "
    "ktune_value = 1 }; };\n"
    "template <class ktune_F> struct ktune_sig { enum { ktune_count = -1 }; "
    "};\n"
    "template <class... ktune_P> struct ktune_sig<void(ktune_P...)> {\n"
    "    enum { ktune_count = sizeof...(ktune_P) };\n};\n"
    "template <int ktune_I, class ktune_F> struct ktune_arg { typedef void "
    "ktune_type; };\n"
    "template <class ktune_H, class... ktune_T> struct ktune_arg<0, "
    "void(ktune_H, ktune_T...)> {\n"
    "    typedef ktune_H ktune_type;\n};\n"
    "template <int ktune_I, class ktune_H, class... ktune_T> struct "
    "ktune_arg<ktune_I, void(ktune_H, ktune_T...)> {\n"
    "    typedef typename ktune_arg<ktune_I - 1, void(ktune_T...)>::ktune_type "
    "ktune_type;\n};\n"
    "template <class ktune_P, class ktune_E> struct ktune_ptr {\n"
    "    enum { ktune_value = ktune_same<ktune_P, ktune_E *>::ktune_value || "
    "ktune_same<ktune_P, const ktune_E *>::ktune_value };\n"
    "};\n"
    "template <class ktune_P> struct ktune_ptr2 { enum { ktune_value = 0 }; "
    "};\n"
    "template <class ktune_E> struct ktune_ptr2<ktune_E *> {\n"
    "    enum { ktune_value = sizeof(ktune_E) == 2 };\n};\n"
    "} // namespace ktune_check\n";

static size_t append(char *out, size_t used, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t append(char *out, size_t used, size_t size, const char *fmt, ...)
{
    va_list ap;
    if (used >= size)
        return used;
    va_start(ap, fmt);
    used += (size_t)vsnprintf(out + used, size - used, fmt, ap);
    va_end(ap);
    return used;
}

/* The C spelling of argument a's declared type ("float", a view's type). */
static const char *arg_type_c(const kt_decl_arg *a, const kt_declared *d)
{
    if (a->buffer >= 0 && a->view[0])
        return a->view;
    return type_c[a->buffer >= 0 ? d->buffers[a->buffer].type : a->type];
}

/* "ktune_ptr<T, float>::ktune_value" or "ktune_same<T, int>::ktune_value", with
 * the 64-bit and 8-bit integer types accepted under either spelling; a view's
 * type as written; f16 as any 2-byte pointee (__half needs cuda_fp16.h, which
 * the source may not include). */
static void type_test(const kt_decl_arg *a, const kt_declared *d, int i,
                      const char *fn, char *out, size_t size)
{
    kt_decl_type t = a->buffer >= 0 ? d->buffers[a->buffer].type : a->type;
    const char *tmpl = a->buffer >= 0 ? "ktune_ptr" : "ktune_same";
    const char *alt = t == KT_DECL_I64   ? "long"
                      : t == KT_DECL_U64 ? "unsigned long"
                      : t == KT_DECL_I8  ? "char"
                                         : NULL;
    if (a->buffer >= 0 && a->view[0])
        snprintf(out, size,
                 "ktune_check::ktune_ptr<ktune_check::ktune_arg<%d, "
                 "%s>::ktune_type, "
                 "%s>::ktune_value",
                 i, fn, a->view);
    else if (a->buffer >= 0 && t == KT_DECL_F16)
        snprintf(out, size,
                 "ktune_check::ktune_ptr2<ktune_check::ktune_arg<%d, "
                 "%s>::ktune_type>::ktune_value",
                 i, fn);
    else if (!alt)
        snprintf(out, size,
                 "ktune_check::%s<ktune_check::ktune_arg<%d, %s>::ktune_type, "
                 "%s>::ktune_value",
                 tmpl, i, fn, type_c[t]);
    else
        snprintf(
            out, size,
            "(ktune_check::%s<ktune_check::ktune_arg<%d, %s>::ktune_type, "
            "%s>::ktune_value || ktune_check::%s<ktune_check::ktune_arg<%d, "
            "%s>::ktune_type, %s>::ktune_value)",
            tmpl, i, fn, type_c[t], tmpl, i, fn, alt);
}

/* The checks that the kernel name_expr takes exactly args[0..n), appended
 * to out at used (of size). */
static size_t append_checks(const kt_declared *d, const char *name_expr,
                            const kt_decl_arg *args, size_t n, char *out,
                            size_t used, size_t size)
{
    const char *site = args == d->args ? "[operator] args" : "then.args";
    char fn[400], test[1200];

    snprintf(fn, sizeof fn, "decltype(%s)", name_expr);
    used =
        append(out, used, size,
               "static_assert(ktune_check::ktune_sig<%s>::ktune_count == %zu, "
               "\"ktune: %s does not take %zu arguments as %s "
               "declares\");\n",
               fn, n, name_expr, n, site);
    for (size_t i = 0; i < n; ++i) {
        const kt_decl_arg *a = &args[i];
        type_test(a, d, (int)i, fn, test, sizeof test);
        used = append(
            out, used, size,
            "static_assert(ktune_check::ktune_sig<%s>::ktune_count != %zu || "
            "%s, \"ktune: argument %zu of %s is not %s%s as "
            "%s declares ('%s')\");\n",
            fn, n, test, i + 1, name_expr,
            a->buffer >= 0 ? "a pointer to " : "", arg_type_c(a, d), site,
            a->text);
    }
    return used;
}

/* The source, the check prelude and the checks of a kernel, and of a
 * second one when then_expr is not NULL. */
static char *checked_source(const kt_declared *d, const char *name_expr,
                            const kt_decl_arg *args, size_t n,
                            const char *then_expr, const kt_decl_then *t)
{
    size_t size = strlen(d->source) + sizeof check_prelude + 1200 +
                  n * (800 + 4 * strlen(name_expr));
    char *out;
    size_t used;

    if (then_expr)
        size += t->num_args * (800 + 4 * strlen(then_expr));
    if (!(out = malloc(size)))
        return NULL;
    used = (size_t)snprintf(out, size, "%s%s", d->source, check_prelude);
    used = append_checks(d, name_expr, args, n, out, used, size);
    if (then_expr)
        append_checks(d, then_expr, t->args, t->num_args, out, used, size);
    return out;
}

char *kt_declared_source(const kt_declared *d, const char *name_expr,
                         const kt_decl_arg *args, size_t n)
{
    return checked_source(d, name_expr, args, n, NULL, NULL);
}

char *kt_declared_gen_source(const kt_declared *d, size_t b)
{
    const char *text = d->gen_source ? d->gen_source : d->source;
    const char *k = d->buffers[b].fill.kernel;
    size_t size = strlen(text) + sizeof check_prelude + 1200 + 6 * strlen(k);
    char *out = malloc(size), fn[200], test[600];
    kt_decl_arg a = {.buffer = (int)b};
    size_t used;

    if (!out)
        return NULL;
    snprintf(fn, sizeof fn, "decltype(%s)", k);
    type_test(&a, d, 0, fn, test, sizeof test);
    used = (size_t)snprintf(out, size, "%s%s", text, check_prelude);
    append(
        out, used, size,
        "static_assert(ktune_check::ktune_sig<%s>::ktune_count == 3 && %s && "
        "(ktune_check::ktune_same<ktune_check::ktune_arg<1, %s>::ktune_type, "
        "unsigned long "
        "long>::ktune_value || "
        "ktune_check::ktune_same<ktune_check::ktune_arg<1, %s>::ktune_type, "
        "unsigned long>::ktune_value) && "
        "ktune_check::ktune_same<ktune_check::ktune_arg<2, "
        "%s>::ktune_type, unsigned long long>::ktune_value, \"ktune: generator "
        "%s "
        "does not take (%s *out, size_t count, unsigned long long "
        "seed)\");\n",
        fn, test, fn, fn, fn, k, type_c[d->buffers[b].type]);
    return out;
}

kt_status kt_declared_gen_request(const kt_declared *d, size_t b,
                                  const int64_t *sizes, kt_decl_gen *g,
                                  kt_err *err)
{
    memset(g, 0, sizeof *g);
    g->src = kt_declared_gen_source(d, b);
    g->opts = calloc(d->num_options + d->num_sizes + 1, sizeof *g->opts);
    if (!g->src || !g->opts)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    for (size_t i = 0; i < d->num_options; ++i)
        g->opts[g->num_opts++] = d->options[i];
    for (size_t i = 0; i < d->num_sizes; ++i) {
        snprintf(g->defs[i], sizeof g->defs[i], "-DKTUNE_SIZE_%s=%lld",
                 d->size_names[i], (long long)sizes[i]);
        g->opts[g->num_opts++] = g->defs[i];
    }
    return KT_S_OK;
}

void kt_decl_gen_free(kt_decl_gen *g)
{
    free(g->src);
    free(g->opts);
    memset(g, 0, sizeof *g);
}

/* src with the variant's defines (b->defs, "-DNAME=VALUE") written as
 * #define lines before it, then a #line back to the source's own first
 * line; src is freed. Not -D options: NVRTC applies those before its
 * built-in header, whose members (x, y, z, w, value, pad, type, T) a
 * parameter of that name would rename, refusing a valid kernel. Written
 * into the source, a macro reaches the kernel as Kernel Tuner's do. */
static char *with_defines(const kt_declared *d, const kt_decl_variant *v,
                          char defs[][KT_DECL_DEFINE_LEN], char *src)
{
    size_t size, used = 0;
    char *out;

    if (!src)
        return NULL;
    size = strlen(src) + 2 * strlen(d->source_name) + 64;
    for (size_t i = 0; i < v->num_defines; ++i)
        size += strlen(defs[i]) + 16;
    if (!(out = malloc(size))) {
        free(src);
        return NULL;
    }
    for (size_t i = 0; i < v->num_defines; ++i) {
        const char *eq = strchr(defs[i] + 2, '=');
        used = append(out, used, size, "#define %.*s %s\n",
                      (int)(eq - (defs[i] + 2)), defs[i] + 2, eq + 1);
    }
    if (v->num_defines) {
        used = append(out, used, size, "#line 1 \"");
        for (const char *c = d->source_name; *c; ++c)
            used = append(out, used, size, "%s%c",
                          *c == '"' || *c == '\\' ? "\\" : "", *c);
        used = append(out, used, size, "\"\n");
    }
    append(out, used, size, "%s", src);
    free(src);
    return out;
}

/* The name expression and options of variant vi's kernel at values (no
 * source yet): what its compile and its then-kernel's share. */
static kt_status request_options(const kt_declared *d, size_t vi,
                                 const int64_t *sizes, const int64_t *values,
                                 kt_decl_request *b, kt_err *err)
{
    kt_status rc;

    b->num_opts = 0;
    b->src = NULL;
    if ((rc = kt_declared_kernel_name(d, vi, sizes, values, b->name,
                                      sizeof b->name, b->defs, err)))
        return rc;
    for (size_t i = 0; i < d->num_options && b->num_opts < 64; ++i)
        b->opts[b->num_opts++] = d->options[i];
    return KT_S_OK; /* the defines go into the source (with_defines) */
}

kt_status kt_declared_request(const kt_declared *d, size_t vi,
                              const int64_t *sizes, const int64_t *values,
                              kt_decl_request *b, kt_err *err)
{
    const kt_decl_then *t = d->variants[vi].then;
    kt_status rc;

    if ((rc = request_options(d, vi, sizes, values, b, err)))
        return rc;
    /* A then-kernel that is no template is in this compile's module, and
     * is taken from it (engine/declared_run.c): its arguments are checked
     * here, at every configuration. */
    b->src =
        with_defines(d, &d->variants[vi], b->defs,
                     checked_source(d, b->name, d->args, d->num_args,
                                    t && !t->num_targs ? t->kernel : NULL, t));
    if (!b->src)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    return KT_S_OK;
}

kt_status kt_declared_then_request(const kt_declared *d, size_t vi,
                                   const int64_t *sizes, const int64_t *values,
                                   kt_decl_request *b, kt_err *err)
{
    const kt_decl_then *t = d->variants[vi].then;
    kt_status rc;

    if (!t) {
        b->src = NULL;
        return kt_err_set(err, KT_S_INPUT, "[%s] has no then-kernel",
                          d->variants[vi].section);
    }
    /* The first kernel's options and defines, then its own name. */
    if ((rc = request_options(d, vi, sizes, values, b, err)) ||
        (rc = name_expr(d, &d->variants[vi], t->kernel, t->targs, t->num_targs,
                        sizes, values, b->name, sizeof b->name, err)))
        return rc;
    if (!(b->src = with_defines(
              d, &d->variants[vi], b->defs,
              kt_declared_source(d, b->name, t->args, t->num_args))))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    return KT_S_OK;
}

/* Whether v's require (a T1 file's Conditions among it) holds at the
 * default point: 1, 0 when false, -1 when it fails to evaluate. One that
 * is false, or a T1 file's Condition that fails there, rules that point
 * out, as it does any point: v's other expressions need not hold there,
 * and the space is searched from its feasible points. */
static int default_allowed(const kt_declared *d, const kt_decl_variant *v,
                           const int64_t *sizes, const int64_t *vals)
{
    int64_t ok = 1;
    kt_err ignored;
    if (v->require && kt_declared_eval(v, v->require, sizes, d->num_sizes, vals,
                                       &ok, &ignored))
        return -1;
    return ok != 0;
}

static kt_status eval_at(const reader *rd, const kt_decl_variant *v,
                         const char *section, const char *key, const kt_expr *e,
                         const int64_t *sizes, const int64_t *values)
{
    int64_t x;
    if (e &&
        kt_declared_eval(v, e, sizes, rd->d->num_sizes, values, &x, rd->err))
        return bad(rd, section, key, "at the defaults: %s", rd->err->msg);
    return KT_S_OK;
}

/* The default sizes and, with v, v's default parameter values. */
static void defaults(const kt_declared *d, const kt_decl_variant *v,
                     int64_t *sizes, int64_t *vals)
{
    for (size_t i = 0; i < d->num_sizes; ++i)
        sizes[i] = d->sizes[i].default_value;
    for (size_t i = 0; v && i < KT_MAX_PARAMS; ++i)
        vals[i] = v->params[i].default_value;
}

/* A .npy input holds exactly the buffer's elements at the defaults. */
static kt_status check_npy_count(reader *rd, const kt_decl_buffer *b,
                                 const char *key, const int64_t *sizes)
{
    size_t have = 0;
    long offset = 0;
    int64_t n = 0;

    if (b->fill.kind != KT_FILL_NPY ||
        kt_declared_eval(NULL, b->count, sizes, rd->d->num_sizes, NULL, &n,
                         rd->err))
        return KT_S_OK;
    if (kt_decl_npy_header(b->fill.path, b->type, &have, &offset, rd->err))
        return bad_from(rd, "operator", key);
    if ((int64_t)have != n)
        return bad(rd, "operator", key,
                   "'%s' holds %zu elements; the buffer has %lld at the "
                   "default sizes",
                   b->fill.path, have, (long long)n);
    return KT_S_OK;
}

/* Every expression once, at the default sizes and each variant's default
 * parameters: mistakes the parser cannot see (division by zero, overflow)
 * are the declaration's, not a point's. */
static kt_status check_defaults(reader *rd)
{
    const kt_declared *d = rd->d;
    int64_t sizes[KT_MAX_SIZES];
    kt_status rc = KT_S_OK;

    defaults(d, NULL, sizes, NULL);
    for (size_t i = 0; i < d->num_buffers && !rc; ++i) {
        char key[80];
        snprintf(key, sizeof key, "buffer.%s", d->buffers[i].name);
        rc = eval_at(rd, NULL, "operator", key, d->buffers[i].count, sizes,
                     NULL);
        if (!rc)
            rc = check_npy_count(rd, &d->buffers[i], key, sizes);
    }
    for (size_t i = 0; i < d->num_args && !rc; ++i) {
        double f;
        if (d->args[i].buffer < 0 &&
            kt_declared_scalar(d, &d->args[i], sizes, &f, rd->err))
            rc = bad(rd, "operator", "args", "at the defaults: %s",
                     rd->err->msg);
    }
    if (rc ||
        (rc = eval_at(rd, NULL, "operator", "flops", d->flops, sizes, NULL)) ||
        (rc = eval_at(rd, NULL, "operator", "bytes_read", d->bytes_read, sizes,
                      NULL)) ||
        (rc = eval_at(rd, NULL, "operator", "bytes_written", d->bytes_written,
                      sizes, NULL)))
        return rc;
    for (size_t vi = 0; vi < d->num_variants && !rc; ++vi) {
        const kt_decl_variant *v = &d->variants[vi];
        int64_t vals[KT_MAX_PARAMS];
        int allowed;
        defaults(d, v, sizes, vals);
        /* A declaration's own require that fails at its defaults (1 / 0)
         * is its mistake; a T1 file's Conditions are Python's to rule. */
        if ((allowed = default_allowed(d, v, sizes, vals)) < 0 &&
            !v->imported_mask)
            rc = eval_at(rd, v, v->section, "require", v->require, sizes, vals);
        if (allowed <= 0)
            continue;
        for (int k = 0; k < 3 && !rc; ++k)
            if (!(rc = eval_at(rd, v, v->section, "block", v->block[k], sizes,
                               vals)))
                rc =
                    eval_at(rd, v, v->section, "grid", v->grid[k], sizes, vals);
        for (size_t k = 0; k < v->num_targs && !rc; ++k)
            rc = eval_at(rd, v, v->section, "kernel", v->targs[k], sizes, vals);
        for (size_t k = 0; k < v->num_defines && !rc; ++k)
            rc = eval_at(rd, v, v->section, "defines", v->defines[k], sizes,
                         vals);
        if (!rc)
            rc = eval_at(rd, v, v->section, "smem", v->smem, sizes, vals);
        for (int k = 0; k < 3 && !rc; ++k)
            rc = eval_at(rd, v, "operator", "flops", v->work[k], sizes, vals);
    }
    return rc;
}

/* KT_S_INPUT unless e (when given) is at least lo at the defaults; what
 * names the quantity ("a block dimension"). Evaluation errors were found
 * by check_defaults. */
static kt_status at_least(const reader *rd, const kt_decl_variant *v,
                          const char *section, const char *key,
                          const kt_expr *e, const int64_t *sizes,
                          const int64_t *values, int64_t lo, const char *what)
{
    int64_t x;

    if (!e || kt_declared_eval(v, e, sizes, rd->d->num_sizes, values, &x,
                               rd->err) != KT_S_OK)
        return KT_S_OK;
    if (x < lo)
        return bad(rd, section, key,
                   "at the defaults %s is %lld; expected %lld or more (%s)",
                   what, (long long)x, (long long)lo,
                   lo > 0 ? "no kernel launches with it" : "work is counted");
    return KT_S_OK;
}

/* One kernel's launch of variant v at the defaults: block and grid
 * dimensions of 1 or more, dynamic shared memory of 0 or more. prefix is
 * "" for the kernel's keys, "then." for its then-kernel's. */
static kt_status launchable(reader *rd, const kt_decl_variant *v,
                            const char *prefix, kt_expr *const *block,
                            kt_expr *const *grid, const kt_expr *smem,
                            const int64_t *sizes, const int64_t *vals)
{
    char keys[3][32];
    kt_status rc = KT_S_OK;

    snprintf(keys[0], sizeof keys[0], "%sblock", prefix);
    snprintf(keys[1], sizeof keys[1], "%sgrid", prefix);
    snprintf(keys[2], sizeof keys[2], "%ssmem", prefix);
    for (int k = 0; k < 3 && !rc; ++k)
        if (!(rc = at_least(rd, v, v->section, keys[0], block[k], sizes, vals,
                            1, "a block dimension")))
            rc = at_least(rd, v, v->section, keys[1], grid[k], sizes, vals, 1,
                          "a grid dimension");
    if (!rc)
        rc = at_least(rd, v, v->section, keys[2], smem, sizes, vals, 0,
                      "the dynamic shared memory");
    return rc;
}

/* Values no launch can take, refused at the defaults: a block or grid
 * dimension below 1, negative dynamic shared memory, a buffer of fewer
 * than one element. */
static kt_status check_launchable(reader *rd)
{
    const kt_declared *d = rd->d;
    int64_t sizes[KT_MAX_SIZES], vals[KT_MAX_PARAMS];
    kt_status rc = KT_S_OK;

    defaults(d, NULL, sizes, NULL);
    for (size_t i = 0; i < d->num_buffers && !rc; ++i) {
        char key[80];
        snprintf(key, sizeof key, "buffer.%s", d->buffers[i].name);
        rc = at_least(rd, NULL, "operator", key, d->buffers[i].count, sizes,
                      NULL, 1, "the element count");
    }
    /* Work is counted, never negative: a GFLOP/s objective would rank a
     * negative count as the worst, or a negative time's as the best. */
    if (!rc)
        rc = at_least(rd, NULL, "operator", "flops", d->flops, sizes, NULL, 0,
                      "the flop count");
    if (!rc)
        rc = at_least(rd, NULL, "operator", "bytes_read", d->bytes_read, sizes,
                      NULL, 0, "the byte count");
    if (!rc)
        rc = at_least(rd, NULL, "operator", "bytes_written", d->bytes_written,
                      sizes, NULL, 0, "the byte count");
    for (size_t vi = 0; vi < d->num_variants && !rc; ++vi) {
        const kt_decl_variant *v = &d->variants[vi];
        const kt_decl_then *t = v->then;
        defaults(d, v, sizes, vals);
        if (default_allowed(d, v, sizes, vals) <= 0)
            continue;
        rc = launchable(rd, v, "", v->block, v->grid, v->smem, sizes, vals);
        for (int k = 0; k < 3 && !rc; ++k)
            rc = at_least(rd, v, "operator", work_keys[k], v->work[k], sizes,
                          vals, 0, k < 2 ? "the byte count" : "the flop count");
        if (!rc && t)
            rc = launchable(rd, v, "then.", t->block, t->grid, t->smem, sizes,
                            vals);
    }
    return rc;
}

/* NVRTC refused the options of a compile (NVRTC_ERROR_INVALID_OPTION): an
 * empty kernel compiled with check_arch alone, then with each of options in
 * turn, names the line and the value at fault (KT_S_INPUT). */
static kt_status blame_option(reader *rd)
{
    static const char probe[] = "extern \"C\" __global__ void kt_probe() {}";
    const kt_declared *d = rd->d;

    for (size_t i = 0; i <= d->num_options; ++i) {
        const char *one = i ? d->options[i - 1] : NULL;
        kt_decl_compile req = {probe,         "options.cu",    "kt_probe",
                               d->check_arch, i ? &one : NULL, i ? 1 : 0};
        kt_decl_compiled out;
        kt_err e;
        int refused;

        memset(&out, 0, sizeof out);
        refused = rd->compile(&req, &out, &e) &&
                  strstr(e.msg, "NVRTC_ERROR_INVALID_OPTION");
        free(out.image);
        if (refused && i == 0)
            return bad(rd, "operator", "check_arch",
                       "NVRTC does not know '%s' (expected a virtual "
                       "architecture such as compute_80 or compute_90)",
                       d->check_arch);
        if (refused)
            return bad(rd, "operator", "options",
                       "NVRTC refuses the option '%s'", one);
    }
    return bad(rd, "operator", "options",
               "NVRTC refuses these options together: %s", rd->err->msg);
}

/* Compiles each variant's default kernel for check_arch: an unknown kernel
 * or arguments that do not match are the declaration's mistakes, found
 * here without a GPU (and cached, so a later load compiles nothing). */
/* The bytes of __constant__ symbol sym in PTX text (".const .align 4 .b8
 * d_filter[4356];"); 0 when it declares none, -1 when it does with a
 * shape not in bytes. */
static long long ptx_const_bytes(const char *ptx, const char *sym)
{
    size_t n = strlen(sym);
    for (const char *p = ptx; p && (p = strstr(p, ".const ")); p += 7) {
        const char *end = strchr(p, ';'), *at = p;
        while (end && (at = strstr(at, sym)) && at < end) {
            if (isspace((unsigned char)at[-1]) &&
                (at[n] == '[' || at[n] == ';' || isspace((unsigned char)at[n])))
                return at[n] == '[' && strstr(p, ".b8 ") &&
                               strstr(p, ".b8 ") < at
                           ? atoll(at + n + 1)
                           : -1;
            at += n;
        }
    }
    return 0;
}

/* Each constant.SYMBOL against the PTX of a variant's default kernel: the
 * symbol exists and holds the buffer at the default sizes. */
static kt_status check_constants(reader *rd, const char *ptx)
{
    const kt_declared *d = rd->d;
    int64_t sizes[KT_MAX_SIZES], n = 0;

    defaults(d, NULL, sizes, NULL);
    for (size_t i = 0; i < d->num_constants; ++i) {
        const kt_decl_constant *c = &d->constants[i];
        const kt_decl_buffer *b = &d->buffers[c->buffer];
        long long have = ptx_const_bytes(ptx, c->symbol), need;
        char key[80];
        snprintf(key, sizeof key, "constant.%s", c->symbol);
        if (have == 0)
            return bad(rd, "operator", key,
                       "the compiled source has no __constant__ symbol "
                       "'%s' (declare it at namespace scope and use it)",
                       c->symbol);
        if (kt_declared_eval(NULL, b->count, sizes, d->num_sizes, NULL, &n,
                             rd->err))
            return bad_from(rd, "operator", key);
        need = (long long)n * (long long)kt_decl_type_size(b->type);
        if (have > 0 && need > have)
            return bad(rd, "operator", key,
                       "buffer '%s' has %lld bytes at the defaults; the "
                       "symbol holds %lld",
                       b->name, need, have);
    }
    return KT_S_OK;
}

/* Compiles req for check_arch: KT_S_INPUT at section/key with the first
 * error when it does not compile; a missing NVRTC is only a warning. */
static kt_status check_one(reader *rd, const kt_decl_compile *req,
                           const char *section, const char *key)
{
    kt_decl_compiled out;
    kt_status rc = KT_S_OK;

    if (!rd->compile)
        return KT_S_OK;
    memset(&out, 0, sizeof out);
    if (rd->compile(req, &out, rd->err)) {
        if (strstr(rd->err->msg, "NVRTC_ERROR_INVALID_OPTION"))
            rc = blame_option(rd);
        else /* No usable NVRTC here: the GPU run will say so per point. */
            kt_msg("warning: %s: not checked: %s\n", rd->d->path, rd->err->msg);
    } else if (!out.compiled) {
        rc = bad(rd, section, key, "'%s' does not compile (%s, defaults): %s",
                 req->name_expr, rd->d->check_arch, out.first);
    } else if (strcmp(section, "operator") != 0 && out.image &&
               strncmp(rd->d->check_arch, "compute_", 8) == 0) {
        rc = check_constants(rd, out.image); /* PTX, NUL-terminated */
    }
    free(out.image);
    return rc;
}

/* Each generator kernel, checked like a variant's kernel. */
static kt_status check_generators(reader *rd)
{
    const kt_declared *d = rd->d;
    int64_t sizes[KT_MAX_SIZES];
    kt_status rc = KT_S_OK;

    defaults(d, NULL, sizes, NULL);
    for (size_t b = 0; b < d->num_buffers && !rc; ++b) {
        const kt_decl_buffer *buf = &d->buffers[b];
        char key[80];
        kt_decl_gen g;
        kt_decl_compile req;
        if (buf->fill.kind != KT_FILL_KERNEL)
            continue;
        if ((rc = kt_declared_gen_request(d, b, sizes, &g, rd->err))) {
            kt_decl_gen_free(&g);
            return rc;
        }
        snprintf(key, sizeof key, "buffer.%s", buf->name);
        req = (kt_decl_compile){g.src,
                                d->gen_source ? d->gen_source_name
                                              : d->source_name,
                                buf->fill.kernel,
                                d->check_arch,
                                g.opts,
                                g.num_opts};
        rc = check_one(rd, &req, "operator", key);
        kt_decl_gen_free(&g);
    }
    return rc;
}

/* Variant vi's kernel (then 0) or then-kernel (then 1) compiled at the
 * defaults for check_arch. */
static kt_status check_compile(reader *rd, size_t vi, int then)
{
    const kt_declared *d = rd->d;
    const kt_decl_variant *v = &d->variants[vi];
    const char *key = then ? "then" : "kernel";
    int64_t sizes[KT_MAX_SIZES], vals[KT_MAX_PARAMS];
    kt_decl_request b;
    kt_decl_compile req;
    kt_status rc;

    defaults(d, v, sizes, vals);
    rc = then ? kt_declared_then_request(d, vi, sizes, vals, &b, rd->err)
              : kt_declared_request(d, vi, sizes, vals, &b, rd->err);
    if (rc) {
        free(b.src);
        return rc == KT_S_NOMEM ? rc : bad_from(rd, v->section, key);
    }
    req = (kt_decl_compile){b.src,         d->source_name, b.name,
                            d->check_arch, b.opts,         b.num_opts};
    rc = check_one(rd, &req, v->section, key);
    free(b.src);
    return rc;
}

static kt_status check_compiles(reader *rd)
{
    kt_status rc = KT_S_OK;

    /* The then-kernel first: the first kernel's compile checks its
     * arguments too (when it is taken from that module), and a mistake of
     * then.args is the then key's. */
    for (size_t vi = 0; vi < rd->d->num_variants && !rc; ++vi)
        if (!rd->d->variants[vi].then || !(rc = check_compile(rd, vi, 1)))
            rc = check_compile(rd, vi, 0);
    return rc;
}

static kt_status read_sections(reader *rd)
{
    kt_declared *d = rd->d;
    int n = iniparser_getnsec(rd->ini);
    size_t nv = 0;
    kt_status rc = KT_S_OK;

    /* Allocated once: a variant's names point into itself. */
    for (int i = 0; i < n; ++i)
        nv += strncmp(iniparser_getsecname(rd->ini, i), "variant.", 8) == 0;
    if (nv && !(d->variants = calloc(nv, sizeof *d->variants)))
        return kt_err_set(rd->err, KT_S_NOMEM, "out of memory");
    for (int i = 0; i < n && !rc; ++i) {
        const char *s = iniparser_getsecname(rd->ini, i);
        int known = strcmp(s, "operator") == 0;
        for (size_t k = 0; k < COUNT(job_sections) && !known; ++k)
            known = strcmp(s, job_sections[k]) == 0;
        if (strncmp(s, "variant.", 8) == 0)
            rc = read_variant(rd, s);
        else if (!known)
            rc = bad(rd, s, NULL,
                     "unknown section (expected [operator], "
                     "[variant.ID] or a job's sections)");
    }
    if (rc)
        return rc;
    if (d->num_variants == 0)
        return bad(rd, "operator", NULL,
                   "no variants; declare one as [variant.ID]");
    d->reference = -1;
    for (size_t i = 0; i < d->num_variants; ++i) {
        if (!d->variants[i].reference)
            continue;
        if (d->reference >= 0)
            return bad(rd, d->variants[i].section, "reference",
                       "a second reference (the first is [%s])",
                       d->variants[d->reference].section);
        d->reference = (int)i;
    }
    if (d->reference < 0)
        return bad(rd, "operator", NULL,
                   "no reference: mark one variant 'reference = yes'; its "
                   "output is what the others are verified against");
    return KT_S_OK;
}

int kt_declared_is_declaration(const char *path)
{
    kt_iniloc loc;
    kt_err err;
    int yes;
    if (kt_iniloc_scan(path, &loc, &err))
        return 0;
    yes = kt_iniloc_line(&loc, "operator", NULL) > 0;
    kt_iniloc_free(&loc);
    return yes;
}

kt_status kt_declared_read(const char *path, kt_decl_compile_fn compile,
                           kt_declared **out, kt_err *err)
{
    reader rd = {0};
    kt_status rc;

    *out = NULL;
    rd.err = err;
    rd.compile = compile;
    if (!(rd.d = calloc(1, sizeof *rd.d)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (strlen(path) >= sizeof rd.d->path) {
        free(rd.d);
        return kt_err_set(err, KT_S_INPUT, "%.60s...: path too long", path);
    }
    snprintf(rd.d->path, sizeof rd.d->path, "%s", path);
    kt_decl_dirname(path, rd.d->dir, sizeof rd.d->dir);
    if ((rc = kt_ini_load(path, &rd.ini, err)) ||
        (rc = kt_iniloc_scan(path, &rd.loc, err)))
        goto done;
    if ((rc = read_operator(&rd)) || (rc = read_sections(&rd)) ||
        (rc = check_defaults(&rd)) || (rc = check_launchable(&rd)) ||
        (rc = check_compiles(&rd)) || (rc = check_generators(&rd)))
        goto done;
    *out = rd.d;
    rd.d = NULL;
done:
    if (rd.ini)
        iniparser_freedict(rd.ini);
    kt_iniloc_free(&rd.loc);
    kt_t1_free(rd.t1);
    kt_declared_free(rd.d);
    return rc;
}

static void then_free(kt_decl_then *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->num_targs; ++i)
        kt_expr_free(t->targs[i]);
    for (size_t i = 0; i < t->num_args; ++i)
        kt_expr_free(t->args[i].value);
    for (int k = 0; k < 3; ++k) {
        kt_expr_free(t->block[k]);
        kt_expr_free(t->grid[k]);
    }
    kt_expr_free(t->smem);
    free(t);
}

void kt_declared_free(kt_declared *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->num_buffers; ++i)
        kt_expr_free(d->buffers[i].count);
    for (size_t i = 0; i < d->num_args; ++i)
        kt_expr_free(d->args[i].value);
    kt_expr_free(d->bytes_read);
    kt_expr_free(d->bytes_written);
    kt_expr_free(d->flops);
    free(d->gen_source);
    for (size_t vi = 0; vi < d->num_variants; ++vi) {
        kt_decl_variant *v = &d->variants[vi];
        for (size_t i = 0; i < v->num_targs; ++i)
            kt_expr_free(v->targs[i]);
        for (size_t i = 0; i < v->num_defines; ++i)
            kt_expr_free(v->defines[i]);
        for (int k = 0; k < 3; ++k) {
            kt_expr_free(v->block[k]);
            kt_expr_free(v->grid[k]);
        }
        kt_expr_free(v->smem);
        kt_expr_free(v->require);
        for (int k = 0; k < 3; ++k)
            kt_expr_free(v->work[k]);
        for (size_t i = 0; i < v->num_parts; ++i)
            kt_expr_free(v->parts[i]);
        free(v->parts);
        then_free(v->then);
        for (size_t i = 0; i < KT_MAX_PARAMS; ++i)
            free(v->values[i]);
    }
    free(d->variants);
    free(d->vdesc);
    for (size_t i = 0; i < d->num_options; ++i)
        free(d->options[i]);
    free(d->options);
    free(d->source);
    free(d);
}
