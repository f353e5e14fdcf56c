# SPDX-License-Identifier: Apache-2.0
"""Replays of recordings in tests/data (no GPU): a ktune journal, a Kernel
Tuner cache and T4 results give results in the same Python shape, one
seed gives one search path, and the report renders."""
from __future__ import annotations

import json

import pytest

import ktune

pytestmark = pytest.mark.usefixtures("libktune")

JOURNAL = "vector_add-h200-n1048576.jsonl"
KT_CACHE = "kt/vector_add-h200-n1048576.cache.json.gz"
T4 = "kt/vector_add-h200-n1048576.t4.json"


@pytest.mark.parametrize("name", [JOURNAL, KT_CACHE, T4])
def test_replay_finds_a_best_with_its_interval(data_dir, name):
    r = ktune.replay(data_dir / name, "random", max_evals=20, seed=3)
    assert r.kind == "ktune.tune"
    assert r.points and r.best is not None
    b = r.best
    assert b["ci_lo_us"] <= b["median_us"] <= b["ci_hi_us"]
    assert b["config"]
    json.dumps(r.points)


def test_one_seed_gives_one_search_path(data_dir):
    runs = [ktune.replay(data_dir / JOURNAL, "random", max_evals=15, seed=11)
            for _ in range(2)]
    paths = [[p["config"] for p in r.points] for r in runs]
    assert paths[0] == paths[1] and len(paths[0]) > 1


def test_replay_points_carry_parameters_and_status(data_dir):
    r = ktune.replay(data_dir / JOURNAL, "exhaustive")
    ok = r.ok_points
    assert ok and all("block" in p and p["median_us"] > 0 for p in ok)
    assert all(p["status"] and p["config"] for p in r.points)


def test_replay_to_pandas(data_dir):
    pytest.importorskip("pandas")
    df = ktune.replay(data_dir / JOURNAL, "exhaustive").to_pandas()
    assert {"config", "status", "median_us"} <= set(df.columns)


def test_missing_recording_is_input_error(tmp_path):
    with pytest.raises(ktune.KtuneInputError, match="no such file"):
        ktune.replay(tmp_path / "missing.jsonl")


def test_unknown_strategy_gets_ktunes_message(data_dir):
    with pytest.raises(ktune.KtuneInputError, match="strategy"):
        ktune.replay(data_dir / JOURNAL, "no_such_strategy")


def test_report_renders_inline_for_jupyter(data_dir):
    r = ktune.replay(data_dir / JOURNAL, "exhaustive")
    html = r._repr_html_()
    assert "<html" in html.lower() or "<svg" in html.lower()
