// SPDX-License-Identifier: Apache-2.0
/* kt_u64map: what is put is got back, a put replaces, the map grows past
 * any count, and its byte counts are what a budget (the oracle's memo,
 * isolation/oracle_memo.c) may plan by: the bytes after a put are the bytes
 * kt_u64map_bytes_after_put said before it. */
#include "tests/kt_test.h"

#include "core/u64map.h"

static void what_is_put_is_got_and_a_put_replaces(void **state)
{
    kt_u64map map;
    uint64_t v = 0;
    (void)state;

    kt_u64map_init(&map);
    assert_int_equal(kt_u64map_get(&map, 7, &v), 0);
    assert_int_equal(kt_u64map_put(&map, 7, 70, NULL), KT_S_OK);
    assert_int_equal(kt_u64map_get(&map, 7, &v), 1);
    assert_true(v == 70);
    assert_int_equal(kt_u64map_put(&map, 7, 71, NULL), KT_S_OK);
    assert_int_equal(kt_u64map_get(&map, 7, &v), 1);
    assert_true(v == 71);
    assert_true(map.count == 1);
    assert_int_equal(kt_u64map_get(&map, 8, NULL), 0);
    kt_u64map_free(&map);
}

static void every_key_survives_growth(void **state)
{
    kt_u64map map;
    uint64_t v;
    (void)state;

    kt_u64map_init(&map);
    for (uint64_t k = 0; k < 5000; ++k)
        assert_int_equal(kt_u64map_put(&map, k * 0x9e3779b9u, k, NULL),
                         KT_S_OK);
    assert_true(map.count == 5000);
    assert_true(2 * map.count <= map.capacity);
    for (uint64_t k = 0; k < 5000; ++k) {
        assert_int_equal(kt_u64map_get(&map, k * 0x9e3779b9u, &v), 1);
        assert_true(v == k);
    }
    kt_u64map_free(&map);
}

static void the_bytes_after_a_put_are_as_foretold(void **state)
{
    kt_u64map map;
    (void)state;

    kt_u64map_init(&map);
    assert_true(kt_u64map_bytes(&map) == 0);
    for (uint64_t k = 0; k < 300; ++k) {
        size_t foretold = kt_u64map_bytes_after_put(&map);
        assert_true(foretold >= kt_u64map_bytes(&map));
        assert_int_equal(kt_u64map_put(&map, k, k, NULL), KT_S_OK);
        assert_true(kt_u64map_bytes(&map) == foretold);
    }
    kt_u64map_free(&map);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(what_is_put_is_got_and_a_put_replaces),
        cmocka_unit_test(every_key_survives_growth),
        cmocka_unit_test(the_bytes_after_a_put_are_as_foretold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
