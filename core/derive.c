// SPDX-License-Identifier: Apache-2.0
#include "core/derive.h"

#include <string.h>

void kt_derive(const kt_work *work, double time_us, double copy_gbs,
               double peak_gbs, kt_derived *out)
{
    double bytes = work->bytes_read + work->bytes_written;

    memset(out, 0, sizeof *out);
    if (!(time_us > 0))
        return;
    out->seconds = time_us * 1e-6;
    out->bandwidth_gbs = bytes / out->seconds / 1e9;
    out->pct_of_copy = copy_gbs > 0 ? 100.0 * out->bandwidth_gbs / copy_gbs : 0;
    out->pct_of_peak = peak_gbs > 0 ? 100.0 * out->bandwidth_gbs / peak_gbs : 0;
    out->gflops = work->flops / out->seconds / 1e9;
    out->intensity = bytes > 0 ? work->flops / bytes : 0;
}
