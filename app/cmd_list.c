// SPDX-License-Identifier: Apache-2.0
/* ktune list: what the loaded plugins offer. Needs no GPU. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "core/msg.h"
#include "core/param.h"

static const char help[] =
    "usage: ktune list [--json [FILE]] [--plugin FILE]...\n\n"
    "Lists every loaded plugin with its operators, problem sizes, variants\n"
    "and tunable parameters (declared values and defaults). Plugins that\n"
    "failed to load are named with the reason. Needs no GPU.\n\n"
    "  --json [FILE]  machine-readable output to FILE (default and '-':\n"
    "                 stdout)\n"
    "  --plugin FILE  load FILE too (repeatable)\n";

static const char *kind_name(uint32_t kind)
{
    switch (kind) {
    case KT_PARAM_LIST: return "list";
    case KT_PARAM_POW2: return "pow2";
    case KT_PARAM_RANGE: return "range";
    case KT_PARAM_ENUM: return "enum";
    }
    return "unknown";
}

static json_t *param_json(const kt_param_desc *p)
{
    json_t *values = json_array();
    char dflt[64];
    size_t n = kt_param_count(p);

    for (size_t i = 0; i < n; ++i) {
        int64_t v = kt_param_value_at(p, i);
        json_array_append_new(values, p->kind == KT_PARAM_ENUM
                                          ? json_string(p->labels[v])
                                          : json_integer(v));
    }
    kt_param_format(p, p->default_value, dflt, sizeof dflt);
    return json_pack("{s:s,s:s,s:s,s:o,s:o}", "name", p->name, "help",
                     p->help ? p->help : "", "kind", kind_name(p->kind),
                     "values", values, "default",
                     p->kind == KT_PARAM_ENUM ? json_string(dflt)
                                              : json_integer(p->default_value));
}

static json_t *operator_json(const kt_operator *op)
{
    json_t *sizes = json_array(), *variants = json_array();

    for (uint32_t i = 0; i < op->num_sizes; ++i)
        json_array_append_new(
            sizes, json_pack("{s:s,s:s,s:I,s:I,s:I}", "name", op->sizes[i].name,
                             "help", op->sizes[i].help ? op->sizes[i].help : "",
                             "default", (json_int_t)op->sizes[i].default_value,
                             "min", (json_int_t)op->sizes[i].min, "max",
                             (json_int_t)op->sizes[i].max));
    for (uint32_t i = 0; i < op->num_variants; ++i) {
        const kt_variant *v = &op->variants[i];
        json_t *params = json_array();
        for (uint32_t k = 0; k < v->num_params; ++k)
            json_array_append_new(params, param_json(&v->params[k]));
        json_array_append_new(variants,
                              json_pack("{s:s,s:s,s:o}", "id", v->id, "summary",
                                        v->summary ? v->summary : "", "params",
                                        params));
    }
    return json_pack("{s:s,s:s,s:b,s:o,s:o}", "id", op->id, "summary",
                     op->summary ? op->summary : "", "modifies_inputs",
                     (op->flags & KT_OP_MODIFIES_INPUTS) != 0, "sizes", sizes,
                     "variants", variants);
}

static int print_json(const kt_registry *reg, const char *path)
{
    json_t *plugins = json_array(), *failures = json_array(), *root;
    int rc;

    for (size_t i = 0; i < reg->count; ++i) {
        const kt_plugin *d = &reg->plugins[i]->desc;
        json_t *ops = json_array();
        for (uint32_t k = 0; k < d->num_operators; ++k)
            json_array_append_new(ops, operator_json(&d->operators[k]));
        json_array_append_new(
            plugins,
            json_pack("{s:s,s:s,s:s,s:s,s:{s:i,s:s,s:s},s:o}", "name", d->name,
                      "version", d->version ? d->version : "", "summary",
                      d->summary ? d->summary : "", "path",
                      reg->plugins[i]->path, "build", "cuda_runtime_version",
                      d->cuda_runtime_version, "cuda_archs",
                      d->cuda_archs ? d->cuda_archs : "", "compiler",
                      d->compiler ? d->compiler : "", "operators", ops));
    }
    for (size_t i = 0; i < reg->num_failures; ++i)
        json_array_append_new(failures, json_string(reg->failures[i]));
    root = json_pack("{s:s,s:i,s:o,s:o}", "kind", "ktune.list", "format", 1,
                     "plugins", plugins, "failures", failures);
    rc = kt_cli_write_json("list", root, path);
    json_decref(root);
    return rc;
}

static void print_text(FILE *out, const void *ctx)
{
    const kt_registry *reg = ctx;

    if (reg->count == 0)
        fprintf(out, "no plugins loaded\n");
    for (size_t i = 0; i < reg->count; ++i) {
        const kt_plugin *d = &reg->plugins[i]->desc;
        fprintf(out, "%s %s — %s\n  file %s (CUDA %d.%d, sm %s)\n", d->name,
                d->version ? d->version : "", d->summary ? d->summary : "",
                reg->plugins[i]->path, d->cuda_runtime_version / 1000,
                d->cuda_runtime_version % 1000 / 10,
                d->cuda_archs ? d->cuda_archs : "?");
        for (uint32_t k = 0; k < d->num_operators; ++k) {
            const kt_operator *op = &d->operators[k];
            fprintf(out, "  operator %s:%s — %s\n    sizes:", d->name, op->id,
                    op->summary ? op->summary : "");
            for (uint32_t s = 0; s < op->num_sizes; ++s)
                fprintf(
                    out, " %s (default %lld, %lld..%lld)", op->sizes[s].name,
                    (long long)op->sizes[s].default_value,
                    (long long)op->sizes[s].min, (long long)op->sizes[s].max);
            fprintf(out, "\n");
            for (uint32_t v = 0; v < op->num_variants; ++v) {
                const kt_variant *var = &op->variants[v];
                fprintf(out, "    variant %-14s %s\n", var->id,
                        var->summary ? var->summary : "");
                for (uint32_t p = 0; p < var->num_params; ++p) {
                    char set[256], dflt[64];
                    kt_param_describe(&var->params[p], set, sizeof set);
                    kt_param_format(&var->params[p],
                                    var->params[p].default_value, dflt,
                                    sizeof dflt);
                    fprintf(out, "      %-14s %s, default %s\n",
                            var->params[p].name, set, dflt);
                }
            }
        }
    }
    for (size_t i = 0; i < reg->num_failures; ++i)
        fprintf(out, "not loaded: %s\n", reg->failures[i]);
}

/* The registry's failure line for the file named path (or real, its full
 * path), or NULL. */
