// SPDX-License-Identifier: Apache-2.0
/* Generator of dedispersion.ini's per-channel delays (in samples per unit
 * of dispersion measure), from the cold-plasma dispersion law the hub's
 * script uses: 4148.808 s MHz^2 per unit DM, times 1/f^2 - 1/f_max^2, over
 * a 25000-sample, 40.96 us window, for 1536 channels of 0.1953125 MHz from
 * 1425 MHz; the highest channel's delay is 0. Every delay times the
 * largest DM (dm_first + nr_dms * dm_step = 40.96) stays under max_shift,
 * the margin dedispersion.h allocates. */
#include "dedispersion.h"

__global__ void dedisp_shifts(float *out, unsigned long long count,
                              unsigned long long seed)
{
    const double min_freq = 1425.0, channel_bandwidth = 0.1953125,
                 sampling_time = 0.00004096;
    unsigned long long c =
        blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    (void)seed;
    if (c < count) {
        double max_freq = min_freq + (nr_channels - 1) * channel_bandwidth;
        double f = min_freq + (double)c * channel_bandwidth;
        double window = nr_samples * sampling_time;
        double delay = 4148.808 *
                       (1.0 / (f * f) - 1.0 / (max_freq * max_freq)) *
                       nr_samples / window;
        out[c] = c + 1 == count ? 0.0f : (float)delay;
    }
}
