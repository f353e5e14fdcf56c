#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for build/ktune in the hub run's CPU test
(test_hub_run.sh): it answers the commands bench/hub/run_h200.py gives,
with made-up numbers, and logs each call to $FAKE_KTUNE_LOG.

  tune DECL --check            the declaration's `; fake feasible = N`
  tune DECL ... --journal J --json S [--resume]
                               strategy random: appends the next points of
                               a fixed permutation (10 per second of
                               max_seconds left on the journal's clock, up
                               to max_evals); others: a summary with a best
  profile SPEC --plugin DECL ... --json F   a diagnosis line

A declaration containing `fake fails` makes every command exit 2."""
import itertools
import json
import os
import random
import re
import sys


def opt(argv, name):
    return argv[argv.index(name) + 1] if name in argv else None


def sets(argv):
    out = {}
    for i, a in enumerate(argv):
        if a == "--set":
            k, v = argv[i + 1].split("=", 1)
            out[k] = v
    return out


def space(decl=None):
    """A fixed permutation of made-up points; with KTUNE_HUB_DIR set and a
    declaration of convolution or dedispersion (small T1 spaces), the T1
    file's feasible points instead (a manual end-to-end check with Kernel
    Tuner in simulation and the neutral harness)."""
    hub_dir = os.environ.get("KTUNE_HUB_DIR")
    if hub_dir and decl and os.path.isdir(hub_dir):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "bench", "hub"))
        import hub

        key = hub.classify(decl)
        if key in ("convolution", "dedispersion"):
            pts = hub.t1_space(hub_dir, key)
            random.Random(1).shuffle(pts)
            return pts
    pts = [dict(block_size_x=bx, block_size_y=by, tile_size_x=tx)
           for bx, by, tx in itertools.product([16, 32, 64, 128], [1, 2, 4, 8], [1, 2, 3, 4])]
    random.Random(1).shuffle(pts)
    return pts


def time_us(p):
    return (100.0 + abs(p["block_size_x"] - 64) + 10 * abs(p.get("tile_size_x", 1) - 2) +
            p.get("block_size_y", 1))


def tune(decl, argv):
    text = open(decl).read()
    if "--check" in argv:
        m = re.search(r"fake feasible = (\d+)", text)
        print(f"{decl}: fake\nspace 999 point(s) before device limits:")
        if m:
            print(f"{int(m.group(1)):,} point(s) feasible after the conditions")
        return 0
    s, j, out = sets(argv), opt(argv, "--journal"), opt(argv, "--json")
    if j and os.path.exists(j) and "--resume" not in argv:
        print(f"ktune tune: journal {j} exists (add --resume)", file=sys.stderr)
        return 2
    done, screen = [], int(s.get("measure.screen_samples", "0"))
    if j and os.path.exists(j):
        head = json.loads(open(j).readline())
        had = (head.get("protocol") or {}).get("screen_samples", 0)
        if had != screen:  # as ktune: a journal resumes under its own protocol
            print(f"ktune tune: {j} used another measurement protocol: screen_samples is "
                  f"{had} there, {screen} here", file=sys.stderr)
            return 2
        done = [json.loads(x) for x in open(j) if '"eval"' in x]
    pts = space(decl)
    new = []
    if s.get("strategy.name") == "random":
        clock = done[-1]["elapsed_s"] if done else 0.0
        left = float(s.get("strategy.max_seconds", "0")) - clock
        cap = int(s.get("strategy.max_evals", "0")) or len(pts)
        n = max(0, min(int(left * 10), min(cap, len(pts)) - len(done)))
        for i, p in enumerate(pts[len(done):len(done) + n]):
            new.append({"kind": "eval", "point": {"variant": "v", "params": p}, "status": "ok",
                        "timing": {"kernel": {"median": time_us(p)}},
                        "elapsed_s": clock + 0.1 * (i + 1)})
    else:
        new = [{"kind": "eval", "point": {"variant": "v", "params": p}, "status": "ok",
                "timing": {"kernel": {"median": time_us(p)}}, "elapsed_s": 0.1 * (i + 1)}
               for i, p in enumerate(pts[:12])]
    if j:
        with open(j, "a") as f:
            if not done:
                head = {"kind": "ktune.journal", "plugin_spec": "fake"}
                if screen:
                    head["protocol"] = {"screen_samples": screen}
                f.write(json.dumps(head) + "\n")
            for r in new:
                f.write(json.dumps(r) + "\n")
    evs = [r["point"]["params"] for r in done + new]
    best = min(evs, key=time_us) if evs else None
    wall = 0.1 * len(new) + 0.5
    summ = {"kind": "ktune.tune", "spec": "fake", "device": "NVIDIA H200 (fake)",
            "strategy": {"name": s.get("strategy.name", "one_at_a_time")},
            "evaluations": len(evs), "from_journal": len(done), "feasible": len(pts),
            "overhead": {"wall_s": wall, "gpu_s": wall / 4},
            "phases": {"warmup_s": 0.0, "sampling_s": wall / 2},
            "compilation": {"seconds": wall / 3, "compiled": len(new), "failed": 0},
            "best": best and {"variant": "v", "params": best, "median_us": time_us(best),
                              "config": " ".join(f"{k}={v}" for k, v in best.items())}}
    if out:
        with open(out, "w") as f:
            json.dump(summ, f)
    print(f"best {summ['best'] and summ['best']['config']}")
    return 0


def main(argv):
    with open(os.environ.get("FAKE_KTUNE_LOG", os.devnull), "a") as f:
        f.write(" ".join(argv) + "\n")
    if argv[0] == "tune":
        decl = argv[1]
    elif argv[0] == "profile":
        decl = opt(argv, "--plugin")
    else:
        return 2
    if "fake fails" in open(decl).read():
        print(f"ktune {argv[0]}: {decl}:3: [operator] source: cannot read it", file=sys.stderr)
        return 2
    if argv[0] == "tune":
        cache = os.environ.get("KTUNE_CACHE_DIR")
        if cache and "--check" not in argv:  # a compile's entry, as ktune's cache keeps one
            open(os.path.join(cache, "fake-entry"), "w").close()
        return tune(decl, argv)
    print("intensity   512 flop/B (fake): above it, the compute side bounds this kernel")
    if "fake no class" in open(decl).read():
        print("diagnosis   no single bottleneck: SM 77.0% of peak (fake)")
    else:
        print("diagnosis: compute-bound (fake): 71% of the FMA peak")
    if opt(argv, "--json"):
        with open(opt(argv, "--json"), "w") as f:
            json.dump({"kind": "ktune.profile"}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
