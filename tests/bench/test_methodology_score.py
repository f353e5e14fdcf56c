#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/methodology/score.py on a tiny synthetic brute-forced space,
scored by the autotuning-methodology package's own code: the budget is the
package's 0.95 cutoff of random search, a run that measures the optimum
first scores P close to 1, random orders (50 seeds) score close to 0 on
average, and a run that measures the slowest points first scores below 0;
the same runs score the same P on every call and beside any other
strategy (the package's bootstrap is seeded per strategy), and the
fractions of the optimum are the arithmetic their definitions state,
checked against values worked out here from the made-up times; the rule
that picks the default from the tuning set's scores picks as it states.

Needs the package (pip install autotuning-methodology==1.1.0): the Python
named by KTUNE_METHODOLOGY_PYTHON runs this file when set; without the
package the test exits 77 (skipped) saying so."""
import json
import os
import random
import sys
import tempfile
from pathlib import Path

SRC = Path(os.environ.get("KT_SOURCE_DIR", Path(__file__).resolve()
                          .parents[2]))
sys.path.insert(0, str(SRC / "bench" / "methodology"))

try:
    import numpy as np
    import autotuning_methodology  # noqa: F401
except ImportError:
    print("skipped: autotuning-methodology is not installed for "
          f"{sys.executable} (set KTUNE_METHODOLOGY_PYTHON)")
    sys.exit(77)

import score  # noqa: E402

N = 400
times = [1.0 + 0.01 * k for k in range(N)]


def result(i, t_ms):
    """One T4 result: point i, kernel time t_ms, 0.5 s compile, 32 runs."""
    return {"timestamp": "2026-12-01T00:00:00Z",
            "configuration": {"x": i}, "objectives": ["time"],
            "times": {"compilation": 500.0, "framework": 0.0,
                      "search_algorithm": 0.0, "validation": 0.0,
                      "runtimes": [t_ms] * 32},
            "invalidity": "correct", "correctness": 1,
            "measurements": [{"name": "time", "value": t_ms, "unit": "ms"}]}


def main():
    rng = random.Random(7)
    rng.shuffle(times)
    with tempfile.TemporaryDirectory() as tmp:
        t4 = Path(tmp) / "synthetic_T4.json"
        t4.write_text(json.dumps({
            "schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"},
            "results": [result(i, t) for i, t in enumerate(times)]}))
        st = score.stats(t4, "synthetic", "cpu")
        start, end, limit = score.budget(st)
        # Each evaluation costs 0.5 s + 32 runs of 1-5 ms: the package's
        # fevals to the 0.95 cutoff for 400 points is ceil(i / (N + 1 - i))
        # with i the rank of the cutoff value counted from the worst.
        per_eval = st.total_time_median()
        assert 0.53 < per_eval < 0.67, per_eval
        assert 0 < start < end < limit, (start, end, limit)
        assert abs(limit - 1.1 * end) < 1e-9
        fevals = end / per_eval
        assert 5 <= round(fevals) <= 40, fevals

        def as_seconds(order):
            res = [result(i, times[i]) for i in order]
            return score.to_seconds(json.loads(json.dumps(res)),
                                    "milliseconds")
        best_first = sorted(range(N), key=lambda i: times[i])
        worst_first = best_first[::-1]
        randoms = []
        for seed in range(1, 51):
            o = list(range(N))
            random.Random(seed).shuffle(o)
            randoms.append(as_seconds(o))
        runs = {"oracle": [as_seconds(best_first)] * 3,
                "worst": [as_seconds(worst_first)] * 3,
                "random": randoms}
        sc = score.score_file(st, runs)
        again = score.score_file(st, {"random": randoms})
        alone = score.score_file(st, {"worst": runs["worst"]})
        opt, med = min(times), st.total_performance_median()
        end = score.time_range(st)[-1]
    p = {k: v["P"] for k, v in sc.items()}
    print("P:", {k: round(v, 3) for k, v in p.items()})
    assert p["oracle"] > 0.95, p
    assert abs(p["random"]) < 0.2, p
    assert p["worst"] < -0.5, p
    assert again["random"]["P"] == p["random"], (again, p)
    assert alone["worst"]["P"] == p["worst"], (alone, p)
    check_fractions(sc, worst_first, opt, med, limit, end)
    agg = score.aggregate([sc, sc], ["oracle", "random"])
    assert abs(agg["oracle"] - p["oracle"]) < 1e-9, agg
    check_rule()
    print("ok")


def check_rule():
    """report.default_rule picks on the tuning set: the highest P among
    ktune's strategies whose 10%-of-the-space median is within 2% on every
    tuning file (exhaustive and Kernel Tuner's rows never); and the report
    says why a pair did not run from device.py's done list."""
    import report
    files = ["a/A100", "b/A100"]
    agg = {"ktune:annealing": 0.9, "ktune:auto": 0.7, "kt:diff_evo": 0.95,
           "ktune:exhaustive": 0.99, "ktune:random": 0.1}
    ok = {"median": 1.0}
    miss = {"median": 1.05}
    tenth = {("a/A100", "annealing"): ok, ("b/A100", "annealing"): miss,
             ("a/A100", "auto"): ok, ("b/A100", "auto"): ok}
    assert report.default_rule(agg, tenth, files)[0] == "ktune:auto"
    tenth[("b/A100", "annealing")] = ok
    assert report.default_rule(agg, tenth, files)[0] == "ktune:annealing"
    assert report.default_rule(agg, {}, files)[0] == "ktune:annealing"
    with tempfile.TemporaryDirectory() as tmp:
        done = Path(tmp) / "done.txt"
        done.write_text("kt d W6600 skopt 1 1 too-long\n"
                        "kt c A100 pso 1 25 3.4\n")
        why = report.unrun_reasons(done)
    assert why == {("kt", "d", "W6600", "skopt"):
                   "estimated longer than one device call"}, why


def best_by(order, t_end):
    """The best time among the evaluations of ORDER that start by T_END
    seconds (each costs 0.5 s plus its 32 runs)."""
    spent, best = 0.0, float("inf")
    for i in order:
        if spent > t_end:
            break
        spent += 0.5 + 32 * times[i] / 1000
        best = min(best, times[i])
    return best


def check_fractions(sc, worst_first, opt, med, limit, end):
    """oracle: every fraction 1. worst (three identical repeats): the
    fraction over the budget is the optimum over the best it finds by the
    time limit; the curve's end values are those of its best by the end of
    the range, to one rank of the space's sorted times (the package rounds
    the curve to a rank)."""
    o = sc["oracle"]
    assert o["frac_budget"] == 1.0, o
    assert abs(o["normalized_end"] - 1.0) < 1e-9, o
    assert abs(o["opt_over_curve_end"] - 1.0) < 1e-9, o
    w = sc["worst"]
    b_lim, b_end = best_by(worst_first, limit), best_by(worst_first, end)
    assert abs(w["frac_budget"] - opt / b_lim) < 1e-12, (w, opt / b_lim)
    step = 0.01  # adjacent made-up times differ by 0.01 ms
    assert abs(opt / w["opt_over_curve_end"] - b_end) <= step + 1e-9, \
        (w, b_end)
    want = (med - b_end) / (med - opt)
    assert abs(w["normalized_end"] - want) <= step / (med - opt) + 1e-9, \
        (w, want)
    assert 0 < w["frac_budget"] < 0.5 and w["normalized_end"] < 0.5, w


if __name__ == "__main__":
    main()
