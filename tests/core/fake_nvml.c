// SPDX-License-Identifier: Apache-2.0
/*
 * A simulated libnvidia-ml for the CPU tests: the functions ktune calls,
 * with NVML's names and ABI, and nothing of a real GPU. Driven by the
 * environment:
 *   KT_FAKE_NVML_POWER_W   the device's power (default 300)
 *   KT_FAKE_NVML_STEP_MS   the energy counter's update period (default 10)
 *   KT_FAKE_NVML_START_MJ  the counter's value at the first call (default
 *                          0; near 2^64 tests a wrap)
 *   KT_FAKE_NVML_REFUSE    a function name answered "Insufficient
 *                          Permissions" (e.g. nvmlDeviceSetGpuLockedClocks)
 *   KT_FAKE_NVML_STATE     a file holding the settable state (locked SM
 *                          and memory clocks, power limit in mW), read and
 *                          written on every call, so that what a killed
 *                          process set is still there for the next one
 *   KT_FAKE_NVML_INIT_FAILS  nvmlInit_v2 fails ("Driver Not Loaded")
 *   KT_FAKE_NVML_REFUSE_VALUE  a set call with this value (MHz, or W for
 *                          the limit) answered "Insufficient Permissions"
 *   KT_FAKE_NVML_LOG       a file every set and reset call is appended to,
 *                          one line "FUNCTION ARG" in the order made
 * The supported clocks are an H200's: memory 3201, 2619, 1593 MHz;
 * graphics 1980 down to 210 MHz in steps of 15 at each.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OK 0
#define NOT_SUPPORTED 3
#define NO_PERMISSION 4
#define DRIVER_NOT_LOADED 9
#define DEFAULT_LIMIT_MW 700000u

typedef struct fake_state {
    unsigned gr_lo, gr_hi, mem_lo, mem_hi; /* 0: not locked */
    unsigned limit_mw;
} fake_state;

static double env_num(const char *name, double dflt)
{
    const char *v = getenv(name);
    return v && v[0] ? strtod(v, NULL) : dflt;
}

static int refused(const char *fn)
{
    const char *r = getenv("KT_FAKE_NVML_REFUSE");
    return r && strstr(r, fn) != NULL;
}

