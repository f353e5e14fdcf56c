/* SPDX-License-Identifier: Apache-2.0 */
/*
 * examples/declared_transpose declared through libktune, then its search
 * answered from a recording made on an H200 (no GPU needed): the search
 * path and the answer with its interval. docs/library.md walks through it.
 * Usage: transpose_replay KTUNE_SOURCE_DIR
 */
#include <ktune/ktune.h>
#include <stdio.h>

static int declare(ktune_session *s, const char *src_dir)
{
    static const int64_t b16[] = {16, 32, 64}, by[] = {1, 2, 4, 8, 16},
                         pad[] = {0, 1};
    char cu[4096];

    snprintf(cu, sizeof cu, "%s/examples/declared_transpose/transpose.cu",
             src_dir);
    return ktune_declare(s, "transpose") || ktune_source_file(s, cu) ||
           ktune_size(s, "rows", 8192, 0) || ktune_size(s, "cols", 8192, 0) ||
           ktune_buffer(s, "x", KTUNE_IN, KTUNE_F32, NULL, 1, "rows * cols",
                        NULL) ||
           ktune_buffer(s, "y", KTUNE_OUT, KTUNE_F32, NULL, 1, "rows * cols",
                        NULL) ||
           ktune_arg_buffer(s, "y", NULL) || ktune_arg_buffer(s, "x", NULL) ||
           ktune_arg_expr(s, KTUNE_C_INT, "rows") ||
           ktune_arg_expr(s, KTUNE_C_INT, "cols") ||
           /* The reference: every point is compared with its output. */
           ktune_variant(s, "naive", "transpose_naive") || ktune_reference(s) ||
           ktune_param(s, "bx", b16, 3) || ktune_param(s, "by", by, 5) ||
           ktune_block(s, "bx, by") ||
           ktune_grid_divisors(s, "cols, rows", "bx, by") ||
           ktune_variant(s, "tiled", "transpose_tiled<tile, pad, rows_per>") ||
           ktune_param(s, "tile", b16, 3) || ktune_param(s, "pad", pad, 2) ||
           ktune_param(s, "rows_per", by, 5) ||
           ktune_block(s, "tile, rows_per") ||
           ktune_grid(s, "ceil_div(cols, tile), ceil_div(rows, tile)") ||
           ktune_require(s, "rows_per <= tile");
}

int main(int argc, char **argv)
{
    ktune_session *s = NULL;
    ktune_result *r = NULL;
    char rec[4096];
    double med, lo, hi;
    int rc = 1;

    if (argc != 2 || ktune_session_new(&s))
        return 2;
    snprintf(rec, sizeof rec,
             "%s/tests/data/transpose-h200-rows8192-cols8192.jsonl.gz",
             argv[1]);
    if (declare(s, argv[1]) || ktune_session_set_strategy(s, "random") ||
        ktune_session_set_seed(s, 7) || ktune_session_set_budget(s, 12, 0, 0) ||
        ktune_replay(s, rec, &r)) {
        fprintf(stderr, "%s\n", ktune_session_errmsg(s));
        goto done;
    }
    for (size_t i = 0; i < ktune_result_num_points(r); ++i)
        printf("%2zu %-36s %s\n", i + 1, ktune_result_point_config(r, i),
               ktune_result_point_status(r, i));
    ktune_result_best_stat(r, KTUNE_STAT_MEDIAN_US, &med);
    ktune_result_best_stat(r, KTUNE_STAT_CI_LO_US, &lo);
    ktune_result_best_stat(r, KTUNE_STAT_CI_HI_US, &hi);
    printf("best %s: %.3f us, 95%% CI [%.3f, %.3f] on %s\n",
           ktune_result_best_config(r), med, lo, hi,
           ktune_result_string(r, "device"));
    rc = 0;
done:
    ktune_result_free(r);
    ktune_session_free(s);
    return rc;
}
