# SPDX-License-Identifier: Apache-2.0
"""One code path (issue 50): examples/declared_transpose declared from
Python gives the space the CLI counts for its INI file and, replayed from
one recording with one seed, the search path `ktune tune transpose.ini
--replay` takes (no GPU)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ktune
from ktune import _lib

pytestmark = pytest.mark.usefixtures("libktune")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "declared_transpose"
REC = ROOT / "tests" / "data" / "transpose-h200-rows8192-cols8192.jsonl.gz"


def transpose() -> ktune.Kernel:
    """transpose.ini, from Python."""
    b16, by = [16, 32, 64], [1, 2, 4, 8, 16]
    return ktune.Kernel(
        "transpose", EXAMPLE / "transpose.cu",
        {"y": ktune.Buffer(np.float32, "rows * cols", "out"),
         "x": ktune.Buffer("f32", "rows * cols", "in"),
         "rows": ktune.SizeExpr("rows"), "cols": ktune.SizeExpr("cols")},
        sizes={"rows": 8192, "cols": 8192},
        variants=[
            ktune.Variant("naive", "transpose_naive", {"bx": b16, "by": by},
                          block="bx, by", problem_size=("cols", "rows"),
                          grid_div_x=["bx"], grid_div_y=["by"], reference=True,
                          defines={}),
            ktune.Variant("tiled", "transpose_tiled<tile, pad, rows_per>",
                          {"tile": b16, "pad": [0, 1], "rows_per": by},
                          block="tile, rows_per",
                          grid="ceil_div(cols, tile), ceil_div(rows, tile)",
                          restrictions=["rows_per <= tile"], defines={}),
        ])


def test_space_is_the_ini_files():
    k = transpose()
    assert k.check().space == (45, 45)
    k.close()


def test_one_recording_one_seed_one_search_path(tmp_path):
    k = transpose()
    r = k.replay(REC, "random", max_evals=12, seed=7)
    k.close()
    journal = tmp_path / "cli.journal.jsonl"
    exe = _lib.exe_path()
    run = subprocess.run(
        [str(exe), "tune", str(EXAMPLE / "transpose.ini"), "--replay", str(REC),
         "--journal", str(journal), "--quiet", "--set", "strategy.name=random",
         "--set", "strategy.seed=7", "--set", "strategy.max_evals=12"],
        capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    cli = []
    for line in journal.read_text().splitlines():
        e = json.loads(line)
        if "point" in e:
            cli.append((e["point"]["variant"], e["point"]["params"]))
    py = [(p["variant"], {k: v for k, v in p.items() if k in ("bx", "by", "tile", "pad", "rows_per")})
          for p in r.points]
    assert len(py) >= 12
    assert py == cli
    assert r.best is not None
