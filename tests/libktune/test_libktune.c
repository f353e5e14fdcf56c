/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libktune without a GPU: bad arguments refused with messages naming them,
 * a declaration mistake refused with the parser's own message, the
 * transpose example declared through the API counted like its INI file
 * and, replayed from one recording with one seed, searched along the same
 * path as `ktune tune transpose.ini --replay` (one code path), results read
 * through the accessors, another tool's recording replayed, an estimated
 * count read as a number, host arrays held in shared memory.
 * argv: SOURCE_DIR KTUNE_EXE.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktune/ktune.h"
#include "tests/libktune/support.h"

static const char *src_dir, *exe;

static ktune_session *transpose(void)
{
    return kt_api_transpose(src_dir, exe, 8192, 8192);
}

static void expect_msg(const ktune_session *s, const char *part)
{
    if (!strstr(ktune_session_errmsg(s), part)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", ktune_session_errmsg(s),
                part);
        ++kt_api_failures;
    }
}

static void bad_arguments_are_refused_by_name(void)
{
    ktune_session *s;
    int64_t v = 1;

    EXPECT(!ktune_session_new(&s));
    EXPECT(ktune_buffer(s, "x", 9, KTUNE_F32, NULL, 4, NULL, NULL) ==
           KTUNE_E_INPUT);
    expect_msg(s, "role 9");
    EXPECT(ktune_buffer(s, "1x", KTUNE_IN, KTUNE_F32, NULL, 4, NULL, NULL));
    expect_msg(s, "'1x': expected a C identifier");
    EXPECT(ktune_param(s, "bx", &v, 1) == KTUNE_E_INPUT);
    expect_msg(s, "no variant yet");
    EXPECT(ktune_arg_buffer(s, "nope", NULL) == KTUNE_E_INPUT);
    expect_msg(s, "'nope': no such buffer");
    EXPECT(ktune_buffer(s, "c", KTUNE_OUT, KTUNE_F32, NULL, 4, NULL, NULL) ==
           KTUNE_OK);
    EXPECT(ktune_answer(s, "c", &v, 2) == KTUNE_E_INPUT);
    expect_msg(s, "2 element(s) given; the buffer has 4");
    EXPECT(ktune_session_set_budget(s, 1, 0, 2) == KTUNE_E_INPUT);
    EXPECT(ktune_tune(s, NULL) == KTUNE_E_INPUT);
    expect_msg(s, "no kernel source");
    ktune_session_free(s);
    EXPECT(ktune_declare(NULL, "x") == KTUNE_E_INPUT);
}

static void a_declaration_mistake_has_the_parsers_message(void)
{
    ktune_session *s = transpose();
    ktune_result *r = NULL;

    EXPECT(!ktune_block(s, "tile, rowsper"));
    EXPECT(ktune_check(s, &r) == KTUNE_E_INPUT && !r);
    expect_msg(s, "[variant.tiled] block");
    expect_msg(s, "'rowsper' is not declared");
    ktune_session_free(s);
}

static void the_api_counts_the_space_as_the_ini_does(void)
{
    ktune_session *s = transpose();
    ktune_result *r = NULL;
    int64_t size = 0, feasible = 0;

    EXPECT(ktune_check(s, &r) == KTUNE_OK);
    EXPECT(!ktune_result_space(r, &size, &feasible));
    EXPECT(size == 45 && feasible == 45);
    EXPECT(ktune_result_count(r, "variants") == 2);
    EXPECT(strcmp(ktune_result_string(r, "variants.1.id"), "tiled") == 0);
    ktune_result_free(r);
    ktune_session_free(s);
}

/* The configurations of a journal's entries, one per line. */
static char *path_of_journal(const char *journal)
{
    FILE *f = fopen(journal, "r");
    char *line = NULL, *out = calloc(1, 1 << 16);
    size_t cap = 0;

    while (f && out && getline(&line, &cap, f) > 0) {
        json_t *e = json_loads(line, 0, NULL), *p = json_object_get(e, "point");
        const char *k;
        json_t *v;
        if (p) {
            strcat(out, json_string_value(json_object_get(p, "variant")));
            json_object_foreach (json_object_get(p, "params"), k, v)
                sprintf(out + strlen(out), " %s=%lld", k,
                        (long long)json_integer_value(v));
            strcat(out, "\n");
        }
        json_decref(e);
    }
    free(line);
    if (f)
        fclose(f);
    return out;
}

