// SPDX-License-Identifier: Apache-2.0
/* The journal: every evaluation is on disk as one line before the run goes
 * on; reading drops a torn last line and an unfinished call with a note; a
 * resumed run answers finished calls from the journal (never re-measuring
 * them, nor re-running a point that faulted) and ends exactly where an
 * uninterrupted run ends; a journal from another plugin build, device,
 * problem, space or protocol is refused with what differs. */
#include "tests/tuner/tuner_test.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/envrec.h"
#include "records/journal.h"
#include "records/journal_check.h"
#include "records/replay.h"
#include "tests/support/counting_eval.h"
#include "tuner/tune.h"

#define VA_RECORDING TT_DATA_DIR "/vector_add-synthetic-n16777216.jsonl"
#define GOOD_RECORDING TT_DATA_DIR "/good-synthetic.jsonl"

static kt_registry reg;
static const kt_loaded_plugin *va_plugin, *good_plugin;
static const kt_operator *va, *good;

static int setup(void **state)
{
    kt_err err;
    (void)state;
    if (tt_load_plugins(&reg) ||
        kt_registry_resolve(&reg, "vector_add:add", &va_plugin, &va, &err) ||
        kt_registry_resolve(&reg, "good:scale", &good_plugin, &good, &err))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

/* A tuning session over a recording: space bound, header made. */
typedef struct session {
    const kt_operator *op;
    const kt_loaded_plugin *plugin;
    kt_counting_eval *ev;
    kt_space space;
    json_t *header;
    kt_tune_config cfg;
} session;

static void open_session(session *s, const char *recording,
                         const kt_loaded_plugin *plugin, const kt_operator *op,
                         const char *strategy)
{
    kt_err err;
    json_t *env;
    memset(s, 0, sizeof *s);
    s->op = op;
    s->plugin = plugin;
    s->ev = kt_counting_open(recording, plugin, op);
    assert_int_equal(kt_space_init(&s->space, NULL, op, &err), KT_S_OK);
    kt_space_bind(&s->space, kt_replay_sizes(s->ev->inner),
                  kt_replay_seed(s->ev->inner),
                  s->ev->base.ops->device(&s->ev->base));
    s->cfg.op = op;
    s->cfg.space = &s->space;
    s->cfg.ev = &s->ev->base;
    s->cfg.strategy = kt_strategy_find(strategy);
    for (size_t i = 0; i < s->cfg.strategy->num_options; ++i)
        s->cfg.options[i] = s->cfg.strategy->options[i].default_value;
    s->cfg.seed = 1;
    s->cfg.finalists = 3;
    s->cfg.min_gain = 0.005;
    kt_protocol_defaults(&s->cfg.protocol);
    env = s->ev->base.ops->environment(&s->ev->base);
    s->header =
        kt_journal_header(plugin, "x:y", op, kt_replay_sizes(s->ev->inner),
                          kt_replay_seed(s->ev->inner), &s->space,
                          &s->cfg.protocol, json_object(), env);
}

static void close_session(session *s)
{
    json_decref(s->header);
    kt_space_free(&s->space);
    s->ev->base.ops->close(&s->ev->base);
}

/* Runs the session, journaling to path (new file). */
static void run_journaled(session *s, const char *path, size_t max_evals,
                          kt_tune_result *r)
{
    kt_journal j;
    kt_err err;
    unlink(path);
    assert_int_equal(kt_journal_create(&j, path, s->header, &err), KT_S_OK);
    s->cfg.journal = &j;
    s->cfg.max_evals = max_evals;
    if (kt_tune_run(&s->cfg, r, &err))
        fail_msg("%s", err.msg);
    kt_journal_close(&j);
    s->cfg.journal = NULL;
}

static void the_journal_holds_every_evaluation(void **state)
{
    session s;
    kt_tune_result r;
    kt_journal_log log;
    kt_err err;
    size_t finals = 0;
    (void)state;
    open_session(&s, VA_RECORDING, va_plugin, va, "exhaustive");
    run_journaled(&s, "every.jsonl", 0, &r);
    assert_int_equal(kt_journal_read("every.jsonl", va, &log, &err), KT_S_OK);
    assert_string_equal(log.note, "");
    assert_string_equal(json_string_value(json_object_get(log.header, "kind")),
                        "ktune.journal");
    assert_non_null(
        json_object_get(json_object_get(log.header, "environment"), "device"));
    /* One record per point of every call: the sweep, then the finalists. */
    for (size_t i = 0; i < log.count; ++i)
        finals += strcmp(log.entries[i].purpose, "final") == 0;
    assert_int_equal(finals, 3);
    assert_int_equal(log.count, r.evaluations + finals);
    assert_int_equal(log.num_checked, r.host_invalid);
    for (size_t i = 0, e = 0; i < log.count - finals; ++i, ++e) {
        kt_point pt;
        while (r.entries[e].host_checked)
            ++e;
        pt = kt_tune_entry_point(&r, &r.entries[e]);
        assert_true(kt_point_equal(&log.entries[i].point, &pt));
        assert_int_equal(log.entries[i].result.timing.num_rounds,
                         r.entries[e].timing.num_rounds);
        assert_true(log.entries[i].result.timing.samples_us[3] ==
                    r.entries[e].timing.samples_us[3]);
        assert_int_equal(log.entries[i].env, 0);
    }
    kt_journal_log_free(&log);
    kt_tune_result_free(&r);
    close_session(&s);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
}

static void append(const char *path, const char *text)
{
    FILE *f = fopen(path, "ab");
    fputs(text, f);
    fclose(f);
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void a_torn_last_line_is_dropped_with_a_note(void **state)
{
    session s;
    kt_tune_result r;
    kt_journal_log log;
    kt_journal j;
    kt_err err;
    long long intact;
    size_t count;
    (void)state;
    open_session(&s, VA_RECORDING, va_plugin, va, "exhaustive");
    run_journaled(&s, "torn.jsonl", 5, &r);
    intact = file_size("torn.jsonl");
    assert_int_equal(kt_journal_read("torn.jsonl", va, &log, &err), KT_S_OK);
    count = log.count;
    kt_journal_log_free(&log);
    append("torn.jsonl", "{\"kind\":\"eval\",\"call\":9,\"sl");
    assert_int_equal(kt_journal_read("torn.jsonl", va, &log, &err), KT_S_OK);
    assert_contains(log.note, "the last line is incomplete");
    assert_int_equal(log.count, count);
    assert_int_equal(log.keep_bytes, intact);
    /* Continuing cuts it, so the next record starts on its own line. */
    assert_int_equal(
        kt_journal_continue(&j, "torn.jsonl", &log, json_object(), &err),
        KT_S_OK);
    kt_journal_close(&j);
    kt_journal_log_free(&log);
    assert_int_equal(kt_journal_read("torn.jsonl", va, &log, &err), KT_S_OK);
    assert_string_equal(log.note, "");
    assert_int_equal(log.count, count);
    assert_int_equal(log.num_envs, 2);
    kt_journal_log_free(&log);
    kt_tune_result_free(&r);
    close_session(&s);
}

static void an_unfinished_call_is_dropped_with_a_note(void **state)
{
    session s;
    kt_tune_result r;
    kt_journal_log log;
    kt_err err;
    long long intact;
    size_t count, next;
    kt_journal j;
    kt_eval_result res;
    kt_point pt;
    (void)state;
    open_session(&s, VA_RECORDING, va_plugin, va, "exhaustive");
    run_journaled(&s, "partial.jsonl", 4, &r);
    intact = file_size("partial.jsonl");
    assert_int_equal(kt_journal_read("partial.jsonl", va, &log, &err), KT_S_OK);
    count = log.count;
    next = log.entries[log.count - 1].call + 1; /* calls have no gap */
    /* One record of a call of two, as if killed between the two lines. */
    assert_int_equal(
        kt_journal_continue(&j, "partial.jsonl", &log, json_object(), &err),
        KT_S_OK);
    kt_journal_log_free(&log);
    memset(&res, 0, sizeof res);
    res.status = KT_EVAL_INVALID;
    snprintf(res.reason, sizeof res.reason, "refused");
    kt_point_default(va, 0, &pt);
    assert_int_equal(
        kt_journal_eval(&j, va, next, 0, 2, "compare", 1.0, &pt, &res, &err),
        KT_S_OK);
    kt_journal_close(&j);
    assert_int_equal(kt_journal_read("partial.jsonl", va, &log, &err), KT_S_OK);
    assert_contains(log.note, "the last evaluate() call has 1 of its records");
    assert_int_equal(log.count, count);
    assert_true(log.keep_bytes > intact); /* the environment record stays */
    assert_true(log.keep_bytes < file_size("partial.jsonl"));
    kt_journal_log_free(&log);
    kt_tune_result_free(&r);
    close_session(&s);
}

static void bad_journals_are_refused_with_the_line(void **state)
{
    kt_journal_log log;
    kt_err err;
    (void)state;
    copy_file(VA_RECORDING, "corrupt.jsonl");
    /* Keep the header and two records, then a broken complete line. */
    {
        FILE *in = fopen(VA_RECORDING, "r"), *out = fopen("corrupt.jsonl", "w");
        char *line = NULL;
        size_t cap = 0;
        for (int i = 0; i < 3 && getline(&line, &cap, in) > 0; ++i)
            fputs(line, out);
        fputs("{\"kind\": \"eval\", oops}\n", out);
        free(line);
        fclose(in);
        fclose(out);
    }
    assert_int_equal(kt_journal_read("corrupt.jsonl", va, &log, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "corrupt.jsonl:4: not a JSON record");
    tt_write("notjournal.jsonl", "{\"kind\": \"ktune.bench\"}\n");
    assert_int_equal(kt_journal_read("notjournal.jsonl", va, &log, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "notjournal.jsonl:1: not a ktune journal");
    /* A point the loaded plugin cannot represent. */
    assert_int_equal(kt_journal_read(GOOD_RECORDING, va, &log, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "good-synthetic.jsonl:");
    assert_contains(err.msg, "no variant 'tiled'");
    assert_int_equal(kt_journal_read("no-such-journal.jsonl", va, &log, &err),
                     KT_S_INPUT);
    /* The record rule the report reads by (records/journal_check.h) is the
     * tuner's too: a negative spread is refused by both. */
    {
        FILE *in = fopen(VA_RECORDING, "r"), *out = fopen("spread.jsonl", "w");
        char *line = NULL, *at;
        size_t cap = 0;
        for (int i = 0; i < 3 && getline(&line, &cap, in) > 0; ++i) {
            at = i == 1 ? strstr(line, "\"stddev\":") : NULL;
            if (at) /* "stddev": -1, then the rest from its comma on */
                fprintf(out, "%.*s\"stddev\": -1%s", (int)(at - line), line,
                        strchr(at, ','));
            else
                fputs(line, out);
        }
        free(line);
        fclose(in);
        fclose(out);
    }
    assert_int_equal(kt_journal_read("spread.jsonl", va, &log, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "stddev is -1, expected a finite value >= 0");
    {
        FILE *in = fopen("spread.jsonl", "r");
        char *line = NULL;
        size_t cap = 0;
        json_t *rec = NULL;
        for (int i = 0; i < 2 && getline(&line, &cap, in) > 0; ++i) {
            json_decref(rec);
            rec = json_loads(line, 0, NULL);
        }
        free(line);
        fclose(in);
        assert_int_equal(kt_journal_check_point(rec, &err), KT_S_INPUT);
        assert_contains(err.msg, "timing: stddev is not a number >= 0");
        json_decref(rec);
    }
}

/* Compares two runs point by point. */
static void assert_same_run(const kt_tune_result *a, const kt_tune_result *b)
{
    assert_int_equal(a->num_entries, b->num_entries);
    for (size_t e = 0; e < a->num_entries; ++e) {
        assert_int_equal(a->entries[e].index, b->entries[e].index);
        assert_int_equal(a->entries[e].status, b->entries[e].status);
    }
    assert_int_equal(a->num_steps, b->num_steps);
    assert_true(kt_point_equal(&a->finals[0].point, &b->finals[0].point));
}

static void resume_without_measuring_again(const char *recording,
                                           const kt_loaded_plugin *plugin,
                                           const kt_operator *op,
                                           const char *strategy, size_t cut)
{
    session full, part, rest;
    kt_tune_result whole, first, second;
    kt_journal_log log;
    kt_journal j;
    kt_err err;

    open_session(&full, recording, plugin, op, strategy);
    full.cfg.max_evals = 0;
    if (kt_tune_run(&full.cfg, &whole, &err))
        fail_msg("%s", err.msg);

    /* The run stopped after `cut` evaluations... */
    open_session(&part, recording, plugin, op, strategy);
    run_journaled(&part, "resume.jsonl", cut, &first);
    assert_int_equal(first.evaluations, cut);

    /* ...and resumed from its journal. */
    open_session(&rest, recording, plugin, op, strategy);
    assert_int_equal(kt_journal_read("resume.jsonl", op, &log, &err), KT_S_OK);
    assert_int_equal(kt_journal_compatible(log.header, rest.header,
                                           "resume.jsonl", NULL, 0, &err),
                     KT_S_OK);
    assert_int_equal(
        kt_journal_continue(&j, "resume.jsonl", &log, json_object(), &err),
        KT_S_OK);
    rest.cfg.journal = &j;
    rest.cfg.resume = &log;
    if (kt_tune_run(&rest.cfg, &second, &err))
        fail_msg("%s", err.msg);
    kt_journal_close(&j);

    assert_same_run(&whole, &second);
    assert_int_equal(second.from_journal, cut);
    /* Every measurement and comparison was made once over the two
     * sessions (the stopped run also re-measured its own finalists). */
    assert_int_equal(part.ev->small_calls + rest.ev->small_calls,
                     full.ev->small_calls);
    assert_true(rest.ev->calls - rest.ev->small_calls <= 1);
    for (size_t i = 0; i < rest.ev->points; ++i)
        for (size_t k = 0; k < first.num_entries; ++k) {
            const kt_point pt = kt_tune_entry_point(&first, &first.entries[k]);
            if (kt_point_equal(&rest.ev->seen[i], &pt) &&
                first.entries[k].status != KT_EVAL_OK) {
                char text[256];
                kt_point_format(op, &rest.ev->seen[i], text, sizeof text);
                fail_msg("%s failed before and was run again", text);
            }
        }
    kt_journal_log_free(&log);
    kt_tune_result_free(&whole);
    kt_tune_result_free(&first);
    kt_tune_result_free(&second);
    close_session(&full);
    close_session(&part);
    close_session(&rest);
}

static void a_resumed_run_ends_where_an_uninterrupted_one_does(void **state)
{
    (void)state;
    /* Comparisons and single measurements, on both kinds of space; the
     * good space has points that fail (and one that faulted). */
    resume_without_measuring_again(VA_RECORDING, va_plugin, va, "one_at_a_time",
                                   7);
    resume_without_measuring_again(VA_RECORDING, va_plugin, va, "annealing",
                                   11);
    resume_without_measuring_again(GOOD_RECORDING, good_plugin, good,
                                   "exhaustive", 40);
    resume_without_measuring_again(GOOD_RECORDING, good_plugin, good, "genetic",
                                   20);
}

/* kt_journal_compatible must refuse `changed` with a message holding
 * `want`. */
static void expect_refused(const json_t *recorded, json_t *changed,
                           const char *want)
{
    kt_err err;
    char note[512];
    assert_int_equal(kt_journal_compatible(recorded, changed, "j.jsonl", note,
                                           sizeof note, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, want);
    assert_contains(err.msg, "--journal FILE");
    json_decref(changed);
}

static void a_journal_from_elsewhere_is_refused(void **state)
{
    session s;
    json_t *h, *x;
    kt_err err;
    char note[512];
    char *items[] = {"1", "2"};
    (void)state;
    open_session(&s, VA_RECORDING, va_plugin, va, "one_at_a_time");
    h = s.header;
    assert_int_equal(
        kt_journal_compatible(h, h, "j.jsonl", note, sizeof note, &err),
        KT_S_OK);
    assert_string_equal(note, "");

    x = json_deep_copy(h);
    json_object_set_new(json_object_get(x, "plugin"), "build_date",
                        json_string("Jan  1 2030 00:00:00"));
    expect_refused(h, x, "another plugin build: build_date is");

    x = json_deep_copy(h);
    json_object_set_new(
        json_object_get(json_object_get(x, "environment"), "device"), "name",
        json_string("NVIDIA A100"));
    expect_refused(h, x, "measured on another device: name is \"NVIDIA H200\"");

    x = json_deep_copy(h);
    json_object_set_new(json_object_get(x, "sizes"), "n", json_integer(5));
    expect_refused(h, x, "is another problem");

    kt_space_narrow(&s.space, "items", items, 2, &err);
    x = json_deep_copy(h);
    json_object_set_new(x, "space", kt_space_to_json(&s.space));
    expect_refused(h, x,
                   "another space: vec4 items: [1,2,4,8] in the journal, "
                   "[1,2] now");

    x = json_deep_copy(h);
    json_object_set_new(json_object_get(x, "protocol"), "min_samples",
                        json_integer(99));
    expect_refused(h, x, "another measurement protocol: min_samples is");

    /* Another physical GPU of the same model: allowed, with a note. */
    x = json_deep_copy(h);
    json_object_set_new(
        json_object_get(json_object_get(x, "environment"), "device"), "uuid",
        json_string("GPU-other"));
    assert_int_equal(
        kt_journal_compatible(h, x, "j.jsonl", note, sizeof note, &err),
        KT_S_OK);
    assert_contains(note, "measured on another NVIDIA H200");
    json_decref(x);
    close_session(&s);
}

static void an_existing_journal_is_not_overwritten(void **state)
{
    kt_journal j;
    kt_err err;
    json_t *h = json_pack("{s:s}", "kind", "ktune.journal");
    (void)state;
    tt_write("exists.jsonl", "precious\n");
    assert_int_equal(kt_journal_create(&j, "exists.jsonl", h, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "exists: add --resume to continue it");
    json_decref(h);
}

/* Writes the recording's header and lines first..last (1-based) to path;
 * with of2 the first eval line claims a call of two records. */
static void write_lines(const char *path, int first, int last, int of2)
{
    FILE *in = fopen(VA_RECORDING, "r"), *out = fopen(path, "w");
    char *line = NULL;
    size_t cap = 0;
    assert_non_null(in);
    assert_non_null(out);
    for (int i = 1; i <= last && getline(&line, &cap, in) > 0; ++i) {
        char *of = strstr(line, "\"of\":1,");
        if (i != 1 && i < first)
            continue;
        if (of2 && i == first && of)
            of[5] = '2';
        fputs(line, out);
    }
    free(line);
    fclose(in);
    fclose(out);
}

static void a_nul_byte_is_refused_and_nothing_is_cut(void **state)
{
    kt_journal_log log;
    kt_err err;
    long long size;
    FILE *f;
    (void)state;
    write_lines("nul.jsonl", 2, 40, 0);
    size = file_size("nul.jsonl");
    /* A NUL inside line 3, with 37 complete records after it. */
    f = fopen("nul.jsonl", "r+b");
    {
        char *line = NULL;
        size_t cap = 0;
        long at;
        assert_true(getline(&line, &cap, f) > 0);
        assert_true(getline(&line, &cap, f) > 0);
        at = ftell(f) + 10;
        fseek(f, at, SEEK_SET);
        fputc('\0', f);
        free(line);
    }
    fclose(f);
    assert_int_equal(kt_journal_read("nul.jsonl", va, &log, &err), KT_S_INPUT);
    assert_contains(err.msg, "nul.jsonl:3: a NUL byte at column 11");
    assert_contains(err.msg, "nothing was changed");
    assert_int_equal(file_size("nul.jsonl"), size);
    /* NULs in a torn last line (no newline after them) are a torn write. */
    write_lines("nul-tail.jsonl", 2, 10, 0);
    f = fopen("nul-tail.jsonl", "ab");
    fwrite("{\"kind\"\0\0\0", 1, 11, f);
    fclose(f);
    assert_int_equal(kt_journal_read("nul-tail.jsonl", va, &log, &err),
                     KT_S_OK);
    assert_contains(log.note, "the last line is incomplete");
    assert_int_equal(log.count, 9);
    kt_journal_log_free(&log);
}

static void a_second_writer_is_refused(void **state)
{
    kt_journal_log log, stale;
    kt_journal a, b;
    kt_eval_result res;
    kt_point pt;
    kt_err err;
    (void)state;
    write_lines("locked.jsonl", 2, 10, 0);
    assert_int_equal(kt_journal_read("locked.jsonl", va, &log, &err), KT_S_OK);
    assert_int_equal(kt_journal_read("locked.jsonl", va, &stale, &err),
                     KT_S_OK);
    assert_int_equal(
        kt_journal_continue(&a, "locked.jsonl", &log, json_object(), &err),
        KT_S_OK);
    assert_int_equal(
        kt_journal_continue(&b, "locked.jsonl", &stale, json_object(), &err),
        KT_S_INPUT);
    assert_contains(err.msg, "journal locked.jsonl is in use");
    /* The first writer goes on and ends; the second one's reading is stale
     * now and must not be appended to. */
    memset(&res, 0, sizeof res);
    res.status = KT_EVAL_INVALID;
    snprintf(res.reason, sizeof res.reason, "refused");
    kt_point_default(va, 0, &pt);
    assert_int_equal(
        kt_journal_eval(&a, va, 50, 0, 1, "measure", 1.0, &pt, &res, &err),
        KT_S_OK);
    kt_journal_close(&a);
    assert_int_equal(
        kt_journal_continue(&b, "locked.jsonl", &stale, json_object(), &err),
        KT_S_INPUT);
    assert_contains(err.msg, "changed while it was read");
    kt_journal_log_free(&log);
    kt_journal_log_free(&stale);
}

static void an_empty_journal_is_written_afresh(void **state)
{
    kt_journal j;
    kt_journal_log log;
    kt_err err;
    json_t *h;
    (void)state;
    assert_int_equal(kt_journal_read_header(VA_RECORDING, &h, &err), KT_S_OK);
    tt_write("empty.jsonl", "");
    assert_true(kt_journal_is_empty("empty.jsonl"));
    assert_int_equal(kt_journal_create(&j, "empty.jsonl", h, &err), KT_S_OK);
    kt_journal_close(&j);
    assert_false(kt_journal_is_empty("empty.jsonl"));
    assert_int_equal(kt_journal_read("empty.jsonl", va, &log, &err), KT_S_OK);
    assert_int_equal(log.count, 0);
    kt_journal_log_free(&log);
    /* A torn header: the run died while writing it. */
    tt_write("torn-header.jsonl", "{\"kind\":\"ktune.jour");
    assert_int_equal(kt_journal_create(&j, "torn-header.jsonl", h, &err),
                     KT_S_OK);
    kt_journal_close(&j);
    assert_int_equal(kt_journal_read("torn-header.jsonl", va, &log, &err),
                     KT_S_OK);
    kt_journal_log_free(&log);
    json_decref(h);
}

static void a_call_out_of_order_is_refused_without_a_leak(void **state)
{
    kt_journal_log log;
    kt_err err;
    (void)state;
    /* Call 1 claims two records but call 2 follows its first: the record
     * of call 2 (with samples) must be freed on the way out (LSan). */
    write_lines("order.jsonl", 2, 3, 1);
    assert_int_equal(kt_journal_read("order.jsonl", va, &log, &err),
                     KT_S_INPUT);
    assert_contains(err.msg, "call 2 starts before call 1 has all its 2");
}

static void journals_that_are_not_files_are_refused(void **state)
{
    kt_journal_log log;
    json_t *h;
    kt_err err;
    (void)state;
    assert_int_equal(kt_journal_read(".", va, &log, &err), KT_S_INPUT);
    assert_contains(err.msg, "is a directory, expected a regular file");
    assert_int_equal(kt_journal_read("/dev/zero", va, &log, &err), KT_S_INPUT);
    assert_contains(err.msg, "is a character device");
    unlink("fifo.jsonl");
    assert_int_equal(mkfifo("fifo.jsonl", 0600), 0);
    assert_int_equal(kt_journal_read("fifo.jsonl", va, &log, &err), KT_S_INPUT);
    assert_contains(err.msg, "is a FIFO");
    assert_int_equal(kt_journal_read_header("fifo.jsonl", &h, &err),
                     KT_S_INPUT);
    assert_int_equal(kt_journal_read_header("/dev/zero", &h, &err), KT_S_INPUT);
    unlink("fifo.jsonl");
}

/* The recordings' format: gzip-compressed, eval records with phases, a
 * closing "run" record (a kind older readers skip). */
static void a_compressed_journal_with_phases_reads_like_a_plain_one(void **s)
{
    FILE *in = fopen(VA_RECORDING, "r");
    gzFile out = gzopen("phases.jsonl.gz", "wb");
    kt_journal_log plain, packed;
    char *line = NULL;
    size_t cap = 0, n = 0;
    kt_err err;
    (void)s;
    assert_non_null(in);
    assert_non_null(out);
    while (getline(&line, &cap, in) > 0) {
        json_error_t jerr;
        json_t *rec = json_loads(line, 0, &jerr);
        char *text;
        assert_non_null(rec);
        if (n++ == 1)
            json_object_set_new(
                rec, "phases",
                json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "setup_s", 0.25,
                          "verify_s", 0.5, "warmup_s", 0.125, "sampling_s", 2.0,
                          "flush_s", 0.0625, "probe_s", 0.03125));
        text = json_dumps(rec, JSON_COMPACT);
        gzprintf(out, "%s\n", text);
        free(text);
        json_decref(rec);
    }
    gzprintf(out, "{\"kind\":\"run\",\"env\":0,\"phases\":{\"total_s\":3}}\n");
    free(line);
    fclose(in);
    assert_int_equal(gzclose(out), Z_OK);
    assert_int_equal(kt_journal_read(VA_RECORDING, va, &plain, &err), KT_S_OK);
    assert_int_equal(kt_journal_read("phases.jsonl.gz", va, &packed, &err),
                     KT_S_OK);
    assert_int_equal(packed.count, plain.count);
    assert_string_equal(packed.note, "");
    assert_true(packed.entries[0].result.phases.verify_s == 0.5);
    assert_true(packed.entries[0].result.phases.probe_s == 0.03125);
    assert_true(packed.entries[1].result.phases.verify_s == 0);
    assert_true(plain.entries[0].result.phases.sampling_s == 0);
    assert_true(packed.entries[7].result.timing.samples_us[5] ==
                plain.entries[7].result.timing.samples_us[5]);
    kt_journal_log_free(&plain);
    kt_journal_log_free(&packed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_journal_holds_every_evaluation),
        cmocka_unit_test(a_torn_last_line_is_dropped_with_a_note),
        cmocka_unit_test(an_unfinished_call_is_dropped_with_a_note),
        cmocka_unit_test(bad_journals_are_refused_with_the_line),
        cmocka_unit_test(a_resumed_run_ends_where_an_uninterrupted_one_does),
        cmocka_unit_test(a_journal_from_elsewhere_is_refused),
        cmocka_unit_test(an_existing_journal_is_not_overwritten),
        cmocka_unit_test(a_nul_byte_is_refused_and_nothing_is_cut),
        cmocka_unit_test(a_second_writer_is_refused),
        cmocka_unit_test(an_empty_journal_is_written_afresh),
        cmocka_unit_test(a_call_out_of_order_is_refused_without_a_leak),
        cmocka_unit_test(journals_that_are_not_files_are_refused),
        cmocka_unit_test(
            a_compressed_journal_with_phases_reads_like_a_plain_one),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
