#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Counter-guided search against coordinate (its walk), in replay (no GPU): on every
recorded space that holds counters (journal format 2, profile records), how
many evaluations each needs to get within 3% of the recording's optimum.

  python3 bench/guided.py [--ktune build/ktune] [--seeds 20]
      [--within 0.03] [--markdown FILE] [--json FILE] [JOURNAL...]

JOURNAL defaults to every tests/data/*.jsonl with counters. Both strategies
run without a budget (until a pass changes nothing), once from the default
configuration and once per seed from a random feasible start drawn with
that seed (strategy option random_start = 1: the same start for both at
the same seed, so the comparison is paired). "evals to 3%" counts
evaluations (unique points sent to the evaluator; profiling is not one)
until the best so far is within 3% of the optimum. guided runs twice: as
by default (skip = 0: moves the rules skip are tried last in each pass) and
as the rules say (skip = 1: they are left out). The paired table says for how
many starts guided needed fewer evaluations than coordinate from the
same start, as many, or more (a run that never got within 3% counts as
more).
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

# (label, strategy, extra options): coordinate against guided as it
# runs by default (skipped moves tried last) and with skipped moves left
# out, as the rules say.
CONTENDERS = [("coordinate", "coordinate", {}),
              ("guided", "guided", {"skip": 0}),
              ("guided skip=1", "guided", {"skip": 1})]


def header(path):
    with open(path) as f:
        return json.loads(f.readline())


def has_counters(path):
    with open(path) as f:
        for line in f:
            if '"kind":"profile"' in line.replace(" ", ""):
                return True
    return False


def run(a, config, journal, strategy, seed, random_start, out, extra=None):
    cmd = [a.ktune, "tune", config, "--replay", journal, "--quiet",
           "--journal", "none", "--json", out,
           "--set", "strategy.name=" + strategy,
           "--set", "strategy.seed=%d" % seed,
           "--set", "strategy.random_start=%d" % random_start,
           "--set", "strategy.max_evals=0",
           "--set", "strategy.max_seconds=0"]
    for key, value in (extra or {}).items():
        cmd += ["--set", "strategy.%s=%s" % (key, value)]
    for p in a.plugin:
        cmd += ["--plugin", p]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def evals_to(summary, optimum, within):
    return next((i + 1 for i, v in enumerate(summary["trace"])
                 if v is not None and v <= (1 + within) * optimum), None)


def describe(xs):
    got = [x for x in xs if x is not None]
    if not got:
        return "-", "-", "-"
    return ("%.1f" % statistics.mean(got), "%g" % statistics.median(got),
            "%d" % max(got))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ktune", default="build/ktune")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--within", type=float, default=0.03)
    ap.add_argument("--plugin", action="append", default=[])
    ap.add_argument("--markdown", help="also write the tables to FILE")
    ap.add_argument("--json", help="write every run's figures to FILE")
    ap.add_argument("journals", nargs="*")
    a = ap.parse_args()
    journals = a.journals or sorted(
        j for j in glob.glob("tests/data/*.jsonl") if has_counters(j))
    journals = [j for j in journals if has_counters(j)]
    if not journals:
        sys.exit("no journal with counters (profile records); record one "
                 "with tools/record_counters.sh")
    pct = int(round(a.within * 100))
    rows, pairs, raw = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "summary.json")
        for journal in journals:
            h = header(journal)
            name = os.path.basename(journal)
            config = os.path.join(tmp, "job.ini")
            with open(config, "w") as f:
                f.write("[job]\noperator = %s\n" % h["plugin_spec"])
                for size, value in h["sizes"].items():
                    f.write("%s = %d\n" % (size, value))
            probe = run(a, config, journal, "coordinate", 1, 0, out)
            optimum = probe["replay"]["recorded_optimum"]["median_us"]
            feasible = probe["space"]["feasible"]
            for start, seeds in (("default", [1]),
                                 ("random", range(1, a.seeds + 1))):
                got = {}
                for label, strategy, extra in CONTENDERS:
                    reach, used, ok = [], [], []
                    for seed in seeds:
                        s = run(a, config, journal, strategy, seed,
                                start == "random", out, extra)
                        reach.append(evals_to(s, optimum, a.within))
                        used.append(s["evaluations"])
                        ok.append(s["replay"]["best_vs_optimum"]
                                  <= 1 + a.within)
                        raw.append({"journal": name, "start": start,
                                    "seed": seed, "strategy": label,
                                    "evals_to_within": reach[-1],
                                    "evaluations": used[-1],
                                    "answer_within": ok[-1],
                                    "guided": s.get("metrics", {})
                                    .get("guided")})
                    got[label] = reach
                    mean, median, worst = describe(reach)
                    rows.append("| %s | %s | %s | %d | %d | %.0f%% | %s | %s "
                                "| %s | %.1f | %.0f%% |" % (
                                    name, start, label, feasible,
                                    len(reach), 100.0 * sum(
                                        x is not None for x in reach)
                                    / len(reach), mean, median, worst,
                                    statistics.mean(used),
                                    100.0 * sum(ok) / len(ok)))
                inf = float("inf")
                o = [x if x is not None else inf
                     for x in got["coordinate"]]
                for label, _, _ in CONTENDERS[1:]:
                    g = [x if x is not None else inf for x in got[label]]
                    diffs = [x - y for x, y in zip(g, o)
                             if not math.isinf(x) and not math.isinf(y)]
                    pairs.append("| %s | %s | %s | %d | %d | %d | %d | %s |"
                                 % (name, start, label, len(g),
                                    sum(x < y for x, y in zip(g, o)),
                                    sum(x == y for x, y in zip(g, o)),
                                    sum(x > y for x, y in zip(g, o)),
                                    "%+.2f" % statistics.mean(diffs)
                                    if diffs else "-"))
    text = "\n".join(
        ["| recording | start | strategy | feasible | runs | within %d%% "
         "| mean evals to %d%% | median | worst | mean evaluations | answer "
         "within %d%% |" % (pct, pct, pct),
         "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"] + rows +
        ["", "| recording | start | guided | runs | fewer | equal | more "
         "(or never within %d%%) | mean difference where both got there |"
         % pct, "|---|---|---|---:|---:|---:|---:|---:|"] + pairs)
    print("guided vs coordinate, %d random starts + the default start, no "
          "budget; evaluations to get within %d%% of the recorded optimum\n"
          % (a.seeds, pct))
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(raw, f, indent=1)


if __name__ == "__main__":
    main()
