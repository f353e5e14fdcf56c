# SPDX-License-Identifier: Apache-2.0
"""``tune_kernel`` and ``run_kernel`` with Kernel Tuner 1.5's parameters
and defaults, answered by ktune.

Each call becomes one ktune declaration (ktune.Kernel over libktune): the
tunable parameters and the restrictions (Python syntax) go in as a T1
space file, which ktune's own T1 reader expands and evaluates with
Python's semantics and passes every parameter as ``-DNAME=value``, as
Kernel Tuner does; the block is ``block_size_names``, the grid
ceil(problem_size / product(grid_div)) per dimension. Results come back
as Kernel Tuner's list of dicts and env dict (times in milliseconds),
with ``ktune_*`` keys where ktune measures differently (docs/kernel-tuner.md).

Whatever this interface does not support raises KtuneUnsupportedError
naming the parameter; nothing is ignored.
"""
from __future__ import annotations

import json
import logging
import os
import tempfile
import time as _time
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from .. import _kernel
from .._errors import KtuneInputError, KtuneUnsupportedError
from .._result import Result
from . import util

__all__ = ["tune_kernel", "run_kernel"]

_CUDA_LANGS = {None, "cuda", "cupy", "nvcuda"}
_DEFAULT_BLOCK = ("block_size_x", "block_size_y", "block_size_z")
# Kernel Tuner's two names whose ktune strategy has another name; other
# names go to ktune as they are (ktune maps or refuses them by name).
_STRATEGY = {None: "exhaustive", "brute_force": "exhaustive",
             "random_sample": "random"}
_STRATEGY_OPTIONS = {"max_fevals", "time_limit", "fraction"}
# strategy=None is Kernel Tuner's brute force; ktune runs exhaustive where
# that ends in reasonable time (the Cartesian product at most
# _EXHAUSTIVE_MAX points without a budget in strategy_options, at most
# _EXHAUSTIVE_BUDGETED with one: a few seconds of evaluations) and its
# default search, auto, otherwise: it stops by itself (convergence, or the
# budget), where brute force over convolution.py's ~3M points would run for
# days, and a cut exhaustive run would answer from the first points only.
_EXHAUSTIVE_MAX = 4096
_EXHAUSTIVE_BUDGETED = 256
ENV_PROTOCOL = "KTUNE_KT_PROTOCOL"
# Headers NVRTC needs where Kernel Tuner's nvcc takes the real ones
# (nvrtc_include/cub/cub.cuh says why), first on the include path.
_NVRTC_INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "nvrtc_include")


def _lang_refusal(lang: Any) -> str:
    host = str(lang).lower() in ("c", "c++", "fortran")
    return (f"{lang!r}: " + ("Kernel Tuner's backend for host code (a host "
                             "function built by a C/C++/Fortran compiler and "
                             "timed as a whole, e.g. pnpoly.py's "
                             "cn_pnpoly_host), which ktune does not have; "
                             if host else "") +
            "ktune tunes CUDA kernels (lang None, 'CUDA', 'cupy' or 'nvcuda')")


def _unsupported(name: str, why: str) -> KtuneUnsupportedError:
    return KtuneUnsupportedError(f"kernel_tuner.{name}: {why}")


def _refuse(**given: Any) -> None:
    for name, (value, why) in given.items():
        if value:
            raise _unsupported(name, why)


def _block_names(names: Optional[Sequence[str]]) -> list[str]:
    out = list(names or _DEFAULT_BLOCK)
    if len(out) > 3:
        raise KtuneInputError("block_size_names: at most three names")
    out += [d for d in _DEFAULT_BLOCK[len(out):]]
    return out


