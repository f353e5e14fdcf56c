// SPDX-License-Identifier: Apache-2.0
/*
 * A cache folder of the test's own (KTUNE_CACHE_DIR under /tmp, named by
 * the process), with the NVRTC cache on, and its removal: group set-up and
 * tear-down for tests that compile with the real NVRTC. Include after
 * tests/kt_test.h.
 */
#ifndef KT_TEST_FRESH_CACHE_H
#define KT_TEST_FRESH_CACHE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char kt_test_cache[256];

static int kt_test_use_fresh_cache(void **state)
{
    (void)state;
    snprintf(kt_test_cache, sizeof kt_test_cache, "/tmp/ktune-test-%ld",
             (long)getpid());
    setenv("KTUNE_CACHE_DIR", kt_test_cache, 1);
    unsetenv("KTUNE_NVRTC_CACHE");
    return 0;
}

static int kt_test_remove_cache(void **state)
{
    char cmd[320];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", kt_test_cache);
    return system(cmd) == 0 ? 0 : 0;
}

#endif