static void one_recording_one_seed_one_search_path(void)
{
    ktune_session *s = transpose();
    ktune_result *r = NULL;
    char rec[4096], cmd[16384], journal[4096], *cli, api[1 << 16] = "";
    double t;

    snprintf(rec, sizeof rec,
             "%s/tests/data/transpose-h200-rows8192-cols8192.jsonl.gz",
             src_dir);
    EXPECT(!ktune_session_set_strategy(s, "random") &&
           !ktune_session_set_seed(s, 7) &&
           !ktune_session_set_budget(s, 12, 0, 0));
    EXPECT(ktune_replay(s, rec, &r) == KTUNE_OK);
    snprintf(journal, sizeof journal, "%s/cli.journal.jsonl",
             ktune_session_dir(s));
    snprintf(cmd, sizeof cmd,
             "'%s' tune '%s/examples/declared_transpose/transpose.ini' "
             "--replay '%s' --journal '%s' --quiet --set strategy.name=random "
             "--set strategy.seed=7 --set strategy.max_evals=12",
             exe, src_dir, rec, journal);
    EXPECT(system(cmd) == 0);
    cli = path_of_journal(journal);
    for (size_t i = 0; i < ktune_result_num_points(r); ++i)
        sprintf(api + strlen(api), "%s\n", ktune_result_point_config(r, i));
    EXPECT(ktune_result_num_points(r) >= 12);
    EXPECT(cli && strcmp(cli, api) == 0);
    EXPECT(strcmp(ktune_result_kind(r), "ktune.tune") == 0);
    EXPECT(ktune_result_has_best(r) && ktune_result_best_config(r));
    EXPECT(!ktune_result_best_stat(r, KTUNE_STAT_MEDIAN_US, &t) && t > 0);
    EXPECT(!ktune_result_point_stat(r, 0, KTUNE_STAT_CI_HI_US, &t) && t > 0);
    EXPECT(ktune_result_point_samples(r, 0, NULL, 0) > 0);
    EXPECT(strcmp(ktune_result_point_status(r, 0), "ok") == 0);
    EXPECT(strstr(ktune_result_json(r), "\"kind\": \"ktune.tune\""));
    EXPECT(ktune_result_number(r, "points.0.timing.kernel.median", &t) == 0);
    EXPECT(ktune_result_number(r, "no.such.path", &t) == KTUNE_E_INPUT);
    free(cli);
    ktune_result_free(r);
    ktune_session_free(s);
}

static void another_tools_recording_replays_without_a_declaration(void)
{
    ktune_session *s;
    ktune_result *r = NULL;
    char rec[4096];

    snprintf(rec, sizeof rec,
             "%s/tests/data/kt/vector_add-h200-n1048576.cache.json.gz",
             src_dir);
    EXPECT(!ktune_session_new(&s));
    ktune_session_set_exe(s, exe);
    ktune_session_set_budget(s, 10, 0, 0);
    EXPECT(ktune_replay(s, rec, &r) == KTUNE_OK);
    EXPECT(r && ktune_result_has_best(r));
    ktune_result_free(r);
    snprintf(rec, sizeof rec,
             "%s/tests/data/kt/vector_add-h200-n1048576.t4.json", src_dir);
    EXPECT(ktune_replay(s, rec, &r) == KTUNE_OK);
    EXPECT(r && ktune_result_has_best(r));
    ktune_result_free(r);
    EXPECT(ktune_replay(s, "/no/such.jsonl", &r) != KTUNE_OK && !r);
    expect_msg(s, "ktune tune: ");
    ktune_session_free(s);
}

/* Kernel Tuner's README kernel keeps its name although a built-in plugin
 * has it: the declaration takes the built-in's place (core/loader.c). */
