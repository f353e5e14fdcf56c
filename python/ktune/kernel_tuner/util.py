# SPDX-License-Identifier: Apache-2.0
"""The helpers of Kernel Tuner's ``kernel_tuner.util`` that scripts import,
written for ktune's results (which have Kernel Tuner's shape)."""
from __future__ import annotations

import sys
from typing import Any, Iterable, Mapping, Optional

__all__ = ["ErrorConfig", "InvalidConfig", "CompilationFailedConfig",
           "RuntimeFailedConfig", "get_config_string", "get_best_config"]


class ErrorConfig(str):
    """The value of ``time`` (and the metrics) of a point that has no time;
    a str, so results stay JSON-serialisable, as in Kernel Tuner."""

    def __new__(cls) -> "ErrorConfig":
        return super().__new__(cls, cls.__name__)


class InvalidConfig(ErrorConfig):
    """The point cannot run on the device (too many threads, too much
    shared memory, a launch the driver refuses)."""


class CompilationFailedConfig(ErrorConfig):
    """The point's kernel did not compile."""


class RuntimeFailedConfig(ErrorConfig):
    """The point failed while running or verifying (a fault, a timeout,
    a wrong answer)."""


def _compact(v: Any) -> str:
    return f"{round(v, 3):.3f}" if isinstance(v, float) else str(v)


def get_config_string(params: Mapping[str, Any],
                      keys: Optional[Iterable[str]] = None,
                      units: Optional[Mapping[str, str]] = None) -> str:
    """``"name=value, name=value"`` of a configuration or result (floats to
    three decimals), limited to ``keys`` when given, each value followed by
    its unit from ``units``."""
    wanted = set(params) if keys is None else set(keys)
    parts = []
    for k, v in params.items():
        if k not in wanted:
            continue
        unit = ""
        if isinstance(units, Mapping) and not isinstance(v, ErrorConfig):
            unit = units.get(k, "")
        parts.append(f"{k}={_compact(v)}{unit}")
    return ", ".join(parts)


def get_best_config(results: list[dict[str, Any]], objective: str,
                    objective_higher_is_better: bool = False) -> dict[str, Any]:
    """The result with the best ``objective`` (lowest, or highest when
    objective_higher_is_better); points without a number are never best."""
    worst = -sys.float_info.max if objective_higher_is_better else sys.float_info.max

    def score(r: dict[str, Any]) -> float:
        v = r.get(objective)
        return v if isinstance(v, float) and "__error__" not in r else worst

    pick = max if objective_higher_is_better else min
    return pick(results, key=score)
