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
#include <stdint.h>

#include "core/error.h"
#include "core/nvml.h"
#include "core/point.h" /* kt_nvml_setting */

/* The device settings a job lists, each a dimension of its space
 * (records/space.h) that the search varies like a parameter: count[w] values
 * of setting w (0 the SM clock, 1 the memory clock, 2 the power limit; 0
 * values: not set), in the job's order. */
#define KT_NVML_MAX_VALUES 64
typedef struct kt_nvml_choices {
    uint32_t count[3];
    unsigned values[3][KT_NVML_MAX_VALUES];
} kt_nvml_choices;

/* The job's name of setting w ("nvml_gr_clock", "nvml_mem_clock",
 * "nvml_pwr_limit"), its unit ("MHz", "W") and its field in s. */
const char *kt_nvml_key(size_t w);
const char *kt_nvml_unit(size_t w);
unsigned *kt_nvml_field(kt_nvml_setting *s, size_t w);

/* 1 when c lists any value. */
int kt_nvml_choices_any(const kt_nvml_choices *c);

/* The restore file for CUDA device `device`: KTUNE_NVML_RESTORE when set,
 * else nvml-restore.dev<N> in ktune's cache folder (core/cachedir.h), its
 * folder made and checked private; "" when there is none. One per device,
 * so that whoever comes next finds it. The file is written through an
 * exclusive temporary file and read only while it is a regular file of at
 * most 4 KiB. */
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

/* The job's check of every listed value, before anything is measured: a
 * clock must be one the device supports (nvmlDeviceGetSupportedMemoryClocks,
 * nvmlDeviceGetSupportedGraphicsClocks at each listed memory clock, or the
 * highest, where the library has them), a power limit within
 * nvmlDeviceGetPowerManagementLimitConstraints; then each value is set and
 * restored at once (kt_nvml_check_settable). KT_S_INPUT names the setting,
 * the value, the call and why. */
kt_status kt_nvml_check_choices(const kt_nvml *n, const kt_nvml_choices *c,
                                const char *restore_path, kt_err *err);

/* 1 when every setting s asks for (each non-zero field) is one c lists:
 * nothing is set that the job's check did not check. */
int kt_nvml_choices_allow(const kt_nvml_choices *c, const kt_nvml_setting *s);

/* "nvml_gr_clock=1410,1755 nvml_pwr_limit=450", "" for none. */
void kt_nvml_choices_text(const kt_nvml_choices *c, char *out, size_t size);

/* What one process has put in force on its device: all 0 (the device's
 * own settings) until kt_nvml_apply changes them; kt_nvml_keeper_end puts
 * the device's own back. n must outlive the keeper. */
typedef struct kt_nvml_keeper {
    const kt_nvml *n;
    kt_nvml_choices listed; /* what the job lists: only these are set */
    char restore_path[4096];
    kt_nvml_setting in_force;
    unsigned changes; /* NVML set or reset calls made, all told */
} kt_nvml_keeper;

/* How long a change is let settle before anything is timed. */
#define KT_NVML_SETTLE_US 50000

void kt_nvml_keeper_init(kt_nvml_keeper *k, const kt_nvml *n,
                         const kt_nvml_choices *listed,
                         const char *restore_path);

/* Puts want in force, calling NVML only for a setting that differs from
 * the one in force: a value is set (kt_nvml_set), a 0 where one is in
 * force puts the device's own back; then waits KT_NVML_SETTLE_US. A value
 * the keeper's list lacks is KT_S_INPUT naming it, nothing called (only
 * what the job's check checked is set). A refusal is kt_nvml_set's error;
 * what went through stays in force (and in the restore file). */
kt_status kt_nvml_apply(kt_nvml_keeper *k, const kt_nvml_setting *want,
                        kt_err *err);

/* The device's own settings back (the restore file's, which is removed);
 * nothing when nothing was changed. */
kt_status kt_nvml_keeper_end(kt_nvml_keeper *k, kt_err *err);

/* Orders idx[0..n) (indices into pts) so that the points under one device
 * setting are consecutive: those under *in_force first (no change), then
 * each group next to the one before it, in the order the points came.
 * Writes each group's end into ends[] (n long); returns the groups. */
size_t kt_nvml_group(const kt_point *pts, size_t *idx, size_t n,
                     const kt_nvml_setting *in_force, size_t *ends);

#endif
