#include "core/loader.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/declared.h"
#include "core/param.h"
#include "core/proc.h"
#include "core/suggest.h"

/* Sizes of the ABI 1.0 structs: a plugin's struct may be larger (a newer
 * minor version) but never smaller than the version that introduced it. */
enum {
    MIN_PLUGIN = KTUNE_ABI_1_0_SIZEOF_PLUGIN,
    MIN_OPERATOR = KTUNE_ABI_1_0_SIZEOF_OPERATOR,
    MIN_VARIANT = KTUNE_ABI_1_0_SIZEOF_VARIANT,
    MIN_PARAM = KTUNE_ABI_1_0_SIZEOF_PARAM_DESC,
    MIN_SIZE = KTUNE_ABI_1_0_SIZEOF_SIZE_DESC
};

typedef struct loading {
    kt_loaded_plugin *lp;
    const char *file; /* for messages */
    kt_err *err;
} loading;

static void *own(loading *ld, size_t bytes)
{
    kt_loaded_plugin *lp = ld->lp;
    void **grown = realloc(lp->owned, (lp->num_owned + 1) * sizeof *grown);
    void *block;

    if (!grown)
        return NULL;
    lp->owned = grown;
    block = calloc(1, bytes ? bytes : 1);
    if (block)
        lp->owned[lp->num_owned++] = block;
    return block;
}

/* Copies what struct_size covers of a plugin struct into a zeroed host one. */
static kt_status copy_struct(loading *ld, void *dst, size_t host_size,
                             const void *src, size_t min_size, const char *what)
{
    uint32_t size;

    if (!src)
        return kt_err_set(ld->err, KT_S_PLUGIN, "%s: %s is NULL", ld->file,
                          what);
    memcpy(&size, src, sizeof size);
    if (size < min_size)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s.struct_size is %u, "
                          "expected at least %zu (struct too small: built "
                          "against an older or foreign header?)",
                          ld->file, what, size, min_size);
    memset(dst, 0, host_size);
    memcpy(dst, src, size < host_size ? size : host_size);
    /* The copy is a host-sized struct now; say so. */
    memcpy(dst, &(uint32_t){(uint32_t)host_size}, sizeof(uint32_t));
    return KT_S_OK;
}

/* Re-lays a plugin array with the host's stride. The stride of the plugin's
 * array is its first element's struct_size; every element must agree. */
static kt_status copy_array(loading *ld, void **dst, size_t host_size,
                            const void *src, size_t count, size_t min_size,
                            const char *what)
{
    char *out;
    uint32_t stride;

    if (count == 0) {
        *dst = NULL;
        return KT_S_OK;
    }
    if (!src)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s is NULL but its count "
                          "is %zu",
                          ld->file, what, count);
    memcpy(&stride, src, sizeof stride);
    out = own(ld, host_size * count);
    if (!out)
        return kt_err_set(ld->err, KT_S_NOMEM, "%s: out of memory", ld->file);
    for (size_t i = 0; i < count; ++i) {
        const char *elem = (const char *)src + i * (size_t)stride;
        uint32_t size;
        char label[160];
        snprintf(label, sizeof label, "%s[%zu]", what, i);
        memcpy(&size, elem, sizeof size);
        if (i > 0 && size != stride)
            return kt_err_set(ld->err, KT_S_PLUGIN,
                              "%s: %s.struct_size is %u, "
                              "expected %u like element 0",
                              ld->file, label, size, stride);
        if (copy_struct(ld, out + i * host_size, host_size, elem, min_size,
                        label))
            return ld->err ? ld->err->status : KT_S_PLUGIN;
    }
    *dst = out;
    return KT_S_OK;
}

/* Ids appear in INI files and on command lines: keep them plain. */
static kt_status check_id(loading *ld, const char *id, const char *what)
{
    if (!id || !*id)
        return kt_err_set(ld->err, KT_S_PLUGIN, "%s: %s is NULL or empty",
                          ld->file, what);
    for (const char *p = id; *p; ++p)
        if (!isalnum((unsigned char)*p) && !strchr("_-.", *p))
            return kt_err_set(ld->err, KT_S_PLUGIN,
                              "%s: %s '%s' has '%c'; "
                              "expected letters, digits, '_', '-' or '.'",
                              ld->file, what, id, *p);
    return KT_S_OK;
}

static kt_status check_required(loading *ld, const void *fn, const char *what)
{
    if (!fn)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: required field %s is "
                          "NULL",
                          ld->file, what);
    return KT_S_OK;
}

