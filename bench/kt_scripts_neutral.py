# SPDX-License-Identifier: Apache-2.0
"""The neutral harness of bench/kernel_tuner_scripts.py: re-times the two
tools' answers to one tune_kernel call of a Kernel Tuner script with
neither tool's code, through CuPy alone.

The protocol is bench/hub/neutral.cu's (the hub benchmark's harness): an
L2 flush before each sample (a write of a 256 MiB buffer), CUDA events
around one launch, the median of --samples launches after --warmups; the
two answers run in alternating rounds, so drift between them cancels. The
kernel is built as Kernel Tuner documents its CUDA kernels are built
(tune_kernel's docs): the source with `#define` lines for grid_size_x/y/z,
the block's names, every parameter and kernel_tuner=1 in front
(loop_unroll_factor_* parameters as `constexpr int`, 0 removing their
`#pragma unroll`), compiled by NVRTC with the call's compiler_options and
--std=c++11 where they set no standard; the grid is ceil(problem_size /
product(grid_div)) per dimension with Kernel Tuner's defaults (divisor:
the block's size in that dimension; block 256, 1, 1 where a block name is
not a parameter). After the first launch of each answer its outputs are
checked where the call gave `answer` (its verify callable, else
numpy.allclose with atol); the verdict is recorded, not enforced.

neutral_call returns Kernel Tuner's (results, env) over the timed answers,
so that a script that goes on with its results (reduction.py, expdist.py)
can.
"""
from __future__ import annotations

import math
import os
import re
import time
from typing import Any, Callable, Optional

SAMPLES = int(os.environ.get("KT_NEUTRAL_SAMPLES", "50"))
WARMUPS = 3
FLUSH_BYTES = 256 << 20
BLOCK_DEFAULTS = (256, 1, 1)
BLOCK_NAMES = ("block_size_x", "block_size_y", "block_size_z")


def _value(expr: Any, params: dict) -> int:
    """An int, a callable of the parameters, or an expression over them
    (Kernel Tuner's strings: Python syntax, parameter names)."""
    if callable(expr):
        return int(expr(params))
    if isinstance(expr, str):
        return int(eval(expr, {"__builtins__": {}}, dict(params)))  # noqa: S307 the script's own expression
    return int(expr)


def problem_dims(problem_size: Any, params: dict) -> list[int]:
    if callable(problem_size):
        problem_size = problem_size(params)
    if not isinstance(problem_size, (list, tuple)):
        problem_size = [problem_size]
    dims = [_value(s, params) for s in problem_size]
    return dims + [1] * (3 - len(dims))


def block_dims(params: dict, names: list[str]) -> tuple[int, int, int]:
    return tuple(int(params.get(n, d)) for n, d in zip(names, BLOCK_DEFAULTS))


def grid_dims(dims: list[int], params: dict, grid_div: list, names: list[str]) -> tuple:
    out = []
    for i in range(3):
        div = grid_div[i]
        if div is None:
            d = int(params.get(names[i], 1))
        elif isinstance(div, (list, tuple)):
            d = 1
            for x in div:
                d *= _value(x, params)
        else:
            d = _value(div, params)
        out.append(int(math.ceil(dims[i] / float(d))))
    return tuple(out)


def source_of(kernel_source: Any) -> str:
    """The main source: a file name (or a list whose first entry is the
    main file) or the code itself."""
    first = kernel_source[0] if isinstance(kernel_source, (list, tuple)) else kernel_source
    text = str(first)
    if "\n" not in text and os.path.isfile(text):
        with open(text, encoding="utf-8") as f:
            return f.read()
    return text


def prefixed(source: str, params: dict, grid: tuple, block: tuple, names: list[str],
             defines: Optional[dict]) -> str:
    if defines is None:
        defines = {}
        for n, g in zip(("grid_size_x", "grid_size_y", "grid_size_z"), grid):
            defines[n] = g
        for n, b in zip(names, block):
            defines[n] = b
        defines.update(params)
        defines["kernel_tuner"] = 1
    lines = []
    for k, v in defines.items():
        v = v(params) if callable(v) else v
        if "loop_unroll_factor" in k:
            if str(v) == "0":
                source = re.sub(r"\n\s*#pragma\s+unroll\s+" + k, "\n", source)
            else:
                lines.append(f"constexpr int {k} = {v};")
        else:
            lines.append(f"#define {k} {v}")
    return "\n".join(lines) + "\n#line 1\n" + source


