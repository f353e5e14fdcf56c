#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs one unmodified Kernel Tuner script for bench/kernel_tuner_scripts.py
and records each tune_kernel call it makes (JSON lines, --record).

    python3 kt_scripts_launch.py --tool kernel_tuner|ktune|neutral \\
        --record REC.jsonl [--deadline EPOCH] [--answers A.json] \\
        -- SCRIPT.py [ARGS] | -- -m MODULE [ARGS]   (or SCRIPT.py last, alone)

--tool kernel_tuner: `import kernel_tuner` is Kernel Tuner 1.5.0 (on the
path); ktune: ktune answers it, as `python -m ktune.kernel_tuner` does;
neutral: ktune's module answers the helpers, and tune_kernel times the two
tools' answers for that call (--answers) in bench/kt_scripts_neutral.py
instead of tuning, so the script's own set-up makes the arguments.

What the wrapper adds to a call, only where the script gave none: for
ktune, strategy_options time_limit, the seconds left to --deadline less a
margin, so that it ends by itself within the wall limit both tools have;
for Kernel Tuner a cache file (cache=), so that a run the driver kills at
the deadline leaves its evaluations and best so far (its brute force
refuses time_limit: ValueError "Unrecognized option time_limit"). Nothing
else of the call changes.
"""
from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import runpy
import sys
import time
from typing import Any, Optional

# Seconds a call keeps for its closing (re-measurement, results) under
# its time_limit, so that it ends before the driver's deadline.
MARGIN_S = 4.0


def _params_of(row: dict, keys: list[str]) -> dict:
    return {k: _plain(row[k]) for k in keys if k in row}


def _plain(x: Any) -> Any:
    if hasattr(x, "item") and not isinstance(x, (list, tuple, dict)):
        try:
            return x.item()
        except (TypeError, ValueError):
            return str(x)
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def best_of(results: list, keys: list[str], objective: str = "time",
            higher: bool = False) -> tuple[int, Optional[dict], Optional[float]]:
    """(valid count, the best configuration's parameters, its objective)
    of a Kernel Tuner results list (errors have a non-number objective)."""
    valid = [r for r in results if isinstance(r.get(objective), (int, float))
             and not isinstance(r.get(objective), bool)
             and math.isfinite(float(r[objective]))]
    if not valid:
        return 0, None, None
    pick = max if higher else min
    b = pick(valid, key=lambda r: float(r[objective]))
    return len(valid), _params_of(b, keys), float(b[objective])


class Recorder:
    def __init__(self, path: str, tool: str, deadline: float, cache_dir: str,
                 answers: Optional[list]):
        self.path, self.tool, self.deadline = path, tool, deadline
        self.cache_dir, self.answers, self.calls = cache_dir, answers, 0

    def write(self, rec: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")

    def wrap(self, original: Any) -> Any:
        sig = inspect.signature(original)

        def tune_kernel(*args: Any, **kwargs: Any) -> Any:
            call = self.calls
            self.calls += 1
            bound = sig.bind(*args, **kwargs)
            a = bound.arguments
            keys = list(a.get("tune_params") or {})
            start = {"event": "start", "call": call, "kernel_name": a.get("kernel_name"),
                     "tune_params": {k: _plain(list(v)) for k, v in
                                     (a.get("tune_params") or {}).items()},
                     "wall": time.time()}
            if self.tool != "neutral":
                added = self.add_budget(a, call)
                start["added"] = added
            self.write(start)
            if self.tool == "neutral":
                from kt_scripts_neutral import neutral_call
                out = neutral_call(a, (self.answers or [])[call:call + 1], self.write,
                                   call)
                return out
            t0 = time.perf_counter()
            results, env = original(*bound.args, **bound.kwargs)
            n_valid, best, obj = best_of(results, keys, a.get("objective") or "time",
                                         bool(a.get("objective_higher_is_better")))
            self.write({"event": "end", "call": call, "wall_s": time.perf_counter() - t0,
                        "evaluations": len(results), "valid": n_valid,
                        "best": best, "best_time_ms": obj,
                        "ktune_stop": (env.get("ktune_best") or {}).get("stop_reason")
                        if isinstance(env, dict) and isinstance(env.get("ktune_best"), dict)
                        else None})
            return results, env

        return tune_kernel

    def add_budget(self, a: dict, call: int) -> dict:
        """The wrapper's additions (see the module's doc)."""
        added: dict = {}
        opts = dict(a.get("strategy_options") or {})
        if self.tool == "ktune" and self.deadline and "time_limit" not in opts:
            opts["time_limit"] = max(1.0, self.deadline - time.time() - MARGIN_S)
            a["strategy_options"] = opts
            added["time_limit"] = round(opts["time_limit"], 1)
        if self.tool == "kernel_tuner" and not a.get("cache") and self.cache_dir:
            a["cache"] = os.path.join(self.cache_dir, f"call{call}.json")
            added["cache"] = a["cache"]
        return added


def main(argv: Optional[list] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, choices=["kernel_tuner", "ktune", "neutral"])
    ap.add_argument("--record", required=True)
    ap.add_argument("--deadline", type=float, default=0.0,
                    help="epoch seconds the run must end by (0: none)")
    ap.add_argument("--cache-dir", default="", help="Kernel Tuner's cache files")
    ap.add_argument("--answers", help="neutral: JSON list, per call, of the answers")
    args = list(sys.argv[1:] if argv is None else argv)
    # What follows "--" (or the first argument not an option of ours) is
    # the script's command line, "-m MODULE ..." included.
    cut = args.index("--") if "--" in args else None
    o = ap.parse_args(args[:cut] if cut is not None else args[:-1] if args else [])
    o.rest = args[cut + 1:] if cut is not None else args[-1:]
    if not o.rest:
        ap.error("a script (or -m MODULE) is required")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if o.tool in ("ktune", "neutral"):
        from ktune.kernel_tuner.__main__ import install
        install()
    import kernel_tuner  # the real one, or ktune's after install()
    answers = None
    if o.answers:
        with open(o.answers, encoding="utf-8") as f:
            answers = json.load(f)
    rec = Recorder(o.record, o.tool, o.deadline, o.cache_dir, answers)
    kernel_tuner.tune_kernel = rec.wrap(kernel_tuner.tune_kernel)
    if hasattr(kernel_tuner, "interface"):
        kernel_tuner.interface.tune_kernel = kernel_tuner.tune_kernel
    rec.write({"event": "begin", "tool": o.tool, "wall": time.time(),
               "kernel_tuner": getattr(kernel_tuner, "__version__", None),
               "module": kernel_tuner.__name__})
    if o.rest[0] == "-m":
        sys.argv = o.rest[1:]
        runpy.run_module(o.rest[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(o.rest)
        sys.path.insert(0, os.path.dirname(os.path.abspath(o.rest[0])))
        runpy.run_path(o.rest[0], run_name="__main__")


if __name__ == "__main__":
    main()