static kt_status normalise_variant(loading *ld, kt_variant *v,
                                   const char *where)
{
    char what[256];
    kt_param_desc *params = NULL;
    kt_status rc;

    snprintf(what, sizeof what, "%s.id", where);
    if ((rc = check_id(ld, v->id, what)))
        return rc;
    snprintf(what, sizeof what, "%s ('%s').shape", where, v->id);
    if ((rc = check_required(ld, (const void *)v->shape, what)))
        return rc;
    snprintf(what, sizeof what, "%s ('%s').launch", where, v->id);
    if (!v->launch_shaped &&
        (rc = check_required(ld, (const void *)v->launch, what)))
        return rc;
    if (v->num_params > KT_MAX_PARAMS)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s ('%s').num_params is "
                          "%u, expected at most %d",
                          ld->file, where, v->id, v->num_params, KT_MAX_PARAMS);
    snprintf(what, sizeof what, "%s ('%s').params", where, v->id);
    if ((rc = copy_array(ld, (void **)&params, sizeof *params, v->params,
                         v->num_params, MIN_PARAM, what)))
        return rc;
    for (uint32_t i = 0; i < v->num_params; ++i) {
        kt_err perr;
        snprintf(what, sizeof what, "%s ('%s').params[%u].name", where, v->id,
                 i);
        if ((rc = check_id(ld, params[i].name, what)))
            return rc;
        if (strcmp(params[i].name, "variant") == 0)
            return kt_err_set(ld->err, KT_S_PLUGIN,
                              "%s: %s ('%s'): parameter "
                              "name 'variant' is reserved",
                              ld->file, where, v->id);
        if (kt_param_validate(&params[i], &perr))
            return kt_err_set(ld->err, KT_S_PLUGIN, "%s: %s ('%s'): %s",
                              ld->file, where, v->id, perr.msg);
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(params[i].name, params[j].name) == 0)
                return kt_err_set(ld->err, KT_S_PLUGIN,
                                  "%s: %s ('%s'): "
                                  "duplicate parameter '%s'",
                                  ld->file, where, v->id, params[i].name);
    }
    v->params = params;
    /* Bits this host does not know come from a newer plugin: ignored, like
     * the fields it appends. */
    v->flags &= KT_VARIANT_REFERENCE;
    v->reserved = 0;
    return KT_S_OK;
}

static kt_status normalise_operator(loading *ld, kt_operator *op, size_t index)
{
    char where[128], what[256];
    kt_variant *variants = NULL;
    kt_size_desc *sizes = NULL;
    kt_status rc;

    snprintf(where, sizeof where, "operators[%zu]", index);
    snprintf(what, sizeof what, "%s.id", where);
    if ((rc = check_id(ld, op->id, what)))
        return rc;
    snprintf(where, sizeof where, "operator '%s'", op->id);
    {
        const struct {
            const void *fn;
            const char *name;
        } required[] = {{(const void *)op->work, "work"},
                        {(const void *)op->setup, "setup"},
                        {(const void *)op->verify, "verify"},
                        {(const void *)op->teardown, "teardown"}};
        for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i) {
            snprintf(what, sizeof what, "%s.%s", where, required[i].name);
            if ((rc = check_required(ld, required[i].fn, what)))
                return rc;
        }
    }
    if (op->num_sizes < 1 || op->num_sizes > KT_MAX_SIZES)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s.num_sizes is %u, "
                          "expected 1 to %d",
                          ld->file, where, op->num_sizes, KT_MAX_SIZES);
    snprintf(what, sizeof what, "%s.sizes", where);
    if ((rc = copy_array(ld, (void **)&sizes, sizeof *sizes, op->sizes,
                         op->num_sizes, MIN_SIZE, what)))
        return rc;
    for (uint32_t i = 0; i < op->num_sizes; ++i) {
        snprintf(what, sizeof what, "%s.sizes[%u].name", where, i);
        if ((rc = check_id(ld, sizes[i].name, what)))
            return rc;
        if (sizes[i].min < 1 || sizes[i].max < sizes[i].min ||
            sizes[i].default_value < sizes[i].min ||
            sizes[i].default_value > sizes[i].max)
            return kt_err_set(
                ld->err, KT_S_PLUGIN,
                "%s: %s size '%s': "
                "expected 1 <= min <= default <= max, found "
                "min %lld, default %lld, max %lld",
                ld->file, where, sizes[i].name, (long long)sizes[i].min,
                (long long)sizes[i].default_value, (long long)sizes[i].max);
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(sizes[i].name, sizes[j].name) == 0)
                return kt_err_set(ld->err, KT_S_PLUGIN,
                                  "%s: %s: duplicate "
                                  "size '%s'",
                                  ld->file, where, sizes[i].name);
    }
    op->sizes = sizes;
    if (op->num_variants < 1)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: %s.num_variants is 0, "
                          "expected at least 1",
                          ld->file, where);
    snprintf(what, sizeof what, "%s.variants", where);
    if ((rc = copy_array(ld, (void **)&variants, sizeof *variants, op->variants,
                         op->num_variants, MIN_VARIANT, what)))
        return rc;
    for (uint32_t i = 0; i < op->num_variants; ++i) {
        snprintf(what, sizeof what, "%s variants[%u]", where, i);
        if ((rc = normalise_variant(ld, &variants[i], what)))
            return rc;
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(variants[i].id, variants[j].id) == 0)
                return kt_err_set(ld->err, KT_S_PLUGIN,
                                  "%s: %s: duplicate "
                                  "variant id '%s'",
                                  ld->file, where, variants[i].id);
    }
    op->variants = variants;
    return KT_S_OK;
}

