# SPDX-License-Identifier: Apache-2.0
"""On a GPU (marker gpu): Kernel Tuner's own examples/cuda scripts run
unmodified under `python -m ktune.kernel_tuner`. Needs KTUNE_KT_EXAMPLES,
the folder examples/cuda of a Kernel Tuner checkout (fetched, never
committed); skipped without it. KTUNE_KT_TIMEOUT bounds each script
(seconds, default 600). Scripts that use what ktune does not support
must stop with the error naming it."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ktune

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("libktune")]

ROOT = Path(__file__).resolve().parents[2]
# Where the ktune this run imports lives (an installed wheel, or python/).
PKG_ROOT = Path(ktune.__file__).resolve().parents[1]
RUNS = ["vector_add.py", "vector_add_metric.py", "matmul.py", "convolution.py",
        "convolution_correct.py", "stencil.py", "spmv.py", "expdist.py",
        "reduction.py"]
# script -> what the error must name (one of): pnpoly.py imports PyCUDA
# itself, then tunes a host function (lang="C")
REFUSED = {"pnpoly.py": ("imports pycuda itself", "kernel_tuner.lang: 'C'")}


def examples() -> Path:
    d = os.environ.get("KTUNE_KT_EXAMPLES")
    if not d or not Path(d, "vector_add.py").is_file():
        pytest.skip("KTUNE_KT_EXAMPLES does not name Kernel Tuner's examples/cuda")
    return Path(d)


def run(script: str, *extra: str, module: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PKG_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    t0 = time.perf_counter()
    args = ([*extra, script] if not module else [*extra[:2], script, *extra[2:]])
    done = subprocess.run([sys.executable, "-m", "ktune.kernel_tuner", *args],
                          cwd=examples(), capture_output=True, text=True, env=env,
                          timeout=float(os.environ.get("KTUNE_KT_TIMEOUT", "600")))
    print(f"\n{script}: exit {done.returncode} in {time.perf_counter() - t0:.1f} s")
    return done


@pytest.mark.parametrize("script", RUNS)
def test_script_runs_unmodified(script):
    done = run(script)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("script", sorted(REFUSED))
def test_unsupported_script_names_what_it_needs(script):
    done = run(script)
    assert done.returncode != 0 and any(w in done.stderr for w in REFUSED[script]), \
        done.stderr[-3000:]


def test_kernel_tuners_unit_test_under_pytest():
    done = run("test_vector_add.py", "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-c", os.devnull, "-rs", module=True)
    assert done.returncode == 0, done.stdout[-3000:]
