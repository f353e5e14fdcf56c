// SPDX-License-Identifier: Apache-2.0
#include "core/nvml_set.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cachedir.h"
#include "core/fileio.h"
#include "core/msg.h"
#include "core/settings.h"

/* What a restore file records. */
typedef struct saved {
    char pci[32];
    int gr, mem;       /* 1: reset the locked clock */
    unsigned limit_mw; /* 0: leave the limit */
} saved;

/* The largest restore file read: a few lines. */
#define RESTORE_MAX_BYTES 4096

static kt_status write_saved(const char *path, const saved *s, kt_err *err)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = NULL;
    kt_status rc;
    int bad;

    if (!path[0])
        return kt_err_set(err, KT_S_INPUT,
                          "the NVML restore file: no usable cache folder to "
                          "keep it in; set KTUNE_CACHE_DIR or "
                          "KTUNE_NVML_RESTORE");
    if (!(f = open_memstream(&text, &size)))
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    fprintf(f,
            "# ktune changed the settings of GPU %s. If ktune did not put "
            "them back\n# (it was killed), run `ktune` again or reset them "
            "by hand:\n",
            s->pci);
    if (s->gr)
        fprintf(f, "#   nvidia-smi -i %s --reset-gpu-clocks\n", s->pci);
    if (s->mem)
        fprintf(f, "#   nvidia-smi -i %s --reset-memory-clocks\n", s->pci);
    if (s->limit_mw)
        fprintf(f, "#   nvidia-smi -i %s --power-limit %u\n", s->pci,
                s->limit_mw / 1000);
    fprintf(f, "pci %s\ngr %d\nmem %d\nlimit_mw %u\n", s->pci, s->gr, s->mem,
            s->limit_mw);
    bad = ferror(f);
    bad |= fclose(f) != 0;
    /* Exclusive temporary file, renamed: never written through a link. */
    rc = bad ? kt_err_set(err, KT_S_IO, "%s: cannot write: %s", path,
                          strerror(errno))
             : kt_file_replace(path, text, size, 0600, err);
    free(text);
    return rc;
}

/* Reads a restore file; *exists = 0 when there is none. Only a regular
 * file of a few lines: a FIFO or a device is refused, never waited on. */
static kt_status read_saved(const char *path, saved *s, int *exists,
                            kt_err *err)
{
    char *text = NULL, *line, *next;
    size_t len;
    int fields = 0;
    kt_status rc;

    memset(s, 0, sizeof *s);
    *exists = access(path, F_OK) == 0;
    if (!*exists)
        return errno == ENOENT
                   ? KT_S_OK
                   : kt_err_set(err, KT_S_IO, "%s: %s", path, strerror(errno));
    if ((rc = kt_file_read(path, "the NVML restore file", RESTORE_MAX_BYTES,
                           &text, &len, err)))
        return rc;
    for (line = text; line && *line; line = next) {
        if ((next = strchr(line, '\n')))
            *next++ = '\0';
        if (line[0] == '#')
            continue;
        fields += sscanf(line, "pci %31s", s->pci) == 1;
        fields += sscanf(line, "gr %d", &s->gr) == 1;
        fields += sscanf(line, "mem %d", &s->mem) == 1;
        fields += sscanf(line, "limit_mw %u", &s->limit_mw) == 1;
    }
    free(text);
    if (fields != 4)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: not a ktune restore file (%d of its 4 fields); "
                          "reset the GPU's clocks and power limit with "
                          "nvidia-smi",
                          path, fields);
    return KT_S_OK;
}

static kt_status refused(const kt_nvml *n, const char *call, unsigned a,
                         unsigned b, int two, kt_nvml_return rc, kt_err *err)
{
    char args[48];

    snprintf(args, sizeof args, two ? "%u, %u" : "%u", a, b);
    return kt_err_set(err, KT_S_INPUT,
                      "%s(%s) on GPU %s was refused: %s (NVML error %d); "
                      "the device does not let this user change it",
                      call, args, n->pci, kt_nvml_error(n, rc), rc);
}

