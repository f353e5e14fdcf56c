// SPDX-License-Identifier: Apache-2.0
/* `ktune bench --markdown`'s table without a GPU: one row with the
 * configuration, sizes, samples, median and interval, noise, bandwidth and
 * the share of the copy ceiling ("-" when the ceiling is unknown), and a
 * '|' in a device name escaped so the row keeps its cells. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/loader.h"
#include "core/point.h"
#include "core/result_md.h"

static char *render(const kt_result_md *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    kt_result_markdown(out, m);
    fclose(out);
    return text;
}

static void the_table_has_one_row_with_the_numbers(void **state)
{
    kt_registry reg;
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_eval_result r;
    kt_point pt;
    kt_work work = {.bytes_read = 2e6, .bytes_written = 1e6};
    int64_t sizes[KT_MAX_SIZES] = {0};
    kt_err err;
    char *text;
    (void)state;
    kt_registry_init(&reg);
    if (kt_registry_load_file(&reg, KT_TEST_PLUGIN_DIR "/good_plugin.so",
                              &err) ||
        kt_registry_resolve(&reg, "good:scale", &lp, &op, &err))
        fail_msg("%s", err.msg);
    kt_point_default(op, 0, &pt);
    memset(&r, 0, sizeof r);
    r.timing.kernel.n = 70;
    r.timing.kernel.median = 10.0; /* 3e6 B in 10 us: 300 GB/s */
    r.timing.kernel.ci_lo = 9.5;
    r.timing.kernel.ci_hi = 10.25;
    r.timing.kernel.noise = 0.0125;
    sizes[0] = 1024;
    kt_result_md m = {.spec = "good:scale",
                      .device = "GPU | 1",
                      .op = op,
                      .pt = &pt,
                      .sizes = sizes,
                      .r = &r,
                      .work = &work,
                      .copy_gbs = 400};
    text = render(&m);
    assert_contains(text, "## good:scale\n\n| Device | Configuration |");
    assert_contains(text, "|---|---|---|---:|");
    assert_contains(text, "| GPU \\| 1 | `tiled block=128 unroll=2 pad=0 "
                          "layout=cols` |");
    assert_contains(text, " | 70 | 10.000 | [9.500, 10.250] | 1.25% | 300.0 "
                          "| 75.0% |\n");
    free(text);
    m.copy_gbs = 0;
    text = render(&m);
    assert_contains(text, "| 300.0 | - |\n");
    free(text);
    kt_registry_free(&reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_table_has_one_row_with_the_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
