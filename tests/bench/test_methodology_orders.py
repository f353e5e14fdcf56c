#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/methodology/orders_device.py on the CPU with a stand-in ktune (no
hub, no Kernel Tuner): a reordered cache file keeps "cache" as its last key
and ends with its closing braces (Kernel Tuner reads the file as text and
refused the earlier copies with "Extra data"); every ordering gets its own
hub copy, its value lists reordered, and its own chunks; the done lines
name the ordering, and a call given them runs nothing again; a call's
chunks stay under --max-out-mb (the rest waits); a slow task
(one repeat estimated past --slow-s) gets --slow-repeats seeds and is
queued after every other."""
import json
import os
import subprocess
import sys
import tempfile
from argparse import Namespace
from pathlib import Path

SRC = Path(os.environ.get("KT_SOURCE_DIR", Path(__file__).resolve()
                          .parents[2]))
ORD = SRC / "bench" / "methodology" / "orders_device.py"
sys.path.insert(0, str(SRC / "bench" / "methodology"))

FAKE = """#!/usr/bin/env python3
import json, sys
a = sys.argv
t4 = a[a.index("--t4") + 1]
cache = json.load(open(a[a.index("--replay") + 1]))
first = list(cache["tune_params"].values())[0][0]
res = [{"times": {"compilation": 1000.0, "runtimes": [1.0] * 32},
        "invalidity": "correct",
        "measurements": [{"name": "time", "value": float(first),
                          "unit": "ms"}]}]
json.dump({"results": res, "metadata": {"timeunit": "milliseconds"}},
          open(t4, "w"))
"""
APPS = ["convolution_milo", "dedispersion_milo"]
GPUS = ["A100", "A4000", "A6000", "MI250X", "W6600", "W7800"]


def hub(tmp):
    """Twelve one-point cache files (two parameters, three values each)
    and the two kernels' T1 files."""
    for app in APPS:
        os.makedirs(tmp / "hub" / "cachefiles" / app)
        for g in GPUS:
            d = {"device_name": g, "cache": {"1,4": {"time": 1.0}},
                 "tune_params_keys": ["a", "b"],
                 "tune_params": {"a": [1, 2, 3], "b": [4, 5, 6]}}
            (tmp / "hub" / "cachefiles" / app / f"{g}.json").write_text(
                json.dumps(d))
        os.makedirs(tmp / "hub" / "kernels", exist_ok=True)
        t1 = {"ConfigurationSpace": {"TuningParameters": [
            {"Name": "a", "Values": "[1, 2, 3]"},
            {"Name": "b", "Values": "[4, 5, 6]"}]}}
        (tmp / "hub" / "kernels" / f"{app}.json").write_text(json.dumps(t1))
    bud = {f"{a}/{g}": {"start": 1.0, "end": 10.0, "limit": 11.0,
                        "size": 9} for a in APPS for g in GPUS}
    (tmp / "budgets.json").write_text(json.dumps(bud))


def call(tmp, ktune, work, *extra):
    r = subprocess.run(
        [sys.executable, str(ORD), "--hub", str(tmp / "hub"), "--budgets",
         str(tmp / "budgets.json"), "--ktune", str(ktune), "--work",
         str(work), "--jobs", "2", "--repeats", "3", "--orders",
         "original,reversed", "--gpus", "W6600", "--kt-strategies", "none",
         "--ktune-strategies", "auto", *extra],
        capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def main():
    import orders_device
    import run
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        hub(tmp)
        ktune = tmp / "ktune"
        ktune.write_text(FAKE)
        ktune.chmod(0o755)
        # a cap below one chunk's size: nothing starts, all is left
        call(tmp, ktune, tmp / "w0", "--max-out-mb", "0.00001")
        assert (tmp / "w0" / "done-new.txt").read_text() == ""
        assert "8 tasks left for the next call" in \
            (tmp / "w0" / "orders.log").read_text()
        call(tmp, ktune, tmp / "w1")
        rev = tmp / "w1" / "hub-reversed" / "cachefiles" / APPS[0]
        text = (rev / "W6600.json").read_text()
        d = json.loads(text)
        assert d["tune_params"] == {"a": [3, 2, 1], "b": [6, 5, 4]}, d
        assert list(d)[-1] == "cache" and text.rstrip().endswith("}}}"), \
            text[-60:]
        assert not (rev / "A100.json").exists()  # only the files it runs
        import gzip
        for order, first in [("original", 1.0), ("reversed", 3.0)]:
            p = tmp / "w1" / order / "runs" / "ktune" / \
                f"{APPS[0]}-W6600-auto.s1.json.gz"
            reps = json.load(gzip.open(p, "rt"))["repeats"]
            assert [r["slim"]["v"] for r in reps] == [[first]] * 3, reps
        lines = (tmp / "w1" / "done-new.txt").read_text().splitlines()
        # 2 orderings x 2 files x (auto, exhaustive)
        assert len(lines) == 8 and {ln.split()[0] for ln in lines} == \
            {"original", "reversed"}, lines
        call(tmp, ktune, tmp / "w2", "--done",
             str(tmp / "w1" / "done-new.txt"))
        assert (tmp / "w2" / "done-new.txt").read_text() == ""
        # the slow ones: fewer seeds, queued last
        a = Namespace(orders="original", gpus="W6600,W7800",
                      kt_strategies="bayes_opt,pso",
                      ktune_strategies="none", repeats=20, chunk_s=60,
                      slow_s=100, slow_repeats=3, speed=1.0, kill_at=1e9,
                      max_out_mb=56, work=str(tmp))
        ts = orders_device.tasks(a)
        slow = [t for _, t in ts if orders_device.slow(a, t)]
        assert slow and all(t[2] == "bayes_opt" and t[1][1] == "W6600" and
                            t[1][0] == "dedispersion_milo" for t in slow), \
            slow
        assert sum(t[4] for t in slow) == 3, slow
        pool = orders_device.Pool(a, ts, {})
        kinds = [orders_device.slow(a, t) for _, t in pool.queue]
        assert kinds == sorted(kinds), kinds
        pool.log.close()
        pool.done.close()
        assert run.ORDERS[0] == "original"
    print("ok")


if __name__ == "__main__":
    main()
