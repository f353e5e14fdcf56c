#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# examples/c/vector_add.c on a GPU: a 20-point space over host arrays, tuned
# through libktune, answers with the verified best and its interval.
set -euo pipefail
"$KT_HAS_GPU" || exit 77
out=$("$KT_EXAMPLE")
echo "$out"
grep -Eq '^ktune.tune: best k bx=[0-9]+: [0-9.]+ us \[[0-9.]+, [0-9.]+\], verified$' <<<"$out"
# bench, profile and tune of a declared kernel through the API.
"$KT_API_GPU" "$KT_SOURCE_DIR" "$KTUNE"
