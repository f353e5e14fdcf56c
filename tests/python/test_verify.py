# SPDX-License-Identifier: Apache-2.0
"""verify= callables (ktune's Kernel and Kernel Tuner's tune_kernel) wired
to libktune's verification callback (ktune_verify_callback): the
conversion of the C outputs to numpy views and of the verdict back,
without a GPU (the callback is called as libktune calls it); on a GPU
(marker gpu) a tune whose callback sees every point's outputs and refuses
one configuration, and Kernel Tuner's verify signature."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import ktune
from kernels import BLOCKS, VECTOR_ADD
from ktune import _kernel, _lib
from ktune.kernel_tuner import interface

pytestmark = pytest.mark.usefixtures("libktune")


def call_c(fn, outputs, msg_size=128):
    """Calls fn through a ktune_verify_fn pointer as libktune does:
    outputs are (name, ktune_type, data array, expected float64 array)."""
    keep = []
    arr = (_lib.Output * len(outputs))()
    for i, (name, typ, data, want) in enumerate(outputs):
        keep += [data, want]
        arr[i] = _lib.Output(name.encode(), typ, data.size, data.ctypes.data,
                             want.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
    msg = ctypes.create_string_buffer(msg_size)
    c = _lib.VERIFY_FN(fn)
    ok = c(None, arr, len(outputs), ctypes.addressof(msg), msg_size)
    return ok, msg.value.decode()


def test_outputs_arrive_as_typed_views_in_their_shape():
    seen = {}

    def verify(outputs, expected):
        seen.update(outputs=outputs, expected=expected)
        return np.array_equal(outputs["c"].ravel(), expected["c"])

    c = np.arange(6, dtype=np.int16)
    ok, msg = call_c(_kernel._verify_adapter(verify, {"c": (2, 3)}),
                     [("c", 8, c, c.astype(np.float64))])
    assert ok == 1 and msg == ""
    assert seen["outputs"]["c"].dtype == np.int16
    assert seen["outputs"]["c"].shape == (2, 3)
    assert seen["expected"]["c"].dtype == np.float64


def test_a_refusal_carries_its_reason_and_an_exception_its_message():
    c = np.ones(4, np.float32)
    want = np.zeros(4)
    ok, msg = call_c(_kernel._verify_adapter(
        lambda o, e: (False, "c[0] is 1, expected 0"), {}),
        [("c", 0, c, want)])
    assert ok == 0 and msg == "c[0] is 1, expected 0"

    def boom(o, e):
        raise ValueError("bad shape")
    ok, msg = call_c(_kernel._verify_adapter(boom, {}), [("c", 0, c, want)])
    assert ok == 0 and msg == "ValueError: bad shape"
    # A reason longer than libktune's buffer is cut, NUL-terminated.
    ok, msg = call_c(_kernel._verify_adapter(lambda o, e: (False, "x" * 500), {}),
                     [("c", 0, c, want)], msg_size=16)
    assert ok == 0 and msg == "x" * 15


def test_kernel_tuners_verify_gets_answer_and_result_host():
    got = {}

    def verify(answer, result_host, atol=None):
        got.update(answer=answer, result_host=result_host, atol=atol)
        return True

    answer = [np.float32(3.0), None, None]
    fn = interface._kt_verify(verify, answer, 3, 1e-3)
    out = np.ones(8, np.float32)
    assert fn({"arg0": out}, {"arg0": np.zeros(8)}) is True
    assert got["answer"] is answer and got["atol"] == 1e-3
    assert got["result_host"][0] is out and got["result_host"][1:] == [None, None]


def test_a_kernel_with_verify_declares_and_checks():
    c, a, b = (np.zeros(1024, np.float32) for _ in range(3))
    k = ktune.Kernel("vector_add", VECTOR_ADD,
                     [ktune.Out(c), a, b, np.int32(1024)],
                     {"block_size_x": BLOCKS}, problem_size=1024,
                     verify=lambda o, e: True)
    assert k.check().space == (20, 20)
    k.close()
    with pytest.raises(ktune.KtuneInputError, match="not callable"):
        ktune.Kernel("vector_add", VECTOR_ADD, [ktune.Out(c), a, b, np.int32(1024)],
                     {"block_size_x": BLOCKS}, problem_size=1024, verify=3)


@pytest.mark.gpu
def test_a_verify_callable_decides_every_point_on_the_gpu():
    n = 1 << 20
    rng = np.random.default_rng(3)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    calls = []

    def verify(outputs, expected):
        c = outputs["c"]
        calls.append(c.shape)
        if not np.allclose(c, a + b, atol=1e-6):
            return False, "c != a + b"
        return True

    r = ktune.tune("vector_add", VECTOR_ADD,
                   {"c": ktune.Out(np.zeros_like(a)), "a": a, "b": b,
                    "n": np.int32(n)},
                   {"block_size_x": BLOCKS[:6]}, problem_size=n,
                   answer=[a + b, None, None, None], verify=verify,
                   strategy="exhaustive", progress=False)
    assert calls and all(s == (n,) for s in calls)
    assert r.best is not None and all(p["status"] == "ok" for p in r.points)
    # A callback that passes nothing leaves no verified best.
    with pytest.raises(ktune.KtuneError):
        ktune.tune("vector_add", VECTOR_ADD,
                   {"c": ktune.Out(np.zeros_like(a)), "a": a, "b": b,
                    "n": np.int32(n)},
                   {"block_size_x": BLOCKS[:3]}, problem_size=n,
                   answer=[a + b, None, None, None],
                   verify=lambda o, e: (False, "nothing passes"),
                   strategy="exhaustive", progress=False)


@pytest.mark.gpu
def test_kernel_tuners_verify_runs_on_the_gpu():
    n = 1 << 20
    a = np.random.default_rng(5).random(n, dtype=np.float32)
    b = np.random.default_rng(6).random(n, dtype=np.float32)
    seen = []

    def verify(answer, result_host, atol=None):
        seen.append(result_host[0].shape)
        return np.allclose(answer[0], result_host[0], atol=atol)

    results, env = interface.tune_kernel(
        "vector_add", VECTOR_ADD, n, [np.zeros_like(a), a, b, np.int32(n)],
        {"block_size_x": BLOCKS[:4]}, answer=[a + b, None, None, None],
        verify=verify, quiet=True)
    assert seen and all(s == (n,) for s in seen)
    assert all(isinstance(r["time"], float) for r in results)
