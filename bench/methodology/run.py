#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The search judged by the field's methodology (Willemsen et al., FGCS
2024; the autotuning-methodology 1.1.0 package's own scoring), ktune's
strategies side by side with Kernel Tuner 1.5.0's, on the benchmark_hub's
brute-forced cache files.

  KTUNE_HUB_DIR=HUB python3 bench/methodology/run.py [--build build]
      [--work build/methodology] [--repeats 50] [--jobs 2]
      [--kt-strategies a,b] [--ktune-strategies a,b] [--files app/gpu,...]
      [--stage all|kt|ktune|score] [--out docs/results/PREFIX]

Every strategy of both tools runs REPEATS times (seeds 1..REPEATS) on every
file at the methodology's budget: the file's own time scale, the time
random search needs to reach 95% of the way from the median to the optimum
(plus the package's 10% margin), time counted as the file records it.
Kernel Tuner runs in its own simulation mode (kt_runs.py); ktune replays
the same cache file (`ktune tune --replay FILE --t4 OUT`) and writes one T4
file per repeat, stopped at the time limit. Both are scored by the package's
code (score.py) against its calculated random-search baseline and the
optimum. The tuning set is A100 and A4000 (both kernels); the evaluation
set A6000, MI250X, W6600 and W7800, reported separately.

Writes PREFIX.md (per file and aggregated P, fraction of the optimum at the
end of the budget), PREFIX.json (the numbers) and PREFIX-*.svg (curves).
"""
import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

APPS = ["convolution_milo", "dedispersion_milo"]
TUNING = ["A100", "A4000"]
EVALUATION = ["A6000", "MI250X", "W6600", "W7800"]
# device.py's KTUNE_ALL and exhaustive (auto runs tpe on these spaces).
KTUNE = ["auto", "one_at_a_time", "coordinate", "random", "annealing",
         "genetic", "exhaustive"]
KTUNE_DETERMINISTIC = {"exhaustive"}


# The time keys the package sums (score.TIME_KEYS; kept here so that the
# device machine's side needs no numpy import to slim its runs).
TIME_KEYS = ["compilation", "runtimes", "framework", "search_algorithm",
             "validation"]


def slim(results):
    """A T4 results list as columns: per evaluation its time summed over
    TIME_KEYS (the file's unit), the objective `time` (None when invalid)
    and the invalidity (the time to 6 significant digits, the objective to
    9, which report.snap maps back to the file's own value: the package
    checks each value is one of the file's): all the package's scoring
    reads (runner.write_results sums the keys), a fourteenth of the size."""
    t, v, inv = [], [], []
    for r in results:
        tot = 0.0
        for k in TIME_KEYS:
            x = r["times"].get(k)
            x = sum(x) if isinstance(x, list) else x
            tot += x if isinstance(x, (int, float)) and x >= 0 else 0.0
        m = [m["value"] for m in r["measurements"] if m["name"] == "time"]
        val = m[0] if m and isinstance(m[0], (int, float)) else None
        t.append(float(f"{tot:.6g}"))
        v.append(None if val is None else float(f"{val:.9g}"))
        inv.append(r.get("invalidity", "correct"))
    return {"t": t, "v": v, "i": inv}


def unslim(d):
    """slim's columns back as a T4 results list (the summed time under
    `compilation`, the other keys 0)."""
    out = []
    for t, v, inv in zip(d["t"], d["v"], d["i"]):
        times = {k: 0.0 for k in TIME_KEYS}
        times["compilation"] = t
        out.append({"times": times, "invalidity": inv,
                    "measurements": [{"name": "time", "value": v,
                                      "unit": ""}]})
    return out


def declared_start(hubcopy, app):
    """[strategy] start's NAME=VALUE list at the kernel's T1 Defaults."""
    import kt_runs
    return ",".join(f"{n}={v}"
                    for n, v in kt_runs.declared_defaults(hubcopy, app))


def ktune_strategy_args(strat, hubcopy=None, app=None):
    """ktune's --set arguments for a strategy row: NAME, or
    NAME+KEY=VALUE+... (a strategy with options, e.g. tpe+branch=2, scored
    as a row of its own). +start=declared starts at the T1 file's Defaults
    (declared_start)."""
    name, *opts = strat.split("+")
    out = ["--set", f"strategy.name={name}"]
    for o in opts:
        if o == "start=declared":
            o = "start=" + declared_start(hubcopy, app)
        out += ["--set", f"strategy.{o}"]
    return out


def strategy_list(arg, default):
    """--kt-strategies / --ktune-strategies: a,b; none; unset: DEFAULT."""
    return default if not arg else [] if arg == "none" else arg.split(",")


def files_all():
    return [(a, g) for a in APPS for g in TUNING + EVALUATION]


ORDERS = ["original", "reversed", "shuffle1", "shuffle2", "shuffle3"]


def reorder(values, order, name):
    """VALUES (one parameter's list) in ORDER: as listed, reversed, or
    shuffled with seed K (shuffleK; Python's generator seeded with
    "K:NAME", so each parameter has its own permutation and every run the
    same one). The same space and data: only the listing changes."""
    import random
    v = list(values)
    if order == "reversed":
        v.reverse()
    elif order.startswith("shuffle"):
        random.Random(f"{order[7:]}:{name}").shuffle(v)
    elif order != "original":
        sys.exit(f"run.py: unknown --order {order}")
    return v


def reorder_files(dst, order):
    """The cache files' tune_params and the kernels' T1 Values (which
    Kernel Tuner's runs read) listed in ORDER; the T4 files are sets of
    results and stay as they are. A cache file DST lacks is skipped
    (orders_device.py copies only the files it runs)."""
    if order == "original":
        return
    for app in APPS:
        for g in TUNING + EVALUATION:
            p = dst / "cachefiles" / app / f"{g}.json"
            if not p.exists():
                continue
            d = json.load(open(p))
            if d.get("ktune_order") == order:
                continue
            d["tune_params"] = {k: reorder(v, order, k)
                                for k, v in d["tune_params"].items()}
            # "cache" stays the last key: Kernel Tuner reads a cache file
            # as text that must end with the cache's closing braces (it
            # appends to it), "Extra data" otherwise.
            cache = d.pop("cache")
            d["ktune_order"] = order
            d["cache"] = cache
            json.dump(d, open(str(p) + ".part", "w"))
            os.replace(str(p) + ".part", p)
        p = dst / "kernels" / f"{app}.json"
        d = json.load(open(p))
        if d.get("ktune_order") == order:
            continue
        for tp in d["ConfigurationSpace"]["TuningParameters"]:
            v = tp["Values"]
            lst = json.loads(v) if isinstance(v, str) else v
            lst = reorder(lst, order, tp["Name"])
            tp["Values"] = json.dumps(lst) if isinstance(v, str) else lst
        d["ktune_order"] = order
        json.dump(d, open(str(p) + ".part", "w"), indent=1)
        os.replace(str(p) + ".part", p)


def prepare(hub, work, order="original"):
    """Uncompressed copies of the cache and T4 files in WORK/hub (the
    package reads plain JSON); the hub's kernels folder beside them; the
    value lists in ORDER (reorder_files)."""
    dst = Path(work) / "hub"
    for app in APPS:
        os.makedirs(dst / "cachefiles" / app, exist_ok=True)
        for g in TUNING + EVALUATION:
            for suffix in [".json", "_T4.json"]:
                out = dst / "cachefiles" / app / (g + suffix)
                if out.exists():
                    continue
                src = Path(hub) / "cachefiles" / app / (g + suffix + ".gz")
                if not src.exists():
                    src = Path(hub) / "cachefiles" / app / (g + suffix)
                with open(src, "rb") as f:
                    magic = f.read(2)
                opener = gzip.open if magic == b"\x1f\x8b" else open
                with opener(src, "rb") as f, open(str(out) + ".part",
                                                  "wb") as o:
                    shutil.copyfileobj(f, o)
                os.replace(str(out) + ".part", out)
    if not (dst / "kernels").exists():
        shutil.copytree(Path(hub) / "kernels", dst / "kernels")
    reorder_files(dst, order)
    return dst


def budgets(hubcopy, files):
    import score
    out = {}
    for app, g in files:
        st = score.stats(hubcopy / "cachefiles" / app / f"{g}_T4.json", app,
                         g)
        t0, t1, lim = score.budget(st)
        out[(app, g)] = {"start": float(t0), "end": float(t1),
                         "limit": float(lim),
                         "size": int(st.size)}
    return out


def kt_task(py, hubcopy, runs, app, g, strat, repeats, limit):
    out = runs / "kt" / f"{app}-{g}-{strat}.json.gz"
    if out.exists():
        return out, 0.0
    os.makedirs(out.parent, exist_ok=True)
    t = time.time()
    cmd = [py, str(HERE / "kt_runs.py"), "--hub", str(hubcopy), "--app", app,
           "--gpu", g, "--strategy", strat, "--repeats", str(repeats),
           "--time-limit", repr(limit), "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"kt {app} {g} {strat}: failed: {r.stderr[-300:]}\n")
        return None, time.time() - t
    return out, time.time() - t


def ktune_binary(build):
    """The ktune executable of a build folder."""
    for p in [Path(build) / "ktune", Path(build) / "app" / "ktune"]:
        if p.exists():
            return p.resolve()
    sys.exit(f"run.py: no ktune executable in {build}")


def ktune_task(build, hubcopy, runs, app, g, strat, repeats, limit, size=0):
    """REPEATS replays of the cache file with ktune's STRATEGY at the time
    limit, one T4 file per repeat, gathered into one file like kt_task's.
    STRATEGY@10pct: stopped at a tenth of the space's SIZE points instead
    (device.py's tag, which report.at_tenth reads); STRATEGY@Ne: at N
    evaluations (early.py reads those: the search's first evaluations on
    more seeds than the time limit's runs afford)."""
    name, tenth = strat, strat.endswith("@10pct")
    evals = re.match(r"(.*)@(\d+)e$", strat)
    if tenth:
        name = strat[:-len("@10pct")]
    elif evals:
        name = evals.group(1)
    out = runs / "ktune" / f"{app}-{g}-{strat}.json.gz"
    if out.exists():
        return out, 0.0
    os.makedirs(out.parent, exist_ok=True)
    cache = hubcopy / "cachefiles" / app / f"{g}.json"
    t = time.time()
    reps = []
    n = 1 if strat in KTUNE_DETERMINISTIC else repeats
    tmpdir = runs / "ktune" / f"{app}-{g}-{strat}.tmp"
    os.makedirs(tmpdir, exist_ok=True)
    for seed in range(1, n + 1):
        t4 = tmpdir / f"seed{seed}.json"
        budget = [f"strategy.max_evals={(size + 9) // 10}",
                  "strategy.max_seconds=0"] if tenth else \
            [f"strategy.max_evals={evals.group(2)}",
             "strategy.max_seconds=0"] if evals else \
            [f"strategy.max_seconds={limit!r}"]
        cmd = [str(ktune_binary(build)), "tune", "--replay",
               str(cache)] + ktune_strategy_args(name, hubcopy, app) + ["--set",
               f"strategy.seed={seed}"]
        for b in budget:
            cmd += ["--set", b]
        cmd += ["--t4", str(t4), "--quiet"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(f"ktune {app} {g} {strat} seed {seed}: exit "
                             f"{r.returncode}\n{r.stderr[-2000:]}\n")
            return None, time.time() - t
        d = json.load(open(t4))
        reps.append({"seed": seed, "results": d["results"],
                     "timeunit": d.get("metadata", {}).get("timeunit",
                                                            "seconds")})
    with gzip.open(str(out) + ".part", "wt") as f:
        json.dump({"tool": "ktune", "app": app, "gpu": g, "strategy": strat,
                   "time_limit": limit, "repeats": reps}, f)
    os.replace(str(out) + ".part", out)
    shutil.rmtree(tmpdir)
    return out, time.time() - t


def load_runs(path, limit):
    """A task file's repeats as T4 results lists in seconds, each cut at
    the time limit (an evaluation that starts before it counts)."""
    import score
    d = json.load(gzip.open(path, "rt"))
    reps = []
    for r in d["repeats"]:
        if "slim" in r:
            r["results"] = unslim(r["slim"])
        res = score.to_seconds(r["results"], r.get("timeunit",
                                                   "milliseconds"))
        reps.append(res)
    return d, reps


def import_runs(src, runs):
    """Merges device.py's chunks (SRC/runs/TOOL/APP-GPU-STRATEGY.sK.json.gz)
    into run.py's task files, repeats in seed order; a task file already
    merged from the same chunks is kept, one from fewer is merged again."""
    groups = {}
    for p in sorted(Path(src).glob("runs/*/*.s*.json.gz")):
        m = re.match(r"(.*)\.s(\d+)\.json\.gz$", p.name)
        groups.setdefault((p.parent.name, m.group(1)), []).append(p)
    for (tool, stem), parts in groups.items():
        out = runs / tool / f"{stem}.json.gz"
        names = sorted(p.name for p in parts)
        if out.exists() and json.load(gzip.open(out, "rt")).get(
                "chunks") == names:
            continue
        os.makedirs(out.parent, exist_ok=True)
        head, reps = None, []
        for p in parts:
            d = json.load(gzip.open(p, "rt"))
            head = head or d
            if d.get("error"):
                head = d
            reps += d["repeats"]
        head["repeats"] = sorted(reps, key=lambda r: r["seed"])
        head["chunks"] = names
        with gzip.open(str(out) + ".part", "wt") as f:
            json.dump(head, f)
        os.replace(str(out) + ".part", out)
        print(f"imported {tool} {stem}: {len(reps)} repeats")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", default="build/methodology")
    ap.add_argument("--hub", default=os.environ.get("KTUNE_HUB_DIR"))
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--kt-strategies", default=None)
    ap.add_argument("--ktune-strategies", default=None)
    ap.add_argument("--files", default=None)
    ap.add_argument("--stage", default="all",
                    choices=["all", "kt", "ktune", "score"])
    ap.add_argument("--out", default=None)
    ap.add_argument("--order", default="original", choices=ORDERS,
                    help="every file's value lists as listed, reversed or "
                         "shuffled (seeds 1-3); use a --work of its own")
    ap.add_argument("--import-runs", default=None,
                    help="device.py's --work folder: its chunks first")
    ap.add_argument("--done", default=".meth-state/done.txt",
                    help="device.py's done list: why pairs did not run")
    a = ap.parse_args()
    if not a.hub:
        sys.exit("run.py: set KTUNE_HUB_DIR (a benchmark_hub checkout) or "
                 "--hub")
    import kt_runs
    work = Path(a.work).resolve()
    hubcopy = prepare(a.hub, work, a.order)
    runs = work / "runs"
    if a.import_runs:
        import_runs(a.import_runs, runs)
    files = files_all()
    if a.files:
        want = set(a.files.split(","))
        files = [f for f in files if f"{f[0]}/{f[1]}" in want]
    bud = budgets(hubcopy, files)
    kts = strategy_list(a.kt_strategies, kt_runs.STRATEGIES)
    kns = strategy_list(a.ktune_strategies, KTUNE)
    log = open(work / "tasks.log", "a")
    tasks = []
    if a.stage in ("all", "kt"):
        tasks += [("kt", f, s) for s in kts for f in files]
    if a.stage in ("all", "ktune"):
        tasks += [("ktune", f, s) for s in kns for f in files]

    def do(t):
        tool, (app, g), s = t
        lim = bud[(app, g)]["limit"]
        if tool == "kt":
            out, sec = kt_task(sys.executable, hubcopy, runs, app, g, s,
                               a.repeats, lim)
        else:
            out, sec = ktune_task(a.build, hubcopy, runs, app, g, s,
                                  a.repeats, lim, bud[(app, g)]["size"])
        log.write(f"{time.strftime('%H:%M:%S')} {tool} {app} {g} {s} "
                  f"{'ok' if out else 'FAILED'} {sec:.1f}s\n")
        log.flush()
        return t, out
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        done = list(ex.map(do, tasks))
    if a.stage in ("all", "score") and a.out:
        import report
        report.write(a, files, bud, runs, kts, kns, a.out)


if __name__ == "__main__":
    main()
