// SPDX-License-Identifier: Apache-2.0
/*
 * kt_nvml: NVIDIA's management library, loaded at run time.
 *
 * ktune never links libnvidia-ml: it is opened with dlopen the first time
 * a meter asks (KTUNE_NVML_LIBRARY names another file, for a simulated
 * library in tests or an unusual install; default libnvidia-ml.so.1), and
 * every function used is looked up and every call checked. Where the
 * library or a function is absent, kt_nvml_open says why and ktune goes
 * on measuring time only; the note is printed once per process. The
 * device is found by its PCI bus id (CUDA ordinals and NVML indices need
 * not agree).
 *
 * Only this file and core/nvml_set.c call NVML; the set side is there.
 */
#ifndef KT_NVML_H
#define KT_NVML_H

#include <stdint.h>

#include "core/error.h"

/* NVML's own types and constants (nvml.h, which the CUDA toolkit does not
 * always ship; the values are NVML's ABI). */
typedef int kt_nvml_return; /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef struct kt_nvml_device_opaque *kt_nvml_handle; /* nvmlDevice_t */
#define KT_NVML_SUCCESS 0
#define KT_NVML_ERROR_NOT_SUPPORTED 3
#define KT_NVML_ERROR_NO_PERMISSION 4
#define KT_NVML_CLOCK_SM 1
#define KT_NVML_CLOCK_MEM 2
#define KT_NVML_TEMPERATURE_GPU 0

/* The functions ktune calls, looked up by name ("set" ones may be NULL:
 * kt_nvml_set says which is missing when one is wanted). */
typedef struct kt_nvml_api {
    kt_nvml_return (*init)(void);
    kt_nvml_return (*shutdown)(void);
    const char *(*error_string)(kt_nvml_return);
    kt_nvml_return (*by_pci)(const char *, kt_nvml_handle *);
    kt_nvml_return (*energy)(kt_nvml_handle, unsigned long long *);
    kt_nvml_return (*power)(kt_nvml_handle, unsigned int *);
    kt_nvml_return (*clock)(kt_nvml_handle, int, unsigned int *);
    kt_nvml_return (*temperature)(kt_nvml_handle, int, unsigned int *);
    kt_nvml_return (*enforced_limit)(kt_nvml_handle, unsigned int *);
    /* The set side (core/nvml_set.c). */
    kt_nvml_return (*limit)(kt_nvml_handle, unsigned int *);
    kt_nvml_return (*limit_range)(kt_nvml_handle, unsigned int *,
                                  unsigned int *);
    kt_nvml_return (*set_limit)(kt_nvml_handle, unsigned int);
    kt_nvml_return (*lock_gr)(kt_nvml_handle, unsigned int, unsigned int);
    kt_nvml_return (*reset_gr)(kt_nvml_handle);
    kt_nvml_return (*lock_mem)(kt_nvml_handle, unsigned int, unsigned int);
    kt_nvml_return (*reset_mem)(kt_nvml_handle);
    /* What the device supports (the job's check of every listed clock). */
    kt_nvml_return (*supported_mem)(kt_nvml_handle, unsigned int *,
                                    unsigned int *);
    kt_nvml_return (*supported_gr)(kt_nvml_handle, unsigned int, unsigned int *,
                                   unsigned int *);
} kt_nvml_api;

/* One device of the loaded library. */
typedef struct kt_nvml {
    const kt_nvml_api *api;
    kt_nvml_handle dev;
    char pci[32];
} kt_nvml;

/* The library's path: KTUNE_NVML_LIBRARY or libnvidia-ml.so.1. */
const char *kt_nvml_library(void);

/* Loads the library (once per process), initialises it and finds the
 * device with PCI bus id pci ("0000:19:00.0", as cudaDeviceGetPCIBusId
 * writes it). KT_S_UNSUPPORTED, saying why (library absent, a read
 * function missing, a call refused: its name and NVML's words), when
 * energy cannot be measured here. */
kt_status kt_nvml_open(const char *pci, kt_nvml *out, kt_err *err);

/* Prints "note: energy not measured: WHY" once per process (later calls
 * print nothing). */
void kt_nvml_note_once(const char *why);

/* NVML's words for rc, "NVML error N" when the library has none. */
const char *kt_nvml_error(const kt_nvml *n, kt_nvml_return rc);

/* The reads, each checked; the error names the call and NVML's words. */
kt_status kt_nvml_energy_mj(const kt_nvml *n, uint64_t *mj, kt_err *err);
kt_status kt_nvml_power_w(const kt_nvml *n, double *w, kt_err *err);
kt_status kt_nvml_clock_mhz(const kt_nvml *n, int which, double *mhz,
                            kt_err *err);
kt_status kt_nvml_temp_c(const kt_nvml *n, double *c, kt_err *err);
kt_status kt_nvml_power_limit_w(const kt_nvml *n, double *w, kt_err *err);

#endif
