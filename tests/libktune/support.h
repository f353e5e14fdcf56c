/* SPDX-License-Identifier: Apache-2.0 */
/* What the libktune tests share: a check that counts failures, and
 * examples/declared_transpose declared call by call. */
#ifndef KT_TEST_LIBKTUNE_SUPPORT_H
#define KT_TEST_LIBKTUNE_SUPPORT_H

#include <stdio.h>

#include "ktune/ktune.h"

extern int kt_api_failures;

#define EXPECT(c)                                                              \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c);    \
            ++kt_api_failures;                                                 \
        }                                                                      \
    } while (0)

/* A session (its ktune: exe) declaring examples/declared_transpose of
 * src_dir at rows x cols; NULL when it cannot be made. */
ktune_session *kt_api_transpose(const char *src_dir, const char *exe,
                                int64_t rows, int64_t cols);

#endif
