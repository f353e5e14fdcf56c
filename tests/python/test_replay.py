# SPDX-License-Identifier: Apache-2.0
"""Replays of recordings in tests/data (no GPU): a Kernel Tuner cache and
T4 results give results in the same Python shape, one seed gives one
answer, a ktune journal needs its declaration (the CLI's rule, with its
message), and the report renders."""
from __future__ import annotations

import json

import pytest

import ktune

pytestmark = pytest.mark.usefixtures("libktune")

JOURNAL = "vector_add-h200-n1048576.jsonl"
KT_CACHE = "kt/vector_add-h200-n1048576.cache.json.gz"
T4 = "kt/vector_add-h200-n1048576.t4.json"


@pytest.mark.parametrize("name", [KT_CACHE, T4])
def test_replay_finds_a_best_with_its_interval(data_dir, name):
    r = ktune.replay(data_dir / name, "random", max_evals=20, seed=3)
    assert r.kind == "ktune.tune"
    assert r.points and r.best is not None
    b = r.best
    assert b["ci_lo_us"] <= b["median_us"] <= b["ci_hi_us"]
    assert b["config"]
    json.dumps(r.points)


def test_one_seed_gives_one_answer(data_dir):
    runs = [ktune.replay(data_dir / KT_CACHE, "random", max_evals=15, seed=11)
            for _ in range(2)]
    assert runs[0].best == runs[1].best
    assert runs[0].document["evaluations"] == runs[1].document["evaluations"]


def test_replay_points_carry_parameters(data_dir):
    r = ktune.replay(data_dir / KT_CACHE, "exhaustive")
    assert r.points and all("block" in p and p["median_us"] > 0 for p in r.points)
    assert all(p["status"] and p["config"] for p in r.points)


def test_ktune_journal_needs_its_declaration(data_dir):
    with pytest.raises(ktune.KtuneInputError, match="replays with its job"):
        ktune.replay(data_dir / JOURNAL)


def test_replay_to_pandas(data_dir):
    pytest.importorskip("pandas")
    df = ktune.replay(data_dir / KT_CACHE, "exhaustive").to_pandas()
    assert {"config", "status", "median_us"} <= set(df.columns)


def test_missing_recording_is_input_error(tmp_path):
    with pytest.raises(ktune.KtuneInputError, match="no such file"):
        ktune.replay(tmp_path / "missing.jsonl")


def test_unknown_strategy_gets_ktunes_message(data_dir):
    with pytest.raises(ktune.KtuneInputError, match="strategy"):
        ktune.replay(data_dir / KT_CACHE, "no_such_strategy")


def test_report_renders_inline_for_jupyter(data_dir, monkeypatch):
    r = ktune.replay(data_dir / KT_CACHE, "exhaustive")
    # Rendered by libktune in process: no ktune program is started.
    import subprocess
    monkeypatch.setattr(subprocess, "run", None)
    monkeypatch.setattr(subprocess, "Popen", None)
    html = r._repr_html_()
    assert "<html" in html.lower() and "</html>" in html.lower(), html[:300]


def test_verbose_lines_reach_pythons_stderr(data_dir, capsys):
    ktune.replay(data_dir / KT_CACHE, "exhaustive", verbose=True)
    err = capsys.readouterr().err
    assert "ktune tune" in err or "best" in err.lower(), err[-2000:]


def test_quiet_run_prints_nothing(data_dir, capsys):
    ktune.replay(data_dir / KT_CACHE, "exhaustive")
    assert capsys.readouterr().err == ""
