#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One Kernel Tuner run of a benchmark-hub kernel through the hub's own
script (KTUNE_HUB_DIR/kernels/*.py), in a process of its own.

The script's tune() is called as the hub wrote it; its call to
kernel_tuner.tune_kernel is intercepted to change only what the comparison
needs: the cupy backend (behind the script's lang="CUDA"), a fresh cache file (the hub's A100
caches are never read), quiet output, the strategy and its time limit, and
in `points` mode a restriction to exactly the given points (the same
points ktune measured). Its inputs, parameters, restrictions, grid
divisors, iterations and metrics are the script's. The hub's writers of
result and metadata files are replaced by this script's JSON.

    python3 kt_hub.py --hub DIR --kernel convolution --mode points \
        --points pts.json --cap 150 --out run.json
    python3 kt_hub.py --hub DIR --kernel gemm --mode strategy \
        --strategy genetic_algorithm --time-limit 60 --out run.json
    python3 kt_hub.py --hub DIR --kernel convolution --mode points \
        --points pts.json --simulate --out run.json    # no GPU

--simulate runs Kernel Tuner's simulation mode on a cache of made-up times
written for the requested points (tests the plumbing without a GPU; no
number in it is a measurement). The output JSON holds every result Kernel
Tuner returned (parameters, time in ms, its compile/verification/benchmark/
framework/strategy times), the wall time of tune_kernel and of the whole
script, and the best point by the hub's objective.
"""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hub  # noqa: E402

TIMING_KEYS = ("compile_time", "verification_time", "benchmark_time",
               "framework_time", "strategy_time")


def load_script(hub_dir, key):
    path = os.path.join(hub_dir, hub.KERNELS[key]["hub_script"])
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: the hub's script is not there "
                                f"(KTUNE_HUB_DIR={hub_dir})")
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("hub_" + key, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kt_params(point, tune_params):
    """A ktune point's parameters as Kernel Tuner's configuration: every
    tune_params name, from the point or, where Kernel Tuner has one value
    only, that value."""
    out = {}
    for name, values in tune_params.items():
        if name in point:
            out[name] = point[name]
        elif len(values) == 1:
            out[name] = values[0]
        else:
            raise KeyError(f"the point has no '{name}' and Kernel Tuner "
                           f"tunes it over {list(values)}")
    return out


def make_restriction(points, tune_params):
    names = list(tune_params)
    allowed = {tuple(kt_params(p, tune_params)[n] for n in names)
               for p in points}

    def only_these_points(p):
        return tuple(p[n] for n in names) in allowed

    return only_these_points, len(allowed)


def fake_cache(path, kernel_name, problem_size, tune_params, points, seed=1):
    """Kernel Tuner's cache file with made-up times for `points`, so that
    simulation mode can answer them (tests only)."""
    import random

    rng = random.Random(seed)
    cache = {}
    for p in points:
        cfg = kt_params(p, tune_params)
        key = ",".join(str(cfg[n]) for n in tune_params)
        t = 1.0 + rng.random()
        entry = dict(cfg)
        entry.update({"time": t, "times": [t] * 3, "compile_time": 500.0,
                      "verification_time": 0, "benchmark_time": 3 * t,
                      "strategy_time": 0, "framework_time": 1.0,
                      "timestamp": "2026-12-02 00:00:00"})
        cache[key] = entry
    doc = {"version": "1.0", "device_name": "simulated",
           "kernel_name": kernel_name, "problem_size": list(problem_size)
           if isinstance(problem_size, (list, tuple)) else problem_size,
           "tune_params_keys": list(tune_params),
           "tune_params": {k: list(v) for k, v in tune_params.items()},
           "objective": "time", "cache": cache}
    with open(path, "w") as f:
        json.dump(doc, f, default=int)


def prepare_dedispersion(mod, work, answer):
    """The hub's dedispersion script loads its input, shifts and reference
    from .npy files its create_reference() writes on the CPU (a C
    reference over 2048 x 25000 x 1536: minutes). The input and shifts are
    made as create_reference makes them (seeded); the reference is the
    kernel's own output at the T1 default configuration, on the GPU, with
    Kernel Tuner (answer='gpu'), or none (answer='none': no check)."""
    import numpy as np

    np.random.seed(1)
    n = mod.nr_samples_per_channel * mod.nr_channels
    inp = np.random.randn(n).astype(np.uint8)
    shifts = mod.get_shifts()
    np.save(os.path.join(work, "input_ref"), inp, allow_pickle=False)
    np.save(os.path.join(work, "shifts_ref"), shifts, allow_pickle=False)
    out = np.zeros(mod.nr_dms * mod.nr_samples, dtype=np.float32)
    if answer == "gpu":
        import kernel_tuner

        src = os.path.join(os.path.dirname(mod.__file__), "dedispersion.cu")
        params = {"block_size_x": 16, "block_size_y": 32, "block_size_z": 1,
                  "tile_size_x": 1, "tile_size_y": 1, "tile_stride_x": 0,
                  "tile_stride_y": 0, "loop_unroll_factor_channel": 0}
        res = kernel_tuner.run_kernel(
            "dedispersion_kernel", src, (mod.nr_samples, mod.nr_dms, 1),
            [inp, out, shifts], params, lang="CUPY",
            compiler_options=["-I" + os.path.dirname(src)])
        out = res[1]
    np.save(os.path.join(work, "dedisp_ref"), out, allow_pickle=False)


def force_backend(name):
    """lang stays the hub script's "CUDA" (Kernel Tuner then writes
    loop_unroll_factor_* as constexpr, which #pragma unroll needs); the
    backend behind "CUDA" is chosen here: cupy (the comparison's), or
    Kernel Tuner's own default choice (name 'default')."""
    import kernel_tuner.core as core

    if name == "cupy":
        from kernel_tuner.backends.cupy import CupyFunctions

        core._select_default_cuda_backend = lambda: CupyFunctions
    return name


def uuid_bytes(v):
    """A device UUID as the 16 bytes Kernel Tuner's cupy backend hands to
    uuid.UUID(bytes=...): newer CuPy releases give it as text (hex, maybe
    with a GPU- prefix and dashes) or with trailing NULs; the value is only
    written to Kernel Tuner's environment record."""
    if isinstance(v, (bytes, bytearray)) and len(v) == 16:
        return bytes(v)
    text = v.decode("latin-1") if isinstance(v, (bytes, bytearray)) else str(v)
    hexed = text.strip("\0").replace("GPU-", "").replace("-", "")
    try:
        raw = bytes.fromhex(hexed)
    except ValueError:
        raw = text.encode("latin-1", "replace")
    return (raw + bytes(16))[:16]


def patch_cupy_uuid():
    """Kernel Tuner 1.5.0 assumes CuPy's device properties hold the UUID as
    16 bytes; with CuPy 14 they need not (ValueError 'bytes is not a
    16-char string' before any kernel runs). Normalised here, nothing else."""
    try:
        import cupy
    except ImportError:
        return
    rt = cupy.cuda.runtime
    orig = rt.getDeviceProperties

    def props(device):
        d = orig(device)
        if "uuid" in d:
            d = dict(d, uuid=uuid_bytes(d["uuid"]))
        return d

    rt.getDeviceProperties = props


def call_tune(mod, key, a, strategy, options):
    if hub.KERNELS[key]["call"] == "inputs":
        return mod.tune([4096, 4096, 4096], device_name="H200",
                        strategy=strategy, strategy_options=options,
                        verbose=False, quiet=True)
    return mod.tune(device_name="H200", strategy=strategy,
                    strategy_options=options, verbose=False, quiet=True)


def run(a, log):
    import kernel_tuner

    doc = {"kernel": a.kernel, "mode": a.mode, "simulate": a.simulate,
           "kt_version": getattr(kernel_tuner, "__version__", "?"),
           "lang": a.lang, "ok": False}
    work = tempfile.mkdtemp(prefix="kt-hub-")
    os.makedirs(os.path.join(work, "run"), exist_ok=True)
    os.chdir(os.path.join(work, "run"))
    mod = load_script(a.hub, a.kernel)
    for name in ("store_output_file", "store_metadata_file"):
        if hasattr(mod, name):
            setattr(mod, name, lambda *args, **kw: None)
    points = None
    if a.mode == "points":
        with open(a.points) as f:
            points = json.load(f)
        points = [p.get("params", p) for p in points][: a.max_points or None]
    cache = os.path.join(work, "cache.json")
    orig = kernel_tuner.tune_kernel
    seen = {}

    def intercepted(kernel_name, kernel_source, problem_size, arguments,
                    tune_params, **kw):
        seen["tune_params"] = {k: list(v) for k, v in tune_params.items()}
        seen["restrictions"] = kw.get("restrictions")
        kw["lang"] = a.lang
        # the dedispersion script names its .cu relative to its own folder
        # (it expects to run there); this run's folder is a fresh one
        if isinstance(kernel_source, str) and not os.path.exists(kernel_source):
            near = os.path.join(os.path.dirname(mod.__file__), kernel_source)
            if os.path.exists(near):
                kernel_source = near
        kw["cache"] = cache
        kw["quiet"], kw["verbose"] = True, False
        if a.no_answer:
            kw.pop("answer", None)
        if points is not None:
            fn, n = make_restriction(points, tune_params)
            kw["restrictions"] = fn
            seen["points"] = n
            if a.simulate:
                fake_cache(cache, kernel_name, problem_size, tune_params,
                           points)
        elif a.simulate:  # every T1 point answerable (small spaces only)
            fake_cache(cache, kernel_name, problem_size, tune_params,
                       hub.t1_space(a.hub, a.kernel))
        if a.simulate:
            kw["simulation_mode"] = True
        t0 = time.perf_counter()
        try:
            return orig(kernel_name, kernel_source, problem_size, arguments,
                        tune_params, **kw)
        finally:
            seen["tune_s"] = time.perf_counter() - t0

    kernel_tuner.tune_kernel = intercepted
    doc["backend"] = force_backend(a.backend)
    if not a.simulate:
        patch_cupy_uuid()
    if points is not None:
        strategy = "random_sample"
        options = {"max_fevals": len(points), "fraction": 1.0}
        if a.cap:
            options["time_limit"] = a.cap
    else:
        strategy = a.strategy
        options = {"time_limit": a.time_limit}
    doc.update(strategy=strategy, strategy_options=options)
    if a.kernel == "dedispersion":
        prepare_dedispersion(mod, os.getcwd(),
                             "none" if (a.simulate or a.no_answer) else "gpu")
    t0 = time.perf_counter()
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):
        results, env = call_tune(mod, a.kernel, a, strategy, options)
    doc["script_s"] = time.perf_counter() - t0
    doc["tune_s"] = seen.get("tune_s")
    doc["tune_params"] = seen.get("tune_params")
    doc["restricted_to"] = seen.get("points")
    doc["hub_restrictions"] = [r for r in (seen.get("restrictions") or [])
                               if isinstance(r, str)]
    doc["results"] = compact(results, seen.get("tune_params") or {})
    doc["evaluations"] = len(doc["results"])
    doc["valid"] = sum(1 for r in doc["results"] if r["time_ms"] is not None)
    if doc["tune_s"] and doc["evaluations"]:
        doc["evals_per_s"] = doc["evaluations"] / doc["tune_s"]
    # Kernel Tuner's own per-configuration times (compile, verification,
    # benchmark, framework, strategy): what it spent on the points, without
    # building the space (the points restriction is a callable over the
    # Cartesian product, which the hub's own run does not have). The
    # comparison uses these: the lower bound of its cost per evaluation.
    own = sum(r.get(k + "_ms", 0.0) for r in doc["results"] for k in TIMING_KEYS) / 1e3
    doc["configs_s"] = own or None
    if own and doc["evaluations"]:
        doc["evals_per_s_own"] = doc["evaluations"] / own
    doc["best"] = best(a.kernel, doc["results"])
    doc["env"] = {k: env.get(k) for k in ("device_name", "iterations",
                                          "compiler_options")
                  if isinstance(env, dict)}
    doc["ok"] = True
    log(f"{a.kernel} {strategy}: {doc['evaluations']} evaluations "
        f"({doc['valid']} valid) in {doc['tune_s'] or 0:.1f} s")
    return doc


def compact(results, tune_params):
    out = []
    for r in results or []:
        params = {k: r.get(k) for k in tune_params}
        t = r.get("time")
        x = {"params": {k: (int(v) if hasattr(v, "item") else v)
                        for k, v in params.items()},
             "time_ms": float(t) if isinstance(t, (int, float)) else None}
        if x["time_ms"] is None:
            x["error"] = str(t)
        for k in TIMING_KEYS:
            v = r.get(k)
            if isinstance(v, (int, float)):
                x[k + "_ms"] = float(v)
        out.append(x)
    return out


def best(key, results):
    top = None
    for r in results:
        if r["time_ms"] is None:
            continue
        s = hub.score(key, r["params"], r["time_ms"] * 1e3)
        if top is None or s < top[0]:
            top = (s, r)
    if not top:
        return None
    r = top[1]
    return {"params": r["params"], "time_us": r["time_ms"] * 1e3,
            "objective": hub.objective(key, r["params"], r["time_ms"] * 1e3)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hub", default=os.environ.get("KTUNE_HUB_DIR"))
    ap.add_argument("--kernel", required=True, choices=hub.ORDER)
    ap.add_argument("--mode", choices=["points", "strategy"], required=True)
    ap.add_argument("--points", help="JSON list of points (ktune params)")
    ap.add_argument("--max-points", type=int, default=0)
    ap.add_argument("--cap", type=float, default=0,
                    help="points mode: time_limit in seconds (0: none)")
    ap.add_argument("--strategy", default="genetic_algorithm")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--lang", default="CUDA")
    ap.add_argument("--backend", choices=["cupy", "default"], default="cupy")
    ap.add_argument("--no-answer", action="store_true",
                    help="drop the hub script's answer (no verification)")
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    a.out = os.path.abspath(a.out)
    if a.points:
        a.points = os.path.abspath(a.points)
    if not a.hub:
        ap.error("--hub or KTUNE_HUB_DIR is required")
    a.hub = os.path.abspath(a.hub)
    if a.mode == "points" and not a.points:
        ap.error("--mode points needs --points")

    def log(msg):
        print(f"kt_hub: {msg}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    try:
        doc = run(a, log)
    except BaseException as e:  # noqa: BLE001 -- reported, not raised
        doc = {"kernel": a.kernel, "mode": a.mode, "ok": False,
               "error": f"{type(e).__name__}: {e}",
               "traceback": traceback.format_exc()[-4000:]}
        log(doc["error"])
    doc["process_s"] = time.perf_counter() - t0
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1, default=str)
    return 0 if doc.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
