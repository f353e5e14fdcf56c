// SPDX-License-Identifier: Apache-2.0
/*
 * kt_registry: the plugins loaded into this process.
 *
 * Each plugin is dlopen'ed (RTLD_NOW | RTLD_LOCAL), stays resident until the
 * registry is freed, and is validated field by field before anything uses it.
 * The registry keeps *normalised* copies of the descriptors: every struct
 * copied into a zeroed struct of the host's size (only the bytes the
 * plugin's struct_size covers), every array re-laid with the host's stride.
 * The rest of ktune reads only these copies.
 *
 * One bad plugin never stops the others: directory scans record one line per
 * failure in `failures` and go on.
 */
#ifndef KT_LOADER_H
#define KT_LOADER_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "core/expr.h"
#include "core/point.h"
#include "core/settings.h"
#include "ktune/plugin.h"

struct kt_loader_kind;

/* Asks about check()/shape() of the points pts[0..n) of operator op (its
 * index in the descriptor) at once, so that the kt_call_shape calls about
 * them that follow are answered from memory: for a plugin whose callbacks
 * each cost a round trip (an isolated plugin's child), many questions in
 * one exchange, which no callback of the ABI asks. owner is the loaded
 * plugin's kind_owner. Nothing to report (a question that fails here
 * fails with its message when kt_call_shape asks it). */
typedef void (*kt_shape_prefetch_fn)(void *owner, uint32_t op,
                                     const kt_problem *problem,
                                     const kt_point *pts, size_t n);

/* A variant's constraints as expressions, the conjuncts parts[0..n) (a
 * declaration's require), for the searches that read them. */
typedef struct kt_variant_require {
    kt_expr *const *parts;
    size_t n;
} kt_variant_require;

typedef struct kt_loaded_plugin {
    char *path;     /* owned */
    void *handle;   /* dlopen handle, owned */
    kt_plugin desc; /* normalised; desc.operators points into owned memory */
    void **owned;   /* allocations behind the normalised arrays */
    size_t num_owned;
    /* The backend table: NULL for a shared object mapped into this process
     * (handle). Else the kind that loaded it (kt_loader_add_kind: a
     * declaration, a capture, or the isolating kind's probed plugin, whose
     * code runs only in child processes: its pure callbacks in desc are the
     * kind's, which ask the child; the others are stubs that fail). handle
     * is NULL and kind->release frees kind_owner. No list of plugins is kept
     * beside the registries: whoever calls holds the plugin with its
     * operator (kt_registry_resolve) and hands both to kt_call_*. */
    const struct kt_loader_kind *kind;
    void *kind_owner;
    /* What the kind's load handed with the descriptor: per operator of
     * desc, NULL or its variants' constraints as expressions
     * (kt_call_require); NULL for none. Owned by kind_owner. */
    const kt_variant_require *const *require;
    /* What the kind's adopt handed with kind_owner (the isolating kind's):
     * many shape questions in one exchange (kt_call_shape_prefetch); NULL
     * for a plugin whose callbacks cost nothing to call. */
    kt_shape_prefetch_fn prefetch;
} kt_loaded_plugin;

typedef struct kt_registry {
    kt_loaded_plugin **plugins;
    size_t count;
    /* The built-in folder kt_registry_load_default was given (owned), or
     * NULL: a declaration named like a plugin of that folder replaces it
     * (the user's kernel is what they named, issue 50). */
    char *builtin_dir;
    char **failures; /* "file: what was expected, what was found" */
    size_t num_failures;
    /* > 0: every plugin is first loaded and validated in a child process
     * with this time limit, so one whose entry point or static
     * initialisers crash, hang or exit is reported instead of taking this
     * process down. 0: load in-process directly. Probe before this process
     * initialises CUDA (a forked child must not inherit a CUDA context). */
    int probe_timeout_ms;
    /* With probing: never map a plugin into this process at all. The
     * registry holds the descriptors the probe children validated, and
     * the pure callbacks run in a child (isolation/oracle.h); everything else
     * runs in worker processes. For commands, whose process must survive
     * any plugin. */
    int isolated;
    /* The environment as kt_registry_init read it (KTUNE_PLUGIN_PATH,
     * KTUNE_PLUGIN_TIMEOUT): the registry reads no other. */
    kt_settings settings;
} kt_registry;

#define KT_PROBE_TIMEOUT_MS 10000