static kt_status missing(const char *call, kt_err *err)
{
    return kt_err_set(err, KT_S_UNSUPPORTED, "%s has no %s", kt_nvml_library(),
                      call);
}

/* Said once per process, before the first change: what to do if ktune
 * dies before it puts the settings back. */
static void announce(const kt_nvml *n, const char *path)
{
    static int said;

    if (said++)
        return;
    kt_msg("note: changing the clocks or power limit of GPU %s for the job; "
           "they are put back at the end. If ktune is killed, "
           "its next run puts them back, or reset them by hand with the "
           "commands in %s\n",
           n->pci, path);
}

/* The restore file, before the first change: the limit in force now. */
static kt_status save_original(const kt_nvml *n, const kt_nvml_setting *s,
                               const char *path, kt_err *err)
{
    saved sv;
    int exists;
    kt_status rc;

    if ((rc = read_saved(path, &sv, &exists, err)))
        return rc;
    if (!exists) {
        snprintf(sv.pci, sizeof sv.pci, "%s", n->pci);
        announce(n, path);
    }
    sv.gr |= s->gr_mhz != 0;
    sv.mem |= s->mem_mhz != 0;
    if (s->limit_w && !sv.limit_mw) {
        kt_nvml_return r;
        if (!n->api->limit)
            return missing("nvmlDeviceGetPowerManagementLimit", err);
        if ((r = n->api->limit(n->dev, &sv.limit_mw)) != KT_NVML_SUCCESS)
            return refused(n, "nvmlDeviceGetPowerManagementLimit", 0, 0, 0, r,
                           err);
    }
    return write_saved(path, &sv, err);
}

/* After call `which` (0 SM clock, 1 memory clock, 2 limit) was refused,
 * and so changed nothing: the restore file forgets it, unless an earlier
 * set had changed it (before, from the file as it was); a file that holds
 * nothing to undo is removed. */
static void forget(const char *path, const saved *before, int existed,
                   int which)
{
    saved sv;
    int exists;
    kt_err err;

    if (read_saved(path, &sv, &exists, &err) || !exists)
        return;
    if (which == 0 && !before->gr)
        sv.gr = 0;
    if (which == 1 && !before->mem)
        sv.mem = 0;
    if (which == 2 && !before->limit_mw)
        sv.limit_mw = 0;
    if (!existed && !sv.gr && !sv.mem && !sv.limit_mw)
        unlink(path);
    else
        write_saved(path, &sv, &err);
}

static kt_status missing_setter(const kt_nvml_api *a, const kt_nvml_setting *s,
                                kt_err *err)
{
    return missing(s->gr_mhz && !a->lock_gr ? "nvmlDeviceSetGpuLockedClocks"
                   : s->mem_mhz && !a->lock_mem
                       ? "nvmlDeviceSetMemoryLockedClocks"
                       : "nvmlDeviceSetPowerManagementLimit",
                   err);
}

kt_status kt_nvml_set(const kt_nvml *n, const kt_nvml_setting *s,
                      const char *restore_path, kt_err *err)
{
    const kt_nvml_api *a = n->api;
    saved before;
    int existed, which = -1;
    kt_nvml_return r = KT_NVML_SUCCESS;
    kt_status rc;

    if ((s->gr_mhz && !a->lock_gr) || (s->mem_mhz && !a->lock_mem) ||
        (s->limit_w && !a->set_limit))
        return missing_setter(a, s, err);
    if ((rc = read_saved(restore_path, &before, &existed, err)) ||
        (rc = save_original(n, s, restore_path, err)))
        return rc;
    if (s->gr_mhz && (r = a->lock_gr(n->dev, s->gr_mhz, s->gr_mhz)))
        which = 0;
    else if (s->mem_mhz && (r = a->lock_mem(n->dev, s->mem_mhz, s->mem_mhz)))
        which = 1;
    else if (s->limit_w && (r = a->set_limit(n->dev, s->limit_w * 1000u)))
        which = 2;
    if (which < 0)
        return KT_S_OK;
    forget(restore_path, &before, existed, which);
    return which == 0   ? refused(n, "nvmlDeviceSetGpuLockedClocks", s->gr_mhz,
                                  s->gr_mhz, 1, r, err)
           : which == 1 ? refused(n, "nvmlDeviceSetMemoryLockedClocks",
                                  s->mem_mhz, s->mem_mhz, 1, r, err)
                        : refused(n, "nvmlDeviceSetPowerManagementLimit",
                                  s->limit_w * 1000u, 0, 0, r, err);
}

