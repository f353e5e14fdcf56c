// SPDX-License-Identifier: Apache-2.0
/* expr_driver: one Python-syntax expression per line of stdin (names a = 7,
 * b = -3, c = 12), evaluated by kt_expr; prints "I value", "F value"
 * (%.17g), "ERR" (an evaluation error) or "PARSE message" per line, for
 * expr_vs_python.py. */
#include <stdio.h>
#include <string.h>

#include "core/expr.h"

int main(void)
{
    static const char *const names[] = {"a", "b", "c"};
    static const int64_t values[] = {7, -3, 12};
    char line[8192];

    while (fgets(line, sizeof line, stdin)) {
        kt_expr *e = NULL;
        kt_expr_value v;
        kt_err err;
        line[strcspn(line, "\n")] = '\0';
        if (kt_expr_parse_as(line, KT_EXPR_PYTHON, names, 3, &e, &err))
            printf("PARSE %s\n", err.msg);
        else if (kt_expr_eval_value(e, values, &v, &err))
            printf("ERR\n");
        else if (v.is_float)
            printf("F %.17g\n", v.f);
        else
            printf("I %lld\n", (long long)v.i);
        kt_expr_free(e);
    }
    return 0;
}
