// SPDX-License-Identifier: Apache-2.0
/*
 * The environment record: what every result carries so that a number can
 * be traced to the machine, the build, the command and the protocol that
 * produced it. Pieces are JSON objects the caller assembles.
 */
#ifndef KT_ENVREC_H
#define KT_ENVREC_H

#include <jansson.h>

#include "core/error.h"
#include "core/gpu_info.h"
#include "core/loader.h"
#include "core/protocol.h"

/* GPU name, UUID, compute capability, SMs, L2, clocks, bus width,
 * theoretical peak, driver and runtime versions, and the limits plugins see
 * (so a replay can rebuild kt_device). New reference. */
json_t *kt_env_device(const kt_gpu *gpu);

/* Rebuilds the kt_device view from kt_env_device() output; name is stored
 * in name_buf. For replay, where there is no GPU. */
kt_status kt_env_device_from_json(const json_t *j, kt_device *dev,
                                  char *name_buf, size_t name_size,
                                  kt_err *err);

/* Plugin path, name, version, ABI and build fingerprint. */
json_t *kt_env_plugin(const kt_loaded_plugin *plugin);

/* Every field of the protocol, plus the timing scope in words. */
json_t *kt_env_protocol(const kt_protocol *p);

/* Device settings (core/nvml_set.h) as {gr_clock_mhz, mem_clock_mhz,
 * power_limit_w}, 0 for "left as it is", and back (NULL: none). */
json_t *kt_env_nvml_setting(const kt_nvml_setting *s);
kt_status kt_env_nvml_setting_from(const json_t *j, kt_nvml_setting *s,
                                   kt_err *err);

/* The settings a job lists (core/nvml_set.h) as {"nvml_gr_clock": [1410,
 * 1755], ...} (the job's names, only those listed), and back (NULL:
 * none). */
json_t *kt_env_nvml_choices(const kt_nvml_choices *c);
kt_status kt_env_nvml_choices_from(const json_t *j, kt_nvml_choices *c,
                                   kt_err *err);

/* Reads back the fields of kt_env_protocol(); the descriptive strings are
 * ignored. */
kt_status kt_protocol_from_json(const json_t *j, kt_protocol *p, kt_err *err);

/* ktune version and commit, build flags, UTC date, host name, the whole
 * command line; a new object the caller owns, NULL when out of memory. */
json_t *kt_env_host(int argc, char *const *argv);

#endif
