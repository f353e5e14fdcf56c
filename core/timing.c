// SPDX-License-Identifier: Apache-2.0
#include "core/timing.h"

#include <stdlib.h>
#include <string.h>

void kt_timing_free(kt_timing *timing)
{
    free(timing->samples_us);
    timing->samples_us = NULL;
    timing->num_rounds = 0;
}

kt_status kt_timing_copy(const kt_timing *from, kt_timing *to, kt_err *err)
{
    *to = *from;
    to->samples_us = NULL;
    if (from->samples_us && from->num_rounds) {
        to->samples_us = malloc(from->num_rounds * sizeof *to->samples_us);
        if (!to->samples_us)
            return kt_err_set(err, KT_S_NOMEM, "out of memory");
        memcpy(to->samples_us, from->samples_us,
               from->num_rounds * sizeof *to->samples_us);
    }
    return KT_S_OK;
}
