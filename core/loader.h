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

#include <stddef.h>

#include "core/error.h"
#include "core/point.h"
#include "ktune/plugin.h"

typedef struct kt_loaded_plugin {
    char *path;     /* owned */
    void *handle;   /* dlopen handle, owned */
    kt_plugin desc; /* normalised; desc.operators points into owned memory */
    void **owned;   /* allocations behind the normalised arrays */
    size_t num_owned;
    /* A declared operator (core/declared.h) instead of a shared object:
     * handle is NULL and this owns the declaration. */
    struct kt_declared *declared;
    /* Loaded only in child processes: the callbacks in desc are stubs, and
     * kt_call_work/kt_call_shape ask the oracle (a child that has the
     * plugin loaded). handle is NULL. */
    int isolated;
    struct kt_oracle *oracle; /* owned */
    /* Loaded by a kind registered with kt_loader_add_kind (a capture, say):
     * handle is NULL and kind->release frees kind_owner. */
    const struct kt_loader_kind *kind;
    void *kind_owner;
} kt_loaded_plugin;

typedef struct kt_registry {
    kt_loaded_plugin **plugins;
    size_t count;
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
     * the pure callbacks run in a child (core/oracle.h); everything else
     * runs in worker processes. For commands, whose process must survive
     * any plugin. */
    int isolated;
} kt_registry;

#define KT_PROBE_TIMEOUT_MS 10000

/* An empty registry that probes plugins (KT_PROBE_TIMEOUT_MS, or
 * KTUNE_PLUGIN_TIMEOUT seconds from the environment), all of a search path
 * in parallel, remembering verdicts (core/probe.h), then maps the good ones
 * into this process. Set `isolated` before loading to map none. */
void kt_registry_init(kt_registry *reg);

/* Another kind of plugin file, read by a layer above core (capture/): a
 * file it claims is loaded in this process like a declaration (never
 * probed: it runs no foreign code), through load, which hands back a
 * descriptor that stays valid until release(owner). The kind must outlive
 * every registry. */
typedef struct kt_loader_kind {
    const char *name;
    int (*claims)(const char *path);
    kt_status (*load)(const char *path, void **owner, const kt_plugin **desc,
                      kt_err *err);
    void (*release)(void *owner);
} kt_loader_kind;

/* Adds a kind for every registry of the process (at most 4). KT_S_OK, or
 * KT_S_UNSUPPORTED when the table is full. */
kt_status kt_loader_add_kind(const kt_loader_kind *kind, kt_err *err);

/* The registered kind that claims path, or NULL. */
const kt_loader_kind *kt_loader_kind_of(const char *path);

/* Unloads every plugin and frees the registry's memory. */
void kt_registry_free(kt_registry *reg);

/* Loads one plugin file: a shared object (*.so), or a declaration (an INI
 * file with an [operator] section, core/declared.h). On failure nothing is
 * added and err says why, starting with the file name (KT_S_INPUT for a
 * declaration's mistakes). */
kt_status kt_registry_load_file(kt_registry *reg, const char *path,
                                kt_err *err);

/* Loads every *.so in dir (in name order); failures go to reg->failures.
 * A missing directory is recorded as a failure only when `required`. */
void kt_registry_load_dir(kt_registry *reg, const char *dir, int required);

/* Loads the standard search path: the built-in folder, then each entry of
 * KTUNE_PLUGIN_PATH (colon-separated folders or files), then `files`. */
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
 * KT_S_OK with the callback's own return code in *rc (work) or *check_rc
 * and *shape_rc (shape runs only when check, if any, said KT_OK; why gets
 * check's reason); KT_S_PLUGIN when the callback crashed or hung. */
kt_status kt_call_work(const kt_operator *op, const kt_problem *problem,
                       kt_work *out, int *rc, kt_err *err);
kt_status kt_call_shape(const kt_operator *op, uint32_t variant,
                        const kt_problem *problem, const kt_config *cfg,
                        int *check_rc, char *why, size_t why_size,
                        int *shape_rc, kt_shape *shape, kt_err *err);

/* For an isolated plugin: asks its oracle about check()/shape() of the
 * points pts[0..n) at once (kt_oracle_prefetch), so that the kt_call_shape
 * calls about them that follow are answered from memory. Nothing for a
 * plugin mapped into this process, whose calls cost nothing; nothing to
 * report (a question that fails here fails with its message when
 * kt_call_shape asks it). */
void kt_call_shape_prefetch(const kt_operator *op, const kt_problem *problem,
                            const kt_point *pts, size_t n);

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
