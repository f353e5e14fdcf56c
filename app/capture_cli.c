// SPDX-License-Identifier: Apache-2.0
/* A capture named where a command takes an operator or a job
 * (docs/capture.md): `ktune tune CAPTURE` tunes the job the capture
 * folder holds (tune.ini, written by ktune capture) with the capture
 * loaded as a plugin; bench, profile and compare read CAPTURE as its
 * operator, cap-NAME:launch. Every command (and every worker, which loads
 * plugins by path) knows captures as a kind of plugin file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "capture/operator.h"
#include "core/loader.h"
#include "core/msg.h"

static kt_status load_capture(const char *path, void **owner,
                              const kt_plugin **desc,
                              const kt_variant_require *const **require,
                              kt_err *err)
{
    (void)require; /* a capture's constraints are its geometry rules */
    return kt_cap_op_load(path, (kt_cap_op **)owner, desc, err);
}

static void release_capture(void *owner)
{
    kt_cap_op_free(owner);
}

/* Only capture.json itself: a folder is not a plugin file. */
static int claims(const char *path)
{
    return kt_cap_is_capture(path) && !kt_cap_is_dir(path);
}

static const kt_loader_kind capture_kind = {.name = "capture",
                                            .claims = claims,
                                            .load = load_capture,
                                            .release = release_capture};

static char **g_argv; /* the rewritten argv, freed at exit */
static char *g_strings;

static void free_rewrite(void)
{
    free(g_argv);
    free(g_strings);
}

static int takes_capture(const char *cmd)
{
    static const char *const cmds[] = {"tune", "bench", "profile", "compare",
                                       "sanitize"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; ++i)
        if (strcmp(cmd, cmds[i]) == 0)
            return 1;
    return 0;
}

/* The operand for capture dir: its job (tune) or its operator. */
static int operand_for(const char *cmd, const char *dir, char *out, size_t size)
{
    char name[160];
    if (strcmp(cmd, "tune") == 0) {
        snprintf(out, size, "%s/tune.ini", dir);
        if (access(out, R_OK) == 0)
            return 0;
        kt_msg("%s: no tune.ini in the capture folder (ktune capture writes "
               "one; see docs/capture.md)\n",
               dir);
        return -1;
    }
    kt_cap_plugin_name(dir, name, sizeof name);
    snprintf(out, size, "%s:launch", name);
    return 0;
}

int kt_capture_cli_prepare(const char *cmd, int *argc, char ***argv)
{
    char **av = *argv, *s;
    int n = *argc, found = -1;
    size_t need = 0;
    kt_err err;

    if (kt_loader_add_kind(&capture_kind, &err))
        kt_msg("%s\n", err.msg);
    if (!takes_capture(cmd))
        return 0;
    for (int i = 1; i < n && found < 0; ++i)
        if (av[i][0] != '-' && kt_cap_is_dir(av[i]) && kt_cap_is_capture(av[i]))
            found = i;
    if (found < 0)
        return 0;
    need = 2 * strlen(av[found]) + 400;
    g_argv = calloc((size_t)n + 3, sizeof *g_argv);
    g_strings = s = malloc(need);
    if (!g_argv || !s) {
        free_rewrite();
        return -1;
    }
    atexit(free_rewrite);
    /* --plugin first: before any "--" or operand. */
    g_argv[0] = av[0];
    g_argv[1] = (char *)"--plugin";
    memcpy(g_argv + 3, av + 1, (size_t)(n - 1) * sizeof *av);
    if (operand_for(cmd, av[found], s, need / 2))
        return -1;
    g_argv[found + 2] = s;
    s += strlen(s) + 1;
    snprintf(s, need / 2, "%s/%s", av[found], KT_CAP_MANIFEST);
    g_argv[2] = s;
    *argc = n + 2;
    *argv = g_argv;
    return 0;
}
