// SPDX-License-Identifier: Apache-2.0
/* The timeline summariser on committed record files
 * (tests/timeline/fixtures, written by make_fixtures.py in the tracer's
 * format) and on traces built here: tables, launch order, busy and idle
 * time as unions, the gaps, crashes and tool errors. No GPU. */
#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "timeline/print.h"
#include "timeline/records.h"
#include "timeline/summary.h"

static void load(kt_tl_trace *t, kt_tl_summary *s, const char *fixture)
{
    char dir[1024];
    kt_err err;
    snprintf(dir, sizeof dir, "%s/%s", KT_TIMELINE_FIXTURES, fixture);
    kt_tl_trace_init(t);
    if (kt_tl_read_dir(t, dir, &err))
        fail_msg("%s", err.msg);
    if (kt_tl_summarise(s, t, 0, 0, &err))
        fail_msg("%s", err.msg);
}

static void unload(kt_tl_trace *t, kt_tl_summary *s)
{
    kt_tl_summary_free(s);
    kt_tl_trace_free(t);
}

static const kt_tl_row *row(const kt_tl_row *rows, size_t n, const char *name,
                            char domain)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(rows[i].name, name) == 0 && rows[i].domain == domain)
            return &rows[i];
    fail_msg("no row %s", name);
    return NULL;
}

static void program_tables_match_the_recorded_calls(void **state)
{
    kt_tl_trace t;
    kt_tl_summary s;
    const kt_tl_row *r;
    (void)state;
    load(&t, &s, "program");
    r = row(s.api, s.num_api, "cudaLaunchKernel", 'R');
    assert_int_equal(r->count, 4);
    assert_int_equal(r->total, 24000);
    r = row(s.api, s.num_api, "cuLaunchKernel", 'D');
    assert_int_equal(r->count, 4);
    /* Sorted by total, shares within each domain summing to one. */
    assert_string_equal(s.api[0].name, "cudaFree");
    assert_int_equal(s.num_kernels, 4);
    assert_string_equal(s.kernels[0].name,
                        "k_combine(float const*, float const*, float*, int, "
                        "int)");
    assert_int_equal(s.kernel_time, 1830000);
    r = row(s.memops, s.num_memops, "Host-to-Device", 0);
    assert_int_equal(r->count, 2);
    assert_int_equal(r->bytes, 24u << 20);
    assert_int_equal(r->min_bytes, 8u << 20);
    assert_int_equal(r->max_bytes, 16u << 20);
    assert_int_equal(s.bytes_dtoh, 16u << 20);
    assert_int_equal(s.memset_time, 12000);
    r = row(s.syncs, s.num_syncs, "event synchronize", 0);
    assert_int_equal(r->count, 4);
    unload(&t, &s);
}

static void kernels_are_listed_in_launch_order_with_shapes(void **state)
{
    kt_tl_trace t;
    kt_tl_summary s;
    (void)state;
    load(&t, &s, "program");
    assert_int_equal(s.num_launches, 4);
    assert_string_equal(s.launch_order[0]->name, "_Z7k_scalePfii");
    assert_string_equal(s.launch_order[3]->demangled,
                        "k_square(float*, int, int)");
    assert_int_equal(s.launch_order[3]->grid[0], 32768);
    assert_int_equal(s.launch_order[3]->block[0], 128);
    assert_int_equal(s.launch_order[3]->dynamic_smem, 512);
    assert_int_equal(s.launch_order[0]->stream, 13);
    assert_int_equal(s.launch_order[1]->stream, 14);
    unload(&t, &s);
}

static void the_host_sleep_is_the_largest_gap(void **state)
{
    kt_tl_trace t;
    kt_tl_summary s;
    char reading[4096];
    (void)state;
    load(&t, &s, "program");
    assert_true(s.num_top_gaps >= 1);
    assert_true(s.gaps[0].end - s.gaps[0].start >= 20000000);
    assert_string_equal(s.gaps[0].before->name, "_Z8k_offsetPfii");
    assert_string_equal(s.gaps[0].after->name, "_Z9k_combinePKfS0_Pfii");
    /* busy + idle is the span; the two copies in run side by side and
     * count once. */
    assert_int_equal(s.busy + s.idle, s.span_end - s.span_start);
    assert_true(s.busy < s.kernel_time + s.copy_time + s.memset_time);
    kt_tl_reading(&s, reading, sizeof reading);
    assert_contains(reading, "is outside the GPU");
    assert_contains(reading, "the largest, 20.1 ms, lies between k_offset");
    assert_contains(reading, "do not add them");
    unload(&t, &s);
}

