// SPDX-License-Identifier: Apache-2.0
/* The search space: enumeration and numbering, narrowing, the start point,
 * moving along dimensions (variant included), feasibility against a device
 * without a GPU, and its description in the journal. */
#include "tests/tuner/tuner_test.h"

#include "core/result_json.h"
#include "records/space.h"
#include "tests/support/fake_device.h"

static kt_registry reg;
static const kt_operator *va, *good;

static int setup(void **state)
{
    const kt_loaded_plugin *lp;
    kt_err err;
    (void)state;
    if (tt_load_plugins(&reg) ||
        kt_registry_resolve(&reg, "vector_add:add", &lp, &va, &err) ||
        kt_registry_resolve(&reg, "good:scale", &lp, &good, &err))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kt_registry_free(&reg);
    return 0;
}

static void every_index_is_one_point_and_back(void **state)
{
    kt_space s;
    kt_err err;
    (void)state;
    assert_int_equal(kt_space_init(&s, NULL, va, &err), KT_S_OK);
    assert_int_equal(s.size, 72);
    for (uint64_t i = 0; i < s.size; ++i) {
        kt_point pt;
        uint64_t back = 999;
        kt_space_point(&s, i, &pt);
        assert_int_equal(kt_point_validate(va, &pt, &err), KT_S_OK);
        assert_true(kt_space_index(&s, &pt, &back));
        assert_int_equal(back, i);
        for (uint64_t k = 0; k < i; k += 7) {
            kt_point other;
            kt_space_point(&s, k, &other);
            assert_false(kt_point_equal(&pt, &other));
        }
    }
    /* Variants in declaration order, the last parameter fastest. */
    {
        kt_point pt;
        char text[128];
        kt_space_point(&s, 12 + 1, &pt);
        kt_point_format(va, &pt, text, sizeof text);
        assert_string_equal(text, "grid_stride block=32 blocks_per_sm=2");
    }
    kt_space_free(&s);
}

static void narrowing_keeps_the_declared_order(void **state)
{
    kt_space s;
    kt_err err;
    char *blocks[] = {"1024", "2^6", "256"};
    char *bad[] = {"64", "100"};
    uint32_t keep[] = {3, 0};
    kt_point pt;
    uint64_t index;
    (void)state;
    assert_int_equal(kt_space_init(&s, NULL, va, &err), KT_S_OK);
    assert_int_equal(kt_space_keep_variants(&s, keep, 2, &err), KT_S_OK);
    assert_int_equal(s.num_slots, 2);
    assert_int_equal(s.slots[0].variant, 0);
    assert_int_equal(kt_space_narrow(&s, "block", blocks, 3, &err), KT_S_OK);
    assert_int_equal(s.slots[0].values[0][0], 64);
    assert_int_equal(s.slots[0].values[0][1], 256);
    assert_int_equal(s.slots[0].values[0][2], 1024);
    assert_int_equal(s.size, 3 + 3 * 4);
    assert_int_equal(kt_space_narrow(&s, "block", bad, 2, &err), KT_S_INPUT);
    assert_contains(err.msg, "100 is not one of");
    /* A point outside the narrowed sets is not in the space. */
    kt_point_default(va, 0, &pt);
    pt.values[0] = 128;
    assert_false(kt_space_index(&s, &pt, &index));
    kt_point_default(va, 1, &pt); /* strided: left out */
    assert_false(kt_space_index(&s, &pt, &index));
    kt_space_free(&s);
}

static void the_start_is_the_default_or_the_nearest_allowed(void **state)
{
    kt_space s;
    kt_err err;
    kt_point pt;
    char text[128];
    char *blocks[] = {"32", "128", "512"};
    uint32_t keep[] = {3};
    (void)state;
    assert_int_equal(kt_space_init(&s, NULL, va, &err), KT_S_OK);
    kt_space_start(&s, &pt);
    kt_point_format(va, &pt, text, sizeof text);
    assert_string_equal(text, "coalesced block=256");
    /* 256 is left out: 128 and 512 are equally near; the lower wins. */
    assert_int_equal(kt_space_narrow(&s, "block", blocks, 3, &err), KT_S_OK);
    kt_space_start(&s, &pt);
    kt_point_format(va, &pt, text, sizeof text);
    assert_string_equal(text, "coalesced block=128");
    /* Without variant 0 the first kept variant starts. */
    assert_int_equal(kt_space_keep_variants(&s, keep, 1, &err), KT_S_OK);
    kt_space_start(&s, &pt);
    kt_point_format(va, &pt, text, sizeof text);
    assert_string_equal(text, "vec4 block=128 items=1");
    kt_space_free(&s);
}

