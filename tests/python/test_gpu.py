# SPDX-License-Identifier: Apache-2.0
"""On a GPU (marker gpu; skipped at once without one): the vector add
tuned over a 20-point space with numpy, CuPy and PyTorch arguments, each
verified against its answer, printing the verified best with its
interval (run with -s to see it)."""
from __future__ import annotations

import numpy as np
import pytest

import ktune
from kernels import BLOCKS, VECTOR_ADD

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("libktune")]
N = 1 << 22


def tune_and_show(label: str, args, answer) -> ktune.Result:
    r = ktune.tune("vector_add", VECTOR_ADD, args, {"block_size_x": BLOCKS},
                   problem_size=N, answer=answer, strategy="exhaustive",
                   progress=False)
    b = r.best
    assert b is not None, r
    print(f"\n{label}: best {b['config']}: {b['median_us']:.2f} us "
          f"[{b['ci_lo_us']:.2f}, {b['ci_hi_us']:.2f}] "
          f"({len(r.ok_points)} of {len(r.points)} points verified)")
    # Every point of the space evaluated and verified (a finalist measured
    # again may appear twice in the search path).
    assert len({p["config"] for p in r.points}) == 20
    assert all(p["status"] == "ok" for p in r.points)
    assert b["ci_lo_us"] <= b["median_us"] <= b["ci_hi_us"]
    return r


def test_numpy_arguments_tuned_and_verified():
    rng = np.random.default_rng(1)
    a = rng.standard_normal(N, dtype=np.float32)
    b = rng.standard_normal(N, dtype=np.float32)
    r = tune_and_show("numpy", [ktune.Out(np.zeros_like(a)), a, b, np.int32(N)],
                      [a + b, None, None, None])
    assert r.env


def test_cupy_arguments_tuned_and_verified():
    cp = pytest.importorskip("cupy")
    a = cp.random.standard_normal(N, dtype=cp.float32)
    b = cp.random.standard_normal(N, dtype=cp.float32)
    tune_and_show("cupy", [ktune.Out(cp.zeros_like(a)), a, b, np.int32(N)],
                  [a + b, None, None, None])


def test_torch_arguments_tuned_and_verified():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    a = torch.randn(N, device="cuda")
    b = torch.randn(N, device="cuda")
    tune_and_show("torch", [ktune.Out(torch.zeros_like(a)), a, b, np.int32(N)],
                  [a + b, None, None, None])


def test_a_wrong_answer_is_caught_by_verification():
    a = np.ones(N, np.float32)
    b = np.ones(N, np.float32)
    with pytest.raises(ktune.KtuneError):
        r = ktune.tune("vector_add", VECTOR_ADD,
                       [ktune.Out(np.zeros_like(a)), a, b, np.int32(N)],
                       {"block_size_x": BLOCKS[:4]}, problem_size=N,
                       answer=[a + b + 1, None, None, None], progress=False)
        assert r.best is None
        raise ktune.KtuneError("no verified best")


def test_bench_one_configuration():
    a = np.ones(N, np.float32)
    b = np.ones(N, np.float32)
    k = ktune.Kernel("vector_add", VECTOR_ADD,
                     [ktune.Out(np.zeros_like(a)), a, b, np.int32(N)],
                     {"block_size_x": BLOCKS}, problem_size=N,
                     answer=[a + b, None, None, None])
    r = k.bench({"block_size_x": 256})
    assert r.kind == "ktune.bench"
    k.close()
