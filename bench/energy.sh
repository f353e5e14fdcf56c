#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Energy on the H200 (docs/energy.md; issue 31's Done-when lines), read
# only: nothing here sets a clock or a power limit.
#  1. ktune bench vector_add:add and gemv:ax, twice each, a minute apart:
#     energy per launch and power, and how far the two runs differ;
#  2. bench/energy_check (NVML's counter read around a 10 s loop of the
#     same kernel, apart from ktune's meter) on the same two kernels: how
#     far ktune's figure is from it;
#  3. ktune tune configs/gemv_ax.ini with objective = energy and with the
#     default (time): whether the energy-best differs from the time-best,
#     by how much in both measures, with the paired intervals.
# About 4 minutes (the minute's wait included).
#
#   OUT=/path/to/out bash bench/energy.sh [BUILD_DIR]
#
# Writes OUT/*.json, OUT/*.log and OUT/energy.md (the table, printed last).
set -u
build=${1:-build}
out=${OUT:?set OUT to the folder for the results}
ktune=$build/ktune
mkdir -p "$out"
ops=(vector_add:add gemv:ax)
for run in 1 2; do
    for op in "${ops[@]}"; do
        name=${op%%:*}
        "$ktune" bench "$op" --json "$out/bench-$name-$run.json" \
            >"$out/bench-$name-$run.log" 2>&1 || echo "bench $op run $run: exit $?"
    done
    [ "$run" = 1 ] && sleep 60
done
for op in "${ops[@]}"; do
    name=${op%%:*}
    "$build/bench/energy_check" "$build/plugins" "$op" 10 \
        >"$out/check-$name.log" 2>&1 || echo "energy_check $op: exit $?"
done
"$ktune" tune configs/gemv_ax.ini --journal none --set strategy.objective=energy \
    --json "$out/tune-gemv-energy.json" --markdown "$out/tune-gemv-energy.md" \
    >"$out/tune-gemv-energy.log" 2>&1 || echo "tune objective=energy: exit $?"
"$ktune" tune configs/gemv_ax.ini --journal none \
    --json "$out/tune-gemv-time.json" >"$out/tune-gemv-time.log" 2>&1 ||
    echo "tune objective=time: exit $?"
python3 - "$out" <<'PY' | tee "$out/energy.md"
import json, os, re, sys
out = sys.argv[1]
def load(p):
    try:
        return json.load(open(os.path.join(out, p)))
    except (OSError, ValueError):
        return None
def energy(doc):
    return ((doc or {}).get("result") or {}).get("energy") or {}
print("| operator | run 1 mJ/launch [95% CI] | run 2 mJ/launch | runs differ | "
      "power W (of limit) | window s / step ms | cross-check | energy_check mJ | "
      "vs energy_check |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for name in ("vector_add", "gemv"):
    e1 = energy(load("bench-%s-1.json" % name))
    e2 = energy(load("bench-%s-2.json" % name))
    chk = None
    try:
        m = re.search(r"([0-9.e+-]+) mJ per launch",
                      open(os.path.join(out, "check-%s.log" % name)).read())
        chk = float(m.group(1)) if m else None
    except OSError:
        pass
    if not e1.get("measured") or not e2.get("measured"):
        print("| %s | not measured: %s | | | | | | | |"
              % (name, e1.get("note") or e2.get("note") or "no result"))
        continue
    j1, j2 = 1e3 * e1["joules_per_launch"], 1e3 * e2["joules_per_launch"]
    lim = e1.get("power_limit_w") or 0
    print("| %s | %.5g [%.5g, %.5g] | %.5g | %+.2f%% | %.1f (%s) | %.2f / %.1f | %+.1f%% | %s | %s |" % (
        name, j1, 1e3 * e1["ci_lo_j"], 1e3 * e1["ci_hi_j"], j2, 100 * (j2 / j1 - 1),
        e1["power_w"], "%.0f%%" % (100 * e1["power_w"] / lim) if lim else "-",
        e1["window_s"], 1e3 * e1["counter_step_s"], 100 * e1["crosscheck"],
        "%.5g" % chk if chk else "-",
        "%+.2f%%" % (100 * (j1 / chk - 1)) if chk else "-"))
for tag in ("energy", "time"):
    t = load("tune-gemv-%s.json" % tag) or {}
    tr = (t.get("energy") or {}).get("tradeoff")
    best = (t.get("best") or {}).get("config", "?")
    if not tr:
        print("\ntune gemv_ax (objective %s): best %s; no energy tradeoff recorded" % (tag, best))
        continue
    f = lambda r: "%+.2f%% [%+.2f%%, %+.2f%%]" % tuple(100 * (r[k] - 1) for k in ("ratio", "lo", "hi"))
    print("\ntune gemv_ax (objective %s): best %s; time-best %s, energy-best %s%s" % (
        tag, best, tr["time_best"]["config"], tr["energy_best"]["config"],
        " (the same)" if tr["same"] else
        "; energy-best vs time-best: energy %s, time %s" % (f(tr["energy_ratio"]), f(tr["time_ratio"]))))
PY
