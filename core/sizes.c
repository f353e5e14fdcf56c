// SPDX-License-Identifier: Apache-2.0
#include "core/sizes.h"

#include <stdio.h>

void kt_format_sizes(const kt_operator *op, const int64_t *sizes, char *out,
                     size_t out_size)
{
    size_t used = 0;
    if (!out_size)
        return;
    out[0] = '\0';
    for (uint32_t i = 0; i < op->num_sizes && used + 1 < out_size; ++i)
        used += (size_t)snprintf(out + used, out_size - used, "%s%s=%lld",
                                 i ? " " : "", op->sizes[i].name,
                                 (long long)sizes[i]);
}
