// SPDX-License-Identifier: Apache-2.0
/* Output files are replaced whole or not at all: written through a
 * temporary file renamed into place, which a failed write, a discard or
 * SIGINT/SIGTERM removes, leaving the old file as it was. */
#include "tests/kt_test.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/outfile.h"

static char dir[] = "/tmp/kt_outfile_XXXXXX";
static char path[sizeof dir + 16];

static void put(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *get(void)
{
    static char text[64 * 1024];
    FILE *f = fopen(path, "r");
    size_t n;
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* Files in dir other than out.txt (temporary files left behind). */
static int strays(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)))
        n += e->d_name[0] != '.' && strcmp(e->d_name, "out.txt") != 0;
    closedir(d);
    return n;
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/out.txt", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return rmdir(dir);
}

static void old_file_stays_until_the_new_one_is_whole(void **state)
{
    FILE *f;
    (void)state;
    put("old\n");
    chmod(path, 0640);
    f = kt_out_open(path);
    assert_non_null(f);
    fputs("new\n", f);
    fflush(f);
    assert_string_equal(get(), "old\n");
    assert_int_equal(strays(), 1);
    assert_int_equal(kt_out_close(f), 0);
    assert_string_equal(get(), "new\n");
    assert_int_equal(strays(), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640); /* the old file's mode kept */
}

static void a_discarded_output_leaves_the_old_file(void **state)
{
    FILE *f;
    (void)state;
    put("old\n");
    f = kt_out_open(path);
    assert_non_null(f);
    fputs("half", f);
    kt_out_discard(f);
    assert_string_equal(get(), "old\n");
    assert_int_equal(strays(), 0);
}

/* A write that fails part way (here a file-size limit, as a full disk
 * would) fails the close and leaves the old file, not a fragment. */
static void a_failed_write_leaves_the_old_file(void **state)
{
    pid_t pid;
    int status;
    (void)state;
    put("old\n");
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit lim = {4096, 4096};
        FILE *f;
        int rc;
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &lim);
        if (!(f = kt_out_open(path)))
            _exit(3);
        for (int i = 0; i < 10000; ++i)
            fputs("0123456789", f);
        rc = kt_out_close(f);
        _exit(rc == EOF && errno == EFBIG ? 0 : 4);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(get(), "old\n");
    assert_int_equal(strays(), 0);
}

static volatile sig_atomic_t earlier_ran;

static void earlier_handler(int sig)
{
    earlier_ran = 1;
    _exit(sig == SIGTERM ? 40 : 41);
}

/* A run stopped while writing: the temporary file goes, the old file
 * stays, and the handler the command had installed still runs (tune's
 * resume hint). with_handler 0: the default action ends the process. */
static void stop_while_writing(int sig, int with_handler)
{
    pid_t pid;
    int status;

    put("old\n");
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f;
        if (with_handler)
            signal(sig, earlier_handler);
        if (!(f = kt_out_open(path)))
            _exit(3);
        fputs("half", f);
        fflush(f);
        raise(sig);
        _exit(5);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (with_handler) {
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), sig == SIGTERM ? 40 : 41);
    } else {
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), sig);
    }
    assert_string_equal(get(), "old\n");
    assert_int_equal(strays(), 0);
}

static void sigterm_and_sigint_leave_no_temporary_file(void **state)
{
    (void)state;
    stop_while_writing(SIGTERM, 0);
    stop_while_writing(SIGINT, 0);
    stop_while_writing(SIGTERM, 1);
    stop_while_writing(SIGINT, 1);
}

static void a_device_is_written_in_place(void **state)
{
    FILE *f;
    (void)state;
    f = kt_out_open("/dev/null");
    assert_non_null(f);
    fputs("x", f);
    assert_int_equal(kt_out_close(f), 0);
    f = kt_out_open("/dev/full");
    assert_non_null(f);
    fputs("x", f);
    assert_int_equal(kt_out_close(f), EOF);
    assert_int_equal(errno, ENOSPC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(old_file_stays_until_the_new_one_is_whole),
        cmocka_unit_test(a_discarded_output_leaves_the_old_file),
        cmocka_unit_test(a_failed_write_leaves_the_old_file),
        cmocka_unit_test(sigterm_and_sigint_leave_no_temporary_file),
        cmocka_unit_test(a_device_is_written_in_place),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
