#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tune.sh PREFIX OUT: the whole loop for this example, against the ktune
# installed at PREFIX (cmake --install ... --prefix PREFIX):
#   1. build the application and its plugin with find_package(ktune), and
#      the application once more with pkg-config alone (when there is one);
#   2. tune both kernels over their size sweeps (vadd.ini: 5 sizes,
#      gemv.ini: 5 shapes), merging the answers into OUT/app.wisdom.jsonl;
#   3. show and check the wisdom;
#   4. run the application without wisdom (its defaults), then with it:
#      that run times both configurations of every problem in interleaved
#      rounds and prints the speed-ups.
# Everything lands in OUT (logs, journals, the wisdom). Extra arguments of
# `ktune tune` (e.g. --set strategy.max_evals=12) come from $TUNE_ARGS;
# the application's (e.g. --rounds 10) from $APP_ARGS.
# Time on an H200: about 2 minutes (the tuning budgets in the .ini files:
# 24 evaluations or 20 s per size, whichever ends first).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 PREFIX OUT" >&2; exit 2; }
prefix=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
ktune=$prefix/bin/ktune
build=$out/build
read -r -a tune_args <<<"${TUNE_ARGS:-}"
read -r -a app_args <<<"${APP_ARGS:-}"

step() { printf '\n== %s\n' "$*"; }

step "build against $prefix (find_package(ktune))"
cmake -S "$here" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" >"$out/build.log"
cmake --build "$build" -j >>"$out/build.log"
plugin=$build/wisdom_app_kernels.so
pc=$(find "$prefix" -name ktune-select.pc | head -n 1)
if command -v pkg-config >/dev/null && [ -n "$pc" ]; then
    export PKG_CONFIG_PATH=$(dirname "$pc")
    # shellcheck disable=SC2046 # the flags are words
    nvcc -std=c++17 -O2 -arch=sm_90 -o "$build/wisdom_app_pc" "$here/app.cu" \
        $(pkg-config --cflags --libs ktune-select) \
        -Xlinker -rpath="$(pkg-config --variable=libdir ktune-select)"
    echo "built $build/wisdom_app_pc with pkg-config ktune-select as well"
fi

cd "$out"
rm -f app.wisdom.jsonl
for job in vadd gemv; do
    step "ktune tune $job.ini --wisdom app.wisdom.jsonl"
    # A size without an answer (exit 1) leaves the others' answers merged.
    "$ktune" tune "$here/$job.ini" --plugin "$plugin" --wisdom app.wisdom.jsonl \
        "${tune_args[@]}" >"tune-$job.txt" || echo "ktune tune exit $?"
    # The per-size table is the last thing the run prints.
    sed -n '/^sweep:/,$p' "tune-$job.txt"
done

step "ktune wisdom show / check"
"$ktune" wisdom show app.wisdom.jsonl || true
"$ktune" wisdom check app.wisdom.jsonl --plugin "$plugin" || true

step "the application without wisdom: its defaults"
"$build/wisdom_app" "${app_args[@]}" | tee app-defaults.txt
step "the application with wisdom, timed against its defaults in one run"
"$build/wisdom_app" --wisdom app.wisdom.jsonl "${app_args[@]}" | tee app-wisdom.txt
if [ -x "$build/wisdom_app_pc" ]; then
    step "the pkg-config build, quickly"
    "$build/wisdom_app_pc" --wisdom app.wisdom.jsonl --quick --rounds 5 |
        tail -n 1
fi