/* Undoes sv on n's device. */
static kt_status undo(const kt_nvml *n, const saved *sv, kt_err *err)
{
    const kt_nvml_api *a = n->api;
    kt_nvml_return r;

    if (sv->gr && (!a->reset_gr || (r = a->reset_gr(n->dev))))
        return a->reset_gr ? refused(n, "nvmlDeviceResetGpuLockedClocks", 0, 0,
                                     0, r, err)
                           : missing("nvmlDeviceResetGpuLockedClocks", err);
    if (sv->mem && (!a->reset_mem || (r = a->reset_mem(n->dev))))
        return a->reset_mem ? refused(n, "nvmlDeviceResetMemoryLockedClocks", 0,
                                      0, 0, r, err)
                            : missing("nvmlDeviceResetMemoryLockedClocks", err);
    if (sv->limit_mw &&
        (!a->set_limit || (r = a->set_limit(n->dev, sv->limit_mw))))
        return a->set_limit ? refused(n, "nvmlDeviceSetPowerManagementLimit",
                                      sv->limit_mw, 0, 0, r, err)
                            : missing("nvmlDeviceSetPowerManagementLimit", err);
    return KT_S_OK;
}

kt_status kt_nvml_restore(const kt_nvml *n, const char *restore_path,
                          kt_err *err)
{
    kt_nvml own;
    saved sv;
    int exists;
    kt_status rc;

    if ((rc = read_saved(restore_path, &sv, &exists, err)) || !exists)
        return rc;
    if (!n) {
        if ((rc = kt_nvml_open(sv.pci, &own, err)))
            return kt_err_prefix(err, "restoring the GPU's settings: ");
        n = &own;
    }
    if ((rc = undo(n, &sv, err)))
        return kt_err_prefix(
            err, "restoring the GPU's settings (see %s): ", restore_path);
    if (unlink(restore_path) != 0)
        return kt_err_set(err, KT_S_IO, "%s: cannot remove: %s", restore_path,
                          strerror(errno));
    return KT_S_OK;
}

kt_status kt_nvml_check_settable(const kt_nvml *n, const kt_nvml_setting *s,
                                 const char *restore_path, kt_err *err)
{
    kt_status rc = kt_nvml_set(n, s, restore_path, err), back;
    kt_err rerr;

    kt_err_clear(&rerr);
    back = kt_nvml_restore(n, restore_path, &rerr);
    if (rc)
        return rc;
    if (back)
        return kt_err_set(err, back, "%s", rerr.msg);
    return KT_S_OK;
}

const char *kt_nvml_key(size_t w)
{
    return w == 0   ? "nvml_gr_clock"
           : w == 1 ? "nvml_mem_clock"
                    : "nvml_pwr_limit";
}

const char *kt_nvml_unit(size_t w)
{
    return w == 2 ? "W" : "MHz";
}

unsigned *kt_nvml_field(kt_nvml_setting *s, size_t w)
{
    return w == 0 ? &s->gr_mhz : w == 1 ? &s->mem_mhz : &s->limit_w;
}

