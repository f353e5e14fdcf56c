#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Kernel Tuner 1.5.0's strategies in its own simulation mode on one
brute-force cache file, many seeded repeats, written as T4 results lists.

  python3 bench/methodology/kt_runs.py --hub HUB --app convolution_milo
      --gpu A100 --strategy diff_evo --repeats 50 --time-limit S --out F.json.gz

HUB is a benchmark_hub checkout (its kernels/APP.json input file gives the
tunable parameters and restrictions; cachefiles/APP/GPU.json(.gz) is the
cache). Each repeat calls kernel_tuner.tune_kernel(simulation_mode=True,
cache=...) with strategy_options {time_limit: S} plus the fair settings of
FAIR below, after seeding Python's and NumPy's generators with the repeat's
seed; the results are converted with Kernel Tuner's own T4 writer
(kernel_tuner.file_utils.get_t4_results). What differs from
kernel_tuner.tune_kernel_T1 (which the methodology package's runner calls):
the kernel arguments are one-element arrays instead of problem-size arrays
(simulation mode never launches a kernel; allocating the 1 GiB of inputs
took 4 of the 5.6 s of a run here), and the cache file is parsed once per
process instead of once per repeat. Kernel Tuner still counts its own
wall-clock time (startup, strategy) against the time limit, as in its
simulation mode everywhere.

Output: {"app", "gpu", "strategy", "options", "time_limit", "repeats":
[{"seed", "results": [T4 result...], "wall_s"}]} gzip-compressed JSON; a
strategy that raises (not installed, or broken in 1.5.0) gives "error": its
exception and no repeats, exit status 0: the report lists it. A revisited
configuration costs no recorded runs (free_revisits).
"""
import argparse
import gzip
import json
import os
import random
import shutil
import sys
import tempfile
import time
import warnings
from ast import literal_eval
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# Settings that make a time-only budget mean what it says (issue 29): these
# strategies otherwise stop at their own default max_fevals of 100, and
# random_sample at fraction 0.1 of the space.
FAIR_SPACE_SIZE = {"greedy_ils", "greedy_mls", "mls", "ordered_greedy_mls",
                   "bayes_opt"}
FAIR = {"random_sample": {"fraction": 1.0}}

# Every strategy of Kernel Tuner 1.5.0's strategy_map (interface.py) but
# brute_force, which takes no time_limit ("Unrecognized option time_limit in
# strategy_options (allowed: [])"; ktune's exhaustive row is the whole-space
# walk). Cheap first, the slow ones (surrogates: a k-NN over every
# evaluation, random forests, Gaussian processes) last. skopt needs
# scikit-optimize and nsga2/nsga3 pymoo (bench/methodology/fetch_wheels.sh);
# pyatf_strategies cannot run in 1.5.0 with any released pyatf (0.0.1 to
# 0.0.13): its searchspace.get_tune_params_pyatf calls TP(name, values,
# constraint, constraint_source), which those TPs do not take; the run
# writes that error in place of its repeats.
STRATEGIES = ["random_sample", "diff_evo", "pso", "firefly_algorithm",
              "genetic_algorithm", "simulated_annealing", "greedy_ils",
              "greedy_mls", "ordered_greedy_mls", "mls", "dual_annealing",
              "basinhopping", "minimize", "nsga2", "nsga3",
              "adaptive_tabu_greywolf", "pyatf_strategies", "hybrid_vndx",
              "skopt", "bayes_opt"]


def read_input(hub, app):
    """Tunable parameters, restrictions, grid divisions and kernel name
    from the hub's T1 input file, converted as tune_kernel_T1 does."""
    path = Path(hub) / "kernels" / f"{app}.json"
    spec = json.load(open(path))
    ks = spec["KernelSpecification"]
    params = {}
    for p in spec["ConfigurationSpace"]["TuningParameters"]:
        vals = p["Values"]
        params[p["Name"]] = eval(vals) if vals.startswith("[") else \
            literal_eval(vals)
    restrictions = [c["Expression"]
                    for c in spec["ConfigurationSpace"]["Conditions"]]
    divs = {k: ks.get(k) or None for k in ["GridDivX", "GridDivY",
                                             "GridDivZ"]}
    src = (path.parent / ks["KernelFile"]).resolve()
    return dict(name=ks["KernelName"], source=str(src),
                problem_size=ks["ProblemSize"], params=params,
                restrictions=restrictions, divs=divs,
                lang=ks["Language"])


def declared_defaults(hub, app):
    """The kernel's T1 file's Default of each parameter, as (name, value)
    in the file's order: the start the benchmark declares (a cache file
    declares none). Read for ktune's +start=declared rows (run.py) and
    Kernel Tuner's +x0=declared rows alike."""
    spec = json.load(open(Path(hub) / "kernels" / f"{app}.json"))
    out = []
    for p in spec["ConfigurationSpace"]["TuningParameters"]:
        d = p.get("Default")
        if isinstance(d, list):
            d = d[0] if len(d) == 1 else None
        if d is None:
            sys.exit(f"{app}.json: {p['Name']} declares no Default")
        out.append((p["Name"], d))
    return out


def declared_x0(hub, app):
    """Kernel Tuner's x0 strategy option (the start position of diff_evo,
    pso, firefly_algorithm, dual_annealing and others) at the declared
    defaults, so that a STRATEGY+x0=declared row starts where ktune's
    +start=declared rows do."""
    return [v for _, v in declared_defaults(hub, app)]


def cache_copy(hub, app, gpu, tmp):
    """A private uncompressed copy of the cache file (Kernel Tuner rewrites
    the cache file it is given when it closes it)."""
    base = Path(hub) / "cachefiles" / app / gpu
    dst = Path(tmp) / f"{app}-{gpu}.json"
    if Path(str(base) + ".json").exists():
        shutil.copy(str(base) + ".json", dst)
    else:
        with gzip.open(str(base) + ".json.gz", "rb") as f, open(dst, "wb") as o:
            shutil.copyfileobj(f, o)
    return dst


def memoize_cache_reading():
    """Parse each cache file once per process (identical content each
    repeat; the simulation runner copies every entry it serves)."""
    import kernel_tuner.interface as itf
    import kernel_tuner.util as util
    orig = util.process_cache
    memo = {}

    def process_cache(cache, kernel_options, tuning_options, runner):
        if cache not in memo:
            memo[cache] = orig(cache, kernel_options, tuning_options, runner)
        return memo[cache]
    util.process_cache = process_cache
    itf.util.process_cache = process_cache


def one_run(inp, cache, strategy, options, seed):
    import numpy as np
    from kernel_tuner import tune_kernel
    from kernel_tuner.file_utils import get_t4_results
    random.seed(seed)
    np.random.seed(seed)
    args = [np.zeros(1, dtype=np.float32) for _ in range(3)]
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res, _ = tune_kernel(
            inp["name"], inp["source"], inp["problem_size"], args,
            inp["params"], grid_div_x=inp["divs"]["GridDivX"],
            grid_div_y=inp["divs"]["GridDivY"],
            grid_div_z=inp["divs"]["GridDivZ"],
            restrictions=inp["restrictions"], lang=inp["lang"],
            cache=str(cache), simulation_mode=True, quiet=True,
            verbose=False, iterations=32, strategy=strategy,
            strategy_options=dict(options), objective="time",
            objective_higher_is_better=False)
    wall = time.perf_counter() - t0
    t4 = get_t4_results(res, inp["params"], objective="time")
    return free_revisits(t4["results"]), wall


def free_revisits(results):
    """A configuration evaluated again is served from Kernel Tuner's cache:
    its simulation runner charges the budget nothing for it (compile,
    verification and benchmark times 0, runners/simulation.py), but the T4
    writer still lists the recorded runs under `runtimes`, which the
    package sums. Here a revisit costs what Kernel Tuner's own budget
    charged it: its framework and strategy time."""
    seen = set()
    for r in results:
        key = json.dumps(r["configuration"], sort_keys=True)
        if key in seen:
            r["times"]["runtimes"] = []
        seen.add(key)
    return results


def space_size(cache):
    return len(json.load(open(cache))["cache"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hub", default=os.environ.get("KTUNE_HUB_DIR"))
    ap.add_argument("--app", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--strategy", required=True)
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--seed0", type=int, default=1)
    ap.add_argument("--time-limit", type=float, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--slim", action="store_true",
                    help="results as run.slim's columns")
    a = ap.parse_args()
    if not a.hub:
        sys.exit("kt_runs.py: set --hub or KTUNE_HUB_DIR")
    inp = read_input(a.hub, a.app)
    memoize_cache_reading()
    strategy, *mods = a.strategy.split("+")
    with tempfile.TemporaryDirectory() as tmp:
        cache = cache_copy(a.hub, a.app, a.gpu, tmp)
        options = {"time_limit": a.time_limit}
        if strategy in FAIR_SPACE_SIZE:
            options["max_fevals"] = space_size(cache)
        options.update(FAIR.get(strategy, {}))
        for m in mods:
            if m != "x0=declared":
                sys.exit(f"kt_runs.py: {a.strategy}: unknown +{m}")
            options["x0"] = declared_x0(a.hub, a.app)
        reps, error = [], None
        for r in range(a.repeats):
            seed = a.seed0 + r
            try:
                results, wall = one_run(inp, cache, strategy, options, seed)
            except Exception as e:  # the strategy cannot run: say so
                error = f"{type(e).__name__}: {e}"
                sys.stderr.write(f"kt_runs.py: {a.strategy}: {error}\n")
                break
            if a.slim:
                from run import slim
                reps.append({"seed": seed, "slim": slim(results),
                             "wall_s": wall})
            else:
                reps.append({"seed": seed, "results": results,
                             "wall_s": wall})
    out = {"tool": "kernel_tuner", "app": a.app, "gpu": a.gpu,
           "strategy": a.strategy, "options": options,
           "time_limit": a.time_limit, "repeats": reps}
    if error:
        out.update(error=error, repeats=[])
    tmpout = a.out + ".part"
    with gzip.open(tmpout, "wt") as f:
        json.dump(out, f)
    os.replace(tmpout, a.out)


if __name__ == "__main__":
    main()
