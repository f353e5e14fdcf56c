// SPDX-License-Identifier: Apache-2.0
#include "core/iniloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "core/fileio.h"
#include "core/parse.h"

static void lower_copy(char *dst, size_t size, const char *src, size_t len)
{
    size_t i;
    if (len >= size)
        len = size - 1;
    for (i = 0; i < len; ++i)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

static kt_status add(kt_iniloc *loc, const char *section, const char *key,
                     size_t key_len, int line, kt_err *err)
{
    kt_iniloc_entry *grown, *e;

    /* Doubling: a file of many lines is read in linear time. */
    if (loc->count == loc->cap) {
        size_t cap = loc->cap ? 2 * loc->cap : 64;
        grown = realloc(loc->entries, cap * sizeof *grown);
        if (!grown)
            return kt_err_set(err, KT_S_NOMEM, "out of memory reading %s",
                              loc->path);
        loc->entries = grown;
        loc->cap = cap;
    }
    e = &loc->entries[loc->count++];
    snprintf(e->section, sizeof e->section, "%s", section);
    lower_copy(e->key, sizeof e->key, key, key_len);
    e->line = line;
    return KT_S_OK;
}

/* The entry just added: KT_S_INPUT when its section already has its key
 * (seen: "section\x1fkey" -> the first line, both lower case). */
static kt_status check_twice(kt_iniloc *loc, json_t *seen, int line,
                             const char *as_written, kt_err *err)
{
    const kt_iniloc_entry *e = &loc->entries[loc->count - 1];
    char key[sizeof e->section + sizeof e->key + 1];
    const json_t *first;

    snprintf(key, sizeof key, "%s\x1f%s", e->section, e->key);
    if ((first = json_object_get(seen, key)))
        return kt_err_set(err, KT_S_INPUT,
                          "%s:%d: [%s] %s is set twice (first on line %d); "
                          "keep one",
                          loc->path, line, e->section, as_written,
                          (int)json_integer_value(first));
    if (json_object_set_new(seen, key, json_integer(line)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    return KT_S_OK;
}

kt_status kt_iniloc_scan(const char *path, kt_iniloc *loc, kt_err *err)
{
    FILE *f;
    char buf[4096], section[64] = "";
    int line = 0, in_section = 0, continued = 0, sections = 0;
    kt_status rc = KT_S_OK;
    json_t *seen = json_object();

    memset(loc, 0, sizeof *loc);
    if (!seen)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    if (!(f = kt_file_open_regular(path, "file", "r", err))) {
        json_decref(seen);
        return err ? err->status : KT_S_INPUT;
    }
    loc->path = strdup(path);
    if (!loc->path) {
        rc = kt_err_set(err, KT_S_NOMEM, "out of memory");
        goto done;
    }
    while (fgets(buf, sizeof buf, f)) {
        char *s, *eq;
        size_t len;
        int was_continued = continued;

        ++line;
        /* A UTF-8 byte-order mark is not part of the first line. */
        if (line == 1 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
            memmove(buf, buf + 3, strlen(buf + 3) + 1);
        s = kt_parse_trim(buf);
        len = strlen(s);
        /* iniparser joins a line ending in '\' with the next one. */
        continued = len > 0 && s[len - 1] == '\\';
        if (was_continued || !*s || *s == ';' || *s == '#')
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close)
                continue; /* iniparser reports the syntax error */
            if (++sections > KT_INI_MAX_SECTIONS) {
                rc = kt_err_set(err, KT_S_INPUT,
                                "%s:%d: more than %d sections (the limit); a "
                                "job or a declaration has a few",
                                path, line, KT_INI_MAX_SECTIONS);
                goto done;
            }
            *close = '\0';
            s = kt_parse_trim(s + 1);
            lower_copy(section, sizeof section, s, strlen(s));
            in_section = 1;
            if ((rc = add(loc, section, "", 0, line, err)))
                goto done;
            continue;
        }
        eq = strchr(s, '=');
        if (!eq)
            continue;
        *eq = '\0';
        s = kt_parse_trim(s);
        if (!in_section) {
            rc = kt_err_set(err, KT_S_INPUT,
                            "%s:%d: '%s' is outside any section; "
                            "keys belong under [job], [space], [strategy], "
                            "[measure] or [output]",
                            path, line, s);
            goto done;
        }
        if ((rc = add(loc, section, s, strlen(s), line, err)) ||
            (rc = check_twice(loc, seen, line, s, err)))
            goto done;
    }
    if (ferror(f))
        rc = kt_err_set(err, KT_S_IO, "%s: read error", path);
done:
    fclose(f);
    json_decref(seen);
    if (rc)
        kt_iniloc_free(loc);
    return rc;
}

int kt_iniloc_line(const kt_iniloc *loc, const char *section, const char *key)
{
    for (size_t i = 0; i < loc->count; ++i) {
        const kt_iniloc_entry *e = &loc->entries[i];
        if (strcasecmp(e->section, section) != 0)
            continue;
        if (!key ? !e->key[0] : strcasecmp(e->key, key) == 0)
            return e->line;
    }
    return 0;
}

void kt_iniloc_free(kt_iniloc *loc)
{
    free(loc->path);
    free(loc->entries);
    memset(loc, 0, sizeof *loc);
}

/* iniparser reports syntax errors through a callback with no context
 * pointer: the message is kept here and turned into path:line. */
static char syntax_message[1024];

static int capture(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int capture(const char *fmt, ...)
{
    size_t used = strlen(syntax_message);
    va_list ap;
    va_start(ap, fmt);
    if (used + 1 < sizeof syntax_message)
        vsnprintf(syntax_message + used, sizeof syntax_message - used, fmt, ap);
    va_end(ap);
    return 0;
}

static kt_status syntax_error(const char *path, kt_err *err)
{
    const char *paren = strrchr(syntax_message, '(');
    const char *arrow = strstr(syntax_message, "-> ");
    char text[256] = "";
    int line = 0;

    if (paren)
        sscanf(paren, "(%d)", &line);
    if (arrow) {
        snprintf(text, sizeof text, "%s", arrow + 3);
        text[strcspn(text, "\r\n")] = '\0';
    }
    if (line > 0)
        return kt_err_set(err, KT_S_INPUT,
                          "%s:%d: cannot read '%s': expected [section], "
                          "key = value, or a comment (; or #)",
                          path, line, text);
    return kt_err_set(err, KT_S_INPUT, "%s: not a readable INI file: %s", path,
                      syntax_message);
}

/* iniparser (4.1) reads lines of at most 1022 characters, continued lines
 * joined; a longer one used to read as "cannot read ''". */
#define INI_MAX_LINE 1000
#define UTF8_BOM "\xEF\xBB\xBF"

/* Refuses a line iniparser would misread silently: a section header with
 * text after its ']' ("[job]]"), a value opened with a quote that is not
 * closed ('operator = "vector_add:add'). s[0..n) is the line. */
static kt_status check_line_shape(const char *path, size_t line, const char *s,
                                  size_t n, kt_err *err)
{
    size_t i = 0, k;

    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        ++i;
    if (i < n && s[i] == '[') {
        const char *close = memchr(s + i, ']', n - i);
        for (k = close ? (size_t)(close - s) + 1 : n; k < n; ++k) {
            if (s[k] == ';' || s[k] == '#')
                break;
            if (s[k] != ' ' && s[k] != '\t' && s[k] != '\r')
                return kt_err_set(err, KT_S_INPUT,
                                  "%s:%zu: '%.*s': text after the section's "
                                  "']'; expected [name]",
                                  path, line, (int)(n - i), s + i);
        }
        return KT_S_OK;
    }
    if (i < n && (s[i] == ';' || s[i] == '#'))
        return KT_S_OK;
    for (k = i; k < n && s[k] != '='; ++k)
        ;
    for (++k; k < n && (s[k] == ' ' || s[k] == '\t'); ++k)
        ;
    if (k < n && (s[k] == '"' || s[k] == '\'') &&
        !memchr(s + k + 1, s[k], n - k - 1))
        return kt_err_set(err, KT_S_INPUT,
                          "%s:%zu: the value opens a quote (%c) that is not "
                          "closed",
                          path, line, s[k]);
    return KT_S_OK;
}

/* 1 when the n bytes at s are a comment line (; or #). */
static int is_comment(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t'))
        ++k;
    return k < n && (s[k] == ';' || s[k] == '#');
}

/* 1 when the n bytes at s are a section header's line ("[name]"). */
static int opens_section(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t'))
        ++k;
    return k < n && s[k] == '[';
}

/* Refuses what iniparser would cut or misread, naming where: a NUL byte, a
 * line (continued lines joined) longer than INI_MAX_LINE, a last line that
 * continues into nothing, check_line_shape's lines. */
static kt_status check_ini_text(const char *path, const char *text, size_t len,
                                kt_err *err)
{
    size_t joined = 0, line = 0, first = 0, sections = 0, keys = 0;

    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - at;
        const char *nul = memchr(text + at, '\0', n);
        ++line;
        if (nul)
            return kt_err_set(err, KT_S_INPUT,
                              "%s:%zu: a NUL byte at column %zu; expected text",
                              path, line, (size_t)(nul - (text + at)) + 1);
        if (joined == 0)
            first = line;
        if (joined == 0 && check_line_shape(path, line, text + at, n, err))
            return err ? err->status : KT_S_INPUT;
        /* iniparser inserts keys in time linear in what it holds: refuse a
         * file of thousands of sections before it is read, not after. */
        if (joined == 0 && opens_section(text + at, n) &&
            ++sections > KT_INI_MAX_SECTIONS)
            return kt_err_set(err, KT_S_INPUT,
                              "%s:%zu: more than %d sections (the limit); a "
                              "job or a declaration has a few",
                              path, line, KT_INI_MAX_SECTIONS);
        if (joined == 0 && memchr(text + at, '=', n) &&
            !is_comment(text + at, n) && ++keys > KT_INI_MAX_KEYS)
            return kt_err_set(err, KT_S_INPUT,
                              "%s:%zu: more than %d keys (the limit); a job "
                              "or a declaration has a few dozen",
                              path, line, KT_INI_MAX_KEYS);
        joined += n;
        if (joined > INI_MAX_LINE)
            return kt_err_set(err, KT_S_INPUT,
                              "%s:%zu: a line of %zu characters%s; "
                              "lines may have at most %d (write long lists "
                              "as ranges, e.g. 32..1024, or split them)",
                              path, first, joined,
                              line > first ? " (continued lines joined)" : "",
                              INI_MAX_LINE);
        /* A line ending in '\' continues on the next one. */
        while (n > 0 && (text[at + n - 1] == '\r' || text[at + n - 1] == ' ' ||
                         text[at + n - 1] == '\t'))
            --n;
        if (!(n > 0 && text[at + n - 1] == '\\'))
            joined = 0;
        at = end + 1;
    }
    if (joined)
        return kt_err_set(err, KT_S_INPUT,
                          "%s:%zu: the last line ends in '\\', continuing "
                          "into nothing",
                          path, line);
    return KT_S_OK;
}

/* The job file, checked (a regular file, bounded, no line iniparser would
 * cut), handed to iniparser as an unnamed copy without a UTF-8 byte-order
 * mark, so iniparser reads exactly what was checked. */
static kt_status load_ini(const char *path, dictionary **ini, kt_err *err)
{
    char *text = NULL, name[64];
    size_t len = 0, skip = 0;
    FILE *copy = NULL;
    kt_status rc;

    *ini = NULL;
    if ((rc = kt_file_read(path, "job", (size_t)16 << 20, &text, &len, err)))
        return rc;
    if ((rc = check_ini_text(path, text, len, err)))
        goto done;
    if (len >= 3 && memcmp(text, UTF8_BOM, 3) == 0)
        skip = 3;
    if (!(copy = tmpfile()) ||
        fwrite(text + skip, 1, len - skip, copy) != len - skip ||
        fflush(copy) != 0) {
        rc = kt_err_set(err, KT_S_IO, "%s: cannot copy for reading: %s", path,
                        strerror(errno));
        goto done;
    }
    snprintf(name, sizeof name, "/proc/self/fd/%d", fileno(copy));
    *ini = iniparser_load(name);
done:
    if (copy)
        fclose(copy);
    free(text);
    return rc;
}

kt_status kt_ini_load(const char *path, dictionary **out, kt_err *err)
{
    kt_status rc;

    syntax_message[0] = '\0';
    iniparser_set_error_callback(capture);
    rc = load_ini(path, out, err);
    iniparser_set_error_callback(NULL);
    if (rc || *out)
        return rc;
    return syntax_message[0]
               ? syntax_error(path, err)
               : kt_err_set(err, KT_S_IO, "%s: cannot read", path);
}
