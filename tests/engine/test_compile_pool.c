// SPDX-License-Identifier: Apache-2.0
/* The compile pool without a GPU and without NVRTC's cost: a fake compiler
 * that records what it compiled, in which order, and can be held at a
 * gate, sleep, or crash its process. Ordering (newest hint first),
 * dedup in flight (by kernel and by code key), N compiles on K threads, the
 * taker compiling what no thread started, cancellation at close and crash
 * containment through the markers. */
#include "tests/kt_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/loader.h"
#include "engine/compile_hints.h"
#include "engine/compile_pool.h"
#include "engine/declared_run.h"

typedef struct fake {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int gate_closed;    /* compiles of "held" wait while set */
    int sleep_ms;       /* every compile sleeps this long */
    char order[64][16]; /* name expressions in the order compiled */
    size_t started;
    const char *crash; /* this name kills the process */
} fake;

static fake g_fake;

static kt_status fake_compile(void *ctx, const kt_nvrtc_request *req,
                              kt_nvrtc_output *out, kt_err *err)
{
    fake *f = ctx;
    (void)err;
    /* SIGKILL: nothing (cmocka's handlers included) can catch it. */
    if (f->crash && strcmp(req->name_expr, f->crash) == 0)
        raise(SIGKILL);
    pthread_mutex_lock(&f->lock);
    if (f->started < 64)
        snprintf(f->order[f->started], sizeof f->order[0], "%s",
                 req->name_expr);
    ++f->started;
    pthread_cond_broadcast(&f->cond);
    while (f->gate_closed && strcmp(req->name_expr, "held") == 0)
        pthread_cond_wait(&f->cond, &f->lock);
    pthread_mutex_unlock(&f->lock);
    if (f->sleep_ms)
        usleep((useconds_t)f->sleep_ms * 1000);
    memset(out, 0, sizeof *out);
    out->compiled = 1;
    out->image = strdup(req->name_expr);
    out->image_size = strlen(req->name_expr);
    out->lowered = strdup(req->name_expr);
    out->log = strdup("");
    return KT_S_OK;
}

static void reset_fake(void)
{
    pthread_mutex_destroy(&g_fake.lock);
    pthread_cond_destroy(&g_fake.cond);
    memset(&g_fake, 0, sizeof g_fake);
    pthread_mutex_init(&g_fake.lock, NULL);
    pthread_cond_init(&g_fake.cond, NULL);
}

static void wait_started(size_t n)
{
    pthread_mutex_lock(&g_fake.lock);
    while (g_fake.started < n)
        pthread_cond_wait(&g_fake.cond, &g_fake.lock);
    pthread_mutex_unlock(&g_fake.lock);
}

static void open_gate(void)
{
    pthread_mutex_lock(&g_fake.lock);
    g_fake.gate_closed = 0;
    pthread_cond_broadcast(&g_fake.cond);
    pthread_mutex_unlock(&g_fake.lock);
}

static kt_nvrtc_request req_of(const char *name)
{
    return (kt_nvrtc_request){
        "__global__ void k() {}", "k.cu", name, "sm_90", NULL, 0};
}

static kt_cpool *open_pool(int threads, const char *markers)
{
    kt_cpool_options opt = {threads, markers, fake_compile, &g_fake};
    kt_cpool *p = NULL;
    kt_err err;
    assert_int_equal(kt_cpool_open(&opt, &p, &err), KT_S_OK);
    return p;
}

static void take(kt_cpool *p, const char *name)
{
    kt_nvrtc_request r = req_of(name);
    kt_nvrtc_output out;
    kt_err err;
    assert_int_equal(kt_cpool_compile(p, &r, &out, NULL, &err), KT_S_OK);
    assert_true(out.compiled);
    assert_string_equal(out.image, name);
    kt_nvrtc_output_free(&out);
}

