// SPDX-License-Identifier: Apache-2.0
/* ktune capture: an unmodified CUDA program's kernel launches saved as
 * captures that ktune re-runs, verifies and tunes (docs/capture.md). The
 * program runs with libktune_capture.so injected; ktune then reads what it
 * wrote, checks every capture with the reader the tuner uses, and writes
 * each capture's tune.ini. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/options.h"
#include "capture/format.h"
#include "capture/operator.h"
#include "capture/rules.h"
#include "core/childenv.h"
#include "core/msg.h"
#include "core/parse.h"
#include "timeline/demangle.h"
#include "timeline/launch.h"

static const char help[] =
    "usage: ktune capture [options] [--] PROGRAM [ARGS...]\n"
    "       ktune capture --check CAPTURE\n\n"
    "Runs PROGRAM unchanged with ktune's capture library injected\n"
    "(CUDA_INJECTION64_PATH) and saves the selected kernel launches, each\n"
    "in a folder of its own under --out: the kernel's module image, grid,\n"
    "block, shared memory, argument bytes, and every device allocation an\n"
    "argument points into, before the launch and after it (the reference\n"
    "output). 'ktune tune CAPTURE' then re-runs the kernel over launch\n"
    "geometries and verifies each against the captured output\n"
    "(docs/capture.md).\n\n"
    "  --kernel REGEX   launches of kernels whose mangled, demangled or base\n"
    "                   name matches (POSIX extended; the base name is the\n"
    "                   demangled one without return type and parameters,\n"
    "                   so '^scale_add$' works; default: every kernel)\n"
    "  --launch N       the Nth launch of each matching kernel (default 1),\n"
    "                   or 'all'\n"
    "  --out DIR        a new or empty folder for the captures (default\n"
    "                   ktune-captures); nothing is written outside it\n"
    "  --limit BYTES    refuse a launch whose argument allocations hold\n"
    "                   more (default 2^32; the files hold twice that)\n"
    "  --max N          at most N captures (default 64)\n"
    "  --verbose        the capture library says on stderr, for every launch\n"
    "                   callback, the kernel's names, its geometry and why\n"
    "                   it was or was not taken; ktune lists every kernel\n"
    "                   the program launched\n"
    "  --check CAPTURE  read and check a capture, print what it holds\n\n"
    "Not captured, each said by name: CUDA graphs and stream capture,\n"
    "cooperative and cluster launches, arguments through 'extra', managed\n"
    "or host memory, launches beyond --limit.\n\n"
    "Exit status: PROGRAM's own (128 + N when signal N ended it); 2 for a\n"
    "bad option, a program that cannot be run or a damaged capture; 1 when\n"
    "ktune fails.\n";

typedef struct cap_args {
    kt_cli_options o;
    const char *kernel, *launch, *out, *check;
    int64_t limit, max;
    int verbose;
} cap_args;

static kt_status own_option(void *ctx, int opt, char *arg, kt_err *err)
{
    cap_args *a = ctx;
    kt_status st;
    switch (opt) {
    case 'k': a->kernel = arg; return KT_S_OK;
    case 'n':
        if (strcmp(arg, "all") != 0) {
            int64_t v;
            if ((st = kt_parse_i64(arg, "--launch", &v, err)))
                return st;
            if (v < 1)
                return kt_err_set(err, KT_S_INPUT,
                                  "--launch %s: expected 1 or more, or all",
                                  arg);
        }
        a->launch = arg;
        return KT_S_OK;
    case 'o': a->out = arg; return KT_S_OK;
    case 'v': a->verbose = 1; return KT_S_OK;
    case 'l':
        if ((st = kt_parse_i64(arg, "--limit", &a->limit, err)))
            return st;
        return a->limit < 1 ? kt_err_set(err, KT_S_INPUT,
                                         "--limit %s: expected 1 or more "
                                         "bytes",
                                         arg)
                            : KT_S_OK;
    case 'm':
        if ((st = kt_parse_i64(arg, "--max", &a->max, err)))
            return st;
        return a->max < 1 ? kt_err_set(err, KT_S_INPUT,
                                       "--max %s: expected 1 or more", arg)
                          : KT_S_OK;
    default: a->check = arg; return KT_S_OK; /* 'c' */
    }
}

