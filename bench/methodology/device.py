#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The methodology benchmark's runs on a machine with many cores (the
device machine's 16 or 128), both tools, in calls of a few minutes that
resume one another:

  python3 bench/methodology/device.py --hub HUB --budgets B.json
      --ktune KTUNE --work W [--jobs 16] [--launch-until 420]
      [--kill-at 500] [--repeats 50] [--done DONE.txt] [--max-out-mb 56]
  python3 bench/methodology/device.py --plan [--jobs 16] [--done DONE.txt]
  python3 bench/methodology/device.py --collect FILES_AT
      [--into .meth-runs] [--state .meth-state]

Tasks are chunks of seeds of one strategy on one file: kt_runs.py for
Kernel Tuner (every strategy of kt_runs.STRATEGIES), one `ktune tune
--replay` per seed for ktune (every strategy of KTUNE_ALL at the time limit
and stopped at 10% of the space, exhaustive once), on all twelve files
(tuning and evaluation set). A chunk's seeds are as many as its estimated
CPU time (COST, measured on one repeat) lets finish well inside one call.
Workers take the longest task first; no task starts after --launch-until
seconds or when its estimate would end past --kill-at, and those still
running at --kill-at are stopped and left for the next call (the log says
which). A chunk listed in --done (an earlier call's) is not run again.

Writes W/runs/{kt,ktune}/APP-GPU-STRATEGY.sK.json.gz chunks, W/done-new.txt
(one line per chunk written: TOOL APP GPU STRATEGY S0 N SECONDS) and
W/device.log; device.sh returns them. --collect unpacks a call's returned
chunks into .meth-runs/runs/... and appends its lines to
.meth-state/done.txt, which the next call carries (both folders
git-ignored); run.py --import-runs .meth-runs merges the chunks for
scoring. --plan prints the tasks left and their estimated
CPU-seconds, and the calls of JOBS workers they take.
"""
import argparse
import gzip
import json
import math
import os
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402  (APPS, TUNING, EVALUATION, slim)
import kt_runs  # noqa: E402  (STRATEGIES)

T0 = time.time()
KTUNE_ALL = ["auto", "one_at_a_time", "coordinate", "random", "annealing",
             "genetic"]  # tpe: the same runs as auto on these spaces

# CPU-seconds of one repeat on dedispersion_milo/W6600 (the most
# evaluations in its budget, about 3,000 to 4,000) and the power of the
# evaluation count that scales it to another file (1: linear in the
# evaluations; 2, 3: a surrogate refitted over every evaluation so far).
# Measured as user + system time of one repeat on the 2-core development
# machine (docs/search-methodology.md gives the measurements: most on
# dedispersion/W6600, the surrogates on convolution/A4000, scaled up); the
# cheap ones are upper bounds. A chunk's estimate adds START_S per process
# (imports, parsing the cache file). Kernel Tuner counts its own wall time
# against the time limit, so no repeat of its lasts longer than the limit:
# WALL_SHARE of LIMITS caps the estimate (skopt spends about as much time
# choosing as its evaluations take: half the limit). diff_evo, pso,
# firefly_algorithm, dual_annealing, bayes_opt and ktune measured again on
# 2026-12-07 (one repeat on each evaluation file, the machine as loaded):
# 1.5, 1.6, 1.6, 2.5 and 0.5-1 CPU-s on dedispersion/W6600 (the cheap ones
# at twice that here), bayes_opt 28 CPU-s on dedispersion/W7800 (1,263
# evaluations) and 4-5 on the 440-evaluation files: quadratic, 175 at
# W6600's evaluations (its own run there did not end in 15 minutes).
COST = {
    "random_sample": (3.0, 1), "diff_evo": (3.0, 1), "pso": (3.0, 1),
    "firefly_algorithm": (3.0, 1), "genetic_algorithm": (5.0, 1),
    "simulated_annealing": (5.0, 1), "greedy_ils": (4.0, 1),
    "greedy_mls": (4.0, 1), "ordered_greedy_mls": (4.0, 1),
    "mls": (4.0, 1), "dual_annealing": (5.0, 1), "basinhopping": (15.0, 1),
    "minimize": (10.0, 1), "nsga2": (450.0, 1), "nsga3": (450.0, 1),
    "adaptive_tabu_greywolf": (15.0, 1), "pyatf_strategies": (0.1, 1),
    "hybrid_vndx": (200.0, 2), "skopt": (1e6, 1), "bayes_opt": (200.0, 2),
    "ktune": (2.0, 1), "ktune@10pct": (2.0, 1), "ktune:exhaustive": (3.0, 1)}
WALL_SHARE = {"skopt": 0.5}
COST_FILE = "dedispersion_milo/W6600"
START_S = {"kt": 4.0, "ktune": 0.0}
# Per file: the evaluations one repeat makes within its budget (the time
# limit over the median evaluation's recorded time) and the time limit
# (seconds; run.budgets).
FILES = {"convolution_milo/A100": (1155, 2777),
         "convolution_milo/A4000": (355, 860),
         "convolution_milo/A6000": (427, 1220),
         "convolution_milo/MI250X": (56, 92),
         "convolution_milo/W6600": (9, 24),
         "convolution_milo/W7800": (44, 59),
         "dedispersion_milo/A100": (874, 2780),
         "dedispersion_milo/A4000": (292, 1833),
         "dedispersion_milo/A6000": (437, 1680),
         "dedispersion_milo/MI250X": (408, 1895),
         "dedispersion_milo/W6600": (3060, 19882),
         "dedispersion_milo/W7800": (1224, 4092)}
EVALS = {k: v[0] for k, v in FILES.items()}
LIMITS = {k: v[1] for k, v in FILES.items()}


def per_repeat(tool, f, s):
    """Estimated CPU-seconds of one repeat of S on file F."""
    key = f"{f[0]}/{f[1]}"
    if tool == "ktune":
        c, p = COST["ktune:exhaustive" if s == "exhaustive" else
                    "ktune@10pct" if s.endswith("@10pct") else "ktune"]
        if s.endswith("@10pct"):
            return c  # a tenth of the space whatever the budget
    else:
        c, p = COST.get(s, (10.0, 1))
    ratio = max(EVALS.get(key, 1000), 10) / EVALS[COST_FILE]
    if tool == "ktune":
        return c * ratio ** p
    return min(c * ratio ** p, WALL_SHARE.get(s, 1.0) * LIMITS.get(key, 1e9))


def estimate(t):
    tool, f, s, s0, n = t
    return START_S[tool] + n * per_repeat(tool, f, s)


def out_bytes(t):
    """A chunk's expected size: about 9 bytes an evaluation (run.slim's
    columns, gzip-compressed), reserved while it runs so that what comes
    back stays under --max-out-mb."""
    tool, f, s, s0, n = t
    evals = EVALS.get(f"{f[0]}/{f[1]}", 1000)
    if s.endswith("@10pct"):
        evals = 1113 if f[0] == "dedispersion_milo" else 437
    return 9 * n * max(evals, 10) * (1.5 if tool == "kt" else 1.0)


def chunks(tool, f, s, repeats, target):
    """Seed chunks of S on F, each estimated at most TARGET CPU-seconds
    (one seed at least), at most 25 seeds."""
    one = per_repeat(tool, f, s)
    n = max(1, min(25, int((target - START_S[tool]) // max(one, 1e-3))))
    return [(tool, f, s, s0, min(n, repeats - s0 + 1))
            for s0 in range(1, repeats + 1, n)]


def tasks(a):
    files = [f for f in run.files_all()
             if not a.gpus or f[1] in a.gpus.split(",")]
    kts = run.strategy_list(a.kt_strategies, kt_runs.STRATEGIES)
    kns = run.strategy_list(a.ktune_strategies, KTUNE_ALL)
    target = a.chunk_s
    out = []
    for f in files:
        for s in kns:
            for tag in [s, s + "@10pct"]:
                out += chunks("ktune", f, tag, a.repeats, target)
        if kns:
            out.append(("ktune", f, "exhaustive", 1, 1))
        for s in kts:
            out += chunks("kt", f, s, a.repeats, target)
    return out


def task_key(t):
    tool, f, s, s0, n = t
    return f"{tool} {f[0]} {f[1]} {s} {s0} {n}"


def read_done(path):
    """The chunks an earlier call wrote (TOOL APP GPU STRATEGY S0 N ...)."""
    if not path or not os.path.exists(path):
        return set()
    with open(path) as f:
        return {" ".join(line.split()[:6]) for line in f if line.strip()}


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
        cmd = [a.ktune, "tune", "--replay", str(cache)] + \
            run.ktune_strategy_args(strat) + \
            ["--set", f"strategy.seed={seed}"] + lim + \
            ["--t4", str(t4), "--quiet"]
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
    """Runs task T; returns the chunk file written."""
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
        return out
    d = ktune_chunk(a, f, s, s0, n, b["limit"], b["size"], deadline)
    with gzip.open(str(out) + ".part", "wt") as fh:
        json.dump(d, fh)
    os.replace(str(out) + ".part", out)
    return out


class Pool:
    """The workers' shared state: the queue (longest first), the output
    size so far, the log and the done list."""

    def __init__(self, a, queue):
        self.a, self.queue = a, sorted(queue, key=lambda t: -estimate(t))
        self.lock = threading.Lock()
        self.bytes = 0  # written, plus what the running tasks reserve
        self.log = open(Path(a.work) / "device.log", "a")
        self.done = open(Path(a.work) / "done-new.txt", "a")
        self.factor = a.speed

    def note(self, msg):
        with self.lock:
            self.log.write(f"{time.time() - T0:7.1f} {msg}\n")
            self.log.flush()

    def ktune_ready(self):
        """ktune's tasks wait for its build (device.sh writes KTUNE.ok or
        KTUNE.failed beside it); after a failed build they are dropped."""
        if not self.a.ktune or os.path.exists(self.a.ktune + ".failed"):
            dropped = [t for t in self.queue if t[0] == "ktune"]
            for t in dropped:
                self.queue.remove(t)
                self.note(f"NOT RUN (no ktune build) {task_key(t)}")
            return False
        return os.path.exists(self.a.ktune + ".ok")

    def drop_too_long(self):
        """Tasks whose estimate alone passes --kill-at never start; each is
        noted (TOO LONG) and listed as done, so that the report lists the
        pair as not run."""
        for t in [t for t in self.queue
                  if estimate(t) * self.factor > self.a.kill_at]:
            self.queue.remove(t)
            self.done.write(f"{task_key(t)} too-long\n")
            self.note(f"TOO LONG for one call {task_key(t)}: estimated "
                      f"{estimate(t):.0f} CPU-s, --kill-at {self.a.kill_at}")
        self.done.flush()

    def pick(self):
        """The longest task that fits before --kill-at; None when none is
        left that could; "wait" while only ktune's remain, its build on."""
        now = time.time() - T0
        if now >= self.a.launch_until:
            return None
        ok = self.ktune_ready()
        waiting = False
        cap = self.a.max_out_mb * 2 ** 20
        for i, t in enumerate(self.queue):
            if now + estimate(t) * self.factor > self.a.kill_at or \
                    self.bytes + out_bytes(t) > cap:
                continue
            if t[0] == "kt" or ok:
                return self.queue.pop(i)
            waiting = True
        return "wait" if waiting else None

    def worker(self, bud, deadline):
        while True:
            with self.lock:
                t = self.pick()
            if t is None:
                return
            if t == "wait":
                time.sleep(1)
                continue
            t1 = time.time()
            with self.lock:
                self.bytes += out_bytes(t)
            try:
                out = do(self.a, t, bud, deadline)
                sec = time.time() - t1
                with self.lock:
                    self.bytes += out.stat().st_size - out_bytes(t)
                    self.done.write(f"{task_key(t)} {sec:.1f}\n")
                    self.done.flush()
                self.note(f"ok {task_key(t)} {sec:.1f}s "
                          f"(estimated {estimate(t):.0f} CPU-s)")
            except subprocess.TimeoutExpired:
                # Started with most of the window ahead (longest first) and
                # still running at --kill-at: longer than one call can be.
                # Listed as done, killed, so that no call retries it; one
                # started late is left for the next call.
                early = t1 - T0 < self.a.kill_at / 4
                with self.lock:
                    self.bytes -= out_bytes(t)
                    if early:
                        self.done.write(f"{task_key(t)} killed\n")
                        self.done.flush()
                self.note(f"KILLED at --kill-at {task_key(t)} "
                          f"{time.time() - t1:.1f}s (estimated "
                          f"{estimate(t):.0f} CPU-s): longer than a call")
            except Exception as e:  # a failure: left for the next call
                with self.lock:
                    self.bytes -= out_bytes(t)
                self.note(f"FAILED {task_key(t)} {time.time() - t1:.1f}s "
                          f"{str(e)[-300:]}")


