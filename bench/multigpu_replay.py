#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Several workers simulated from H200 recordings: the wall time of one
tuning run on 1, 2 and 4 workers, and whether the answer stays the same.

    OUT=/path/to/out python3 bench/multigpu_replay.py [BUILD_DIR]

Each worker answers from the recording and waits its recorded duration
(the recorded call's share of the run's clock: verification and
measurement) times SCALE (default 0.25), so a run takes SCALE times what
the recorded GPU would; `wall` is the run's clock (tuning only, not the
start) with the waits scaled back to recorded seconds and the tuner's own
time (overhead.tuner_s, not scaled) added as it was. No GPU; on a busy
machine the tuner's share varies from run to run.

Runs: gemv:ax 16384^2 (the headline case, tests/data's whole-space H200
recording) and the other H200 recordings in tests/data, with exhaustive
(every point of the recording) and the default one_at_a_time; random with
a 2000-evaluation budget on gemv:ax. Worst case about 6 minutes at SCALE
0.25 on two shared cores (RECORDINGS=gemv_ax-h200-m16384-n16384 narrows
it); each run is capped at 300 s. REUSE=1 tabulates the runs already in
$OUT/runs again without running them. Writes $OUT/multigpu_replay.md and
$OUT/runs/*.json, and prints the table last.
"""
import glob
import json
import os
import subprocess
import sys
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
out = os.environ.get("OUT")
if not out:
    sys.exit("set OUT to the folder for the results")
scale = float(os.environ.get("SCALE", "0.25"))
src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ktune = os.path.join(build, "ktune")
runs = os.path.join(out, "runs")
os.makedirs(runs, exist_ok=True)

CONFIGS = {"gemv_ax": "gemv_ax.ini", "gemv_atx": "gemv_atx.ini",
           "reduce": "reduce.ini"}
wanted = os.environ.get("RECORDINGS", "")
recs = sorted(glob.glob(os.path.join(src, "tests/data/*-h200-*.jsonl.gz")))
recs = [r for r in recs if os.path.basename(r).split("-")[0] in CONFIGS
        and (not wanted or any(w in r for w in wanted.split(",")))]
head = [r for r in recs if "gemv_ax-h200-m16384-n16384" in r]
recs = head + [r for r in recs if r not in head]


def run(rec, strategy, workers, extra):
    name = "%s.%s.w%d" % (os.path.basename(rec).split(".")[0], strategy,
                          workers)
    cfg = os.path.join(src, "configs",
                       CONFIGS[os.path.basename(rec).split("-")[0]])
    js = os.path.join(runs, name + ".json")
    cmd = [ktune, "tune", cfg, "--replay", rec, "--workers", str(workers),
           "--time-scale", str(scale), "--quiet", "--json", js,
           "--set", "strategy.name=" + strategy,
           "--set", "strategy.max_seconds=0"] + extra
    t0 = time.monotonic()
    if not (os.environ.get("REUSE") and os.path.exists(js)):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            print(" ".join(cmd), p.stderr, file=sys.stderr)
            return None
    d = json.load(open(js))
    return {"name": name, "rec": os.path.basename(rec).split(".")[0],
            "strategy": strategy, "workers": workers,
            # Waits scale with SCALE, the tuner's own time does not.
            "wall": (d["elapsed_s"] - d["overhead"]["tuner_s"]) / scale
            + d["overhead"]["tuner_s"],
            "tuner": d["overhead"]["tuner_s"],
            "process_s": time.monotonic() - t0,
            "evals": d["evaluations"], "best": d["best"]["config"],
            "median": d["best"]["median_us"],
            "tie": [t["config"] for t in d.get("tie", []) or []]}


rows = []
plan = []
for rec in recs:
    plan.append((rec, "exhaustive", ["--set", "strategy.max_evals=0"]))
    plan.append((rec, "one_at_a_time", []))
    if rec in head:
        plan.append((rec, "random", ["--set", "strategy.max_evals=2000"]))
for rec, strategy, extra in plan:
    base = None
    for w in (1, 2, 4):
        r = run(rec, strategy, w, extra)
        if not r:
            continue
        base = base or r
        r["ratio"] = r["wall"] / base["wall"]
        r["same"] = (r["best"] == base["best"] or r["best"] in base["tie"]
                     or base["best"] in r["tie"])
        rows.append(r)

commit = subprocess.run(["git", "-C", src, "rev-parse", "--short=12", "HEAD"],
                        capture_output=True, text=True).stdout.strip()
lines = ["| recording | strategy | workers | evaluations | wall (recorded s) "
         "| of it tuner s | vs 1 worker | answer | same answer |",
         "|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append("| %s | %s | %d | %d | %.1f | %.1f | %.2f | %s (%.2f us) | %s |"
                 % (r["rec"], r["strategy"], r["workers"], r["evals"],
                    r["wall"], r["tuner"], r["ratio"], r["best"], r["median"],
                    "yes" if r["same"] else "NO"))
table = "\n".join(lines)
with open(os.path.join(out, "multigpu_replay.md"), "w") as f:
    f.write("# Several workers simulated from H200 recordings\n\n")
    f.write("Command: `OUT=... SCALE=%g python3 bench/multigpu_replay.py "
            "%s`, commit %s, %s, no GPU (replay).\n\n" % (
                scale, build, commit, time.strftime("%Y-%m-%d %H:%M UTC",
                                                    time.gmtime())))
    f.write(table + "\n")
print(table)
