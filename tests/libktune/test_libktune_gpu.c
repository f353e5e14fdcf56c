/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libktune on a GPU (run by test_libktune_example_gpu.sh, which skips
 * without one): examples/declared_transpose's tiled variant (2048 x 2048)
 * benched and profiled through the API at one configuration, and tuned with a
 * budget with isolation on; each result read through the accessors; tuned
 * again with a verification callback (called in process with the output
 * and the reference's, equal for a transpose), and benched with one that
 * fails every point (its message is the session's). argv: SOURCE_DIR
 * KTUNE_EXE.
 */
#include <stdio.h>
#include <string.h>

#include "ktune/ktune.h"
#include "tests/libktune/support.h"

static void one_configuration(ktune_session *s, int profile)
{
    ktune_result *r = NULL;
    double med = 0, lo = 0, hi = 0;
    int rc = profile ? ktune_profile(s, "tiled", "tile=32,pad=1,rows_per=8", &r)
                     : ktune_bench(s, "tiled", "tile=32,pad=1,rows_per=8", &r);

    if (rc)
        fprintf(stderr, "%s\n", ktune_session_errmsg(s));
    EXPECT(rc == KTUNE_OK && r);
    EXPECT(ktune_result_num_points(r) == 1);
    EXPECT(!ktune_result_point_stat(r, 0, KTUNE_STAT_MEDIAN_US, &med) &&
           !ktune_result_point_stat(r, 0, KTUNE_STAT_CI_LO_US, &lo) &&
           !ktune_result_point_stat(r, 0, KTUNE_STAT_CI_HI_US, &hi));
    EXPECT(med > 0 && lo <= med && med <= hi);
    if (!r)
        return;
    printf("%s: %.3f us [%.3f, %.3f]\n", ktune_result_kind(r), med, lo, hi);
    if (profile)
        printf("counters: %s\n", ktune_result_value_json(r, "counters"));
    ktune_result_free(r);
}

typedef struct calls {
    size_t calls, elements, differ;
} calls;

/* Passes the outputs that equal the reference's, counting what it saw. */
static int equal_to_reference(void *user, const ktune_output *o, size_t n,
                              char *msg, size_t size)
{
    calls *c = user;

    ++c->calls;
    for (size_t i = 0; i < n; ++i) {
        const float *got = o[i].data;
        if (o[i].type != KTUNE_F32 || !o[i].expected) {
            snprintf(msg, size, "%s: not f32 or no reference", o[i].name);
            return 0;
        }
        for (size_t k = 0; k < o[i].count; ++k)
            c->differ += got[k] != (float)o[i].expected[k];
        c->elements += o[i].count;
    }
    return c->differ == 0;
}

static int refuse(void *user, const ktune_output *o, size_t n, char *msg,
                  size_t size)
{
    (void)user;
    (void)o;
    (void)n;
    snprintf(msg, size, "refused by the test");
    return 0;
}

static void verified_by_callback(ktune_session *s)
{
    calls c = {0, 0, 0};
    ktune_result *r = NULL;

    EXPECT(!ktune_verify_callback(s, equal_to_reference, &c));
    ktune_session_set_budget(s, 4, 0, 0);
    EXPECT(ktune_tune(s, &r) == KTUNE_OK && ktune_result_has_best(r));
    if (!r)
        fprintf(stderr, "%s\n", ktune_session_errmsg(s));
    printf("callback: %zu calls, %zu elements, %zu differ\n", c.calls,
           c.elements, c.differ);
    EXPECT(c.calls >= 4 && c.elements > 0 && c.differ == 0);
    ktune_result_free(r);
    r = NULL;
    EXPECT(!ktune_verify_callback(s, refuse, NULL));
    EXPECT(ktune_bench(s, "tiled", "tile=32,pad=1,rows_per=8", &r) != 0 && !r);
    EXPECT(strstr(ktune_session_errmsg(s), "refused by the test"));
    printf("refused: %s\n", ktune_session_errmsg(s));
    EXPECT(!ktune_verify_callback(s, NULL, NULL));
}

int main(int argc, char **argv)
{
    ktune_session *s;
    ktune_result *r = NULL;
    double med = 0;

    if (argc != 3 || !(s = kt_api_transpose(argv[1], argv[2], 2048, 2048)))
        return 2;
    one_configuration(s, 0);
    one_configuration(s, 1);
    ktune_session_set_budget(s, 8, 0, 0);
    EXPECT(ktune_tune(s, &r) == KTUNE_OK);
    EXPECT(ktune_result_has_best(r) &&
           !ktune_result_best_stat(r, KTUNE_STAT_MEDIAN_US, &med) && med > 0);
    EXPECT(ktune_result_num_points(r) >= 8);
    printf("tune: best %s: %.3f us\n", ktune_result_best_config(r), med);
    ktune_result_free(r);
    verified_by_callback(s);
    ktune_session_free(s);
    return kt_api_failures ? 1 : 0;
}
