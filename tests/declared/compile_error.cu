// SPDX-License-Identifier: Apache-2.0
// y = 2x, ITEMS elements per thread. ITEMS = 3 is refused at compile time
// on purpose: a compile error must cost that one point, not the run.
template <int ITEMS> __global__ void twice(float *y, const float *x, int n)
{
    static_assert(ITEMS != 3, "ITEMS = 3 is refused on purpose");
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
    for (int k = 0; k < ITEMS; ++k)
        if (base + k < n)
            y[base + k] = 2.0f * x[base + k];
}
