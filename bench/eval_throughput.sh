#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Evaluations per second and where the wall time goes, on the H200, with
# the default protocol of the shipped jobs, next to the old verification
# path (--verify host: outputs copied to host memory and compared there)
# in the same run.
#
#   OUT=/path/to/out bash bench/eval_throughput.sh [BUILD_DIR]
#
# Problems: vector_add 2^28 (the main job, configs/vector_add.ini),
# gemv:ax 16384^2 (configs/gemv_ax.ini), gemv:atx 65536x4096
# (configs/gemv_atx.ini at that size), reduce:sum 2^28 (configs/reduce.ini);
# the gemv and reduce jobs are one_at_a_time searches of large spaces, run
# for EVAL_S seconds each (default 6; max_seconds, the job's own budget).
# The host path runs next to the device path for vector_add and gemv:ax
# (BENCH_ALL_HOST=1 adds gemv:atx, reduce and a vector_add sweep without
# racing).
# Then exhaustive sweeps of the two spaces of the Kernel Tuner side by side
# (vector_add's 62 points; gemv:ax 16384^2 warp_row and vec4, 96 points),
# racing on (the default) and off, and bench/race_check.py on the sweeps
# raced off: would racing have stopped a point tied with the optimum?
#
# Every tuning run is one `ktune tune` process (worker evaluator, journal,
# JSON summary); its wall time is the process's, from start to exit. The
# first run calibrates the device (cached afterwards) and is reported on
# its own line. Each run is capped with timeout; worst case 155 + 4 *
# (EVAL_S + 15) s, about 75 s expected with the default EVAL_S = 6.
# vector_add twice, vector_add-exhaustive, gemv_ax and gemv_ax-kt96 are the
# ktune runs the Kernel Tuner side by side takes (--json summaries).
#
# Writes under $OUT: eval_throughput.md (the table, commands, commit, GPU),
# runs/NAME.{json,jsonl,log} for every run, and prints the table last.
set -u
build=${1:-build}
out=${OUT:?set OUT to the folder for the results}
eval_s=${EVAL_S:-6}
ktune=$build/ktune
runs=$out/runs
md=$out/eval_throughput.md
mkdir -p "$runs"
: >"$out/rows.tsv"

kt96=(--set space.variant=warp_row,vec4 --set space.block=64,128,256,512,1024
    --set space.threads_per_row=16,32,64,128 --set space.rows_per_thread=1
    --set space.split=1 --set space.cache=default --set space.schedule=occupancy)

# The table so far, rewritten after every run: a run cut short by a time
# limit keeps what was measured before it.
write_table() {
python3 - "$out" "$commit" "$gpu" "$eval_s" "$(($(date +%s) - t0))" <<'PY'
import json, os, sys
out, commit, gpu, eval_s, total = sys.argv[1:6]
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "rows.tsv"))]
lines = []
lines.append("# Evaluations per second on the H200")
lines.append("")
lines.append(f"`bench/eval_throughput.sh` at commit {commit}; GPU: {gpu}; "
             f"search runs {eval_s} s each (max_seconds); {total} s in all.")
lines.append("Wall time is the `ktune tune` process's; sampled GPU time is the "
             "sum of the timed kernel intervals. evals/s counts points "
             "verified and evaluated (a comparison counts its candidate).")
lines.append("")
lines.append("| run | evals | wall s | evals/s | sampled GPU s | wall / GPU "
             "| start s | verify s | sampling s | flush+probe s | journal s "
             "| best µs | best |")
