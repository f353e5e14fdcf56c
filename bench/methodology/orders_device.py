#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Both tools' strategies on the evaluation files in every ordering of the
value lists (issue 52: Kernel Tuner's strategies run on the reordered cache
files too), on a machine with many cores, in calls that resume one
another:

  python3 bench/methodology/orders_device.py --hub HUB --budgets B.json
      --work W [--ktune KTUNE] [--jobs 16] [--repeats 20]
      [--orders original,reversed,shuffle1,shuffle2,shuffle3]
      [--kt-strategies diff_evo,pso,firefly_algorithm,dual_annealing,bayes_opt]
      [--ktune-strategies auto,tpe,...] [--gpus A6000,MI250X,W6600,W7800]
      [--kill-at 330] [--max-out-mb 56] [--slow-s 100] [--slow-repeats N] [--done DONE.txt]
      [--plan]

HUB holds the twelve cache files (cachefiles/APP/GPU.json or .json.xz, as
prepare_device.sh makes them) and the hub's kernels/; each ordering gets
its own copy, W/hub-ORDER, with every file's value lists reordered as
run.py --order does (run.reorder_files: the cache files' tune_params and
the kernels' T1 Values, which Kernel Tuner's runs read). The tasks are
device.py's: chunks of seeds of one strategy on one file (kt_runs.py for
Kernel Tuner, `ktune tune --replay` per seed for ktune, exhaustive once),
sized by device.COST, here once per ordering. Workers take the longest
first; none starts when its estimate would end past --kill-at seconds or
its expected size (device.out_bytes) would take the chunks past
--max-out-mb, and one still running at --kill-at is stopped and left for
the next call. A chunk
listed in --done is not run again. A slow task (one repeat estimated past
--slow-s: bayes_opt on dedispersion/W6600) runs after all the others and
may be given fewer seeds (--slow-repeats).

