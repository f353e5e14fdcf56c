# SPDX-License-Identifier: Apache-2.0
# Without a GPU every GPU command exits 1 with one line saying no CUDA device
# was found: no crash, no cascade of CUDA errors. (On a GPU machine this
# script has nothing to prove and reports skipped.)
. "$(dirname "$0")/lib.sh"

if "$KT_HAS_GPU"; then
    echo "a GPU is present: nothing to check here"
    exit 77
fi
expect_exit 1 "$KTUNE" info
expect_text "no CUDA device or driver found on this machine (CUDA: "
expect_lines 1
expect_exit 1 "$KTUNE" bench vector_add:add --variant strided
expect_text "no CUDA device or driver found on this machine (CUDA: "
expect_lines 1
finish