static void moving_along_variant_keeps_shared_parameters(void **state)
{
    kt_space s;
    kt_err err;
    kt_point pt, moved;
    char text[128];
    (void)state;
    assert_int_equal(kt_space_init(&s, NULL, va, &err), KT_S_OK);
    kt_point_default(va, 3, &pt); /* vec4 block=256 items=1 */
    pt.values[0] = 64;
    pt.values[1] = 4;
    assert_int_equal(kt_space_dims(&s, &pt), 3);
    assert_string_equal(kt_space_dim_name(&s, &pt, 0), "variant");
    assert_string_equal(kt_space_dim_name(&s, &pt, 2), "items");
    assert_int_equal(kt_space_dim_count(&s, &pt, 0), 4);
    assert_int_equal(kt_space_dim_pos(&s, &pt, 0), 3);
    assert_int_equal(kt_space_dim_pos(&s, &pt, 1), 1);
    kt_space_dim_set(&s, &pt, 0, 2, &moved);
    kt_point_format(va, &moved, text, sizeof text);
    /* block is shared and kept; blocks_per_sm takes its default. */
    assert_string_equal(text, "grid_stride block=64 blocks_per_sm=4");
    kt_space_dim_set(&s, &pt, 2, 3, &moved);
    kt_point_format(va, &moved, text, sizeof text);
    assert_string_equal(text, "vec4 block=64 items=8");
    kt_space_dim_text(&s, &moved, 0, text, sizeof text);
    assert_string_equal(text, "vec4");
    /* One variant: no variant dimension. */
    {
        uint32_t keep[] = {0};
        assert_int_equal(kt_space_keep_variants(&s, keep, 1, &err), KT_S_OK);
        kt_point_default(va, 0, &pt);
        assert_int_equal(kt_space_dims(&s, &pt), 1);
        assert_string_equal(kt_space_dim_name(&s, &pt, 0), "block");
    }
    kt_space_free(&s);
}

static void feasibility_needs_no_gpu(void **state)
{
    kt_space s;
    kt_err err;
    kt_device dev = kt_test_h200();
    int64_t sizes[KT_MAX_SIZES] = {1 << 24};
    uint64_t feasible = 0;
    kt_point pt;
    (void)state;
    assert_int_equal(kt_space_init(&s, NULL, va, &err), KT_S_OK);
    kt_point_default(va, 2, &pt);
    assert_int_equal(kt_space_feasible(&s, &pt, &err), KT_S_UNSUPPORTED);
    kt_space_bind(&s, sizes, 1, &dev);
    /* grid_stride: blocks_per_sm x block <= 2048 threads per SM. */
    assert_int_equal(kt_space_count_feasible(&s, 1000, &feasible, &err),
                     KT_S_OK);
    assert_int_equal(feasible, 62);
    pt.values[0] = 1024;
    pt.values[1] = 4;
    assert_int_equal(kt_space_feasible(&s, &pt, &err), KT_S_INVALID);
    assert_contains(err.msg, "do not fit on one SM");
    assert_int_equal(kt_space_count_feasible(&s, 10, &feasible, &err),
                     KT_S_UNSUPPORTED);
    kt_space_free(&s);
}

/* The plugin's answers counted: vector_add's grid_stride variant with its
 * shape() and check() wrapped (test-local state, one test at a time). */
static const kt_variant *counted_of;
static long plugin_asked;

static int counted_shape(const kt_problem *p, const kt_config *c, kt_shape *out)
{
    ++plugin_asked;
    return counted_of->shape(p, c, out);
}

static int counted_check(const kt_problem *p, const kt_config *c, char *why,
                         size_t why_size)
{
    ++plugin_asked;
    return counted_of->check(p, c, why, why_size);
}

