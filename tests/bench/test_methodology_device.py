#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/methodology/device.py's calls on the CPU with a stand-in ktune (no
hub, no Kernel Tuner): chunks are sized by their estimated CPU time (a
slow surrogate one seed a chunk, ktune's replays many); a call runs every
task it can, writes its chunks and done lines; the next call given those
lines runs nothing again; a call's output stays under --max-out-mb (what
is left waits for the next call); --collect unpacks what device.sh returns
and run.py --import-runs merges the chunks into one file per strategy and
file, all seeds in order, merging again when later chunks arrive."""
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SRC = Path(os.environ.get("KT_SOURCE_DIR", Path(__file__).resolve()
                          .parents[2]))
DEV = SRC / "bench" / "methodology" / "device.py"
sys.path.insert(0, str(SRC / "bench" / "methodology"))

FAKE = """#!/usr/bin/env python3
import json, sys
a = sys.argv
t4 = a[a.index("--t4") + 1]
seed = int([x for x in a if x.startswith("strategy.seed=")][0].split("=")[1])
res = [{"times": {"compilation": 1000.0, "runtimes": [1.0] * 32},
        "invalidity": "correct",
        "measurements": [{"name": "time", "value": 1.0 + seed + i,
                          "unit": "ms"}]} for i in range(5)]
json.dump({"results": res, "metadata": {"timeunit": "milliseconds"}},
          open(t4, "w"))
"""


def call(*args, check=True):
    r = subprocess.run([sys.executable, str(DEV), *args],
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        raise SystemExit(f"device.py {args}: {r.returncode}\n{r.stderr}")
    return r


def setup(tmp):
    ktune = tmp / "ktune"
    ktune.write_text(FAKE)
    ktune.chmod(0o755)
    Path(str(ktune) + ".ok").touch()
    bud = {f"{a}/{g}": {"start": 1.0, "end": 10.0, "limit": 11.0,
                        "size": 100}
           for a in ["convolution_milo", "dedispersion_milo"]
           for g in ["A100", "A4000", "A6000", "MI250X", "W6600", "W7800"]}
    (tmp / "budgets.json").write_text(json.dumps(bud))
    return ktune


def run_call(tmp, ktune, work, *extra):
    return call("--hub", str(tmp / "hub"), "--budgets",
                str(tmp / "budgets.json"), "--ktune", str(ktune), "--work",
                str(work), "--jobs", "2", "--repeats", "30",
                "--kt-strategies", "none", "--ktune-strategies", "auto",
                "--gpus", "W6600", *extra)


def pack(work, dst):
    """What device.sh returns: runs/ and done-new.txt as tar pieces."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for p in ["runs", "done-new.txt"]:
            tf.add(work / p, arcname=p)
    data = buf.getvalue()
    os.makedirs(dst)
    half = len(data) // 2
    (dst / "runs.tar.00").write_bytes(data[:half])
    (dst / "runs.tar.01").write_bytes(data[half:])


def main():
    import device
    f = ("dedispersion_milo", "W6600")
    slow = device.chunks("kt", f, "hybrid_vndx", 50, 120)
    assert len(slow) == 50 and all(t[4] == 1 for t in slow), slow[:2]
    fast = device.chunks("ktune", f, "auto", 50, 120)
    assert [t[3:] for t in fast] == [(1, 25), (26, 25)], fast
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        ktune = setup(tmp)
        plan = call("--plan", "--repeats", "30", "--kt-strategies", "none",
                    "--ktune-strategies", "auto", "--gpus", "W6600").stdout
        # per app: auto 2 chunks (25 + 5), auto@10pct 2, exhaustive 1
        assert "10 tasks" in plan, plan
        # a cap below one chunk's size: nothing starts, all is left
        run_call(tmp, ktune, tmp / "w0", "--max-out-mb", "0.00001")
        assert (tmp / "w0" / "done-new.txt").read_text() == ""
        assert "10 tasks left for the next call" in \
            (tmp / "w0" / "device.log").read_text()
        run_call(tmp, ktune, tmp / "w1")
        lines = (tmp / "w1" / "done-new.txt").read_text().splitlines()
        assert len(lines) == 10, lines
        pack(tmp / "w1", tmp / "out1")
        os.chdir(tmp)
        call("--collect", str(tmp / "out1"), "--into", "runs-here",
             "--state", "state")
        done = (tmp / "state" / "done.txt").read_text().splitlines()
        assert done == lines, (done, lines)
        again = run_call(tmp, ktune, tmp / "w2", "--done", "state/done.txt")
        assert (tmp / "w2" / "done-new.txt").read_text() == "", again.stderr
        assert "0 tasks left" in (tmp / "w2" / "device.log").read_text()
        import run
        merged = tmp / "merged"
        run.import_runs(tmp / "runs-here", merged)
        m = json.load(gzip.open(merged / "ktune" /
                                "convolution_milo-W6600-auto.json.gz", "rt"))
        assert [r["seed"] for r in m["repeats"]] == list(range(1, 31)), m
        assert m["chunks"] == ["convolution_milo-W6600-auto.s1.json.gz",
                               "convolution_milo-W6600-auto.s26.json.gz"]
        # a later chunk arrives (here: one chunk removed, then back)
        p = tmp / "runs-here/runs/ktune/convolution_milo-W6600-auto.s26.json.gz"
        keep = p.read_bytes()
        p.unlink()
        (merged / "ktune" / "convolution_milo-W6600-auto.json.gz").unlink()
        run.import_runs(tmp / "runs-here", merged)
        p.write_bytes(keep)
        run.import_runs(tmp / "runs-here", merged)
        m = json.load(gzip.open(merged / "ktune" /
                                "convolution_milo-W6600-auto.json.gz", "rt"))
        assert len(m["repeats"]) == 30, len(m["repeats"])
    print("ok")


if __name__ == "__main__":
    main()
