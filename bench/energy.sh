#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Energy on the H200 (docs/energy.md; issue 31's Done-when lines), read
# only: nothing here sets a clock or a power limit, and the GPU's settings
# are read before and after (nvidia-smi) and must not have changed.
#  1. ktune bench vector_add:add and gemv:ax, twice each, the second run of
#     each a minute after its first (the minute filled by 2 and 3):
#     energy per launch and power, and how far the two runs differ;
#  2. bench/energy_check (NVML's counter read around a loop of the same
#     kernel, apart from ktune's meter) on the same two kernels: how far
#     ktune's figure is from it;
#  3. ktune tune of the diagnosis corpus's FMA kernel (compute-bound,
#     bench/energy_fma.ini) with objective = energy;
#  4. ktune tune configs/gemv_ax.ini with objective = energy (and with the
#     default, time, when under 170 s had passed): whether the energy-best differs from the time-best,
#     by how much in both measures, with the paired intervals;
#  5. the GPU energy test (ctest gpu_energy_read_side).
# The first bench calibrates the device (cached for the rest), energy per
# byte and per flop of the copy and the FMA kernel included: every energy
# per work is stated against that measured best.
# About 3 minutes once built (the minute's wait included).
#
#   OUT=/path/to/out bash bench/energy.sh [BUILD_DIR]
#
# Writes OUT/*.json, OUT/*.md, OUT/*.log and OUT/energy.md (the table,
# printed last).
set -u
build=${1:-build}
out=${OUT:?set OUT to the folder for the results}
ktune=$build/ktune
mkdir -p "$out"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
settings() {
    command -v nvidia-smi >/dev/null || { echo "no nvidia-smi"; return; }
    nvidia-smi -i 0 --format=csv,noheader \
        --query-gpu=power.limit,clocks.applications.graphics,clocks.applications.memory
}
settings >"$out/settings-before.txt"
nvidia-smi -q -d CLOCK,POWER >"$out/nvidia-smi-before.txt" 2>&1 || true

bench() { # OP RUN
    local name=${1%%:*}
    stamp "bench $1 run $2"
    timeout 90 "$ktune" bench "$1" --json "$out/bench-$name-$2.json" \
        >"$out/bench-$name-$2.log" 2>&1 || echo "bench $1 run $2: exit $?"
}
at() { # wait until SECONDS after t0
    local now=$(($(date +%s) - t0))
    [ "$now" -lt "$1" ] && sleep $(($1 - now))
}

bench vector_add:add 1
va1=$(($(date +%s) - t0))
bench gemv:ax 1
gv1=$(($(date +%s) - t0))
for op in vector_add:add gemv:ax; do
    stamp "energy_check $op"
    timeout 60 "$build/bench/energy_check" "$build/plugins" "$op" 8 \
        >"$out/check-${op%%:*}.log" 2>&1 || echo "energy_check $op: exit $?"
done
stamp "tune diag_corpus:fma objective=energy"
timeout 120 "$ktune" tune bench/energy_fma.ini --plugin "$build/tests/fixtures/diag_corpus.so" \
    --set strategy.objective=energy --json "$out/tune-fma-energy.json" \
    --markdown "$out/tune-fma-energy.md" >"$out/tune-fma-energy.log" 2>&1 ||
    echo "tune fma objective=energy: exit $?"
at $((va1 + 60))
bench vector_add:add 2
at $((gv1 + 60))
bench gemv:ax 2
stamp "tune gemv_ax objective=energy"
timeout 120 "$ktune" tune configs/gemv_ax.ini --journal none --set strategy.objective=energy \
    --json "$out/tune-gemv-energy.json" --markdown "$out/tune-gemv-energy.md" \
    >"$out/tune-gemv-energy.log" 2>&1 || echo "tune gemv objective=energy: exit $?"
stamp "ctest gpu_energy_read_side"
timeout 120 ctest --test-dir "$build" -R 'gpu_energy' -V \
    >"$out/ctest-gpu-energy.log" 2>&1 || echo "ctest gpu_energy: exit $?"
# By time too, when the budget allows (the energy run's summary already
# compares its time-best and energy-best finalists); --energy, since with
# the objective time the finalists' energy is measured only when asked.
if [ $(($(date +%s) - t0)) -lt "${ENERGY_TIME_TUNE_BEFORE_S:-170}" ]; then
    stamp "tune gemv_ax objective=time"
    timeout 60 "$ktune" tune configs/gemv_ax.ini --journal none --energy \
        --json "$out/tune-gemv-time.json" --markdown "$out/tune-gemv-time.md" \
        >"$out/tune-gemv-time.log" 2>&1 || echo "tune gemv objective=time: exit $?"
