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
    get_strategies_aggregated_performance over one file (per-file P) or
    over a set of files (aggregate P: the mean over the files' standardised
    curves, then over time, as get_strategy_scores).
"""
import os
import tempfile
import warnings
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


def file_curves(st, curves):
    """Standardised curves (one per strategy) of one file: the package's
    get_strategies_aggregated_performance over this file alone, plus the
    time range and the raw (unstandardised) curves' last values."""
    from autotuning_methodology.baseline import RandomSearchCalculatedBaseline
    from autotuning_methodology.report_experiments import \
        get_strategies_aggregated_performance
    _, _, t0, t1 = st.cutoff_point_fevals_time_start_end(CUTOFF_START, CUTOFF)
    time_range = np.linspace(t0, t1, RESOLUTION)
    base = RandomSearchCalculatedBaseline(st)
    data = (base, curves, st, time_range, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        perf, _, _, stop = get_strategies_aggregated_performance(
            [data], CONFIDENCE)
    return perf, stop


def raw_end(st, c):
    """The strategy's curve (objective value) at the end of the time range:
    the optimum over it is the fraction of the optimum reached over the
    budget."""
    _, _, t0, t1 = st.cutoff_point_fevals_time_start_end(CUTOFF_START, CUTOFF)
    time_range = np.linspace(t0, t1, RESOLUTION)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = c.get_curve_over_time(time_range,
                                    dist=st.objective_performances_total_sorted,
                                    confidence_level=CONFIDENCE)
    real, fict = out[2], out[6]
    full = np.concatenate([real, fict]) if out[5].ndim > 0 else real
    return float(full[-1])


def score_file(st, runs, workdir=None):
    """RUNS: {strategy: [T4 results list (seconds)...]}. Returns
    {strategy: {"curve": standardised curve over the time range, "P": mean,
    "frac_end": optimum / curve at the end}}."""
    own = workdir is None
    tmp = tempfile.TemporaryDirectory() if own else None
    wd = tmp.name if own else workdir
    try:
        names = list(runs)
        curves = [curve(st, n, runs[n], wd) for n in names]
        perf, _ = file_curves(st, curves)
        opt = st.total_performance_absolute_optimum()
        out = {}
        for n, c, p in zip(names, curves, perf):
            out[n] = {"curve": p, "P": float(np.mean(p)),
                      "frac_end": opt / raw_end(st, c)}
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
