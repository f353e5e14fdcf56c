# SPDX-License-Identifier: Apache-2.0
"""Result objects (no library, no GPU): plain points, the best, the
environment, JSON and pandas conversion."""
from __future__ import annotations

import json

import pytest

import ktune

POINTS = [
    {"variant": "k", "config": "k block_size_x=32", "status": "ok", "reason": "",
     "block_size_x": 32, "median_us": 10.0, "ci_lo_us": 9.5, "ci_hi_us": 10.5,
     "samples": 30, "times_us": [10.0, 9.9, 10.1]},
    {"variant": "k", "config": "k block_size_x=2048", "status": "invalid",
     "reason": "block of 2048 threads", "block_size_x": 2048},
]
BEST = dict(POINTS[0])
DOC = {"kind": "ktune.tune", "environment": {"device": {"name": "NVIDIA H200"}}}


def make() -> ktune.Result:
    return ktune.Result(dict(DOC), [dict(p) for p in POINTS], dict(BEST))


def test_result_holds_points_best_and_environment():
    r = make()
    assert r.kind == "ktune.tune"
    assert [p["status"] for p in r.points] == ["ok", "invalid"]
    assert r.ok_points == [r.points[0]]
    assert r.best["block_size_x"] == 32
    assert r.env["device"]["name"] == "NVIDIA H200"


def test_repr_names_the_best_with_its_interval():
    text = repr(make())
    assert "2 points" in text and "10.000 us [9.500, 10.500]" in text


def test_repr_says_when_nothing_verified():
    r = ktune.Result({"kind": "ktune.tune"}, [], None)
    assert "no verified best" in repr(r)


def test_to_json_writes_the_document(tmp_path):
    path = tmp_path / "r.json"
    make().to_json(str(path))
    assert json.loads(path.read_text())["kind"] == "ktune.tune"


def test_points_are_json_serialisable():
    json.dumps(make().points)


def test_to_pandas_gives_one_row_per_point():
    pd = pytest.importorskip("pandas")
    df = make().to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert len(df) == 2 and "times_us" not in df.columns
    assert df.loc[0, "median_us"] == 10.0
