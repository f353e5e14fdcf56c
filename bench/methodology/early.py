#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The search at small budgets, from runs already made (run.py's WORK/runs):
per strategy and file the normalized best found after the first K
evaluations, (median - best) / (median - optimum) over the space's valid
times (1: the optimum, 0: the space's median, below 0 worse than the
median), the mean over the repeats, for each K of --evals.

  python3 bench/methodology/early.py WORK [--evals 4,8,16,32,64]
      [--files app/gpu,...]

Why: the methodology's budget lets the evaluation set's smaller cards run
7-60 evaluations, the tuning set's hundreds, so its P on the tuning set
says little about a search's first few dozen evaluations. This scores
those on the tuning set's own runs (a run stopped early is cut at K: a
repeat with fewer evaluations keeps its last best). Invalid evaluations
count as evaluations but never as a best.
"""
import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path


def space(hub, app, gpu):
    """The median and the optimum of a cache file's valid times."""
    d = json.load(open(Path(hub) / "cachefiles" / app / f"{gpu}.json"))
    ts = [v["time"] for v in d["cache"].values()
          if isinstance(v.get("time"), (int, float))]
    return statistics.median(ts), min(ts)


def curve(results, evals):
    """The best valid time within the first k results, for each k."""
    out, best, i = [], float("inf"), 0
    for k in evals:
        for r in results[i:k]:
            m = [x["value"] for x in r.get("measurements", [])
                 if x.get("name") == "time"]
            if r.get("invalidity") == "correct" and m and m[0] < best:
                best = m[0]
        i = max(i, k)
        out.append(best)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--evals", default="4,8,16,32,64")
    ap.add_argument("--files", default=None)
    a = ap.parse_args()
    evals = [int(x) for x in a.evals.split(",")]
    work = Path(a.work)
    want = set(a.files.split(",")) if a.files else None
    rows, stats = {}, {}
    for p in sorted((work / "runs" / "ktune").glob("*.json.gz")):
        d = json.load(gzip.open(p))
        f = f"{d['app']}/{d['gpu']}"
        if want and f not in want:
            continue
        if f not in stats:
            stats[f] = space(work / "hub", d["app"], d["gpu"])
        med, opt = stats[f]
        per = [[(med - b) / (med - opt) if b != float("inf") else -1.0
                for b in curve(r["results"], evals)] for r in d["repeats"]]
        rows.setdefault(d["strategy"], {})[f] = [
            statistics.mean(c) for c in zip(*per)]
    files = sorted(stats)
    for i, k in enumerate(evals):
        print(f"\n### After {k} evaluations: normalized best, mean over "
              "the repeats\n")
        print("| strategy | " + " | ".join(files) + " | mean |")
        print("|---|" + "---:|" * (len(files) + 1))
        order = sorted(rows, key=lambda s: -statistics.mean(
            rows[s][f][i] for f in files if f in rows[s]))
        for s in order:
            v = [rows[s].get(f, [None] * len(evals))[i] for f in files]
            ok = [x for x in v if x is not None]
            print(f"| {s} | " + " | ".join(
                "" if x is None else f"{x:.3f}" for x in v) +
                f" | **{statistics.mean(ok):.3f}** |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
