// SPDX-License-Identifier: Apache-2.0
/* Exit 0 when a CUDA device is usable, 1 otherwise: lets test scripts pick
 * their expectations (and GPU scripts skip with 77). */
#include "engine/gpu.h"

int main(void)
{
    return kt_gpu_count() > 0 ? 0 : 1;
}