class Instance:
    """One answer compiled, its arguments on the device, ready to launch."""

    def __init__(self, cp: Any, a: dict, params: dict, dev_args: list):
        names = list(a.get("block_size_names") or BLOCK_NAMES)
        names += list(BLOCK_NAMES[len(names):])
        dims = problem_dims(a["problem_size"], params)
        self.block = block_dims(params, names)
        self.grid = grid_dims(dims, params,
                              [a.get("grid_div_x"), a.get("grid_div_y"), a.get("grid_div_z")],
                              names)
        src = prefixed(source_of(a["kernel_source"]), params, self.grid, self.block, names,
                       a.get("defines"))
        opts = list(a.get("compiler_options") or [])
        if not any("-std=" in o for o in opts):
            opts = ["--std=c++11"] + opts
        name = a["kernel_name"]
        t0 = time.perf_counter()
        self.module = cp.RawModule(code=src, options=tuple(opts), name_expressions=[name])
        self.func = self.module.get_function(name)
        self.compile_s = time.perf_counter() - t0
        for k, v in (a.get("cmem_args") or {}).items():
            sym = self.module.get_global(k)
            cp.ndarray(v.shape, v.dtype, sym)[:] = cp.asarray(v)
        smem = (a.get("smem_args") or {}).get("size", 0)
        self.smem = _value(smem, params) if smem else 0
        self.args = dev_args

    def launch(self, stream: Any) -> None:
        self.func(self.grid, self.block, self.args, stream=stream, shared_mem=self.smem)


def _check(cp: Any, a: dict, dev_args: list) -> Optional[str]:
    """The outputs against the call's answer: None (no answer), "ok" or
    "mismatch"."""
    import numpy as np
    answer = a.get("answer")
    if answer is None:
        return None
    got = [cp.asnumpy(x) if isinstance(x, cp.ndarray) else x for x in dev_args]
    verify: Optional[Callable] = a.get("verify")
    atol = a.get("atol", 1e-6)
    if verify is not None:
        try:
            good = verify(answer, got, atol=atol)
        except TypeError:
            good = verify(answer, got)
        return "ok" if bool(np.all(good)) else "mismatch"
    for want, have in zip(answer, got):
        if want is not None and not np.allclose(np.asarray(want).ravel(),
                                                np.asarray(have).ravel()[:np.asarray(want).size],
                                                atol=atol):
            return "mismatch"
    return "ok"


def neutral_call(a: dict, answers: list, write: Callable[[dict], None],
                 call: int) -> tuple[list, dict]:
    """Times the answers of this call ({"kernel_tuner": params or None,
    "ktune": params or None}), records them with write and returns Kernel
    Tuner's (results, env) over them."""
    import cupy as cp
    import numpy as np
    mine = answers[0] if answers else {}
    configs: dict[str, dict] = {}
    for tool in ("kernel_tuner", "ktune"):
        p = mine.get(tool)
        if p is not None:
            configs.setdefault(repr(sorted(p.items())), {"params": p, "tools": []})["tools"].append(tool)
    host = list(a.get("arguments") or [])
    insts, rec = [], {"event": "neutral", "call": call, "kernel_name": a.get("kernel_name"),
                      "samples": SAMPLES, "warmups": WARMUPS, "flush_mib": FLUSH_BYTES >> 20,
                      "configs": []}
    stream = cp.cuda.Stream(non_blocking=True)
    for c in configs.values():
        dev = [cp.asarray(x) if isinstance(x, np.ndarray) else x for x in host]
        entry = {"params": c["params"], "tools": c["tools"]}
        try:
            inst = Instance(cp, a, c["params"], dev)
            with stream:
                inst.launch(stream)
            stream.synchronize()
            entry["check"] = _check(cp, a, dev)
            entry["compile_s"] = inst.compile_s
            insts.append((inst, entry, []))
        except Exception as e:  # noqa: BLE001 -- one answer's failure is recorded
            entry["error"] = f"{type(e).__name__}: {e}"[:500]
        rec["configs"].append(entry)
    with stream:
        flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for r in range(WARMUPS + SAMPLES):
        for inst, entry, times in insts:
            with stream:  # the flush too: a non-blocking stream waits for nothing else
                flush.fill(r & 0xFF)
                start.record(stream)
                inst.launch(stream)
                end.record(stream)
            end.synchronize()
            if r >= WARMUPS:
                times.append(cp.cuda.get_elapsed_time(start, end))
    results = []
    for inst, entry, times in insts:
        entry["median_ms"] = float(np.median(times))
        entry["min_ms"] = float(np.min(times))
        entry["q1_ms"], entry["q3_ms"] = (float(x) for x in np.percentile(times, [25, 75]))
        row = dict(entry["params"])
        row.update({"time": entry["median_ms"], "times": times})
        results.append(row)
    write(rec)
    return results, {"neutral": rec}
