#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Racing on recorded samples: would a decision change?

For each recording (a ktune journal with raw samples, .jsonl or .jsonl.gz)
the points are replayed in their recorded order under the racing rule of
engine/measure.h: at MIN, 4 MIN and 8 MIN kept samples a point stops when the
r-th fastest of them (r = 1 at the first look, then the rank bounding the
median from below with risk 2^-MIN / 2) is slower than the best median so
far times (1 + RACE). The recorded samples were taken under the full
protocol, so each point's first samples are what racing would have seen.

Printed per recording: points, points racing stops, the GPU time of
sampling with and without racing, and the check that matters: every point
whose full median is within RACE of the recorded optimum (a statistical
tie with it under min_gain) is kept (never stopped), and so is the optimum.

  bench/race_check.py [--race 0.005] [--min 10] JOURNAL...
Runs in well under a second per recording; no GPU.
"""
import argparse
import gzip
import json
import math
import statistics
import sys


def records(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def points(path):
    seen = {}
    order = []
    for r in records(path):
        if r.get("kind") != "eval" or r.get("status") != "ok":
            continue
        t = r.get("timing") or {}
        s = [x for x in (t.get("samples_us") or []) if x is not None]
        if not s:
            continue
        key = json.dumps(r["point"], sort_keys=True)
        if key in seen:
            continue
        seen[key] = s
        order.append(key)
    return [(k, seen[k]) for k in order]


def rank(m, n):
    """kt_meter_race_rank: the order statistic of a look, 0 off a look."""
    if n == m:
        return 1
    if n not in (4 * m, 8 * m):
        return 0
    alpha, cdf = 2.0 ** -min(m, 60) / 2, 0.0
    for i in range(n + 1):
        cdf += math.comb(n, i) / 2 ** n
        if cdf > alpha:
            return i
    return n


def raced_at(samples, bar, race, m):
    """The kept count at which racing stops these samples, or None."""
    for n in (m, 4 * m, 8 * m):
        r = rank(m, n)
        if len(samples) >= n and r and sorted(samples[:n])[r - 1] > bar * (1 + race):
            return n
    return None


def check(path, race, min_samples):
    try:
        pts = points(path)
    except OSError:
        return None
    if not pts:
        return None
    med = {k: statistics.median(s) for k, s in pts}
    best_key = min(med, key=med.get)
    opt = med[best_key]
    bar = None
    stopped, full_s, raced_s = [], 0.0, 0.0
    for k, s in pts:
        full_s += sum(s) * 1e-6
        at = raced_at(s, bar, race, min_samples) if bar is not None else None
        if at:
            stopped.append(k)
            raced_s += sum(s[:at]) * 1e-6
            continue
        raced_s += sum(s) * 1e-6
        bar = med[k] if bar is None else min(bar, med[k])
    near = [k for k in med if med[k] <= opt * (1 + race)]
    lost = [k for k in stopped if k in near]
    return {
        "recording": path, "points": len(pts), "stopped": len(stopped),
        "gpu_full_s": full_s, "gpu_raced_s": raced_s,
        "near_optimum": len(near), "near_optimum_stopped": len(lost),
        "optimum_kept": best_key not in stopped,
        "lost": lost,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--race", type=float, default=0.005)
    ap.add_argument("--min", type=int, default=10)
    ap.add_argument("journals", nargs="+")
    a = ap.parse_args()
    print("| recording | points | stopped by racing | GPU s full | GPU s racing"
          " | tied with the optimum (within race) | of which stopped | optimum kept |")
    print("|---|--:|--:|--:|--:|--:|--:|---|")
    bad = 0
    for path in a.journals:
        r = check(path, a.race, a.min)
        if r is None:
            print(f"| {path} | not found or no raw samples | | | | | | |")
            continue
        bad += r["near_optimum_stopped"] + (not r["optimum_kept"])
        print(f"| {path} | {r['points']} | {r['stopped']} | {r['gpu_full_s']:.3f}"
              f" | {r['gpu_raced_s']:.3f} | {r['near_optimum']} |"
              f" {r['near_optimum_stopped']} | {'yes' if r['optimum_kept'] else 'NO'} |")
        for k in r["lost"]:
            print(f"  stopped near the optimum: {k}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
