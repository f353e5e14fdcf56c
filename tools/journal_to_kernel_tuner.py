#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Converts a ktune journal (a recording, .jsonl or .jsonl.gz) into the two
formats Kernel Tuner records in: its cache file (what `tune_kernel(...,
cache=FILE)` writes and `simulation_mode=True` replays) and T4 results (what
`store_output_file` writes), so that tests of `ktune tune --replay` run on
files of those formats made from our own H200 measurements.

The mapping, point by point:
  - parameters: "variant" (the ktune variant's id, a string) and every
    parameter of any variant, in the order the journal's space declares
    them; a variant without a parameter gives it None (Kernel Tuner's key
    writes it "None"), so every point is one flat configuration;
  - the points: each point's first single-point measurement ("measure");
    points refused on the host ("check" records) are left out, as Kernel
    Tuner's restrictions leave them out of its space;
  - time: the kernel's median (ms); times: the first --max-times kept
    samples (ms);
  - compile_time: NVRTC seconds when the point compiled, else 0;
    verification_time: the verification phase; benchmark_time: warm-up
    and sampling (the measurement's wall time when the journal has no
    phases); framework_time: the rest of the point's share of its call;
    strategy_time 0 (all in ms);
  - invalid points: "CompilationFailedConfig" (did not compile),
    "RuntimeFailedConfig" (launch refused, a fault, an error), else
    "InvalidConfig"; a wrong result is T4's "correctness" and is left out
    of the cache (Kernel Tuner stops on a failed verification).

usage: journal_to_kernel_tuner.py JOURNAL [--cache OUT] [--t4 OUT]
                                  [--max-times N]
OUT ending in .gz is written gzip-compressed (as the benchmark hub ships).
"""
import argparse
import gzip
import json
import math
import sys


def read_journal(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    if not lines or lines[0].get("kind") != "ktune.journal":
        sys.exit(f"{path}: not a ktune journal")
    return lines[0], lines[1:]


def parameters(header):
    """The flat parameter list: variant, then each name once, with the
    values every variant declaring it allows (in declared order)."""
    names, values = ["variant"], {"variant": []}
    for v in header["space"]["variants"]:
        values["variant"].append(v["id"])
        for name, vals in v["params"].items():
            if name not in values:
                names.append(name)
                values[name] = []
            for x in vals:
                if x not in values[name]:
                    values[name].append(x)
    for name in names[1:]:
        if any(name not in v["params"] for v in header["space"]["variants"]):
            values[name].append(None)
    return names, values


def py_str(x):
    """Python's str() of a JSON scalar: how Kernel Tuner writes a key."""
    if x is None:
        return "None"
    if isinstance(x, bool):
        return "True" if x else "False"
    return str(x)


def verdict(rec):
    """T4's invalidity class of a journal record, as ktune's own --t4."""
    status, reason = rec["status"], rec.get("reason", "")
    if status == "ok":
        return "correct"
    if status == "mismatch":
        return "correctness"
    if status == "timeout":
        return "timeout"
    if status == "invalid":
        if "does not compile: " in reason or "cudaLibrary" in reason:
            return "compile"
        if "launch refused" in reason or "refused to launch" in reason:
            return "runtime"
        return "constraints"
    return "runtime"


KT_ERRORS = {"constraints": "InvalidConfig", "compile": "CompilationFailedConfig",
             "runtime": "RuntimeFailedConfig", "timeout": "RuntimeFailedConfig"}


def first_measurements(records):
    """Each point's first single-point measurement, in journal order."""
    seen, out = set(), []
    calls = {}
    for r in records:
        if r.get("kind") == "eval":
            calls.setdefault(r["call"], []).append(r)
    for r in records:
        if r.get("kind") != "eval" or r.get("purpose") != "measure":
            continue
        key = json.dumps(r["point"], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        out.append((r, calls[r["call"]]))
    return out


def times_of(rec, call, previous_end):
    """compile, verification, benchmark, framework (ms) of one record."""
    phases = rec.get("phases", {})
    timing = rec.get("timing", {})
    compile_ms = 1e3 * rec.get("compilation", {}).get("seconds", 0.0)
    verify_ms = 1e3 * phases.get("verify_s", 0.0)
    if "sampling_s" in phases:
        bench_ms = 1e3 * (phases.get("warmup_s", 0.0) + phases["sampling_s"])
    else:
        bench_ms = 1e3 * timing.get("wall_time_s", 0.0)
    share = max(rec["elapsed_s"] - previous_end, 0.0) / max(rec.get("of", 1), 1)
    framework_ms = max(1e3 * share - compile_ms - verify_ms - bench_ms, 0.0)
    return compile_ms, verify_ms, bench_ms, framework_ms


def convert(header, records, max_times):
    names, values = parameters(header)
    cache, results = {}, []
    previous_end = 0.0
    for rec, call in first_measurements(records):
        point = rec["point"]
        conf = {"variant": point["variant"]}
        for name in names[1:]:
            conf[name] = point["params"].get(name)
        cls = verdict(rec)
        timing = rec.get("timing", {})
        samples = [s / 1e3 for s in timing.get("samples_us", [])
                   if s is not None and math.isfinite(s)][:max_times]
        compile_ms, verify_ms, bench_ms, framework_ms = times_of(
            rec, call, previous_end)
        previous_end = max(previous_end, call[-1]["elapsed_s"])
        time = timing["kernel"]["median"] / 1e3 if cls == "correct" else None
        if cls != "correctness":
            entry = dict(conf)
            entry["time"] = time if cls == "correct" else KT_ERRORS[cls]
            if cls == "correct":
                entry["times"] = samples
            entry.update(compile_time=compile_ms, verification_time=verify_ms,
                         benchmark_time=bench_ms, strategy_time=0,
                         framework_time=framework_ms,
                         timestamp=rec.get("time", ""))
            cache[",".join(py_str(conf[n]) for n in names)] = entry
        results.append({
            "timestamp": rec.get("time", ""),
            "configuration": conf,
            "times": {"compilation": compile_ms, "benchmark": bench_ms,
                      "framework": framework_ms, "search_algorithm": 0,
                      "validation": verify_ms,
                      "runtimes": samples if cls == "correct" else []},
            "invalidity": cls,
            "correctness": 1 if cls == "correct" else 0,
            "measurements": [{"name": "time", "unit": "ms",
                              "value": time if cls == "correct"
                              else KT_ERRORS.get(cls, "InvalidConfig")}],
            "objectives": ["time"],
        })
    device = header.get("environment", {}).get("device", {}).get("name", "?")
    cache_doc = {
        "device_name": device,
        "kernel_name": header["plugin_spec"].replace(":", "_"),
        "problem_size": list(header["sizes"].values()),
        "tune_params_keys": names,
        "tune_params": values,
        "objective": "time",
        "cache": cache,
    }
    t4_doc = {"results": results, "schema_version": "1.0.0",
              "metadata": {"timeunit": "milliseconds"}}
    return cache_doc, t4_doc


def write(path, doc):
    text = json.dumps(doc, indent=None, separators=(", ", ": ")) + "\n"
    if path.endswith(".gz"):
        # mtime 0: the same input gives the same bytes.
        with open(path, "wb") as raw, gzip.GzipFile(
                fileobj=raw, mode="wb", mtime=0, filename="") as f:
            f.write(text.encode())
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("journal")
    ap.add_argument("--cache")
    ap.add_argument("--t4")
    ap.add_argument("--max-times", type=int, default=32)
    a = ap.parse_args()
    header, records = read_journal(a.journal)
    cache_doc, t4_doc = convert(header, records, a.max_times)
    if a.cache:
        write(a.cache, cache_doc)
    if a.t4:
        write(a.t4, t4_doc)


if __name__ == "__main__":
    main()
