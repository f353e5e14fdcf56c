# SPDX-License-Identifier: Apache-2.0
"""``kernel_tuner.file_utils``: the T4 files Kernel Tuner's examples write
(results and metadata), from results in Kernel Tuner's shape.

The format is T4 1.0.0 (docs/schemas/t4-results.schema.json and
t4-metadata.schema.json): these functions convert the caller's Python
list, so they work on results a script changed after tuning.
"""
from __future__ import annotations

import json
import platform
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

from .util import CompilationFailedConfig, ErrorConfig, InvalidConfig

__all__ = ["store_output_file", "store_metadata_file"]

_TIMES = {"compile_time": "compilation", "verification_time": "validation",
          "framework_time": "framework", "strategy_time": "search_algorithm"}


def _json_name(name: str) -> str:
    return name if name.endswith(".json") else name + ".json"


def _invalidity(time: Any) -> str:
    if isinstance(time, CompilationFailedConfig):
        return "compile"
    if isinstance(time, InvalidConfig):
        return "constraints"
    if isinstance(time, ErrorConfig):
        return "runtime"
    return "correct"


def _t4_result(r: Mapping[str, Any], tune_params: Mapping[str, Any],
               objective: str) -> dict[str, Any]:
    runtimes = [float(t) for t in r.get("times", [])]
    times: dict[str, Any] = {t4: float(r.get(k, 0.0) or 0.0)
                             for k, t4 in _TIMES.items()}
    times["runtimes"] = runtimes
    times["benchmark"] = list(runtimes)
    measurements = [{"name": k, "value": v, "unit": "ms" if k == "time" else ""}
                    for k, v in r.items()
                    if k not in tune_params and k not in _TIMES
                    and k not in ("times", "timestamp", "benchmark_time")
                    and isinstance(v, (int, float)) and not isinstance(v, bool)]
    return {
        "timestamp": str(r.get("timestamp") or
                         datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")),
        "configuration": {k: r[k] for k in tune_params if k in r},
        "objectives": [objective],
        "times": times,
        "invalidity": _invalidity(r.get("time")),
        "correctness": 1,
        "measurements": measurements,
    }


def store_output_file(output_filename: str, results: Sequence[Mapping[str, Any]],
                      tune_params: Mapping[str, Any], objective: str = "time") -> None:
    """Writes results as a T4 results file (``.json`` appended when
    missing), times in milliseconds."""
    doc = {"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"},
           "results": [_t4_result(r, tune_params, objective) for r in results]}
    with open(_json_name(output_filename), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)


def store_metadata_file(metadata_filename: str) -> None:
    """Writes a T4 metadata file: the operating system, the machine and
    what produced the results (ktune's version, as name==version)."""
    from .. import __version__, _lib
    try:
        lib_version = _lib.s(_lib.lib().ktune_version(None, None, None))
    except Exception:  # the metadata is written with what is known
        lib_version = "unknown"
    doc = {"schema_version": "1.0.0", "metadata": {
        "operating_system": platform.system(),
        "hardware": {"operating_system": platform.platform(),
                     "hardware_description": [{"class": "processor",
                                               "product": platform.processor() or
                                               platform.machine()}]},
        "environment": {"device_query": {},
                        "requirements": [f"ktune=={__version__}",
                                         f"libktune=={lib_version}"]}}}
    with open(_json_name(metadata_filename), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