/* An empty registry that probes plugins (KT_PROBE_TIMEOUT_MS, or
 * KTUNE_PLUGIN_TIMEOUT seconds from the environment), all of a search path
 * in parallel, remembering verdicts (isolation/probe.h), then maps the good
 * ones into this process. Set `isolated` before loading to map none. */
void kt_registry_init(kt_registry *reg);

/* What a probe of a shared object found (the isolating kind's probe). */
typedef struct kt_probe_verdict {
    int ok;
    json_t *desc;  /* ok: the validated descriptor (owned reference) */
    char *message; /* !ok: "file: why", one line (owned) */
    int cached;    /* the verdict came from the cache */
} kt_probe_verdict;

void kt_probe_verdict_free(kt_probe_verdict *v);

/* A kind of plugin, registered with kt_loader_add_kind by the layer that
 * knows it: the loader names none. Two sorts:
 *  - a file kind (declarations, declared/declared.h; captures, capture/):
 *    a file it claims is loaded in this process (never probed: it runs no
 *    foreign code) through load, which hands back a descriptor that stays
 *    valid until release(owner), and with it, where it knows them, its
 *    variants' constraints as expressions (*require, NULL before the call:
 *    per operator, NULL or one kt_variant_require per variant; a
 *    declaration's require, for the searches that read them); load frees
 *    what it made when it fails;
 *  - the isolating kind (isolation/, one per process): claims nothing;
 *    shared objects are probed in child processes (probe, all of a search
 *    path at once), and a registry that maps none (kt_registry.isolated)
 *    adopts each probed descriptor, its code left in a child: adopt makes
 *    the owner (release frees it) and gives desc, the registry's copy of
 *    the descriptor, its pure callbacks (an operator's work, a variant's
 *    check and shape) with their data, which ask the plugin's child (the
 *    oracle) and report its crash or hang through kt_call_fail; with the
 *    owner it hands back *prefetch (NULL before the call), which asks the
 *    child many questions in one exchange (kt_loaded_plugin.prefetch).
 * Every kind's descriptors are ordinary ones: their callbacks find what
 * they need through their data (kt_operator.data, kt_variant.data, ABI
 * 1.3), as any plugin's do, and kt_call_* call them alike; a kind answers
 * no call itself. The kind must outlive every registry. */
typedef struct kt_loader_kind {
    const char *name;
    int (*claims)(const char *path);
    kt_status (*load)(const char *path, void **owner, const kt_plugin **desc,
                      const kt_variant_require *const **require, kt_err *err);
    void (*release)(void *owner);
    void (*probe)(const char *const *paths, size_t n, int timeout_ms,
                  kt_probe_verdict *out);
    kt_status (*adopt)(const char *path, int timeout_ms, kt_plugin *desc,
                       void **owner, kt_shape_prefetch_fn *prefetch,
                       kt_err *err);
} kt_loader_kind;

/* Adds a kind for every registry of the process (at most 8). KT_S_OK, or
 * KT_S_UNSUPPORTED when the table is full. */
kt_status kt_loader_add_kind(const kt_loader_kind *kind, kt_err *err);

/* The registered kind that claims path, or NULL. */
const kt_loader_kind *kt_loader_kind_of(const char *path);

/* Unloads every plugin and frees the registry's memory. */
void kt_registry_free(kt_registry *reg);

/* Loads one plugin file: a shared object (*.so), or a declaration (an INI
 * file with an [operator] section, declared/declared.h). On failure nothing is
 * added and err says why, starting with the file name (KT_S_INPUT for a
 * declaration's mistakes). */
kt_status kt_registry_load_file(kt_registry *reg, const char *path,
                                kt_err *err);

/* Loads every *.so in dir (in name order); failures go to reg->failures.
 * A missing directory is recorded as a failure only when `required`. */
void kt_registry_load_dir(kt_registry *reg, const char *dir, int required);

/* Loads the standard search path: the built-in folder, then each entry of
 * KTUNE_PLUGIN_PATH (colon-separated folders or files), then `files`. A
 * declaration loaded into reg afterwards or among these, named like a
 * built-in plugin, takes that plugin's place; any other repeated name is
 * refused. */
void kt_registry_load_default(kt_registry *reg, const char *builtin_dir,
                              const char *const *files, size_t num_files);

/* Finds "plugin:operator" (or "plugin" when it has one operator). Unknown
 * names give KT_S_INPUT with close matches. */
kt_status kt_registry_resolve(const kt_registry *reg, const char *spec,
                              const kt_loaded_plugin **plugin,
                              const kt_operator **op, kt_err *err);

