#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Nsight Compute's speed-of-light figures for winners the neutral harness
built (run_h200.py's neutral step), to check ktune profile's diagnosis of
them against: compute (SM) and memory throughput as percentages of peak,
DRAM throughput and the kernel's duration, one launch after the harness's
warm-ups, clocks left alone (--clock-control none).

    python3 ncu_winners.py NEUTRAL_JSON [--kernels gemm,convolution]
        [--label ktune] [--out ncu.json] [--ncu ncu]

The harness's executables stay in its work folder on the machine that ran
it, so run this there, after the neutral step. Prints one line per
winner; --out also keeps ncu's rows.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys

# The hub kernel each harness build launches (by name; the harness's own
# flush kernels and references are not profiled).
KERNEL_NAMES = {"convolution": "convolution_kernel", "gemm": "Xgemm",
                "dedispersion": "dedispersion_kernel", "hotspot": "calculate_temp"}
METRICS = ("Compute (SM) Throughput", "Memory Throughput", "DRAM Throughput", "Duration")


def profile(ncu, exe, name):
    cmd = [ncu, "--clock-control", "none", "--section", "SpeedOfLight", "--csv",
           "--kernel-name", f"regex:{name}", "--launch-skip", "1", "--launch-count", "1",
           exe, "--samples", "1", "--warmups", "1"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    got = metrics_of(p.stdout)
    if p.returncode or not got:
        # The harness's own output shares stdout with ncu's CSV: keep both
        # ends, so that a miss can be read.
        return {"command": " ".join(cmd), "error": f"exit {p.returncode}; no SpeedOfLight rows",
                "stdout_head": p.stdout[:1500], "stdout_tail": p.stdout[-1500:],
                "stderr_tail": p.stderr[-800:]}
    return {"command": " ".join(cmd), "metrics": got}


def metrics_of(text):
    """METRICS from ncu's --csv rows in text: the header is the row naming
    "Metric Name" and "Metric Value" (the profiled program's own output,
    which may hold commas, comes before it on the same stream)."""
    head, got = None, {}
    for r in csv.reader(io.StringIO(text)):
        if head is None:
            if "Metric Name" in r and "Metric Value" in r:
                head = r
            continue
        rec = dict(zip(head, r))
        if rec.get("Metric Name") in METRICS:
            got[rec["Metric Name"]] = {"value": rec.get("Metric Value"), "unit": rec.get("Metric Unit")}
    return got


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("neutral")
    ap.add_argument("--kernels", default="gemm,convolution")
    ap.add_argument("--label", default="ktune")
    ap.add_argument("--out")
    ap.add_argument("--ncu", default=shutil.which("ncu") or "ncu")
    a = ap.parse_args(argv)
    try:
        with open(a.neutral) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"ncu_winners: {a.neutral}: {e}", file=sys.stderr)
        return 2
    want = [k for k in a.kernels.split(",") if k]
    out = []
    for e in doc.get("entries") or []:
        exe = (e.get("build") or {}).get("exe")
        if e.get("kernel") not in want or e.get("label") != a.label:
            continue
        if not exe or not os.access(exe, os.X_OK):
            out.append({"kernel": e["kernel"], "error": f"no harness build at {exe}"})
            continue
        res = profile(a.ncu, exe, KERNEL_NAMES[e["kernel"]])
        res.update(kernel=e["kernel"], label=a.label, params=e.get("params"))
        out.append(res)
    for r in out:
        m = r.get("metrics") or {}
        figs = ", ".join(f"{k} {v['value']} {v['unit']}" for k, v in m.items())
        print(f"{r['kernel']} ({r.get('label')}): {figs or r.get('error', '')}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)
    return 0 if out and all("metrics" in r for r in out) else 1


if __name__ == "__main__":
    sys.exit(main())
