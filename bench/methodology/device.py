#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The methodology benchmark's runs on a machine with many cores (the
device machine's 16), both tools in one run, within a deadline:

  python3 bench/methodology/device.py --hub HUB --budgets B.json
      --ktune KTUNE --work W [--jobs 16] [--launch-until 330]
      [--kill-at 370] [--repeats 50]

Tasks are chunks of seeds (kt_runs.py for Kernel Tuner, one `ktune tune
--replay` per seed for ktune), run by JOBS workers in priority order:
ktune's default and Kernel Tuner's strongest strategies first, bayes_opt
(seconds to minutes a repeat) on its own workers. No task starts after
--launch-until seconds; those still running at --kill-at are stopped and
left out (the log says which). Writes W/runs/{kt,ktune}/APP-GPU-STRATEGY
.sK.json.gz chunks (run.py --import-runs merges them) and W/device.log.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402  (APPS, TUNING, EVALUATION)

T0 = time.time()
KT_FIRST = ["diff_evo", "pso", "firefly_algorithm", "dual_annealing",
            "simulated_annealing", "genetic_algorithm", "random_sample",
            "greedy_ils", "mls", "greedy_mls", "ordered_greedy_mls",
            "hybrid_vndx", "adaptive_tabu_greywolf", "basinhopping",
            "minimize"]
KTUNE_ALL = ["auto", "one_at_a_time", "random", "annealing", "genetic",
             "coordinate"]  # tpe: the same runs as auto on these spaces


def tasks(a, bud):
    files = [f for f in run.files_all()
             if not a.gpus or f[1] in a.gpus.split(",")]
    kt_first = a.kt_strategies.split(",") if a.kt_strategies else KT_FIRST
    ktune_all = a.ktune_strategies.split(",") if a.ktune_strategies else \
        KTUNE_ALL[1:]
    main, slow = [], []
    ch = a.chunk
    # ktune's default at the budget and at 10% of the space first.
    for tag in ["auto", "auto@10pct"]:
        for f in files:
            for s0 in range(1, a.repeats + 1, ch):
                main.append(("ktune", f, tag, s0, min(ch, a.repeats - s0 + 1)))
    for s in kt_first:
        for f in files:
            for s0 in range(1, a.repeats + 1, 25):
                main.append(("kt", f, s, s0, min(25, a.repeats - s0 + 1)))
    for s in ktune_all:
        for f in files:
            for s0 in range(1, a.repeats + 1, ch):
                main.append(("ktune", f, s, s0, min(ch, a.repeats - s0 + 1)))
    for f in files:
        main.append(("ktune", f, "exhaustive", 1, 1))
    for s0 in range(1, a.repeats + 1 if a.bayes else 1, 2):
        for f in sorted(files, key=lambda f: bud[f"{f[0]}/{f[1]}"]["limit"]):
            slow.append(("kt", f, "bayes_opt", s0, 2))
    return main, slow


def ktune_chunk(a, f, tag, s0, n, limit, size, deadline):
    app, g = f
    strat = tag.split("@")[0]
    cache = Path(a.hub) / "cachefiles" / app / f"{g}.json"
    reps = []
    for seed in range(s0, s0 + n):
        t4 = Path(a.work) / "tmp" / f"{app}-{g}-{tag}-{seed}.json"
        os.makedirs(t4.parent, exist_ok=True)
        if tag.endswith("@10pct"):
            lim = ["--set", "strategy.max_seconds=0", "--set",
                   f"strategy.max_evals={(size + 9) // 10}"]
        else:
            lim = ["--set", f"strategy.max_seconds={limit!r}"]
        cmd = [a.ktune, "tune", "--replay", str(cache), "--set",
               f"strategy.name={strat}", "--set", f"strategy.seed={seed}"] + \
            lim + ["--t4", str(t4), "--quiet"]
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=max(1, deadline - time.time()))
        if r.returncode != 0:
            raise RuntimeError(f"exit {r.returncode}: {r.stderr[-500:]}")
        d = json.load(open(t4))
        os.unlink(t4)
        reps.append({"seed": seed, "slim": run.slim(d["results"]),
                     "timeunit": d.get("metadata", {}).get("timeunit",
                                                            "seconds")})
    return {"tool": "ktune", "app": app, "gpu": g, "strategy": tag,
            "time_limit": limit, "repeats": reps}