static int parse_args(int argc, char **argv, cap_args *a, kt_err *err)
{
    static const struct option own[] = {
        {"kernel", required_argument, NULL, 'k'},
        {"launch", required_argument, NULL, 'n'},
        {"out", required_argument, NULL, 'o'},
        {"limit", required_argument, NULL, 'l'},
        {"max", required_argument, NULL, 'm'},
        {"check", required_argument, NULL, 'c'},
        {"verbose", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0}};
    const kt_cli_command cmd = {.name = "capture",
                                .help = help,
                                .own = own,
                                .short_opts = "+",
                                .apply = own_option,
                                .ctx = a};
    int rc = kt_cli_parse(argc, argv, &cmd, &a->o, err);
    if (rc)
        return rc;
    if (a->check && a->o.num_operands > 0)
        kt_err_set(err, KT_S_INPUT,
                   "capture: --check reads a capture; it takes no PROGRAM");
    else if (!a->check && a->o.num_operands == 0)
        kt_err_set(err, KT_S_INPUT,
                   "capture: PROGRAM is missing; see 'ktune capture --help'");
    else
        return KT_EXIT_OK;
    return KT_EXIT_USAGE;
}

/* ---- --check ----------------------------------------------------------- */

static void print_capture(FILE *out, const kt_capture *c, const kt_cap_rules *r,
                          size_t allowed)
{
    size_t points = r->counts[0] * r->counts[1] * r->counts[2];
    fprintf(out, "capture %s\n  kernel   %s\n", c->dir, c->demangled);
    if (strcmp(c->demangled, c->mangled) != 0)
        fprintf(out, "  symbol   %s\n", c->mangled);
    fprintf(out,
            "  launch   %llu of the program's; grid %ux%ux%u, block "
            "%ux%ux%u, %u bytes of dynamic shared memory\n",
            (unsigned long long)c->launch_index, c->grid[0], c->grid[1],
            c->grid[2], c->block[0], c->block[1], c->block[2], c->dynamic_smem);
    fprintf(out, "  module   %s, %llu bytes%s%s%s\n", c->module_kind,
            (unsigned long long)c->module_bytes, c->device[0] ? " (from " : "",
            c->device, c->device[0] ? ")" : "");
    fprintf(out,
            "  args     %zu parameters, %llu bytes; %zu allocations, %llu "
            "bytes\n",
            c->num_params, (unsigned long long)c->args_bytes, c->num_allocs,
            (unsigned long long)(kt_capture_data_bytes(c) / 2));
    fprintf(out, "  geometry %s: %zu block shapes, %zu allowed\n",
            r->custom ? r->file : "the default rule (threads kept)", points,
            allowed);
}

static int run_check(const cap_args *a)
{
    kt_capture c;
    kt_cap_rules r = {0};
    kt_err err;
    size_t allowed = 0;
    int rc = KT_EXIT_OK;
    /* The geometry is evaluated at every block shape: a rule that fails
     * (or allows nothing) is found here, not on the GPU. */
    if (kt_capture_read(a->check, &c, &err) ||
        kt_cap_rules_load(&c, &r, &err) ||
        kt_cap_rules_check(&r, &c, &allowed, &err))
        rc = kt_cli_fail(&err);
    else
        print_capture(stdout, &c, &r, allowed);
    kt_cap_rules_free(&r);
    kt_capture_free(&c);
    return rc;
}

/* ---- a run ------------------------------------------------------------- */

static kt_status find_capturer(char *out, size_t size, kt_err *err)
{
    const char *env = getenv("KTUNE_CAPTURER");
    char dir[PATH_MAX];
    if (env && *env) {
        snprintf(out, size, "%s", env);
    } else {
        kt_cli_builtin_dir(dir, sizeof dir);
        snprintf(out, size, "%s/../libktune_capture.so", dir);
    }
    if (access(out, R_OK) != 0)
        return kt_err_set(err, KT_S_IO,
                          "the capture library %s is missing (%s): rebuild "
                          "ktune, or name it with KTUNE_CAPTURER",
                          out, strerror(errno));
    if (out[0] != '/' && realpath(out, dir))
        snprintf(out, size, "%s", dir);
    return KT_S_OK;
}