def _dims(problem_size: Any) -> list[str]:
    if callable(problem_size):
        raise _unsupported("problem_size", "a callable is not supported; give "
                           "ints, parameter names or expressions")
    dims = (list(problem_size) if isinstance(problem_size, (tuple, list))
            else [problem_size])
    if not 1 <= len(dims) <= 3:
        raise KtuneInputError(f"problem_size has {len(dims)} dimensions; "
                              "expected 1 to 3")
    return [str(int(d)) if isinstance(d, (int, np.integer)) else str(d)
            for d in dims]


def _divisor(div: Optional[Sequence[Any]], default: str) -> str:
    if div is None:
        div = [default]
    if isinstance(div, str):
        div = [div]
    if any(callable(d) for d in div):
        raise _unsupported("grid_div", "a callable divisor is not supported")
    return " * ".join(f"({d})" for d in div) or "1"


def _param_values(name: str, values: Sequence[Any]) -> list[int]:
    out = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise _unsupported("tune_params",
                               f"parameter {name} has the value {v!r}; ktune's "
                               "parameters take integer values")
        out.append(int(v))
    return out


def _space_file(folder: str, tune_params: Mapping[str, Sequence[Any]],
                restrictions: Any,
                block_names: list[str]) -> tuple[str, dict[str, int]]:
    """The space as a T1 file: parameters, the block's defaults (256, 1, 1)
    where a block dimension is not tuned, conditions in Python syntax. Its
    path, and each parameter's default as the file gives it (the first
    value), taken from what was written rather than read back."""
    params = {k: _param_values(k, v) for k, v in tune_params.items()}
    for name, default in zip(block_names, (256, 1, 1)):
        params.setdefault(name, [default])
    if restrictions is None:
        restrictions = []
    if isinstance(restrictions, str) or callable(restrictions):
        restrictions = [restrictions]
    conditions = []
    for r in restrictions:
        if not isinstance(r, str):
            raise _unsupported("restrictions",
                               "a callable restriction is not supported; write "
                               "it as a string in Python syntax")
        conditions.append({"Expression": r, "Parameters": list(params)})
    doc = {"General": {"BenchmarkName": "kernel_tuner"},
           "ConfigurationSpace": {
               "TuningParameters": [{"Name": k, "Type": "int", "Values": v,
                                     "Default": v[0]}
                                    for k, v in params.items()],
               "Conditions": conditions}}
    path = os.path.join(folder, "space.t1.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path, {k: v[0] for k, v in params.items()}


def _source(kernel_source: Any) -> tuple[Any, list[str]]:
    """The main source and the include folders of the other files."""
    if callable(kernel_source):
        raise _unsupported("kernel_source", "a code generator (callable) is "
                           "not supported; give the source or its file")
    if isinstance(kernel_source, (list, tuple)):
        first, rest = kernel_source[0], list(kernel_source[1:])
        dirs = sorted({os.path.dirname(os.path.abspath(str(p))) for p in rest})
        return _as_source(first), dirs
    return _as_source(kernel_source), []


def _as_source(src: Any) -> Any:
    if isinstance(src, os.PathLike):
        return src
    text = str(src)
    if "\n" not in text and os.path.isfile(text):
        from pathlib import Path
        return Path(text)
    return text


def _declare(kernel_name: str, kernel_source: Any, problem_size: Any,
             arguments: Sequence[Any], tune_params: Mapping[str, Sequence[Any]],
             grid_div: tuple[Any, Any, Any], restrictions: Any,
             answer: Any, atol: float, smem_args: Any, cmem_args: Any,
             compiler_options: Any, defines: Any, block_size_names: Any,
             folder: str, verify: Optional[Callable[..., bool]] = None) -> _kernel.Kernel:
    block = _block_names(block_size_names)
    dims = _dims(problem_size)
    divs = [_divisor(grid_div[i], block[i]) for i in range(len(dims))]
    macros: dict[str, Any] = {"kernel_tuner": 1}
    for i, axis in enumerate("xyz"):
        # (a + b - 1) / b: libktune's define takes no top-level comma.
        macros[f"grid_size_{axis}"] = (f"(({dims[i]}) + ({divs[i]}) - 1) / ({divs[i]})"
                                       if i < len(dims) else 1)
    for k, v in (defines or {}).items():
        if callable(v):
            raise _unsupported("defines", f"{k}: a callable value is not supported")
        macros[k] = v
    smem = None
    if smem_args:
        size = smem_args.get("size") if isinstance(smem_args, Mapping) else None
        if size is None or callable(size):
            raise _unsupported("smem_args", "only {'size': int or expression} "
                               "is supported")
        smem = size
    source, include_dirs = _source(kernel_source)
    include_dirs.insert(0, _NVRTC_INCLUDE)
    args, answer = _nonempty(arguments, answer)
    kt_verify = None
    if verify is not None:
        # Kernel Tuner's verify(answer, result_host, atol=atol): the
        # arguments with an answer are in-outs ktune hands to it (as
        # Kernel Tuner copies them back), in the answer's list order.
        args = [_kernel.InOut(a) if want is not None else a
                for a, want in zip(args, answer)]
        kt_verify = _kt_verify(verify, answer, len(args), atol)
        answer = None
    space, defaults = _space_file(folder, tune_params, restrictions, block)
    k = _kernel.Kernel(
        kernel_name, source, args, {},
        problem_size=dims, grid_div_x=[divs[0]],
        grid_div_y=[divs[1]] if len(divs) > 1 else None,
        grid_div_z=[divs[2]] if len(divs) > 2 else None,
        block=", ".join(block), defines=macros,
        options=list(compiler_options or []), include_dirs=include_dirs,
        constants=dict(cmem_args or {}), smem=smem, answer=answer,
        rtol=1e-5 if answer is not None else 0.0,
        atol=float(atol) if answer is not None else 0.0,
        space_file=space, verify=kt_verify)
    k._guard_defaults = defaults
    return k


def _nonempty(arguments: Sequence[Any], answer: Any) -> tuple[list[Any], Any]:
    """The arguments with each empty array given one zero element, and
    nothing to verify there: Kernel Tuner passes a 0-byte allocation
    (spmv.py under numpy 2 makes its arrays empty: its nnz overflows
    int32), ktune's buffers hold at least one element; a kernel that keeps
    to its sizes never reads it."""
    args, ans = list(arguments), list(answer) if answer is not None else None
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.size == 0:
            args[i] = np.zeros(1, dtype=a.dtype)
            if ans is not None and i < len(ans) and ans[i] is not None and np.size(ans[i]) == 0:
                ans[i] = None
    return args, ans


def _kt_verify(verify: Callable[..., bool], answer: Sequence[Any], nargs: int,
               atol: float) -> Callable[..., bool]:
    """ktune's verify(outputs, expected) over Kernel Tuner's
    verify(answer, result_host, atol=atol): result_host lists every
    argument, its output where the answer has an entry, else None."""
    def call(outputs: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
        result_host = [outputs.get(f"arg{i}") if answer[i] is not None else None
                       for i in range(nargs)]
        return bool(verify(answer, result_host, atol=atol))
    return call


def _status_value(p: Mapping[str, Any]) -> Any:
    status, reason = p.get("status"), str(p.get("reason", ""))
    if status == "ok":
        return None
    if status == "invalid" and "compil" in reason.lower():
        return util.CompilationFailedConfig()
    if status == "invalid":
        return util.InvalidConfig()
    return util.RuntimeFailedConfig()


def _metric(name: str, fn: Any, row: dict[str, Any]) -> Any:
    if callable(fn):
        return fn(row)
    if isinstance(fn, str):
        return eval(fn, {"__builtins__": {}}, dict(row))  # noqa: S307 the user's own metric text
    raise KtuneInputError(f"metrics: {name}: expected a callable or a string")


def _kt_results(result: Result, tune_params: Mapping[str, Any],
                metrics: Optional[Mapping[str, Any]], kt_protocol: bool) -> list[dict[str, Any]]:
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = []
    for p in result.points:
        row: dict[str, Any] = {k: p[k] for k in tune_params if k in p}
        if not tune_params:  # a replay of another tool's recording
            row.update({k: v for k, v in p.items() if isinstance(v, int)
                        and k not in ("samples",)})
        bad = _status_value(p)
        times = [t / 1000.0 for t in p.get("times_us", [])]
        if bad is None:
            us = p.get("mean_us") if kt_protocol else p.get("median_us")
            row["time"] = float(us if us is not None else p.get("median_us", 0.0)) / 1000.0
        else:
            row["time"] = bad
        row["times"] = times
        row["compile_time"] = 1000.0 * float(p.get("compile_s", 0.0) or 0.0)
        row["verification_time"] = 0.0
        row["benchmark_time"] = float(sum(times))
        row["strategy_time"] = 0.0
        row["framework_time"] = 0.0
        row["timestamp"] = stamp
        for name, fn in (metrics or {}).items():
            row[name] = bad if bad is not None else _metric(name, fn, row)
        row["ktune_status"] = p.get("status", "")
        if bad is not None:
            row["ktune_reason"] = p.get("reason", "")
        else:
            row["ktune_time_statistic"] = "mean" if kt_protocol else "median"
            if "ci_lo_us" in p and "ci_hi_us" in p:
                row["ktune_ci_ms"] = [p["ci_lo_us"] / 1000.0, p["ci_hi_us"] / 1000.0]
        out.append(row)
    return out


def _plain(x: Any) -> Any:
    """numpy numbers as Python's, so env stays JSON-serialisable."""
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def _env(result: Result, results: list[dict[str, Any]], iterations: int,
         problem_size: Any, compiler_options: Any, block_names: list[str],
         kt_protocol: bool, overhead_ms: float) -> dict[str, Any]:
    dev = result.env.get("device", {}) if isinstance(result.env, dict) else {}
    env: dict[str, Any] = {
        "device_name": dev.get("name", "") if isinstance(dev, dict) else "",
        "iterations": iterations,
        "problem_size": _plain(problem_size),
        "compiler_options": list(compiler_options or []),
        "block_size_names": block_names,
        "ktune_protocol": ("kernel_tuner: L2 hot, mean of iterations"
                           if kt_protocol else
                           "ktune: L2 flushed before each sample, median with "
                           "its confidence interval, kernels in worker processes"),
        "ktune_environment": result.env,
        "ktune_best": result.best,
    }
    for key in ("compile_time", "verification_time", "benchmark_time",
                "strategy_time", "framework_time"):
        env[f"total_{key}"] = float(sum(r.get(key, 0.0) for r in results))
    env["overhead_time"] = overhead_ms
    return env


def tune_kernel(kernel_name: str, kernel_source: Any, problem_size: Any,
                arguments: Sequence[Any], tune_params: Mapping[str, Sequence[Any]],
                grid_div_x: Any = None, grid_div_y: Any = None, grid_div_z: Any = None,
                restrictions: Any = None, answer: Optional[Sequence[Any]] = None,
                atol: float = 1e-6, verify: Optional[Callable[..., bool]] = None,
                verbose: bool = False, lang: Optional[str] = None, device: int = 0,
                platform: int = 0, smem_args: Any = None, cmem_args: Any = None,
                texmem_args: Any = None, compiler: Any = None,
                compiler_options: Any = None, defines: Any = None, log: Any = None,
                iterations: int = 7, block_size_names: Any = None, quiet: bool = False,
                strategy: Optional[str] = None, strategy_options: Any = None,
                cache: Any = None, metrics: Any = None, simulation_mode: Any = None,
                parallel: Any = None, observers: Any = None, objective: Any = None,
                objective_higher_is_better: Any = None, objectives: Any = None,
                seed: Optional[int] = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Kernel Tuner's ``tune_kernel``, run by ktune: same parameters, same
    defaults, returns ``(results, env)`` in Kernel Tuner's shape.

    Each result holds the parameters, ``time`` (ms; ktune's median, or the
    mean of ``iterations`` hot-L2 runs with KTUNE_KT_PROTOCOL=kernel_tuner),
    ``times``, ``compile_time``, ``verification_time``,
    ``benchmark_time``, ``strategy_time``, ``framework_time``, the
    metrics, and ``ktune_status``, ``ktune_time_statistic`` and
    ``ktune_ci_ms`` (the median's confidence interval). Points that did not
    run have an ErrorConfig as ``time`` (util.InvalidConfig, ...).

    ``verify`` is called as Kernel Tuner calls it, ``verify(answer,
    result_host, atol=atol)``, with the outputs of each point (the
    arguments that have an answer); a run with it runs its kernels in this
    process (isolation off: the outputs are needed here).

    Not supported (raise KtuneUnsupportedError naming them): ``verify``
    without ``answer``, ``texmem_args``, ``compiler``, ``observers``, ``parallel``,
    ``objectives``, ``cache`` outside simulation mode, callable
    restrictions, problem sizes, grid divisors and defines, non-integer
    parameter values, languages other than CUDA, ``platform``.
    """
    start = _time.perf_counter()
    if lang is not None and str(lang).lower() not in _CUDA_LANGS:
        raise _unsupported("lang", _lang_refusal(lang))
    if verify is not None and answer is None:
        raise _unsupported("verify", "needs answer: the arguments with an "
                           "answer are the outputs it is given")
    _refuse(texmem_args=(texmem_args, "texture memory is not supported"),
            compiler=(compiler, "ktune compiles with NVRTC; compiler is not "
                      "supported"),
            observers=(observers, "observers are not supported (ktune measures "
                       "energy with objective='energy')"),
            parallel=(parallel, "parallel runners are not supported (ktune: "
                      "job.devices)"),
            objectives=(objectives, "several objectives are not supported"),
            platform=(platform, "platform is OpenCL's; ktune runs CUDA"))
    if log:
        logging.basicConfig(level=log)
    objective = objective or "time"
    higher = bool(objective_higher_is_better)
    if objective not in ("time",) and objective not in (metrics or {}):
        raise _unsupported("objective", f"{objective!r}: ktune tunes for time "
                           "or for one of the metrics given")
    kt_protocol = os.environ.get(ENV_PROTOCOL, "") == "kernel_tuner"
    options = dict(strategy_options or {})
    unknown = set(options) - _STRATEGY_OPTIONS
    strategy_name = _STRATEGY.get(strategy, strategy)
    if strategy is None:
        strategy_name = _default_strategy(tune_params, options, objective)
    if objective != "time" and strategy_name != "exhaustive":
        raise _unsupported("objective", f"{objective!r} with strategy "
                           f"{strategy!r}: a metric objective needs brute_force "
                           "(ktune's search is driven by time)")
    settings: dict[str, Any] = {f"strategy.{k}": options[k] for k in sorted(unknown)}
    if kt_protocol:
        settings.update({"measure.cache": "hot",
                         "measure.min_samples": int(iterations),
                         "measure.max_samples": int(iterations),
                         "measure.race": 0})
    block_names = _block_names(block_size_names)
    with tempfile.TemporaryDirectory(prefix="ktune-kt-") as folder:
        if simulation_mode:
            if not cache:
                raise _unsupported("simulation_mode", "needs cache (a Kernel "
                                   "Tuner cache file to replay)")
            result = _kernel.replay(_cache_path(cache), strategy_name,
                                    max_evals=options.get("max_fevals"),
                                    max_seconds=options.get("time_limit"),
                                    fraction=options.get("fraction"), seed=seed,
                                    settings=settings, verbose=False)
        else:
            _refuse(cache=(cache, "cache files are written by the ktune command "
                           "(--kt-cache); through Python only simulation_mode "
                           "reads them"))
            k = _declare(kernel_name, kernel_source, problem_size, arguments,
                         tune_params, (grid_div_x, grid_div_y, grid_div_z),
                         restrictions, answer, atol, smem_args, cmem_args,
                         compiler_options, defines, block_size_names, folder,
                         verify)
            try:
                result = k.tune(strategy_name, max_evals=options.get("max_fevals"),
                                max_seconds=options.get("time_limit"),
                                fraction=options.get("fraction"), seed=seed,
                                device=device or None, settings=settings,
                                progress=not quiet and not verbose)
            finally:
                k.close()
    results = _kt_results(result, tune_params, metrics, kt_protocol)
    env = _env(result, results, iterations, problem_size, compiler_options,
               block_names, kt_protocol, 1000.0 * (_time.perf_counter() - start))
    if verbose:
        for r in results:
            print(util.get_config_string(r, list(tune_params) + ["time"] +
                                         list(metrics or {})))
    ok = [r for r in results if isinstance(r["time"], float)]
    if ok:
        env["best_config"] = util.get_best_config(results, objective, higher)
        if not quiet:
            print(f"\nBEST PERFORMING CONFIGURATION FOR OBJECTIVE {objective}:")
            print(util.get_config_string(env["best_config"], list(tune_params) +
                                         [objective] + list(metrics or {}),
                                         {"time": "ms"}))
    elif not quiet:
        print("no results to report")
    return results, env


def _default_strategy(tune_params: Mapping[str, Sequence[Any]],
                      options: Mapping[str, Any], objective: str) -> str:
    """ktune's search for strategy=None (see _EXHAUSTIVE_MAX)."""
    points = 1
    for values in tune_params.values():
        points *= max(1, len(values))
    budget = any(options.get(k) for k in _STRATEGY_OPTIONS)
    if objective != "time" or points <= (_EXHAUSTIVE_BUDGETED if budget else _EXHAUSTIVE_MAX):
        return "exhaustive"
    return "auto"


def _cache_path(cache: Any) -> str:
    path = os.fspath(cache)
    if not path.endswith(".json") and not os.path.exists(path):
        path += ".json"
    return path


def run_kernel(kernel_name: str, kernel_source: Any, problem_size: Any,
               arguments: Sequence[Any], params: Mapping[str, Any],
               grid_div_x: Any = None, grid_div_y: Any = None, grid_div_z: Any = None,
               lang: Optional[str] = None, device: int = 0, platform: int = 0,
               smem_args: Any = None, cmem_args: Any = None, texmem_args: Any = None,
               compiler: Any = None, compiler_options: Any = None, defines: Any = None,
               block_size_names: Any = None, quiet: bool = False,
               log: Any = None) -> list[Any]:
    """Kernel Tuner's ``run_kernel``: runs the kernel once with one value per
    parameter and returns every argument as it is afterwards, as Kernel
    Tuner does (numpy arrays as numpy arrays, CuPy arrays as new CuPy
    arrays, tensors as CPU tensors, scalars as given).

    libktune verifies and times kernels but does not hand back a run's
    outputs, so this one call launches the kernel through CuPy (which
    must be installed), with Kernel Tuner's macros (the parameters,
    block_size_*, grid_size_*, kernel_tuner=1) and grid rule. It is the
    only place this package runs a kernel outside ktune.
    """
    if lang is not None and str(lang).lower() not in _CUDA_LANGS:
        raise _unsupported("lang", _lang_refusal(lang))
    _refuse(texmem_args=(texmem_args, "texture memory is not supported"),
            compiler=(compiler, "compiler is not supported"),
            platform=(platform, "platform is OpenCL's; ktune runs CUDA"))
    from ._run import run_once
    return run_once(kernel_name, kernel_source, problem_size, arguments, params,
                    (grid_div_x, grid_div_y, grid_div_z), device, smem_args,
                    cmem_args, compiler_options, defines,
                    _block_names(block_size_names))
