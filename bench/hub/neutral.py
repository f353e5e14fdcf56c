#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Re-times configurations of the benchmark-hub kernels in the neutral
harness (bench/hub/neutral.cu): one nvcc build per configuration from the
hub's unmodified source with the configuration as -D defines (parameters
named loop_unroll_factor_* as `constexpr int` in a forced include, as
Kernel Tuner does for CUDA, since #pragma unroll does not expand macros),
built in parallel on every core, then run one at a time on the GPU.

    python3 neutral.py --hub DIR --in winners.json --out neutral.json \
        [--samples 50] [--jobs N] [--compile-only] [--dry-run]

winners.json: [{"kernel": "convolution", "label": "ktune default",
"params": {...}}, ...]; parameters the entry lacks take the T1 file's value
where the T1 file has one value only. Writes, per entry, the build (command,
seconds, error), the harness's JSON line (medians under the write and the
read flush, host checks) and, across entries of one kernel whose outputs
are comparable (hotspot: the same temporal tiling), the largest relative
difference between their outputs. --compile-only builds without running
(no GPU needed); --dry-run prints the commands.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hub  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_ID = {"convolution": 1, "dedispersion": 2, "gemm": 3, "hotspot": 4}
BLOCK_NAMES = {"gemm": ["MDIMC", "NDIMC", "block_size_z"]}


def full_params(hub_dir, key, params):
    vals, _ = hub.t1_values(hub_dir, key)
    out = {}
    for name, values in vals.items():
        if name in params:
            out[name] = params[name]
        elif len(values) == 1:
            out[name] = values[0]
        else:
            raise KeyError(f"{key}: configuration lacks '{name}' ({values})")
    for name, v in params.items():
        out.setdefault(name, v)
    return out


def build_command(hub_dir, key, params, exe, nvcc="nvcc", arch="sm_90"):
    """(command, forced-include text)."""
    kdir = os.path.join(hub_dir, "kernels")
    defines, prefix = [], []
    names = BLOCK_NAMES.get(key, ["block_size_x", "block_size_y", "block_size_z"])
    for n in names:
        if n not in params:
            defines.append(f"-D{n}=1")
    for k, v in params.items():
        v = int(v) if isinstance(v, bool) else v
        if "loop_unroll_factor" in k:
            prefix.append(f"constexpr int {k} = {v};")
        else:
            defines.append(f"-D{k}={v}")
    defines.append("-Dkernel_tuner=1")
    cfg = hub.config_str(params).replace('"', "'")
    cmd = [nvcc, "-O3", "-std=c++17", f"-arch={arch}", "-lineinfo",
           f"-DHUB_KERNEL={KERNEL_ID[key]}", f'-DHUB_CONFIG="{cfg}"', "-I" + kdir]
    cmd += defines
    pre = "\n".join(prefix) + "\n"
    return cmd, pre


def compile_one(entry, hub_dir, work, nvcc, arch, dry):
    key, i = entry["kernel"], entry["index"]
    exe = os.path.join(work, f"{key}-{i}")
    params = full_params(hub_dir, key, entry["params"])
    cmd, pre = build_command(hub_dir, key, params, exe, nvcc, arch)
    inc = exe + ".pre.h"
    cmd += ["-include", inc, os.path.join(HERE, "neutral.cu"), "-o", exe]
    res = {"command": " ".join(cmd), "exe": exe, "full_params": params}
    if dry:
        res["built"] = False
        return res
    with open(inc, "w") as f:
        f.write(pre)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        res["built"] = p.returncode == 0
        if p.returncode:
            res["error"] = (p.stderr or p.stdout)[-2000:]
    except (OSError, subprocess.TimeoutExpired) as e:
        res["built"], res["error"] = False, repr(e)
    res["build_s"] = time.perf_counter() - t0
    return res


