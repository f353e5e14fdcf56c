#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# libktune from the installed, moved prefix (fixture ktune_installed): the
# header, libktune.so.0 (soname, RUNPATH $ORIGIN, no libmpi among its
# dependencies: the CUDA runtime is one since runs are in process; its
# libiniparser the copy installed beside it), a whole libktune.a (the
# command library's objects in it) and libktune.pc installed;
# examples/c/vector_add.c built with pkg-config alone and with
# find_package(ktune) (ktune::libktune) checks its declaration through the
# installed ktune, which the library finds relative to itself (no
# KTUNE_EXE, no build tree on PATH).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
unset KTUNE_PLUGIN_PATH KTUNE_EXE CUDAARCHS

P=$KT_INSTALL_WORK/moved
[ -x "$P/bin/ktune" ] || { echo "FAIL: no $P/bin/ktune: run the install test first"; exit 1; }
rm -rf cproj cproj-build vadd
pc=$(find "$P" -name libktune.pc)
lib=$(find "$P" -name 'libktune.so.0' | head -n 1)
for f in "$P/include/ktune/ktune.h" "$pc" "$lib" "$(dirname "$lib")/libktune.a"; do
    [ -e "$f" ] || { echo "FAIL: $f is not installed"; failures=$((failures + 1)); }
done
[ "$failures" = 0 ] || finish

expect_exit 0 ldd "$lib"
if grep -qiE "libmpi" <<<"$out"; then
    echo "FAIL: libktune links MPI:"
    echo "$out"
    failures=$((failures + 1))
fi
if ! grep -q "libiniparser.so.1 => $(dirname "$lib")/" <<<"$out"; then
    echo "FAIL: libktune's libiniparser is not the installed copy: $out"
    failures=$((failures + 1))
fi
expect_exit 0 nm "$(dirname "$lib")/libktune.a"
expect_text "T kt_embed_run"
expect_exit 0 readelf -d "$lib"
expect_text "Library soname: [libktune.so.0]"
expect_text '$ORIGIN]'
if grep -q "$KT_BUILD_DIR\|$KT_SOURCE_DIR" <<<"$out"; then
    echo "FAIL: libktune names a path of the build machine: $out"
    failures=$((failures + 1))
fi

# A sanitized build's library needs the ASan runtime preloaded.
asan=$(ldd "$lib" | awk '/libasan/ {print $3}')
run() { if [ -n "$asan" ]; then LD_PRELOAD=$asan "$@"; else "$@"; fi; }

export PKG_CONFIG_PATH=$(dirname "$pc")
expect_exit 0 "$KT_PKG_CONFIG" --cflags --libs libktune
flags=$out
expect_exit 0 "$KT_PKG_CONFIG" --variable=libdir libktune
libdir=$out
# shellcheck disable=SC2086 # the flags are words
expect_exit 0 cc -std=c11 -o vadd "$KT_SOURCE_DIR/examples/c/vector_add.c" \
    $flags "-Wl,-rpath,$libdir"
PATH=/usr/bin:/bin expect_exit 0 run ./vadd --check
expect_text "ktune.check"

mkdir -p cproj
cp "$KT_SOURCE_DIR/examples/c/vector_add.c" cproj/
cat > cproj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.25)
project(vadd LANGUAGES C)
find_package(ktune 0.1 REQUIRED)
add_executable(vadd vector_add.c)
target_link_libraries(vadd PRIVATE ktune::libktune)
CM
expect_exit 0 "$KT_CMAKE" -S cproj -B cproj-build -G "$KT_GENERATOR" \
    -DCMAKE_PREFIX_PATH="$P"
expect_exit 0 "$KT_CMAKE" --build cproj-build
PATH=/usr/bin:/bin expect_exit 0 run cproj-build/vadd --check
expect_text "ktune.check"
finish
