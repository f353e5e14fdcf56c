#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The search at small budgets, from runs already made (run.py's WORK/runs):
per strategy and file the normalized best found after the first K
evaluations (--evals) or within the first T seconds of the time the
results record (--seconds; run.TIME_KEYS summed, as the package charges
it; an evaluation counts once it has ended), (median - best) / (median -
optimum) over the space's valid times (1: the optimum, 0: the space's
median, below 0 worse than the median, -1 when nothing valid was found
yet), the mean over the repeats.

  python3 bench/methodology/early.py WORK [--evals 4,8,16,32,64 |
      --seconds 15,25,40] [--files app/gpu,...]

Why: the methodology's budget lets the evaluation set's smaller cards run
7-60 evaluations, the tuning set's hundreds, so its P on the tuning set
says little about a search's first few dozen evaluations. This scores
those on the tuning set's own runs (a repeat that stopped earlier keeps
its last best). By seconds it also charges what each point costs: a
start whose points are dearer finds less in the same time
(docs/results/2026-12-07-search-design-local.md). Invalid evaluations
count as evaluations (and their time) but never as a best.
"""
import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (TIME_KEYS)


def space(hub, app, gpu):
    """The median and the optimum of a cache file's valid times."""
    d = json.load(open(Path(hub) / "cachefiles" / app / f"{gpu}.json"))
    ts = [v["time"] for v in d["cache"].values()
          if isinstance(v.get("time"), (int, float))]
    return statistics.median(ts), min(ts)


SCALE = {"seconds": 1.0, "milliseconds": 1e-3, "microseconds": 1e-6}


def ends(results, unit):
    """When each result ended, in seconds from the start: the TIME_KEYS
    summed, as the package charges them."""
    t, out = 0.0, []
    for r in results:
        for k in run.TIME_KEYS:
            v = r.get("times", {}).get(k, 0) or 0
            t += (sum(v) if isinstance(v, list) else v) * SCALE[unit]
        out.append(t)
    return out


def curve(results, cuts, unit=None):
    """The best valid time within each cut: the first k results (unit
    None) or those ended by k seconds."""
    at = ends(results, unit) if unit else None
    out, best, i = [], float("inf"), 0
    for k in cuts:
        while i < len(results) and (i < k if at is None else at[i] <= k):
            r = results[i]
            m = [x["value"] for x in r.get("measurements", [])
                 if x.get("name") == "time"]
            if r.get("invalidity") == "correct" and m and m[0] < best:
                best = m[0]
            i += 1
        out.append(best)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--evals", default="4,8,16,32,64")
    ap.add_argument("--seconds", default=None)
    ap.add_argument("--files", default=None)
    a = ap.parse_args()
    by_time = a.seconds is not None
    cuts = [float(x) if by_time else int(x)
            for x in (a.seconds if by_time else a.evals).split(",")]
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
                for b in curve(r["results"], cuts,
                               r.get("timeunit", "milliseconds")
                               if by_time else None)]
               for r in d["repeats"]]
        rows.setdefault(d["strategy"], {})[f] = [
            statistics.mean(c) for c in zip(*per)]
    files = sorted(stats)
    for i, k in enumerate(cuts):
        what = f"{k:g} s of recorded time" if by_time else \
            f"{k} evaluations"
        print(f"\n### After {what}: normalized best, mean over "
              "the repeats\n")
        print("| strategy | " + " | ".join(files) + " | mean |")
        print("|---|" + "---:|" * (len(files) + 1))
        order = sorted(rows, key=lambda s: -statistics.mean(
            rows[s][f][i] for f in files if f in rows[s]))
        for s in order:
            v = [rows[s].get(f, [None] * len(cuts))[i] for f in files]
            ok = [x for x in v if x is not None]
            print(f"| {s} | " + " | ".join(
                "" if x is None else f"{x:.3f}" for x in v) +
                f" | **{statistics.mean(ok):.3f}** |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