def plan(a, left):
    """Prints what is left: CPU-seconds and the calls of JOBS workers."""
    fits = [t for t in left if estimate(t) * a.speed <= a.kill_at]
    cpu = sum(estimate(t) for t in fits)
    window = a.launch_until
    longest = max((estimate(t) for t in fits), default=0)
    calls = math.ceil(cpu * a.speed / (a.jobs * window)) if fits else 0
    by = {}
    for t in fits:
        k = f"{t[0]}:{t[2]}"
        by[k] = by.get(k, 0) + estimate(t)
    for k, v in sorted(by.items(), key=lambda kv: -kv[1]):
        print(f"{k:36s} {v:9.0f} CPU-s")
    for t in left:
        if estimate(t) * a.speed > a.kill_at:
            print(f"too long for one call: {task_key(t)} "
                  f"({estimate(t):.0f} CPU-s)")
    print(f"{len(fits)} tasks, {cpu:.0f} CPU-s estimated; longest task "
          f"{longest:.0f} s; about {calls} call(s) of {a.jobs} workers "
          f"launching for {window:.0f} s")


def collect(src, into, state):
    """Unpacks a call's returned files (runs.tar.NN pieces) into INTO
    (INTO/runs/TOOL/...chunks) and appends the call's done lines to
    STATE/done.txt, which the next call carries (the chunks stay here)."""
    src, into, state = Path(src), Path(into), Path(state)
    os.makedirs(into, exist_ok=True)
    os.makedirs(state, exist_ok=True)
    pieces = sorted(src.glob("runs.tar.[0-9]*"))
    if not pieces:
        sys.exit(f"device.py: no runs.tar.NN pieces in {src}")
    tmp = into / "runs.tar.part"
    with open(tmp, "wb") as o:
        for p in pieces:
            o.write(p.read_bytes())
    with tarfile.open(tmp) as tf:
        tf.extractall(into, filter="data")
    os.unlink(tmp)
    new = into / "done-new.txt"
    with open(state / "done.txt", "a") as o:
        o.write(new.read_text())
    os.unlink(new)
    print(f"collected {len(pieces)} piece(s) into {into}; "
          f"{len(read_done(state / 'done.txt'))} chunks done in all")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hub")
    ap.add_argument("--budgets")
    ap.add_argument("--ktune", default=None)
    ap.add_argument("--work")
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--gpus", default=None, help="e.g. A6000,W6600")
    ap.add_argument("--kt-strategies", default=None, help="a,b or none")
    ap.add_argument("--ktune-strategies", default=None, help="a,b or none")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--chunk-s", type=float, default=120,
                    help="estimated CPU-seconds a chunk aims at")
    ap.add_argument("--speed", type=float, default=1.0,
                    help="this machine's seconds per estimated CPU-second")
    ap.add_argument("--launch-until", type=float, default=420)
    ap.add_argument("--kill-at", type=float, default=500)
    ap.add_argument("--max-out-mb", type=float, default=56)
    ap.add_argument("--done", default=None)
    ap.add_argument("--plan", action="store_true")
    ap.add_argument("--collect", default=None)
    ap.add_argument("--into", default=".meth-runs")
    ap.add_argument("--state", default=".meth-state")
    return ap.parse_args()


def main():
    a = parse()
    if a.collect:
        return collect(a.collect, a.into, a.state)
    done = read_done(a.done)
    left = [t for t in tasks(a) if task_key(t) not in done]
    if a.plan:
        return plan(a, left)
    bud = json.load(open(a.budgets))
    os.makedirs(a.work, exist_ok=True)
    pool = Pool(a, left)
    pool.note(f"{len(left)} tasks left, {len(done)} done before")
    pool.drop_too_long()
    deadline = T0 + a.kill_at
    ths = [threading.Thread(target=pool.worker, args=(bud, deadline))
           for _ in range(a.jobs)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    pool.note(f"done; {len(pool.queue)} tasks left for the next call, "
              f"{pool.bytes / 2 ** 20:.1f} MiB of chunks")


if __name__ == "__main__":
    main()