/* One line for a set or reset call, to $KT_FAKE_NVML_LOG. */
static void log_call(const char *fn, unsigned arg)
{
    const char *path = getenv("KT_FAKE_NVML_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;

    if (!f)
        return;
    fprintf(f, "%s %u\n", fn, arg);
    fclose(f);
}

static int refused_value(unsigned v)
{
    const char *r = getenv("KT_FAKE_NVML_REFUSE_VALUE");
    return r && r[0] && strtoul(r, NULL, 10) == v;
}

static void load(fake_state *s)
{
    const char *path = getenv("KT_FAKE_NVML_STATE");
    FILE *f = path ? fopen(path, "r") : NULL;

    s->gr_lo = s->gr_hi = s->mem_lo = s->mem_hi = 0;
    s->limit_mw = DEFAULT_LIMIT_MW;
    if (!f)
        return;
    if (fscanf(f, "%u %u %u %u %u", &s->gr_lo, &s->gr_hi, &s->mem_lo,
               &s->mem_hi, &s->limit_mw) != 5)
        s->limit_mw = DEFAULT_LIMIT_MW;
    fclose(f);
}

static int save(const fake_state *s)
{
    const char *path = getenv("KT_FAKE_NVML_STATE");
    FILE *f = path ? fopen(path, "w") : NULL;

    if (!path)
        return OK;
    if (!f)
        return NOT_SUPPORTED;
    fprintf(f, "%u %u %u %u %u\n", s->gr_lo, s->gr_hi, s->mem_lo, s->mem_hi,
            s->limit_mw);
    return fclose(f) == 0 ? OK : NOT_SUPPORTED;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double t_first = -1;

int nvmlInit_v2(void)
{
    if (getenv("KT_FAKE_NVML_INIT_FAILS"))
        return DRIVER_NOT_LOADED;
    if (t_first < 0)
        t_first = now_s();
    return OK;
}

int nvmlShutdown(void)
{
    return OK;
}

const char *nvmlErrorString(int rc)
{
    switch (rc) {
    case OK: return "Success";
    case NOT_SUPPORTED: return "Not Supported";
    case NO_PERMISSION: return "Insufficient Permissions";
    case DRIVER_NOT_LOADED: return "Driver Not Loaded";
    }
    return "Unknown Error";
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **dev)
{
    static int the_device;
    if (refused("nvmlDeviceGetHandleByPciBusId_v2") || !pci)
        return NO_PERMISSION;
    *dev = &the_device;
    return OK;
}

int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj)
{
    double step = 1e-3 * env_num("KT_FAKE_NVML_STEP_MS", 10);
    double watts = env_num("KT_FAKE_NVML_POWER_W", 300);
    unsigned long long start = strtoull(
        getenv("KT_FAKE_NVML_START_MJ") ? getenv("KT_FAKE_NVML_START_MJ") : "0",
        NULL, 10);
    double steps = floor((now_s() - t_first) / step);

    (void)dev;
    if (refused("nvmlDeviceGetTotalEnergyConsumption"))
        return NOT_SUPPORTED;
    /* Each step adds the step's energy: the counter moves in stairs, and
     * unsigned arithmetic wraps past 2^64 as a real counter would. */
    *mj = start + (unsigned long long)(steps * llround(1e3 * watts * step));
    return OK;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    (void)dev;
    *mw = (unsigned)(1e3 * env_num("KT_FAKE_NVML_POWER_W", 300));
    return refused("nvmlDeviceGetPowerUsage") ? NOT_SUPPORTED : OK;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz)
{
    fake_state s;
    (void)dev;
    load(&s);
    if (type == 1) /* SM */
        *mhz = s.gr_hi ? s.gr_hi : 1980;
    else
        *mhz = s.mem_hi ? s.mem_hi : 3201;
    return OK;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *c)
{
    (void)dev;
    (void)sensor;
    *c = 41;
    return OK;
}

int nvmlDeviceGetEnforcedPowerLimit(void *dev, unsigned *mw)
{
    fake_state s;
    (void)dev;
    load(&s);
    *mw = s.limit_mw;
    return OK;
}

int nvmlDeviceGetPowerManagementLimit(void *dev, unsigned *mw)
{
    return nvmlDeviceGetEnforcedPowerLimit(dev, mw);
}

int nvmlDeviceGetPowerManagementLimitConstraints(void *dev, unsigned *lo,
                                                 unsigned *hi)
{
    (void)dev;
    *lo = 200000;
    *hi = DEFAULT_LIMIT_MW;
    return OK;
}

int nvmlDeviceSetPowerManagementLimit(void *dev, unsigned mw)
{
    fake_state s;
    (void)dev;
    log_call("nvmlDeviceSetPowerManagementLimit", mw);
    if (refused("nvmlDeviceSetPowerManagementLimit") ||
        refused_value(mw / 1000))
        return NO_PERMISSION;
    if (mw < 200000 || mw > DEFAULT_LIMIT_MW)
        return 2; /* Invalid Argument */
    load(&s);
    s.limit_mw = mw;
    return save(&s);
}

int nvmlDeviceSetGpuLockedClocks(void *dev, unsigned lo, unsigned hi)
{
    fake_state s;
    (void)dev;
    log_call("nvmlDeviceSetGpuLockedClocks", hi);
    if (refused("nvmlDeviceSetGpuLockedClocks") || refused_value(hi))
        return NO_PERMISSION;
    load(&s);
    s.gr_lo = lo;
    s.gr_hi = hi;
    return save(&s);
}

int nvmlDeviceResetGpuLockedClocks(void *dev)
{
    fake_state s;
    (void)dev;
    log_call("nvmlDeviceResetGpuLockedClocks", 0);
    if (refused("nvmlDeviceResetGpuLockedClocks"))
        return NO_PERMISSION;
    load(&s);
    s.gr_lo = s.gr_hi = 0;
    return save(&s);
}

int nvmlDeviceSetMemoryLockedClocks(void *dev, unsigned lo, unsigned hi)
{
    fake_state s;
    (void)dev;
    log_call("nvmlDeviceSetMemoryLockedClocks", hi);
    if (refused("nvmlDeviceSetMemoryLockedClocks") || refused_value(hi))
        return NO_PERMISSION;
    load(&s);
    s.mem_lo = lo;
    s.mem_hi = hi;
    return save(&s);
}

int nvmlDeviceResetMemoryLockedClocks(void *dev)
{
    fake_state s;
    (void)dev;
    log_call("nvmlDeviceResetMemoryLockedClocks", 0);
    if (refused("nvmlDeviceResetMemoryLockedClocks"))
        return NO_PERMISSION;
    load(&s);
    s.mem_lo = s.mem_hi = 0;
    return save(&s);
}

/* NVML's convention: *count in is the room, out the clocks (descending);
 * too little room is "Insufficient Size" (7). */
static int clocks(unsigned *count, unsigned *mhz, const unsigned *list,
                  unsigned n)
{
    unsigned room = *count;
    *count = n;
    if (room < n)
        return 7;
    memcpy(mhz, list, n * sizeof *list);
    return OK;
}

int nvmlDeviceGetSupportedMemoryClocks(void *dev, unsigned *count,
                                       unsigned *mhz)
{
    static const unsigned mem[] = {3201, 2619, 1593};
    (void)dev;
    if (refused("nvmlDeviceGetSupportedMemoryClocks"))
        return NOT_SUPPORTED;
    return clocks(count, mhz, mem, 3);
}

int nvmlDeviceGetSupportedGraphicsClocks(void *dev, unsigned mem,
                                         unsigned *count, unsigned *mhz)
{
    unsigned gr[128], n = 0;
    (void)dev;
    if (refused("nvmlDeviceGetSupportedGraphicsClocks") ||
        (mem != 3201 && mem != 2619 && mem != 1593))
        return NOT_SUPPORTED;
    for (unsigned f = 1980; f >= 210; f -= 15)
        gr[n++] = f;
    return clocks(count, mhz, gr, n);
}