static void a_kernel_named_like_a_builtin_plugin_is_the_users(void)
{
    static const int64_t bx[] = {32, 64, 128, 256};
    float a[1000] = {0}, c[1000] = {0};
    ktune_session *s;
    ktune_result *r = NULL;
    int64_t size = 0;

    EXPECT(!ktune_session_new(&s));
    ktune_session_set_exe(s, exe);
    EXPECT(!ktune_declare(s, "vector_add") &&
           !ktune_source_text(s, "extern \"C\" __global__ void vector_add("
                                 "float *c, const float *a, int n) { int i = "
                                 "blockIdx.x * blockDim.x + threadIdx.x; if "
                                 "(i < n) c[i] = a[i]; }\n") &&
           !ktune_size(s, "n", 1000, 0));
    EXPECT(
        !ktune_buffer(s, "c", KTUNE_OUT, KTUNE_F32, NULL, 1000, NULL, NULL) &&
        !ktune_buffer(s, "a", KTUNE_IN, KTUNE_F32, a, 1000, NULL, NULL) &&
        !ktune_arg_buffer(s, "c", NULL) && !ktune_arg_buffer(s, "a", NULL) &&
        !ktune_arg_expr(s, KTUNE_C_INT, "n"));
    EXPECT(!ktune_variant(s, "k", "vector_add") &&
           !ktune_param(s, "bx", bx, 4) && !ktune_block(s, "bx") &&
           !ktune_grid_divisors(s, "n", "bx") &&
           !ktune_answer(s, "c", c, 1000));
    EXPECT(ktune_check(s, &r) == KTUNE_OK);
    if (!r)
        fprintf(stderr, "%s\n", ktune_session_errmsg(s));
    EXPECT(!ktune_result_space(r, &size, NULL) && size == 4);
    EXPECT(r && strstr(ktune_result_string(r, "text"), "vector_add"));
    ktune_result_free(r);
    ktune_session_free(s);
}

/* The log: each line ktune printed, with a newline added back. */
static void log_line(void *user, const char *line)
{
    char *all = user;
    size_t n = strlen(all);

    snprintf(all + n, 8192 - n, "%s\n", line);
}

/* A fraction of the space as the budget, an objective, a header written
 * beside the source, and a job key ktune does not know (the CLI's
 * message). */
static void settings_reach_the_run(void)
{
    ktune_session *s = transpose();
    ktune_result *r = NULL;
    char rec[4096];
    static char logged[8192];
    double evals = 0;

    snprintf(rec, sizeof rec,
             "%s/tests/data/transpose-h200-rows8192-cols8192.jsonl.gz",
             src_dir);
    EXPECT(!ktune_session_set_budget(s, 0, 0, 0.2) &&
           !ktune_session_set_objective(s, "gbs") &&
           !ktune_session_set_strategy(s, "random"));
    EXPECT(ktune_replay(s, rec, &r) == KTUNE_OK);
    /* ceil(0.2 * 45) evaluations: the fraction of the feasible space. */
    EXPECT(!ktune_result_number(r, "evaluations", &evals) && evals == 9);
    EXPECT(r && strcmp(ktune_result_string(r, "energy.objective"), "gbs") == 0);
    ktune_result_free(r);
    EXPECT(!ktune_session_set(s, "strategy.nosuch", "1"));
    EXPECT(!ktune_session_set_log(s, log_line, logged));
    EXPECT(ktune_replay(s, rec, &r) == KTUNE_E_INPUT && !r);
    expect_msg(s, "ktune tune: ");
    expect_msg(s, "nosuch");
    /* The same message reached the log, as a line of its own. */
    EXPECT(strstr(
        logged,
        "ktune tune: --set strategy.nosuch=1: [strategy] nosuch: unknown key"));
    ktune_session_free(s);
}

static void a_header_given_as_text_is_included(void)
{
    static const int64_t bx[] = {32, 64};
    ktune_session *s;
    ktune_result *r = NULL;

    EXPECT(!ktune_session_new(&s));
    ktune_session_set_exe(s, exe);
    EXPECT(!ktune_header(s, "scale.h", "#define SCALE 3.0f\n") &&
           !ktune_source_text(s, "#include \"scale.h\"\nextern \"C\" "
                                 "__global__ void k(float *y, int n) { int i "
                                 "= blockIdx.x * blockDim.x + threadIdx.x; "
                                 "if (i < n) y[i] = SCALE; }\n") &&
           !ktune_size(s, "n", 512, 0) &&
           !ktune_buffer(s, "y", KTUNE_OUT, KTUNE_F32, NULL, 1, "n", NULL) &&
           !ktune_arg_buffer(s, "y", NULL) &&
           !ktune_arg_expr(s, KTUNE_C_INT, "n") &&
           !ktune_variant(s, "v", "k") && !ktune_param(s, "bx", bx, 2) &&
           !ktune_block(s, "bx") && !ktune_grid_divisors(s, "n", "bx"));
    EXPECT(ktune_check(s, &r) == KTUNE_OK);
    if (!r)
        fprintf(stderr, "%s\n", ktune_session_errmsg(s));
    ktune_result_free(r);
    EXPECT(ktune_header(s, "../x.h", "") == KTUNE_E_INPUT);
    ktune_session_free(s);
}