static const char *failure_of(const kt_registry *reg, const char *path,
                              const char *real)
{
    for (size_t i = 0; i < reg->num_failures; ++i) {
        const char *f = reg->failures[i];
        if (strstr(f, path) || (real && strstr(f, real)))
            return f;
    }
    return NULL;
}

/* The --plugin files that did not load (missing, refused, a duplicate),
 * each named on stderr with its reason, before the listing (where it would
 * be lost after the built-in plugins): a list asked for them, so it fails
 * (exit 1). */
static int named_not_loaded(const kt_registry *reg, const kt_cli_list *files)
{
    int missing = 0;
    for (size_t i = 0; i < files->count; ++i) {
        char *real = realpath(files->items[i], NULL);
        int loaded = 0;
        for (size_t k = 0; k < reg->count && !loaded; ++k)
            loaded = strcmp(reg->plugins[k]->path, files->items[i]) == 0 ||
                     (real && strcmp(reg->plugins[k]->path, real) == 0);
        if (!loaded) {
            const char *why = access(files->items[i], F_OK) == 0
                                  ? failure_of(reg, files->items[i], real)
                                  : NULL;
            if (why)
                kt_msg("--plugin %s: not loaded: %s\n", files->items[i], why);
            else
                kt_msg("--plugin %s: not loaded%s\n", files->items[i],
                       access(files->items[i], F_OK) == 0 ? ""
                                                          : ": no such file");
            missing = 1;
        }
        free(real);
    }
    return missing;
}

int kt_cmd_list(int argc, char **argv)
{
    static const struct option options[] = {
        {"json", optional_argument, NULL, 'j'},
        {"plugin", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    kt_cli_list files = {0};
    int json = 0, opt, rc = KT_EXIT_OK;
    const char *json_path = NULL;
    kt_registry reg;
    kt_err err;

    kt_registry_init(&reg);
    reg.isolated = 1; /* list runs no plugin code */
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'j':
            json = 1;
            json_path = optarg;
            break;
        case 'p':
            if (kt_cli_list_push(&files, optarg, &err)) {
                rc = kt_cli_fail(&err);
                goto done;
            }
            break;
        case 'h': fputs(help, stdout); goto done;
        default: rc = kt_cli_bad_option("list", argv, options); goto done;
        }
    }
    if ((rc = kt_cli_json_operand("list", argc, argv, json, &json_path)))
        goto done;
    kt_cli_load_plugins(&reg, files.items, files.count, 1);
    if (named_not_loaded(&reg, &files))
        rc = KT_EXIT_FAILURE;
    fflush(stderr);
    if (json) {
        int wrote = print_json(&reg, json_path);
        rc = wrote ? wrote : rc;
    } else
        kt_cli_fit_stdout(print_text, &reg);
done:
    kt_registry_free(&reg);
    kt_cli_list_free(&files);
    return rc;
}
