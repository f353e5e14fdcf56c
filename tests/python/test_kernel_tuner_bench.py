# SPDX-License-Identifier: Apache-2.0
"""bench/kernel_tuner_scripts.py without a GPU (--fake: a runner that
writes made-up records): its arguments, its bookkeeping (evaluations from
the records, a killed Kernel Tuner run's from its cache file, the two
answers per call handed to the neutral run) and the Done-when table."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "kernel_tuner_scripts.py"


def test_fake_run_makes_the_table_with_a_killed_kernel_tuner_run(tmp_path):
    out = tmp_path / "kts"
    done = subprocess.run([sys.executable, str(BENCH), "--examples", str(tmp_path),
                           "--fake", "--limit", "20", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [x for x in done.stdout.splitlines() if x.startswith("| ")]
    assert len(rows) == 1 + 11, done.stdout  # header and the 11 scripts
    conv = next(x for x in rows if x.startswith("| convolution.py "))
    cells = [c.strip() for c in conv.strip("|").split("|")]
    assert cells[1] == "20.0" and cells[2].startswith(
        "killed at 20 s (evaluations from its cache)"), cells
    assert cells[3] == "2", cells  # two entries in its open cache file
    assert cells[9] == "1.0100" and cells[10] == "1.010", cells
    res = json.loads((out / "results.json").read_text())
    conv = next(r for r in res if r["script"] == "convolution.py")
    # Kernel Tuner's best so far, read from its cache: the one valid entry.
    assert conv["answers"] == [{"kernel_tuner": {"block_size_x": 32},
                                "ktune": {"block_size_x": 64}}]
    assert "Each tool had 20 s of wall time per script" in done.stdout
    test = next(x for x in rows if x.startswith("| test_vector_add.py "))
    assert "1 passed" in test


def test_an_unknown_script_is_refused(tmp_path):
    done = subprocess.run([sys.executable, str(BENCH), "--examples", str(tmp_path),
                           "--out", str(tmp_path / "o"), "nosuch.py"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "nosuch.py" in done.stderr
