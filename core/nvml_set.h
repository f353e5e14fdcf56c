// SPDX-License-Identifier: Apache-2.0
/*
 * kt_nvml_set: the device settings a user may tune on a machine of their
 * own (Kernel Tuner's nvml_gr_clock, nvml_mem_clock, nvml_pwr_limit):
 * locked SM clock, locked memory clock, power limit. Never used on a lent
 * machine, and never by a test on a real GPU (tests use the simulated
 * library of tests/core/fake_nvml.c).
 *
 * Before the first change a restore file is written (atomically: a
 * temporary then rename), holding what to undo and, as comments, the
 * nvidia-smi commands that undo it by hand. kt_nvml_restore undoes it and
 * removes the file; whoever survives runs it: the process that set them
 * at its end, or its parent when that process was killed (SIGKILL leaves
 * the file behind; docs/energy.md).
 */
#ifndef KT_NVML_SET_H
#define KT_NVML_SET_H

#include <stddef.h>

#include "core/error.h"
#include "core/nvml.h"

/* What to set; 0 leaves a setting as it is. */
typedef struct kt_nvml_setting {
    unsigned gr_mhz;  /* nvml_gr_clock: SM clock locked at this */
    unsigned mem_mhz; /* nvml_mem_clock: memory clock locked at this */
    unsigned limit_w; /* nvml_pwr_limit: power limit, watts */
} kt_nvml_setting;

/* 1 when s sets anything. */
int kt_nvml_setting_any(const kt_nvml_setting *s);

/* "nvml_gr_clock=1410 nvml_pwr_limit=450" (the job's names), "" for none. */
void kt_nvml_setting_text(const kt_nvml_setting *s, char *out, size_t size);

/* The restore file for CUDA device `device`: KTUNE_NVML_RESTORE when set,
 * else nvml-restore.dev<N> in ktune's cache folder (core/fileio.h), its
 * folder made. One per device, so that whoever comes next finds it. */
void kt_nvml_restore_path(int device, char *out, size_t size);

/* After a process that may have changed the settings ended without
 * putting them back (a worker killed, a run killed before this one):
 * restores from restore_path when it exists, saying on stderr what it did,
 * or, where it cannot, why and how to reset by hand (the file's commands).
 * who names that process ("the worker"). Returns 1 when a file was found. */
int kt_nvml_recover(const char *restore_path, const char *who);

/* Sets s on n's device, writing restore_path first when it does not exist
 * yet (a later set keeps the original values it holds). A refused call is
 * KT_S_INPUT naming it, its arguments, the device and NVML's words; a
 * function the library lacks is KT_S_UNSUPPORTED naming it. */
kt_status kt_nvml_set(const kt_nvml *n, const kt_nvml_setting *s,
                      const char *restore_path, kt_err *err);

/* Undoes what restore_path records (opening NVML for the device it names
 * when n is NULL: the parent of a killed process) and removes the file.
 * Nothing to do, KT_S_OK, when the file does not exist. */
kt_status kt_nvml_restore(const kt_nvml *n, const char *restore_path,
                          kt_err *err);

/* The job's check before any measurement: sets s and restores at once, so
 * a device that refuses is found before anything is measured (KT_S_INPUT,
 * as kt_nvml_set says). */
kt_status kt_nvml_check_settable(const kt_nvml *n, const kt_nvml_setting *s,
                                 const char *restore_path, kt_err *err);

#endif
