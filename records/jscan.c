// SPDX-License-Identifier: Apache-2.0
#include "records/jscan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/fileio.h"

struct kt_jscan {
    gzFile f;
    char *path;
    size_t max_bytes, read;
    unsigned char buf[1 << 16];
    size_t pos, len;
    int eof, failed; /* failed: 1 a read error, 2 too large */
    long line, col;  /* of the next byte, from 1 */
    char *text;      /* one value's (or key's) text */
    size_t text_len, text_cap;
    long text_line, text_col; /* where the value's text began */
    char *key;                /* the current member's */
    /* Per open object: 1 before its first member. */
    unsigned char *first;
    size_t depth, depth_cap;
    int closed_open; /* an open object ended the file: all end there */
};

static int fill(kt_jscan *s)
{
    int got;
    if (s->eof || s->failed)
        return 0;
    if (s->read > s->max_bytes) {
        s->failed = 2;
        return 0;
    }
    got = gzread(s->f, s->buf, sizeof s->buf);
    if (got < 0)
        s->failed = 1;
    if (got <= 0) {
        s->eof = 1;
        return 0;
    }
    s->read += (size_t)got;
    s->pos = 0;
    s->len = (size_t)got;
    return 1;
}

static int peek_byte(kt_jscan *s)
{
    if (s->pos == s->len && !fill(s))
        return -1;
    return s->buf[s->pos];
}

static int get_byte(kt_jscan *s)
{
    int c = peek_byte(s);
    if (c < 0)
        return c;
    ++s->pos;
    if (c == '\n')
        ++s->line, s->col = 1;
    else
        ++s->col;
    return c;
}

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int kt_jscan_peek(kt_jscan *s)
{
    int c;
    while ((c = peek_byte(s)) >= 0 && is_blank(c))
        get_byte(s);
    return c;
}

/* A syntax error here, or the read error or size that ended the text. */
static kt_status syntax(kt_jscan *s, const char *what, kt_err *err)
{
    if (s->failed == 1)
        return kt_err_set(err, KT_S_INPUT, "%s: read error: %s", s->path,
                          gzerror(s->f, &(int){0}));
    if (s->failed == 2)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: more than %zu bytes; refusing to read it",
                          s->path, s->max_bytes);
    return kt_err_set(err, KT_S_INPUT, "%s:%ld:%ld: %s", s->path, s->line,
                      s->col, what);
}

