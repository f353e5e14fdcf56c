# SPDX-License-Identifier: Apache-2.0
"""Without a GPU: Kernel Tuner's own examples/cuda scripts, unmodified,
get through ktune's interface up to their first launch (each tune_kernel
call's parameters taken, its declaration checked and counted by ktune;
tests/python/kt_check_launch.py), or stop with an error naming what ktune
does not support. Needs KTUNE_KT_EXAMPLES, the folder examples/cuda of a
Kernel Tuner checkout (fetched, never committed); skipped without it.
reduction.py makes 9.6 GB of input on the host before its first call: run
only with KTUNE_KT_HEAVY=1 (a GPU host runs it whole,
test_kernel_tuner_gpu.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ktune

pytestmark = pytest.mark.usefixtures("libktune")

HERE = Path(__file__).resolve().parent
PKG_ROOT = Path(ktune.__file__).resolve().parents[1]
# script -> the space ktune's check counts (points, feasible), Kernel
# Tuner's tune_params and restrictions as the script gives them.
CHECKED = {"vector_add.py": (15, 15), "vector_add_metric.py": (32, 32),
           "matmul.py": (288, 44), "stencil.py": (48, 48), "expdist.py": (960, 960),
           "convolution_correct.py": (1440, 1440), "spmv.py": (128, 128),
           "convolution.py": (3145728, 2359296)}
NEEDS = {"spmv.py": "scipy"}


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    d = os.environ.get("KTUNE_KT_EXAMPLES")
    if not d or not Path(d, "vector_add.py").is_file():
        pytest.skip("KTUNE_KT_EXAMPLES does not name Kernel Tuner's examples/cuda")
    work = tmp_path / "cuda"
    shutil.copytree(d, work)  # the scripts write their outputs beside them
    return work


def run(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PKG_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True,
                          text=True, env=env, timeout=600)


@pytest.mark.parametrize("script", sorted(CHECKED))
def test_script_reaches_its_first_launch_with_every_parameter_taken(examples, script):
    if script in NEEDS:
        pytest.importorskip(NEEDS[script])
    done = run(examples, str(HERE / "kt_check_launch.py"), script)
    points, feasible = CHECKED[script]
    assert done.returncode == 3, done.stderr[-3000:]
    assert (f"STOPPED_BEFORE_LAUNCH: the declaration checked, {points} points, "
            f"{feasible} feasible") in done.stderr, done.stderr[-3000:]


def test_reduction_reaches_its_first_launch_or_names_what_it_needs(examples):
    if os.environ.get("KTUNE_KT_HEAVY") != "1":
        pytest.skip("reduction.py makes 9.6 GB of input first: KTUNE_KT_HEAVY=1 runs it")
    done = run(examples, str(HERE / "kt_check_launch.py"), "reduction.py")
    assert done.returncode == 3 or "kernel_tuner.verify" in done.stderr, done.stderr[-3000:]


def test_pnpoly_names_pycuda_which_it_imports_itself(examples):
    """pnpoly.py allocates PyCUDA's mapped host memory itself and tunes a
    host function (lang="C"): without PyCUDA the run stops at its import
    with a note saying ktune provides none; with PyCUDA, at lang="C"."""
    try:
        import pycuda  # noqa: F401
        want = "kernel_tuner.lang: 'C'"
    except ImportError:
        want = "pnpoly.py imports pycuda"
    done = run(examples, "-m", "ktune.kernel_tuner", "pnpoly.py")
    assert done.returncode != 0 and want in done.stderr, done.stderr[-3000:]


def test_kernel_tuners_unit_test_runs_under_pytest(examples):
    """test_vector_add.py skips itself without PyCUDA or a device."""
    done = run(examples, "-m", "ktune.kernel_tuner", "-m", "pytest", "-q", "-p",
               "no:cacheprovider", "-c", os.devnull, "-rs", "test_vector_add.py")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed" in done.stdout or "1 skipped" in done.stdout, done.stdout[-3000:]
