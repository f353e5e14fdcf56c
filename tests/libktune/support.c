/* SPDX-License-Identifier: Apache-2.0 */
/* What the libktune tests share (support.h). */
#include "tests/libktune/support.h"

int kt_api_failures;

/* examples/declared_transpose/transpose.ini, call by call. */
ktune_session *kt_api_transpose(const char *src_dir, const char *exe,
                                int64_t rows, int64_t cols)
{
    static const int64_t b16[] = {16, 32, 64}, by[] = {1, 2, 4, 8, 16},
                         pad[] = {0, 1};
    char path[4096];
    ktune_session *s;

    snprintf(path, sizeof path, "%s/examples/declared_transpose/transpose.cu",
             src_dir);
    if (ktune_session_new(&s))
        return NULL;
    ktune_session_set_exe(s, exe);
    EXPECT(!ktune_declare(s, "transpose") && !ktune_source_file(s, path) &&
           !ktune_size(s, "rows", rows, 0) && !ktune_size(s, "cols", cols, 0));
    EXPECT(!ktune_buffer(s, "x", KTUNE_IN, KTUNE_F32, NULL, 1, "rows * cols",
                         NULL) &&
           !ktune_buffer(s, "y", KTUNE_OUT, KTUNE_F32, NULL, 1, "rows * cols",
                         NULL));
    EXPECT(!ktune_arg_buffer(s, "y", NULL) && !ktune_arg_buffer(s, "x", NULL) &&
           !ktune_arg_expr(s, KTUNE_C_INT, "rows") &&
           !ktune_arg_expr(s, KTUNE_C_INT, "cols"));
    EXPECT(!ktune_variant(s, "naive", "transpose_naive") &&
           !ktune_reference(s) && !ktune_param(s, "bx", b16, 3) &&
           !ktune_param(s, "by", by, 5) && !ktune_block(s, "bx, by") &&
           !ktune_grid_divisors(s, "cols, rows", "bx, by"));
    EXPECT(!ktune_variant(s, "tiled", "transpose_tiled<tile, pad, rows_per>") &&
           !ktune_param(s, "tile", b16, 3) && !ktune_param(s, "pad", pad, 2) &&
           !ktune_param(s, "rows_per", by, 5) &&
           !ktune_block(s, "tile, rows_per") &&
           !ktune_grid(s, "ceil_div(cols, tile), ceil_div(rows, tile)") &&
           !ktune_require(s, "rows_per <= tile"));
    return s;
}
