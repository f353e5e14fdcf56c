// SPDX-License-Identifier: Apache-2.0
/*
 * CSV output (RFC 4180): the one field writer every CSV file of ktune uses
 * (tuning results, compare rows).
 */
#ifndef KT_CSV_H
#define KT_CSV_H

#include <stdio.h>

/* Writes text as one field, quoted when it holds a separator, a quote or a
 * line break (quotes doubled), then ',' or, when last is 1, '\n'. */
void kt_csv_field(FILE *out, const char *text, int last);

#endif
