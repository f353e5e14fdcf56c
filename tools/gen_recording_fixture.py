#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A small synthetic recording in the ground-truth format, for the replay
tests until the H200 recordings (tools/record_ground_truth.sh) land.

gemv:ax at m = n = 1024 over the warp_row variant (24 points), as
record_ground_truth.sh writes it: a gzip-compressed journal whose eval
records carry raw samples and their phases, a closing "run" record with the
session's phases, and a sidecar <name>.meta.json stating space, protocol,
device, commit, wall time and which part of the space was recorded. Times
come from a made-up bowl (fastest at block 256, unroll 4), not from a GPU;
the header and the sidecar say "synthetic": true.

Deterministic. Usage: python3 tools/gen_recording_fixture.py [OUTPUT_DIR]
"""
import gzip
import json
import random
import sys
from pathlib import Path

BLOCKS = [32, 64, 128, 256, 512, 1024]
UNROLLS = [1, 2, 4, 8]
NAME = "gemv_ax-synthetic-m1024-n1024"


def header(base):
    h = json.loads(base)
    h["plugin_spec"] = "gemv:ax"
    h["plugin"]["name"] = "gemv"
    h["operator"] = "ax"
    h["sizes"] = {"m": 1024, "n": 1024}
    h["space"] = {"size": 24, "variants": [
        {"id": "warp_row", "points": 24,
         "params": {"block": BLOCKS, "unroll": UNROLLS}}]}
    h["strategy"] = {"name": "random", "seed": 1, "max_evals": 0,
                     "max_seconds": 100.0, "finalists": 1, "min_gain": 0.005,
                     "options": {}}
    h["protocol"]["race"] = 0.005
    h["synthetic"] = True
    return h


def model_us(block, unroll):
    b = abs(BLOCKS.index(block) - 3)
    u = abs(UNROLLS.index(unroll) - 2)
    return 6.0 * (1 + 0.08 * b * b + 0.05 * u)


def record(rng, call, block, unroll, elapsed):
    med = model_us(block, unroll)
    samples = [med * (1 + abs(rng.gauss(0, 0.004))) for _ in range(60)]
    s = sorted(samples)
    n = len(s)
    stats = {"n": n, "median": s[n // 2], "min": s[0], "max": s[-1],
             "mean": sum(s) / n, "stddev": 0.0, "q1": s[n // 4],
             "q3": s[3 * n // 4], "rel_spread": (s[3 * n // 4] - s[n // 4]) / s[n // 2],
             "rel_stddev": 0.0, "noise": 0.003, "ci_lo": s[n // 2 - 5],
             "ci_hi": s[n // 2 + 5]}
    gpu = sum(samples) * 1e-6
    return {
        "point": {"variant": "warp_row", "params": {"block": block, "unroll": unroll}},
        "status": "ok", "reason": "",
        "shape": {"grid": [1024 * 32 // block, 1, 1], "block": [block, 1, 1],
                  "dynamic_smem_bytes": 0},
        "timing": {"unit": "us", "kernel": stats, "rounds": n, "discarded": 0,
                   "min_clock_mhz": 1975.0, "median_clock_mhz": 1980.0,
                   "stop_reason": "noise target", "gpu_time_s": gpu,
                   "wall_time_s": gpu * 1.2, "samples_us": samples},
        "phases": {"setup_s": 0.002 if call == 1 else 0.0, "verify_s": 0.0008,
                   "warmup_s": 0.0001, "sampling_s": gpu * 1.2,
                   "flush_s": n * 30e-6, "probe_s": n * 22e-6},
        "kind": "eval", "call": call, "slot": 0, "of": 1, "purpose": "measure",
        "env": 0, "elapsed_s": elapsed, "time": "2026-01-01T00:00:00Z"}


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data")
    base = (Path(__file__).resolve().parent.parent / "tests/data" /
            "vector_add-synthetic-n16777216.jsonl").read_text().split("\n")[0]
    rng = random.Random(20)
    pts = [(b, u) for b in BLOCKS for u in UNROLLS]
    rng.shuffle(pts)
    lines = [json.dumps(header(base), separators=(",", ":"))]
    elapsed = 0.0
    for call, (b, u) in enumerate(pts, 1):
        elapsed += 0.012
        lines.append(json.dumps(record(rng, call, b, u, elapsed),
                                separators=(",", ":")))
    lines.append(json.dumps({
        "kind": "run", "env": 0, "time": "2026-01-01T00:00:00Z",
        "evaluations": len(pts), "measured": len(pts),
        "stop_reason": "every feasible point evaluated",
        "phases": {"total_s": 1.1, "start_s": 0.6, "calibration_s": 0.01,
                   "setup_s": 0.002, "verify_s": 0.02, "warmup_s": 0.003,
                   "sampling_s": 0.3, "kernels_s": 0.25, "flush_s": 0.04,
                   "probe_s": 0.03, "evaluator_other_s": 0.02,
                   "journal_s": 0.01, "strategy_s": 0.001}},
        separators=(",", ":")))
    with gzip.GzipFile(out / f"{NAME}.jsonl.gz", "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
    meta = {"kind": "ktune.recording", "synthetic": True,
            "recording": f"{NAME}.jsonl.gz", "spec": "gemv:ax",
            "sizes": {"m": 1024, "n": 1024},
            "space": "warp_row: block 32..1024, unroll 1, 2, 4, 8 (24 points)",
            "feasible": 24, "recorded": 24, "complete": True,
            "order": "random strategy, seed 1: a uniform random permutation",
            "protocol": json.loads(base)["protocol"],
            "device": "NVIDIA H200 (synthetic)", "commit": "synthetic",
            "wall_s": 1.1}
    (out / f"{NAME}.meta.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
