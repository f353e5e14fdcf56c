#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Scoring with the methodology package's own code (autotuning-methodology
1.1.0, Willemsen et al., FGCS 2024): the budget of a brute-forced space and
the performance score P of a strategy's repeated runs written as T4.

Nothing here re-implements the method; it calls, in the order the package's
report_experiments.get_strategy_scores does:
  - SearchspaceStatistics on the brute-force T4 file (times summed over the
    package's default objective time keys, "all": compilation, runtimes,
    framework, search_algorithm, validation);
  - cutoff_point_fevals_time_start_end(0.01, 0.95): the time range of the
    score, from the time random search needs to reach 1% of the way from the
    median to the optimum to the time it needs for 95%; the budget is the end
    plus the package's 10% margin (experiments.calculate_budget);
  - runner's time-unit conversion and write_results into a
    ResultsDescription, StochasticOptimizationAlgorithm over it;
  - RandomSearchCalculatedBaseline and
    get_strategies_aggregated_performance over one file and one strategy
    at a time, its bootstrap seeded by the strategy's name (bag_seed), for
    the per-file P; or
    over a set of files (aggregate P: the mean over the files' standardised
    curves, then over time, as get_strategy_scores).
"""
import os
import tempfile
import warnings
import zlib
from pathlib import Path

import numpy as np

CUTOFF_START = 0.01
CUTOFF = 0.95
MARGIN = 0.1
RESOLUTION = 1000
CONFIDENCE = 0.95
TIME_KEYS = ["compilation", "runtimes", "framework", "search_algorithm",
             "validation"]


def stats(t4_path, app, gpu):
    """The package's SearchspaceStatistics of a brute-force T4 file
    (uncompressed .json)."""
    from autotuning_methodology.searchspace_statistics import \
        SearchspaceStatistics
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SearchspaceStatistics(
            application_name=app, device_name=gpu, minimization=True,
            objective_time_keys=list(TIME_KEYS),
            objective_performance_keys=["time"],
            full_search_space_file_path=Path(t4_path), full_validate=False)


def budget(st):
    """(start, end, limit) in seconds: the score's time range and the time
    limit every run gets (end x (1 + margin))."""
    _, _, t0, t1 = st.cutoff_point_fevals_time_start_end(CUTOFF_START, CUTOFF)
    return max(t0, 0.0), t1, t1 * (1 + MARGIN)


def to_seconds(results, timeunit):
    """The runner's conversion of a T4 results list's times (runner.tune)."""
    from autotuning_methodology.searchspace_statistics import \
        convert_from_time_unit
    for r in results:
        for k, v in r["times"].items():
            r["times"][k] = convert_from_time_unit(v, timeunit)
    return results


def curve(st, name, repeats, workdir):
    """A StochasticOptimizationAlgorithm over REPEATS (T4 results lists,
    times already in seconds), written through the package's
    write_results."""
    from autotuning_methodology.caching import ResultsDescription
    from autotuning_methodology.curves import StochasticOptimizationAlgorithm
    from autotuning_methodology.runner import write_results
    rd = ResultsDescription(
        run_folder=Path(workdir) / name, application_name=st.application_name,
        device_name=st.device_name, group_name=name, group_display_name=name,
        stochastic=True, objective_time_keys=list(TIME_KEYS),
        objective_performance_keys=["time"], minimization=True)
    os.makedirs(Path(workdir) / name, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_results(repeats, rd)
    return StochasticOptimizationAlgorithm(rd)


def bag_seed(name):
    """The seed of NumPy's global generator before a strategy's curve is
    built. The package's curve is a bootstrap (sklearn BaggingRegressor
    without a random_state, curves.py _get_prediction_interval_bagging), so
    the same runs give a different P on each call (0.557 to 0.616 seen
    on one file); seeded by the strategy's name, a strategy's P is the same
    on every call and does not depend on which other strategies are scored
    beside it, and the raw curve read for the end values is the very
    curve P was computed from."""
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def time_range(st):
    _, _, t0, t1 = st.cutoff_point_fevals_time_start_end(CUTOFF_START, CUTOFF)
    return np.linspace(t0, t1, RESOLUTION)


def strategy_curve(st, name, c):
    """(standardised curve, raw curve) of one strategy on one file: the
    package's get_strategies_aggregated_performance over this file and
    this strategy alone, then the same bootstrap again for the raw
    (objective-valued) curve."""
    from autotuning_methodology.baseline import RandomSearchCalculatedBaseline
    from autotuning_methodology.report_experiments import \
        get_strategies_aggregated_performance
    tr = time_range(st)
    base = RandomSearchCalculatedBaseline(st)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.random.seed(bag_seed(name))
        perf, _, _, _ = get_strategies_aggregated_performance(
            [(base, [c], st, tr, None)], CONFIDENCE)
        np.random.seed(bag_seed(name))
        out = c.get_curve_over_time(
            tr, dist=st.objective_performances_total_sorted,
            confidence_level=CONFIDENCE)
    real, fict = out[2], out[6]
    raw = np.concatenate([real, fict]) if out[5].ndim > 0 else real
    return perf[0], raw


def best_within(repeat, limit):
    """The best valid objective among a repeat's evaluations (T4 results,
    seconds) that start within LIMIT seconds of time summed as the package
    sums it (TIME_KEYS); inf when none is valid."""
    spent, best = 0.0, np.inf
    for e in repeat:
        if spent > limit:
            break
        for k in TIME_KEYS:
            x = e["times"].get(k)
            x = sum(x) if isinstance(x, list) else x
            spent += x if isinstance(x, (int, float)) and x >= 0 else 0.0
        v = [m["value"] for m in e["measurements"] if m["name"] == "time"]
        if str(e.get("invalidity", "correct")) == "correct" and v and \
                isinstance(v[0], (int, float)) and np.isfinite(v[0]):
            best = min(best, float(v[0]))
    return best


def fractions(st, raw, repeats, limit):
    """The end values. "frac_budget": the optimum over the best found
    within the time limit, the median over the repeats (the plain fraction
    of the optimum over the budget, from the runs themselves).
    "normalized_end": the package's own "objective_normalized" measure
    (visualize_experiments: (median - value) / (median - optimum), 1 at
    the optimum, 0 at the space's median) of the curve P is computed from,
    at the end of the time range. "opt_over_curve_end": the optimum over
    that curve's value there (the previous report's column; the curve is
    the bootstrap mean of the repeats' ranks in the space's sorted values,
    mapped back to a value, not a mean or median of the repeats' times)."""
    opt = st.total_performance_absolute_optimum()
    med = st.total_performance_median()
    bests = np.array([best_within(r, limit) for r in repeats])  # inf: none
    return {"frac_budget": float(np.median(opt / bests)),
            "normalized_end": float((med - raw[-1]) / (med - opt)),
            "opt_over_curve_end": float(opt / raw[-1])}


def score_file(st, runs, workdir=None, limit=None):
    """RUNS: {strategy: [T4 results list (seconds)...]}. Returns
    {strategy: {"curve": standardised curve over the time range, "P": its
    mean, and fractions()'s values}}; LIMIT (seconds, default the
    package's budget) is the time limit of frac_budget."""
    own = workdir is None
    tmp = tempfile.TemporaryDirectory() if own else None
    wd = tmp.name if own else workdir
    lim = budget(st)[2] if limit is None else limit
    try:
        out = {}
        for n in runs:
            # A repeat that evaluated nothing within the limit (Kernel
            # Tuner's start-up can take a small budget) has no curve: the
            # package cannot take it; it counts in the fractions (0).
            some = [r for r in runs[n] if r]
            p, raw = strategy_curve(st, n, curve(st, n, some, wd))
            out[n] = {"curve": p, "P": float(np.mean(p))}
            out[n].update(fractions(st, raw, runs[n], lim))
        return out
    finally:
        if tmp:
            tmp.cleanup()


def aggregate(per_file, names):
    """Aggregate P of each strategy over files: mean over the files'
    standardised curves, then over time (get_strategy_scores)."""
    out = {}
    for n in names:
        cs = [f[n]["curve"] for f in per_file if n in f]
        if len(cs) == len(per_file):
            out[n] = float(np.mean(np.mean(np.array(cs), axis=0)))
    return out
