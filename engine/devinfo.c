// SPDX-License-Identifier: Apache-2.0
#include "engine/devinfo.h"

#include "core/envrec.h"
#include "engine/gpu.h"
#include "engine/measure.h"

kt_status kt_devinfo_collect(int ordinal, int refresh, json_t **device,
                             kt_calibration *calib, int *from_cache,
                             kt_err *err)
{
    kt_gpu gpu;
    kt_meter meter;
    kt_status rc;

    *device = NULL;
    if ((rc = kt_gpu_open(ordinal, &gpu, err)) ||
        (rc = kt_meter_open(&meter, &gpu, err)))
        return rc;
    rc = kt_calib_get(&meter, refresh, calib, from_cache, err);
    kt_meter_close(&meter);
    if (!rc)
        *device = kt_env_device(&gpu);
    return rc;
}