static kt_status normalise_plugin(loading *ld, const kt_plugin *raw)
{
    kt_plugin *d = &ld->lp->desc;
    kt_operator *ops = NULL;
    kt_status rc;

    if (raw->magic != KT_PLUGIN_MAGIC)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: not a ktune plugin: magic "
                          "is 0x%016llx, expected 0x%016llx",
                          ld->file, (unsigned long long)raw->magic,
                          (unsigned long long)KT_PLUGIN_MAGIC);
    if (raw->abi_major != KT_ABI_MAJOR)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: ABI major version %u, "
                          "expected %d (rebuild the plugin against this "
                          "ktune's plugin.h)",
                          ld->file, raw->abi_major, KT_ABI_MAJOR);
    if ((rc = copy_struct(ld, d, sizeof *d, raw, MIN_PLUGIN, "descriptor")))
        return rc;
    if ((rc = check_id(ld, d->name, "descriptor.name")))
        return rc;
    if (d->num_operators < 1)
        return kt_err_set(ld->err, KT_S_PLUGIN,
                          "%s: descriptor.num_operators "
                          "is 0, expected at least 1",
                          ld->file);
    if ((rc = copy_array(ld, (void **)&ops, sizeof *ops, d->operators,
                         d->num_operators, MIN_OPERATOR,
                         "descriptor.operators")))
        return rc;
    for (uint32_t i = 0; i < d->num_operators; ++i) {
        if ((rc = normalise_operator(ld, &ops[i], i)))
            return rc;
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(ops[i].id, ops[j].id) == 0)
                return kt_err_set(ld->err, KT_S_PLUGIN,
                                  "%s: duplicate operator "
                                  "id '%s'",
                                  ld->file, ops[i].id);
    }
    d->operators = ops;
    return KT_S_OK;
}

static void unload(kt_loaded_plugin *lp)
{
    if (!lp)
        return;
    for (size_t i = 0; i < lp->num_owned; ++i)
        free(lp->owned[i]);
    free(lp->owned);
    if (lp->handle)
        dlclose(lp->handle);
    kt_declared_free(lp->declared);
    free(lp->path);
    free(lp);
}

void kt_registry_init(kt_registry *reg)
{
    const char *env = getenv("KTUNE_PLUGIN_TIMEOUT");
    double seconds = env ? atof(env) : 0.0;

    memset(reg, 0, sizeof *reg);
    reg->probe_timeout_ms =
        seconds > 0 ? (int)(seconds * 1e3) : KT_PROBE_TIMEOUT_MS;
}

/* Loads and validates path in a child process. The child writes the
 * loader's message (if any) to a pipe and exits; the parent reads it and
 * reports the child's death or time-out in the same one-line form. */
