#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tuner overhead per evaluation beyond the GPU time it measures.

  python3 bench/overhead.py [--ktune build/ktune] [JOURNAL]
  python3 bench/overhead.py --summary RUN.json...

Every `ktune tune --json` summary has an "overhead" record:
  wall_s       wall time of the run in this process
  evaluator_s  time inside evaluate() (verification, warm-ups, samples,
               L2 flushes, and for a worker the messages to it)
  gpu_s        kernel time of the kept samples
  tuner_s      wall_s - evaluator_s: strategy, bookkeeping, journal (one
               fdatasync per evaluation record), progress, outputs
The tuner's own overhead per evaluation is tuner_s / evaluations; what the
evaluator spends beyond GPU time is (evaluator_s - gpu_s) / evaluations.

Without --summary, measures the tuner's own part in replay (no GPU: the
evaluator costs nothing there), with and without a journal, over an
exhaustive sweep of JOURNAL (default: the vector_add 2^28 recording).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile


def report(name, s):
    o = s["overhead"]
    fresh = s["evaluations"] - s.get("from_journal", 0)
    if fresh <= 0:
        print("%s: no new evaluations" % name)
        return
    print("%s: %d evaluations, %d evaluate() calls" %
          (name, fresh, o["calls"]))
    print("  tuner (outside evaluate): %8.3f ms per evaluation" %
          (1e3 * o["tuner_s"] / fresh))
    print("  evaluator beyond GPU time: %7.1f ms per evaluation "
          "(evaluator %.1f s, GPU %.1f s)" %
          (1e3 * (o["evaluator_s"] - o["gpu_s"]) / fresh, o["evaluator_s"],
           o["gpu_s"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ktune", default="build/ktune")
    ap.add_argument("--summary", nargs="+")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("journal", nargs="?")
    a = ap.parse_args()
    if a.summary:
        for path in a.summary:
            with open(path) as f:
                report(path, json.load(f))
        return
    journal = a.journal or next(
        iter(sorted(glob.glob("tests/data/vector_add-*n268435456.jsonl"))),
        None)
    if not journal:
        sys.exit("no journal")
    with open(journal) as f:
        head = json.loads(f.readline())
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "job.ini")
        with open(config, "w") as f:
            f.write("[job]\noperator = %s\n" % head["plugin_spec"])
            for name, value in head["sizes"].items():
                f.write("%s = %d\n" % (name, value))
            f.write("[strategy]\nname = exhaustive\n")
        for label, journal_opt in (("no journal", None),
                                   ("journal, synced per record", "j.jsonl")):
            per_eval = []
            for k in range(a.repeat):
                out = os.path.join(tmp, "s.json")
                cmd = [a.ktune, "tune", config, "--replay", journal,
                       "--quiet", "--json", out, "--journal",
                       os.path.join(tmp, "%d-%s" % (k, journal_opt))
                       if journal_opt else "none"]
                subprocess.run(cmd, check=True)
                with open(out) as f:
                    s = json.load(f)
                per_eval.append(1e3 * s["overhead"]["tuner_s"] /
                                s["evaluations"])
            per_eval.sort()
            print("replay of %s, %s: tuner %.3f ms per evaluation (median "
                  "of %d runs of %d evaluations; min %.3f, max %.3f)" %
                  (os.path.basename(journal), label,
                   per_eval[len(per_eval) // 2], a.repeat, s["evaluations"],
                   per_eval[0], per_eval[-1]))


if __name__ == "__main__":
    main()
