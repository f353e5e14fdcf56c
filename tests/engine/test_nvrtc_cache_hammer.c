// SPDX-License-Identifier: Apache-2.0
/* One NVRTC cache folder, several processes at once: writers of the same
 * keys, readers, and a vandal that leaves cut-short and overwritten files
 * at the entries' own names (what a process killed mid-write by another
 * program, or a full disk, leaves). No reader may ever take a wrong
 * entry: a damaged one is a miss (noted), whole ones are byte-exact, and
 * no temporary file outlives its writer. */
#include "tests/kt_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rng.h"
#include "engine/nvrtc.h"

#define KEYS 8
#define WRITERS 6
#define ROUNDS 300

static char cache[256];

static kt_nvrtc_request request(int k, char *name, size_t size)
{
    snprintf(name, size, "k<%d>", k);
    return (kt_nvrtc_request){"template <int N> __global__ void k() {}",
                              "k.cu",
                              name,
                              "sm_90",
                              NULL,
                              0};
}

/* Entry k's image: sizes from 1 KiB to about 300 KiB, so a write spans
 * many blocks; every byte a function of k and its place. */
static size_t image_of(int k, char **out)
{
    size_t n = 1024 + (size_t)k * 40000;
    char *p = malloc(n);
    for (size_t i = 0; p && i < n; ++i)
        p[i] = (char)((i * 31 + (size_t)k * 7) & 0xff);
    *out = p;
    return n;
}

/* 0 when every read was whole and right; 1 on a wrong entry. */
static int hammer(int who)
{
    kt_rng rng;
    kt_rng_seed(&rng, 1000 + (uint64_t)who);
    for (int r = 0; r < ROUNDS; ++r) {
        int k = (int)kt_rng_below(&rng, KEYS);
        char name[32], *want;
        kt_nvrtc_request req = request(k, name, sizeof name);
        size_t n = image_of(k, &want);
        kt_nvrtc_output out;
        kt_err err;
        int bad = 0;
        if (kt_nvrtc_cache_load(&req, &out, &err))
            return 1;
        if (out.cached)
            bad = out.image_size != n || memcmp(out.image, want, n) != 0 ||
                  strcmp(out.lowered, name) != 0;
        else {
            kt_nvrtc_output w = {.compiled = 1,
                                 .image = want,
                                 .image_size = n,
                                 .lowered = name,
                                 .log = (char *)""};
            if (kt_nvrtc_cache_store(&req, &w, &err))
                bad = 1;
        }
        kt_nvrtc_output_free(&out);
        free(want);
        if (bad)
            return 1;
    }
    return 0;
}

/* Writes damage straight to the entries' names (no rename): a cut-short
 * copy of a whole entry, or garbage. */
static int vandal(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 7);
    for (int r = 0; r < ROUNDS / 3; ++r) {
        int k = (int)kt_rng_below(&rng, KEYS);
        char name[32], key[33], path[512], junk[4096];
        kt_nvrtc_request req = request(k, name, sizeof name);
        kt_err err;
        FILE *f;
        if (kt_nvrtc_key(&req, key, &err))
            return 1;
        snprintf(path, sizeof path, "%s/nvrtc/%s.bin", cache, key);
        memset(junk, 'x', sizeof junk);
        memcpy(junk, "KTNVRTC1", 8); /* right magic, wrong lengths */
        if ((f = fopen(path, "wb"))) {
            fwrite(junk, 1, 8 + kt_rng_below(&rng, sizeof junk - 8), f);
            fclose(f);
        }
        usleep(2000);
    }
    return 0;
}

static void processes_share_one_cache_folder_safely(void **state)
{
    pid_t pids[WRITERS + 1];
    char dir[300];
    DIR *d;
    struct dirent *e;
    size_t tmp = 0;
    (void)state;

    snprintf(cache, sizeof cache, "/tmp/ktune-test-hammer-%ld", (long)getpid());
    setenv("KTUNE_CACHE_DIR", cache, 1);
    unsetenv("KTUNE_NVRTC_CACHE");
    for (int i = 0; i <= WRITERS; ++i) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0)
            _exit(i == WRITERS ? vandal() : hammer(i));
    }
    for (int i = 0; i <= WRITERS; ++i) {
        int status = 0;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0); /* no wrong entry read */
    }
    /* After the vandal, one more pass repairs what it left; then every
     * entry is whole. */
    assert_int_equal(hammer(99), 0);
    for (int k = 0; k < KEYS; ++k) {
        char name[32], *want;
        kt_nvrtc_request req = request(k, name, sizeof name);
        size_t n = image_of(k, &want);
        kt_nvrtc_output out;
        kt_err err;
        assert_int_equal(kt_nvrtc_cache_load(&req, &out, &err), KT_S_OK);
        if (!out.cached) { /* the vandal had the last word: store, reread */
            kt_nvrtc_output w = {.compiled = 1,
                                 .image = want,
                                 .image_size = n,
                                 .lowered = name,
                                 .log = (char *)""};
            assert_int_equal(kt_nvrtc_cache_store(&req, &w, &err), KT_S_OK);
            assert_int_equal(kt_nvrtc_cache_load(&req, &out, &err), KT_S_OK);
        }
        assert_true(out.cached);
        assert_int_equal(out.image_size, n);
        assert_memory_equal(out.image, want, n);
        kt_nvrtc_output_free(&out);
        free(want);
    }
    snprintf(dir, sizeof dir, "%s/nvrtc", cache);
    assert_non_null(d = opendir(dir));
    while ((e = readdir(d)))
        tmp += strstr(e->d_name, ".tmp") != NULL;
    closedir(d);
    assert_int_equal(tmp, 0);
    snprintf(dir, sizeof dir, "rm -rf '%s'", cache);
    assert_int_equal(system(dir), 0);
}

/* A reader of a damaged entry gets a miss that says so. */
static void a_damaged_entry_is_a_miss_with_a_note(void **state)
{
    char name[32], key[33], path[512], *want;
    kt_nvrtc_request req = request(3, name, sizeof name);
    size_t n = image_of(3, &want);
    kt_nvrtc_output w = {.compiled = 1,
                         .image = want,
                         .image_size = n,
                         .lowered = name,
                         .log = (char *)""};
    kt_nvrtc_output out;
    kt_err err;
    (void)state;

    snprintf(cache, sizeof cache, "/tmp/ktune-test-damage-%ld", (long)getpid());
    setenv("KTUNE_CACHE_DIR", cache, 1);
    assert_int_equal(kt_nvrtc_cache_store(&req, &w, &err), KT_S_OK);
    assert_int_equal(kt_nvrtc_key(&req, key, &err), KT_S_OK);
    snprintf(path, sizeof path, "%s/nvrtc/%s.bin", cache, key);
    assert_int_equal(truncate(path, 500), 0); /* cut short */
    assert_int_equal(kt_nvrtc_cache_load(&req, &out, &err), KT_S_OK);
    assert_false(out.cached);
    assert_true(out.damaged);
    kt_nvrtc_output_free(&out);
    free(want);
    snprintf(path, sizeof path, "rm -rf '%s'", cache);
    assert_int_equal(system(path), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(processes_share_one_cache_folder_safely),
        cmocka_unit_test(a_damaged_entry_is_a_miss_with_a_note),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
