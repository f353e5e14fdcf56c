// SPDX-License-Identifier: Apache-2.0
/* gemm.ini's reference: C = alpha * A * B + beta * C in the layout the
 * hub's script states for Xgemm (A[k * M + m], B[k * N + n],
 * C[n * M + m]), one thread per element, accumulated in double. It takes
 * Xgemm's exact parameter types (realM, realN at VWM = VWN = 1: float) so
 * one argument list serves both. */
extern "C" __global__ void
gemm_reference(const int kSizeM, const int kSizeN, const int kSizeK,
               const real_arg alpha, const real_arg beta, const realM *agm,
               const realN *bgm, realM *cgm, const int b_offset,
               const int c_offset)
{
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y * blockDim.y + threadIdx.y;
    const float *a = (const float *)agm, *b = (const float *)bgm + b_offset;
    float *c = (float *)cgm + c_offset;
    double sum = 0.0;

    if (m >= kSizeM || n >= kSizeN)
        return;
    for (int k = 0; k < kSizeK; ++k)
        sum += (double)a[(size_t)k * kSizeM + m] *
               (double)b[(size_t)k * kSizeN + n];
    c[(size_t)n * kSizeM + m] =
        (float)((double)alpha * sum +
                (double)beta * (double)c[(size_t)n * kSizeM + m]);
}
