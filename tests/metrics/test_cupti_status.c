// SPDX-License-Identifier: Apache-2.0
/* CUPTI failures sort into "no counters here, go on" (one line saying
 * why), "bad metric name" (exit 2) and real failures, each message naming
 * the call. */
#include "tests/kt_test.h"

#include "metrics/cupti/cupti_status.h"

static void unavailability_is_not_a_failure(void **state)
{
    const CUptiResult unavailable[] = {
        CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
        CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
        CUPTI_ERROR_HARDWARE_BUSY,
        CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED,
        CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
        CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
        CUPTI_ERROR_NOT_SUPPORTED,
        CUPTI_ERROR_INVALID_CHIP_NAME,
    };
    (void)state;

    for (size_t i = 0; i < sizeof unavailable / sizeof unavailable[0]; ++i) {
        kt_err err;
        assert_int_equal(kt_cupti_classify(unavailable[i]), KT_S_UNSUPPORTED);
        assert_int_equal(kt_cupti_status(unavailable[i], "cuptiX", &err),
                         KT_S_UNSUPPORTED);
        assert_contains(err.msg, "no hardware counters: ");
        assert_contains(err.msg, "(cuptiX: CUPTI_ERROR_");
        assert_null(strchr(err.msg, '\n'));
    }
}

static void the_reason_tells_the_user_what_to_do(void **state)
{
    kt_err err;
    (void)state;

    kt_cupti_status(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
                    "cuptiRangeProfilerEnable", &err);
    assert_contains(err.msg, "NVreg_RestrictProfilingToAdminUsers");
    assert_contains(err.msg, "cuptiRangeProfilerEnable");
    kt_cupti_status(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                    "cuptiProfilerInitialize", &err);
    assert_contains(err.msg, "another profiler");
    assert_contains(err.msg, "--no-counters");
    kt_cupti_status(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "c", &err);
    assert_contains(err.msg, "MIG");
}

static void other_results_are_errors_naming_the_call(void **state)
{
    kt_err err;
    (void)state;

    assert_int_equal(kt_cupti_status(CUPTI_SUCCESS, "x", &err), KT_S_OK);
    assert_int_equal(kt_cupti_status(CUPTI_ERROR_INVALID_METRIC_NAME,
                                     "cuptiProfilerHostConfigAddMetrics", &err),
                     KT_S_INPUT);
    assert_int_equal(kt_cupti_status(CUPTI_ERROR_UNKNOWN,
                                     "cuptiRangeProfilerDecodeData", &err),
                     KT_S_CUDA);
    assert_contains(err.msg, "cuptiRangeProfilerDecodeData failed: "
                             "CUPTI_ERROR_UNKNOWN");
    assert_int_equal(kt_cupti_classify(CUPTI_ERROR_OUT_OF_MEMORY), KT_S_NOMEM);
    assert_null(kt_cupti_unavailable_reason(CUPTI_ERROR_INVALID_PARAMETER));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unavailability_is_not_a_failure),
        cmocka_unit_test(the_reason_tells_the_user_what_to_do),
        cmocka_unit_test(other_results_are_errors_naming_the_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
