# SPDX-License-Identifier: Apache-2.0
# The pure floors are pure where they are linked, not only in their
# includes (issue 27): no pure library needs a symbol only engine/ or
# isolation/ defines (check_pure_libs.sh, which must catch a library that
# does: ktune_isolation, which runs the local evaluator), and the CPU test
# binaries built on them load neither libcudart nor libnvrtc and run.
#   test_cuda_free.sh BASE ENGINE ISOLATION PURE_LIB... -- BINARY...
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
check=$KT_SOURCE_DIR/tests/app/check_pure_libs.sh
base=$1 engine=$2 isolation=$3
shift 3
libs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    libs+=("$1")
    shift
done
shift
[ ${#libs[@]} -gt 0 ] && [ $# -gt 0 ] ||
    { echo "FAIL: no libraries or no binaries given"; exit 1; }

expect_exit 0 bash "$check" "$base" "$engine" "$isolation" "${libs[@]}"
expect_text "pure libraries need nothing of engine/ or isolation/"
# Planted: a library that does need the engine is caught.
expect_exit 1 bash "$check" "$base" "$engine" "$isolation" "$isolation"
expect_text "(defined only in engine/ or isolation/)"

if command -v ldd >/dev/null; then
    for bin in "$@"; do
        loaded=$(ldd "$bin" 2>&1 | grep -E 'libcudart|libnvrtc|libcuda\.')
        [ -z "$loaded" ] || {
            echo "FAIL: $(basename "$bin") loads CUDA:"
            echo "$loaded" | sed 's/^/    /'
            failures=$((failures + 1))
        }
    done
    echo "ldd: $# CPU test binaries checked"
else
    echo "no ldd: the binaries are not checked"
fi
# And one runs, where the CUDA libraries cannot be found even by path.
expect_exit 0 env LD_LIBRARY_PATH=/nonexistent "$1"
finish
