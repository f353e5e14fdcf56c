# SPDX-License-Identifier: Apache-2.0
"""ktune.kernel_tuner, Kernel Tuner's interface (no GPU): arguments mapped
to a declaration, restrictions in Python syntax counted by ktune's T1
reader, problem_size and grid_div forms, results in Kernel Tuner's shape,
unsupported names raised, and scripts whose `import kernel_tuner` ktune
answers."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import ktune
from ktune.kernel_tuner import interface, util
from ktune.kernel_tuner.file_utils import store_output_file
from kernels import VECTOR_ADD

ROOT = Path(__file__).resolve().parents[2]
# Where the ktune this run imports lives (an installed wheel, or python/).
PKG_ROOT = Path(ktune.__file__).resolve().parents[1]

MATMUL = r"""
__global__ void matmul_kernel(float *C, const float *A, const float *B) {
    int x = blockIdx.x * block_size_x * tile_size_x + threadIdx.x;
    int y = blockIdx.y * block_size_y * tile_size_y + threadIdx.y;
    if (x < 256 && y < 256) C[y * 256 + x] = A[y * 256 + x] + B[y * 256 + x];
}
"""


def count(params, cond):
    names = list(params)
    return sum(1 for vals in itertools.product(*params.values())
               if cond(dict(zip(names, vals))))


def declare(tmp_path, **kw):
    a = np.zeros(256 * 256, np.float32)
    decl = dict(kernel_name="matmul_kernel", kernel_source=MATMUL,
                problem_size=(256, 256), arguments=[a, a, a],
                tune_params=OrderedDict(block_size_x=[16, 32, 64],
                                        block_size_y=[1, 2, 4, 8, 16, 32],
                                        tile_size_x=[1, 2, 4, 8],
                                        tile_size_y=[1, 2, 4, 8]),
                grid_div=(["block_size_x", "tile_size_x"],
                          ["block_size_y", "tile_size_y"], None),
                restrictions=None, answer=None, atol=1e-6, smem_args=None,
                cmem_args=None, compiler_options=None, defines=None,
                block_size_names=None, folder=str(tmp_path))
    decl.update(kw)
    return interface._declare(**decl)


@pytest.mark.usefixtures("libktune")
def test_python_restriction_is_counted_as_python_counts_it(tmp_path):
    k = declare(tmp_path, restrictions=["block_size_x==block_size_y*tile_size_y"])
    params = dict(block_size_x=[16, 32, 64], block_size_y=[1, 2, 4, 8, 16, 32],
                  tile_size_x=[1, 2, 4, 8], tile_size_y=[1, 2, 4, 8])
    want = count(params, lambda p: p["block_size_x"] == p["block_size_y"] * p["tile_size_y"])
    assert k.check().space == (3 * 6 * 4 * 4, want)
    k.close()


@pytest.mark.usefixtures("libktune")
def test_or_and_true_division_follow_python(tmp_path):
    k = declare(tmp_path, restrictions=["block_size_x / 32 >= 1 or tile_size_x == 1",
                                        "not (tile_size_y == 8 and block_size_y > 4)"])
    params = dict(block_size_x=[16, 32, 64], block_size_y=[1, 2, 4, 8, 16, 32],
                  tile_size_x=[1, 2, 4, 8], tile_size_y=[1, 2, 4, 8])
    want = count(params, lambda p: (p["block_size_x"] / 32 >= 1 or p["tile_size_x"] == 1)
                 and not (p["tile_size_y"] == 8 and p["block_size_y"] > 4))
    assert k.check().space[1] == want
    k.close()


@pytest.mark.usefixtures("libktune")
@pytest.mark.parametrize("problem_size", [65536, (65536,), (256, 256), "n_items"])
def test_problem_size_forms_declare(tmp_path, problem_size):
    a = np.zeros(65536, np.float32)
    params = OrderedDict(block_size_x=[32, 64, 128], n_items=[65536])
    k = interface._declare("vector_add", VECTOR_ADD, problem_size,
                           [a, a, a, np.int32(65536)], params,
                           (None, None, None), None, None, 1e-6, None, None,
                           None, None, None, str(tmp_path))
    assert k.check().space == (3, 3)
    k.close()


@pytest.mark.usefixtures("libktune")
def test_grid_div_expression_and_empty_divisor_declare(tmp_path):
    a = np.zeros(4096, np.float32)
    params = OrderedDict(block_size_x=[32, 64], threads_per_row=[1, 32])
    k = interface._declare("vector_add", VECTOR_ADD, 4096, [a, a, a, np.int32(4096)],
                           params, (["block_size_x/threads_per_row"], [], None),
                           None, None, 1e-6, None, None, None, None, None,
                           str(tmp_path))
    assert k.check().space == (4, 4)
    k.close()


def test_grid_divisor_defaults_to_the_block_name():
    assert interface._divisor(None, "block_size_x") == "(block_size_x)"
    assert interface._divisor([], "block_size_x") == "1"
    assert interface._divisor(["block_size_x", "tile"], "b") == "(block_size_x) * (tile)"


def test_block_names_are_completed_to_three():
    assert interface._block_names(["bx"]) == ["bx", "block_size_y", "block_size_z"]


@pytest.mark.parametrize("kw, name", [
    (dict(verify=lambda a, b, atol=None: True), "verify"),
    (dict(texmem_args={"t": 1}), "texmem_args"),
    (dict(lang="OpenCL"), "lang"),
    (dict(observers=[object()]), "observers"),
    (dict(compiler="nvcc"), "compiler"),
    (dict(objectives={"time": False}), "objectives"),
    (dict(cache="x.json"), "cache"),
    (dict(restrictions=[lambda p: True]), "restrictions"),
    (dict(objective="GFLOP/s"), "objective"),
    (dict(simulation_mode=True), "simulation_mode"),
])
def test_unsupported_parameters_raise_naming_them(kw, name):
    a = np.zeros(64, np.float32)
    with pytest.raises(ktune.KtuneUnsupportedError, match=f"kernel_tuner.{name}"):
        interface.tune_kernel("vector_add", VECTOR_ADD, 64, [a, a, a, np.int32(64)],
                              {"block_size_x": [32, 64]}, quiet=True, **kw)


def test_non_integer_parameter_is_named(tmp_path):
    with pytest.raises(ktune.KtuneUnsupportedError, match="scale has the value 0.5"):
        interface._space_file(str(tmp_path), {"scale": [1, 0.5]}, None,
                              ["block_size_x", "block_size_y", "block_size_z"])


def test_untuned_block_dimensions_get_kernel_tuners_defaults(tmp_path):
    path, defaults = interface._space_file(
        str(tmp_path), {"tile": [1, 2]}, "tile > 1",
        ["block_size_x", "block_size_y", "block_size_z"])
    space = json.loads(Path(path).read_text())["ConfigurationSpace"]
    values = {p["Name"]: p["Values"] for p in space["TuningParameters"]}
    assert values == {"tile": [1, 2], "block_size_x": [256], "block_size_y": [1],
                      "block_size_z": [1]}
    assert space["Conditions"][0]["Expression"] == "tile > 1"
    # The defaults handed back are the file's, without reading it again.
    assert defaults == {p["Name"]: p["Default"] for p in space["TuningParameters"]}
    assert defaults == {"tile": 1, "block_size_x": 256, "block_size_y": 1,
                        "block_size_z": 1}


def synthetic_result():
    pts = [{"variant": "v", "config": "v block_size_x=32", "status": "ok", "reason": "",
            "block_size_x": 32, "median_us": 100.0, "mean_us": 101.0, "ci_lo_us": 99.0,
            "ci_hi_us": 102.0, "compile_s": 0.25, "times_us": [100.0, 101.0, 102.0]},
           {"variant": "v", "config": "v block_size_x=2048", "status": "invalid",
            "reason": "block of 2048 threads exceeds 1024", "block_size_x": 2048},
           {"variant": "v", "config": "v block_size_x=64", "status": "invalid",
            "reason": "NVRTC compilation failed", "block_size_x": 64}]
    return ktune.Result({"kind": "ktune.tune",
                         "environment": {"device": {"name": "NVIDIA H100"}}}, pts,
                        dict(pts[0]))


def test_results_have_kernel_tuners_shape():
    metrics = OrderedDict()
    metrics["GB/s"] = lambda p: 1.0 / p["time"]
    metrics["twice"] = "time * 2"
    res = interface._kt_results(synthetic_result(), {"block_size_x": [32, 2048, 64]},
                                metrics, False)
    ok, bad, comp = res
    for key in ("block_size_x", "time", "times", "compile_time", "verification_time",
                "benchmark_time", "strategy_time", "framework_time", "timestamp"):
        assert key in ok
    assert ok["time"] == pytest.approx(0.1) and ok["times"][0] == pytest.approx(0.1)
    assert ok["compile_time"] == pytest.approx(250.0)
    assert ok["GB/s"] == pytest.approx(10.0) and ok["twice"] == pytest.approx(0.2)
    assert ok["ktune_time_statistic"] == "median"
    assert ok["ktune_ci_ms"] == pytest.approx([0.099, 0.102])
    assert isinstance(bad["time"], util.InvalidConfig)
    assert isinstance(comp["time"], util.CompilationFailedConfig)
    assert isinstance(bad["GB/s"], util.ErrorConfig)
    json.dumps(res)
    assert util.get_best_config(res, "time") is ok


def test_kernel_tuner_protocol_reports_the_mean():
    res = interface._kt_results(synthetic_result(), {"block_size_x": []}, None, True)
    assert res[0]["time"] == pytest.approx(0.101)
    assert res[0]["ktune_time_statistic"] == "mean"


def test_get_config_string_formats_as_kernel_tuner():
    s = util.get_config_string({"block_size_x": 32, "time": 1.23456, "x": 1},
                               ["block_size_x", "time"], {"time": "ms"})
    assert s == "block_size_x=32, time=1.235ms"


def test_store_output_file_writes_t4(tmp_path):
    res = interface._kt_results(synthetic_result(), {"block_size_x": []}, None, False)
    store_output_file(str(tmp_path / "out"), res, {"block_size_x": [32, 2048, 64]})
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["schema_version"] == "1.0.0"
    assert [r["invalidity"] for r in doc["results"]] == ["correct", "constraints", "compile"]
    assert doc["results"][0]["configuration"] == {"block_size_x": 32}


@pytest.mark.usefixtures("libktune")
def test_simulation_mode_replays_a_kernel_tuner_cache(data_dir, capsys):
    cache = data_dir / "kt" / "transpose-h200-rows8192-cols8192.cache.json"
    results, env = interface.tune_kernel("k", "", 1, [], {}, simulation_mode=True,
                                         cache=str(cache),
                                         strategy="random_sample",
                                         strategy_options={"max_fevals": 20},
                                         seed=2)
    assert results and all("time" in r and "times" in r for r in results)
    assert "best_config" in env and isinstance(env["best_config"]["time"], float)
    assert "BEST PERFORMING CONFIGURATION" in capsys.readouterr().out


SCRIPT = """
import kernel_tuner
from kernel_tuner import tune_kernel
from kernel_tuner.util import get_config_string
import kernel_tuner.file_utils
print("answered by", kernel_tuner.__name__, tune_kernel.__module__)
print(get_config_string({"a": 1}))
"""


def test_script_imports_kernel_tuner_answered_by_ktune(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    env = dict(__import__("os").environ)
    env["PYTHONPATH"] = str(PKG_ROOT)
    run = subprocess.run([sys.executable, "-m", "ktune.kernel_tuner", str(script)],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "answered by ktune.kernel_tuner ktune.kernel_tuner.interface" in run.stdout
    assert "a=1" in run.stdout


def test_unsupported_submodule_is_an_import_error_naming_it(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import kernel_tuner.observers\n")
    env = dict(__import__("os").environ)
    env["PYTHONPATH"] = str(PKG_ROOT)
    run = subprocess.run([sys.executable, "-m", "ktune.kernel_tuner", str(script)],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode != 0
    assert "kernel_tuner.observers" in run.stderr and "not supported" in run.stderr


CUB_KERNEL = r"""
#include <cub/cub.cuh>
__global__ void block_sum(float *out, const float *in, int n) {
    typedef cub::BlockReduce<float, block_size_x> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    int i = blockIdx.x * block_size_x + threadIdx.x;
    float s = Reduce(tmp).Sum(i < n ? in[i] : 0.0f);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}