static void newer_hints_compile_first(void **state)
{
    kt_nvrtc_request a[3] = {req_of("held"), req_of("b"), req_of("c")};
    kt_nvrtc_request d[2] = {req_of("d"), req_of("e")};
    const char *want[] = {"held", "d", "e", "b", "c"};
    kt_cpool *p;
    (void)state;

    reset_fake();
    g_fake.gate_closed = 1;
    p = open_pool(1, "");
    assert_int_equal(kt_cpool_hint(p, a, 3), 3);
    wait_started(1); /* the one thread holds "held" */
    assert_int_equal(kt_cpool_hint(p, d, 2), 2);
    open_gate();
    wait_started(5);
    for (size_t i = 0; i < 5; ++i)
        assert_string_equal(g_fake.order[i], want[i]);
    kt_cpool_close(p);
}

/* A kernel named by its key alone (engine/compile_hints.h: a point hinted
 * before) moves forward as its request would; a key the pool never queued
 * is reported unknown and queues nothing, so the caller builds the request
 * again. */
static void
a_key_alone_moves_its_kernel_and_an_unknown_one_is_told(void **state)
{
    kt_nvrtc_request a[3] = {req_of("held"), req_of("b"), req_of("c")};
    kt_nvrtc_request bare = {NULL, "k.cu", "", "sm_90", NULL, 0};
    kt_nvrtc_request again[2] = {bare, bare};
    kt_nvrtc_request other = req_of("never");
    char keys[3][33] = {{0}}, by_key[2][33] = {{0}};
    unsigned char unknown[2] = {0, 0};
    const char *want[] = {"held", "c", "b"};
    kt_cpool_stats st;
    kt_cpool *p;
    kt_err err;
    (void)state;

    reset_fake();
    g_fake.gate_closed = 1;
    p = open_pool(1, "");
    assert_int_equal(kt_cpool_hint_keyed(p, a, keys, NULL, 3), 3);
    for (size_t i = 0; i < 3; ++i) /* the pool computed each key */
        assert_int_equal(strlen(keys[i]), 32);
    wait_started(1);
    memcpy(by_key[0], keys[2], 33); /* c, queued */
    assert_int_equal(kt_nvrtc_key(&other, by_key[1], &err), KT_S_OK);
    assert_int_equal(kt_cpool_hint_keyed(p, again, by_key, unknown, 2), 0);
    assert_int_equal(unknown[0], 0);
    assert_int_equal(unknown[1], 1);
    open_gate();
    wait_started(3);
    for (size_t i = 0; i < 3; ++i)
        assert_string_equal(g_fake.order[i], want[i]);
    kt_cpool_stats_get(p, &st);
    assert_int_equal(st.hinted, 3);
    kt_cpool_close(p);
}

static void one_compile_per_kernel_queued_running_or_done(void **state)
{
    kt_nvrtc_request r[4] = {req_of("x"), req_of("y"), req_of("x"),
                             req_of("y")};
    kt_cpool_stats st;
    kt_cpool *p;
    (void)state;

    reset_fake();
    g_fake.sleep_ms = 50;
    p = open_pool(2, "");
    assert_int_equal(kt_cpool_hint(p, r, 4), 2); /* duplicates joined */
    assert_int_equal(kt_cpool_hint(p, r, 2), 0);
    take(p, "x"); /* running or done: joined, never compiled again */
    take(p, "y");
    kt_cpool_stats_get(p, &st);
    assert_int_equal(st.compiled, 2);
    assert_int_equal(g_fake.started, 2);
    kt_cpool_close(p);
}

static void n_compiles_run_on_k_threads_at_once(void **state)
{
    kt_nvrtc_request r[8];
    char names[8][8];
    kt_cpool_stats st;
    kt_cpool *p;
    double t0, wall;
    (void)state;

    reset_fake();
    g_fake.sleep_ms = 200;
    p = open_pool(4, "");
    for (int i = 0; i < 8; ++i) {
        snprintf(names[i], sizeof names[i], "k%d", i);
        r[i] = req_of(names[i]);
    }
    t0 = kt_clock_seconds();
    assert_int_equal(kt_cpool_hint(p, r, 8), 8);
    for (int i = 0; i < 8; ++i)
        take(p, names[i]);
    wall = kt_clock_seconds() - t0;
    kt_cpool_stats_get(p, &st);
    /* 8 x 200 ms on 4 threads: two rounds, not eight. */
    assert_true(wall < 1.2);
    assert_true(wall >= 0.39);
    /* The 4 threads, and the taker when it takes a kernel none started. */
    assert_true(st.peak_running >= 4 && st.peak_running <= 5);
    assert_int_equal(st.threads, 4);
    assert_true(st.busy_s >= 0.39 && st.busy_s <= wall + 0.01);
    assert_true(st.compile_s >= 1.5); /* summed: eight compiles */
    kt_cpool_close(p);
}

