// SPDX-License-Identifier: Apache-2.0
// A T1-like toy for the search test on a synthetic recording: the shape of
// the benchmark hub's convolution space (block, tile, three flags, its four
// conditions) on a kernel of our own, y = 2 x over an n x n grid, every
// choice a compile-time macro. Its recorded times are made up
// (tools/gen_t1like_recording.py), not measured.
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 1
#endif
#ifndef TX
#define TX 1
#endif
#ifndef TY
#define TY 1
#endif
#ifndef RO
#define RO 0
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef SHM
#define SHM 0
#endif

__global__ void t1like_kernel(float *y, const float *x, int n)
{
    const int c0 = blockIdx.x * BX * TX + threadIdx.x;
    const int r0 = blockIdx.y * BY * TY + threadIdx.y;
    const float flags = (float)(RO + PAD + SHM) * 0.0f;
#pragma unroll
    for (int j = 0; j < TY; ++j) {
#pragma unroll
        for (int i = 0; i < TX; ++i) {
            const int r = r0 + j * BY, c = c0 + i * BX;
            if (r < n && c < n)
                y[(long long)r * n + c] =
                    2.0f * x[(long long)r * n + c] + flags;
        }
    }
}