static kt_status probe_in_child(const char *path, int timeout_ms, kt_err *err)
{
    char msg[sizeof err->msg] = "";
    size_t got = 0;
    double deadline;
    int fds[2], status = 0, done = 0;
    pid_t pid;

    if (pipe(fds) != 0)
        return kt_err_set(err, KT_S_IO, "%s: cannot probe: pipe: %s", path,
                          strerror(errno));
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return kt_err_set(err, KT_S_IO, "%s: cannot probe: fork: %s", path,
                          strerror(errno));
    }
    if (pid == 0) {
        static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
        kt_registry tmp;
        kt_err cerr;
        close(fds[0]);
        /* Handlers inherited from the parent (a test framework's, say) must
         * not catch the plugin's crash: die of it, so the parent sees it. */
        for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i)
            signal(fatal[i], SIG_DFL);
        memset(&tmp, 0, sizeof tmp); /* probe_timeout_ms = 0: in-process */
        if (kt_registry_load_file(&tmp, path, &cerr)) {
            ssize_t w = write(fds[1], cerr.msg, strlen(cerr.msg));
            (void)w;
            _exit(1);
        }
        /* _exit: no destructors, no flushing of inherited buffers. */
        _exit(0);
    }
    close(fds[1]);
    deadline = (1e3 * kt_clock_seconds()) + timeout_ms;
    while (!done) {
        struct pollfd pfd = {fds[0], POLLIN, 0};
        double left = deadline - (1e3 * kt_clock_seconds());
        int ready;
        ssize_t n;
        if (left <= 0)
            break;
        ready = poll(&pfd, 1, (int)left + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        n = read(fds[0], msg + got, sizeof msg - 1 - got);
        if (n > 0 && got + (size_t)n < sizeof msg - 1)
            got += (size_t)n;
        else if (n == 0 || n < 0)
            done = 1; /* end of file: the child exited or died */
    }
    close(fds[0]);
    msg[got] = '\0';
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return kt_err_set(err, KT_S_PLUGIN,
                          "%s: did not finish loading within "
                          "%.0f s (its entry point or initialisers hang); not "
                          "loaded",
                          path, timeout_ms / 1e3);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return KT_S_OK;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 1 && got > 0)
        return kt_err_set(err, KT_S_PLUGIN, "%s", msg);
    {
        char how[128];
        kt_describe_exit(status, how, sizeof how);
        return kt_err_set(err, KT_S_PLUGIN,
                          "%s: loading it %s (in its entry "
                          "point or initialisers); not loaded",
                          path, how);
    }
}

void kt_registry_free(kt_registry *reg)
{
    for (size_t i = 0; i < reg->count; ++i)
        unload(reg->plugins[i]);
    for (size_t i = 0; i < reg->num_failures; ++i)
        free(reg->failures[i]);
    free(reg->plugins);
    free(reg->failures);
    reg->plugins = NULL;
    reg->failures = NULL;
    reg->count = 0;
    reg->num_failures = 0;
}

static void add_failure(kt_registry *reg, const char *text)
{
    char **grown =
        realloc(reg->failures, (reg->num_failures + 1) * sizeof *grown);
    char *copy = strdup(text);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            reg->failures = grown;
        return;
    }
    reg->failures = grown;
    reg->failures[reg->num_failures++] = copy;
}

const kt_loaded_plugin *kt_registry_find(const kt_registry *reg,
                                         const char *name)
{
    for (size_t i = 0; i < reg->count; ++i)
        if (strcmp(reg->plugins[i]->desc.name, name) == 0)
            return reg->plugins[i];
    return NULL;
}

