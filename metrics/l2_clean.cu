#include "metrics/l2_clean.h"

#include <stdint.h>

namespace
{

__global__ void read_sweep(const uint4 *__restrict__ p, size_t n,
                           unsigned int *sink)
{
    uint32_t h = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        h ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (h == 0x9e3779b9u)
        *sink = h;
}

} // namespace

extern "C" cudaError_t kt_launch_read_sweep(const void *buf, size_t bytes,
                                            unsigned int *sink, int sm_count,
                                            cudaStream_t stream)
{
    read_sweep<<<(unsigned)(sm_count > 0 ? 4 * sm_count : 128), 512, 0,
                 stream>>>((const uint4 *)buf, bytes / sizeof(uint4), sink);
    return cudaGetLastError();
}
