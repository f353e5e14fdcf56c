#!/usr/bin/env python3
"""Strategy benchmark, in replay (no GPU): for each recorded space and each
strategy, over many seeds, how many evaluations it needs to get within 3%
of the exhaustive optimum, and the fraction of runs that got there within
the budget.

  python3 bench/strategies.py [--ktune build/ktune] [--seeds 20]
      [--budget 0.25] [--within 0.03] [--markdown FILE] [JOURNAL...]

JOURNAL defaults to every tests/data/vector_add-*.jsonl. The budget is a
fraction of the space's feasible points (max_evals); the optimum is the
recording's fastest valid point. "evals to 3%" counts evaluations (unique
points sent to the evaluator) until the best so far is within 3% of it,
averaged over the runs that got there. Deterministic strategies
(one_at_a_time, exhaustive) give the same run for every seed.
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

STRATEGIES = ["one_at_a_time", "exhaustive", "random", "annealing", "genetic"]


def header(path):
    with open(path) as f:
        return json.loads(f.readline())


def run(ktune, config, journal, strategy, seed, budget, plugins, out):
    cmd = [ktune, "tune", config, "--replay", journal, "--quiet",
           "--journal", "none", "--json", out,
           "--set", "strategy.name=" + strategy,
           "--set", "strategy.seed=%d" % seed,
           "--set", "strategy.max_evals=%d" % budget,
           "--set", "strategy.max_seconds=0"]
    for p in plugins:
        cmd += ["--plugin", p]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ktune", default="build/ktune")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budget", type=float, default=0.25,
                    help="max_evals as a fraction of the feasible points")
    ap.add_argument("--within", type=float, default=0.03)
    ap.add_argument("--plugin", action="append", default=[])
    ap.add_argument("--markdown", help="also write the table to FILE")
    ap.add_argument("journals", nargs="*")
    a = ap.parse_args()
    journals = a.journals or sorted(glob.glob("tests/data/vector_add-*.jsonl"))
    if not journals:
        sys.exit("no journals")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "summary.json")
        for journal in journals:
            h = header(journal)
            config = os.path.join(tmp, "job.ini")
            with open(config, "w") as f:
                f.write("[job]\noperator = %s\n" % h["plugin_spec"])
                for name, value in h["sizes"].items():
                    f.write("%s = %d\n" % (name, value))
            probe = run(a.ktune, config, journal, "exhaustive", 1, 0,
                        a.plugin, out)
            feasible = probe["space"]["feasible"]
            optimum = probe["replay"]["recorded_optimum"]["median_us"]
            budget = max(1, math.floor(a.budget * feasible))
            for strategy in STRATEGIES:
                reached, used, answers = [], [], []
                for seed in range(1, a.seeds + 1):
                    s = run(a.ktune, config, journal, strategy, seed, budget,
                            a.plugin, out)
                    used.append(s["evaluations"])
                    hit = next((i + 1 for i, v in enumerate(s["trace"])
                                if v is not None
                                and v <= (1 + a.within) * optimum), None)
                    if hit is not None:
                        reached.append(hit)
                    answers.append(s["replay"]["best_vs_optimum"]
                                   <= 1 + a.within)
                rows.append({
                    "journal": os.path.basename(journal),
                    "strategy": strategy, "feasible": feasible,
                    "budget": budget, "runs": a.seeds,
                    "reached": len(reached) / a.seeds,
                    "mean_evals": statistics.mean(reached) if reached
                    else float("nan"),
                    "max_evals": max(reached) if reached else None,
                    "mean_used": statistics.mean(used),
                    "answer_ok": sum(answers) / a.seeds})
    pct = int(round(a.within * 100))
    lines = ["| recording | strategy | feasible | budget | runs within "
             "%d%% | mean evals to %d%% | worst | mean evals used | answer "
             "within %d%% |" % (pct, pct, pct),
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %s | %d | %d | %.0f%% | %s | %s | %.1f | %.0f%% |"
                     % (r["journal"], r["strategy"], r["feasible"],
                        r["budget"], 100 * r["reached"],
                        "%.1f" % r["mean_evals"]
                        if not math.isnan(r["mean_evals"]) else "-",
                        r["max_evals"] if r["max_evals"] else "-",
                        r["mean_used"], 100 * r["answer_ok"]))
    text = "\n".join(lines)
    print("%d seeds per strategy; budget = %.0f%% of the feasible points\n"
          % (a.seeds, 100 * a.budget))
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
