// SPDX-License-Identifier: Apache-2.0
/* cmocka needs these includes in this order; every test includes this. */
#ifndef KT_TEST_H
#define KT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

/* Asserts that haystack contains needle, printing both when not. */
#define assert_contains(haystack, needle)                                      \
    do {                                                                       \
        const char *h_ = (haystack), *n_ = (needle);                           \
        if (!strstr(h_, n_))                                                   \
            fail_msg("expected \"%s\" in \"%s\"", n_, h_);                     \
    } while (0)

#endif
