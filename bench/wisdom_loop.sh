#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The wisdom loop on a GPU within a deadline (WISDOM_DEADLINE seconds,
# default 57): every step has its own `timeout`, a step that would end
# past the deadline is skipped, and the results page grows after each step,
# so a run cut short keeps what it measured. In order of importance:
#   1. `cmake --install` of the build into a temporary prefix;
#   2. examples/wisdom_app built against it (find_package(ktune); the
#      pkg-config build is the install test's);
#   3. its vadd and gemv kernels tuned through its plugin over 5 sizes each
#      (vadd.ini, gemv.ini; WISDOM_APP_S seconds of one_at_a_time per size,
#      default 0.8), the answers merged into app.wisdom.jsonl;
#   4. the application with the wisdom: its defaults and the wisdom's
#      configurations timed in the same run; then without wisdom (defaults,
#      quick);
#   5. 5-size sweeps of the built-in vector_add:add (n = 2^18..2^26 step x4)
#      and gemv:ax (1024x1024 .. 16384x4096), WISDOM_TUNE_S seconds per size
#      (default 1.0), into builtin.wisdom.jsonl: they run first, on the GPU,
#      while step 2 builds on the CPU.
# About 55 s on an H200. From the repository root:
#   OUT=/path/to/out bash bench/wisdom_loop.sh [BUILD_DIR]
# Writes under $OUT (flat): wisdom_loop.md (the results page, commands
# included), the wisdom files, and a log per step. Prints the page last.
set -u
root=$PWD
build=${1:-build}
out=${OUT:?set OUT to the folder for the results}
deadline=${WISDOM_DEADLINE:-57}
app_s=${WISDOM_APP_S:-0.8}
tune_s=${WISDOM_TUNE_S:-1.0}
mkdir -p "$out"
case $build in
/*) b=$build ;;
*) b=$root/$build ;;
esac
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-wisdom-cache}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
md=$out/wisdom_loop.md
t0=$(date +%s)
prefix=$tmp/prefix
app=$tmp/app
here=$root/examples/wisdom_app
K=$b/ktune

# step CAP LOG CMD...: runs CMD under `timeout CAP` unless that could end
# past the deadline; appends its exit status to LOG.
step() {
    local cap=$1 log=$2 now
    shift 2
    now=$(($(date +%s) - t0))
    if [ $((now + cap)) -gt "$deadline" ]; then
        echo "skipped at ${now} s: ${cap} s would pass the ${deadline} s deadline" >>"$log"
        return 124
    fi
    timeout "$cap" "$@" >>"$log" 2>&1
    local rc=$?
    echo "exit $rc after $(($(date +%s) - t0)) s" >>"$log"
    return $rc
}
fence() { echo '```'; cat; echo '```'; }
table() { sed -n '/^sweep:/,$p' "$1" 2>/dev/null | grep -v '^=== '; }
page() { cat >>"$md"; }

{
    echo "# The wisdom loop on the GPU: tune once, ship the wisdom, select at run time"
    echo
    echo "\`OUT=... bash bench/wisdom_loop.sh\` on $(date -u +%Y-%m-%dT%H:%M:%SZ),"
    echo "$("$K" --version 2>/dev/null), $(nvidia-smi --query-gpu=name,driver_version \
        --format=csv,noheader 2>&1 | head -n 1)."
    echo "one_at_a_time; $app_s s per size for the example's kernels, $tune_s s for the"
    echo "built-in operators; measure.min_time 0.02 s, max_time 0.3 s. Short budgets:"
    echo "the point is the loop, not the best answer."
    echo
} >"$md"

step 5 "$out/install.log" cmake --install "$b" --prefix "$prefix"
[ -x "$prefix/bin/ktune" ] && K=$prefix/bin/ktune
# The example builds on the CPU while the built-in sweeps use the GPU.
(
    step 12 "$out/build.log" cmake -S "$here" -B "$app/build" \
        -DCMAKE_PREFIX_PATH="$prefix" &&
        step 14 "$out/build.log" cmake --build "$app/build" -j
) &
building=$!
quick=(--set measure.min_time=0.02 --set measure.max_time=0.3)
cd "$tmp" || exit 1
builtin=(--set strategy.max_seconds="$tune_s" "${quick[@]}" --wisdom builtin.wisdom.jsonl)
# The first tuning run also calibrates the device (once, then cached).
step 10 "$out/sweep-vector_add.txt" "$K" tune "$root/configs/vector_add.ini" \
    --set "job.n=2^18..2^26 step x4" --journal vector_add.jsonl "${builtin[@]}"
step 10 "$out/sweep-gemv_ax.txt" "$K" tune "$root/configs/gemv_ax.ini" \
    --set "job.m, n=1024x1024, 2048x2048, 4096x4096, 8192x8192, 16384x4096" \
    --journal gemv_ax.jsonl "${builtin[@]}"
cp builtin.wisdom.jsonl "$out/" 2>/dev/null
"$K" wisdom show builtin.wisdom.jsonl >"$out/builtin-wisdom.txt" 2>&1
{
    echo "## Size sweeps of the built-in operators into one wisdom file"
    echo
    echo "\`ktune tune configs/vector_add.ini --set \"job.n=2^18..2^26 step x4\" --wisdom builtin.wisdom.jsonl\`"
    echo
    table "$out/sweep-vector_add.txt" | fence
    echo
    echo "\`ktune tune configs/gemv_ax.ini --set \"job.m, n=1024x1024, 2048x2048, 4096x4096, 8192x8192, 16384x4096\" --wisdom builtin.wisdom.jsonl\`"
    echo
    table "$out/sweep-gemv_ax.txt" | fence
    echo
    echo "\`ktune wisdom show builtin.wisdom.jsonl\`"
    echo
    fence <"$out/builtin-wisdom.txt"
} | page
wait "$building"
cd "$app" 2>/dev/null || cd "$tmp"
for job in vadd gemv; do
    # gemv's sizes cost more to set up (the host reference, verification).
    step $([ $job = vadd ] && echo 11 || echo 12) "$out/tune-$job.txt" \
        "$K" tune "$here/$job.ini" \
        --plugin "$app/build/wisdom_app_kernels.so" --wisdom app.wisdom.jsonl \
        --set strategy.max_seconds="$app_s" "${quick[@]}"
done
cp app.wisdom.jsonl "$out/" 2>/dev/null
# The file holds every size tuned so far, even of a sweep cut short.
"$K" wisdom show app.wisdom.jsonl >"$out/app-wisdom-show.txt" 2>&1
{
    echo "## examples/wisdom_app: the application's own kernels, tuned through its plugin"
    echo
    echo "\`ktune tune examples/wisdom_app/vadd.ini --plugin wisdom_app_kernels.so --wisdom app.wisdom.jsonl\`, then \`gemv.ini\`:"
    echo
    { table "$out/tune-vadd.txt"; echo; table "$out/tune-gemv.txt"; } | fence
    echo
    echo "\`ktune wisdom show app.wisdom.jsonl\`:"
    echo
    fence <"$out/app-wisdom-show.txt"
    echo
} | page

step 6 "$out/app-wisdom.txt" "$app/build/wisdom_app" --wisdom app.wisdom.jsonl --rounds 10
{
    echo "The application with the wisdom, timed against its own defaults in the"
    echo "same run (interleaved rounds, one launch of each per round, the L2"
    echo "flushed before every launch; sizes not tuned get the nearest entry):"
    echo
    fence <"$out/app-wisdom.txt"
    echo
} | page
step 4 "$out/app-defaults.txt" "$app/build/wisdom_app" --quick --rounds 3
echo "[$(($(date +%s) - t0)) s] done" >&2
cat "$md"
