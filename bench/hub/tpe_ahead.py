#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What tpe's pipeline costs per evaluation, on recorded spaces (no GPU).

  KTUNE_HUB_DIR=HUB python3 bench/hub/tpe_ahead.py [--build build]
      [--ahead 0,16] [--seeds 20] [--fractions 0.03,0.06,0.1] [--jobs 2]
      [--files convolution_milo/A100,...] [--h200 tests/data/convolution-h200.jsonl.gz]

With `ahead` N the search commits to its next N proposals before their
results come (its default with a compile pool: one per compile thread),
so on a live run their kernels compile while the GPU measures; a replay
compiles nothing, so here only its cost shows: each proposal is chosen on
results N evaluations older. Each file is replayed by tpe with every
`ahead` value for seeds 1..SEEDS, stopped after a fraction of the space's
points (max_evals), and the answer is read against the file's best
(ratio = found / best time). Prints one row per file, fraction and ahead:
median and worst ratio over the seeds. The hub files are Kernel Tuner
cache files (HUB/cachefiles/APP/GPU.json.gz); --h200 adds ktune's own
convolution recording (replayed with examples/hub/convolution.ini).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = [f"{a}/{g}" for a in ("convolution_milo", "dedispersion_milo")
         for g in ("A100", "A4000", "A6000", "MI250X", "W6600", "W7800")]


def replay_summary(a, target, sets, out, tmp):
    """`ktune tune --replay target` with these --set pairs, its --json
    summary read back (a ktune journal replays with the hub convolution's
    declaration, a Kernel Tuner cache file alone)."""
    cmd = [os.path.join(a.build, "ktune"), "tune"]
    if target.endswith(".jsonl.gz"):
        cmd += [os.path.join(ROOT, "examples", "hub", "convolution.ini")]
    cmd += ["--replay", target, "--set", "strategy.max_seconds=0", "--json", out]
    for kv in sets:
        cmd += ["--set", kv]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    if p.returncode != 0 or not os.path.exists(out):
        sys.exit(f"tpe_ahead.py: {' '.join(cmd)} exited {p.returncode}: {p.stderr[-800:]}")
    with open(out) as f:
        d = json.load(f)
    os.unlink(out)
    return d


def replay(a, target, seed, evals, ahead, tmp):
    out = os.path.join(tmp, f"{abs(hash((target, seed, evals, ahead)))}.json")
    d = replay_summary(a, target, ["strategy.name=tpe", f"strategy.ahead={ahead}",
                                   f"strategy.max_evals={evals}", f"strategy.seed={seed}"],
                       out, tmp)
    return (d.get("best") or {}).get("median_us")


def space_best(a, target, tmp):
    """The file's best time and point count, from an exhaustive replay."""
    d = replay_summary(a, target, ["strategy.name=exhaustive"],
                       os.path.join(tmp, "exhaustive.json"), tmp)
    return d["best"]["median_us"], d["evaluations"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--hub", default=os.environ.get("KTUNE_HUB_DIR"))
    ap.add_argument("--ahead", default="0,16")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--fractions", default="0.03,0.06,0.1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--h200", default="")
    a = ap.parse_args(argv)
    a.build = os.path.abspath(a.build)
    targets = []
    for f in [x for x in a.files.split(",") if x]:
        path = os.path.join(a.hub or "", "cachefiles", f + ".json.gz")
        if not os.path.exists(path):
            print(f"tpe_ahead.py: {path} not found (KTUNE_HUB_DIR: a benchmark_hub checkout)",
                  file=sys.stderr)
            return 2
        targets.append((f, path))
    if a.h200:
        targets.append(("convolution/H200 (ktune)", os.path.abspath(a.h200)))
    aheads = [int(x) for x in a.ahead.split(",")]
    fractions = [float(x) for x in a.fractions.split(",")]
    print("| file | evals (share) | " + " | ".join(f"ahead {h}: median, worst" for h in aheads) + " |")
    print("|---|---:|" + "---:|" * len(aheads))
    summary = {h: [] for h in aheads}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(a.jobs) as pool:
        for name, path in targets:
            best, points = space_best(a, path, tmp)
            for fr in fractions:
                evals = max(1, round(fr * points))
                cells = []
                for h in aheads:
                    found = list(pool.map(lambda s: replay(a, path, s, evals, h, tmp),
                                          range(1, a.seeds + 1)))
                    r = [x / best for x in found]
                    summary[h].append(statistics.median(r))
                    cells.append(f"{statistics.median(r):.4f}, {max(r):.4f}")
                print(f"| {name} | {evals} ({fr:.0%}) | " + " | ".join(cells) + " |", flush=True)
    print()
    for h in aheads:
        s = summary[h]
        print(f"ahead {h}: median of the medians {statistics.median(s):.4f}, "
              f"mean {statistics.mean(s):.4f}, worst median {max(s):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
