# SPDX-License-Identifier: Apache-2.0
"""Results of a run as plain Python objects.

A :class:`Result` is read out of libktune's result once, through its typed
accessors (each point, the best) and its JSON document (everything else:
environment, protocol, search path, summary), then owns no C memory.
"""
from __future__ import annotations

import ctypes
import json
import os
import tempfile
from typing import Any, Optional

from . import _lib
from ._errors import KtuneError

__all__ = ["Result", "STATS"]

# ktune_stat (include/ktune/ktune.h) -> the key each point's dict uses.
STATS = ("median_us", "ci_lo_us", "ci_hi_us", "noise", "samples", "min_us",
         "mean_us", "stddev_us", "compile_s", "energy_j")


def _stats(getter: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    v = ctypes.c_double()
    for code, key in enumerate(STATS):
        if getter(code, ctypes.byref(v)) == _lib.OK:
            out[key] = int(v.value) if key == "samples" else v.value
    return out


def _point(L: ctypes.CDLL, r: Any, i: int) -> dict[str, Any]:
    p: dict[str, Any] = {
        "variant": _lib.s(L.ktune_result_point_variant(r, i)),
        "config": _lib.s(L.ktune_result_point_config(r, i)),
        "status": _lib.s(L.ktune_result_point_status(r, i)),
        "reason": _lib.s(L.ktune_result_point_reason(r, i)),
    }
    for j in range(L.ktune_result_point_num_params(r, i)):
        name = _lib.s(L.ktune_result_point_param_name(r, i, j))
        p[name] = int(L.ktune_result_point_param_value(r, i, j))
    p.update(_stats(lambda code, out: L.ktune_result_point_stat(r, i, code, out)))
    n = L.ktune_result_point_samples(r, i, None, 0)
    if n:
        buf = (ctypes.c_double * n)()
        L.ktune_result_point_samples(r, i, buf, n)
        p["times_us"] = list(buf)
    return p


def _best(L: ctypes.CDLL, r: Any, doc: dict[str, Any]) -> Optional[dict[str, Any]]:
    if not L.ktune_result_has_best(r):
        return None
    best: dict[str, Any] = {
        "variant": _lib.s(L.ktune_result_best_variant(r)),
        "config": _lib.s(L.ktune_result_best_config(r)),
    }
    params = (doc.get("best") or {}).get("params")
    if isinstance(params, dict):
        # The document's values as recorded: another tool's recording may
        # hold strings ("null"), which the integer accessor cannot give.
        best.update(params)
    else:
        for j in range(L.ktune_result_best_num_params(r)):
            name = _lib.s(L.ktune_result_best_param_name(r, j))
            best[name] = int(L.ktune_result_best_param_value(r, j))
    best.update(_stats(lambda code, out: L.ktune_result_best_stat(r, code, out)))
    return best


def _top_points(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The document's "top" entries as points: a replay of another tool's
    recording keeps no journal, so libktune has no per-point list then."""
    out = []
    for t in doc.get("top") or []:
        if not isinstance(t, dict):
            continue
        p: dict[str, Any] = {"variant": t.get("variant", ""),
                             "config": t.get("config", ""), "status": "ok",
                             "reason": ""}
        p.update(t.get("params") or {})
        p.update({k: t[k] for k in STATS if k in t})
        out.append(p)
    return out


class Result:
    """What one run (tune, replay, bench, profile, check) found.

    Attributes:
        kind: "ktune.tune", "ktune.bench", "ktune.profile" or "ktune.check"
            (a replay is a tune answered from a recording).
        points: every evaluation in search order, one dict each: "variant",
            "config", "status" ("ok", "invalid", "failed", ...), "reason",
            the parameters by name, and where measured "median_us",
            "ci_lo_us"/"ci_hi_us" (the median's confidence interval),
            "noise", "samples", "min_us", "mean_us", "stddev_us",
            "compile_s", "energy_j" and the raw samples "times_us".
        best: the verified best as such a dict, or None when none was found.
        document: the whole result as the ktune command's ``--json``
            writes it (docs/schemas/), the source of everything else.
        space: for a check, (points of the space, feasible points after
            the restrictions); None for other runs.
        points_are_top: True when ``points`` holds only the run's best
            few (the document's "top"): a replay of another tool's
            recording keeps no journal, so the search path is not there.
    """

    def __init__(self, document: dict[str, Any], points: list[dict[str, Any]],
                 best: Optional[dict[str, Any]]) -> None:
        self.document = document
        self.points = points
        self.best = best
        self.kind: str = str(document.get("kind", ""))
        self.space: Optional[tuple[int, int]] = None
        self.points_are_top = False

    @classmethod
    def _take(cls, handle: Any) -> "Result":
        """Reads a ktune_result and frees it."""
        L = _lib.lib()
        try:
            doc = json.loads(_lib.s(L.ktune_result_json(handle)) or "{}")
            if not doc.get("kind"):
                doc["kind"] = _lib.s(L.ktune_result_kind(handle))
            points = [_point(L, handle, i)
                      for i in range(L.ktune_result_num_points(handle))]
            from_top = not points and bool(doc.get("top"))
            if from_top:
                points = _top_points(doc)
            best = _best(L, handle, doc)
        finally:
            L.ktune_result_free(handle)
        res = cls(doc, points, best)
        res.points_are_top = from_top
        return res

    @property
    def env(self) -> dict[str, Any]:
        """The environment the numbers were measured in (device, driver,
        clocks, toolkit, ktune's version), as recorded with them."""
        env = self.document.get("environment")
        return env if isinstance(env, dict) else {}

    @property
    def ok_points(self) -> list[dict[str, Any]]:
        """The points that verified and were measured."""
        return [p for p in self.points if p.get("status") == "ok"]

    def to_pandas(self) -> Any:
        """The points as a pandas DataFrame (one row per evaluation, in
        search order; raw samples left out). Needs pandas."""
        try:
            import pandas as pd  # type: ignore
        except ImportError as e:
            raise ImportError("Result.to_pandas() needs pandas "
                              "(pip install pandas)") from e
        rows = [{k: v for k, v in p.items() if k != "times_us"}
                for p in self.points]
        return pd.DataFrame(rows)

    def to_json(self, path: Optional[str] = None) -> str:
        """The result's document as JSON text (what ``ktune tune --json``
        writes, the input of ``ktune report`` and ``ktune diff``); written
        to path when given."""
        text = json.dumps(self.document, indent=2)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        return text

    def report_html(self) -> str:
        """The self-contained HTML report ``ktune report`` makes of this
        result (plots, the search path, the environment), rendered by
        libktune in this process (ktune_report; no program is started)."""
        L = _lib.lib()
        S = _lib.new_session()
        try:
            with tempfile.TemporaryDirectory(prefix="ktune-report-") as d:
                out = os.path.join(d, "report.html")
                _lib.check(L.ktune_report(S, self.to_json().encode(),
                                          out.encode()), S, "ktune_report")
                with open(out, encoding="utf-8") as f:
                    return f.read()
        finally:
            L.ktune_session_free(S)

    def _repr_html_(self) -> str:
        """Jupyter shows the HTML report inline; a summary where the report
        cannot be made (a check's result has none)."""
        if self.kind == "ktune.check":
            return f"<pre>{_escape(repr(self))}</pre>"
        try:
            return self.report_html()
        except KtuneError as e:
            return f"<pre>{_escape(repr(self))}\n(no report: {_escape(str(e))})</pre>"

    def __repr__(self) -> str:
        head = f"<ktune {self.kind or 'result'}: {len(self.points)} points"
        b = self.best
        if b is None:
            return head + ", no verified best>"
        t = ""
        if "median_us" in b:
            t = f": {b['median_us']:.3f} us"
            if "ci_lo_us" in b and "ci_hi_us" in b:
                t += f" [{b['ci_lo_us']:.3f}, {b['ci_hi_us']:.3f}]"
        return f"{head}, best {b['config']}{t}>"


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;"))
