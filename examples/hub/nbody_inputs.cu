// SPDX-License-Identifier: Apache-2.0
/* Generators of nbody.ini's bodies. The kernel reads either the
 * array-of-structures buffers (float4 x, y, z, mass and vx, vy, vz, 0) or
 * the structure-of-arrays ones (USE_SOA), so both must hold the same
 * bodies: every value is a function of (seed, component, body) alone.
 * Positions and velocities uniform in [0, 20), masses in [0, 20), as BAT's
 * "Random, FillValue 20". */
#include "inputs_hash.h"

/* Component c (0..3: x, y, z, mass) of body i; velocities are 4..6. */
__device__ inline float nbody_value(unsigned long long seed, int c,
                                    unsigned long long i)
{
    return 20.0f * ktune_uniform(seed, (unsigned long long)c, i);
}

/* float4 per body: x, y, z, mass. */
__global__ void nbody_info(float *out, unsigned long long count,
                           unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = nbody_value(seed, (int)(i % 4), i / 4);
}

/* float4 per body: vx, vy, vz, 0. */
__global__ void nbody_vel(float *out, unsigned long long count,
                          unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = i % 4 == 3 ? 0.0f : nbody_value(seed, 4 + (int)(i % 4), i / 4);
}

__global__ void nbody_pos_x(float *out, unsigned long long count,
                            unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = nbody_value(seed, 0, i);
}

__global__ void nbody_pos_y(float *out, unsigned long long count,
                            unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = nbody_value(seed, 1, i);
}

__global__ void nbody_pos_z(float *out, unsigned long long count,
                            unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = nbody_value(seed, 2, i);
}

__global__ void nbody_mass(float *out, unsigned long long count,
                           unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = nbody_value(seed, 3, i);
}

__global__ void nbody_vel_x(float *out, unsigned long long count,
                            unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = nbody_value(seed, 4, i);
}

__global__ void nbody_vel_y(float *out, unsigned long long count,
                            unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = nbody_value(seed, 5, i);
}

__global__ void nbody_vel_z(float *out, unsigned long long count,
                            unsigned long long seed)
{
    KTUNE_GENERATOR_ELEMENT(i);
    out[i] = nbody_value(seed, 6, i);
}
