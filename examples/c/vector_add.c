/* SPDX-License-Identifier: Apache-2.0 */
#include <ktune/ktune.h>
#include <stdio.h>
#include <stdlib.h>
static const char *src =
    "extern \"C\" __global__ void vadd(float *c, const "
    "float *a, const float *b, int n) { int i = blockIdx.x * blockDim.x + "
    "threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n";
int main(int argc, char **argv) /* argv[1] "--check": no GPU needed */
{
    enum { N = 10000000 };
    float *a = malloc(N * 4), *b = malloc(N * 4), *c = malloc(N * 4);
    int64_t bx[20];
    ktune_session *s;
    ktune_result *r = NULL;
    double t = 0, lo = 0, hi = 0;
    for (int i = 0; i < 20; ++i)
        bx[i] = 32 * (i + 1); /* 20 block sizes, 32 to 640 */
    for (int i = 0; i < N; ++i)
        a[i] = (float)i, b[i] = 2.0f * i, c[i] = a[i] + b[i];
    if (ktune_session_new(&s) || ktune_declare(s, "my_vadd") ||
        ktune_source_text(s, src) || ktune_size(s, "n", N, 1) ||
        ktune_buffer(s, "c", KTUNE_OUT, KTUNE_F32, NULL, N, NULL, NULL) ||
        ktune_buffer(s, "a", KTUNE_IN, KTUNE_F32, a, N, NULL, NULL) ||
        ktune_buffer(s, "b", KTUNE_IN, KTUNE_F32, b, N, NULL, NULL) ||
        ktune_arg_buffer(s, "c", NULL) || ktune_arg_buffer(s, "a", NULL) ||
        ktune_arg_buffer(s, "b", NULL) || ktune_arg_expr(s, KTUNE_C_INT, "n") ||
        ktune_variant(s, "k", "vadd") || ktune_param(s, "bx", bx, 20) ||
        ktune_block(s, "bx") || ktune_grid_divisors(s, "n", "bx") ||
        ktune_answer(s, "c", c, N) ||
        (argc > 1 && argv[1][0] ? ktune_check(s, &r) : ktune_tune(s, &r)))
        return fprintf(stderr, "%s\n", ktune_session_errmsg(s)), 1;
    ktune_result_best_stat(r, KTUNE_STAT_MEDIAN_US, &t);
    ktune_result_best_stat(r, KTUNE_STAT_CI_LO_US, &lo);
    ktune_result_best_stat(r, KTUNE_STAT_CI_HI_US, &hi);
    printf("%s: best %s: %.3f us [%.3f, %.3f], verified\n",
           ktune_result_kind(r), ktune_result_best_config(r), t, lo, hi);
    ktune_result_free(r), ktune_session_free(s), free(a), free(b), free(c);
    return 0;
}
