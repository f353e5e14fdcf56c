// SPDX-License-Identifier: Apache-2.0
// y = transpose(x), x a rows x cols row-major float matrix. Plain CUDA: no
// ktune code; transpose.ini declares how ktune launches and tunes it.

__global__ void transpose_naive(float *y, const float *x, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}

// A TILE x TILE tile through shared memory, TILE x ROWS threads; PAD = 1
// shifts each row by one bank so the column reads do not conflict.
template <int TILE, int PAD, int ROWS>
__global__ void transpose_tiled(float *y, const float *x, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + PAD];
    int c = blockIdx.x * TILE + threadIdx.x, r0 = blockIdx.y * TILE;
    for (int j = threadIdx.y; j < TILE; j += ROWS)
        if (r0 + j < rows && c < cols)
            tile[j][threadIdx.x] = x[(size_t)(r0 + j) * cols + c];
    __syncthreads();
    int r = r0 + threadIdx.x, c0 = blockIdx.x * TILE;
    for (int j = threadIdx.y; j < TILE; j += ROWS)
        if (c0 + j < cols && r < rows)
            y[(size_t)(c0 + j) * rows + r] = tile[threadIdx.x][j];
}
