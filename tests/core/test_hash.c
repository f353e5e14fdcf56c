// SPDX-License-Identifier: Apache-2.0
/* kt_hash is FNV-1a exactly: its values name cache files on disk (NVRTC
 * binaries, probe verdicts), so they are pinned here, on the published
 * test vectors and on the second base the NVRTC cache uses. */
#include "tests/kt_test.h"

#include "core/hash.h"

#define SECOND_BASE UINT64_C(0x84222325cbf29ce4)

static void the_published_fnv1a_vectors_are_reproduced(void **state)
{
    (void)state;
    assert_true(kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, "", 0) ==
                UINT64_C(0xcbf29ce484222325));
    assert_true(kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, "a", 1) ==
                UINT64_C(0xaf63dc4c8601ec8c));
    assert_true(kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, "foobar", 6) ==
                UINT64_C(0x85944171f73967e8));
    assert_true(kt_hash_fnv1a_str(KT_HASH_FNV1A_BASIS, "foobar") ==
                UINT64_C(0x85944171f73967e8));
    assert_true(kt_hash_fnv1a_str(KT_HASH_FNV1A_BASIS, NULL) ==
                KT_HASH_FNV1A_BASIS);
}

static void the_nvrtc_second_base_gives_its_pinned_values(void **state)
{
    (void)state;
    assert_true(kt_hash_fnv1a(SECOND_BASE, "a", 1) ==
                UINT64_C(0x789e3e398d3ff5ff));
    assert_true(kt_hash_fnv1a(SECOND_BASE, "foobar", 6) ==
                UINT64_C(0x1af21521be519bf9));
}

static void the_128_bit_hex_is_both_hashes_in_order(void **state)
{
    char hex[33];
    (void)state;
    assert_true(KT_HASH_FNV1A_SECOND_BASIS == SECOND_BASE);
    kt_hash_hex128("foobar", 6, hex);
    assert_string_equal(hex, "85944171f73967e81af21521be519bf9");
}

static void a_hash_continues_over_pieces(void **state)
{
    uint64_t h = kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, "foo", 3);
    (void)state;
    assert_true(kt_hash_fnv1a(h, "bar", 3) ==
                kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, "foobar", 6));
    assert_true(kt_hash_fnv1a_str(h, "bar") ==
                kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, "foobar", 6));
    /* Bytes past the size are not read. */
    assert_true(kt_hash_fnv1a(KT_HASH_FNV1A_BASIS, "foobar", 3) == h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_published_fnv1a_vectors_are_reproduced),
        cmocka_unit_test(the_nvrtc_second_base_gives_its_pinned_values),
        cmocka_unit_test(the_128_bit_hex_is_both_hashes_in_order),
        cmocka_unit_test(a_hash_continues_over_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