int kt_nvml_choices_any(const kt_nvml_choices *c)
{
    return c->count[0] || c->count[1] || c->count[2];
}

void kt_nvml_restore_path(int device, char *out, size_t size)
{
    kt_settings set;
    const char *env;
    char name[64], dir[4096];

    kt_settings_read(&set);
    env = set.ktune_nvml_restore;

    if (env && *env) {
        snprintf(out, size, "%s", env);
        return;
    }
    snprintf(name, sizeof name, "nvml-restore.dev%d", device);
    /* In the private cache folder; without one, none (said when written). */
    if (kt_cache_dir(NULL, dir, sizeof dir, NULL) ||
        (size_t)snprintf(out, size, "%s/%s", dir, name) >= size)
        out[0] = '\0';
}

int kt_nvml_recover(const char *restore_path, const char *who)
{
    kt_err err;

    if (access(restore_path, F_OK) != 0)
        return 0;
    kt_err_clear(&err);
    if (kt_nvml_restore(NULL, restore_path, &err) == KT_S_OK)
        kt_msg("note: %s left the GPU's clocks or power limit changed; "
               "restored them from %s\n",
               who, restore_path);
    else
        kt_msg("warning: %s left the GPU's clocks or power limit "
               "changed, and they could not be restored: %s. Reset them by "
               "hand with the commands in %s, then remove it\n",
               who, err.msg, restore_path);
    return 1;
}

/* --------------------------------------------- the job's listed values */

/* The clocks the device supports for memory clock mem (graphics) or its
 * memory clocks (mem 0), into *list (malloc'd, *n long). */
static kt_status supported(const kt_nvml *n, int graphics, unsigned mem,
                           unsigned **list, unsigned *count, kt_err *err)
{
    const kt_nvml_api *a = n->api;
    const char *call = graphics ? "nvmlDeviceGetSupportedGraphicsClocks"
                                : "nvmlDeviceGetSupportedMemoryClocks";
    unsigned cap = 512;
    kt_nvml_return r;

    *list = malloc(cap * sizeof **list);
    if (!*list)
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    *count = cap;
    r = graphics ? a->supported_gr(n->dev, mem, count, *list)
                 : a->supported_mem(n->dev, count, *list);
    if (r == KT_NVML_SUCCESS && *count <= cap)
        return KT_S_OK;
    free(*list);
    *list = NULL;
    return kt_err_set(err, KT_S_INPUT,
                      "%s on GPU %s failed: %s (NVML error %d), so the "
                      "listed clocks cannot be checked",
                      call, n->pci, kt_nvml_error(n, r), r);
}

static int listed(const unsigned *list, unsigned count, unsigned v)
{
    for (unsigned i = 0; i < count; ++i)
        if (list[i] == v)
            return 1;
    return 0;
}

/* Each value of setting w is one the device supports. */
static kt_status check_clocks(const kt_nvml *n, const kt_nvml_choices *c,
                              size_t w, unsigned mem, kt_err *err)
{
    unsigned *list = NULL, count = 0;
    kt_status rc;

    if ((w == 0 && !n->api->supported_gr) || (w == 1 && !n->api->supported_mem))
        return KT_S_OK; /* the set and restore below still checks */
    if ((rc = supported(n, w == 0, mem, &list, &count, err)))
        return rc;
    for (uint32_t i = 0; i < c->count[w] && !rc; ++i)
        if (!listed(list, count, c->values[w][i]))
            rc = kt_err_set(
                err, KT_S_INPUT,
                "%s = %u: GPU %s does not support it: %s%.0u%s gives %u "
                "clocks (%u to %u MHz), not this one",
                kt_nvml_key(w), c->values[w][i], n->pci,
                w == 0 ? "nvmlDeviceGetSupportedGraphicsClocks at memory "
                         "clock "
                       : "nvmlDeviceGetSupportedMemoryClocks",
                w == 0 ? mem : 0, w == 0 ? " MHz" : "", count,
                count ? list[count - 1] : 0, count ? list[0] : 0);
    free(list);
    return rc;
}