fi
settings >"$out/settings-after.txt"
stamp "done"

python3 - "$out" <<'PY' | tee "$out/energy.md"
import json, os, re, sys
out = sys.argv[1]
def load(p):
    try:
        return json.load(open(os.path.join(out, p)))
    except (OSError, ValueError):
        return None
def text(p):
    try:
        return open(os.path.join(out, p)).read()
    except OSError:
        return ""
def energy(doc):
    return ((doc or {}).get("result") or {}).get("energy") or {}
print("| operator | run 1 mJ/launch [95% CI] | run 2 mJ/launch [95% CI] | runs differ | "
      "power W (of limit) | window s / step ms / jitter ms | resolution | cross-check | "
      "energy_check mJ | vs energy_check |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
for name in ("vector_add", "gemv"):
    e1 = energy(load("bench-%s-1.json" % name))
    e2 = energy(load("bench-%s-2.json" % name))
    m = re.search(r"([0-9.e+-]+) mJ per launch", text("check-%s.log" % name))
    chk = float(m.group(1)) if m else None
    if not e1.get("measured") or not e2.get("measured"):
        print("| %s | not measured: %s | | | | | | | | |"
              % (name, e1.get("note") or e2.get("note") or "no result"))
        continue
    ci = lambda e: "%.5g [%.5g, %.5g]" % (1e3 * e["joules_per_launch"], 1e3 * e["ci_lo_j"], 1e3 * e["ci_hi_j"])
    j1, j2 = 1e3 * e1["joules_per_launch"], 1e3 * e2["joules_per_launch"]
    lim = e1.get("power_limit_w") or 0
    print("| %s | %s | %s | %+.2f%% | %.1f (%s) | %.2f / %.1f / %.2f | %.2f%% / %.2f%% | %+.1f%% | %s | %s |" % (
        name, ci(e1), ci(e2), 100 * (j2 / j1 - 1),
        e1["power_w"], "%.0f%%" % (100 * e1["power_w"] / lim) if lim else "-",
        e1["window_s"], 1e3 * e1["counter_step_s"], 1e3 * e1.get("counter_jitter_s", 0),
        100 * e1["resolution"], 100 * e2["resolution"], 100 * e1["crosscheck"],
        "%.5g" % chk if chk else "-",
        "%+.2f%% / %+.2f%%" % (100 * (j1 / chk - 1), 100 * (j2 / chk - 1)) if chk else "-"))
for name in ("vector_add", "gemv"):
    for line in text("bench-%s-1.log" % name).splitlines():
        if line.startswith("against the best") or line.startswith("energy per work"):
            print("%s: %s" % (name, " ".join(line.split())))
cal = ((load("bench-vector_add-1.json") or {}).get("environment") or {}).get("calibration") or {}
print("device's best: copy %s pJ/byte, FMA %s pJ/flop" % (
    cal.get("copy_pj_per_byte", "-"), cal.get("compute_pj_per_flop", "-")))
for tag in ("gemv-energy", "gemv-time", "fma-energy"):
    t = load("tune-%s.json" % tag) or {}
    tr = (t.get("energy") or {}).get("tradeoff")
    best = (t.get("best") or {}).get("config", "?")
    if not tr:
        print("\ntune %s: best %s; no energy tradeoff recorded (see tune-%s.log)" % (tag, best, tag))
        continue
    f = lambda r: "%+.2f%% [%+.2f%%, %+.2f%%]" % tuple(100 * (r[k] - 1) for k in ("ratio", "lo", "hi"))
    print("\ntune %s: best %s; time-best %s, energy-best %s%s" % (
        tag, best, tr["time_best"]["config"], tr["energy_best"]["config"],
        " (the same)" if tr["same"] else
        "; energy-best vs time-best: energy %s, time %s" % (f(tr["energy_ratio"]), f(tr["time_ratio"]))))
m = re.search(r"\d+% tests passed[^\n]*", text("ctest-gpu-energy.log"))
print("\nctest gpu_energy: %s" % (m.group(0) if m else "no result (see ctest-gpu-energy.log)"))
for line in text("ctest-gpu-energy.log").splitlines():
    m = re.search(r"(energy [0-9.e+-]+ mJ/launch.*|ktune [0-9.e+-]+ mJ, energy_check.*)", line)
    if m:
        print("  " + m.group(1))
b, a = text("settings-before.txt").strip(), text("settings-after.txt").strip()
print("\nGPU settings before: %s\nGPU settings after:  %s\n%s" % (
    b, a, "unchanged" if a == b else "CHANGED"))
PY