const kt_loaded_plugin *kt_registry_find(const kt_registry *reg,
                                         const char *name);

/* Index of the variant called id in op, or KT_S_INPUT with close matches. */
kt_status kt_operator_find_variant(const kt_operator *op, const char *id,
                                   size_t *index, kt_err *err);

/* Index of the size called name in op, or KT_S_INPUT with close matches. */
kt_status kt_operator_find_size(const kt_operator *op, const char *name,
                                size_t *index, kt_err *err);

/* The pure callbacks, wherever the plugin's code lives: called here for a
 * plugin mapped into this process, through its oracle for an isolated one.
 * plugin is the one that loaded op (op is one of plugin->desc.operators),
 * or NULL for an operator this process made itself (a test's), whose
 * callbacks are called here. KT_S_OK with the callback's own return code
 * in *rc (work) or *check_rc and *shape_rc (shape runs only when check, if
 * any, said KT_OK; why gets check's reason; check_rc NULL: shape alone,
 * for a point checked before); KT_S_PLUGIN when the callback crashed or
 * hung. */
kt_status kt_call_work(const kt_loaded_plugin *plugin, const kt_operator *op,
                       const kt_problem *problem, kt_work *out, int *rc,
                       kt_err *err);
kt_status kt_call_shape(const kt_loaded_plugin *plugin, const kt_operator *op,
                        uint32_t variant, const kt_problem *problem,
                        const kt_config *cfg, int *check_rc, char *why,
                        size_t why_size, int *shape_rc, kt_shape *shape,
                        kt_err *err);

/* For a descriptor's callback whose code can fail in a way the ABI's
 * return codes cannot carry (an isolated plugin's: its child crashed or
 * hung): records why for the kt_call_work or kt_call_shape that called it
 * on this thread, which then returns KT_S_PLUGIN with err's message (the
 * callback's own return code is not read). Per thread. */
void kt_call_fail(const kt_err *err);

/* setup() of op, in this process, with op's data in the problem it
 * sees (ABI 1.3); the callback's return code. plugin may be NULL. */
int kt_call_setup(const kt_loaded_plugin *plugin, const kt_operator *op,
                  const kt_host *host, const kt_problem *problem, void **state);

/* The work of one configuration of variant (kt_variant.work, ABI 1.2):
 * 1 with *out set when the variant has one and it said KT_OK, 0 when the
 * operator's work() is the configuration's. In this process, with the
 * operator's and the variant's data (ABI 1.3), like kt_call_setup. */
int kt_call_work_of(const kt_loaded_plugin *plugin, const kt_operator *op,
                    uint32_t variant, const kt_problem *problem,
                    const kt_config *cfg, kt_work *out);

/* For a plugin whose kind handed a prefetch with it (an isolated plugin:
 * its oracle, kt_oracle_prefetch): asks about check()/shape() of the
 * points pts[0..n) at once, so that the kt_call_shape calls about them
 * that follow are answered from memory. Nothing for a plugin mapped into
 * this process, whose calls cost nothing; nothing to report (a question
 * that fails here fails with its message when kt_call_shape asks it). */
void kt_call_shape_prefetch(const kt_loaded_plugin *plugin,
                            const kt_operator *op, const kt_problem *problem,
                            const kt_point *pts, size_t n);

/* The constraints of variant of op as expressions, where the kind that
 * loaded op's plugin handed them with its descriptor (a declaration's
 * require, kt_loaded_plugin.require): 1 with *parts[0..*n), which live as
 * long as the plugin; 0 when op's constraints are its plugin's code (or
 * plugin is NULL). */
int kt_call_require(const kt_loaded_plugin *plugin, const kt_operator *op,
                    uint32_t variant, kt_expr *const **parts, size_t *n);

/* Index of the parameter called name in variant, or -1. */
long kt_variant_find_param(const kt_variant *variant, const char *name);

/* Whether a plugin built for `archs` (its __CUDA_ARCH_LIST__, "800,900")
 * can run on a device of compute capability major.minor. Only the sure case
 * is refused: every listed architecture is newer than the device (neither
 * machine code nor PTX can run there). KT_S_PLUGIN naming the device's sm_XY
 * and the CMake setting to rebuild with; KT_S_OK when archs is NULL/empty. */
kt_status kt_plugin_check_arch(const char *name, const char *archs, int major,
                               int minor, kt_err *err);

#endif
