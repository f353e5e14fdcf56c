# SPDX-License-Identifier: Apache-2.0
# libktune-select and examples/wisdom_app from the installed, moved prefix
# (fixture ktune_installed): the header, the library, ktune::select and
# ktune-select.pc are installed; a plain C program built with pkg-config
# alone, and a C project built with find_package(ktune), pick
# configurations from a wisdom file the installed ktune wrote (a sweep over
# recordings) and link no CUDA library; the example application and its
# plugin build with find_package(ktune) and the installed ktune lists the
# plugin and checks its sweep jobs.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
unset KTUNE_PLUGIN_PATH CUDAARCHS

P=$KT_INSTALL_WORK/moved
K=$P/bin/ktune
DATA=$KT_SOURCE_DIR/tests/data
[ -x "$K" ] || { echo "FAIL: no $K: run the install test first"; exit 1; }
rm -rf app-build cproj cproj-build ./*.jsonl ./*.lock pick
pc=$(find "$P" -name ktune-select.pc)
lib=$(find "$P" -name 'libktune-select.so*' | head -n 1)
for f in "$P/include/ktune/select.h" "$pc" "$lib"; do
    [ -e "$f" ] || { echo "FAIL: $f is not installed"; failures=$((failures + 1)); }
done
[ "$failures" = 0 ] || finish

# A sanitized build (KT_SANITIZE) installs a libktune-select that needs
# the ASan runtime first: plain programs that link it run with it preloaded.
asan=$(ldd "$lib" | awk '/libasan/ {print $3}')
run() { if [ -n "$asan" ]; then LD_PRELOAD=$asan "$@"; else "$@"; fi; }

# Wisdom from the installed ktune: a sweep over three recordings.
expect_exit 0 "$K" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --quiet \
    --replay "$DATA/vector_add-h200-n1048576.jsonl" \
    --replay "$DATA/vector_add-h200-n16777216.jsonl" \
    --replay "$DATA/vector_add-h200-n268435456.jsonl" --wisdom w.jsonl
expect_text "wisdom w.jsonl: 3 answer(s) added"

cat > pick.c <<'C'
#include <ktune/select.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    kt_select_wisdom *w = NULL;
    kt_select_error e;
    kt_select_config c;
    int64_t n = atoll(argv[3]);
    if (kt_select_open(argv[1], &w, &e) != KT_SELECT_OK)
        fprintf(stderr, "defaults: %s\n", e.msg);
    int rc = kt_select(w, "vector_add:add", argv[2], &n, 1, &c);
    printf("rc %d %s block=%lld\n", rc, c.entry ? c.variant : "default",
           (long long)kt_select_get(&c, "block", 256));
    kt_select_close(w);
    return 0;
}
C
export PKG_CONFIG_PATH=$(dirname "$pc")
expect_exit 0 "$KT_PKG_CONFIG" --cflags --libs ktune-select
flags=$out
expect_exit 0 "$KT_PKG_CONFIG" --variable=libdir ktune-select
libdir=$out
# shellcheck disable=SC2086 # the flags are words
expect_exit 0 cc -std=c99 -o pick pick.c $flags "-Wl,-rpath,$libdir"
expect_exit 0 run ./pick w.jsonl "NVIDIA H200" 16777216
expect_text "rc 0 vec4"
expect_exit 0 run ./pick w.jsonl "9.0" 3000000
expect_text "rc 1 vec4"
expect_exit 0 run ./pick missing.jsonl "NVIDIA H200" 16777216
expect_text "defaults: missing.jsonl: cannot open"
expect_text "rc 2 default block=256"
expect_exit 0 ldd ./pick
if grep -qiE "libcuda|libcudart" <<<"$out"; then
    echo "FAIL: a libktune-select program links CUDA:"
    echo "$out"
    failures=$((failures + 1))
fi

# A C project: find_package(ktune), ktune::select.
mkdir -p cproj
cp pick.c cproj/
cat > cproj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.25)
project(pick LANGUAGES C)
find_package(ktune 0.1 REQUIRED)
add_executable(pick pick.c)
target_link_libraries(pick PRIVATE ktune::select)
CM
expect_exit 0 "$KT_CMAKE" -S cproj -B cproj-build -G "$KT_GENERATOR" \
    -DCMAKE_PREFIX_PATH="$P"
expect_exit 0 "$KT_CMAKE" --build cproj-build
expect_exit 0 run cproj-build/pick w.jsonl "NVIDIA H200" 1048576
expect_text "rc 0 vec4 block=64"

# The example application and its plugin.
expect_exit 0 "$KT_CMAKE" -S "$KT_SOURCE_DIR/examples/wisdom_app" -B app-build \
    -G "$KT_GENERATOR" -DCMAKE_CUDA_COMPILER="$KT_CUDA_COMPILER" \
    -DCMAKE_PREFIX_PATH="$P"
expect_exit 0 "$KT_CMAKE" --build app-build
[ -x app-build/wisdom_app ] || { echo "FAIL: no wisdom_app"; failures=$((failures + 1)); }
expect_exit 0 "$K" list --plugin "$PWD/app-build/wisdom_app_kernels.so"
expect_text "operator wisdom_app:vadd"
expect_text "operator wisdom_app:gemv"
expect_text "variant block_row"
expect_exit 0 "$K" tune "$KT_SOURCE_DIR/examples/wisdom_app/vadd.ini" \
    --plugin "$PWD/app-build/wisdom_app_kernels.so" --check
expect_text "sweep of 5 sizes, one search each: n=262144, n=1048576, n=4194304, n=16777216, n=67108864"
expect_exit 0 "$K" tune "$KT_SOURCE_DIR/examples/wisdom_app/gemv.ini" \
    --plugin "$PWD/app-build/wisdom_app_kernels.so" --check
expect_text "sweep of 5 sizes"
expect_exit 0 "$K" wisdom check w.jsonl
expect_text "3 current"
finish
