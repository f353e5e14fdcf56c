#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tuning goals on the H200, in about four minutes of GPU time: for
# every shape, a short tuning run over all variants (`ktune tune`, a time
# budget per shape, every evaluation in a journal), then `ktune compare
# --from` that journal: each variant at its fastest verified record, all
# measured together in interleaved rounds against the reference (cublas,
# cub, memcpy), with counters and a diagnosis.
#
#   gemv:ax and gemv:atx at 16384x16384, 65536x4096, 4096x65536, 1024x1024
#   reduce:sum at 2^28 and 2^20                      (against cub)
#   vector_add:add at 2^28                           (against the copy ceiling)
#   copy:copy at 2^28, kernels against memcpy        (the ceiling, this run)
#
# From the repository root, with the build folder carried:
#   OUT=/path/to/out bash bench/goals_h200.sh [BUILD_DIR]
# BUILD_DIR (default build) is the build folder, relative to the repository
# root or absolute. GOALS_TUNE_S
# (default 8) is the tuning budget of a large shape in seconds; small
# shapes get half.
# Writes under $OUT (the Markdown as it goes, so a run cut short keeps what
# it measured):
#   goals_h200.md    summary table, then every comparison with its commands
#   goals_h200.log   the tuning runs' tables, notes and anything that failed
#   goals_data.tgz   journals, tuning summaries, compare JSON and CSV
set -u
root=$PWD
build=${1:-build}
out=${OUT:?set OUT to the folder for the results}
tune_s=${GOALS_TUNE_S:-8}
mkdir -p "$out"

[ -d "$root/.devlibs" ] &&
    export LD_LIBRARY_PATH="$root/.devlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-goals-cache}