lines.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
for name, rc, start, end, cmd in rows:
    wall = float(end) - float(start)
    try:
        s = json.load(open(os.path.join(out, "runs", name + ".json")))
    except Exception:
        lines.append(f"| {name} | exit {rc}, no summary | {wall:.1f} | | | | | "
                     "| | | | | |")
        continue
    ph, ov = s.get("phases", {}), s.get("overhead", {})
    ev, gpu_s = s.get("evaluations", 0), ov.get("gpu_s", 0)
    best = s.get("best") or {}
    cfg = " ".join(f"{k}={v}" for k, v in (best.get("params") or {}).items())
    lines.append(
        f"| {name} | {ev} | {wall:.2f} | {ev / wall:.1f} | {gpu_s:.2f} | "
        f"{wall / gpu_s if gpu_s else float('nan'):.2f} | "
        f"{ph.get('start_s', 0):.2f} | {ph.get('verify_s', 0):.2f} | "
        f"{ph.get('sampling_s', 0):.2f} | "
        f"{ph.get('flush_s', 0) + ph.get('probe_s', 0):.2f} | "
        f"{ph.get('journal_s', 0):.2f} | {best.get('median_us', float('nan')):.2f} | "
        f"{best.get('variant', '')} {cfg} |")
lines.append("")
lines.append("Commands (`ktune tune CONFIG ARGS --quiet --journal runs/NAME.jsonl "
             "--json runs/NAME.json`):")
lines.append("")
for name, rc, start, end, cmd in rows:
    lines.append(f"- {name}: `{cmd}`")
open(os.path.join(out, "eval_throughput.md"), "w").write("\n".join(lines) + "\n")
PY
}

# run NAME LIMIT_S CONFIG ARGS...: one ktune tune process, summarised.
run() {
    local name=$1 limit=$2 config=$3
    shift 3
    local start end rc
    rm -f "$runs/$name.jsonl" "$runs/$name.json"
    start=$(date +%s.%N)
    timeout -k 5 "$limit" "$ktune" tune "$config" "$@" --quiet \
        --journal "$runs/$name.jsonl" --json "$runs/$name.json" \
        >"$runs/$name.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$start" "$end" \
        "$config $*" >>"$out/rows.tsv"
    echo "$name: exit $rc, $(python3 -c "print(f'{$end - $start:.1f}')") s"
    write_table
}

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm \
    --format=csv,noheader 2>/dev/null || echo unknown)
t0=$(date +%s)

cap=$((eval_s + 15))
run calibrate 30 configs/vector_add.ini --set strategy.max_evals=1
run vector_add 20 configs/vector_add.ini
run vector_add-2 20 configs/vector_add.ini
run vector_add-host 30 configs/vector_add.ini --verify host
run gemv_ax "$cap" configs/gemv_ax.ini --set strategy.max_seconds="$eval_s"
run gemv_ax-host "$cap" configs/gemv_ax.ini --set strategy.max_seconds="$eval_s" \
    --verify host
run gemv_atx "$cap" configs/gemv_atx.ini --set job.m=65536 --set job.n=4096 \
    --set strategy.max_seconds="$eval_s"
run reduce "$cap" configs/reduce.ini --set strategy.max_seconds="$eval_s"
if [ "${BENCH_ALL_HOST:-0}" = 1 ]; then
    run gemv_atx-host "$cap" configs/gemv_atx.ini --set job.m=65536 \
        --set job.n=4096 --set strategy.max_seconds="$eval_s" --verify host
    run reduce-host "$cap" configs/reduce.ini \
        --set strategy.max_seconds="$eval_s" --verify host
fi
run vector_add-exhaustive 20 configs/vector_add.ini \
    --set strategy.name=exhaustive
run gemv_ax-kt96 20 configs/gemv_ax.ini --set strategy.name=exhaustive \
    --set strategy.max_evals=0 "${kt96[@]}"
run gemv_ax-kt96-norace 25 configs/gemv_ax.ini --set strategy.name=exhaustive \
    --set strategy.max_evals=0 "${kt96[@]}" --set measure.race=0
if [ "${BENCH_ALL_HOST:-0}" = 1 ]; then
    run vector_add-exhaustive-norace 30 configs/vector_add.ini \
        --set strategy.name=exhaustive --set measure.race=0
fi

write_table
{
    echo
    echo "Racing replayed on the sweeps measured with racing off (bench/race_check.py):"
    echo
    python3 bench/race_check.py "$runs/gemv_ax-kt96-norace.jsonl" \
        "$runs/vector_add-exhaustive-norace.jsonl" 2>&1
} >>"$md"
cat "$md"
gzip -f "$runs"/*.jsonl 2>/dev/null || true
