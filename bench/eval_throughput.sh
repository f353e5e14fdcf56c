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
# for EVAL_S seconds each (default 6; max_seconds), and gemv:ax twice more
# as shipped (-shipped: the job's own budget, 7 s), and random search for
# EVAL_S seconds over the whole space (-random): the default strategy's
# evaluations per second depend on its path, which depends on the budget
# (the finalists' re-measurement and the comparisons near the optimum are
# fixed costs; the restarts late in a search race most of their points).
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
# its own line. The -roundsync rows run with KTUNE_ROUND_SYNC=1 (every
# sampling round waited for before the next, the earlier behaviour) next to
# the default. BENCH_ROWS="NAME ..." runs only those rows; BENCH_DEADLINE
# (seconds since the epoch) caps every row's limit at it. Each run is
# capped with timeout; worst case 195 + 4 * (EVAL_S + 15) s, about 80 s
# expected with the default EVAL_S = 6.
# vector_add three times, vector_add-exhaustive, gemv_ax and gemv_ax-kt96 are the
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
import gzip, json, os, sys
out, commit, gpu, eval_s, total = sys.argv[1:6]
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "rows.tsv"))]

def measurements(name):
    """Points measured in a call (a comparison's incumbent and every
    finalist count again) and their kept samples, from the journal."""
    path = os.path.join(out, "runs", name + ".jsonl")
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    if not os.path.exists(path):
        return None, None
    opener = gzip.open if path.endswith(".gz") else open
    points = samples = 0
    with opener(path, "rt") as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("kind") == "eval" and r.get("status") == "ok":
                points += 1
                t = r.get("timing") or {}
                samples += (t.get("kernel") or {}).get("n", 0)
    return points, samples

lines = []
lines.append("# Evaluations per second on the H200")
lines.append("")
lines.append(f"`bench/eval_throughput.sh` at commit {commit}; GPU: {gpu}; "
             f"search runs {eval_s} s each (max_seconds); {total} s in all.")
lines.append("")
lines.append("Wall time is the `ktune tune` process's, from before exec to "
             "its exit; sampled GPU time is the sum of the timed kernel "
             "intervals (kept samples). evals/s counts unique points "
             "verified and evaluated (a comparison counts its candidate); "
             "meas/s counts every point measured in a call (a comparison's "
             "incumbent, re-measured beside each candidate, and the "
             "finalists count again), samples their kept samples. Phases "
             "(the summary's `phases`): exec = the process's own start "
             "before the command ran, start = plugins, job, worker, CUDA "
             "context, problem set-up, setup = boundary problems, verify, "
             "warm-up, sampling (flush+probe is the GPU time of L2 flushes "
             "and clock probes inside it), close = the worker's exit, rest "
             "= wall minus all phases (journal, strategy, messages, the "
             "process's exit).")
lines.append("")
lines.append("| run | evals | wall s | evals/s | meas/s | samples | sampled "
             "GPU s | wall / GPU | exec s | start s | setup+verify s | "
             "warm-up s | sampling s | flush+probe s | close s | rest s "
             "| best µs | best |")
lines.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:"
             "|--:|--:|---|")
for name, rc, start, end, cmd in rows:
    wall = float(end) - float(start)
    try:
        s = json.load(open(os.path.join(out, "runs", name + ".json")))
    except Exception:
        lines.append(f"| {name} | exit {rc}, no summary | {wall:.1f} |"
                     + " |" * 15)
        continue
    ph, ov = s.get("phases", {}), s.get("overhead", {})
    ev, gpu_s = s.get("evaluations", 0), ov.get("gpu_s", 0)
    pts, smp = measurements(name)
    best = s.get("best") or {}
    cfg = " ".join(f"{k}={v}" for k, v in (best.get("params") or {}).items())
    g = lambda k: ph.get(k, 0) or 0
    known = (g("exec_s") + g("start_s") + g("calibration_s") + g("setup_s")
             + g("verify_s") + g("warmup_s") + g("sampling_s")
             + g("close_s"))
    lines.append(
        f"| {name} | {ev} | {wall:.2f} | {ev / wall:.1f} | "
        f"{'' if pts is None else f'{pts / wall:.1f}'} | "
        f"{'' if smp is None else smp} | {gpu_s:.2f} | "
        f"{wall / gpu_s if gpu_s else float('nan'):.2f} | "
        f"{g('exec_s'):.2f} | {g('start_s') + g('calibration_s'):.2f} | "
        f"{g('setup_s') + g('verify_s'):.2f} | {g('warmup_s'):.2f} | "
        f"{g('sampling_s'):.2f} | {g('flush_s') + g('probe_s'):.2f} | "
        f"{g('close_s'):.2f} | {wall - known:.2f} | "
        f"{best.get('median_us', float('nan')):.2f} | "
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

# wanted NAME: whether BENCH_ROWS (names, space-separated; empty: all)
# asks for the row.
wanted() {
    [ -z "${BENCH_ROWS:-}" ] && return 0
    case " $BENCH_ROWS " in *" $1 "*) return 0 ;; esac
    return 1
}