def run_one(entry, a):
    b = entry["build"]
    dump = b["exe"] + ".out"
    cmd = [b["exe"], "--samples", str(a.samples), "--warmups", str(a.warmups),
           "--flush-mib", str(a.flush_mib), "--dump", dump]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.run_timeout)
        lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
        entry["result"] = json.loads(lines[-1]) if lines else {
            "ok": False, "error": (p.stderr or p.stdout)[-1000:]}
        entry["exit"] = p.returncode
    except (OSError, subprocess.TimeoutExpired, ValueError) as e:
        entry["result"] = {"ok": False, "error": repr(e)}
    entry["run_s"] = time.perf_counter() - t0
    entry["dump"] = dump if os.path.exists(dump) else None


def compare_outputs(entries):
    """Largest relative difference of each entry's output to the first
    comparable entry of its kernel (max |a - b| / max |b|)."""
    try:
        import numpy as np
    except ImportError:
        return "numpy missing: outputs not compared"
    groups = {}
    for e in entries:
        if not e.get("dump"):
            continue
        per = hub.KERNELS[e["kernel"]]["per_tf"]
        tag = (e["kernel"], e["params"].get(per) if per else None)
        groups.setdefault(tag, []).append(e)
    for tag, es in groups.items():
        ref = np.fromfile(es[0]["dump"], dtype=np.float32)
        scale = float(np.max(np.abs(ref[np.isfinite(ref)]))) if ref.size else 0.0
        for e in es:
            x = np.fromfile(e["dump"], dtype=np.float32)
            if x.shape != ref.shape:
                e["vs_first"] = {"to": es[0]["label"], "error": "sizes differ"}
                continue
            d = np.abs(x.astype(np.float64) - ref)
            e["vs_first"] = {"to": es[0]["label"],
                             "max_rel_diff": float(np.max(d)) / scale if scale else None,
                             "nonfinite": int(np.sum(~np.isfinite(x)))}
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hub", default=os.environ.get("KTUNE_HUB_DIR"))
    ap.add_argument("--in", dest="inp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--warmups", type=int, default=3)
    ap.add_argument("--flush-mib", type=int, default=256)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--run-timeout", type=float, default=120)
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--keep", metavar="DIR",
                    help="build into DIR and leave the executables there (ncu_winners.py profiles them)")
    a = ap.parse_args(argv)
    if not a.hub:
        ap.error("--hub or KTUNE_HUB_DIR is required")
    with open(a.inp) as f:
        entries = json.load(f)
    work = a.keep or tempfile.mkdtemp(prefix="hub-neutral-")
    os.makedirs(work, exist_ok=True)
    ok = []
    for i, e in enumerate(entries):
        e["index"] = i
        if e.get("kernel") not in KERNEL_ID or not isinstance(e.get("params"), dict):
            e["build"] = {"built": False, "error": "no such kernel or no params"}
        else:
            ok.append(e)
    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        futs = {pool.submit(compile_one, e, a.hub, work, a.nvcc, a.arch, a.dry_run): e for e in ok}
        for fut in concurrent.futures.as_completed(futs):
            e = futs[fut]
            try:
                e["build"] = fut.result()
            except Exception as ex:  # noqa: BLE001 -- one bad entry is reported
                e["build"] = {"built": False, "error": repr(ex)}
    build_s = time.perf_counter() - t0
    for e in entries:
        b = e.get("build", {})
        print(f"neutral: {e.get('kernel')} {e.get('label')}: "
              f"{'built' if b.get('built') else 'not built'}"
              f"{' in %.1f s' % b['build_s'] if 'build_s' in b else ''}"
              f"{': ' + b['error'].splitlines()[-1] if b.get('error') else ''}", flush=True)
        if a.dry_run:
            print("  " + b.get("command", ""))
    if not (a.compile_only or a.dry_run):
        for e in entries:
            if e.get("build", {}).get("built"):
                run_one(e, a)
                r = e["result"]
                fw = (r.get("flush_write") or {}).get("median_us")
                print(f"neutral: {e['kernel']} {e['label']}: "
                      f"{'%.2f us' % fw if fw else r.get('error')}", flush=True)
        note = compare_outputs(entries)
        if note:
            print("neutral: " + note)
    for e in entries:
        if e.get("dump") and os.path.exists(e["dump"]):
            os.remove(e["dump"])
    doc = {"build_s": build_s, "samples": a.samples, "warmups": a.warmups,
           "flush_mib": a.flush_mib, "entries": entries}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
