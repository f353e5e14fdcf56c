#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python layer's overhead per evaluation, against the CLI's wall time
on the shipped vector_add job, in one run (issue 50; docs/python.md).

What it measures:
  1. `ktune tune configs/vector_add.ini` (the shipped job: 2^28 floats,
     the built-in plugin) as a subprocess: wall time and evaluations.
  2. ktune.tune() of the same c = a + b over 2^28 floats declared from
     Python (numpy arrays, a 20-point block_size_x space, exhaustive): the
     whole call's wall time, the time inside libktune's run call (which
     runs the same ktune program), and so the Python layer's own time:
     declaring, converting arguments, reading the result, progress off.
  The Python overhead per evaluation is (2)'s Python time / its
  evaluations; the target is under 1% of (1)'s wall time per evaluation.

--replay runs both halves on a recording instead (no GPU: the CLI's
`--replay` and ktune.replay() of the vector add's Kernel Tuner cache in
tests/data/kt), an upper bound on the overhead's share, since a replayed
evaluation costs nearly nothing.

Run (GPU, from a build tree):
  KTUNE_LIBRARY=build/libktune.so PYTHONPATH=python python3 bench/python_overhead.py
or with the wheel installed: python3 bench/python_overhead.py (the wheel's
ktune program is the CLI timed). Prints one Markdown table
for docs/results/ (with the GPU, the commit and the command).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:  # an installed wheel, else this checkout's package (KTUNE_LIBRARY)
    import ktune
except ImportError:
    sys.path.insert(0, str(ROOT / "python"))
    import ktune

import numpy as np  # noqa: E402

from ktune import _kernel  # noqa: E402

SOURCE = r"""
__global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


class CallTimer:
    """Times libktune's run calls by wrapping the one place they are made."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._orig = _kernel._call_with_progress

    def __enter__(self) -> "CallTimer":
        def timed(call, progress, total, journal):
            t0 = time.perf_counter()
            try:
                return self._orig(call, progress, total, journal)
            finally:
                self.seconds += time.perf_counter() - t0
        _kernel._call_with_progress = timed
        return self

    def __exit__(self, *exc) -> None:
        _kernel._call_with_progress = self._orig


def cli(exe: str, args: list[str]) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        t0 = time.perf_counter()
        run = subprocess.run([exe, "tune", *args, "--json", out],
                             capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if run.returncode != 0:
            sys.exit(f"ktune tune {' '.join(args)} exited {run.returncode}:\n{run.stderr}")
        doc = json.load(open(out))
    return wall, int(doc.get("evaluations", 0))


def python_live(n: int) -> tuple[float, float, int]:
    a = np.random.default_rng(1).random(n, dtype=np.float32)
    b = np.random.default_rng(2).random(n, dtype=np.float32)
    c, want = np.empty_like(a), a + b
    t0 = time.perf_counter()
    with CallTimer() as t:
        r = ktune.tune("vector_add", SOURCE, [ktune.Out(c), a, b, np.int32(n)],
                       {"block_size_x": [32 * i for i in range(1, 21)]},
                       problem_size=n, answer=[want, None, None, None],
                       strategy="exhaustive", progress=False)
    return time.perf_counter() - t0, t.seconds, len(r.points)


def python_replay(recording: str) -> tuple[float, float, int]:
    t0 = time.perf_counter()
    with CallTimer() as t:
        r = ktune.replay(recording, "exhaustive")
    return (time.perf_counter() - t0, t.seconds,
            int(r.document.get("evaluations") or len(r.points)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ktune", default=str(ktune._lib.exe_path() or
                                            ROOT / "build" / "ktune"))
    ap.add_argument("--replay", action="store_true",
                    help="both halves on the shipped recording (no GPU)")
    ap.add_argument("--repeat", type=int, default=3)
    opts = ap.parse_args()
    rows = []
    # A Kernel Tuner cache of the vector add (H200): both the CLI and
    # ktune.replay replay it without a job.
    rec = str(ROOT / "tests" / "data" / "kt" / "vector_add-h200-n1048576.cache.json.gz")
    for i in range(opts.repeat):
        if opts.replay:
            cwall, cevals = cli(opts.ktune, ["--replay", rec, "--set",
                                             "strategy.name=exhaustive"])
            pwall, pin, pevals = python_replay(rec)
        else:
            cwall, cevals = cli(opts.ktune, [str(ROOT / "configs" / "vector_add.ini")])
            pwall, pin, pevals = python_live(1 << 28)
        py = pwall - pin
        per_eval_cli = cwall / max(cevals, 1)
        per_eval_py = py / max(pevals, 1)
        rows.append((i + 1, cwall, cevals, pwall, pin, pevals, per_eval_py,
                     100.0 * per_eval_py / per_eval_cli, 100.0 * py / cwall))
    print(f"mode: {'replay' if opts.replay else 'live'}; ktune {ktune.__version__}")
    print("| run | CLI wall s | CLI evals | Python wall s | in libktune s | "
          "Python evals | Python ms/eval | % of CLI s/eval | Python s % of CLI wall |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]:.3f} | {r[2]} | {r[3]:.3f} | {r[4]:.3f} | {r[5]} | "
              f"{1000 * r[6]:.3f} | {r[7]:.3f}% | {r[8]:.3f}% |")


if __name__ == "__main__":
    main()
