// SPDX-License-Identifier: Apache-2.0
#include "core/nvml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msg.h"
#include "core/settings.h"

/* The process's NVML: loaded once (dlopen, nvmlInit) for every meter and
 * setting, and the one-time note that it is missing. Mutable because the
 * library is mapped on first use; written under once and note_lock. */
static struct {
    pthread_once_t loaded;
    kt_nvml_api api;
    char load_error[512];
    int load_ok;
    pthread_mutex_t note_lock;
    int noted;
} g_nvml = {PTHREAD_ONCE_INIT, {0}, "", 0, PTHREAD_MUTEX_INITIALIZER, 0};

const char *kt_nvml_library(void)
{
    kt_settings set;

    kt_settings_read(&set);
    return set.ktune_nvml_library && set.ktune_nvml_library[0]
               ? set.ktune_nvml_library
               : "libnvidia-ml.so.1";
}

/* One symbol; required ones missing fail the load, others stay NULL. */
static int look_up(void *lib, const char *name, void **slot, int required)
{
    *slot = dlsym(lib, name);
    if (*slot || !required)
        return 1;
    snprintf(g_nvml.load_error, sizeof g_nvml.load_error, "%s has no %s",
             kt_nvml_library(), name);
    return 0;
}

static void load_library(void)
{
    struct {
        const char *name;
        void **slot;
        int required;
    } fns[] = {
        {"nvmlInit_v2", (void **)&g_nvml.api.init, 1},
        {"nvmlShutdown", (void **)&g_nvml.api.shutdown, 1},
        {"nvmlErrorString", (void **)&g_nvml.api.error_string, 1},
        {"nvmlDeviceGetHandleByPciBusId_v2", (void **)&g_nvml.api.by_pci, 1},
        {"nvmlDeviceGetTotalEnergyConsumption", (void **)&g_nvml.api.energy, 1},
        {"nvmlDeviceGetPowerUsage", (void **)&g_nvml.api.power, 1},
        {"nvmlDeviceGetClockInfo", (void **)&g_nvml.api.clock, 1},
        {"nvmlDeviceGetTemperature", (void **)&g_nvml.api.temperature, 1},
        {"nvmlDeviceGetEnforcedPowerLimit", (void **)&g_nvml.api.enforced_limit,
         1},
        {"nvmlDeviceGetPowerManagementLimit", (void **)&g_nvml.api.limit, 0},
        {"nvmlDeviceGetPowerManagementLimitConstraints",
         (void **)&g_nvml.api.limit_range, 0},
        {"nvmlDeviceSetPowerManagementLimit", (void **)&g_nvml.api.set_limit,
         0},
        {"nvmlDeviceSetGpuLockedClocks", (void **)&g_nvml.api.lock_gr, 0},
        {"nvmlDeviceResetGpuLockedClocks", (void **)&g_nvml.api.reset_gr, 0},
        {"nvmlDeviceSetMemoryLockedClocks", (void **)&g_nvml.api.lock_mem, 0},
        {"nvmlDeviceResetMemoryLockedClocks", (void **)&g_nvml.api.reset_mem,
         0},
        {"nvmlDeviceGetSupportedMemoryClocks",
         (void **)&g_nvml.api.supported_mem, 0},
        {"nvmlDeviceGetSupportedGraphicsClocks",
         (void **)&g_nvml.api.supported_gr, 0},
    };
    void *lib = dlopen(kt_nvml_library(), RTLD_NOW | RTLD_LOCAL);
    kt_nvml_return rc;

    if (!lib) {
        const char *why = dlerror();
        snprintf(g_nvml.load_error, sizeof g_nvml.load_error,
                 "%s could not be loaded (%s)", kt_nvml_library(),
                 why ? why : "no reason given");
        return;
    }
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; ++i)
        if (!look_up(lib, fns[i].name, fns[i].slot, fns[i].required))
            return;
    if ((rc = g_nvml.api.init()) != KT_NVML_SUCCESS) {
        snprintf(g_nvml.load_error, sizeof g_nvml.load_error,
                 "nvmlInit_v2 failed: %s", g_nvml.api.error_string(rc));
        return;
    }
    g_nvml.load_ok = 1;
}