Writes W/ORDER/runs/TOOL/APP-GPU-STRATEGY.sK.json.gz (run.py --import-runs
W/ORDER --order ORDER merges them for scoring) and W/done-new.txt (ORDER
TOOL APP GPU STRATEGY S0 N SECONDS per chunk written). --plan prints the
CPU-seconds left per tool and strategy and the calls of JOBS workers they
take.
"""
import argparse
import json
import lzma
import math
import os
import shutil
import subprocess
import threading
import time
from argparse import Namespace
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
import sys  # noqa: E402
sys.path.insert(0, str(HERE))
import device  # noqa: E402  (chunks, estimate, do)
import run  # noqa: E402  (APPS, TUNING, EVALUATION, ORDERS, reorder_files)

T0 = time.time()
KT_BEST = ["diff_evo", "pso", "firefly_algorithm", "dual_annealing",
           "bayes_opt"]
KTUNE = ["auto", "tpe", "one_at_a_time", "annealing", "genetic", "random",
         "coordinate"]


def unpack(src, dst):
    """SRC (plain or .xz) as plain JSON at DST, once."""
    if dst.exists():
        return
    os.makedirs(dst.parent, exist_ok=True)
    opener = lzma.open if src.suffix == ".xz" else open
    with opener(src, "rb") as f, open(str(dst) + ".part", "wb") as o:
        shutil.copyfileobj(f, o)
    os.replace(str(dst) + ".part", dst)


def reordered(base, dst, order):
    """A copy of BASE at DST with its value lists in ORDER (a process of
    its own per ordering: parsing the files is most of the set-up)."""
    if order != "original" and not dst.exists():
        shutil.copytree(base, str(dst) + ".part")
        run.reorder_files(Path(str(dst) + ".part"), order)
        os.replace(str(dst) + ".part", dst)
    return dst


def hub_copies(hub, work, orders, gpus):
    """W/hub-ORDER per ordering: the cache files of GPUS unpacked, the
    kernels beside them, the value lists reordered (run.reorder_files)."""
    hub, work = Path(hub), Path(work)
    base = work / "hub-original"
    jobs = []
    for app in run.APPS:
        for g in gpus:
            src = hub / "cachefiles" / app / f"{g}.json"
            if not src.exists():
                src = Path(str(src) + ".xz")
            jobs.append((src, base / "cachefiles" / app / f"{g}.json"))
    with ThreadPoolExecutor(max_workers=12) as ex:
        list(ex.map(lambda j: unpack(*j), jobs))
    if not (base / "kernels").exists():
        shutil.copytree(hub / "kernels", base / "kernels")

    with ProcessPoolExecutor(max_workers=len(orders)) as ex:
        return dict(zip(orders, ex.map(
            reordered, [base] * len(orders),
            [work / f"hub-{o}" for o in orders], orders)))


def slow(a, t):
    """A task whose one repeat is estimated past --slow-s (bayes_opt on
    dedispersion/W6600: a Gaussian process refitted over about 3,000
    evaluations): it gets --slow-repeats seeds and runs after the rest."""
    return device.per_repeat(t[0], t[1], t[2]) > a.slow_s


def tasks(a):
    """(ORDER, device task) for every ordering, file and strategy."""
    files = [f for f in run.files_all() if f[1] in a.gpus.split(",")]
    kts = run.strategy_list(a.kt_strategies, KT_BEST)
    kns = run.strategy_list(a.ktune_strategies, KTUNE)
    out = []
    for order in a.orders.split(","):
        for f in files:
            for s in kns:
                out += [(order, t) for t in
                        device.chunks("ktune", f, s, a.repeats, a.chunk_s)]
            if kns:
                out.append((order, ("ktune", f, "exhaustive", 1, 1)))
            for s in kts:
                n = a.repeats
                if slow(a, ("kt", f, s)) and a.slow_repeats is not None:
                    n = min(n, a.slow_repeats)
                out += [(order, t) for t in
                        device.chunks("kt", f, s, n, a.chunk_s)]
    return out


def key(ot):
    return f"{ot[0]} {device.task_key(ot[1])}"


def read_done(path):
    if not path or not os.path.exists(path):
        return set()
    with open(path) as f:
        return {" ".join(line.split()[:7]) for line in f if line.strip()}


def plan(a, left):
    by = {}
    for o, t in left:
        k = f"{t[0]}:{t[2]}"
        by[k] = by.get(k, 0) + device.estimate(t)
    for k, v in sorted(by.items(), key=lambda kv: -kv[1]):
        print(f"{k:36s} {v:9.0f} CPU-s")
    cpu = sum(by.values())
    longest = max((device.estimate(t) for _, t in left), default=0)
    print(f"{len(left)} tasks, {cpu:.0f} CPU-s estimated; longest "
          f"{longest:.0f} s; about {math.ceil(cpu / (a.jobs * a.kill_at))} "
          f"call(s) of {a.jobs} workers and {a.kill_at:.0f} s")


class Pool:
    """The queue (longest first), the log and the done list."""

    def __init__(self, a, left, hubs):
        self.a, self.hubs = a, hubs
        # The slow tasks last (whatever cores the rest leave before
        # --kill-at), each group longest first.
        self.queue = sorted(left, key=lambda ot: (
            slow(a, ot[1]), -device.estimate(ot[1])))
        self.lock = threading.Lock()
        self.bytes = 0  # written, plus what the running tasks reserve
        self.log = open(Path(a.work) / "orders.log", "a")
        self.done = open(Path(a.work) / "done-new.txt", "a")

    def note(self, msg):
        with self.lock:
            self.log.write(f"{time.time() - T0:7.1f} {msg}\n")
            self.log.flush()

    def ktune_state(self):
        """"ok" when --ktune names an executable (orders_device.sh builds it
        before the pool starts), else "failed": ktune's tasks are dropped
        (the log says so)."""
        k = self.a.ktune
        return "ok" if k and os.access(k, os.X_OK) else "failed"

    def pick(self):
        """The longest task that fits before --kill-at; None when none
        is left that could."""
        now = time.time() - T0
        state = self.ktune_state()
        with self.lock:
            if state == "failed" and any(ot[1][0] == "ktune"
                                         for ot in self.queue):
                self.queue = [ot for ot in self.queue if ot[1][0] != "ktune"]
                self.log.write("ktune's tasks NOT RUN: no ktune build\n")
            for i, ot in enumerate(self.queue):
                if now + device.estimate(ot[1]) * self.a.speed > \
                        self.a.kill_at or self.bytes + device.out_bytes(
                            ot[1]) > self.a.max_out_mb * 2 ** 20:
                    continue
                self.bytes += device.out_bytes(ot[1])
                return self.queue.pop(i)
        return None

    def worker(self, bud):
        deadline = T0 + self.a.kill_at
        while True:
            ot = self.pick()
            if ot is None:
                return
            order, t = ot
            ns = Namespace(hub=str(self.hubs[order]), ktune=self.a.ktune,
                           work=str(Path(self.a.work) / order))
            t1 = time.time()
            try:
                out = device.do(ns, t, bud, deadline)
                sec = time.time() - t1
                with self.lock:
                    self.bytes += out.stat().st_size - device.out_bytes(t)
                    self.done.write(f"{key(ot)} {sec:.1f}\n")
                    self.done.flush()
                self.note(f"ok {key(ot)} {sec:.1f}s (estimated "
                          f"{device.estimate(t):.0f} CPU-s)")
            except subprocess.TimeoutExpired:
                with self.lock:
                    self.bytes -= device.out_bytes(t)
                self.note(f"KILLED at --kill-at {key(ot)} "
                          f"{time.time() - t1:.1f}s: left for the next call")
            except Exception as e:  # a failure: left for the next call
                with self.lock:
                    self.bytes -= device.out_bytes(t)
                self.note(f"FAILED {key(ot)} {time.time() - t1:.1f}s "
                          f"{str(e)[-300:]}")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hub")
    ap.add_argument("--budgets")
    ap.add_argument("--work", default="/tmp/meth-orders")
    ap.add_argument("--ktune", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--orders", default=",".join(run.ORDERS))
    ap.add_argument("--gpus", default=",".join(run.EVALUATION))
    ap.add_argument("--kt-strategies", default=None, help="a,b or none")
    ap.add_argument("--ktune-strategies", default=None, help="a,b or none")
    ap.add_argument("--chunk-s", type=float, default=60,
                    help="estimated CPU-seconds a chunk aims at")
    ap.add_argument("--speed", type=float, default=1.0,
                    help="this machine's seconds per estimated CPU-second")
    ap.add_argument("--kill-at", type=float, default=330)
    ap.add_argument("--slow-s", type=float, default=100,
                    help="a task whose one repeat is estimated past this "
                         "many CPU-seconds is slow: it runs last")
    ap.add_argument("--slow-repeats", type=int, default=None,
                    help="seeds of a slow task (default: --repeats)")
    ap.add_argument("--max-out-mb", type=float, default=56,
                    help="chunks written at most (what comes back from "
                         "the call: 64 MiB); the rest waits for the next")
    ap.add_argument("--done", default=None)
    ap.add_argument("--plan", action="store_true")
    return ap.parse_args()


def main():
    a = parse()
    for o in a.orders.split(","):
        if o not in run.ORDERS:
            sys.exit(f"orders_device.py: unknown ordering {o} "
                     f"(known: {', '.join(run.ORDERS)})")
    done = read_done(a.done)
    left = [ot for ot in tasks(a) if key(ot) not in done]
    if a.plan:
        return plan(a, left)
    if any(t[0] == "ktune" for _, t in left) and not a.ktune:
        sys.exit("orders_device.py: ktune's strategies need --ktune")
    os.makedirs(a.work, exist_ok=True)
    hubs = hub_copies(a.hub, a.work, a.orders.split(","), a.gpus.split(","))
    bud = json.load(open(a.budgets))
    pool = Pool(a, left, hubs)
    pool.note(f"{len(left)} tasks left, {len(done)} done before; hubs "
              f"ready at {time.time() - T0:.1f} s")
    ths = [threading.Thread(target=pool.worker, args=(bud,))
           for _ in range(a.jobs)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    pool.note(f"done; {len(pool.queue)} tasks left for the next call, "
              f"{pool.bytes / 2 ** 20:.1f} MiB of chunks")


if __name__ == "__main__":
    main()
