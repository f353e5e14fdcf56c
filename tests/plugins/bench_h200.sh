#!/usr/bin/env bash
# The H200 run of the built-in plugins (issue 6, parts 1-3): the plugin
# tests (CPU and GPU), then kt_plugin_bench on the shapes — each
# operator's variants at their best found configuration, side by side with
# the reference (cublas, cub, memcpy) in interleaved rounds.
#
# From the repository root, with the build folder carried:
#   OUT=/path/to/out bash tests/plugins/bench_h200.sh [BUILD_DIR [WHAT]]
# BUILD_DIR (default build-plugins) is a build configured at
# /work/main/BUILD_DIR on the development machine, or an absolute path that
# is valid here; WHAT is all (default), tests or bench.
# Writes under $OUT (each file as soon as its part is done, so a run cut
# short still returns what it measured):
#   plugin_tests.log       ctest output of the plugin tests
#   plugin_bench.md        one Markdown table per operator and shape
#   plugin_bench.log       progress and anything that failed
#   plugin_bench_json.tgz  one JSON record per table, raw samples included
# and prints the one-line summaries (best variant vs reference) at the end.
set -u
root=$PWD
build=${1:-build-plugins}
what=${2:-all}
out=${OUT:?set OUT to the folder for the logs}
mkdir -p "$out"

# The build has the absolute paths of the machine it was made on
# (/work/main/...): make that path lead here.
if [ "$(cd /work/main 2>/dev/null && pwd -P)" != "$(pwd -P)" ]; then
    mkdir -p /work && ln -sfn "$root" /work/main
fi
[ -d "$root/.devlibs" ] &&
    export LD_LIBRARY_PATH="$root/.devlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-plugin-bench-cache}
case $build in
/*) b=$build ;;
*) b=/work/main/$build ;;
esac
bench=$b/tests/plugins/kt_plugin_bench
json=$(mktemp -d)
md=$out/plugin_bench.md
log=$out/plugin_bench.log
: >"$md"
: >"$log"

if [ "$what" != bench ]; then
    echo "== plugin tests"
    timeout 300 ctest --test-dir "$b" --output-on-failure -V \
        -R '^test_(gemv|reduce|basic)_plugin|^test_gpu_(gemv|reduce|basics)_verified' \
        >"$out/plugin_tests.log" 2>&1
    echo "ctest exit $?"
    grep -E "tests passed|tests failed|Failed|FAIL|verified [0-9]+|Test +#" \
        "$out/plugin_tests.log" | head -40
fi
[ "$what" = tests ] && exit 0

n=0
run() { # run SPEC [ARGS...]: one table, at most 150 s
    n=$((n + 1))
    echo "== $*" >>"$log"
    timeout 150 "$bench" "$@" --json "$json/$n.json" >>"$md" 2>>"$log"
    local rc=$?
    [ $rc -eq 0 ] || echo "FAILED ($rc): $*" | tee -a "$log" >>"$md"
    tar czf "$out/plugin_bench_json.tgz" -C "$json" .
}

echo "== benchmarks"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv,noheader >>"$md" 2>&1
for shape in "m=16384 n=16384" "m=65536 n=4096" "m=4096 n=65536" \
    "m=1024 n=1024"; do
    # shellcheck disable=SC2086
    run gemv:ax $shape --reference cublas --budget 600
    # shellcheck disable=SC2086
    run gemv:atx $shape --reference cublas --budget 600
done
for size in 2^28 2^20 2^10; do
    run reduce:sum n=$size --reference cub
done
run copy:copy n=2^28 --reference memcpy
run vector_add:add n=2^28
run saxpy:saxpy n=2^24
run matrix_add:add m=8192 n=8192
run empty:launch n=1

rm -rf "$json"
echo "== summaries (tables in plugin_bench.md)"
grep -E "^summary:|^FAILED" "$md"
