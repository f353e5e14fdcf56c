// SPDX-License-Identifier: Apache-2.0
/* Helpers of the compare tests. */
#ifndef KT_COMPARE_TEST_H
#define KT_COMPARE_TEST_H

#include "tests/kt_test.h"

#include <math.h>

/* |a - b| <= tol (doubles; cmocka's float assertion rounds to float). */
#define assert_near(a, b, tol)                                                 \
    do {                                                                       \
        double a_ = (a), b_ = (b), t_ = (tol);                                 \
        if (!(fabs(a_ - b_) <= t_))                                            \
            fail_msg("%s = %.17g, expected %.17g (within %g)", #a, a_, b_,     \
                     t_);                                                      \
    } while (0)

#endif
