#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Kernel Tuner's examples/cuda scripts under both tools, same machine,
same run (issue 51): each script as `python SCRIPT` with Kernel Tuner
installed (--kt-python: an interpreter that has Kernel Tuner 1.5.0, e.g.
from the wheels bench/hub/fetch_wheels.sh downloads) and as `python -m
ktune.kernel_tuner SCRIPT` (this checkout's package). Prints a Markdown
table: wall time of each, their ratio, exit status; the scripts' own
outputs go to --out. GPU only; commit the table under docs/results/ with
the command, GPU and commit.

  KTUNE_LIBRARY=build/libktune.so PYTHONPATH=python \\
  python3 bench/kernel_tuner_scripts.py --examples KT/examples/cuda \\
      --kt-python /path/to/kt-venv/bin/python --out $OUT
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ["vector_add.py", "vector_add_metric.py", "matmul.py", "convolution.py",
           "convolution_correct.py", "pnpoly.py", "reduction.py", "stencil.py",
           "spmv.py", "expdist.py"]


def timed(cmd: list[str], cwd: Path, env: dict, log: Path, limit: float) -> tuple[float, str]:
    t0 = time.perf_counter()
    try:
        with open(log, "w") as f:
            rc = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                timeout=limit).returncode
        status = "ok" if rc == 0 else f"exit {rc}"
    except subprocess.TimeoutExpired:
        status = f"timeout {limit:.0f} s"
    return time.perf_counter() - t0, status


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", required=True, type=Path)
    ap.add_argument("--kt-python", help="interpreter with Kernel Tuner (omit: ktune only)")
    ap.add_argument("--out", type=Path, default=Path("."))
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("scripts", nargs="*", default=SCRIPTS)
    o = ap.parse_args()
    o.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    try:  # the ktune this interpreter imports: a wheel, else python/
        import ktune
        pkg = str(Path(ktune.__file__).resolve().parents[1])
    except ImportError:
        pkg = str(ROOT / "python")
    env["PYTHONPATH"] = os.pathsep.join([pkg] +
                                        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    print("| script | Kernel Tuner s | status | ktune s | status | ktune / KT |")
    print("|---|---|---|---|---|---|")
    for s in o.scripts:
        kt = ("", "not run")
        if o.kt_python:
            kt_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            kt = timed([o.kt_python, s], o.examples, kt_env, o.out / f"kt-{s}.log", o.timeout)
        kn = timed([sys.executable, "-m", "ktune.kernel_tuner", s], o.examples, env,
                   o.out / f"ktune-{s}.log", o.timeout)
        ratio = f"{kn[0] / kt[0]:.2f}" if kt[0] else ""
        kts = f"{kt[0]:.1f}" if kt[0] else ""
        print(f"| {s} | {kts} | {kt[1]} | {kn[0]:.1f} | {kn[1]} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