"""


@pytest.mark.usefixtures("libktune")
def test_cub_umbrella_header_compiles_as_under_nvcc(tmp_path):
    x = np.ones(4096, np.float32)
    out = np.zeros(4096 // 32, np.float32)
    k = interface._declare("block_sum", CUB_KERNEL, 4096, [out, x, np.int32(4096)],
                           OrderedDict(block_size_x=[32, 64, 128]), (None, None, None),
                           None, None, 1e-6, None, None, None, None, None,
                           str(tmp_path))
    assert k.check().space == (3, 3)
    k.close()


def test_env_is_json_serialisable_with_numpy_problem_size():
    res = interface._kt_results(synthetic_result(), {"block_size_x": []}, None, False)
    env = interface._env(synthetic_result(), res, 7, (np.int32(2000), np.int32(2000)),
                         None, ["block_size_x", "block_size_y", "block_size_z"], False, 1.0)
    json.dumps((res, env))
    assert env["problem_size"] == [2000, 2000] and env["device_name"] == "NVIDIA H100"
    assert env["total_compile_time"] == pytest.approx(250.0)


def test_default_strategy_is_exhaustive_where_it_ends_and_auto_beyond():
    """strategy=None: brute force (exhaustive) on spaces it finishes, auto
    (stops by itself) on convolution.py's ~3M points or under a budget
    too short for a larger space; a metric objective is always exhaustive."""
    small = {"block_size_x": list(range(32, 1025, 32))}           # 32 points
    mid = {"a": list(range(40)), "b": list(range(36))}             # 1440
    huge = {"a": list(range(256)), "b": list(range(12288))}        # ~3M
    pick = interface._default_strategy
    assert pick(small, {}, "time") == "exhaustive"
    assert pick(small, {"time_limit": 20}, "time") == "exhaustive"
    assert pick(mid, {}, "time") == "exhaustive"
    assert pick(mid, {"time_limit": 20}, "time") == "auto"
    assert pick(huge, {}, "time") == "auto"
    assert pick(huge, {}, "GFLOP/s") == "exhaustive"


def test_empty_arrays_get_one_element_and_nothing_to_verify():
    """spmv.py under numpy 2 passes empty arrays (its nnz overflows int32):
    Kernel Tuner allocates 0 bytes, ktune one element, never checked."""
    a, b = np.zeros(0, np.int32), np.ones(4, np.float32)
    args, answer = interface._nonempty([a, b, np.int32(3)], [np.zeros(0), b, None])
    assert args[0].shape == (1,) and args[0].dtype == np.int32
    assert args[1] is b and answer == [None, b, None]
