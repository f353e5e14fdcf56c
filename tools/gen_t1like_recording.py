#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A synthetic recording of a T1-like space, for the search test on the
recordings listed in tests/data/search_recordings.txt until the H200's hub
recordings (bench/hub/run_h200.sh) land.

The space is tests/data/t1like/t1like.ini: the benchmark hub's convolution
space (block 16..256 x 1..16, tiles 1..4 x 1..4, three flags, its four
conditions: 4,362 of 10,240 points), every feasible point recorded in one
uniform random permutation (seed 1), as bench/hub/run_h200.sh records
convolution. The times come from a made-up model with the structure such
spaces have, not from a GPU: a smooth part (threads per block and
occupancy, register tiling with a sweet spot and spills past it, shared
memory that helps until its footprint limits residency, partial warps that
padding half repairs, the read-only path that matters without shared
memory) times a rugged part (a deterministic +-4% per point, as compile
choices give), so no axis-at-a-time walk is exact by construction. The
header and the sidecar say "synthetic": true.

Deterministic. Usage: python3 tools/gen_t1like_recording.py [OUTPUT_DIR]
"""
import gzip
import hashlib
import itertools
import json
import math
import random
import sys
from pathlib import Path

NAME = "t1like-synthetic-n4096"
N = 4096
PARAMS = {
    "bx": [16 * i for i in range(1, 17)],
    "by": [1, 2, 4, 8, 16],
    "tx": [1, 2, 3, 4],
    "ty": [1, 2, 3, 4],
    "ro": [0, 1],
    "pad": [0, 1],
    "shm": [0, 1],
}


def feasible(p):
    bx, by, tx, ty = p["bx"], p["by"], p["tx"], p["ty"]
    return (bx * by <= 1024 and (p["pad"] == 0 or bx % 32 != 0) and
            (p["pad"] == 0 or p["shm"] != 0) and
            (p["shm"] == 0 or (bx * tx + 14) * (by * ty + 14) < 12 * 1024))


def rugged(p):
    """A deterministic factor in [0.96, 1.04] per point."""
    key = ",".join(f"{k}={v}" for k, v in sorted(p.items())).encode()
    u = int.from_bytes(hashlib.sha256(key).digest()[:8], "little") / 2**64
    return 0.96 + 0.08 * u


def model_us(p):
    bx, by, tx, ty = p["bx"], p["by"], p["tx"], p["ty"]
    threads = bx * by
    occ = min(1.0, threads / 256.0) ** 0.6  # small blocks leave SMs idle
    if threads > 512:
        occ *= 0.93  # one resident block per SM at 1024 threads
    tile = tx * ty
    lt = math.log2(tile)
    reuse = 1.0 + 0.55 * lt - 0.16 * lt * lt  # sweet spot near 4-6 outputs
    if tile > 9:
        reuse *= 0.85  # register spills
    t = 900.0 / (occ * reuse)
    if p["shm"]:
        foot = (bx * tx + 14) * (by * ty + 14) * 4
        t *= 0.72 if foot < 24 * 1024 else 0.72 + 0.5 * (foot - 24 * 1024) / (24 * 1024)
    elif p["ro"]:
        t *= 0.9
    if bx % 32:
        t *= 1.12 if not p["pad"] else 1.05
    if by * ty > 32:
        t *= 1.06  # tall tiles: fewer coalesced rows per warp
    return t * rugged(p)


def stats(samples):
    s = sorted(samples)
    n = len(s)
    return {"n": n, "median": s[n // 2], "min": s[0], "max": s[-1],
            "mean": sum(s) / n, "stddev": 0.0, "q1": s[n // 4],
            "q3": s[3 * n // 4], "rel_spread": (s[3 * n // 4] - s[n // 4]) / s[n // 2],
            "rel_stddev": 0.0, "noise": 0.003, "ci_lo": s[max(0, n // 2 - 3)],
            "ci_hi": s[min(n - 1, n // 2 + 3)]}


def record(rng, call, p, elapsed):
    med = model_us(p)
    samples = [med * (1 + abs(rng.gauss(0, 0.003))) for _ in range(20)]
    gpu = sum(samples) * 1e-6
    grid = [-(-N // (p["bx"] * p["tx"])), -(-N // (p["by"] * p["ty"])), 1]
    return {
        "point": {"variant": "tiled", "params": dict(p)},
        "status": "ok", "reason": "",
        "shape": {"grid": grid, "block": [p["bx"], p["by"], 1], "dynamic_smem_bytes": 0},
        "timing": {"unit": "us", "kernel": stats(samples), "rounds": len(samples),
                   "discarded": 0, "min_clock_mhz": 1975.0, "median_clock_mhz": 1980.0,
                   "stop_reason": "noise target", "gpu_time_s": gpu,
                   "wall_time_s": gpu * 1.3, "samples_us": samples},
        "phases": {"setup_s": 0.0, "verify_s": 0.004, "warmup_s": 0.002,
                   "sampling_s": gpu * 1.3, "flush_s": 20 * 30e-6, "probe_s": 20 * 22e-6},
        "compilation": {"seconds": 0.0, "compiled": 0, "cache_hits": 1},
        "kind": "eval", "call": call, "slot": 0, "of": 1, "purpose": "measure",
        "env": 0, "elapsed_s": elapsed, "time": "2026-01-01T00:00:00Z"}


def header(base, cartesian):
    h = json.loads(base)
    h["plugin_spec"] = "t1like"
    h["plugin"] = {"name": "t1like", "version": "declared", "abi": "1.1",
                   "cuda_runtime_version": 13000, "cuda_archs": "nvrtc",
                   "compiler": "nvrtc 13.0", "build_date": ""}
    h["operator"] = "t1like"
    h["sizes"] = {"n": N}
    h["space"] = {"size": cartesian, "variants": [
        {"id": "tiled", "points": cartesian, "params": PARAMS}]}
    h["strategy"] = {"name": "random", "seed": 1, "max_evals": 0, "max_seconds": 0.0,
                     "finalists": 1, "min_gain": 0.005, "options": {}}
    h["synthetic"] = True
    return h


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data")
    base = (Path(__file__).resolve().parent.parent / "tests/data" /
            "vector_add-synthetic-n16777216.jsonl").read_text().split("\n")[0]
    names = list(PARAMS)
    every = [dict(zip(names, v)) for v in itertools.product(*PARAMS.values())]
    pts = [p for p in every if feasible(p)]
    rng = random.Random(1)
    rng.shuffle(pts)
    lines = [json.dumps(header(base, len(every)), separators=(",", ":"))]
    elapsed = 0.0
    for call, p in enumerate(pts, 1):
        elapsed += 0.05
        lines.append(json.dumps(record(rng, call, p, elapsed), separators=(",", ":")))
    lines.append(json.dumps({
        "kind": "run", "env": 0, "time": "2026-01-01T00:00:00Z",
        "evaluations": len(pts), "measured": len(pts),
        "stop_reason": "every feasible point evaluated",
        "phases": {"total_s": elapsed + 1, "start_s": 0.6, "calibration_s": 0.01,
                   "setup_s": 0.0, "verify_s": 0.004 * len(pts), "warmup_s": 0.002 * len(pts),
                   "sampling_s": elapsed * 0.6, "kernels_s": elapsed * 0.5, "flush_s": 0.1,
                   "probe_s": 0.1, "evaluator_other_s": 0.1, "journal_s": 0.1,
                   "strategy_s": 0.01}}, separators=(",", ":")))
    with gzip.GzipFile(out / f"{NAME}.jsonl.gz", "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
    meta = {"kind": "ktune.recording", "synthetic": True,
            "recording": f"{NAME}.jsonl.gz", "spec": "t1like", "sizes": {"n": N},
            "space": header(base, len(every))["space"], "feasible": len(pts),
            "recorded": len(pts), "complete": True,
            "order": "random strategy, seed 1: a uniform random permutation of the feasible points",
            "protocol": json.loads(base)["protocol"], "device": "NVIDIA H200 (synthetic)",
            "commit": "synthetic", "wall_s": elapsed,
            "config": "tests/data/t1like/t1like.ini",
            "model": "tools/gen_t1like_recording.py: made-up times, not measured"}
    (out / f"{NAME}.meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{NAME}: {len(pts)} of {len(every)} points")


if __name__ == "__main__":
    main()