const char *kt_nvml_error(const kt_nvml *n, kt_nvml_return rc)
{
    static __thread char buf[32];
    const char *s =
        n && n->api && n->api->error_string ? n->api->error_string(rc) : NULL;
    if (s)
        return s;
    snprintf(buf, sizeof buf, "NVML error %d", rc);
    return buf;
}

kt_status kt_nvml_open(const char *pci, kt_nvml *out, kt_err *err)
{
    kt_nvml_return rc;

    memset(out, 0, sizeof *out);
    pthread_once(&g_nvml.loaded, load_library);
    if (!g_nvml.load_ok)
        return kt_err_set(err, KT_S_UNSUPPORTED, "%s", g_nvml.load_error);
    out->api = &g_nvml.api;
    snprintf(out->pci, sizeof out->pci, "%s", pci);
    if ((rc = g_nvml.api.by_pci(pci, &out->dev)) != KT_NVML_SUCCESS) {
        kt_err_set(err, KT_S_UNSUPPORTED,
                   "nvmlDeviceGetHandleByPciBusId_v2(%s) failed: %s", pci,
                   kt_nvml_error(out, rc));
        out->api = NULL;
        return KT_S_UNSUPPORTED;
    }
    return KT_S_OK;
}

void kt_nvml_note_once(const char *why)
{
    int first;

    pthread_mutex_lock(&g_nvml.note_lock);
    first = !g_nvml.noted;
    g_nvml.noted = 1;
    pthread_mutex_unlock(&g_nvml.note_lock);
    if (first)
        kt_msg("note: energy not measured: %s\n", why);
}

/* The error of a failed read: the call and NVML's words. */
static kt_status read_failed(const kt_nvml *n, const char *call,
                             kt_nvml_return rc, kt_err *err)
{
    return kt_err_set(err, KT_S_UNSUPPORTED, "%s failed: %s", call,
                      kt_nvml_error(n, rc));
}

kt_status kt_nvml_energy_mj(const kt_nvml *n, uint64_t *mj, kt_err *err)
{
    unsigned long long v = 0;
    kt_nvml_return rc = n->api->energy(n->dev, &v);

    *mj = (uint64_t)v;
    return rc ? read_failed(n, "nvmlDeviceGetTotalEnergyConsumption", rc, err)
              : KT_S_OK;
}

kt_status kt_nvml_power_w(const kt_nvml *n, double *w, kt_err *err)
{
    unsigned int mw = 0;
    kt_nvml_return rc = n->api->power(n->dev, &mw);

    *w = 1e-3 * mw;
    return rc ? read_failed(n, "nvmlDeviceGetPowerUsage", rc, err) : KT_S_OK;
}

kt_status kt_nvml_clock_mhz(const kt_nvml *n, int which, double *mhz,
                            kt_err *err)
{
    unsigned int v = 0;
    kt_nvml_return rc = n->api->clock(n->dev, which, &v);

    *mhz = v;
    return rc ? read_failed(n, "nvmlDeviceGetClockInfo", rc, err) : KT_S_OK;
}

kt_status kt_nvml_temp_c(const kt_nvml *n, double *c, kt_err *err)
{
    unsigned int v = 0;
    kt_nvml_return rc =
        n->api->temperature(n->dev, KT_NVML_TEMPERATURE_GPU, &v);

    *c = v;
    return rc ? read_failed(n, "nvmlDeviceGetTemperature", rc, err) : KT_S_OK;
}

kt_status kt_nvml_power_limit_w(const kt_nvml *n, double *w, kt_err *err)
{
    unsigned int mw = 0;
    kt_nvml_return rc = n->api->enforced_limit(n->dev, &mw);

    *w = 1e-3 * mw;
    return rc ? read_failed(n, "nvmlDeviceGetEnforcedPowerLimit", rc, err)
              : KT_S_OK;
}
