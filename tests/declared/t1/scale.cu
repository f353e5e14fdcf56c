// SPDX-License-Identifier: Apache-2.0
// A kernel tuned over tests/core/t1/space.json: every parameter of the
// file must arrive as a macro (-DNAME=value), or this does not compile.
__global__ void scale(float *out, const float *in, int n)
{
    const int per = TILE * UNROLL + SPARE + MODE + (NEG < 0 ? 0 : NEG);
    int i = (blockIdx.x * (BX * BY) + threadIdx.y * BX + threadIdx.x) * per;
    for (int k = 0; k < per; ++k)
        if (i + k < n)
            out[i + k] = 2.0f * in[i + k];
}
