#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Strategy benchmark in replay (no GPU): every strategy over every
ground-truth recording, many seeds each, after the methodology of Willemsen
et al. (FGCS 2024) for auto-tuning optimisers.

  python3 bench/strategies.py [--build build] [--seeds 50] [--budget 0.10]
      [--min-budget 20] [--strategies a,b,...] [--hard DIR] [--jobs 2]
      [--out PREFIX] [RECORDING...]

RECORDING defaults to every tests/data/*-h200-*.jsonl (and .jsonl.gz);
--hard DIR also writes the hard synthetic gemv spaces of
tools/gen_synthetic.py into DIR and benchmarks them. Each recording must be
an exhaustive journal (its optimum is the recording's fastest valid point).

For each recording and strategy, build/bench/bench_replay runs SEEDS tuning
sessions in one process (deterministic strategies once): the budget is
max(min-budget, budget x feasible points) evaluations, and a strategy that
stops by itself keeps its answer after it stops. Time is simulated from the
recording: each measurement costs the point's recorded wall time (a paired
comparison measures the incumbent again), each new point `--overhead`
seconds more (set-up, verification).

Reported, per recording and strategy:
  - the answer (the closing round's winner) against the optimum: median and
    worst seed, and the runs within 2%;
  - evaluations used (median, worst) and their share of the feasible points;
  - the fraction of the optimum reached (optimum / best so far) as a
    function of evaluations and of simulated time, mean over seeds (plots);
  - the performance score P against random search at equal budget: at each
    budget b, P(b) = (B(b) - S(b)) / (B(b) - optimum), where S(b) is the
    strategy's mean best-so-far and B(b) the calculated (exact) expectation
    of random search without replacement after b evaluations; P is averaged
    over b = 1..budget (evaluations) and over a time grid up to the time
    random search takes for the budget (time). P = 0: as good as random;
    1: the optimum from the first evaluation; < 0: worse than random.

Writes PREFIX.md (tables) and PREFIX-evals.svg, PREFIX-time.svg (curves),
and prints the summary table last. About 3-6 minutes on 2 cores for the
vector_add recordings plus two 5,000-11,000-point hard spaces.
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

STRATEGIES = ["one_at_a_time", "coordinate", "random", "annealing",
              "genetic", "exhaustive"]
DETERMINISTIC = {"exhaustive"}
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00",
          "#7F7F7F"]
INK, GRID = "#444", "#e2e2e2"


def has_counters(path):
    opener = open
    if path.endswith(".gz"):
        import gzip
        opener = gzip.open
    with opener(path, "rt") as f:
        for line in f:
            if '"kind":"profile"' in line or '"kind": "profile"' in line:
                return True
    return False


def declared_job(recording):
    """A recording of a declared operator (no plugin: an INI with an
    [operator] section) names the job it was recorded with in its sidecar's
    config; None for a plugin's operator."""
    meta = recording.replace(".jsonl.gz", ".meta.json").replace(".jsonl",
                                                               ".meta.json")
    try:
        job = json.load(open(meta))["config"]
        with open(job) as f:
            return job if "[operator]" in f.read() else None
    except (OSError, ValueError, KeyError, IndexError):
        return None


def replay(a, recording, strategy, seeds, budget, values=False):
    """strategy: a strategy's name, or a label --as defined (the strategy
    with options set)."""
    name, options = a.defined.get(strategy, (strategy, []))
    cmd = [os.path.join(a.build, "bench", "bench_replay"), "--plugins",
           os.path.join(a.build, "plugins"), "--recording", recording,
           "--strategy", name, "--seeds", str(seeds), "--max-evals",
           str(budget), "--overhead", str(a.overhead)]
    for o in options:
        cmd += ["--option", o]
    if declared_job(recording):
        cmd += ["--plugin", declared_job(recording)]
    if values:
        cmd.append("--values")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench_replay failed (%s on %s): %s"
                 % (strategy, recording, p.stderr.strip()))
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    return lines


def random_baseline(values, budget):
    """Expected best of b uniform draws without replacement, b = 1..budget,
    from the feasible points (a failed point is never the best)."""
    ok = sorted(v for v in values if v is not None)
    n = len(values)
    out = []
    for b in range(1, budget + 1):
        # P(the i-th fastest is the best of b) = C(n-1-i, b-1) / C(n, b)
        total, mass = 0.0, 0.0
        logc = math.lgamma(n + 1) - math.lgamma(b + 1) - math.lgamma(n - b + 1)
        for i, v in enumerate(ok):
            rest = n - 1 - i
            if rest < b - 1:
                break
            lp = (math.lgamma(rest + 1) - math.lgamma(b) -
                  math.lgamma(rest - b + 2)) - logc
            p = math.exp(lp)
            total += p * v
            mass += p
        # The rest of the mass: every draw failed; count it as the slowest.
        out.append(total + (1 - mass) * ok[-1])
    return out


def curve_evals(run, budget):
    """Best so far after each of 1..budget evaluations (carried forward)."""
    best = [x for x in run["best_us"]]
    out, last = [], math.inf
    for k in range(budget):
        if k < len(best) and best[k] is not None:
            last = min(last, best[k])
        out.append(last)
    return out


def curve_time(run, grid):
    out, k, last = [], 0, math.inf
    t, b = run["time_s"], run["best_us"]
    for g in grid:
        while k < len(t) and t[k] <= g:
            if b[k] is not None:
                last = min(last, b[k])
            k += 1
        out.append(last)
    return out


def mean_finite(xs, fallback):
    xs = [x if math.isfinite(x) else fallback for x in xs]
    return sum(xs) / len(xs)


def score(base, strat, optimum):
    ps = [(b - s) / (b - optimum) for b, s in zip(base, strat)
          if b - optimum > 1e-12 * optimum]
    return sum(ps) / len(ps) if ps else float("nan")


def gap_by(run, seconds, optimum):
    """The best point found within `seconds` of simulated time against the
    optimum (inf: none ran by then)."""
    best = min((b for t, b in zip(run["time_s"], run["best_us"])
                if t <= seconds and b is not None), default=None)
    return best / optimum - 1 if best else math.inf


def analyse(rec, values, budget, live_s):
    optimum = next(iter(rec.values()))[0]["optimum_us"]
    worst = max(v for v in values if v is not None)
    base_e = random_baseline(values, budget)
    # Time axis: up to the median time random search took for the budget.
    # The baseline in time is the calculated one at the evaluations each
    # random run had completed by then (none: the slowest point), averaged
    # over the runs, so random search itself scores 0 in expectation.
    rnd = rec.get("random")
    t_end = statistics.median(r["time_s"][-1] for r in rnd) if rnd else \
        max(r["time_s"][-1] for rs in rec.values() for r in rs if r["time_s"])
    grid = [t_end * (i + 1) / 100 for i in range(100)]
    ext = [worst] + base_e
    base_t = []
    for g in grid:
        ks = [sum(1 for t in r["time_s"] if t <= g) for r in rnd] if rnd \
            else [min(budget, int(budget * g / t_end))]
        base_t.append(sum(ext[min(k, budget)] for k in ks) / len(ks))
    out = {}
    for s, rs in rec.items():
        ce = [curve_evals(r, budget) for r in rs]
        ct = [curve_time(r, grid) for r in rs]
        se = [mean_finite([c[k] for c in ce], worst) for k in range(budget)]
        st = [mean_finite([c[k] for c in ct], worst) for k in range(len(grid))]
        gaps = [r["answer_us"] / optimum - 1 if r["answer_us"] else math.inf
                for r in rs]
        used = [r["evaluations"] for r in rs]
        live = [gap_by(r, live_s, optimum) for r in rs]
        out[s] = {
            "runs": len(rs), "gap_med": statistics.median(gaps),
            "gap_max": max(gaps), "within2": sum(g <= 0.02 for g in gaps)
            / len(gaps), "used_med": statistics.median(used),
            "used_max": max(used),
            "sim_med": statistics.median(r["sim_s"] for r in rs),
            "live_med": statistics.median(live), "live_max": max(live),
            "P_evals": score(base_e, se, optimum),
            "P_time": score(base_t, st, optimum),
            "frac_evals": [optimum / x for x in se],
            "frac_time": [optimum / x for x in st],
            "stops": sorted({r["stop_reason"].split(":")[0] for r in rs})}
    return out, grid, [optimum / x for x in base_e]


# ------------------------------------------------------------------ SVG

BASELINE = "random (calculated)"


def color(names, s):
    """The calculated baseline in black, the strategies in the report's
    palette (Okabe-Ito) by first appearance."""
    if s == BASELINE:
        return "#000"
    others = [n for n in names if n != BASELINE]
    return COLORS[others.index(s) % len(COLORS)]

def svg_panels(title_of, panels, xlabel, path, xs_of):
    """One small chart per recording: fraction of the optimum (y, 0.5..1)
    against evaluations or time (x); a line per strategy."""
    cols = 2
    w, h = 460, 300
    rows = (len(panels) + cols - 1) // cols
    legend_h = 30
    W, H = cols * w, rows * h + legend_h
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'viewBox="0 0 %d %d" font-family="system-ui, sans-serif" '
         'font-size="12">' % (W, H, W, H),
         '<rect width="100%" height="100%" fill="#fff"/>']
    names = []
    for idx, (rec, data) in enumerate(panels):
        ox, oy = (idx % cols) * w, legend_h + (idx // cols) * h
        left, right, top, bottom = ox + 60, ox + w - 16, oy + 24, oy + h - 44
        xs = xs_of(rec)
        x0, x1 = 0.0, xs[-1]
        lo = 0.5

        def X(v):
            return left + (right - left) * (v - x0) / (x1 - x0 or 1)

        def Y(v):
            v = max(lo, min(1.0, v))
            return bottom - (bottom - top) * (v - lo) / (1 - lo)
        o.append('<text x="%.1f" y="%.1f" fill="%s" font-size="13">%s</text>'
                 % (left, oy + 16, INK, title_of(rec)))
        for k in range(6):
            v = lo + k * (1 - lo) / 5
            o.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" '
                     'stroke="%s"/>' % (left, right, Y(v), Y(v), GRID))
            o.append('<text x="%.1f" y="%.1f" text-anchor="end" fill="%s" '
                     'font-size="11">%.1f</text>' % (left - 6, Y(v) + 4, INK,
                                                     v))
        for k in range(5):
            v = x0 + k * (x1 - x0) / 4
            o.append('<text x="%.1f" y="%.1f" text-anchor="middle" '
                     'fill="%s" font-size="11">%s</text>'
                     % (X(v), bottom + 16, INK,
                        ("%.0f" % v) if x1 >= 20 else ("%.1f" % v)))
        o.append('<path d="M%.1f %.1fV%.1fH%.1f" stroke="%s" fill="none"/>'
                 % (left, top, bottom, right, INK))
        o.append('<text x="%.1f" y="%.1f" text-anchor="middle" fill="%s">'
                 '%s</text>' % ((left + right) / 2, bottom + 34, INK, xlabel))
        o.append('<text transform="translate(%.1f %.1f) rotate(-90)" '
                 'text-anchor="middle" fill="%s">fraction of optimum</text>'
                 % (ox + 16, (top + bottom) / 2, INK))
        for i, (s, ys) in enumerate(data):
            if s not in names:
                names.append(s)
            c = color(names, s)
            step = max(1, len(xs) // 150)
            keep = list(range(0, len(xs), step))
            if keep[-1] != len(xs) - 1:
                keep.append(len(xs) - 1)
            pts = " ".join("%.1f,%.1f" % (X(xs[k]), Y(ys[k])) for k in keep)
            dash = ' stroke-dasharray="4 3"' if s == BASELINE else ""
            o.append('<polyline points="%s" fill="none" stroke="%s" '
                     'stroke-width="1.6"%s/>' % (pts, c, dash))
    x = 12
    for s in names:
        c = color(names, s)
        o.append('<line x1="%d" x2="%d" y1="16" y2="16" stroke="%s" '
                 'stroke-width="2"/><text x="%d" y="20" fill="%s">%s</text>'
                 % (x, x + 20, c, x + 26, INK, s))
        x += 34 + 7 * len(s)
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def meets(d, feasible):
    """The default's targets on one recording: median gap <= 2%, worst <=
    5%, evaluations <= 10% of the feasible points, P > 0 (evaluations and
    time)."""
    return [d["gap_med"] <= 0.02, d["gap_max"] <= 0.05,
            d["used_max"] <= 0.10 * feasible, d["P_evals"] > 0,
            d["P_time"] > 0]


def targets(tables, strategy="one_at_a_time"):
    """A strategy on the hard recordings (more than 200 feasible points)
    against the default's targets."""
    rows = ["## %s against the targets (hard recordings: more than 200 "
            "feasible points)" % strategy, "",
            "| recording | median gap <= 2% | worst <= 5% | evaluations <= "
            "10% | P evals > 0 | P time > 0 | all | best within the live "
            "budget, median / worst |",
            "|---|---|---|---|---|---|---|--:|"]
    for name, feasible, _, _, res in tables:
        d = res.get(strategy)
        if feasible <= 200 or not d:
            continue
        ok = meets(d, feasible)
        cells = ["%s (%s)" % ("yes" if o else "**no**", v) for o, v in zip(
            ok, ["%+.2f%%" % (100 * d["gap_med"]),
                 "%+.2f%%" % (100 * d["gap_max"]),
                 "%.1f%%" % (100 * d["used_max"] / feasible),
                 "%.2f" % d["P_evals"], "%.2f" % d["P_time"]])]
        rows.append("| %s | %s | %s | %+.2f%% / %+.2f%% |" % (
            name, " | ".join(cells), "yes" if all(ok) else "**no**",
            100 * d["live_med"], 100 * d["live_max"]))
    if len(rows) == 4:
        rows.append("| (no hard recording) | | | | | | | |")
    return rows + [""]


def leave_one_out(tables, labels):
    """Choosing among settings of the default without choosing for one
    recording: for each hard recording, the setting that does best on the
    other hard recordings (most targets met, then the highest mean P per
    evaluation), and how that setting does on the one left out."""
    hard = [t for t in tables if t[1] > 200]
    if len(labels) < 2 or len(hard) < 2:
        return []

    def rank(label, recs):
        ds = [(r[4][label], r[1]) for r in recs if label in r[4]]
        return (sum(sum(meets(d, f)) for d, f in ds),
                statistics.mean(d["P_evals"] for d, _ in ds))
    rows = ["## Choosing the default's setting, leaving one recording out",
            "", "Settings compared: %s. For each hard recording the setting "
            "ranked first on the others (targets met, then mean P evals) "
            "and its result on the recording left out." % ", ".join(labels),
            "", "| left out | chosen on the others | median gap | worst | "
            "P evals | P time | all targets |", "|---|---|--:|--:|--:|--:|---|"]
    for held in hard:
        rest = [t for t in hard if t is not held]
        pick = max(labels, key=lambda lb: rank(lb, rest))
        d = held[4].get(pick)
        if not d:
            continue
        rows.append("| %s | %s | %+.2f%% | %+.2f%% | %.2f | %.2f | %s |" % (
            held[0], pick, 100 * d["gap_med"], 100 * d["gap_max"],
            d["P_evals"], d["P_time"],
            "yes" if all(meets(d, held[1])) else "**no**"))
    overall = max(labels, key=lambda lb: rank(lb, hard))
    return rows + ["", "Ranked first on all hard recordings: %s." % overall,
                   ""]


# ----------------------------------------------------------------- main

def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--budget", type=float, default=0.10,
                    help="evaluations as a fraction of the feasible points")
    ap.add_argument("--min-budget", type=int, default=20)
    ap.add_argument("--overhead", type=float, default=0.02,
                    help="simulated seconds per new point besides its "
                    "recorded wall time")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--hard", metavar="DIR",
                    help="write the hard synthetic spaces here and add them")
    ap.add_argument("--as", dest="define", action="append", default=[],
                    metavar="LABEL=STRATEGY:NAME=VALUE,...",
                    help="benchmark STRATEGY with these options under LABEL "
                    "(add LABEL to --strategies)")
    ap.add_argument("--live-seconds", type=float, default=7.0,
                    help="also report the best found within this much "
                    "simulated time (the shipped jobs' max_seconds)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="write OUT.md, OUT-evals.svg, OUT-time.svg")
    ap.add_argument("recordings", nargs="*")
    a = ap.parse_args()
    a.defined = {}
    for d in a.define:
        label, _, rest = d.partition("=")
        name, _, opts = rest.partition(":")
        if not label or not name:
            sys.exit("--as %s: expected LABEL=STRATEGY[:NAME=VALUE,...]" % d)
        a.defined[label] = (name, [o for o in opts.split(",") if o])
    started = time.time()
    recs = a.recordings or sorted(glob.glob("tests/data/*-h200-*.jsonl") +
                                  glob.glob("tests/data/*-h200-*.jsonl.gz"))
    if a.hard:
        p = subprocess.run([sys.executable, "tools/gen_synthetic.py",
                            "--hard", a.hard], capture_output=True, text=True,
                           check=True)
        recs += p.stdout.split()
    if not recs:
        sys.exit("no recordings")
    strategies = a.strategies.split(",")
    plan, info = [], {}
    for r in recs:
        probe = replay(a, r, "random", 1, 1, values=True)
        values, feasible = probe[0]["values"], probe[1]["feasible"]
        budget = min(feasible, max(a.min_budget,
                                   math.floor(a.budget * feasible)))
        counters = has_counters(r)
        info[r] = (values, feasible, budget, counters)
        for s in strategies:
            plan.append((r, s, 1 if a.defined.get(s, (s,))[0] in
                         DETERMINISTIC else a.seeds, budget))
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda x: (x, replay(a, *x)), plan))
    by_rec = {}
    for (r, s, _, _), runs in results:
        by_rec.setdefault(r, {})[s] = runs
    tables, panels_e, panels_t, agg = [], [], [], {}
    for r in recs:
        values, feasible, budget, counters = info[r]
        res, grid, base = analyse(by_rec[r], values, budget,
                                  a.live_seconds)
        name = os.path.basename(r)
        tables.append((name, feasible, budget, counters, res))
        panels_e.append((name, [(BASELINE, base)] +
                         [(s, res[s]["frac_evals"]) for s in res]))
        panels_t.append((name, [(s, res[s]["frac_time"]) for s in res]))
        info[r] = info[r] + (grid,)
        for s, x in res.items():
            agg.setdefault(s, []).append(x)
    lines = ["# Strategies in replay: fraction of the optimum and performance "
             "score against random search", "",
             "- command: `python3 bench/strategies.py %s` (%d seeds; "
             "deterministic strategies once), commit `%s`, %s, no GPU"
             % (" ".join(sys.argv[1:]), a.seeds, commit(),
                time.strftime("%Y-%m-%d")),
             "- budget per recording: max(%d, %.0f%% of its feasible points) "
             "evaluations; time simulated from the recordings (+%.3f s per "
             "new point)" % (a.min_budget, 100 * a.budget, a.overhead),
             "- P: performance score against the calculated random search "
             "at equal budget (0: as good as random, 1: the optimum at once), "
             "averaged over the evaluation budgets 1..budget (P evals) and "
             "over time up to random search's time for the budget (P time)",
             "- recordings named `*-synthetic-*` come from "
             "`tools/gen_synthetic.py --hard`: models that are hard on "
             "purpose (ridges no single change crosses, a second basin, "
             "+-1.5% ruggedness, the vendor reference fastest at the "
             "defaults), not measurements; the `*-h200-*` ones are "
             "exhaustive H200 recordings",
             ""]
    for name, feasible, budget, counters, res in tables:
        lines += ["## %s" % name, "",
                  "%d feasible points, budget %d evaluations%s." %
                  (feasible, budget, ", counters recorded" if counters
                   else ""), "",
                  "| strategy | runs | answer vs optimum, median | worst | "
                  "runs within 2%% | evaluations, median | worst (%% of "
                  "feasible) | simulated s | best by %g s, median | worst "
                  "| P evals | P time | stopped |" % a.live_seconds,
                  "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
        for s, x in res.items():
            lines.append(
                "| %s | %d | %+.2f%% | %+.2f%% | %.0f%% | %.0f | %d (%.1f%%) "
                "| %.1f | %+.2f%% | %+.2f%% | %.2f | %.2f | %s |"
                % (s, x["runs"], 100 * x["gap_med"], 100 * x["gap_max"],
                   100 * x["within2"], x["used_med"], x["used_max"],
                   100 * x["used_max"] / feasible, x["sim_med"],
                   100 * x["live_med"], 100 * x["live_max"],
                   x["P_evals"], x["P_time"], ", ".join(x["stops"])))
        lines.append("")
    summary = ["| strategy | recordings | mean P evals | mean P time | "
               "worst median gap | worst gap |", "|---|--:|--:|--:|--:|--:|"]
    for s, xs in agg.items():
        summary.append("| %s | %d | %.2f | %.2f | %+.2f%% | %+.2f%% |" % (
            s, len(xs), statistics.mean(x["P_evals"] for x in xs),
            statistics.mean(x["P_time"] for x in xs),
            100 * max(x["gap_med"] for x in xs),
            100 * max(x["gap_max"] for x in xs)))
    lines += ["## Over all recordings", ""] + summary + [""]
    check = targets(tables)
    lines += check
    settings = [s for s in strategies
                if a.defined.get(s, (s,))[0] == "one_at_a_time"]
    lines += leave_one_out(tables, settings)
    elapsed = time.time() - started
    lines.append("Benchmark wall time %.0f s." % elapsed)
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out + ".md", "w") as f:
            f.write(text)
        budgets = {os.path.basename(r): info[r][2] for r in recs}
        grids = {os.path.basename(r): info[r][4] for r in recs}
        svg_panels(lambda n: n, panels_e, "evaluations", a.out + "-evals.svg",
                   lambda n: list(range(1, budgets[n] + 1)))
        svg_panels(lambda n: n, panels_t, "simulated seconds",
                   a.out + "-time.svg", lambda n: grids[n])
    print("\n".join(check))
    print("\n".join(summary))
    print("(%d recordings, %d seeds, %.0f s)" % (len(recs), a.seeds, elapsed))


if __name__ == "__main__":
    main()