/* What the verification needs now is compiled at once by the taker when
 * no thread has started it, never queued behind older hints. */
static void the_taker_compiles_what_no_thread_started(void **state)
{
    kt_nvrtc_request r[2] = {req_of("held"), req_of("now")};
    kt_cpool_stats st;
    kt_cpool *p;
    (void)state;

    reset_fake();
    g_fake.gate_closed = 1;
    p = open_pool(1, "");
    assert_int_equal(kt_cpool_hint(p, r, 2), 2);
    wait_started(1);
    take(p, "now"); /* returns while the only thread is held */
    kt_cpool_stats_get(p, &st);
    assert_int_equal(st.compiled, 1);
    open_gate();
    kt_cpool_close(p);
}

static void compiles_nobody_takes_are_dropped_at_close(void **state)
{
    double t0;
    kt_nvrtc_request r[5] = {req_of("a"), req_of("b"), req_of("c"), req_of("d"),
                             req_of("e")};
    kt_cpool *p;
    (void)state;

    char dir[128], cmd[200];
    kt_nvrtc_output out;
    kt_err err;

    snprintf(dir, sizeof dir, "/tmp/ktune-test-cpool-drop-%ld", (long)getpid());
    reset_fake();
    g_fake.sleep_ms = 300;
    p = open_pool(1, dir);
    assert_int_equal(kt_cpool_hint(p, r, 5), 5);
    wait_started(1);
    t0 = kt_clock_seconds();
    kt_cpool_close(p); /* drops the rest, does not wait for "a" */
    assert_true(kt_clock_seconds() - t0 < 0.2);
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q compiling", dir);
    assert_int_not_equal(system(cmd), 0); /* no marker while "a" runs on */
    usleep(500000); /* "a" ends; its thread frees the pool */
    assert_int_equal(g_fake.started, 1);
    /* A compile the close left running is no crash: its marker is gone,
     * so the next pool compiles "a" (stopped by an exit, it would have
     * left none either). */
    g_fake.sleep_ms = 0;
    p = open_pool(1, dir);
    assert_int_equal(kt_cpool_compile(p, &r[0], &out, NULL, &err), KT_S_OK);
    assert_true(out.compiled);
    kt_nvrtc_output_free(&out);
    kt_cpool_close(p);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void a_kernel_that_killed_its_compiler_is_not_compiled_again(void **s)
{
    char dir[128], cmd[200];
    kt_nvrtc_request r = req_of("boom");
    kt_nvrtc_output out;
    kt_cpool_stats st;
    kt_cpool *p;
    kt_err err;
    int status = 0;
    pid_t pid;
    (void)s;

    snprintf(dir, sizeof dir, "/tmp/ktune-test-cpool-%ld", (long)getpid());
    reset_fake();
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        g_fake.crash = "boom";
        p = open_pool(2, dir);
        kt_cpool_hint(p, &r, 1);
        sleep(5); /* the thread's compile ends this process first */
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    p = open_pool(2, dir);
    assert_int_equal(kt_cpool_compile(p, &r, &out, NULL, &err), KT_S_OK);
    assert_false(out.compiled);
    assert_contains(out.log, "the compiler died on this kernel");
    kt_nvrtc_output_free(&out);
    kt_cpool_stats_get(p, &st);
    assert_int_equal(st.died, 1);
    assert_int_equal(g_fake.started, 0);
    kt_cpool_close(p);
    /* The marker is gone with that answer: a later run tries again. */
    p = open_pool(2, dir);
    take(p, "boom");
    kt_cpool_close(p);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The evaluator finds what a point of a declared operator compiles from
 * the registry's copy of its descriptor (what a worker resolves), and
 * nothing for an operator that is not declared. */
static void a_declared_point_names_its_kernel_through_the_registry(void **s)
{
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_registry reg;
    kt_decl_request b;
    kt_nvrtc_request req;
    int64_t sizes[KT_MAX_SIZES] = {1000}, values[KT_MAX_PARAMS] = {2};
    kt_loaded_plugin other;
    kt_err err;
    (void)s;

    kt_registry_init(&reg);
    assert_int_equal(
        kt_registry_load_file(
            &reg, KT_SOURCE_DIR "/tests/declared/compile_error.ini", &err),
        KT_S_OK);
    assert_int_equal(
        kt_registry_resolve(&reg, "twice_ct:twice_ct", &lp, &op, &err),
        KT_S_OK);
    assert_true(kt_declared_compile_request(lp, 0, sizes, values, "sm_90", 0,
                                            &b, &req));
    assert_string_equal(req.name_expr, "twice<2>");
    assert_string_equal(req.arch, "sm_90");
    assert_non_null(strstr(req.source, "ITEMS = 3 is refused"));
    free(b.src);
    other = *lp;
    other.kind = NULL; /* the same descriptor, not loaded as a declaration */
    assert_false(kt_declared_compile_request(&other, 0, sizes, values, "sm_90",
                                             0, &b, &req));
    assert_false(kt_declared_compile_request(NULL, 0, sizes, values, "sm_90", 0,
                                             &b, &req));
    kt_registry_free(&reg);
}

/* A prepare that gives every name starting with 's' one code key. */
static kt_status fake_prepare(void *ctx, const kt_nvrtc_request *req,
                              kt_nvrtc_output *out, kt_err *err)
{
    (void)ctx;
    (void)err;
    memset(out, 0, sizeof *out);
    snprintf(out->code, sizeof out->code, "%s",
             req->name_expr[0] == 's' ? "same" : "");
    return KT_S_OK;
}

/* Kernels of one code key (kt_nvrtc_prepare: -D values the source does
 * not read) compile once: while the first compiles, the others' threads
 * move on and their jobs get copies of its answer; a kernel of no code
 * key compiles on its own. */
static void kernels_of_one_code_key_compile_once(void **state)
{
    kt_nvrtc_request r[4] = {req_of("s1"), req_of("s2"), req_of("s3"),
                             req_of("other")};
    kt_cpool_options opt = {4, "", fake_compile, &g_fake, fake_prepare};
    char first[16] = "";
    size_t shared = 0;
    kt_cpool_stats st;
    kt_cpool *p;
    kt_err err;
    (void)state;

    reset_fake();
    g_fake.sleep_ms = 300; /* the leader compiles while the others prepare */
    assert_int_equal(kt_cpool_open(&opt, &p, &err), KT_S_OK);
    assert_int_equal(kt_cpool_hint(p, r, 4), 4);
    for (size_t i = 0; i < 4; ++i) {
        kt_nvrtc_output out;
        assert_int_equal(kt_cpool_compile(p, &r[i], &out, NULL, &err), KT_S_OK);
        assert_true(out.compiled);
        if (i < 3 && !first[0])
            snprintf(first, sizeof first, "%s", out.image);
        /* The leader's image, whichever of the three led. */
        assert_string_equal(out.image, i < 3 ? first : "other");
        shared += (size_t)out.shared;
        kt_nvrtc_output_free(&out);
    }
    assert_int_equal(g_fake.started, 2);
    assert_int_equal(shared, 2);
    kt_cpool_stats_get(p, &st);
    assert_int_equal(st.compiled, 2);
    assert_int_equal(st.shared, 2);
    kt_cpool_close(p);
}

/* A point's then-kernel is hinted too where it is compiled on its own (a
 * template, tests/declared/then's first_timed), and not where it comes
 * from the first kernel's module (two_pass's extern "C" total). */
/* tests/declared/then/block_sums.ini loaded into reg: its plugin. */
static const kt_loaded_plugin *load_block_sums(kt_registry *reg)
{
    const kt_loaded_plugin *lp;
    const kt_operator *op;
    kt_err err;

    kt_registry_init(reg);
    assert_int_equal(
        kt_registry_load_file(
            reg, KT_SOURCE_DIR "/tests/declared/then/block_sums.ini", &err),
        KT_S_OK);
    assert_int_equal(kt_registry_resolve(reg, "block_sums", &lp, &op, &err),
                     KT_S_OK);
    return lp;
}

static void a_template_then_kernel_is_a_request_of_its_own(void **s)
{
    kt_registry reg;
    const kt_loaded_plugin *lp = load_block_sums(&reg);
    kt_decl_request b;
    kt_nvrtc_request req;
    int64_t sizes[KT_MAX_SIZES] = {1000}, values[KT_MAX_PARAMS] = {64, 2, 512};
    (void)s;

    assert_false(kt_declared_compile_request(lp, 0, sizes, values, "sm_90", 1,
                                             &b, &req));
    assert_true(kt_declared_compile_request(lp, 1, sizes, values, "sm_90", 1,
                                            &b, &req));
    assert_string_equal(req.name_expr, "total_t<512>");
    assert_non_null(strstr(req.source, "as then.args declares"));
    free(b.src);
    assert_true(kt_declared_compile_request(lp, 1, sizes, values, "sm_90", 0,
                                            &b, &req));
    assert_string_equal(req.name_expr, "partial_sums");
    free(b.src);
    kt_registry_free(&reg);
}

static size_t hinted(kt_cpool *p)
{
    kt_cpool_stats st;
    kt_cpool_stats_get(p, &st);
    return st.hinted;
}

/* kt_chints keeps each point's keys: hinted again, a point costs no
 * request (a pool that knows its kernels queues nothing new); a pool that
 * does not know them reports so, and the next hint builds the requests
 * again. Two points of a variant with a template then-kernel: two kernels
 * each. */
static void hints_keep_keys_and_rebuild_what_a_pool_does_not_know(void **s)
{
    const kt_loaded_plugin *lp;
    kt_registry reg;
    int64_t sizes[KT_MAX_SIZES] = {1000};
    kt_point pts[2] = {{.variant = 1, .count = 3, .values = {64, 2, 512}},
                       {.variant = 1, .count = 3, .values = {256, 4, 128}}};
    kt_chints h;
    kt_cpool *a, *b;
    (void)s;

    reset_fake();
    lp = load_block_sums(&reg);
    kt_chints_init(&h, lp, sizes, "sm_90");
    a = open_pool(1, "");
    b = open_pool(1, "");
    kt_chints_give(&h, a, pts, 2);
    assert_int_equal(hinted(a), 4);
    kt_chints_give(&h, a, pts, 2);
    assert_int_equal(hinted(a), 4);
    kt_chints_give(&h, b, pts, 2); /* keys alone: b knows none */
    assert_int_equal(hinted(b), 0);
    kt_chints_give(&h, b, pts, 2);
    assert_int_equal(hinted(b), 4);
    kt_cpool_close(a);
    kt_cpool_close(b);
    kt_chints_free(&h);
    kt_registry_free(&reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(newer_hints_compile_first),
        cmocka_unit_test(
            a_key_alone_moves_its_kernel_and_an_unknown_one_is_told),
        cmocka_unit_test(one_compile_per_kernel_queued_running_or_done),
        cmocka_unit_test(n_compiles_run_on_k_threads_at_once),
        cmocka_unit_test(the_taker_compiles_what_no_thread_started),
        cmocka_unit_test(compiles_nobody_takes_are_dropped_at_close),
        cmocka_unit_test(
            a_kernel_that_killed_its_compiler_is_not_compiled_again),
        cmocka_unit_test(
            a_declared_point_names_its_kernel_through_the_registry),
        cmocka_unit_test(a_template_then_kernel_is_a_request_of_its_own),
        cmocka_unit_test(kernels_of_one_code_key_compile_once),
        cmocka_unit_test(hints_keep_keys_and_rebuild_what_a_pool_does_not_know),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
