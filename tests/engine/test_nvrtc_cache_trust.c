// SPDX-License-Identifier: Apache-2.0
/* The compile cache cannot be turned against its user (issue 53, N17 and
 * N18): no shared fallback folder, a folder of another user refused, no
 * link followed for a file it writes, and an entry planted or changed by
 * someone else never loaded; what an entry's log holds reaches the
 * terminal without escape sequences, and a FIFO at an entry's name is a
 * miss, not a hang. Runs as any user; the cases that hand files to
 * another uid (chown, setuid) need root and are skipped without it. */
#include "tests/kt_test.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/nvrtc.h"
#include "tests/support/fresh_cache.h"

#define NOBODY 65534

static kt_nvrtc_request request(void)
{
    return (kt_nvrtc_request){
        "__global__ void k() {}", "k.cu", "k", "sm_90", NULL, 0};
}

/* Stores an entry with this log; its path into path. */
static void store(const char *log, char *path, size_t size)
{
    kt_nvrtc_request req = request();
    char image[64] = "an image", key[33];
    kt_nvrtc_output w = {.compiled = 1,
                         .image = image,
                         .image_size = sizeof image,
                         .lowered = (char *)"k",
                         .log = (char *)log};
    kt_err err;
    assert_int_equal(kt_nvrtc_cache_store(&req, &w, &err), KT_S_OK);
    assert_int_equal(kt_nvrtc_key(&req, key, &err), KT_S_OK);
    snprintf(path, size, "%s/nvrtc/%s.bin", kt_test_cache, key);
}

/* 1 when the entry loads from the cache. */
static int loads(kt_nvrtc_output *out)
{
    kt_nvrtc_request req = request();
    kt_err err;
    assert_int_equal(kt_nvrtc_cache_load(&req, out, &err), KT_S_OK);
    return out->cached;
}

