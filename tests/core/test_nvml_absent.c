// SPDX-License-Identifier: Apache-2.0
/* Without NVML (the library absent, as on a CPU machine or in CI) the
 * meter says why, once per process, and nothing else changes. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/nvml.h"
#include "core/nvml_set.h"

static void an_absent_library_is_unsupported_and_noted_once(void **state)
{
    char path[256], text[4096];
    kt_nvml n;
    FILE *f;
    size_t got, notes = 0;
    kt_err err;
    (void)state;

    setenv("KTUNE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    assert_int_equal(kt_nvml_open("0000:19:00.0", &n, &err), KT_S_UNSUPPORTED);
    assert_contains(err.msg,
                    "/nonexistent/libnvidia-ml.so.1 could not be loaded");
    assert_null(n.api);
    /* The second open answers the same without trying again. */
    assert_int_equal(kt_nvml_open("0000:19:00.0", &n, &err), KT_S_UNSUPPORTED);
    snprintf(path, sizeof path, "%s/nvml_absent.%d", KT_TEST_TMP,
             (int)getpid());
    assert_non_null(freopen(path, "w", stderr));
    kt_nvml_note_once(err.msg);
    kt_nvml_note_once(err.msg);
    kt_nvml_note_once("another reason");
    fflush(stderr);
    assert_non_null(f = fopen(path, "r"));
    got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    remove(path);
    for (const char *p = text; (p = strstr(p, "energy not measured")); ++p)
        ++notes;
    assert_int_equal(notes, 1);
    assert_contains(text, "note: energy not measured: /nonexistent/");
}

/* Issue 53, N21: KTUNE_NVML_RESTORE=/dev/zero spun and a FIFO blocked;
 * both are refused by name, at once. */
static void a_restore_file_that_is_not_regular_is_refused(void **state)
{
    char fifo[256];
    kt_err err;
    (void)state;
    alarm(20); /* an older ktune never returned */
    assert_int_equal(kt_nvml_restore(NULL, "/dev/zero", &err), KT_S_INPUT);
    assert_contains(err.msg, "character device");
    snprintf(fifo, sizeof fifo, "%s/restore.fifo.%d", KT_TEST_TMP,
             (int)getpid());
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(kt_nvml_restore(NULL, fifo, &err), KT_S_INPUT);
    assert_contains(err.msg, "FIFO");
    alarm(0);
    unlink(fifo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_absent_library_is_unsupported_and_noted_once),
        cmocka_unit_test(a_restore_file_that_is_not_regular_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
