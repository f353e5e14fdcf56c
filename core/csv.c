// SPDX-License-Identifier: Apache-2.0
#include "core/csv.h"

#include <string.h>

void kt_csv_field(FILE *out, const char *text, int last)
{
    if (strpbrk(text, ",\"\r\n")) {
        fputc('"', out);
        for (const char *p = text; *p; ++p) {
            if (*p == '"')
                fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    } else {
        fputs(text, out);
    }
    fputc(last ? '\n' : ',', out);
}