def do(a, t, bud, deadline):
    tool, f, s, s0, n = t
    app, g = f
    b = bud[f"{app}/{g}"]
    out = Path(a.work) / "runs" / tool / f"{app}-{g}-{s}.s{s0}.json.gz"
    os.makedirs(out.parent, exist_ok=True)
    if tool == "kt":
        cmd = [sys.executable, str(HERE / "kt_runs.py"), "--hub", a.hub,
               "--app", app, "--gpu", g, "--strategy", s, "--repeats", str(n),
               "--seed0", str(s0), "--time-limit", repr(b["limit"]),
               "--out", str(out), "--slim"]
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=max(1, deadline - time.time()))
        if r.returncode != 0:
            raise RuntimeError(f"exit {r.returncode}: {r.stderr[-500:]}")
        return
    d = ktune_chunk(a, f, s, s0, n, b["limit"], b["size"], deadline)
    with gzip.open(str(out) + ".part", "wt") as fh:
        json.dump(d, fh)
    os.replace(str(out) + ".part", out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hub", required=True)
    ap.add_argument("--budgets", required=True)
    ap.add_argument("--ktune", default=None)
    ap.add_argument("--work", required=True)
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--slow-jobs", type=int, default=3)
    ap.add_argument("--gpus", default=None, help="e.g. A6000,W6600")
    ap.add_argument("--kt-strategies", default=None)
    ap.add_argument("--ktune-strategies", default=None,
                    help="besides auto (always first)")
    ap.add_argument("--no-bayes", dest="bayes", action="store_false")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--chunk", type=int, default=10)
    ap.add_argument("--launch-until", type=float, default=330)
    ap.add_argument("--kill-at", type=float, default=370)
    a = ap.parse_args()
    bud = json.load(open(a.budgets))
    main_q, slow_q = tasks(a, bud)
    if not a.ktune:
        main_q = [t for t in main_q if t[0] != "ktune"]
    lock = threading.Lock()
    log = open(Path(a.work) / "device.log", "a")
    deadline = T0 + a.kill_at

    def note(msg):
        with lock:
            log.write(f"{time.time() - T0:7.1f} {msg}\n")
            log.flush()

    def ready():
        """ktune's tasks wait for its build (device.sh writes KTUNE.ok or
        KTUNE.failed beside it); after a failed build they are dropped."""
        if os.path.exists(a.ktune + ".failed"):
            for q in (main_q, slow_q):
                dropped = [t for t in q if t[0] == "ktune"]
                for t in dropped:
                    q.remove(t)
                    note(f"NOT RUN (ktune build failed) {t}")
            return False
        return os.path.exists(a.ktune + ".ok")

    def pick(queues):
        ok = ready()
        for q in queues:
            for i, t in enumerate(q):
                if t[0] == "kt" or ok:
                    return q.pop(i)
        return None

    def worker(k):
        queues = [slow_q, main_q] if k < a.slow_jobs else [main_q, slow_q]
        while time.time() - T0 < a.launch_until:
            with lock:
                t = pick(queues)
            if t is None:
                if not any(queues):
                    return
                time.sleep(1)  # only ktune's tasks left, its build going on
                continue
            t1 = time.time()
            try:
                do(a, t, bud, deadline)
                note(f"ok {t} {time.time() - t1:.1f}s")
            except Exception as e:  # a failure or the deadline: left out
                note(f"FAILED {t} {time.time() - t1:.1f}s {str(e)[-300:]}")
    ths = [threading.Thread(target=worker, args=(k,)) for k in range(a.jobs)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    for t in main_q + slow_q:
        note(f"NOT STARTED {t}")
    note("done")


if __name__ == "__main__":
    main()
