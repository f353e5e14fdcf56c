#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A small tuning journal with energy records, for the report tests
(tests/report/data/vector_add-energy-synthetic.jsonl).

Taken from the H200 recording of vector_add at n = 2^20
(tests/data/vector_add-h200-n1048576.jsonl): its header (device, protocol,
calibration) and its first four measured points, each recorded twice, under
nvml_gr_clock = 1410 and 1980 (the device-setting dimension, docs/energy.md),
with an energy record per point from a model, not measured: at 1980 MHz the
recorded time and 420 W; at 1410 MHz 4% slower and 300 W. The calibration
gets the device's best energy per byte and per flop (copy_pj_per_byte 8.0,
compute_pj_per_flop 1.5). The header says "synthetic": true.

Deterministic. Usage: python3 tools/gen_energy_fixture.py [OUTPUT]
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests/data/vector_add-h200-n1048576.jsonl"
OUTPUT = ROOT / "tests/report/data/vector_add-energy-synthetic.jsonl"
CLOCKS = {1980: (1.00, 420.0), 1410: (1.04, 300.0)}


def energy(us, watts):
    j = watts * us * 1e-6
    return {"measured": True, "note": "synthetic (tools/gen_energy_fixture.py)",
            "joules_per_launch": j, "ci_lo_j": 0.99 * j, "ci_hi_j": 1.01 * j,
            "noise": 0.004, "samples_j": [0.995 * j, j, 1.005 * j],
            "power_w": watts, "window_s": 0.2, "window_mj": 84,
            "launches": int(0.2 / (us * 1e-6)), "launch_us": us,
            "power_limit_w": 700.0}


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    lines = [json.loads(x) for x in SOURCE.read_text().splitlines() if x]
    header = lines[0]
    header["synthetic"] = True
    header["space"]["nvml"] = {"nvml_gr_clock": sorted(CLOCKS)}
    cal = header["environment"]["calibration"]
    cal["copy_pj_per_byte"] = 8.0
    cal["compute_pj_per_flop"] = 1.5
    evals = [r for r in lines[1:]
             if r.get("kind") == "eval" and r.get("status") == "ok"][:4]
    records, call = [header], 0
    for r in evals:
        for mhz, (slower, watts) in sorted(CLOCKS.items()):
            x = json.loads(json.dumps(r))
            call += 1
            k = x["timing"]["kernel"]
            for key in ("median", "min", "max", "mean", "q1", "q3", "ci_lo",
                        "ci_hi"):
                k[key] *= slower
            x["timing"]["samples_us"] = [s * slower
                                         for s in x["timing"]["samples_us"]]
            x["point"]["nvml"] = {"gr_clock_mhz": mhz, "mem_clock_mhz": 0,
                                  "power_limit_w": 0}
            x["energy"] = energy(k["median"], watts)
            x["call"] = call
            records.append(x)
    out.write_text("".join(json.dumps(x, sort_keys=True) + "\n"
                           for x in records))


if __name__ == "__main__":
    main()