static int dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int empty = 1;
    if (!d)
        return 0;
    while (empty && (e = readdir(d)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

static kt_status make_out_dir(const char *dir, char *abs, kt_err *err)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return kt_err_set(err, KT_S_INPUT, "--out %s: %s", dir,
                          strerror(errno));
    if (!kt_cap_is_dir(dir))
        return kt_err_set(err, KT_S_INPUT, "--out %s: not a folder", dir);
    if (!dir_is_empty(dir))
        return kt_err_set(err, KT_S_INPUT,
                          "--out %s: not empty; captures go into a new or "
                          "empty folder, so that what is there is this "
                          "run's",
                          dir);
    if (!realpath(dir, abs))
        return kt_err_set(err, KT_S_INPUT, "--out %s: %s", dir,
                          strerror(errno));
    return KT_S_OK;
}

/* Runs the program with the capture library injected and its settings in
 * the program's environment (ktune's own is never changed). */
static kt_status launch_captured(const cap_args *a, const char *lib,
                                 const char *dir, kt_tl_run *run, kt_err *err)
{
    char limit[32], max[32];
    kt_childenv_changes vars = {.n = 0};
    kt_status s;

    snprintf(limit, sizeof limit, "%lld", (long long)a->limit);
    snprintf(max, sizeof max, "%lld", (long long)a->max);
    kt_childenv_change(&vars, "CUDA_INJECTION64_PATH", lib);
    kt_childenv_change(&vars, "KTUNE_CAPTURE_DIR", dir);
    kt_childenv_change(&vars, "KTUNE_CAPTURE_KERNEL", a->kernel);
    kt_childenv_change(&vars, "KTUNE_CAPTURE_LAUNCH",
                       a->launch ? a->launch : "1");
    kt_childenv_change(&vars, "KTUNE_CAPTURE_LIMIT", limit);
    kt_childenv_change(&vars, "KTUNE_CAPTURE_MAX", max);
    kt_childenv_change(&vars, "KTUNE_CAPTURE_VERBOSE", a->verbose ? "1" : NULL);
    /* A module loaded lazily is loaded at its first launch, after the
     * launch's callback asked for its image: seen on the H200, the first
     * launch of a <<< >>> kernel then has none. Eager loading has every
     * module's image there before the first launch; the user's own
     * choice is kept. */
    if (!getenv("CUDA_MODULE_LOADING"))
        kt_childenv_change(&vars, "CUDA_MODULE_LOADING", "EAGER");
    if (!(s = kt_childenv_changes_check(&vars, err)))
        s = kt_tl_launch_env(a->o.operands, kt_childenv_changes_list(&vars),
                             run, err);
    kt_childenv_changes_free(&vars);
    return s;
}

/* tune.ini: the job `ktune tune CAPTURE` runs. */
static kt_status write_job(const kt_capture *c, kt_err *err)
{
    char path[4200], name[160];
    FILE *f;
    kt_cap_plugin_name(c->dir, name, sizeof name);
    snprintf(path, sizeof path, "%s/tune.ini", c->dir);
    if (!(f = fopen(path, "wx")))
        return kt_err_set(err, KT_S_IO, "%s: %s", path, strerror(errno));
    fprintf(f,
            "; Written by ktune capture: `ktune tune %s` re-runs the "
            "captured\n; launch over the block shapes of its geometry rules "
            "(docs/capture.md)\n; and verifies each against the captured "
            "output.\n\n[job]\noperator = %s:launch\n\n[strategy]\nname = "
            "exhaustive\n",
            c->dir, name);
    if (fclose(f) != 0)
        return kt_err_set(err, KT_S_IO, "%s: cannot be written", path);
    return KT_S_OK;
}

static void report_capture(const char *folder, int *captured)
{
    kt_capture c;
    kt_cap_rules r = {0};
    kt_err err;
    size_t allowed = 0;
    if (kt_capture_read(folder, &c, &err) || kt_cap_rules_load(&c, &r, &err) ||
        kt_cap_rules_check(&r, &c, &allowed, &err) || write_job(&c, &err)) {
        kt_msg("%s: written but not readable: %s\n", folder, err.msg);
    } else {
        print_capture(stderr, &c, &r, allowed);
        fprintf(stderr, "  tune it  ktune tune %s\n", folder);
        ++*captured;
    }
    kt_cap_rules_free(&r);
    kt_capture_free(&c);
}

/* What the capture logs of one run say (capture/trace/capturer.c). */
typedef struct seen_kernel {
    char *name, *via;
    uint64_t launches; /* from its N line; 0: none came (counted 1+) */
    int name_hit;
} seen_kernel;

typedef struct cap_report {
    int logs, captured, refused;
    seen_kernel *seen;
    size_t num_seen;
} cap_report;

static seen_kernel *seen_of(cap_report *r, const char *name)
{
    seen_kernel *grown;
    for (size_t i = 0; i < r->num_seen; ++i)
        if (strcmp(r->seen[i].name, name) == 0)
            return &r->seen[i];
    grown = realloc(r->seen, (r->num_seen + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    r->seen = grown;
    memset(&grown[r->num_seen], 0, sizeof *grown);
    if (!(grown[r->num_seen].name = strdup(name)))
        return NULL;
    return &grown[r->num_seen++];
}

/* K NAME VIA: a kernel's first launch; N NAME COUNT HIT: at exit. Several
 * processes' logs add up. */
static void note_kernel(cap_report *r, char **f, int n)
{
    seen_kernel *k = seen_of(r, f[1]);
    if (!k)
        return;
    if (strcmp(f[0], "K") == 0 && n >= 3 && !k->via)
        k->via = strdup(f[2]);
    if (strcmp(f[0], "N") == 0 && n >= 4) {
        k->launches += strtoull(f[2], NULL, 10);
        k->name_hit |= strcmp(f[3], "1") == 0;
    }
}

/* One line of a capture log. */
static void report_line(char *line, cap_report *r)
{
    char *f[4] = {NULL, NULL, NULL, NULL};
    int n = 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line, *save = NULL; n < 4; p = NULL) {
        char *tok = strtok_r(p, "\t", &save);
        if (!tok)
            break;
        f[n++] = tok;
    }
    if (n >= 2 && strcmp(f[0], "C") == 0) {
        report_capture(f[1], &r->captured);
    } else if (n >= 4 && strcmp(f[0], "R") == 0) {
        kt_msg("not captured: %s, launch %s: %s\n", f[1], f[2], f[3]);
        ++r->refused;
    } else if (n >= 2 && strcmp(f[0], "E") == 0) {
        kt_msg("capture failed: %s%s%s%s%s\n", f[1], f[2] ? " " : "",
               f[2] ? f[2] : "", f[3] ? " " : "", f[3] ? f[3] : "");
        ++r->refused;
    } else if (n >= 2 && (strcmp(f[0], "K") == 0 || strcmp(f[0], "N") == 0)) {
        note_kernel(r, f, n);
    }
}

static void read_log(const char *path, cap_report *r)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    if (!f)
        return;
    ++r->logs;
    while (getline(&line, &cap, f) > 0)
        report_line(line, r);
    free(line);
    fclose(f);
}

/* The kernels the program launched, at most `most` of them. */
static void list_seen(const cap_report *r, size_t most)
{
    uint64_t total = 0;
    int unknown = 0; /* a process that ended before its totals */
    for (size_t i = 0; i < r->num_seen; ++i) {
        total += r->seen[i].launches ? r->seen[i].launches : 1;
        unknown |= r->seen[i].launches == 0;
    }
    kt_msg("the program launched %zu kernel(s), %" PRIu64 "%s launch(es) in "
           "all:\n",
           r->num_seen, total, unknown ? " or more" : "");
    for (size_t i = 0; i < r->num_seen && i < most; ++i) {
        const seen_kernel *k = &r->seen[i];
        char *dm = kt_tl_demangle(k->name);
        char count[48];
        if (k->launches)
            snprintf(count, sizeof count, "%" PRIu64, k->launches);
        else
            snprintf(count, sizeof count, "1 or more");
        fprintf(stderr, "  %s%s%s%s: %s launch(es), through %s%s\n", k->name,
                dm ? " (" : "", dm ? dm : "", dm ? ")" : "", count,
                k->via ? k->via : "?",
                k->name_hit ? "; its name matches --kernel" : "");
        free(dm);
    }
    if (r->num_seen > most)
        fprintf(stderr, "  ... and %zu more (--verbose lists them all)\n",
                r->num_seen - most);
}

/* No log at all: no CUDA call reached the driver, or the driver could not
 * load the capture library (it says nothing when it cannot). */
static void no_log(const cap_args *a, const char *lib)
{
    void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
    kt_msg("%s made no CUDA call that reached the driver: nothing to "
           "capture\n",
           a->o.operands[0]);
    if (!h)
        kt_msg("(the capture library cannot be loaded here either: %s; the "
               "driver loads it the same way, through "
               "CUDA_INJECTION64_PATH)\n",
               dlerror());
    else
        dlclose(h);
}

/* Nothing captured: what matched nothing, and what the program launched. */
static void no_capture(const cap_args *a, const cap_report *r)
{
    int hit = 0;
    for (size_t i = 0; i < r->num_seen; ++i)
        hit |= r->seen[i].name_hit;
    if (!hit)
        kt_msg("no launch matched%s%s (launch %s): nothing captured\n",
               a->kernel ? " --kernel " : "", a->kernel ? a->kernel : "",
               a->launch ? a->launch : "1");
    if (r->num_seen)
        list_seen(r, a->verbose ? (size_t)-1 : 20);
    else
        kt_msg("the capture library ran but saw no kernel launch: no runtime "
               "(<<< >>>, cudaLaunchKernel) and no driver (cuLaunchKernel) "
               "launch callback came (--verbose says more)\n");
    if (hit && !r->refused)
        kt_msg("a kernel whose name matches was launched fewer times than "
               "--launch %s asks\n",
               a->launch ? a->launch : "1");
}

static void free_report(cap_report *r)
{
    for (size_t i = 0; i < r->num_seen; ++i) {
        free(r->seen[i].name);
        free(r->seen[i].via);
    }
    free(r->seen);
}

static int report(const char *dir, const char *lib, const cap_args *a)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    cap_report r = {0};
    char path[4200];
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "capture-", 8) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        read_log(path, &r);
    }
    closedir(d);
    if (!r.logs)
        no_log(a, lib);
    else if (!r.captured)
        no_capture(a, &r);
    else if (a->verbose)
        list_seen(&r, (size_t)-1);
    free_report(&r);
    return r.captured;
}