/* Answers for some outputs only: the others are compared with nothing
 * (an output becomes scratch, an in-out an input the kernel writes), as
 * Kernel Tuner's answer list with None entries. */
static void outputs_without_an_answer_are_not_compared(void)
{
    static const int64_t bx[] = {32, 64};
    float v[256] = {0};
    ktune_session *s;
    ktune_result *r = NULL;
    char path[4096], text[8192] = "";
    FILE *f;

    EXPECT(!ktune_session_new(&s));
    ktune_session_set_exe(s, exe);
    EXPECT(!ktune_declare(s, "partial") &&
           !ktune_source_text(s, "extern \"C\" __global__ void k(float *y, "
                                 "float *z, float *w, int n) { int i = "
                                 "blockIdx.x * blockDim.x + threadIdx.x; if "
                                 "(i < n) { y[i] = 1; z[i] = 2; w[i] += 1; } "
                                 "}\n") &&
           !ktune_size(s, "n", 256, 0));
    EXPECT(!ktune_buffer(s, "y", KTUNE_OUT, KTUNE_F32, NULL, 256, NULL, NULL) &&
           !ktune_buffer(s, "z", KTUNE_OUT, KTUNE_F32, NULL, 256, NULL, NULL) &&
           !ktune_buffer(s, "w", KTUNE_INOUT, KTUNE_F32, v, 256, NULL, NULL));
    EXPECT(!ktune_arg_buffer(s, "y", NULL) && !ktune_arg_buffer(s, "z", NULL) &&
           !ktune_arg_buffer(s, "w", NULL) &&
           !ktune_arg_expr(s, KTUNE_C_INT, "n") &&
           !ktune_variant(s, "v", "k") && !ktune_param(s, "bx", bx, 2) &&
           !ktune_block(s, "bx") && !ktune_grid_divisors(s, "n", "bx") &&
           !ktune_answer(s, "y", v, 256));
    EXPECT(ktune_check(s, &r) == KTUNE_OK);
    ktune_result_free(r);
    snprintf(path, sizeof path, "%s/partial.ini", ktune_session_dir(s));
    if ((f = fopen(path, "r"))) {
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    EXPECT(strstr(text, "buffer.y = output f32[256]"));
    EXPECT(strstr(text, "buffer.z = scratch f32[256]"));
    EXPECT(strstr(text, "buffer.w = input f32[256] from w.npy"));
    EXPECT(strstr(text, "modifies_inputs = yes"));
    ktune_session_free(s);
}

/* A session of one kernel over 64-value parameters a..d with a require
 * no bound prunes: 2^24 points, more than --check counts one by one in
 * seconds, so its count is an estimate ("about N" in the text). */
static ktune_session *estimated_space(void)
{
    int64_t v[64];
    ktune_session *s;
    const char *names[] = {"a", "b", "c", "d"};

    for (int i = 0; i < 64; ++i)
        v[i] = i + 1;
    EXPECT(!ktune_session_new(&s));
    ktune_session_set_exe(s, exe);
    EXPECT(!ktune_declare(s, "big") &&
           !ktune_source_text(s, "extern \"C\" __global__ void k(float *y, "
                                 "int n) { }\n") &&
           !ktune_size(s, "n", 256, 0) &&
           !ktune_buffer(s, "y", KTUNE_OUT, KTUNE_F32, NULL, 256, "n", NULL) &&
           !ktune_arg_buffer(s, "y", NULL) &&
           !ktune_arg_expr(s, KTUNE_C_INT, "n") && !ktune_variant(s, "v", "k"));
    for (int i = 0; i < 4; ++i)
        EXPECT(!ktune_param(s, names[i], v, 64));
    EXPECT(!ktune_block(s, "32") && !ktune_grid(s, "n / 32") &&
           !ktune_require(s, "(a + b + c + d) % 3 == 0"));
    return s;
}

/* check's counts come from the CLI's --check --json document, not its
 * text: an estimated count ("about N after require") is a number there,
 * said to be an estimate (the text's scraper read 0). */
static void an_estimated_count_is_a_number(void)
{
    ktune_session *s = estimated_space();
    ktune_result *r = NULL;
    int64_t size = 0, feasible = 0;
    double est = 0, per = 0;

    EXPECT(ktune_check(s, &r) == KTUNE_OK);
    EXPECT(!ktune_result_space(r, &size, &feasible));
    EXPECT(size == 64 * 64 * 64 * 64);
    /* A third of the points meet the require: the estimate is near. */
    EXPECT(feasible > size / 4 && feasible < size / 2);
    EXPECT(!ktune_result_number(r, "space.estimated", &est) && est == 1);
    EXPECT(!ktune_result_number(r, "variants.0.feasible", &per) &&
           (int64_t)per == feasible);
    EXPECT(strstr(ktune_result_string(r, "text"), "about "));
    if (feasible <= size / 4 || feasible >= size / 2)
        fprintf(stderr, "estimated feasible %lld of %lld\n",
                (long long)feasible, (long long)size);
    ktune_result_free(r);
    ktune_session_free(s);
}

/* Host arrays are held in shared memory the session owns, named in its
 * folder by a link into /proc (no file of the array's size is written, no
 * copy read back), readable as a .npy file through it; freeing the session
 * lets the memory go. */
static void host_arrays_are_shared_memory_not_files(void)
{
    enum { N = 1 << 16 };
    static float x[N], got[N];
    ktune_session *s;
    ktune_result *r = NULL;
    char path[4096], target[4096] = "";
    unsigned char head[10];
    size_t hlen = 0;
    struct stat st;
    ssize_t len;
    FILE *f;

    for (int i = 0; i < N; ++i)
        x[i] = (float)i * 0.5f;
    EXPECT(!ktune_session_new(&s));
    ktune_session_set_exe(s, exe);
    EXPECT(!ktune_declare(s, "shm") &&
           !ktune_source_text(s, "extern \"C\" __global__ void k(float *y, "
                                 "const float *x) { }\n") &&
           !ktune_size(s, "n", N, 0) &&
           !ktune_buffer(s, "y", KTUNE_OUT, KTUNE_F32, NULL, N, NULL, NULL) &&
           !ktune_buffer(s, "x", KTUNE_IN, KTUNE_F32, x, N, NULL, NULL) &&
           !ktune_arg_buffer(s, "y", NULL) && !ktune_arg_buffer(s, "x", NULL) &&
           !ktune_variant(s, "v", "k") && !ktune_block(s, "256") &&
           !ktune_grid(s, "n / 256") && !ktune_answer(s, "y", x, N));
    snprintf(path, sizeof path, "%s/x.npy", ktune_session_dir(s));
    EXPECT(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    len = readlink(path, target, sizeof target - 1);
    if (len > 0)
        target[len] = '\0';
    EXPECT(strncmp(target, "/proc/", 6) == 0 && strstr(target, "/fd/"));
    if ((f = fopen(path, "rb"))) {
        EXPECT(fread(head, 1, 10, f) == 10 &&
               memcmp(head, "\x93NUMPY", 6) == 0);
        hlen = 10 + (size_t)(head[8] | head[9] << 8);
        EXPECT(fseek(f, (long)hlen, SEEK_SET) == 0 &&
               fread(got, sizeof *got, N, f) == N &&
               memcmp(got, x, sizeof x) == 0);
        fclose(f);
    }
    EXPECT(hlen % 64 == 0);
    EXPECT(ktune_check(s, &r) == KTUNE_OK);
    ktune_result_free(r);
    ktune_session_free(s);
    EXPECT(stat(target, &st) != 0); /* the descriptor is closed */
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    src_dir = argv[1];
    exe = argv[2];
    bad_arguments_are_refused_by_name();
    a_declaration_mistake_has_the_parsers_message();
    the_api_counts_the_space_as_the_ini_does();
    one_recording_one_seed_one_search_path();
    another_tools_recording_replays_without_a_declaration();
    a_kernel_named_like_a_builtin_plugin_is_the_users();
    settings_reach_the_run();
    a_header_given_as_text_is_included();
    outputs_without_an_answer_are_not_compared();
    an_estimated_count_is_a_number();
    host_arrays_are_shared_memory_not_files();
    if (kt_api_failures)
        fprintf(stderr, "%d failure(s)\n", kt_api_failures);
    return kt_api_failures ? 1 : 0;
}
