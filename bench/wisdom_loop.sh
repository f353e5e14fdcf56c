#!/usr/bin/env bash
# The wisdom loop on a GPU, in about 3 minutes (at most 200 s: each step
# is capped with `timeout`):
#   1. `cmake --install` of the build into a temporary prefix;
#   2. 5-size sweeps of the built-in vector_add:add (n = 2^20..2^28 step x4)
#      and gemv:ax (1024x1024 .. 4096x65536) with --wisdom: a search per
#      size (one_at_a_time, WISDOM_TUNE_S seconds each, default 5) and the
#      table per size;
#   3. examples/wisdom_app/tune.sh against the install: the example's
#      application and plugin built with find_package(ktune) (and with
#      pkg-config), its kernels tuned over 5 sizes each (4 s per size),
#      the wisdom written, and the application run without wisdom and with
#      it, timing its defaults against the wisdom's configurations in one
#      run.
# From the repository root:
#   OUT=/path/to/out bash bench/wisdom_loop.sh [BUILD_DIR]
# BUILD_DIR (default build): the build to install, configured at
# /work/main/BUILD_DIR on the development machine or an absolute path.
# Writes under $OUT: wisdom_loop.md (the results page, commands included),
# the wisdom files and the logs of every step. Prints the tables last.
set -u
root=$PWD
build=${1:-build}
out=${OUT:?set OUT to the folder for the results}
tune_s=${WISDOM_TUNE_S:-5}
mkdir -p "$out"

# The build has the absolute paths of the machine it was made on
# (/work/main/...): make that path lead here when nothing is there.
if [ ! -e /work/main ]; then
    mkdir -p /work && ln -s "$root" /work/main
fi
[ -d "$root/.devlibs" ] &&
    export LD_LIBRARY_PATH="$root/.devlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-wisdom-cache}
case $build in
/*) b=$build ;;
*) b=$root/$build ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
md=$out/wisdom_loop.md
t0=$(date +%s)
note() { echo "[$(($(date +%s) - t0)) s] $*" >&2; }
fence() { echo '```'; cat; echo '```'; }

note "install $b into $tmp/prefix"
timeout 15 cmake --install "$b" --prefix "$tmp/prefix" >"$out/install.log" 2>&1 ||
    note "install failed: see install.log"
K=$tmp/prefix/bin/ktune
[ -x "$K" ] || K=$b/ktune
quick=(--set strategy.max_seconds="$tune_s" --set measure.min_time=0.02
       --set measure.max_time=0.5)

note "built-in sweeps, $tune_s s per size"
(
    cd "$tmp" || exit 1
    timeout 40 "$K" tune "$root/configs/vector_add.ini" \
        --set "job.n=2^20..2^28 step x4" "${quick[@]}" \
        --journal vector_add.jsonl --wisdom builtin.wisdom.jsonl \
        >"$out/sweep-vector_add.txt" 2>&1
    echo "exit $?" >>"$out/sweep-vector_add.txt"
    timeout 40 "$K" tune "$root/configs/gemv_ax.ini" \
        --set "job.m, n=1024x1024, 4096x4096, 16384x16384, 65536x4096, 4096x65536" \
        "${quick[@]}" --journal gemv_ax.jsonl --wisdom builtin.wisdom.jsonl \
        >"$out/sweep-gemv_ax.txt" 2>&1
    echo "exit $?" >>"$out/sweep-gemv_ax.txt"
    cp builtin.wisdom.jsonl "$out/" 2>/dev/null
    "$K" wisdom show builtin.wisdom.jsonl >"$out/builtin-wisdom.txt" 2>&1
)

note "examples/wisdom_app/tune.sh"
TUNE_ARGS="--set strategy.max_seconds=4" APP_ARGS="--rounds 20" \
    timeout 105 bash "$root/examples/wisdom_app/tune.sh" "$tmp/prefix" "$tmp/app" \
    >"$out/tune_sh.log" 2>&1
note "tune.sh exit $?"
for f in tune-vadd.txt tune-gemv.txt app.wisdom.jsonl app-defaults.txt \
         app-wisdom.txt build.log; do
    [ -f "$tmp/app/$f" ] && cp "$tmp/app/$f" "$out/"
done

table() { sed -n '/^sweep:/,$p' "$1" 2>/dev/null; grep -h "^wisdom \|^exit " "$1" 2>/dev/null; }
{
    echo "# The wisdom loop on the GPU: tune once, ship the wisdom, select at run time"
    echo
    echo "Run by \`OUT=... bash bench/wisdom_loop.sh\` on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "($("$K" --version 2>/dev/null)), $(nvidia-smi --query-gpu=name,driver_version \
        --format=csv,noheader 2>&1 | head -n 1). Tuning: one_at_a_time, $tune_s s"
    echo "per size for the built-in operators, 4 s for the example's kernels;"
    echo "measure.min_time 0.02 s, max_time 0.5 s."
    echo
    echo "## Size sweeps of the built-in operators, answers merged into one wisdom file"
    echo
    echo "\`ktune tune configs/vector_add.ini --set \"job.n=2^20..2^28 step x4\" --wisdom builtin.wisdom.jsonl\`"
    echo
    table "$out/sweep-vector_add.txt" | fence
    echo
    echo "\`ktune tune configs/gemv_ax.ini --set \"job.m, n=1024x1024, 4096x4096, 16384x16384, 65536x4096, 4096x65536\" --wisdom builtin.wisdom.jsonl\`"
    echo
    table "$out/sweep-gemv_ax.txt" | fence
    echo
    echo "\`ktune wisdom show builtin.wisdom.jsonl\`"
    echo
    fence <"$out/builtin-wisdom.txt"
    echo
    echo "## examples/wisdom_app: its own kernels, tuned through its plugin"
    echo
    echo "\`examples/wisdom_app/tune.sh PREFIX OUT\` (built against the install)."
    echo
    table "$out/tune-vadd.txt" | fence
    echo
    table "$out/tune-gemv.txt" | fence
    echo
    echo "The application with its wisdom, timed against its defaults in the"
    echo "same run (interleaved rounds, L2 flushed before every launch;"
    echo "between-size problems get the nearest entry):"
    echo
    fence <"$out/app-wisdom.txt"
} >"$md" 2>/dev/null
note "wrote $md"
cat "$md"