static int has_so_suffix(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

static kt_status load_file_at(kt_registry *reg, const char *path, kt_err *err)
{
    loading ld = {NULL, path, err};
    kt_plugin_entry_fn entry;
    const kt_plugin *raw;
    const kt_loaded_plugin *dup;
    kt_loaded_plugin **grown;
    kt_status rc = KT_S_OK;

    int declared = !has_so_suffix(path) && kt_declared_is_declaration(path);

    /* A declaration runs no foreign code while loading: no probe. */
    if (!declared && reg->probe_timeout_ms > 0 &&
        (rc = probe_in_child(path, reg->probe_timeout_ms, err)))
        return rc;
    ld.lp = calloc(1, sizeof *ld.lp);
    if (!ld.lp || !(ld.lp->path = strdup(path))) {
        rc = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
        goto done;
    }
    if (declared) {
        if ((rc = kt_declared_load(path, &ld.lp->declared, err)) ||
            (rc = kt_declared_bind(ld.lp->declared, err)))
            goto done;
        raw = &ld.lp->declared->plugin;
        goto loaded;
    }
    dlerror();
    ld.lp->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!ld.lp->handle) {
        const char *why = dlerror();
        rc = kt_err_set(err, KT_S_PLUGIN, "%s: cannot load: %s", path,
                        why ? why : "dlopen failed");
        goto done;
    }
    /* A function pointer, not a data symbol: dlsym of functions is what
     * POSIX guarantees, and the plugin's descriptor can live anywhere. */
    *(void **)&entry = dlsym(ld.lp->handle, KT_PLUGIN_ENTRY_SYMBOL);
    if (!entry) {
        rc = kt_err_set(err, KT_S_PLUGIN,
                        "%s: not a ktune plugin: no symbol "
                        "'%s' (expected KT_PLUGIN_EXPORT in the plugin)",
                        path, KT_PLUGIN_ENTRY_SYMBOL);
        goto done;
    }
    raw = entry();
    if (!raw) {
        rc = kt_err_set(err, KT_S_PLUGIN,
                        "%s: %s() returned NULL, expected a "
                        "descriptor",
                        path, KT_PLUGIN_ENTRY_SYMBOL);
        goto done;
    }
loaded:
    if ((rc = normalise_plugin(&ld, raw)))
        goto done;
    dup = kt_registry_find(reg, ld.lp->desc.name);
    if (dup) {
        rc = kt_err_set(err, KT_S_PLUGIN,
                        "%s: duplicate plugin name '%s', "
                        "already loaded from %s",
                        path, ld.lp->desc.name, dup->path);
        goto done;
    }
    grown = realloc(reg->plugins, (reg->count + 1) * sizeof *grown);
    if (!grown) {
        rc = kt_err_set(err, KT_S_NOMEM, "%s: out of memory", path);
        goto done;
    }
    reg->plugins = grown;
    reg->plugins[reg->count++] = ld.lp;
    ld.lp = NULL;
done:
    unload(ld.lp);
    return rc;
}

kt_status kt_registry_load_file(kt_registry *reg, const char *path, kt_err *err)
{
    char *real = NULL;
    kt_status rc;

    /* dlopen takes a name without '/' for a library to look up in the
     * search path; a user naming x.so means the file here when it exists. */
    if (!strchr(path, '/') && access(path, F_OK) == 0)
        real = realpath(path, NULL);
    rc = load_file_at(reg, real ? real : path, err);
    free(real);
    return rc;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void kt_registry_load_dir(kt_registry *reg, const char *dir, int required)
{
    DIR *d = opendir(dir);
    struct dirent *entry;
    char **names = NULL;
    size_t count = 0;

    if (!d) {
        if (required) {
            char line[1200];
            snprintf(line, sizeof line, "%s: cannot open plugin folder", dir);
            add_failure(reg, line);
        }
        return;
    }
    while ((entry = readdir(d))) {
        char **grown;
        if (!has_so_suffix(entry->d_name))
            continue;
        grown = realloc(names, (count + 1) * sizeof *grown);
        if (!grown)
            break;
        names = grown;
        names[count] = strdup(entry->d_name);
        if (names[count])
            ++count;
    }
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; ++i) {
        char path[4096];
        kt_err err;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (kt_registry_load_file(reg, path, &err))
            add_failure(reg, err.msg);
        free(names[i]);
    }
    free(names);
}

static void load_path_entry(kt_registry *reg, const char *entry)
{
    struct stat st;
    kt_err err;

    if (stat(entry, &st) != 0) {
        char line[4200];
        snprintf(line, sizeof line,
                 "%s: in KTUNE_PLUGIN_PATH, but no such "
                 "file or folder",
                 entry);
        add_failure(reg, line);
        return;
    }
    if (S_ISDIR(st.st_mode))
        kt_registry_load_dir(reg, entry, 1);
    else if (kt_registry_load_file(reg, entry, &err))
        add_failure(reg, err.msg);
}

void kt_registry_load_default(kt_registry *reg, const char *builtin_dir,
                              const char *const *files, size_t num_files)
{
    const char *env = getenv("KTUNE_PLUGIN_PATH");

    if (builtin_dir)
        kt_registry_load_dir(reg, builtin_dir, 1);
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok;
             tok = strtok_r(NULL, ":", &save))
            load_path_entry(reg, tok);
        free(copy);
    }
    for (size_t i = 0; i < num_files; ++i) {
        kt_err err;
        if (kt_registry_load_file(reg, files[i], &err))
            add_failure(reg, err.msg);
    }
}

