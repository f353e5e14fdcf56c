#include "tuner/iniloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

    grown = realloc(loc->entries, (loc->count + 1) * sizeof *grown);
    if (!grown)
        return kt_err_set(err, KT_S_NOMEM, "out of memory reading %s",
                          loc->path);
    loc->entries = grown;
    e = &grown[loc->count++];
    snprintf(e->section, sizeof e->section, "%s", section);
    lower_copy(e->key, sizeof e->key, key, key_len);
    e->line = line;
    return KT_S_OK;
}

kt_status kt_iniloc_scan(const char *path, kt_iniloc *loc, kt_err *err)
{
    FILE *f = fopen(path, "r");
    char buf[4096], section[64] = "";
    int line = 0, in_section = 0, continued = 0;
    kt_status rc = KT_S_OK;

    memset(loc, 0, sizeof *loc);
    if (!f)
        return kt_err_set(err, errno == ENOENT ? KT_S_INPUT : KT_S_IO,
                          "%s: cannot open: %s", path, strerror(errno));
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
        for (size_t i = 0; i < loc->count; ++i) {
            const kt_iniloc_entry *e = &loc->entries[i];
            if (e->key[0] && strcmp(e->section, section) == 0 &&
                strcasecmp(e->key, s) == 0) {
                rc = kt_err_set(err, KT_S_INPUT,
                                "%s:%d: [%s] %s is set twice (first on "
                                "line %d); keep one",
                                path, line, section, s, e->line);
                goto done;
            }
        }
        if ((rc = add(loc, section, s, strlen(s), line, err)))
            goto done;
    }
    if (ferror(f))
        rc = kt_err_set(err, KT_S_IO, "%s: read error", path);
done:
    fclose(f);
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
