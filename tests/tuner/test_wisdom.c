// SPDX-License-Identifier: Apache-2.0
/* Wisdom files (records/wisdom.h): answers round-trip through the file as
 * libktune-select reads it; a newer answer for the same operator, device
 * and sizes replaces the older while other devices and sizes stay; an
 * older one does not; entries are checked against the loaded plugin
 * (plugin version, variant, parameters, sizes); a damaged file, a folder
 * and a symbolic link are refused and left as they were; merges from
 * several processes at once lose nothing (the lock), and the lock file
 * is gone when the writers end; a stale one from a killed writer does not
 * block the next merge, and one that is held makes it wait. */
#include "tests/tuner/tuner_test.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/version.h"
#include "records/wisdom.h"

static kt_registry reg;
static const kt_loaded_plugin *plugin;
static const kt_operator *op;

static int setup(void **state)
{
    kt_err err;
    (void)state;
    if (tt_load_plugins(&reg))
        return -1;
    return kt_registry_resolve(&reg, "vector_add:add", &plugin, &op, &err) ? -1
                                                                           : 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

/* An answer of vector_add: variant vec4 (index 3) with block and items. */
static kt_wisdom_answer answer(const char *device, const int64_t *n,
                               int64_t block, double t)
{
    kt_wisdom_answer a;
    memset(&a, 0, sizeof a);
    a.spec = "vector_add:add";
    a.plugin = plugin;
    a.op = op;
    a.device_name = device;
    a.cc_major = 9;
    a.sizes = n;
    kt_point_default(op, 3, &a.point);
    a.point.values[0] = block;
    a.point.values[1] = 2;
    a.time_us = t;
    a.ci_lo_us = t - 0.5;
    a.ci_hi_us = t + 0.5;
    return a;
}

static kt_select_wisdom *read_back(const char *path)
{
    kt_select_wisdom *w = NULL;
    kt_err err;
    if (kt_wisdom_open(path, &w, &err))
        fail_msg("%s", err.msg);
    return w;
}

static void answers_round_trip(void **state)
{
    static const int64_t n1[] = {1 << 20}, n2[] = {1 << 24};
    kt_wisdom_answer a[2] = {answer("NVIDIA H200", n2, 256, 51.5),
                             answer("NVIDIA H200", n1, 64, 7.25)};
    size_t added, replaced;
    kt_select_wisdom *w;
    const kt_select_entry *e;
    kt_err err;
    (void)state;
    unlink("rt.jsonl");
    assert_int_equal(kt_wisdom_merge("rt.jsonl", a, 2, &added, &replaced, &err),
                     KT_S_OK);
    assert_int_equal(added, 2);
    assert_int_equal(replaced, 0);
    w = read_back("rt.jsonl");
    assert_int_equal(kt_select_count(w), 2);
    e = kt_select_entry_at(w, 0); /* sorted: the smaller size first */
    assert_string_equal(e->op, "vector_add:add");
    assert_string_equal(e->plugin_version, plugin->desc.version);
    assert_string_equal(e->device, "NVIDIA H200");
    assert_int_equal(e->cc_major, 9);
    assert_int_equal(e->cc_minor, 0);
    assert_int_equal(e->num_sizes, 1);
    assert_string_equal(e->size_names[0], "n");
    assert_int_equal(e->sizes[0], 1 << 20);
    assert_string_equal(e->variant, "vec4");
    assert_int_equal(e->num_params, 2);
    assert_string_equal(e->params[0].name, "block");
    assert_int_equal(e->params[0].value, 64);
    assert_string_equal(e->params[1].name, "items");
    assert_int_equal(e->params[1].value, 2);
    assert_true(e->time_us == 7.25 && e->ci_lo_us == 6.75 &&
                e->ci_hi_us == 7.75);
    assert_string_equal(e->ktune_version, KT_VERSION);
    assert_int_equal(strlen(e->date), 20); /* 2026-12-01T08:00:00Z */
    assert_int_equal(kt_select_entry_at(w, 1)->sizes[0], 1 << 24);
    kt_select_close(w);
}

static void a_newer_answer_replaces_and_other_devices_stay(void **state)
{
    static const int64_t n[] = {1 << 20}, m[] = {1 << 22};
    kt_wisdom_answer first[2] = {answer("NVIDIA H200", n, 64, 7.0),
                                 answer("NVIDIA H200", m, 128, 20.0)};
    kt_wisdom_answer second[2] = {answer("NVIDIA H200", n, 512, 6.0),
                                  answer("NVIDIA H100 80GB HBM3", n, 32, 9.0)};
    size_t added, replaced;
    kt_select_wisdom *w;
    kt_select_config c;
    kt_err err;
    (void)state;
    unlink("merge.jsonl");
    assert_int_equal(
        kt_wisdom_merge("merge.jsonl", first, 2, &added, &replaced, &err),
        KT_S_OK);
    assert_int_equal(
        kt_wisdom_merge("merge.jsonl", second, 2, &added, &replaced, &err),
        KT_S_OK);
    assert_int_equal(added, 1);
    assert_int_equal(replaced, 1);
    w = read_back("merge.jsonl");
    assert_int_equal(kt_select_count(w), 3);
    assert_int_equal(kt_select(w, "vector_add:add", "NVIDIA H200", n, 1, &c),
                     KT_SELECT_OK);
    assert_int_equal(kt_select_get(&c, "block", 0), 512);
    assert_true(c.entry->time_us == 6.0);
    assert_int_equal(kt_select(w, "vector_add:add", "NVIDIA H200", m, 1, &c),
                     KT_SELECT_OK);
    assert_int_equal(kt_select_get(&c, "block", 0), 128);
    assert_int_equal(
        kt_select(w, "vector_add:add", "NVIDIA H100 80GB HBM3", n, 1, &c),
        KT_SELECT_OK);
    assert_int_equal(kt_select_get(&c, "block", 0), 32);
    kt_select_close(w);
}

static void an_older_answer_does_not_replace_a_newer_one(void **state)
{
    static const int64_t n[] = {1 << 20};
    kt_wisdom_answer a = answer("NVIDIA H200", n, 64, 7.0);
    size_t added, replaced;
    kt_select_wisdom *w;
    kt_err err;
    (void)state;
    tt_write("future.jsonl",
             "{\"ktune_wisdom\":1}\n"
             "{\"operator\":\"vector_add:add\",\"device\":\"nvidia h200\","
             "\"cc\":\"9.0\",\"sizes\":{\"n\":1048576},\"variant\":"
             "\"coalesced\",\"params\":{\"block\":1024},"
             "\"date\":\"2999-01-01T00:00:00Z\"}\n");
    assert_int_equal(
        kt_wisdom_merge("future.jsonl", &a, 1, &added, &replaced, &err),
        KT_S_OK);
    assert_int_equal(added + replaced, 0);
    w = read_back("future.jsonl");
    assert_int_equal(kt_select_count(w), 1);
    assert_string_equal(kt_select_entry_at(w, 0)->variant, "coalesced");
    kt_select_close(w);
}

typedef struct stale_case {
    const char *entry; /* the fields after operator */
    kt_wisdom_state state;
    const char *why;
} stale_case;

static void entries_are_checked_against_the_plugin(void **state)
{
    char version[64];
    char line[1024];
    const stale_case cases[] = {
        {"\"sizes\":{\"n\":64},\"variant\":\"vec4\",\"params\":{\"block\":"
         "64,\"items\":2}",
         KT_WISDOM_CURRENT, ""},
        {"\"sizes\":{\"n\":64},\"variant\":\"vec5\",\"params\":{}",
         KT_WISDOM_STALE, "vec5"},
        {"\"sizes\":{\"n\":64},\"variant\":\"vec4\",\"params\":{\"block\":"
         "64,\"items\":2,\"unroll\":4}",
         KT_WISDOM_STALE, "no parameter unroll"},
        {"\"sizes\":{\"n\":64},\"variant\":\"vec4\",\"params\":{\"block\":"
         "64}",
         KT_WISDOM_STALE, "has 2 parameter(s) now, the entry 1"},
        {"\"sizes\":{\"n\":64},\"variant\":\"vec4\",\"params\":{\"block\":"
         "48,\"items\":2}",
         KT_WISDOM_STALE, "no longer valid"},
        {"\"sizes\":{\"m\":64},\"variant\":\"vec4\",\"params\":{}",
         KT_WISDOM_STALE, "sizes"},
    };
    (void)state;
    snprintf(version, sizeof version, "%s", plugin->desc.version);
    for (size_t i = 0; i <= sizeof cases / sizeof cases[0]; ++i) {
        /* the last round: the same entry under another plugin version */
        const stale_case *k = &cases[i < 6 ? i : 0];
        kt_select_wisdom *w;
        char why[512];
        kt_wisdom_state s;
        snprintf(line, sizeof line,
                 "{\"ktune_wisdom\":1}\n{\"operator\":\"vector_add:add\","
                 "\"plugin_version\":\"%s\",\"device\":\"D\",\"cc\":\"9.0\","
                 "%s}\n",
                 i < 6 ? version : "0.0.1", k->entry);
        tt_write("check.jsonl", line);
        w = read_back("check.jsonl");
        s = kt_wisdom_check(&reg, kt_select_entry_at(w, 0), why, sizeof why);
        if (i < 6) {
            assert_int_equal(s, k->state);
            assert_contains(why, k->why);
        } else {
            assert_int_equal(s, KT_WISDOM_STALE);
            assert_contains(why, "tuned with 0.0.1: tune again");
        }
        kt_select_close(w);
    }
    tt_write("check.jsonl",
             "{\"ktune_wisdom\":1}\n{\"operator\":\"nosuch:op\",\"device\":"
             "\"D\",\"cc\":\"9.0\",\"sizes\":{\"n\":1},\"variant\":\"v\","
             "\"params\":{}}\n");
    {
        kt_select_wisdom *w = read_back("check.jsonl");
        char why[512];
        assert_int_equal(
            kt_wisdom_check(&reg, kt_select_entry_at(w, 0), why, sizeof why),
            KT_WISDOM_UNKNOWN);
        kt_select_close(w);
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 1 << 16);
    if (f && buf)
        (void)!fread(buf, 1, (1 << 16) - 1, f);
    if (f)
        fclose(f);
    return buf;
}

static void damaged_and_irregular_files_are_left_alone(void **state)
{
    static const int64_t n[] = {1 << 20};
    kt_wisdom_answer a = answer("NVIDIA H200", n, 64, 7.0);
    kt_err err;
    char *before, *after;
    (void)state;
    tt_write("torn.jsonl", "{\"ktune_wisdom\":1}\n{\"operator\":\"vec");
    before = slurp("torn.jsonl");
    assert_int_equal(kt_wisdom_merge("torn.jsonl", &a, 1, NULL, NULL, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "will not overwrite a damaged wisdom file");
    assert_contains(err.msg, "torn.jsonl:2:");
    after = slurp("torn.jsonl");
    assert_string_equal(before, after);
    free(before);
    free(after);
    rmdir("adir.jsonl");
    assert_int_equal(mkdir("adir.jsonl", 0755), 0);
    assert_int_equal(kt_wisdom_merge("adir.jsonl", &a, 1, NULL, NULL, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "not a regular file");
    unlink("alink.jsonl");
    tt_write("target.jsonl", "{\"ktune_wisdom\":1}\n");
    assert_int_equal(symlink("target.jsonl", "alink.jsonl"), 0);
    assert_int_equal(kt_wisdom_merge("alink.jsonl", &a, 1, NULL, NULL, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "not a regular file");
    before = slurp("target.jsonl");
    assert_string_equal(before, "{\"ktune_wisdom\":1}\n");
    free(before);
    assert_int_equal(kt_wisdom_merge("nodir/w.jsonl", &a, 1, NULL, NULL, &err),
                     KT_S_IO);
}

static void concurrent_merges_lose_nothing(void **state)
{
    enum { PROCS = 6, EACH = 20 };
    pid_t pids[PROCS];
    kt_select_wisdom *w;
    (void)state;
    unlink("many.jsonl");
    for (int p = 0; p < PROCS; ++p) {
        pids[p] = fork();
        assert_true(pids[p] >= 0);
        if (pids[p] == 0) {
            for (int i = 0; i < EACH; ++i) {
                int64_t n[] = {1 + p * EACH + i};
                kt_wisdom_answer a = answer("NVIDIA H200", n, 64, 1.0);
                kt_err err;
                if (kt_wisdom_merge("many.jsonl", &a, 1, NULL, NULL, &err))
                    _exit(1);
            }
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; ++p) {
        int status;
        assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    w = read_back("many.jsonl");
    assert_int_equal(kt_select_count(w), PROCS * EACH);
    kt_select_close(w);
    assert_int_equal(access("many.jsonl.lock", F_OK), -1);
}

/* Issue 53, N19: links planted at the names a merge writes. The temporary
 * file an older ktune wrote (FILE.tmp.PID) pointing at a victim: the
 * victim keeps its bytes; FILE.lock pointing at a missing file: refused,
 * and nothing is created through it. */
static void links_at_the_temporary_and_lock_names_are_not_followed(void **s)
{
    int64_t n[] = {64};
    kt_wisdom_answer a = answer("NVIDIA H200", n, 64, 1.0);
    char tmp[64], *got;
    kt_err err;
    (void)s;
    unlink("plant.jsonl");
    tt_write("victim.txt", "precious");
    snprintf(tmp, sizeof tmp, "plant.jsonl.tmp.%ld", (long)getpid());
    unlink(tmp);
    assert_int_equal(symlink("victim.txt", tmp), 0);
    assert_int_equal(kt_wisdom_merge("plant.jsonl", &a, 1, NULL, NULL, &err),
                     KT_S_OK);
    got = slurp("victim.txt");
    assert_string_equal(got, "precious");
    free(got);
    unlink(tmp);
    unlink("made_by_link.txt");
    unlink("plant2.jsonl.lock");
    assert_int_equal(symlink("made_by_link.txt", "plant2.jsonl.lock"), 0);
    assert_int_equal(kt_wisdom_merge("plant2.jsonl", &a, 1, NULL, NULL, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "link");
    assert_int_equal(access("made_by_link.txt", F_OK), -1);
    unlink("plant2.jsonl.lock");
}

/* A writer killed while merging leaves FILE.lock behind, locked by nobody. */
static void a_stale_lock_file_blocks_nothing(void **state)
{
    int64_t n[] = {64};
    kt_wisdom_answer a = answer("NVIDIA H200", n, 64, 1.0);
    kt_err err;
    int fd;
    (void)state;
    unlink("stale.jsonl");
    fd = open("stale.jsonl.lock", O_RDWR | O_CREAT, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(kt_wisdom_merge("stale.jsonl", &a, 1, NULL, NULL, &err),
                     KT_S_OK);
    assert_int_equal(access("stale.jsonl.lock", F_OK), -1);
}

/* A lock held by another process: the merge waits for it, then lands. */
static void a_held_lock_makes_the_merge_wait(void **state)
{
    int64_t n[] = {64};
    kt_wisdom_answer a = answer("NVIDIA H200", n, 64, 1.0);
    int ready[2], status;
    char c;
    struct timespec t0, t1;
    kt_err err;
    pid_t pid;
    (void)state;
    unlink("held.jsonl");
    assert_int_equal(pipe(ready), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("held.jsonl.lock", O_RDWR | O_CREAT, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(ready[1], "x", 1) != 1)
            _exit(1);
        usleep(300 * 1000);
        _exit(0); /* the kernel drops the lock; the file stays */
    }
    close(ready[1]);
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(kt_wisdom_merge("held.jsonl", &a, 1, NULL, NULL, &err),
                     KT_S_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true((t1.tv_sec - t0.tv_sec) * 1000 +
                    (t1.tv_nsec - t0.tv_nsec) / 1000000 >=
                200);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(access("held.jsonl.lock", F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(answers_round_trip),
        cmocka_unit_test(a_newer_answer_replaces_and_other_devices_stay),
        cmocka_unit_test(an_older_answer_does_not_replace_a_newer_one),
        cmocka_unit_test(entries_are_checked_against_the_plugin),
        cmocka_unit_test(damaged_and_irregular_files_are_left_alone),
        cmocka_unit_test(concurrent_merges_lose_nothing),
        cmocka_unit_test(a_stale_lock_file_blocks_nothing),
        cmocka_unit_test(
            links_at_the_temporary_and_lock_names_are_not_followed),
        cmocka_unit_test(a_held_lock_makes_the_merge_wait),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