kt_status kt_registry_resolve(const kt_registry *reg, const char *spec,
                              const kt_loaded_plugin **plugin,
                              const kt_operator **op, kt_err *err)
{
    char name[256], hint[512];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    const kt_loaded_plugin *lp;
    const char **names;

    if (len == 0 || len >= sizeof name)
        return kt_err_set(err, KT_S_INPUT,
                          "expected PLUGIN:OPERATOR, found "
                          "'%s'",
                          spec);
    memcpy(name, spec, len);
    name[len] = '\0';
    lp = kt_registry_find(reg, name);
    if (!lp) {
        names = calloc(reg->count + 1, sizeof *names);
        for (size_t i = 0; names && i < reg->count; ++i)
            names[i] = reg->plugins[i]->desc.name;
        kt_suggest(name, names, names ? reg->count : 0, hint, sizeof hint);
        free(names);
        return kt_err_set(err, KT_S_INPUT, "unknown plugin '%s'%s", name, hint);
    }
    if (!colon) {
        if (lp->desc.num_operators != 1)
            return kt_err_set(err, KT_S_INPUT,
                              "plugin '%s' has %u operators: "
                              "name one as %s:OPERATOR",
                              name, lp->desc.num_operators, name);
        *plugin = lp;
        *op = &lp->desc.operators[0];
        return KT_S_OK;
    }
    for (uint32_t i = 0; i < lp->desc.num_operators; ++i) {
        if (strcmp(lp->desc.operators[i].id, colon + 1) == 0) {
            *plugin = lp;
            *op = &lp->desc.operators[i];
            return KT_S_OK;
        }
    }
    names = calloc(lp->desc.num_operators + 1, sizeof *names);
    for (uint32_t i = 0; names && i < lp->desc.num_operators; ++i)
        names[i] = lp->desc.operators[i].id;
    kt_suggest(colon + 1, names, names ? lp->desc.num_operators : 0, hint,
               sizeof hint);
    free(names);
    return kt_err_set(err, KT_S_INPUT, "plugin '%s' has no operator '%s'%s",
                      name, colon + 1, hint);
}

kt_status kt_operator_find_variant(const kt_operator *op, const char *id,
                                   size_t *index, kt_err *err)
{
    const char *names[64];
    size_t n = op->num_variants < 64 ? op->num_variants : 64;
    char hint[512];

    for (uint32_t i = 0; i < op->num_variants; ++i) {
        if (strcmp(op->variants[i].id, id) == 0) {
            *index = i;
            return KT_S_OK;
        }
    }
    for (size_t i = 0; i < n; ++i)
        names[i] = op->variants[i].id;
    kt_suggest(id, names, n, hint, sizeof hint);
    return kt_err_set(err, KT_S_INPUT, "operator '%s' has no variant '%s'%s",
                      op->id, id, hint);
}

kt_status kt_operator_find_size(const kt_operator *op, const char *name,
                                size_t *index, kt_err *err)
{
    const char *names[KT_MAX_SIZES];
    char hint[256];

    for (uint32_t i = 0; i < op->num_sizes; ++i) {
        names[i] = op->sizes[i].name;
        if (strcmp(op->sizes[i].name, name) == 0) {
            *index = i;
            return KT_S_OK;
        }
    }
    kt_suggest(name, names, op->num_sizes, hint, sizeof hint);
    return kt_err_set(err, KT_S_INPUT, "operator '%s' has no size '%s'%s",
                      op->id, name, hint);
}

long kt_variant_find_param(const kt_variant *variant, const char *name)
{
    for (uint32_t i = 0; i < variant->num_params; ++i)
        if (strcmp(variant->params[i].name, name) == 0)
            return (long)i;
    return -1;
}

kt_status kt_plugin_check_arch(const char *name, const char *archs, int major,
                               int minor, kt_err *err)
{
    int device = major * 100 + minor * 10, oldest = 0;
    const char *p = archs;

    if (!archs || !archs[0])
        return KT_S_OK;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10);
        if (end == p)
            return KT_S_OK; /* not a list of numbers: nothing to judge */
        if (a > 0 && (!oldest || a < oldest))
            oldest = (int)a;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return KT_S_OK;
    }
    if (!oldest || oldest <= device)
        return KT_S_OK;
    return kt_err_set(err, KT_S_PLUGIN,
                      "%s: no kernel image for sm_%d%d (this device): built "
                      "for %s (__CUDA_ARCH_LIST__); rebuild with "
                      "CMAKE_CUDA_ARCHITECTURES=%d%d",
                      name, major, minor, archs, major, minor);
}
