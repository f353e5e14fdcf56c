// SPDX-License-Identifier: Apache-2.0
/* Prints the JSON of a measured and of an unmeasured energy record (made
 * up, through kt_energy_to_json), one a line, for
 * test_energy_schema.sh to validate against docs/schemas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/energy.h"
#include "core/energy_json.h"

static void print(const kt_energy *e)
{
    json_t *j = kt_energy_to_json(e);
    char *text = json_dumps(j, JSON_COMPACT);
    puts(text ? text : "null");
    free(text);
    json_decref(j);
}

int main(void)
{
    kt_energy_span s = {0, 0.25, 75000, 300, 25, 0.01, 3000, 0.0001};
    kt_energy_device dev = {299, 50, 1980, 1900, 3201, 44, 700};
    kt_energy e;
    kt_err err;

    memset(&e, 0, sizeof e);
    for (int r = 0; r < 3; ++r)
        if (kt_energy_add_round(&e, &s, 2e-5, 12500, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
    kt_energy_finish(&e, &dev);
    print(&e);
    kt_energy_none(&e, "libnvidia-ml.so.1 could not be loaded");
    print(&e);
    return 0;
}