static int run_program(const cap_args *a)
{
    char program[PATH_MAX], lib[PATH_MAX], dir[PATH_MAX], *saved;
    kt_tl_run run;
    kt_err err;

    if (kt_tl_find_program(a->o.operands[0], program, sizeof program, &err) ||
        find_capturer(lib, sizeof lib, &err) ||
        make_out_dir(a->out ? a->out : "ktune-captures", dir, &err))
        return kt_cli_fail(&err);
    saved = a->o.operands[0];
    a->o.operands[0] = program;
    if (launch_captured(a, lib, dir, &run, &err)) {
        a->o.operands[0] = saved;
        return kt_cli_fail(&err);
    }
    a->o.operands[0] = saved;
    if (run.signal)
        kt_msg("%s was ended by signal %d (%s)%s\n", saved, run.signal,
               strsignal(run.signal), run.core_dumped ? ", core dumped" : "");
    report(dir, lib, a);
    return kt_tl_run_status(&run);
}

int kt_cmd_capture(int argc, char **argv)
{
    cap_args a = {.limit = (int64_t)1 << 32, .max = 64};
    kt_err err;
    int rc = parse_args(argc, argv, &a, &err);
    if (rc) {
        kt_cli_options_free(&a.o);
        return rc < 0 ? KT_EXIT_OK : kt_cli_fail(&err);
    }
    rc = a.check ? run_check(&a) : run_program(&a);
    kt_cli_options_free(&a.o);
    return rc;
}