kt_status kt_jscan_open(const char *path, size_t max_bytes, kt_jscan **out,
                        kt_err *err)
{
    kt_jscan *s;
    kt_status rc;

    *out = NULL;
    if ((rc = kt_file_check_regular(path, "recording", err)))
        return rc;
    if (!(s = calloc(1, sizeof *s)) || !(s->path = strdup(path))) {
        free(s);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    if (!(s->f = gzopen(path, "rb"))) {
        rc = kt_err_set(err, errno == ENOENT ? KT_S_INPUT : KT_S_IO,
                        "%s: cannot open: %s", path, strerror(errno));
        kt_jscan_close(s);
        return rc;
    }
    gzbuffer(s->f, 1u << 17);
    s->max_bytes = max_bytes;
    s->line = s->col = 1;
    *out = s;
    return KT_S_OK;
}

void kt_jscan_close(kt_jscan *s)
{
    if (!s)
        return;
    if (s->f)
        gzclose(s->f);
    free(s->path);
    free(s->text);
    free(s->key);
    free(s->first);
    free(s);
}

static int put(kt_jscan *s, int c)
{
    if (s->text_len + 1 >= s->text_cap) {
        size_t cap = s->text_cap ? 2 * s->text_cap : 4096;
        char *grown = realloc(s->text, cap);
        if (!grown)
            return -1;
        s->text = grown;
        s->text_cap = cap;
    }
    s->text[s->text_len++] = (char)c;
    return 0;
}

/* The bytes from the buffer's position that need no look (in a string:
 * none of '"', '\\' and a line break; outside: none of those, brackets and
 * braces either) copied at once, the position and column moved past
 * them: a 1e6-point cache went through get_byte and put byte by byte, 7%
 * of its replay's CPU (issue 54). -1: out of memory. */
static int copy_plain(kt_jscan *s, int in_string)
{
    const unsigned char *b = s->buf + s->pos, *e = s->buf + s->len, *c = b;
    size_t n;

    while (c < e && *c != '"' && *c != '\\' && *c != '\n' &&
           (in_string || (*c != '{' && *c != '}' && *c != '[' && *c != ']')))
        ++c;
    if (!(n = (size_t)(c - b)))
        return 0;
    if (s->text_len + n + 1 >= s->text_cap) {
        size_t cap = s->text_cap ? 2 * s->text_cap : 4096;
        char *grown;
        while (cap <= s->text_len + n + 1)
            cap *= 2;
        if (!(grown = realloc(s->text, cap)))
            return -1;
        s->text = grown;
        s->text_cap = cap;
    }
    memcpy(s->text + s->text_len, b, n);
    s->text_len += n;
    s->pos += n;
    s->col += (long)n;
    return 0;
}

/* The rest of a string whose '"' was copied: to its closing quote. */
static int copy_string(kt_jscan *s)
{
    int c;
    for (;;) {
        if (copy_plain(s, 1))
            return -2;
        if ((c = get_byte(s)) < 0)
            return -1;
        if (put(s, c))
            return -2;
        if (c == '"')
            return 0;
        if (c == '\\') {
            if ((c = get_byte(s)) < 0 || put(s, c))
                return c < 0 ? -1 : -2;
        }
    }
}

/* One value's text into s->text: a string, an object or array (nesting
 * counted, strings skipped), or a scalar up to a delimiter. 0, -1 at the
 * end of the file inside it, -2 out of memory. */
static int copy_value(kt_jscan *s)
{
    int c = kt_jscan_peek(s), depth = 0, r;

    s->text_len = 0;
    if (c < 0)
        return -1;
    if (c != '{' && c != '[' && c != '"') {
        while ((c = peek_byte(s)) >= 0 && !is_blank(c) && c != ',' &&
               c != '}' && c != ']')
            if (put(s, get_byte(s)))
                return -2;
        return 0;
    }
    do {
        if (copy_plain(s, 0))
            return -2;
        c = get_byte(s);
        if (c < 0)
            return -1;
        if (put(s, c))
            return -2;
        if (c == '"' && (r = copy_string(s)))
            return r;
        depth += c == '{' || c == '[';
        depth -= c == '}' || c == ']';
    } while (depth > 0);
    return 0;
}

/* Parses s->text (which began at line, col) with jansson. */
static kt_status parse_text(kt_jscan *s, long line, long col, json_t **out,
                            kt_err *err)
{
    json_error_t jerr;
    *out = json_loadb(s->text, s->text_len,
                      JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (*out)
        return KT_S_OK;
    return kt_err_set(
        err, KT_S_INPUT, "%s:%ld:%ld: %s", s->path, line + jerr.line - 1,
        jerr.line <= 1 ? col + jerr.column - 1 : jerr.column, jerr.text);
}

kt_status kt_jscan_begin(kt_jscan *s, kt_err *err)
{
    if (kt_jscan_peek(s) != '{')
        return syntax(s, "'{' expected", err);
    get_byte(s);
    if (s->depth == s->depth_cap) {
        size_t cap = s->depth_cap ? 2 * s->depth_cap : 8;
        unsigned char *grown = realloc(s->first, cap);
        if (!grown)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        s->first = grown;
        s->depth_cap = cap;
    }
    s->first[s->depth++] = 1;
    return KT_S_OK;
}

/* Whether the key's text in s->text is a string of printable ASCII
 * without escapes: its bytes between the quotes are what jansson decodes
 * it to, and a 1e6-point cache's keys need no parse of their own. */
static int plain_key(const kt_jscan *s)
{
    if (s->text_len < 2 || s->text[0] != '"' || s->text[s->text_len - 1] != '"')
        return 0;
    for (size_t i = 1; i + 1 < s->text_len; ++i)
        if (s->text[i] < 0x20 || s->text[i] > 0x7e || s->text[i] == '\\' ||
            s->text[i] == '"')
            return 0;
    return 1;
}

/* The key of a member: a JSON string, decoded. */
static kt_status read_key(kt_jscan *s, kt_err *err)
{
    long line = s->line, col = s->col;
    json_t *k;
    kt_status rc;
    int r;

    if (kt_jscan_peek(s) != '"')
        return syntax(s, "string or '}' expected", err);
    if ((r = copy_value(s)))
        return r == -2 ? kt_err_set(err, KT_S_NOMEM, "out of memory")
                       : syntax(s, "unexpected end of file in a string", err);
    free(s->key);
    if (plain_key(s)) {
        s->key = strndup(s->text + 1, s->text_len - 2);
    } else {
        if ((rc = parse_text(s, line, col, &k, err))) {
            s->key = NULL;
            return rc;
        }
        s->key = strdup(json_string_value(k));
        json_decref(k);
    }
    if (!s->key)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (kt_jscan_peek(s) != ':')
        return syntax(s, "':' expected", err);
    get_byte(s);
    return KT_S_OK;
}

int kt_jscan_next(kt_jscan *s, const char **key, kt_status *rc, kt_err *err)
{
    int c;
    unsigned char *first = &s->first[s->depth - 1];

    *rc = KT_S_OK;
    if (s->closed_open) {
        --s->depth;
        return 0;
    }
    c = kt_jscan_peek(s);
    if (c == '}') {
        get_byte(s);
        --s->depth;
        return 0;
    }
    if (!*first) {
        if (c != ',') {
            *rc = syntax(s,
                         c < 0 ? "'}' expected near end of file"
                               : "',' or '}' expected",
                         err);
            return 0;
        }
        get_byte(s);
        c = kt_jscan_peek(s);
    }
    /* The end of the file after "{" or ",": an object left open. */
    if (c < 0 && !s->failed) {
        s->closed_open = 1;
        --s->depth;
        return 0;
    }
    *first = 0;
    if ((*rc = read_key(s, err)))
        return 0;
    *key = s->key;
    return 1;
}

kt_status kt_jscan_text(kt_jscan *s, const char **text, size_t *len,
                        kt_err *err)
{
    int r;

    *text = NULL;
    *len = 0;
    kt_jscan_peek(s);
    s->text_line = s->line;
    s->text_col = s->col;
    if ((r = copy_value(s)))
        return r == -2 ? kt_err_set(err, KT_S_NOMEM, "out of memory")
                       : syntax(s, "unexpected end of file in a value", err);
    *text = s->text;
    *len = s->text_len;
    return KT_S_OK;
}

kt_status kt_jscan_parse(kt_jscan *s, json_t **out, kt_err *err)
{
    return parse_text(s, s->text_line, s->text_col, out, err);
}

kt_status kt_jscan_value(kt_jscan *s, json_t **out, kt_err *err)
{
    const char *text;
    size_t len;
    kt_status rc;

    *out = NULL;
    if ((rc = kt_jscan_text(s, &text, &len, err)))
        return rc;
    return kt_jscan_parse(s, out, err);
}

kt_status kt_jscan_end(kt_jscan *s, kt_err *err)
{
    if (s->failed || (!s->closed_open && kt_jscan_peek(s) >= 0))
        return syntax(s, "end of file expected", err);
    return KT_S_OK;
}