static void without_a_home_the_cache_is_never_in_tmp(void **state)
{
    char dir[4096];
    (void)state;
    unsetenv("KTUNE_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    kt_nvrtc_cache_dir(dir, sizeof dir);
    assert_true(strncmp(dir, "/tmp", 4) != 0);
    setenv("HOME", "/root", 1);
}

/* The temporary names an older ktune used (path.PID.THREAD.tmp, path.tmp)
 * planted as links to a victim: the victim keeps its bytes. */
static void a_link_planted_at_a_temporary_name_is_not_followed(void **state)
{
    char path[512], tmp[600], victim[300], got[32] = "";
    FILE *f;
    (void)state;
    store("", path, sizeof path);
    snprintf(victim, sizeof victim, "%s/victim", kt_test_cache);
    f = fopen(victim, "w");
    assert_non_null(f);
    fputs("precious", f);
    fclose(f);
    snprintf(tmp, sizeof tmp, "%s.%ld.%lx.tmp", path, (long)getpid(),
             (unsigned long)pthread_self());
    assert_int_equal(symlink(victim, tmp), 0);
    store("", path, sizeof path);
    f = fopen(victim, "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, "precious");
}

/* A cache folder someone else owns (a shared folder, another user's
 * planted one) is refused, naming the owner. */
static void a_cache_folder_of_another_user_is_refused(void **state)
{
    kt_nvrtc_request req = request();
    kt_nvrtc_output w = {.compiled = 1, .image = (char *)"x", .image_size = 1};
    char nvrtc[300];
    kt_err err;
    (void)state;
    if (geteuid() != 0)
        skip();
    snprintf(nvrtc, sizeof nvrtc, "%s/nvrtc", kt_test_cache);
    assert_int_equal(mkdir(kt_test_cache, 0777), 0);
    assert_int_equal(mkdir(nvrtc, 0777), 0);
    assert_int_equal(chown(nvrtc, NOBODY, NOBODY), 0);
    assert_int_equal(kt_nvrtc_cache_store(&req, &w, &err), KT_S_INPUT);
    assert_non_null(strstr(err.msg, "owned by uid 65534"));
}

/* The same with a real second user: nobody makes the folder ktune would
 * use (where an older ktune fell back to a shared one). */
static void a_folder_made_by_a_second_user_is_refused(void **state)
{
    kt_nvrtc_request req = request();
    kt_nvrtc_output w = {.compiled = 1, .image = (char *)"x", .image_size = 1};
    char shared[300];
    int status = 0;
    kt_err err;
    pid_t pid;
    (void)state;
    if (geteuid() != 0)
        skip();
    snprintf(shared, sizeof shared, "%s/shared", kt_test_cache);
    assert_int_equal(mkdir(kt_test_cache, 0777), 0);
    assert_int_equal(chmod(kt_test_cache, 01777), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
            _exit(3);
        _exit(mkdir(shared, 0777) == 0 && chmod(shared, 0777) == 0 ? 0 : 4);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 3)
        skip(); /* no second user here */
    assert_int_equal(WEXITSTATUS(status), 0);
    setenv("KTUNE_CACHE_DIR", shared, 1);
    assert_int_equal(kt_nvrtc_cache_store(&req, &w, &err), KT_S_INPUT);
    assert_non_null(strstr(err.msg, "owned by uid 65534"));
    setenv("KTUNE_CACHE_DIR", kt_test_cache, 1);
}

static void an_entry_of_another_user_is_never_loaded(void **state)
{
    kt_nvrtc_output out;
    char path[512];
    (void)state;
    if (geteuid() != 0)
        skip();
    store("", path, sizeof path);
    assert_int_equal(chown(path, NOBODY, NOBODY), 0);
    assert_false(loads(&out));
    kt_nvrtc_output_free(&out);
}

static void an_entry_others_may_write_is_never_loaded(void **state)
{
    kt_nvrtc_output out;
    char path[512];
    (void)state;
    store("", path, sizeof path);
    assert_int_equal(chmod(path, 0666), 0);
    assert_false(loads(&out));
    kt_nvrtc_output_free(&out);
}

/* One byte of the image changed, every length kept: the content hash
 * tells. */
static void a_changed_entry_is_never_loaded(void **state)
{
    kt_nvrtc_output out;
    char path[512];
    struct stat st;
    int fd;
    (void)state;
    store("", path, sizeof path);
    assert_int_equal(stat(path, &st), 0);
    fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    /* a byte of the image, whether the hash line (51 bytes) follows it or
     * not */
    assert_int_equal(pwrite(fd, "X", 1, st.st_size - 60), 1);
    close(fd);
    assert_false(loads(&out));
    kt_nvrtc_output_free(&out);
}

static void a_cached_log_reaches_the_terminal_without_escapes(void **state)
{
    kt_nvrtc_output out;
    char path[512];
    (void)state;
    store("error\x1b]0;owned\x07\x1b[2J here\n", path, sizeof path);
    assert_true(loads(&out));
    assert_non_null(out.log);
    assert_null(strchr(out.log, '\x1b'));
    assert_null(strchr(out.log, '\x07'));
    assert_non_null(strstr(out.log, "here\n"));
    kt_nvrtc_output_free(&out);
}

static void a_fifo_at_an_entry_is_a_miss_not_a_hang(void **state)
{
    kt_nvrtc_output out;
    char path[512];
    (void)state;
    store("", path, sizeof path);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(20); /* an older ktune blocked here forever */
    assert_false(loads(&out));
    alarm(0);
    kt_nvrtc_output_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_a_home_the_cache_is_never_in_tmp),
        cmocka_unit_test_setup_teardown(
            a_link_planted_at_a_temporary_name_is_not_followed,
            kt_test_use_fresh_cache, kt_test_remove_cache),
        cmocka_unit_test_setup_teardown(
            a_cache_folder_of_another_user_is_refused, kt_test_use_fresh_cache,
            kt_test_remove_cache),
        cmocka_unit_test_setup_teardown(
            a_folder_made_by_a_second_user_is_refused, kt_test_use_fresh_cache,
            kt_test_remove_cache),
        cmocka_unit_test_setup_teardown(
            an_entry_of_another_user_is_never_loaded, kt_test_use_fresh_cache,
            kt_test_remove_cache),
        cmocka_unit_test_setup_teardown(
            an_entry_others_may_write_is_never_loaded, kt_test_use_fresh_cache,
            kt_test_remove_cache),
        cmocka_unit_test_setup_teardown(a_changed_entry_is_never_loaded,
                                        kt_test_use_fresh_cache,
                                        kt_test_remove_cache),
        cmocka_unit_test_setup_teardown(
            a_cached_log_reaches_the_terminal_without_escapes,
            kt_test_use_fresh_cache, kt_test_remove_cache),
        cmocka_unit_test_setup_teardown(a_fifo_at_an_entry_is_a_miss_not_a_hang,
                                        kt_test_use_fresh_cache,
                                        kt_test_remove_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