/* The graphics clocks against the memory clocks they will run with: each
 * listed one, else the device's highest. */
static kt_status check_graphics(const kt_nvml *n, const kt_nvml_choices *c,
                                kt_err *err)
{
    unsigned *mems = NULL, count = 0;
    kt_status rc = KT_S_OK;

    if (!c->count[0] || !n->api->supported_gr)
        return KT_S_OK;
    for (uint32_t i = 0; i < c->count[1] && !rc; ++i)
        rc = check_clocks(n, c, 0, c->values[1][i], err);
    if (c->count[1] || rc || !n->api->supported_mem)
        return rc;
    if ((rc = supported(n, 0, 0, &mems, &count, err)))
        return rc;
    rc = count ? check_clocks(n, c, 0, mems[0], err) : KT_S_OK;
    free(mems);
    return rc;
}

/* Each listed power limit within what the device allows. */
static kt_status check_limits(const kt_nvml *n, const kt_nvml_choices *c,
                              kt_err *err)
{
    unsigned lo = 0, hi = 0;
    kt_nvml_return r;

    if (!c->count[2] || !n->api->limit_range)
        return KT_S_OK;
    if ((r = n->api->limit_range(n->dev, &lo, &hi)) != KT_NVML_SUCCESS)
        return kt_err_set(err, KT_S_INPUT,
                          "nvmlDeviceGetPowerManagementLimitConstraints on "
                          "GPU %s failed: %s (NVML error %d), so the listed "
                          "power limits cannot be checked",
                          n->pci, kt_nvml_error(n, r), r);
    for (uint32_t i = 0; i < c->count[2]; ++i)
        if (1000u * c->values[2][i] < lo || 1000u * c->values[2][i] > hi)
            return kt_err_set(
                err, KT_S_INPUT,
                "nvml_pwr_limit = %u: GPU %s does not allow "
                "it: nvmlDeviceGetPowerManagementLimitConstraints "
                "gives %u to %u W",
                c->values[2][i], n->pci, lo / 1000, hi / 1000);
    return KT_S_OK;
}

kt_status kt_nvml_check_choices(const kt_nvml *n, const kt_nvml_choices *c,
                                const char *restore_path, kt_err *err)
{
    kt_status rc;

    if ((rc = check_clocks(n, c, 1, 0, err)) ||
        (rc = check_graphics(n, c, err)) || (rc = check_limits(n, c, err)))
        return rc;
    for (size_t w = 0; w < 3; ++w)
        for (uint32_t i = 0; i < c->count[w]; ++i) {
            kt_nvml_setting one = {0, 0, 0};
            *kt_nvml_field(&one, w) = c->values[w][i];
            if ((rc = kt_nvml_check_settable(n, &one, restore_path, err)))
                return kt_err_prefix(err, "%s = %u: ", kt_nvml_key(w),
                                     c->values[w][i]);
        }
    return KT_S_OK;
}

int kt_nvml_choices_allow(const kt_nvml_choices *c, const kt_nvml_setting *s)
{
    kt_nvml_setting copy = *s;

    for (size_t w = 0; w < 3; ++w) {
        unsigned v = *kt_nvml_field(&copy, w);
        int found = v == 0;
        for (uint32_t i = 0; i < c->count[w] && !found; ++i)
            found = c->values[w][i] == v;
        if (!found)
            return 0;
    }
    return 1;
}

void kt_nvml_choices_text(const kt_nvml_choices *c, char *out, size_t size)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t w = 0; w < 3; ++w)
        for (uint32_t i = 0; i < c->count[w] && used < size; ++i) {
            int k =
                i ? snprintf(out + used, size - used, ",%u", c->values[w][i])
                  : snprintf(out + used, size - used, "%s%s=%u",
                             used ? " " : "", kt_nvml_key(w), c->values[w][i]);
            used += k > 0 ? (size_t)k : 0;
        }
}