case $build in
/*) b=$build ;;
*) b=$root/$build ;;
esac
K=$b/ktune
cfg=$root/configs
data=$(mktemp -d)
ln -s "$cfg" "$data/configs"
md=$out/goals_h200.md
body=$data/body.md
log=$out/goals_h200.log
goals=$data/goals.tsv
: >"$body"
: >"$log"
: >"$goals"
# The comparison's protocol: interleaved rounds until 0.1 s of GPU time per
# variant and 0.5% noise, at most 2 s per comparison.
proto="--min-time 0.1 --max-time 2 --noise 0.005"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
t0=$(date +%s)

header() {
    echo "# ktune on the H200: tuned variants against the vendor libraries"
    echo
    echo "Tuning goals, run by \`bench/goals_h200.sh\` on $started"
    echo "($($K --version 2>/dev/null)); GPU:"
    echo
    echo '```'
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
        --format=csv 2>&1
    echo '```'
    echo
    echo "Each section: a short tuning run over every variant (the command"
    echo "is under the table; its journal is in goals_data.tgz), then"
    echo "\`ktune compare --from\` that journal: each variant at its fastest"
    echo "verified record, all verified again and measured together in"
    echo "interleaved rounds, speed-ups as medians of per-round ratios"
    echo "against the reference with their 95% intervals."
    echo
}

# Appends one goal line: name, shape, reference, best, its speed-up, verdict.
verdict() { # verdict NAME COMPARE_JSON
    python3 - "$1" "$2" >>"$goals" 2>>"$log" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
c = json.load(open(path))
shape = " ".join(f"{k}={v}" for k, v in c["sizes"].items())
rows = [v for v in c["variants"] if v["status"] == "ok"]
ref = [v for v in c["variants"] if v["reference"]][0]
others = [v for v in rows if not v["reference"]]
if ref["status"] != "ok" or not others:
    print(f"{name}\t{shape}\t{ref['variant']}\t-\t-\t-\t-\t-\tno comparison")
    sys.exit()
best = min(others, key=lambda v: v["stats"]["median_us"])
s = best["vs_reference"]
pct = best["derived"].get("pct_of_copy")
if name == "vector_add:add":
    # Its goal is the copy ceiling, not another vector_add variant.
    word = (f"met: {pct:.1f}% of the copy ceiling" if pct and pct >= 100
            else f"NOT met: {pct or 0:.1f}% of the copy ceiling")
elif s["lo"] > 1:
    word = "met: faster"
elif s["hi"] < 1:
    word = "NOT met: slower"
else:
    word = "tie (95% interval holds 1)"
print(f"{name}\t{shape}\t{ref['variant']}\t{ref['stats']['median_us']:.2f}"
      f"\t{best['variant']} {best['config'].split(' ', 1)[-1] if ' ' in best['config'] else ''}"
      f"\t{best['stats']['median_us']:.2f}"
      f"\t{s['speedup']:.3f}x [{s['lo']:.3f}, {s['hi']:.3f}]"
      f"\t{best['derived']['bandwidth_gbs']:.0f} GB/s"
      + (f" ({pct:.1f}% of copy)" if pct else "") + f"\t{word}")
PY
}

tuned_line() { # tuned_line SUMMARY_JSON
    python3 - "$1" 2>>"$log" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"(no tuning summary: {e})")
    sys.exit()
b = s.get("best")
print(f"{s['evaluations']} evaluations in {s['elapsed_s']:.1f} s "
      f"({s['stop_reason']}); answer "
      + (f"`{b['config']}` at {b['median_us']:.2f} µs" if b else "none"))
PY
}

# run_case NAME SPEC CONFIG SECONDS [--set ...]: tune, then compare.
run_case() {
    local name=$1 spec=$2 config=$3 secs=$4
    shift 4
    # Run in the data folder, so the files are named as the report shows.
    local tune=(tune "configs/$config" "$@" --set "strategy.max_seconds=$secs"
        --set strategy.max_evals=0 --journal "$name.jsonl"
        --json "$name.tune.json")
    # shellcheck disable=SC2206
    local cmp=(compare "$spec" --from "$name.jsonl" $proto
        --json "$name.json" --csv "$name.csv")
    echo "== $name: tune (${secs} s budget) [$(($(date +%s) - t0)) s]" | tee -a "$log"
    (cd "$data" && timeout $((secs + 90)) "$K" "${tune[@]}") >>"$log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || echo "FAILED ($rc): ktune ${tune[*]}" | tee -a "$log"
    echo "== $name: compare [$(($(date +%s) - t0)) s]" | tee -a "$log"
    (cd "$data" && timeout 150 "$K" "${cmp[@]}") >>"$body" 2>>"$log"
    rc=$?
    [ $rc -eq 0 ] ||
        printf '\nFAILED (%s): ktune %s\n\n' "$rc" "${cmp[*]}" | tee -a "$log" >>"$body"
    {
        echo "Tuned with \`ktune ${tune[*]}\`:"
        tuned_line "$data/$name.tune.json"
        echo
        echo "Compared with \`ktune ${cmp[*]}\`."
        echo
    } >>"$body"
    [ -f "$data/$name.json" ] && verdict "$spec" "$data/$name.json"
    tar czf "$out/goals_data.tgz" -C "$data" --exclude=configs --exclude=body.md --exclude=goals.tsv .
    { header; cat "$body"; } >"$md"
}

# Large shapes move 1 GiB per launch; the small ones get half the budget.
half=$(((tune_s + 1) / 2))
for op in ax atx; do
    for shape in 16384x16384 65536x4096 4096x65536 1024x1024; do
        m=${shape%x*}
        nn=${shape#*x}
        secs=$tune_s
        [ "$shape" = 1024x1024 ] && secs=$half
        run_case "gemv_$op-$shape" "gemv:$op" "gemv_$op.ini" "$secs" \
            --set "job.m=$m" --set "job.n=$nn"
    done
done
run_case "reduce-2p28" reduce:sum reduce.ini "$tune_s" --set job.n=2^28
run_case "reduce-2p20" reduce:sum reduce.ini "$half" --set job.n=2^20
run_case "vector_add-2p28" vector_add:add vector_add.ini "$tune_s"

# The copy ceiling in this run: memcpy against the copy kernels, defaults.
echo "== copy: compare [$(($(date +%s) - t0)) s]" | tee -a "$log"
# shellcheck disable=SC2086
(cd "$data" && timeout 120 "$K" compare copy:copy --size n=2^28 $proto \
    --json copy-2p28.json --csv copy-2p28.csv) >>"$body" 2>>"$log" ||
    printf '\nFAILED: compare copy:copy\n\n' | tee -a "$log" >>"$body"
echo "Compared with \`ktune compare copy:copy --size n=2^28 $proto --json copy-2p28.json --csv copy-2p28.csv\` (each variant at its defaults)." >>"$body"
echo >>"$body"
[ -f "$data/copy-2p28.json" ] && verdict copy:copy "$data/copy-2p28.json"
tar czf "$out/goals_data.tgz" -C "$data" --exclude=configs --exclude=body.md --exclude=goals.tsv .

# The summary goes first.
{
    header
    echo "## Summary"
    echo
    echo "Best tuned variant of each comparison against its reference,"
    echo "measured side by side in one run. Goal met: faster with 95%"
    echo "confidence; tie: the interval holds 1."
    echo
    echo "| operator | shape | reference | reference µs | best variant | best µs | speed-up [95% CI] | bandwidth | goal |"
    echo "|---|---|---|--:|---|--:|---|--:|---|"
    while IFS=$'\t' read -r a s r rt bv bt sp bw w; do
        echo "| $a | $s | $r | $rt | $bv | $bt | $sp | $bw | $w |"
    done <"$goals"
    echo
    echo "vector_add moves 12 bytes per element (two reads, one write), so its"
    echo "effective bandwidth is compared with the copy ceiling measured by the"
    echo "calibration (1 GiB device-to-device cudaMemcpy) and with memcpy in"
    echo "this run (copy:copy); those are separate measurements, not one"
    echo "interleaved run."
    echo
    echo "Total wall time $(($(date +%s) - t0)) s."
    echo
    cat "$body"
} >"$md"
rm -rf "$data"
echo "== done in $(($(date +%s) - t0)) s; summary:"
sed -n '/^## Summary/,/^Total wall/p' "$md"
