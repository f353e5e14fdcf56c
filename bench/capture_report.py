#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""capture_report.py: one capture's numbers for bench/capture_h200.sh.

  capture_report.py --label L --timeline TL.json --kernel NAME
                    --bench BENCH.json [--tune TUNE.json]

The program's own launches of NAME (CUPTI's durations under ktune
timeline, median over the launches with the captured grid), ktune's
re-timing of the capture at the captured geometry (ktune bench CAPTURE,
median and 95% interval), their difference against the 3% target, and
the tuned geometry's speed-up over the captured one with its interval
(the ratio of the two medians; the interval from the two intervals)."""
import argparse
import json
import re
import statistics
import sys


def program_launches(path, kernel, grid):
    ops = json.load(open(path))["ops"]
    pat = re.compile(kernel)
    durs = [(o["end_ns"] - o["start_ns"]) / 1e3 for o in ops
            if o["kind"] == "kernel" and (pat.search(o.get("name", "")) or
                                          pat.search(o.get("mangled", "")))
            and (grid is None or o.get("grid") == grid)]
    return durs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--label", required=True)
    p.add_argument("--timeline", required=True)
    p.add_argument("--kernel", required=True)
    p.add_argument("--bench", required=True)
    p.add_argument("--tune")
    a = p.parse_args()
    b = json.load(open(a.bench))
    r = b["result"]
    if r["status"] != "ok":
        print(f"{a.label}: the capture did not verify at its own geometry: "
              f"{r['status']}: {r.get('reason', '')}")
        return 1
    k = r["timing"]["kernel"]
    grid = r["shape"]["grid"]
    durs = program_launches(a.timeline, a.kernel, grid)
    if not durs:
        print(f"{a.label}: no launch of {a.kernel} with grid {grid} in "
              f"{a.timeline}")
        return 1
    own = statistics.median(durs)
    diff = (k["median"] - own) / own
    print(f"{a.label}: program's own launch (CUPTI, median of {len(durs)}) "
          f"{own:.2f} us; ktune re-timed {k['median']:.2f} us "
          f"[{k['ci_lo']:.2f}, {k['ci_hi']:.2f}]; difference "
          f"{100 * diff:+.2f}% ({'within' if abs(diff) <= 0.03 else 'OUTSIDE'}"
          f" the 3% target); verified against the captured output")
    if not a.tune:
        return 0
    t = json.load(open(a.tune))
    best = t.get("best")
    if not best:
        print(f"{a.label}: tune found no verified geometry")
        return 1
    s = k["median"] / best["median_us"]
    lo = k["ci_lo"] / best.get("ci_hi_us", best["median_us"])
    hi = k["ci_hi"] / best.get("ci_lo_us", best["median_us"])
    inv = {}
    for e in t.get("invalid") or []:
        inv[e["status"]] = inv.get(e["status"], 0) + 1
    print(f"{a.label}: tuned geometry {best['params']} {best['median_us']:.2f}"
          f" us [{best.get('ci_lo_us', 0):.2f}, {best.get('ci_hi_us', 0):.2f}]"
          f"; speed-up over the program's geometry {s:.3f}x [{lo:.3f}, "
          f"{hi:.3f}]; verified against the captured output; "
          f"{t.get('measured', '?')} geometries measured, not valid by "
          f"status: {inv or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
