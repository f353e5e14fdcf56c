#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Ground-truth recordings of the hard spaces on this GPU: every feasible
# point verified and measured once under the shipped job's protocol, raw
# samples kept, for replay without a GPU (ktune tune --replay).
#
#   OUT=/path/to/out bash tools/record_ground_truth.sh [BUILD_DIR]
#
# Recordings, in this order:
#   reduce:sum n=2^28                      configs/reduce.ini
#   gemv:atx m=65536 n=4096, m=n=16384     configs/gemv_atx.ini
#   gemv:ax  m=65536 n=4096, m=n=16384     configs/gemv_ax.ini
#
# Time: each recording has its own budget in seconds (the table below:
# the whole space at the rates measured on the H200 plus about 25%, so
# every recording holds the full space there); RECORD_SCALE (default 1)
# multiplies them all, e.g. 0.2 for a quick run that records subsets.
# A recording is the job's search replaced by
# the random strategy with seed 1, no finalists, and max_seconds = its
# budget: the points come in one uniform random permutation of the space
# (stated, reproducible), without repeats, so a recording that fits its
# budget holds the whole space and one that does not holds a uniform random
# subset, the first N points of that permutation; it stops cleanly (the
# journal is whole) and its sidecar says exactly how many of how many. The
# search gets the budget less 5 s (the start), the process is capped at the
# budget + 5 s.
#
# RACE (default: the job's, 0.005) is [measure] race: with it, points that
# cannot be the best stop after min_samples samples, as in a tuning run;
# RACE=0 samples every point fully (slower: fewer points per budget).
#
# Writes under $OUT, for tests/data/:
#   NAME.jsonl.gz    the journal, gzip -9 (replay reads it directly)
#   NAME.meta.json   sidecar: space, protocol, device, commit, wall time,
#                    feasible and recorded points, complete or the subset,
#                    the order, the stop reason, the rate and what the whole
#                    space would have taken at it
#   NAME.log         the run's output
# and prints one line per recording last.
set -u
build=${1:-build}
out=${OUT:?set OUT to the folder for the recordings}
scale=${RECORD_SCALE:-1}
race=${RACE:-}
ktune=$build/ktune
mkdir -p "$out"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

# name config budget-seconds size-args...
recordings=(
    "reduce-h200-n268435456|configs/reduce.ini|25|"
    "transpose-h200-rows8192-cols8192|examples/declared_transpose/transpose.ini|30|"
    "gemv_atx-h200-m16384-n16384|configs/gemv_atx.ini|75|--set job.m=16384 --set job.n=16384"
    "gemv_atx-h200-m65536-n4096|configs/gemv_atx.ini|130|--set job.m=65536 --set job.n=4096"
    "gemv_ax-h200-m16384-n16384|configs/gemv_ax.ini|110|--set job.m=16384 --set job.n=16384"
    "gemv_ax-h200-m65536-n4096|configs/gemv_ax.ini|120|--set job.m=65536 --set job.n=4096"
)

: >"$out/recordings.txt"
for r in "${recordings[@]}"; do
    IFS='|' read -r name config budget sizes <<<"$r"
    budget=$(python3 -c "import sys; print(max(10, round($budget * $scale)))")
    extra=()
    [ -n "$race" ] && extra=(--set measure.race="$race")
    rm -f "$out/$name.jsonl" "$out/$name.jsonl.gz" "$out/$name.json"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # sizes is a list of options
    # The search stops at max_seconds (between points; one point takes at
    # most the protocol's max_time); starting the worker and the problem
    # comes before it, so the budget holds both.
    timeout -k 5 $((budget + 5)) "$ktune" tune "$config" $sizes \
        --set strategy.name=random --set strategy.seed=1 \
        --set strategy.max_evals=0 --set strategy.max_seconds=$((budget - 5)) \
        --set strategy.finalists=1 "${extra[@]}" --quiet \
        --journal "$out/$name.jsonl" --json "$out/$name.json" \
        >"$out/$name.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    python3 - "$out" "$name" "$config" "$sizes" "$rc" "$start" "$end" \
        "$budget" "$commit" <<'PY' | tee -a "$out/recordings.txt"
import gzip, json, os, sys
out, name, config, sizes, rc, start, end, budget, commit = sys.argv[1:10]
wall = float(end) - float(start)
jpath = os.path.join(out, name + ".jsonl")
try:
    lines = open(jpath).read().splitlines()
    header = json.loads(lines[0])
except Exception as e:
    print(f"{name}: no journal (exit {rc}): {e}")
    sys.exit(0)
evals = [json.loads(l) for l in lines[1:] if '"kind":"eval"' in l]
try:
    summary = json.load(open(os.path.join(out, name + ".json")))
except Exception:
    summary = {}
feasible = (summary.get("space") or {}).get("feasible", summary.get("feasible"))
recorded = len({json.dumps(e["point"], sort_keys=True) for e in evals})
ok = sum(1 for e in evals if e.get("status") == "ok")
complete = feasible is not None and recorded >= feasible
rate = recorded / wall if wall > 0 else 0
env = header.get("environment", {})
space = header.get("space", {})
meta = {
    "kind": "ktune.recording",
    "recording": name + ".jsonl.gz",
    "spec": header.get("plugin_spec"),
    "sizes": header.get("sizes"),
    "space": space,
    "feasible": feasible,
    "recorded": recorded,
    "verified_and_timed": ok,
    "complete": complete,
    "order": ("random strategy, seed 1: a uniform random permutation of the "
              "space's point indices (tuner/strategies/random.c), without "
              "repeats; " + ("every feasible point" if complete else
                             f"the first {recorded} points of it")),
    "stop_reason": summary.get("stop_reason", f"exit {rc}"),
    "budget_s": float(budget),
    "wall_s": wall,
    "points_per_s": rate,
    "full_space_estimate_s": (feasible / rate) if rate and feasible else None,
    "protocol": header.get("protocol"),
    "device": (env.get("device") or {}).get("name"),
    "device_record": env.get("device"),
    "commit": (env.get("host") or {}).get("git_commit", commit),
    "config": config,
    "command": f"ktune tune {config} {sizes} --set strategy.name=random "
               f"--set strategy.seed=1 --set strategy.max_evals=0 "
               f"--set strategy.max_seconds={int(budget) - 5} --set strategy.finalists=1",
    "synthetic": False,
}
with open(jpath, "rb") as f, gzip.open(jpath + ".gz", "wb", 9) as g:
    g.write(f.read())
os.remove(jpath)
json.dump(meta, open(os.path.join(out, name + ".meta.json"), "w"), indent=1)
size = os.path.getsize(jpath + ".gz") / 1e6
if complete:
    part = f"complete: all {feasible} feasible points"
elif not feasible:
    part = f"{recorded} points (the space's feasible count is unknown)"
else:
    part = (f"subset: {recorded} of {feasible} feasible points "
            f"({100 * recorded / feasible:.0f}%), uniform random (seed 1); the "
            f"whole space would take about {meta['full_space_estimate_s']:.0f} s")
print(f"{name}: {part}; {wall:.0f} s of a {budget} s budget, "
      f"{rate:.1f} points/s, {size:.1f} MB gz (exit {rc})")
PY
done
echo
cat "$out/recordings.txt"
