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
    assert cells[1] == "20" and cells[2] == "20.0" and cells[3].startswith(
        "killed at 20 s (evaluations from its cache)"), cells
    assert cells[4] == "2", cells  # two entries in its open cache file
    assert cells[10] == "1.0100" and cells[11] == "1.010", cells
    res = json.loads((out / "results.json").read_text())
    conv = next(r for r in res if r["script"] == "convolution.py")
    # Kernel Tuner's best so far, read from its cache: the one valid entry.
    assert conv["answers"] == [{"kernel_tuner": {"block_size_x": 32},
                                "ktune": {"block_size_x": 64}}]
    assert "Each tool had the same wall limit per script, 20 s" in done.stdout
    test = next(x for x in rows if x.startswith("| test_vector_add.py "))
    assert "1 passed" in test


def test_an_unknown_script_is_refused(tmp_path):
    done = subprocess.run([sys.executable, str(BENCH), "--examples", str(tmp_path),
                           "--out", str(tmp_path / "o"), "nosuch.py"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "nosuch.py" in done.stderr


def test_scripts_that_do_not_fit_the_budget_are_not_run(tmp_path):
    done = subprocess.run([sys.executable, str(BENCH), "--examples", str(tmp_path),
                           "--fake", "--limit", "20", "--neutral-limit", "40",
                           "--budget", "52", "--limit-for", "vector_add.py=3",
                           "--out", str(tmp_path / "o"), "vector_add.py", "stencil.py"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # stencil.py: min(20, (52 - 40) / 2) = 6 s per tool (5 the least a script gets);
    # vector_add.py asked for 3 s.
    assert "| stencil.py | 6 |" in done.stdout, done.stdout
    assert "Not run (no time left in the budget): vector_add.py." in done.stdout


def test_neutral_harness_builds_kernels_as_kernel_tuner_documents():
    """The neutral harness's geometry and source prefix (no GPU: CuPy is
    imported only to launch): Kernel Tuner's grid rule and defines."""
    sys.path.insert(0, str(ROOT / "bench"))
    import kt_scripts_neutral as n
    names = list(n.BLOCK_NAMES)
    mm = {"block_size_x": 32, "block_size_y": 4, "tile_size_x": 2, "tile_size_y": 8}
    dims = n.problem_dims((4096, 4096), mm)
    assert n.block_dims(mm, names) == (32, 4, 1)
    assert n.grid_dims(dims, mm, [["block_size_x", "tile_size_x"],
                                  ["block_size_y", "tile_size_y"], None], names) == (64, 128, 1)
    # reduction.py: problem_size a parameter, grid_div_x=[]: the grid is the size.
    red = {"block_size_x": 128, "num_blocks": 1024}
    assert n.grid_dims(n.problem_dims("num_blocks", red), red, [[], None, None],
                       names) == (1024, 1, 1)
    # spmv.py: a divisor expression.
    sp = {"block_size_x": 64, "threads_per_row": 32}
    assert n.grid_dims(n.problem_dims(131072, sp), sp, [["block_size_x/threads_per_row"],
                                                        None, None], names) == (65536, 1, 1)
    # a block name not tuned: 256, 1, 1
    assert n.block_dims({}, names) == (256, 1, 1)
    src = "__global__ void k() {\n    #pragma unroll loop_unroll_factor_0\n    for(;;);}"
    text = n.prefixed(src, {"loop_unroll_factor_0": 0, "vector": 2}, (4, 1, 1), (128, 1, 1),
                      names, None)
    assert "#define grid_size_x 4" in text and "#define block_size_x 128" in text
    assert "#define vector 2" in text and "#define kernel_tuner 1" in text
    assert "#pragma unroll" not in text and text.endswith("for(;;);}")
    text = n.prefixed(src, {"loop_unroll_factor_0": 8}, (1, 1, 1), (1, 1, 1), names, None)
    assert "constexpr int loop_unroll_factor_0 = 8;" in text and "#pragma unroll" in text