static void a_crash_keeps_what_was_recorded(void **state)
{
    kt_tl_trace t;
    kt_tl_summary s;
    (void)state;
    load(&t, &s, "crash");
    assert_int_equal(t.num_procs, 1);
    assert_false(t.procs[0].ended);
    assert_int_equal(t.procs[0].truncated, 1);
    assert_int_equal(s.num_launches, 4);
    unload(&t, &s);
}

static void another_profiler_is_named(void **state)
{
    kt_tl_trace t;
    kt_tl_summary s;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    (void)state;
    load(&t, &s, "profiler");
    assert_int_equal(kt_tl_print_problems(f, &t), 1);
    fclose(f);
    assert_contains(buf, "another profiler holds CUPTI");
    assert_contains(buf, "Nsight Systems (nsys)");
    assert_string_equal(kt_tl_tool_of_library("libsanitizer-collection.so"),
                        "compute-sanitizer");
    assert_null(kt_tl_tool_of_library("libcudart.so.13"));
    free(buf);
    unload(&t, &s);
}

static void child_processes_are_merged(void **state)
{
    kt_tl_trace t;
    kt_tl_summary s;
    (void)state;
    load(&t, &s, "children");
    assert_int_equal(t.num_procs, 2);
    assert_int_equal(t.procs[1].ppid, t.procs[0].pid);
    assert_int_equal(s.num_launches, 4);
    assert_int_equal(s.launch_order[0]->proc, 1);
    /* The wall time runs from the parent's CUDA start to the last end. */
    assert_int_equal(s.wall_start, t.procs[0].init_cupti);
    unload(&t, &s);
}

/* Two kernels overlapping on two streams, a copy under them and one
 * after a gap: busy is the union, the first copy runs under the kernels
 * for its whole length. */
static void busy_time_is_a_union_of_intervals(void **state)
{
    kt_tl_op ops[4] = {{.kind = KT_TL_KERNEL,
                        .start = 1000,
                        .end = 5000,
                        .stream = 1,
                        .name = "a",
                        .demangled = "a",
                        .correlation = 1},
                       {.kind = KT_TL_KERNEL,
                        .start = 3000,
                        .end = 8000,
                        .stream = 2,
                        .name = "b",
                        .demangled = "b",
                        .correlation = 2},
                       {.kind = KT_TL_MEMCPY,
                        .start = 20000,
                        .end = 21000,
                        .copy_kind = KT_TL_COPY_HTOD,
                        .bytes = 64,
                        .name = "Host-to-Device",
                        .demangled = "Host-to-Device",
                        .correlation = 4},
                       {.kind = KT_TL_MEMCPY,
                        .start = 4000,
                        .end = 6000,
                        .copy_kind = KT_TL_COPY_DTOH,
                        .bytes = 64,
                        .name = "Device-to-Host",
                        .demangled = "Device-to-Host",
                        .correlation = 3}};
    kt_tl_proc proc = {.pid = 1, .exe = "", .end_how = ""};
    kt_tl_trace t = {.procs = &proc, .num_procs = 1, .ops = ops, .num_ops = 4};
    kt_tl_summary s;
    kt_err err;
    (void)state;
    assert_int_equal(kt_tl_summarise(&s, &t, 0, 0, &err), KT_S_OK);
    assert_int_equal(s.busy, 8000);
    assert_int_equal(s.idle, 12000);
    assert_int_equal(s.kernel_busy, 7000);
    assert_int_equal(s.kernel_time, 9000);
    assert_int_equal(s.copy_busy, 3000);
    assert_int_equal(s.copy_overlap, 2000);
    assert_int_equal(s.num_gaps, 1);
    assert_ptr_equal(s.gaps[0].before, &ops[1]);
    assert_ptr_equal(s.gaps[0].after, &ops[2]);
    kt_tl_summary_free(&s);
}

static void times_are_written_in_readable_units(void **state)
{
    char b[32];
    (void)state;
    kt_tl_fmt_time(999, b, sizeof b);
    assert_string_equal(b, "999 ns");
    kt_tl_fmt_time(3600000, b, sizeof b);
    assert_string_equal(b, "3.60 ms");
    kt_tl_fmt_time(20100000, b, sizeof b);
    assert_string_equal(b, "20.1 ms");
    kt_tl_fmt_time(2500000000u, b, sizeof b);
    assert_string_equal(b, "2.50 s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_tables_match_the_recorded_calls),
        cmocka_unit_test(kernels_are_listed_in_launch_order_with_shapes),
        cmocka_unit_test(the_host_sleep_is_the_largest_gap),
        cmocka_unit_test(a_crash_keeps_what_was_recorded),
        cmocka_unit_test(another_profiler_is_named),
        cmocka_unit_test(child_processes_are_merged),
        cmocka_unit_test(busy_time_is_a_union_of_intervals),
        cmocka_unit_test(times_are_written_in_readable_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
