// SPDX-License-Identifier: Apache-2.0
/* ktune wisdom: list a wisdom file, check it against the plugins loaded
 * now, and show which entry an application would get (docs/wisdom.md).
 * Needs no GPU. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "core/parse.h"
#include "core/term.h"
#include "records/wisdom.h"

static const char help[] =
    "usage: ktune wisdom show FILE\n"
    "       ktune wisdom check FILE [--plugin FILE]...\n"
    "       ktune wisdom select FILE OPERATOR DEVICE SIZE...\n\n"
    "A wisdom file holds tuned answers (`ktune tune JOB --wisdom FILE`) for\n"
    "applications to pick from at run time with libktune-select.\n\n"
    "  show    every entry: operator, device, sizes, configuration, time\n"
    "  check   each entry against the loaded plugins: current, stale (the\n"
    "          plugin's version changed, or its variant or parameters are\n"
    "          no longer valid: tune again) or unknown (plugin not loaded)\n"
    "  select  the entry libktune-select returns for OPERATOR on DEVICE (a\n"
    "          name, or a compute capability such as 9.0) at the sizes,\n"
    "          given in the operator's order, and why\n\n"
    "Exit codes: 0 fine; 1 check found stale or unknown entries, or select\n"
    "found no wisdom; 2 a damaged file or bad arguments.\n";

static void format_entry(const kt_select_entry *e, char *sizes, size_t ss,
                         char *cfg, size_t cs)
{
    size_t used = 0;
    sizes[0] = '\0';
    for (size_t i = 0; i < e->num_sizes && used < ss; ++i)
        used += (size_t)snprintf(sizes + used, ss - used, "%s%s=%" PRId64,
                                 i ? " " : "", e->size_names[i], e->sizes[i]);
    used = (size_t)snprintf(cfg, cs, "%s", e->variant);
    for (size_t i = 0; i < e->num_params && used < cs; ++i)
        used += (size_t)snprintf(cfg + used, cs - used, " %s=%" PRId64,
                                 e->params[i].name, e->params[i].value);
}

/* printf to stdout with control characters from the file shown escaped
 * (\x1b, not ESC): a wisdom file's text must not retitle or clear the
 * terminal. Newlines and tabs pass. */
static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Where out() writes: stdout, or the text a verb fits to the terminal
 * (fitted). */
static FILE *sink;

static void out(const char *fmt, ...)
{
    va_list ap, again;
    char *text;
    int n;

    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(text = malloc((size_t)n + 1))) {
        va_end(again);
        return;
    }
    vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    kt_cli_put_escaped(sink ? sink : stdout, text, (size_t)n);
    free(text);
}

/* s with its control characters shown escaped, as out() shows them
 * (malloc'd; NULL when out of memory). */
