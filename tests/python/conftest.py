# SPDX-License-Identifier: Apache-2.0
"""pytest setup for the Python package's tests.

The package is imported from an installed wheel, or from the source tree
(python/) with the build tree's library (KTUNE_LIBRARY, default
build/libktune.so when it exists). Tests that need libktune skip without
it unless KTUNE_REQUIRE_LIBRARY=1 (CI), where its absence fails them.
GPU tests (marker ``gpu``) skip at once without a CUDA device.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def _use_source_tree() -> None:
    try:
        import ktune  # noqa: F401  an installed wheel wins
        return
    except ImportError:
        pass
    sys.path.insert(0, str(ROOT / "python"))
    build = Path(os.environ.get("KTUNE_BUILD_DIR", ROOT / "build"))
    for cand in sorted(build.glob("**/libktune.so*"), key=lambda p: len(str(p))):
        os.environ.setdefault("KTUNE_LIBRARY", str(cand))
        break


_use_source_tree()


def _library_loads() -> str:
    from ktune import _lib
    try:
        _lib.lib()
        return ""
    except Exception as e:  # the reason goes into the skip message
        return str(e)


@pytest.fixture(scope="session")
def libktune() -> None:
    """Skips (or fails under KTUNE_REQUIRE_LIBRARY=1) without libktune."""
    why = _library_loads()
    if why:
        if os.environ.get("KTUNE_REQUIRE_LIBRARY") == "1":
            pytest.fail(f"libktune is required here: {why}")
        pytest.skip(f"libktune not available: {why}")


def _has_gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        run = subprocess.run([smi, "-L"], capture_output=True, text=True,
                             timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return run.returncode == 0 and "GPU" in run.stdout


def pytest_collection_modifyitems(config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    if not any(item.get_closest_marker("gpu") for item in items):
        return
    if _has_gpu():
        return
    skip = pytest.mark.skip(reason="no CUDA device (nvidia-smi -L)")
    for item in items:
        if item.get_closest_marker("gpu"):
            item.add_marker(skip)


@pytest.fixture
def data_dir() -> Path:
    """tests/data: the recordings the replays read."""
    return DATA
