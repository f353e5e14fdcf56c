// SPDX-License-Identifier: Apache-2.0
/*
 * The device record and calibration of one GPU, for `ktune info`: opens the
 * device, reads its facts, and gets (or measures) its ceilings.
 */
#ifndef KT_DEVINFO_H
#define KT_DEVINFO_H

#include <jansson.h>

#include "core/error.h"
#include "engine/calibrate.h"

/* *device receives a new reference (kt_env_device). KT_S_NO_DEVICE without
 * a GPU. */
kt_status kt_devinfo_collect(int ordinal, int refresh, json_t **device,
                             kt_calibration *calib, int *from_cache,
                             kt_err *err);

#endif
