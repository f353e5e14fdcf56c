#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python layer's overhead per evaluation, against the CLI's wall time
on the shipped vector_add job, in one run (issue 50; docs/python.md).

What it measures (live, the default; needs a GPU):
  1. `ktune tune configs/vector_add.ini` (the shipped job: 2^28 floats,
     the built-in plugin) as a subprocess: wall time and evaluations.
  2. ktune.tune() of the same c = a + b over 2^28 floats declared from
     Python (numpy arrays, a 20-point block_size_x space, exhaustive),
     with every call into libktune timed: the whole call's wall time, the
     time in libktune's declaration calls (ktune_buffer and ktune_answer
     copy the three 1 GiB arrays once, into shared memory the workers
     map), the time in its run call (the CLI's own command code), and so
     the Python layer's own time: the wall time outside libktune
     (declaring, converting arguments, reading the result; progress off).
  The Python overhead per evaluation is (2)'s Python time / its
  evaluations; the target is under 1% of (1)'s wall time per evaluation.
  The table also gives libktune's other calls (the declaration with its
  one copy of the arrays, the options, the result's accessors) per
  evaluation against the same figure: they are libktune's, a C program
  pays them too. bench_shm_copy (build/bench) times that copy alone.

--setup (no GPU): the per-session cost of large arrays alone: a kernel
over three 2^28-float arrays (two inputs and an answer) declared and
checked (`ktune_check`, no GPU), each part timed as above.

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

SOURCE = r"""
__global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


_RUNS = ("ktune_check", "ktune_tune", "ktune_bench", "ktune_profile",
         "ktune_replay")


class LibTimer:
    """Times every call into libktune (the ctypes functions of the loaded
    library, wrapped for the duration): run calls and the others (the
    declaration, options, results) apart."""

    def __init__(self) -> None:
        self.run_s = 0.0
        self.other_s = 0.0
        self._lib = ktune._lib.lib()
        self._orig: dict[str, object] = {}

    def __enter__(self) -> "LibTimer":
        for name in ktune._lib._SIGNATURES:
            fn = getattr(self._lib, name)
            self._orig[name] = fn
            setattr(self._lib, name, self._wrap(fn, name in _RUNS))
        return self

    def _wrap(self, fn, is_run: bool):
        def timed(*args):
            t0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                dt = time.perf_counter() - t0
                if is_run:
                    self.run_s += dt
                else:
                    self.other_s += dt
        return timed

    def __exit__(self, *exc) -> None:
        for name, fn in self._orig.items():
            setattr(self._lib, name, fn)


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


def arrays(n: int) -> tuple[np.ndarray, ...]:
    a = np.random.default_rng(1).random(n, dtype=np.float32)
    b = np.random.default_rng(2).random(n, dtype=np.float32)
    return np.empty_like(a), a, b, a + b


def python_live(n: int) -> tuple[float, float, float, int]:
    c, a, b, want = arrays(n)
    t0 = time.perf_counter()
    with LibTimer() as t:
        r = ktune.tune("vector_add", SOURCE, [ktune.Out(c), a, b, np.int32(n)],
                       {"block_size_x": [32 * i for i in range(1, 21)]},
                       problem_size=n, answer=[want, None, None, None],
                       strategy="exhaustive", progress=False)
    return time.perf_counter() - t0, t.other_s, t.run_s, len(r.points)


def python_setup(n: int) -> tuple[float, float, float, int]:
    c, a, b, want = arrays(n)
    t0 = time.perf_counter()
    with LibTimer() as t:
        k = ktune.Kernel("vector_add", SOURCE, [ktune.Out(c), a, b, np.int32(n)],
                         {"block_size_x": [32 * i for i in range(1, 21)]},
                         problem_size=n, answer=[want, None, None, None])
        try:
            r = k.check()
        finally:
            k.close()
    return time.perf_counter() - t0, t.other_s, t.run_s, r.space[1] if r.space else 0


def python_replay(recording: str) -> tuple[float, float, float, int]:
    t0 = time.perf_counter()
    with LibTimer() as t:
        r = ktune.replay(recording, "exhaustive")
    return (time.perf_counter() - t0, t.other_s, t.run_s,
            int(r.document.get("evaluations") or len(r.points)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ktune", default=str(ktune._lib.exe_path() or
                                            ROOT / "build" / "ktune"))
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--replay", action="store_true",
                      help="both halves on the shipped recording (no GPU)")
    mode.add_argument("--setup", action="store_true",
                      help="declare and check 3 x 2^28 floats (no GPU)")
    ap.add_argument("--log2n", type=int, default=28,
                    help="--setup: 2^N elements per array")
    ap.add_argument("--repeat", type=int, default=3)
    opts = ap.parse_args()
    if opts.setup:
        return setup_table(opts)
    rows = []
    # A Kernel Tuner cache of the vector add (H200): both the CLI and
    # ktune.replay replay it without a job.
    rec = str(ROOT / "tests" / "data" / "kt" / "vector_add-h200-n1048576.cache.json.gz")
    for i in range(opts.repeat):
        if opts.replay:
            cwall, cevals = cli(opts.ktune, ["--replay", rec, "--set",
                                             "strategy.name=exhaustive"])
            pwall, pdecl, prun, pevals = python_replay(rec)
        else:
            cwall, cevals = cli(opts.ktune, [str(ROOT / "configs" / "vector_add.ini")])
            pwall, pdecl, prun, pevals = python_live(1 << 28)
        py = pwall - pdecl - prun
        per_eval_cli = cwall / max(cevals, 1)
        per_eval_py = py / max(pevals, 1)
        per_eval_decl = pdecl / max(pevals, 1)
        rows.append((i + 1, cwall, cevals, pwall, pdecl, prun, pevals,
                     1000 * per_eval_py, 100.0 * per_eval_py / per_eval_cli,
                     100.0 * per_eval_decl / per_eval_cli))
    print(f"mode: {'replay' if opts.replay else 'live'}; ktune {ktune.__version__}; "
          f"library {ktune._lib.library_path()}")
    print("| run | CLI wall s | CLI evals | Python wall s | libktune other s | "
          "libktune run s | Python evals | Python ms/eval | Python % of CLI s/eval "
          "| libktune other % of CLI s/eval |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]:.3f} | {r[2]} | {r[3]:.3f} | {r[4]:.3f} | "
              f"{r[5]:.3f} | {r[6]} | {r[7]:.3f} | {r[8]:.3f}% | {r[9]:.3f}% |")


def setup_table(opts: argparse.Namespace) -> None:
    n = 1 << opts.log2n
    gib = 3 * n * 4 / (1 << 30)
    print(f"mode: setup (3 arrays of 2^{opts.log2n} floats, {gib:.2f} GiB, "
          f"declared and checked; no GPU); ktune {ktune.__version__}; "
          f"library {ktune._lib.library_path()}")
    print("| run | wall s | libktune declare s | declare GiB/s | libktune check s "
          "| Python s |")
    print("|---|---|---|---|---|---|")
    for i in range(opts.repeat):
        wall, decl, run, _ = python_setup(n)
        print(f"| {i + 1} | {wall:.3f} | {decl:.3f} | {gib / decl:.2f} | "
              f"{run:.3f} | {wall - decl - run:.4f} |")


if __name__ == "__main__":
    main()