/* ------------------------------------------ the setting of each point */

void kt_nvml_keeper_init(kt_nvml_keeper *k, const kt_nvml *n,
                         const kt_nvml_choices *listed,
                         const char *restore_path)
{
    memset(k, 0, sizeof *k);
    k->n = n;
    k->listed = *listed;
    snprintf(k->restore_path, sizeof k->restore_path, "%s", restore_path);
}

/* Setting w back to the device's own (the restore file's original). */
static kt_status reset_one(kt_nvml_keeper *k, size_t w, kt_err *err)
{
    saved sv, one;
    int exists;
    kt_status rc;

    if ((rc = read_saved(k->restore_path, &sv, &exists, err)))
        return rc;
    memset(&one, 0, sizeof one);
    one.gr = w == 0 && exists && sv.gr;
    one.mem = w == 1 && exists && sv.mem;
    one.limit_mw = w == 2 && exists ? sv.limit_mw : 0;
    return undo(k->n, &one, err);
}

kt_status kt_nvml_apply(kt_nvml_keeper *k, const kt_nvml_setting *want,
                        kt_err *err)
{
    kt_nvml_setting to = *want, from = k->in_force;
    int changed = 0;
    kt_status rc = KT_S_OK;
    char what[128];

    if (!kt_nvml_choices_allow(&k->listed, want)) {
        kt_nvml_setting_text(want, what, sizeof what);
        return kt_err_set(err, KT_S_INPUT,
                          "a point asks for %s, which is not among the device "
                          "settings the job lists (only those are checked "
                          "and set)",
                          what);
    }
    for (size_t w = 0; w < 3 && !rc; ++w) {
        unsigned v = *kt_nvml_field(&to, w), was = *kt_nvml_field(&from, w);
        kt_nvml_setting one = {0, 0, 0};
        if (v == was)
            continue;
        *kt_nvml_field(&one, w) = v;
        rc = v ? kt_nvml_set(k->n, &one, k->restore_path, err)
               : reset_one(k, w, err);
        /* A refused call changed nothing; one that went through is in
         * force whatever comes next. */
        if (!rc)
            *kt_nvml_field(&k->in_force, w) = v;
        changed |= !rc;
        k->changes += !rc;
    }
    /* A locked clock or a new limit takes effect at the driver's next
     * power-management step: let it pass before anything is timed. */
    if (changed)
        usleep(KT_NVML_SETTLE_US);
    return rc;
}

kt_status kt_nvml_keeper_end(kt_nvml_keeper *k, kt_err *err)
{
    kt_status rc = KT_S_OK;

    if (k->n && k->n->api && access(k->restore_path, F_OK) == 0)
        rc = kt_nvml_restore(k->n, k->restore_path, err);
    if (!rc)
        k->in_force = (kt_nvml_setting){0, 0, 0};
    return rc;
}

size_t kt_nvml_group(const kt_point *pts, size_t *idx, size_t n,
                     const kt_nvml_setting *in_force, size_t *ends)
{
    size_t done = 0, groups = 0;

    while (done < n) {
        /* What is in force first (nothing to change), then the next
         * point's setting, in the order the points came. */
        kt_nvml_setting s = pts[idx[done]].nvml;
        for (size_t i = done; i < n; ++i)
            if (kt_nvml_setting_equal(&pts[idx[i]].nvml, in_force)) {
                s = *in_force;
                break;
            }
        for (size_t i = done; i < n; ++i)
            if (kt_nvml_setting_equal(&pts[idx[i]].nvml, &s)) {
                size_t keep = idx[i];
                memmove(idx + done + 1, idx + done, (i - done) * sizeof *idx);
                idx[done++] = keep;
            }
        ends[groups++] = done;
        in_force = &pts[idx[done - 1]].nvml;
    }
    return groups;
}