static char *escaped(const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    if (!mem)
        return NULL;
    kt_cli_put_escaped(mem, s, strlen(s));
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* One entry's row: operator, device, cc, sizes, time, plugin, date,
 * configuration, each escaped. */
/* An entry's sizes (256 bytes), configuration (512), time (80) and
 * compute capability (16) as shown. */
static void entry_cells(const kt_select_entry *e, char *sizes, char *cfg,
                        char *tm, char *cc)
{
    format_entry(e, sizes, 256, cfg, 512);
    snprintf(cc, 16, "%d.%d", e->cc_major, e->cc_minor);
    if (isnan(e->time_us))
        snprintf(tm, 80, "-");
    else if (isnan(e->ci_lo_us))
        snprintf(tm, 80, "%.3f", e->time_us);
    else
        snprintf(tm, 80, "%.3f [%.3f, %.3f]", e->time_us, e->ci_lo_us,
                 e->ci_hi_us);
}

static void add_entry(kt_term_table *t, const kt_select_entry *e)
{
    char sizes[256], cfg[512], tm[80], cc[16];
    const char *raw[8] = {e->op, e->device,         cc,      sizes,
                          tm,    e->plugin_version, e->date, cfg};
    char *cell[8];

    entry_cells(e, sizes, cfg, tm, cc);
    for (size_t c = 0; c < 8; ++c)
        cell[c] = escaped(raw[c] ? raw[c] : "");
    kt_term_table_add(t, (const char *const *)cell);
    for (size_t c = 0; c < 8; ++c)
        free(cell[c]);
}

/* The wide form, a line per entry in fixed columns, when every line fits
 * width: 1, else 0 and nothing printed. */
static int show_wide(const kt_select_wisdom *w, int width)
{
    static const char row[] = "  %-18s %-20s %-5s %-22s %-34s %-26s %-8s %s\n";
    size_t n = kt_select_count(w);

    for (size_t i = 0; i < n; ++i) {
        const kt_select_entry *e = kt_select_entry_at(w, i);
        char sizes[256], cfg[512], tm[80], cc[16];
        entry_cells(e, sizes, cfg, tm, cc);
        if (snprintf(NULL, 0, row, e->op, e->device, cc, sizes, cfg, tm,
                     e->plugin_version, e->date) > width + 1)
            return 0;
    }
    out(row, "operator", "device", "cc", "sizes", "configuration",
        "time us [95% CI]", "plugin", "date");
    for (size_t i = 0; i < n; ++i) {
        const kt_select_entry *e = kt_select_entry_at(w, i);
        char sizes[256], cfg[512], tm[80], cc[16];
        entry_cells(e, sizes, cfg, tm, cc);
        out(row, e->op, e->device, cc, sizes, cfg, tm, e->plugin_version,
            e->date);
    }
    return 1;
}

static int show(const kt_select_wisdom *w, const char *path, int width)
{
    /* Left out first when narrow: the date, the plugin's version, cc. */
    static const kt_term_col cols[] = {
        {"operator", 0, 0}, {"device", 0, 0},           {"cc", 0, 1},
        {"sizes", 0, 0},    {"time us [95% CI]", 0, 0}, {"plugin", 0, 2},
        {"date", 0, 3},     {"configuration", 0, 0}};
    size_t n = kt_select_count(w);
    kt_term_table t;

    out("%s: %zu entr%s (wisdom format %d)\n", path, n, n == 1 ? "y" : "ies",
        KT_SELECT_FORMAT);
    if (!n)
        return KT_EXIT_OK;
    if (show_wide(w, width))
        return KT_EXIT_OK;
    kt_term_table_init(&t, cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < n; ++i)
        add_entry(&t, kt_select_entry_at(w, i));
    kt_term_table_print(sink ? sink : stdout, &t, 2, width);
    kt_term_table_free(&t);
    return KT_EXIT_OK;
}

static int check(const kt_select_wisdom *w, const char *path, char **plugins,
                 size_t num_plugins)
{
    static const char *const names[] = {"current", "STALE", "unknown"};
    size_t counts[3] = {0, 0, 0};
    kt_registry reg;

    kt_registry_init(&reg);
    kt_cli_load_plugins(&reg, plugins, num_plugins, 1);
    out("%s: %zu entries against the plugins loaded now\n", path,
        kt_select_count(w));
    for (size_t i = 0; i < kt_select_count(w); ++i) {
        const kt_select_entry *e = kt_select_entry_at(w, i);
        char why[1024], sizes[256], cfg[512];
        kt_wisdom_state s = kt_wisdom_check(&reg, e, why, sizeof why);
        format_entry(e, sizes, sizeof sizes, cfg, sizeof cfg);
        ++counts[s];
        out("  %-8s line %-4zu %s %s on %s: %s%s%s\n", names[s], e->line, e->op,
            sizes, e->device, cfg, why[0] ? ": " : "", why);
    }
    out("%zu current, %zu stale, %zu unknown\n", counts[0], counts[1],
        counts[2]);
    kt_registry_free(&reg);
    return counts[1] || counts[2] ? KT_EXIT_FAILURE : KT_EXIT_OK;
}

/* The number of sizes op's entries have when none has n (the command
 * gives more or fewer sizes than the operator has), else 0. */
static size_t sizes_differ(const kt_select_wisdom *w, const char *op, size_t n)
{
    size_t other = 0;

    for (size_t i = 0; i < kt_select_count(w); ++i) {
        const kt_select_entry *e = kt_select_entry_at(w, i);
        if (strcmp(e->op, op) != 0)
            continue;
        if (e->num_sizes == n)
            return 0;
        other = e->num_sizes;
    }
    return other;
}

static int select_one(const kt_select_wisdom *w, int argc, char **argv)
{
    static const char *const how[] = {"none", "exact", "same device, nearest",
                                      "same compute capability, nearest"};
    int64_t sizes[KT_SELECT_MAX_SIZES];
    size_t n = (size_t)argc - 2;
    kt_select_config c;
    char s[256], cfg[512];
    kt_err err;
    int rc;

    if (argc < 3 || n > KT_SELECT_MAX_SIZES)
        return kt_cli_usage_error("wisdom",
                                  "select needs OPERATOR DEVICE "
                                  "and 1 to %d sizes",
                                  KT_SELECT_MAX_SIZES);
    for (size_t i = 0; i < n; ++i)
        if (kt_parse_i64(argv[i + 2], "size", &sizes[i], &err) || sizes[i] < 1)
            return kt_cli_usage_error("wisdom", "'%s' is not a size",
                                      argv[i + 2]);
    if (sizes_differ(w, argv[0], n))
        return kt_cli_usage_error("wisdom",
                                  "select: %s has %zu size(s) in this file, "
                                  "the command gives %zu",
                                  argv[0], sizes_differ(w, argv[0], n), n);
    rc = kt_select(w, argv[0], argv[1], sizes, n, &c);
    if (rc < 0)
        return kt_cli_usage_error("wisdom", "%s", kt_select_strerror(rc));
    if (!c.entry) {
        out("no wisdom for %s on %s: the application uses its defaults\n",
            argv[0], argv[1]);
        return KT_EXIT_FAILURE;
    }
    format_entry(c.entry, s, sizeof s, cfg, sizeof cfg);
    out("%s (line %zu: %s on %s, %s; distance %.2f factors of two)\n", cfg,
        c.entry->line, c.entry->op, c.entry->device, s, c.distance);
    out("match: %s\n", how[c.match]);
    return KT_EXIT_OK;
}

/* The verb, its text fitted to the terminal's width (core/term.h). */
static int fitted(const kt_select_wisdom *w, const char *path, const char *what,
                  int argc, char **argv, char **plugins, size_t num_plugins)
{
    int width = kt_term_width(stdout), rc;
    char *text = NULL;
    size_t len = 0;

    sink = open_memstream(&text, &len);
    if (strcmp(what, "show") == 0)
        rc = show(w, path, width);
    else if (strcmp(what, "check") == 0)
        rc = check(w, path, plugins, num_plugins);
    else
        rc = select_one(w, argc - 3, argv + 3);
    if (sink && fclose(sink) == 0)
        kt_term_wrap(stdout, text, len, width);
    sink = NULL;
    free(text);
    return rc;
}

int kt_cmd_wisdom(int argc, char **argv)
{
    kt_select_wisdom *w = NULL;
    char **plugins = NULL;
    size_t num_plugins = 0;
    const char *what, *path;
    kt_err err;
    int rc;

    /* --help anywhere: `wisdom show --help` is a request, not a file. */
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(help, stdout);
            return KT_EXIT_OK;
        }
    if (argc < 3)
        return kt_cli_usage_error("wisdom", "expected show, check or select "
                                            "and a FILE");
    what = argv[1];
    path = argv[2];
    if (strcmp(what, "show") != 0 && strcmp(what, "check") != 0 &&
        strcmp(what, "select") != 0)
        return kt_cli_usage_error("wisdom", "'%s' is not show, check or select",
                                  what);
    plugins = calloc((size_t)argc, sizeof *plugins);
    if (!plugins)
        return KT_EXIT_FAILURE;
    for (int i = 3; strcmp(what, "check") == 0 && i < argc; ++i) {
        if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc)
            plugins[num_plugins++] = argv[++i];
        else {
            free(plugins);
            return kt_cli_usage_error("wisdom", "check: unexpected '%s'",
                                      argv[i]);
        }
    }
    if (strcmp(what, "show") == 0 && argc > 3) {
        free(plugins);
        return kt_cli_usage_error("wisdom", "show takes one FILE");
    }
    kt_err_clear(&err);
    if (kt_wisdom_open(path, &w, &err)) {
        free(plugins);
        return kt_cli_fail(&err);
    }
    rc = fitted(w, path, what, argc, argv, plugins, num_plugins);
    kt_select_close(w);
    free(plugins);
    return rc;
}
