// SPDX-License-Identifier: Apache-2.0
/* Tuning jobs: a complete INI file is read into the job it describes, the
 * defaults fill what it leaves out, --set overrides it, and every mistake is
 * reported as file:line (or the --set that made it), the section and key,
 * what is allowed, and close matches. [metrics] names counters (catalog,
 * raw, `default`, `none`) and points (every, or the best `top`). */
#include "tests/tuner/tuner_test.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/instance.h"
#include "tuner/job.h"

/* Loads text as `name`; the job is freed on success. */
static kt_status load(const char *name, const char *text, char **sets,
                      size_t num_sets, kt_job *job, kt_err *err)
{
    if (text)
        tt_write(name, text);
    return kt_job_load(name, sets, num_sets, &tt_reg, job, err);
}

/* The job must fail with KT_S_INPUT and a message holding each of the
 * given pieces. */
static void expect_error(const char *name, const char *text, char **sets,
                         size_t num_sets, const char *a, const char *b)
{
    kt_job job;
    kt_err err;
    kt_err_clear(&err);
    if (load(name, text, sets, num_sets, &job, &err) == KT_S_OK) {
        kt_job_free(&job);
        fail_msg("%s loaded, expected an error with \"%s\"", name, a);
    }
    assert_int_equal(err.status, KT_S_INPUT);
    assert_contains(err.msg, a);
    if (b)
        assert_contains(err.msg, b);
}

