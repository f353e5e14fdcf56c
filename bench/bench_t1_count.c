// SPDX-License-Identifier: Apache-2.0
/* bench_t1_count FILE...: each T1 space file's parameters, Conditions,
 * Cartesian size and feasible count as ktune's reader counts them (core/t1,
 * pruned), with the time the count took. bench/t1_crosscheck.py compares
 * the counts with python3's. */
#include <stdio.h>

#include "core/clock.h"
#include "core/t1.h"

int main(int argc, char **argv)
{
    int rc = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: bench_t1_count FILE.json...\n");
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        kt_t1_space *s = NULL;
        kt_err err;
        uint64_t n = 0;
        double product = 1, t0;
        if (kt_t1_load(argv[i], &s, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            rc = 2;
            continue;
        }
        for (size_t p = 0; p < s->num_params; ++p)
            product *= (double)s->params[p].num_values;
        t0 = kt_clock_seconds();
        if (kt_t1_count(s, &n, &err)) {
            fprintf(stderr, "%s: %s\n", argv[i], err.msg);
            rc = 1;
        } else {
            printf("%s\t%zu\t%zu\t%.0f\t%llu\t%.3f\n", argv[i], s->num_params,
                   s->num_conditions, product, (unsigned long long)n,
                   kt_clock_seconds() - t0);
        }
        kt_t1_free(s);
    }
    return rc;
}