static void a_points_verdict_is_asked_of_the_plugin_once(void **state)
{
    kt_operator op = *va;
    kt_variant v;
    kt_space s;
    kt_err err;
    kt_device dev = kt_test_h200();
    int64_t sizes[KT_MAX_SIZES] = {1 << 24};
    uint64_t feasible = 0, refused = KT_SPACE_MEMO_POINTS;
    long first;
    (void)state;
    for (size_t i = 0; i < va->num_variants; ++i)
        if (strcmp(va->variants[i].id, "grid_stride") == 0)
            counted_of = &va->variants[i];
    assert_non_null(counted_of);
    assert_non_null(counted_of->check);
    v = *counted_of;
    v.shape = counted_shape;
    v.check = counted_check;
    op.variants = &v;
    op.num_variants = 1;
    assert_int_equal(kt_space_init(&s, NULL, &op, &err), KT_S_OK);
    kt_space_bind(&s, sizes, 1, &dev);
    plugin_asked = 0;
    assert_int_equal(kt_space_count_feasible(&s, 1000, &feasible, &err),
                     KT_S_OK);
    first = plugin_asked;
    assert_true(first > 0);
    assert_true(feasible < s.size); /* some points cannot run */
    /* Asked again, every point: answered from the memo, the same verdicts;
     * a refused point's reason is asked again when it is wanted. */
    for (uint64_t i = 0; i < s.size; ++i) {
        kt_point pt;
        kt_space_point(&s, i, &pt);
        if (kt_space_feasible(&s, &pt, NULL) == KT_S_INVALID) {
            if (refused == KT_SPACE_MEMO_POINTS)
                refused = i;
        } else
            assert_int_equal(kt_space_feasible(&s, &pt, &err), KT_S_OK);
    }
    assert_int_equal(plugin_asked, first);
    assert_true(refused < s.size);
    {
        kt_point pt;
        kt_space_point(&s, refused, &pt);
        assert_int_equal(kt_space_feasible(&s, &pt, &err), KT_S_INVALID);
        assert_contains(err.msg, "do not fit on one SM");
        assert_true(plugin_asked > first);
    }
    /* A new problem forgets the verdicts: they belong to the bound sizes. */
    kt_space_bind(&s, sizes, 1, &dev);
    first = plugin_asked;
    assert_int_equal(kt_space_count_feasible(&s, 1000, &feasible, &err),
                     KT_S_OK);
    assert_true(plugin_asked > first);
    kt_space_free(&s);
    counted_of = NULL;
}

static void the_description_changes_with_the_space(void **state)
{
    kt_space a, b;
    kt_err err;
    char *items[] = {"2", "4"};
    char *layout[] = {"rows"};
    json_t *ja, *jb;
    (void)state;
    assert_int_equal(kt_space_init(&a, NULL, va, &err), KT_S_OK);
    assert_int_equal(kt_space_init(&b, NULL, va, &err), KT_S_OK);
    ja = kt_space_to_json(&a);
    jb = kt_space_to_json(&b);
    assert_true(json_equal(ja, jb));
    json_decref(jb);
    assert_int_equal(kt_space_narrow(&b, "items", items, 2, &err), KT_S_OK);
    jb = kt_space_to_json(&b);
    assert_false(json_equal(ja, jb));
    assert_int_equal(json_integer_value(json_object_get(jb, "size")), 60);
    json_decref(ja);
    json_decref(jb);
    kt_space_free(&a);
    kt_space_free(&b);
    /* Enumerations are described by label. */
    assert_int_equal(kt_space_init(&a, NULL, good, &err), KT_S_OK);
    assert_int_equal(kt_space_narrow(&a, "layout", layout, 1, &err), KT_S_OK);
    ja = kt_space_to_json(&a);
    assert_string_equal(
        json_string_value(json_array_get(
            json_object_get(
                json_object_get(
                    json_array_get(json_object_get(ja, "variants"), 0),
                    "params"),
                "layout"),
            0)),
        "rows");
    json_decref(ja);
    kt_space_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_index_is_one_point_and_back),
        cmocka_unit_test(narrowing_keeps_the_declared_order),
        cmocka_unit_test(the_start_is_the_default_or_the_nearest_allowed),
        cmocka_unit_test(moving_along_variant_keeps_shared_parameters),
        cmocka_unit_test(feasibility_needs_no_gpu),
        cmocka_unit_test(a_points_verdict_is_asked_of_the_plugin_once),
        cmocka_unit_test(the_description_changes_with_the_space),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