# run NAME LIMIT_S CONFIG ARGS...: one ktune tune process, summarised.
# ROW_ENV (e.g. KTUNE_ROUND_SYNC=1) is set for that process alone.
run() {
    local name=$1 limit=$2 config=$3
    shift 3
    local start end rc left
    wanted "$name" || return 0
    # BENCH_DEADLINE (seconds since the epoch): no row runs past it.
    if [ -n "${BENCH_DEADLINE:-}" ]; then
        left=$((BENCH_DEADLINE - $(date +%s)))
        if [ "$left" -lt 3 ]; then
            echo "$name: skipped, the deadline is near"
            return 0
        fi
        [ "$left" -lt "$limit" ] && limit=$left
    fi
    rm -f "$runs/$name.jsonl" "$runs/$name.json"
    start=$(date +%s.%N)
    env ${ROW_ENV:-} timeout -k 5 "$limit" "$ktune" tune "$config" "$@" \
        --quiet --journal "$runs/$name.jsonl" --json "$runs/$name.json" \
        >"$runs/$name.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$start" "$end" \
        "${ROW_ENV:+$ROW_ENV }$config $*" >>"$out/rows.tsv"
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
run vector_add-3 20 configs/vector_add.ini
ROW_ENV=KTUNE_ROUND_SYNC=1 run vector_add-roundsync 20 configs/vector_add.ini
run vector_add-host 30 configs/vector_add.ini --verify host
run gemv_ax "$cap" configs/gemv_ax.ini --set strategy.max_seconds="$eval_s"
run gemv_ax-shipped 25 configs/gemv_ax.ini
run gemv_ax-shipped-2 25 configs/gemv_ax.ini
run gemv_ax-shipped-3 25 configs/gemv_ax.ini
# Random search over the whole space: one measurement per point, the
# evaluator's own rate on gemv:ax with the default protocol.
run gemv_ax-random "$cap" configs/gemv_ax.ini --set strategy.name=random \
    --set strategy.max_seconds="$eval_s"
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
ROW_ENV=KTUNE_ROUND_SYNC=1 run gemv_ax-kt96-roundsync 20 configs/gemv_ax.ini \
    --set strategy.name=exhaustive --set strategy.max_evals=0 "${kt96[@]}"
run gemv_ax-kt96-norace 25 configs/gemv_ax.ini --set strategy.name=exhaustive \
    --set strategy.max_evals=0 "${kt96[@]}" --set measure.race=0
if [ "${BENCH_ALL_HOST:-0}" = 1 ]; then
    run vector_add-exhaustive-norace 30 configs/vector_add.ini \
        --set strategy.name=exhaustive --set measure.race=0
fi

write_table
if [ -f "$runs/gemv_ax-kt96-norace.jsonl" ]; then
    {
        echo
        echo "Racing replayed on the sweeps measured with racing off (bench/race_check.py):"
        echo
        python3 bench/race_check.py "$runs/gemv_ax-kt96-norace.jsonl" \
            "$runs/vector_add-exhaustive-norace.jsonl" 2>&1
    } >>"$md"
fi
cat "$md"
gzip -f "$runs"/*.jsonl 2>/dev/null || true
