# SPDX-License-Identifier: Apache-2.0
"""Declarations through libktune, checked without a GPU: the space is
counted as the CLI counts it, and bad input is refused with ktune's own
message as a ValueError subclass."""
from __future__ import annotations

import pytest

import ktune
from kernels import BLOCKS, VECTOR_ADD, vector_add_args

pytestmark = pytest.mark.usefixtures("libktune")


def vector_add(**kw) -> ktune.Kernel:
    c, a, b, n = vector_add_args(1 << 12)
    decl = dict(problem_size=int(n), answer=[a + b, None, None, None])
    decl.update(kw)
    return ktune.Kernel("vector_add", VECTOR_ADD, [ktune.Out(c), a, b, n],
                        {"block_size_x": BLOCKS}, **decl)


def test_check_counts_the_declared_space():
    r = vector_add().check()
    assert r.kind == "ktune.check"
    assert r.space == (20, 20)


def test_restriction_removes_points_from_the_space():
    r = vector_add(restrictions=["block_size_x % 64 == 0"]).check()
    assert r.space == (20, 10)


def test_python_spelling_of_a_restriction_gets_ktunes_message():
    with pytest.raises(ktune.KtuneInputError, match=r"'or' is written '\|\|'"):
        vector_add(restrictions=["block_size_x == 32 or block_size_x == 64"]).check()


def test_unknown_name_in_the_geometry_is_refused():
    with pytest.raises(ValueError, match="block_size_y"):
        vector_add(block="block_size_x, block_size_y").check()


def test_answer_must_have_one_entry_per_argument():
    c, a, b, n = vector_add_args(64)
    with pytest.raises(ktune.KtuneInputError, match="answer has 2 entries"):
        ktune.Kernel("vector_add", VECTOR_ADD, [c, a, b, n],
                     {"block_size_x": BLOCKS}, problem_size=64, answer=[a, b])


def test_non_integer_parameter_values_are_refused():
    c, a, b, n = vector_add_args(64)
    with pytest.raises(ktune.KtuneInputError, match="0.5 is not an integer"):
        ktune.Kernel("vector_add", VECTOR_ADD, [c, a, b, n],
                     {"block_size_x": [32, 0.5]}, problem_size=64)


def test_problem_size_of_four_dimensions_is_refused():
    with pytest.raises(ktune.KtuneInputError, match="4 dimensions"):
        vector_add(problem_size=(1, 2, 3, 4)).check()


def test_source_file_is_read_in_place(tmp_path):
    src = tmp_path / "add.cu"
    src.write_text(VECTOR_ADD)
    c, a, b, n = vector_add_args(256)
    k = ktune.Kernel("vector_add", src, [ktune.Out(c), a, b, n],
                     {"block_size_x": BLOCKS}, problem_size=256)
    assert k.check().space == (20, 20)


def test_missing_source_file_is_named(tmp_path):
    c, a, b, n = vector_add_args(256)
    k = ktune.Kernel("vector_add", tmp_path / "nope.cu", [ktune.Out(c), a, b, n],
                     {"block_size_x": BLOCKS}, problem_size=256)
    with pytest.raises(ktune.KtuneError, match="nope.cu"):
        k.check()


def test_help_of_tune_describes_its_arguments():
    doc = ktune.tune.__doc__ or ""
    for word in ("answer", "problem_size", "best", "median_us"):
        assert word in doc