static void a_full_job_is_read_as_written(void **state)
{
    kt_job job;
    kt_err err;
    (void)state;
    assert_int_equal(load("full.ini",
                          "; a complete job\n"
                          "[job]\n"
                          "operator = vector_add:add\n"
                          "n = 2^28\n"
                          "seed = 7\n"
                          "verify_boundaries = no\n"
                          "\n"
                          "[space]\n"
                          "variant = vec4, coalesced\n"
                          "block = 1024, 128, 256   # any order\n"
                          "items = 2,4\n"
                          "[strategy]\n"
                          "name = annealing\n"
                          "max_evals = 40\n"
                          "max_seconds = 90.5\n"
                          "seed = 3\n"
                          "cooling = 0.9\n"
                          "finalists = 4\n"
                          "min_gain = 0.01\n"
                          "[measure]\n"
                          "warmups = 5\n"
                          "min_samples = 20\n"
                          "max_samples = 50\n"
                          "min_time = 0.1\n"
                          "max_time = 2\n"
                          "noise = 0.02\n"
                          "cache = hot\n"
                          "screen_samples = 4\n"
                          "[output]\n"
                          "journal = runs/j.jsonl\n"
                          "json = s.json\n"
                          "csv = s.csv\n"
                          "t4 = s.t4.json\n"
                          "top = 5\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_string_equal(job.spec, "vector_add:add");
    assert_int_equal(job.sizes[0], (int64_t)1 << 28);
    assert_int_equal(job.input_seed, 7);
    assert_int_equal(job.boundaries, 0);
    /* Variants and values keep the declared order. */
    assert_int_equal(job.space.num_slots, 2);
    assert_string_equal(job.op->variants[job.space.slots[0].variant].id,
                        "coalesced");
    assert_int_equal(job.space.slots[0].count[0], 3);
    assert_int_equal(job.space.slots[0].values[0][0], 128);
    assert_int_equal(job.space.slots[0].values[0][2], 1024);
    assert_int_equal(job.space.slots[1].count[1], 2);
    assert_int_equal(job.space.size, 3 + 3 * 2);
    assert_string_equal(job.strategy->name, "annealing");
    assert_int_equal(job.max_evals, 40);
    assert_true(job.max_seconds == 90.5);
    assert_int_equal(job.seed, 3);
    assert_true(job.options[1] == 0.9); /* cooling */
    assert_true(job.options[0] == 0.1); /* temperature: default */
    assert_int_equal(job.finalists, 4);
    assert_true(job.min_gain == 0.01);
    assert_int_equal(job.protocol.warmups, 5);
    assert_int_equal(job.protocol.min_samples, 20);
    assert_int_equal(job.protocol.max_samples, 50);
    assert_true(job.protocol.min_time_s == 0.1);
    assert_true(job.protocol.max_time_s == 2);
    assert_true(job.protocol.target_noise == 0.02);
    assert_int_equal(job.protocol.cache, KT_CACHE_HOT);
    assert_int_equal(job.protocol.screen_samples, 4);
    assert_string_equal(job.journal, "runs/j.jsonl");
    assert_int_equal(job.journal_mode, KT_JOB_JOURNAL_PATH);
    assert_string_equal(job.json, "s.json");
    assert_string_equal(job.csv, "s.csv");
    assert_string_equal(job.t4, "s.t4.json");
    assert_int_equal(job.top, 5);
    kt_job_free(&job);
}

static void defaults_fill_what_the_job_leaves_out(void **state)
{
    kt_job job;
    kt_err err;
    (void)state;
    assert_int_equal(load("minimal.ini", "[job]\noperator = vector_add:add\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.sizes[0], job.op->sizes[0].default_value);
    assert_int_equal(job.space.num_slots, job.op->num_variants);
    assert_int_equal(job.space.size, 6 + 6 + 36 + 24);
    assert_string_equal(job.strategy->name, "auto");
    assert_int_equal(job.max_evals, 0);
    assert_int_equal(job.finalists, 3);
    assert_int_equal(job.protocol.cache, KT_CACHE_COLD);
    assert_int_equal(job.protocol.max_samples, 300);
    assert_int_equal(job.journal_mode, KT_JOB_JOURNAL_AUTO);
    assert_string_equal(job.journal, "minimal.journal.jsonl");
    assert_string_equal(job.json, "");
    kt_job_free(&job);
}

static void set_overrides_and_adds_keys(void **state)
{
    char *sets[] = {"strategy.name=one-at-a-time", "space.variant=vec4",
                    "SPACE.items=8", "output.journal=none", "job.n=1000"};
    kt_job job;
    kt_err err;
    (void)state;
    assert_int_equal(load("set.ini",
                          "[job]\noperator = vector_add:add\n"
                          "[strategy]\nname = exhaustive\n",
                          sets, 5, &job, &err),
                     KT_S_OK);
    assert_string_equal(job.strategy->name, "one_at_a_time");
    assert_int_equal(job.space.num_slots, 1);
    assert_int_equal(job.space.size, 6);
    assert_int_equal(job.sizes[0], 1000);
    assert_int_equal(job.journal_mode, KT_JOB_JOURNAL_NONE);
    kt_job_free(&job);
}

static void labels_narrow_enumerations(void **state)
{
    kt_job job;
    kt_err err;
    (void)state;
    assert_int_equal(load("labels.ini",
                          "[job]\noperator = good:scale\n"
                          "[space]\nlayout = rows\nblock = 64, 512\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    /* tiled: block 2 x unroll 3 x pad 3 x layout 1; plain: block 2. */
    assert_int_equal(job.space.size, 18 + 2);
    kt_job_free(&job);
}

static void structural_mistakes_name_the_line(void **state)
{
    (void)state;
    expect_error("outside.ini", "operator = vector_add:add\n[job]\n", NULL, 0,
                 "outside.ini:1: 'operator' is outside any section", NULL);
    expect_error("twice.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\nseed = 1\n"
                 "\nseed = 2\n",
                 NULL, 0, "twice.ini:6: [strategy] seed is set twice",
                 "first on line 4");
    expect_error("syntax.ini",
                 "[job]\noperator = vector_add:add\n\nthis line is bad\n", NULL,
                 0, "syntax.ini:4: cannot read 'this line is bad'",
                 "expected [section], key = value");
    expect_error("section.ini",
                 "[job]\noperator = vector_add:add\n[spaec]\nblock = 64\n",
                 NULL, 0, "section.ini:3: unknown section [spaec]",
                 "did you mean 'space'?");
    expect_error("no_such_job.ini", NULL, NULL, 0,
                 "no_such_job.ini: cannot open", NULL);
}

static void job_mistakes(void **state)
{
    (void)state;
    expect_error("no_op.ini", "[job]\nn = 5\n", NULL, 0,
                 "no_op.ini:1: [job] operator: missing",
                 "operator = vector_add:add");
    expect_error(
        "bad_plugin.ini", "[job]\n\noperator = vector_ad:add\n", NULL, 0,
        "bad_plugin.ini:3: [job] operator:", "did you mean 'vector_add'?");
    expect_error("bad_size.ini", "[job]\noperator = vector_add:add\nn = 12x\n",
                 NULL, 0, "bad_size.ini:3: [job] n:", "expected an integer");
    expect_error("size_range.ini", "[job]\noperator = vector_add:add\nn = 0\n",
                 NULL, 0, "size_range.ini:3: [job] n: 0 is out of range",
                 "expected 1 to 8589934592");
    expect_error("job_key.ini", "[job]\noperator = vector_add:add\nnn = 5\n",
                 NULL, 0, "job_key.ini:3: [job] nn: unknown key",
                 "did you mean 'n'");
    expect_error("bool.ini",
                 "[job]\noperator = vector_add:add\nverify_boundaries = "
                 "maybe\n",
                 NULL, 0,
                 "bool.ini:3: [job] verify_boundaries:", "not yes or no");
}

static void space_mistakes(void **state)
{
    (void)state;
    expect_error("undeclared.ini",
                 "[job]\noperator = vector_add:add\n[space]\nblock = 64, "
                 "100\n",
                 NULL, 0, "undeclared.ini:4: [space] block:",
                 "100 is not one of 32..1024 (powers of two)");
    expect_error(
        "param.ini", "[job]\noperator = vector_add:add\n[space]\nblocks = 64\n",
        NULL, 0, "param.ini:4: [space] blocks:", "did you mean 'block'");
    expect_error("left_out.ini",
                 "[job]\noperator = vector_add:add\n[space]\nvariant = "
                 "coalesced\nitems = 2\n",
                 NULL, 0, "left_out.ini:5: [space] items:",
                 "'items' is a parameter of 'vec4', which the space leaves "
                 "out");
    expect_error("variant.ini",
                 "[job]\noperator = vector_add:add\n[space]\nvariant = "
                 "vec4, coalesed\n",
                 NULL, 0, "variant.ini:4: [space] variant:",
                 "did you mean 'coalesced'?");
    expect_error("repeat.ini",
                 "[job]\noperator = vector_add:add\n[space]\nblock = 64, 128, "
                 "64\n",
                 NULL, 0, "repeat.ini:4: [space] block:", "listed twice");
    expect_error("empty.ini",
                 "[job]\noperator = vector_add:add\n[space]\nblock =\n", NULL,
                 0, "empty.ini:4: [space] block:", "found nothing");
    expect_error("label.ini",
                 "[job]\noperator = good:scale\n[space]\nlayout = row\n", NULL,
                 0, "label.ini:4: [space] layout:", "did you mean 'rows'?");
    /* plain declares block 64..512 only: 32 leaves it nothing. */
    expect_error("per_variant.ini",
                 "[job]\noperator = good:scale\n[space]\nblock = 32\n", NULL, 0,
                 "per_variant.ini:4: [space] block:",
                 "none of the listed values is allowed in variant 'plain'");
}

/* Kernel Tuner's device-setting names in [space]: one value or a list
 * each, dimensions of the space (ktune's, on each point's nvml; the
 * plugin's parameters unchanged); a repeated value, or one out of range,
 * names the key. */
static void device_settings_are_dimensions_of_the_space(void **state)
{
    kt_job job;
    kt_point pt;
    kt_err err;
    (void)state;

    assert_int_equal(load("settings.ini",
                          "[job]\noperator = vector_add:add\n[space]\n"
                          "nvml_gr_clock = 1410, 1755, 1980\n"
                          "nvml_pwr_limit = 450\nblock = 256\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.space.nvml.count[0], 3);
    assert_int_equal(job.space.nvml.values[0][2], 1980);
    assert_int_equal(job.space.nvml.count[1], 0);
    assert_int_equal(job.space.nvml.values[2][0], 450);
    assert_int_equal(job.space.settings, 3);
    kt_space_start(&job.space, &pt);
    assert_int_equal(pt.nvml.gr_mhz, 1410); /* the first listed */
    assert_int_equal(pt.nvml.limit_w, 450);
    kt_job_free(&job);
    assert_int_equal(load("none.ini", "[job]\noperator = vector_add:add\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_false(kt_nvml_choices_any(&job.space.nvml));
    assert_int_equal(job.space.settings, 1);
    kt_job_free(&job);
    expect_error("twice.ini",
                 "[job]\noperator = vector_add:add\n[space]\n"
                 "nvml_mem_clock = 2619, 2619\n",
                 NULL, 0, "twice.ini:4: [space] nvml_mem_clock:",
                 "2619 is listed twice");
    expect_error("range.ini",
                 "[job]\noperator = vector_add:add\n[space]\n"
                 "nvml_pwr_limit = 0\n",
                 NULL, 0, "range.ini:4: [space] nvml_pwr_limit: 0",
                 "expected 1 to 10000 (W)");
}

static void strategy_mistakes(void **state)
{
    (void)state;
    expect_error("strategy.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\nname = "
                 "anealing\n",
                 NULL, 0, "strategy.ini:4: [strategy] name:",
                 "unknown strategy 'anealing'; did you mean 'annealing'?");
    expect_error("other_option.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\nname = "
                 "random\npopulation = 8\n",
                 NULL, 0, "other_option.ini:5: [strategy] population:",
                 "an option of strategy genetic, not of random");
    expect_error("option_range.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\nname = "
                 "genetic\npopulation = 1\n",
                 NULL, 0, "option_range.ini:5: [strategy] population:",
                 "out of range; expected 2 to 256");
    expect_error("whole.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\nname = "
                 "genetic\npopulation = 4.5\n",
                 NULL, 0,
                 "whole.ini:5: [strategy] population:", "not a whole number");
    expect_error("evals.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\nmax_evals = "
                 "-1\n",
                 NULL, 0, "evals.ini:4: [strategy] max_evals:", "out of range");
    expect_error("strategy_key.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\nmax_eval = "
                 "5\n",
                 NULL, 0, "strategy_key.ini:4: [strategy] max_eval:",
                 "did you mean 'max_evals'");
}

static void a_named_start_is_where_the_search_begins(void **state)
{
    kt_job job;
    kt_err err;
    kt_point pt, slot_start;
    char text[256];
    (void)state;
    /* variant= is applied first wherever it is listed; the parameters left
     * out keep the variant's start values. */
    assert_int_equal(load("start.ini",
                          "[job]\noperator = vector_add:add\n"
                          "[strategy]\nstart = block=512, variant=vec4\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_true(job.space.start_given);
    kt_space_start(&job.space, &pt);
    kt_point_format(job.op, &pt, text, sizeof text);
    assert_string_equal(text, "vec4 block=512 items=1");
    /* The slot of the start's variant starts there too; the others at
     * their declared defaults. */
    kt_space_slot_start(&job.space,
                        (size_t)kt_space_slot_of(&job.space, pt.variant),
                        &slot_start);
    assert_true(kt_point_equal(&pt, &slot_start));
    kt_space_slot_start(&job.space, 0, &slot_start);
    kt_point_format(job.op, &slot_start, text, sizeof text);
    assert_string_equal(text, "coalesced block=256");
    kt_job_free(&job);
    /* Without the key nothing is named. */
    assert_int_equal(load("no_start.ini", "[job]\noperator = vector_add:add\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_false(job.space.start_given);
    kt_job_free(&job);
}

static void start_mistakes(void **state)
{
    char *narrow[] = {"space.block=256,1024"};
    (void)state;
    expect_error(
        "start_form.ini",
        "[job]\noperator = vector_add:add\n[strategy]\nstart = 512\n", NULL, 0,
        "start_form.ini:4: [strategy] start:", "'512': expected NAME=VALUE");
    expect_error("start_name.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\n"
                 "start = blok=512\n",
                 NULL, 0, "[strategy] start:", "did you mean 'block'");
    expect_error("start_value.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\n"
                 "start = block=100\n",
                 NULL, 0, "[strategy] start:", "100 is not one of");
    expect_error("start_variant.ini",
                 "[job]\noperator = vector_add:add\n[space]\n"
                 "variant = coalesced\n[strategy]\nstart = variant=vec4\n",
                 NULL, 0, "[strategy] start:", "not in the space");
    /* A value the job's [space] leaves out is no point of the space. */
    expect_error("start_narrowed.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\n"
                 "start = block=512\n",
                 narrow, 1, "[strategy] start:", "not a point of the space");
}

static void measure_and_output_mistakes(void **state)
{
    (void)state;
    expect_error("cache.ini",
                 "[job]\noperator = vector_add:add\n[measure]\ncache = warm\n",
                 NULL, 0,
                 "cache.ini:4: [measure] cache:", "'warm' is not cold");
    expect_error("samples.ini",
                 "[job]\noperator = vector_add:add\n[measure]\nmin_samples = "
                 "50\nmax_samples = 5\n",
                 NULL, 0, "samples.ini:4: [measure] min_samples:",
                 "more than max_samples 5");
    expect_error("screen.ini",
                 "[job]\noperator = vector_add:add\n[measure]\n"
                 "screen_samples = 11\n",
                 NULL, 0,
                 "[measure] screen_samples:", "more than min_samples 10");
    expect_error("screen_race.ini",
                 "[job]\noperator = vector_add:add\n[measure]\n"
                 "screen_samples = 3\nrace = 0\n",
                 NULL, 0, "[measure] screen_samples:", "needs race > 0");
    expect_error("noise.ini",
                 "[job]\noperator = vector_add:add\n[measure]\nnoise = 1\n",
                 NULL, 0, "noise.ini:4: [measure] noise:",
                 "expected a fraction 0 to 1 (exclusive) or a percentage");
    {
        /* "0.5%" is half a percent. */
        kt_job job;
        kt_err err;
        assert_int_equal(load("pct.ini",
                              "[job]\noperator = vector_add:add\n[measure]\n"
                              "noise = 0.5%\n",
                              NULL, 0, &job, &err),
                         KT_S_OK);
        assert_true(fabs(job.protocol.target_noise - 0.005) < 1e-12);
        kt_job_free(&job);
    }
    expect_error(
        "measure_key.ini",
        "[job]\noperator = vector_add:add\n[measure]\nwarmup = 1\n", NULL, 0,
        "measure_key.ini:4: [measure] warmup:", "did you mean 'warmups'");
    expect_error("top.ini",
                 "[job]\noperator = vector_add:add\n[output]\ntop = 0\n", NULL,
                 0, "top.ini:4: [output] top:", "out of range");
    expect_error("path.ini",
                 "[job]\noperator = vector_add:add\n[output]\njson =\n", NULL,
                 0, "path.ini:4: [output] json:", "empty");
    expect_error("output_key.ini",
                 "[job]\noperator = vector_add:add\n[output]\njsn = x\n", NULL,
                 0, "output_key.ini:4: [output] jsn:", "did you mean 'json'");
}

static void set_mistakes_name_the_set(void **state)
{
    char *bad_value[] = {"space.block=100"};
    char *bad_form[] = {"strategy=exhaustive"};
    char *bad_section[] = {"strateg.name=exhaustive"};
    (void)state;
    expect_error(
        "set1.ini", "[job]\noperator = vector_add:add\n", bad_value, 1,
        "--set space.block=100: [space] block:", "100 is not one of 32..1024");
    expect_error("set2.ini", "[job]\noperator = vector_add:add\n", bad_form, 1,
                 "--set strategy=exhaustive: expected SECTION.KEY=VALUE", NULL);
    expect_error("set3.ini", "[job]\noperator = vector_add:add\n", bad_section,
                 1, "--set strateg.name=exhaustive: unknown section [strateg]",
                 "did you mean 'strategy'?");
}

static void
long_values_are_read_whole_or_refused_with_their_length(void **state)
{
    char value[1100], *sets[1], text[3000];
    kt_job job;
    kt_err err;
    (void)state;
    /* max_evals = 000...05 (1,010 zeros): used to be cut to 0. */
    memcpy(value, "strategy.max_evals=", 19);
    memset(value + 19, '0', 1010);
    strcpy(value + 19 + 1010, "5");
    sets[0] = value;
    assert_int_equal(load("longset.ini", "[job]\noperator = vector_add:add\n",
                          sets, 1, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.max_evals, 5);
    kt_job_free(&job);
    /* A line iniparser would cut is refused, its length named. */
    snprintf(text, sizeof text,
             "[job]\noperator = vector_add:add\n"
             "[space]\nblock = ");
    {
        size_t at = strlen(text);
        memset(text + at, ' ', 1200);
        strcpy(text + at + 1200, "32\n");
    }
    expect_error("longline.ini", text, NULL, 0,
                 "longline.ini:4: a line of 1210 characters",
                 "lines may have at most 1000");
}

static void a_byte_order_mark_is_not_part_of_the_first_line(void **state)
{
    kt_job job;
    kt_err err;
    (void)state;
    assert_int_equal(load("bom.ini",
                          "\xEF\xBB\xBF[job]\noperator = vector_add:add\n"
                          "n = 1000\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.sizes[0], 1000);
    kt_job_free(&job);
}

static void jobs_that_are_not_files_are_refused(void **state)
{
    (void)state;
    expect_error(".", NULL, NULL, 0, "job .: is a directory", NULL);
    expect_error("/dev/zero", NULL, NULL, 0,
                 "job /dev/zero: is a character device", NULL);
    unlink("fifo.ini");
    assert_int_equal(mkfifo("fifo.ini", 0600), 0);
    expect_error("fifo.ini", NULL, NULL, 0, "job fifo.ini: is a FIFO", NULL);
    unlink("fifo.ini");
    tt_write("nul.ini", "[job]\noperator = vector_add:add\n");
    {
        FILE *f = fopen("nul.ini", "ab");
        fwrite("n = 1\0\n", 1, 7, f);
        fclose(f);
    }
    expect_error("nul.ini", NULL, NULL, 0, "nul.ini:3: a NUL byte at column 6",
                 NULL);
}

static void metrics_sections_are_read_as_written(void **state)
{
    char *sets[] = {"metrics.top=2"};
    kt_job job;
    kt_err err;
    (void)state;
    /* No section: nothing profiled. */
    assert_int_equal(load("nometrics.ini", "[job]\noperator = vector_add:add\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.metrics.points, KT_PROFILING_OFF);
    kt_job_free(&job);
    /* An empty section: the default counters for every point. */
    assert_int_equal(load("every.ini",
                          "[job]\noperator = vector_add:add\n[metrics]\n", NULL,
                          0, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.metrics.points, KT_PROFILING_EVERY);
    assert_true(job.metrics.counters);
    assert_int_equal(job.metrics.set.num_items, 20);
    assert_int_equal(job.metrics.set.num_raw, 19);
    kt_job_free(&job);
    /* Catalog and raw names, the default set by name, the best few. */
    assert_int_equal(load("named.ini",
                          "[job]\noperator = vector_add:add\n[metrics]\n"
                          "counters = l2_hit_rate, smsp__inst_executed.sum, "
                          "registers_per_thread\npoints = top\ntop = 4\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.metrics.points, KT_PROFILING_TOP);
    assert_int_equal(job.metrics.top, 4);
    assert_int_equal(job.metrics.set.num_items, 3);
    assert_int_equal(job.metrics.set.num_raw, 2);
    assert_string_equal(job.metrics.set.raw[1], "smsp__inst_executed.sum");
    assert_contains(job.metrics_where, "named.ini:4: [metrics] counters");
    assert_int_equal(job.metrics.access_bytes, 0);
    kt_job_free(&job);
    /* The diagnoses' access width, as profile's --access-bytes. */
    assert_int_equal(load("access_ok.ini",
                          "[job]\noperator = vector_add:add\n[metrics]\n"
                          "access_bytes = 16\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.metrics.access_bytes, 16);
    kt_job_free(&job);
    assert_int_equal(load("plus.ini",
                          "[job]\noperator = vector_add:add\n[metrics]\n"
                          "counters = default, smsp__inst_executed.sum\n",
                          NULL, 0, &job, &err),
                     KT_S_OK);
    assert_int_equal(job.metrics.set.num_items, 21);
    kt_job_free(&job);
    /* Kernel facts only; `top` alone means the best few; --set adds it. */
    assert_int_equal(load("none.ini",
                          "[job]\noperator = vector_add:add\n[metrics]\n"
                          "counters = none\n",
                          sets, 1, &job, &err),
                     KT_S_OK);
    assert_false(job.metrics.counters);
    assert_int_equal(job.metrics.points, KT_PROFILING_TOP);
    assert_int_equal(job.metrics.top, 2);
    kt_job_free(&job);
}

static void metrics_mistakes(void **state)
{
    char *set_bad[] = {"metrics.counters=occupncy"};
    (void)state;
    expect_error("unknown_metric.ini",
                 "[job]\noperator = vector_add:add\n[metrics]\n"
                 "counters = occupncy\n",
                 NULL, 0,
                 "unknown_metric.ini:4: [metrics] counters: unknown metric "
                 "'occupncy'",
                 "did you mean 'achieved_occupancy'");
    expect_error("raw_metric.ini",
                 "[job]\noperator = vector_add:add\n[metrics]\n"
                 "points = every\ncounters = dram__bytes_read\n",
                 NULL, 0, "raw_metric.ini:5: [metrics] counters:",
                 "no rollup or ratio suffix");
    expect_error("metrics_key.ini",
                 "[job]\noperator = vector_add:add\n[metrics]\ncounter = "
                 "default\n",
                 NULL, 0, "metrics_key.ini:4: [metrics] counter: unknown key",
                 "did you mean 'counters'");
    expect_error("points.ini",
                 "[job]\noperator = vector_add:add\n[metrics]\npoints = "
                 "best\n",
                 NULL, 0,
                 "points.ini:4: [metrics] points:", "'best' is not every");
    expect_error("top_every.ini",
                 "[job]\noperator = vector_add:add\n[metrics]\npoints = "
                 "every\ntop = 3\n",
                 NULL, 0,
                 "top_every.ini:5: [metrics] top:", "applies to points = top");
    expect_error("top_range.ini",
                 "[job]\noperator = vector_add:add\n[metrics]\ntop = 0\n", NULL,
                 0, "top_range.ini:4: [metrics] top:", "out of range");
    expect_error("access.ini",
                 "[job]\noperator = vector_add:add\n[metrics]\n"
                 "access_bytes = 0\n",
                 NULL, 0,
                 "access.ini:4: [metrics] access_bytes:", "out of range");
    expect_error("none_and.ini",
                 "[job]\noperator = vector_add:add\n[metrics]\n"
                 "counters = none, l2_hit_rate\n",
                 NULL, 0, "none_and.ini:4: [metrics] counters:",
                 "'none' cannot be combined");
    expect_error("metrcs.ini", "[job]\noperator = vector_add:add\n[metrcs]\n",
                 NULL, 0, "metrcs.ini:3: unknown section [metrcs]",
                 "did you mean 'metrics'?");
    expect_error("elsewhere.ini",
                 "[job]\noperator = vector_add:add\n[strategy]\nname = "
                 "random\npopulation = 8\n",
                 NULL, 0, "elsewhere.ini:5: [strategy] population:",
                 "an option of strategy genetic, not of random");
    expect_error("set_metric.ini", "[job]\noperator = vector_add:add\n",
                 set_bad, 1,
                 "--set metrics.counters=occupncy: [metrics] counters: "
                 "unknown metric 'occupncy'",
                 NULL);
}

/* The sizes of the job's sweep, as "n=..;n=.." for comparison. */
static void sweep_text(const kt_job *job, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < job->num_sweep && used < size; ++i) {
        char one[128];
        kt_format_sizes(job->op, job->sweep[i], one, sizeof one);
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ";" : "",
                                 one);
    }
}

static void expect_sweep(kt_registry *r, const char *job_text, const char *set,
                         const char *want)
{
    char *sets[1] = {(char *)set}, got[2048];
    kt_job job;
    kt_err err;
    tt_write("sweep.ini", job_text);
    if (kt_job_load("sweep.ini", sets, set ? 1 : 0, r, &job, &err))
        fail_msg("%s", err.msg);
    sweep_text(&job, got, sizeof got);
    assert_string_equal(got, want);
    /* The first size is the job's sizes. */
    assert_memory_equal(job.sizes, job.sweep[0], sizeof job.sizes);
    kt_job_free(&job);
}

static void size_sweeps_are_read_as_written(void **state)
{
    static const char va[] = "[job]\noperator = vector_add:add\n";
    kt_registry r;
    kt_err err;
    char text[512];
    (void)state;
    expect_sweep(&tt_reg, "[job]\noperator = vector_add:add\nn = 2^24\n", NULL,
                 "n=16777216");
    snprintf(text, sizeof text,
             "%sn = 2^20..2^28 step \xc3\x97"
             "4\n",
             va);
    expect_sweep(&tt_reg, text, NULL,
                 "n=1048576;n=4194304;n=16777216;n=67108864;n=268435456");
    snprintf(text, sizeof text, "%sn = 2^20..2^28 step x16\n", va);
    expect_sweep(&tt_reg, text, NULL, "n=1048576;n=16777216;n=268435456");
    snprintf(text, sizeof text, "%sn = 1..100 step *10\n", va);
    expect_sweep(&tt_reg, text, NULL, "n=1;n=10;n=100");
    snprintf(text, sizeof text, "%sn = 1000..3500 step +1000\n", va);
    expect_sweep(&tt_reg, text, NULL, "n=1000;n=2000;n=3000");
    snprintf(text, sizeof text, "%sn = 7..9 step 1, 0x100, 2^12\n", va);
    expect_sweep(&tt_reg, text, NULL, "n=7;n=8;n=9;n=256;n=4096");
    /* --set replaces the file's key */
    expect_sweep(&tt_reg, text, "job.n=5, 6", "n=5;n=6");
    /* two sizes: a joint key lists tuples; plain keys multiply */
    kt_registry_init(&r);
    if (kt_registry_load_file(&r, KT_BUILTIN_PLUGIN_DIR "/gemv.so", &err))
        fail_msg("%s", err.msg);
    expect_sweep(&r,
                 "[job]\noperator = gemv:ax\nm, n = 1024x1024, 16384x16384,"
                 " 65536 X 4096, 0x400\xc3\x97"
                 "0x800, 2^4*2^5\n",
                 NULL,
                 "m=1024 n=1024;m=16384 n=16384;m=65536 n=4096;m=1024 "
                 "n=2048;m=16 n=32");
    expect_sweep(&r, "[job]\noperator = gemv:ax\nm = 1, 2\nn = 10, 20, 30\n",
                 NULL, "m=1 n=10;m=1 n=20;m=1 n=30;m=2 n=10;m=2 n=20;m=2 n=30");
    expect_sweep(&r, "[job]\noperator = gemv:ax\nm = 1024\nn = 1024\n",
                 "job.m, n=8x16, 32x64", "m=8 n=16;m=32 n=64");
    expect_sweep(&r, "[job]\noperator = gemv:ax\nm, n = 8x16\n", "job.m, n=1x2",
                 "m=1 n=2");
    kt_registry_free(&r);
}

static void size_sweep_mistakes(void **state)
{
    kt_registry r;
    kt_err err;
    (void)state;
    expect_error("s1.ini", "[job]\noperator = vector_add:add\nn = 1..8\n", NULL,
                 0, "s1.ini:3: [job] n:", "a range needs a step");
    expect_error("s2.ini",
                 "[job]\noperator = vector_add:add\nn = 8..1 step x2\n", NULL,
                 0, "s2.ini:3: [job] n:", "start 8 is above its end 1");
    expect_error("s3.ini",
                 "[job]\noperator = vector_add:add\nn = 1..8 step x1\n", NULL,
                 0, "s3.ini:3:", "a factor of 2 or more");
    expect_error("s4.ini",
                 "[job]\noperator = vector_add:add\nn = 1..8 step +0\n", NULL,
                 0, "s4.ini:3:", "1 or more");
    expect_error("s5.ini",
                 "[job]\noperator = vector_add:add\nn = 1..5000 step +1\n",
                 NULL, 0, "s5.ini:3:", "more than 1024 sizes");
    expect_error("s6.ini",
                 "[job]\noperator = vector_add:add\nn = 1..2^40 step x2\n",
                 NULL, 0, "s6.ini:3:", "is out of range; expected 1 to");
    expect_error("s7.ini", "[job]\noperator = vector_add:add\nn = 4, , 8\n",
                 NULL, 0, "s7.ini:3:", "empty item 2");
    expect_error("s8.ini",
                 "[job]\noperator = vector_add:add\nn = 4..8 step xy\n", NULL,
                 0, "s8.ini:3:", "step: expected an integer");
    expect_error("s9.ini",
                 "[job]\noperator = vector_add:add\nn = 1..2^62 step x2\n",
                 NULL, 0, "s9.ini:3:", "out of range");
    kt_registry_init(&r);
    if (kt_registry_load_file(&r, KT_BUILTIN_PLUGIN_DIR "/gemv.so", &err))
        fail_msg("%s", err.msg);
    {
        static const struct {
            const char *text, *set, *a, *b;
        } cases[] = {
            {"[job]\noperator = gemv:ax\nm, n = 1024x1024x2\n", NULL,
             "g.ini:3: [job] m, n:", "more than 2 values in a tuple"},
            {"[job]\noperator = gemv:ax\nm, n = 1024\n", NULL,
             "g.ini:3: [job] m, n:", "expected 2 values joined by x, found 1"},
            {"[job]\noperator = gemv:ax\nm, n = 1..4 step x2\n", NULL,
             "g.ini:3:", "not a range"},
            {"[job]\noperator = gemv:ax\nm, n = 4x0\n", NULL,
             "g.ini:3:", "n = 0 is out of range"},
            {"[job]\noperator = gemv:ax\nm = 4\nm, n = 4x4\n", NULL,
             "g.ini:4: [job] m, n:", "size m is set twice"},
            {"[job]\noperator = gemv:ax\nm, k = 4x4\n", NULL,
             "g.ini:3:", "unknown key"},
            {"[job]\noperator = gemv:ax\nm, n = 4x4\n", "job.n=8",
             "g.ini:3:", "a --set names only some of its sizes"},
            {"[job]\noperator = gemv:ax\nm = 1..100 step +1\nn = 1..100 step "
             "+1\n",
             NULL, "g.ini:4:", "more than 1024 sizes in all"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            char *sets[1] = {(char *)cases[i].set};
            kt_job job;
            tt_write("g.ini", cases[i].text);
            kt_err_clear(&err);
            if (kt_job_load("g.ini", sets, cases[i].set ? 1 : 0, &r, &job,
                            &err) == KT_S_OK) {
                kt_job_free(&job);
                fail_msg("case %zu loaded", i);
            }
            assert_int_equal(err.status, KT_S_INPUT);
            assert_contains(err.msg, cases[i].a);
            assert_contains(err.msg, cases[i].b);
        }
    }
    kt_registry_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_full_job_is_read_as_written),
        cmocka_unit_test(defaults_fill_what_the_job_leaves_out),
        cmocka_unit_test(set_overrides_and_adds_keys),
        cmocka_unit_test(labels_narrow_enumerations),
        cmocka_unit_test(structural_mistakes_name_the_line),
        cmocka_unit_test(job_mistakes),
        cmocka_unit_test(size_sweeps_are_read_as_written),
        cmocka_unit_test(size_sweep_mistakes),
        cmocka_unit_test(space_mistakes),
        cmocka_unit_test(strategy_mistakes),
        cmocka_unit_test(a_named_start_is_where_the_search_begins),
        cmocka_unit_test(start_mistakes),
        cmocka_unit_test(measure_and_output_mistakes),
        cmocka_unit_test(set_mistakes_name_the_set),
        cmocka_unit_test(
            long_values_are_read_whole_or_refused_with_their_length),
        cmocka_unit_test(a_byte_order_mark_is_not_part_of_the_first_line),
        cmocka_unit_test(jobs_that_are_not_files_are_refused),
        cmocka_unit_test(metrics_sections_are_read_as_written),
        cmocka_unit_test(metrics_mistakes),
        cmocka_unit_test(device_settings_are_dimensions_of_the_space),
    };
    return cmocka_run_group_tests(tests, tt_setup, tt_teardown);
}
